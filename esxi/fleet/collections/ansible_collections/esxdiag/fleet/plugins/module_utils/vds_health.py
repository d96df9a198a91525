# esxdiag fleet: the vDS VLAN/MTU health check as vCenter reports it, per host and
# vmnic. Read-only: everything here reads properties; turning the check on and off is
# plugins/modules/vds_healthcheck.py's, on its explicit option only.
#
# What vCenter gives (vSphere Web Services API):
#   DistributedVirtualSwitch.config.healthCheckConfig[]: VMwareDVSVlanMtuHealthCheckConfig
#     {enable, interval (minutes)}: one switch for the VLAN and the MTU check (there is
#     no MTU-only config); VMwareDVSTeamingHealthCheckConfig is the other kind
#   DistributedVirtualSwitch.runtime.hostMemberRuntime[]: {host, healthCheckResult[]}, per
#     uplink port (uplinkPortKey): VMwareDVSMtuHealthCheckResult {mtuMismatch,
#     vlanSupportSwitchMtu[], vlanNotSupportSwitchMtu[]} and VMwareDVSVlanHealthCheckResult
#     {trunkedVlan[], untrunkedVlan[]}, each VLAN list of NumericRange {start, end}
#   HostSystem.config.network.proxySwitch[].spec.backing.pnicSpec[]: {pnicDevice,
#     uplinkPortKey}: which vmnic of the host is behind which uplink port
# mtuMismatch: the vmnic's own MTU is not the switch's; the port was then not probed.
# A VLAN in vlanNotSupportSwitchMtu: the physical switch port does not pass frames of
# the switch's MTU on that VLAN. With the check off vCenter has no results: unknown,
# never guessed. Pure functions over plain values or pyVmomi objects (read with
# getattr): test/unit/fleet_vds_health_test.py runs them without vCenter.

DVS_PROPS = ['name', 'uuid', 'config.maxMtu', 'config.healthCheckConfig', 'runtime.hostMemberRuntime']
VLAN_MTU_CONFIG = 'VMwareDVSVlanMtuHealthCheckConfig'
MTU_RESULT = 'VMwareDVSMtuHealthCheckResult'
VLAN_RESULT = 'VMwareDVSVlanHealthCheckResult'


def _kind(obj):
    """The vSphere type name of a pyVmomi data object (or of a plain dict's '_type')."""
    if isinstance(obj, dict):
        return obj.get('_type')
    return getattr(obj, '_wsdlName', None) or type(obj).__name__


def _get(obj, name, default=None):
    if isinstance(obj, dict):
        return obj.get(name, default)
    return getattr(obj, name, default)


def vlan_mtu_config(configs):
    """{enabled, interval} of the VLAN/MTU check from config.healthCheckConfig[], or
    None when the switch has no such config (not a VMware DVS)."""
    for c in configs or []:
        if _kind(c) == VLAN_MTU_CONFIG:
            return {'enabled': bool(_get(c, 'enable')), 'interval': _get(c, 'interval')}
    return None


def ranges(values):
    """NumericRange[] as [[start, end], ...]."""
    return [[_get(r, 'start'), _get(r, 'end')] for r in values or []]


def vlans_text(rs):
    """[[0, 0], [100, 110]] as 'VLAN 0, 100-110'."""
    parts = ['%s' % a if a == b else '%s-%s' % (a, b) for a, b in rs]
    return ('VLAN ' if len(parts) == 1 and '-' not in parts[0] else 'VLANs ') + ', '.join(parts)


def port_results(member_runtime):
    """{uplinkPortKey: {'mtu': {...}, 'vlan': {...}}} of one hostMemberRuntime entry."""
    out = {}
    for r in _get(member_runtime, 'healthCheckResult') or []:
        key = _get(r, 'uplinkPortKey')
        if key is None:
            continue
        if _kind(r) == MTU_RESULT:
            out.setdefault(key, {})['mtu'] = {
                'mismatch': bool(_get(r, 'mtuMismatch')), 'passed': ranges(_get(r, 'vlanSupportSwitchMtu')),
                'not_passed': ranges(_get(r, 'vlanNotSupportSwitchMtu'))}
        elif _kind(r) == VLAN_RESULT:
            out.setdefault(key, {})['vlan'] = {
                'trunked': ranges(_get(r, 'trunkedVlan')), 'untrunked': ranges(_get(r, 'untrunkedVlan'))}
    return out


def switch_state(props, host_key=None):
    """One switch from its DVS_PROPS: {name, uuid, mtu, check: vlan_mtu_config,
    results: {host key: port_results}}; host_key(ref) gives the key of a host
    reference (pyVmomi: its _moId)."""
    host_key = host_key or (lambda ref: _get(ref, '_moId', ref))
    results = {}
    for m in props.get('runtime.hostMemberRuntime') or []:
        results[host_key(_get(m, 'host'))] = port_results(m)
    return {'name': props.get('name'), 'uuid': props.get('uuid'), 'mtu': props.get('config.maxMtu'),
            'check': vlan_mtu_config(props.get('config.healthCheckConfig')), 'results': results}


def host_ports(net):
    """[(dvs uuid, [(vmnic, uplink port key)])] of a host's proxy switches, from
    config.network.proxySwitch[].spec.backing.pnicSpec[]."""
    out = []
    for p in _get(net, 'proxySwitch') or []:
        backing = _get(_get(p, 'spec'), 'backing')
        pairs = [(_get(s, 'pnicDevice'), _get(s, 'uplinkPortKey')) for s in _get(backing, 'pnicSpec') or []]
        out.append((_get(p, 'dvsUuid'), [(d, k) for d, k in pairs if d]))
    return out


def _uplink(host, dvs, mtu, vmnic, port, res):
    """One vmnic's results: {vmnic, port, mtu (passed, not-passed, nic-mtu-differs,
    unknown), vlan (trunked, untrunked, unknown), the VLAN lists}, and its findings."""
    m, v = res.get('mtu'), res.get('vlan')
    u = {'vmnic': vmnic, 'port': port, 'mtu': 'unknown', 'vlan': 'unknown', 'not_passed': [], 'untrunked': []}
    found = []
    if m is not None:
        if m['mismatch']:
            u['mtu'] = 'nic-mtu-differs'
            found.append('vDS health check: %s on %s: its NIC MTU is not %s\'s %s (the switch port was '
                         'not probed; esxcli network nic list on %s)' % (vmnic, host, dvs, mtu, host))
        elif m['not_passed']:
            u['mtu'], u['not_passed'] = 'not-passed', m['not_passed']
            found.append('vDS health check: %s on %s: switch MTU does not match %s (%s; its physical '
                         'switch port)' % (vmnic, host, mtu, vlans_text(m['not_passed'])))
        else:
            u['mtu'] = 'passed'
    if v is not None:
        u['vlan'] = 'untrunked' if v['untrunked'] else 'trunked'
        u['untrunked'] = v['untrunked']
        if v['untrunked']:
            found.append('vDS health check: %s on %s: %s not trunked on its physical switch port' % (
                vmnic, host, vlans_text(v['untrunked'])))
    return u, found


def host_health(host, host_key, net, switches, read):
    """A host's entries, one per distributed switch it is on: {dvs, mtu, check (on,
    off, unknown), interval, read (how the results were read), uplinks: [_uplink],
    findings, note}. `switches` is {uuid: switch_state}."""
    out = []
    for uuid, ports in host_ports(net):
        sw = switches.get(uuid)
        if sw is None:
            continue
        check = sw['check']
        state = 'unknown' if check is None else ('on' if check['enabled'] else 'off')
        res = sw['results'].get(host_key) or {}
        e = {'dvs': sw['name'], 'mtu': sw['mtu'], 'check': state, 'interval': (check or {}).get('interval'),
             'read': read, 'uplinks': [], 'findings': [], 'note': None}
        for vmnic, port in ports:
            u, found = _uplink(host, sw['name'], sw['mtu'], vmnic, port, (res.get(port) or {}) if state == 'on' else {})
            e['uplinks'].append(u)
            e['findings'] += found
        if state == 'off':
            e['note'] = 'health check off on %s: results unknown' % sw['name']
        elif state == 'unknown':
            e['note'] = '%s has no VLAN/MTU health check: results unknown' % sw['name']
        elif any(u['mtu'] == 'unknown' or u['vlan'] == 'unknown' for u in e['uplinks']):
            e['note'] = 'health check on %s: no result yet for %s: unknown' % (sw['name'], ', '.join(
                u['vmnic'] for u in e['uplinks'] if u['mtu'] == 'unknown' or u['vlan'] == 'unknown'))
        out.append(e)
    return out


def complete(entries):
    """True when every uplink of every entry has both results (the wait is over)."""
    return all(e['check'] == 'on' and all(u['mtu'] != 'unknown' and u['vlan'] != 'unknown' for u in e['uplinks'])
               for e in entries)
