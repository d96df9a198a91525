#!/usr/bin/python
# esxdiag fleet: turn a distributed switch's VLAN/MTU health check on for a run, read its
# results per host and vmnic, and put the prior setting back. Only on the explicit
# option esxdiag_vds_healthcheck_enable (hardening baselines want the check off: its
# probe frames name hosts, switches and ports). state=enabled records each switch's
# prior setting, turns the check on where it was off, waits (bounded) until every
# uplink of every member host has both results, reads them, and returns the prior
# settings; if anything fails after a switch was turned on, it turns it back off
# before failing. state=restored puts the given prior settings back (the playbook runs
# it in an always: block). Reading is module_utils/vds_health.py's, as the inventory does.

DOCUMENTATION = '''
    module: vds_healthcheck
    short_description: a distributed switch's VLAN/MTU health check, on for a run and restored after
    description:
        - state=enabled turns the VLAN/MTU health check (VMwareDVSVlanMtuHealthCheckConfig) of the named
          distributed switches on where it is off, waits at most I(wait) seconds for every member host's
          results per uplink, and returns them per host and vmnic with each switch's prior setting.
        - state=restored sets each switch back to the I(prior) setting state=enabled returned.
        - The connection is the vCenter inventory's (hostname, port, username, validate_certs, ca_file);
          the password comes from VMWARE_PASSWORD unless given. The user needs DVSwitch.Modify.
    options:
        state: {description: enabled or restored, type: str, required: true, choices: [enabled, restored]}
        switches: {description: the distributed switches' names (state=enabled), type: list, elements: str, default: []}
        hosts: {description: the hosts whose results are awaited and read (the inventory's), type: list, elements: str, default: []}
        prior: {description: what state=enabled returned as prior (state=restored), type: list, elements: dict, default: []}
        interval: {description: the check's interval in minutes while it is on, type: int, default: 1}
        wait: {description: seconds to wait at most for every uplink's results, type: int, default: 150}
        poll: {description: seconds between two reads while waiting, type: int, default: 5}
        hostname: {description: the vCenter, type: str, required: true}
        port: {description: its HTTPS port, type: int, default: 443}
        username: {description: the user, type: str, required: true}
        password: {description: its password (default VMWARE_PASSWORD), type: str, no_log: true}
        validate_certs: {description: check the vCenter's certificate, type: bool, default: true}
        ca_file: {description: the CA that signed it (PEM), type: str}
        timeout: {description: seconds to wait for each answer of the vCenter, type: int, default: 30}
'''

import os
import socket
import ssl
import time

from ansible.module_utils.basic import AnsibleModule

try:
    from pyVim.connect import Disconnect, SmartConnect
    from pyVim.task import WaitForTask
    from pyVmomi import vim, vmodl
except ImportError:
    vim = vmodl = None

from ansible_collections.esxdiag.fleet.plugins.module_utils import vds_health as vh


def _connect(p):
    if p['validate_certs']:
        ctx = ssl.create_default_context(cafile=p['ca_file'] or None)
    else:
        ctx = ssl._create_unverified_context()
    return SmartConnect(host=p['hostname'], port=p['port'], user=p['username'],
                        pwd=p['password'] or os.environ.get('VMWARE_PASSWORD', ''), sslContext=ctx)


def _objects(content, kind, props):
    """{object: {property: value}} of every `kind` in the vCenter."""
    pc = vmodl.query.PropertyCollector
    view = content.viewManager.CreateContainerView(content.rootFolder, [kind], True)
    try:
        spec = pc.FilterSpec(
            objectSet=[pc.ObjectSpec(obj=view, skip=True, selectSet=[
                pc.TraversalSpec(name='view', path='view', skip=False, type=vim.view.ContainerView)])],
            propSet=[pc.PropertySpec(type=kind, pathSet=props)])
        return dict((o.obj, dict((x.name, x.val) for x in o.propSet))
                    for o in content.propertyCollector.RetrieveContents([spec]))
    finally:
        view.Destroy()


def _set(dvs, enabled, interval):
    cfg = vim.dvs.VmwareDistributedVirtualSwitch.VlanMtuHealthCheckConfig(enable=enabled, interval=interval)
    WaitForTask(dvs.UpdateDVSHealthCheckConfig_Task([cfg]))


def _read(content, names, only=()):
    """({dvs name: (object, switch_state)}, {host name: [entries]}) for the hosts named."""
    switches = dict((p['name'], (o, vh.switch_state(p))) for o, p in
                    _objects(content, vim.DistributedVirtualSwitch, vh.DVS_PROPS).items() if p['name'] in names)
    by_uuid = dict((s['uuid'], s) for _, s in switches.values())
    hosts = {}
    for o, p in _objects(content, vim.HostSystem, ['name', 'config.network']).items():
        if p['name'] not in only:
            continue
        entries = vh.host_health(p['name'], o._moId, p.get('config.network'), by_uuid,
                                 'read during the run, the check on')
        if entries:
            hosts[p['name']] = entries
    return switches, hosts


def enable(module, content):
    p = module.params
    switches, _ = _read(content, p['switches'])
    missing = [n for n in p['switches'] if n not in switches]
    if missing:
        module.fail_json(msg='vds_healthcheck: distributed switch %s not found in vCenter %s (check the inventory)' % (
            ', '.join(missing), p['hostname']))
    prior, turned_on = [], []
    try:
        for name, (obj, state) in sorted(switches.items()):
            check = state['check']
            if check is None:
                module.fail_json(msg='vds_healthcheck: %s has no VLAN/MTU health check (not a VMware '
                                     'distributed switch)' % name)
            prior.append({'dvs': name, 'enabled': check['enabled'], 'interval': check['interval']})
            if not check['enabled']:
                turned_on.append((obj, check['interval']))
                _set(obj, True, p['interval'])
        t0 = time.monotonic()
        while True:
            _, hosts = _read(content, p['switches'], p['hosts'])
            done = all(vh.complete(e) for e in hosts.values())
            if done or time.monotonic() - t0 >= p['wait']:
                break
            time.sleep(min(p['poll'], max(0.0, p['wait'] - (time.monotonic() - t0))))
    except BaseException:
        # never leave a switch on that this run turned on (fail_json exits too)
        for obj, interval in turned_on:
            try:
                _set(obj, False, interval or 0)
            except Exception:
                pass
        raise
    return {'changed': bool(turned_on), 'prior': prior, 'hosts': hosts, 'complete': done,
            'waited': round(time.monotonic() - t0, 1),
            'switches': [{'dvs': x['dvs'], 'before': 'on' if x['enabled'] else 'off', 'during': 'on',
                          'after': 'on' if x['enabled'] else 'off (restored)'} for x in prior]}


def restore(module, content):
    p = module.params
    names = [x['dvs'] for x in p['prior']]
    switches, _ = _read(content, names)
    changed = []
    for x in p['prior']:
        obj, state = switches.get(x['dvs'], (None, None))
        if obj is None:
            module.fail_json(msg='vds_healthcheck: %s is gone from vCenter %s: its health check could not be set '
                                 'back to %s' % (x['dvs'], p['hostname'], 'on' if x['enabled'] else 'off'))
        if (state['check'] or {}).get('enabled') != bool(x['enabled']):
            # the prior interval as it was (a check that was off may hold 0)
            _set(obj, bool(x['enabled']), int(x['interval'] or 0))
            changed.append(x['dvs'])
    return {'changed': bool(changed), 'restored': changed}


def main():
    module = AnsibleModule(argument_spec=dict(
        state=dict(type='str', required=True, choices=['enabled', 'restored']),
        switches=dict(type='list', elements='str', default=[]), hosts=dict(type='list', elements='str', default=[]),
        prior=dict(type='list', elements='dict', default=[]),
        interval=dict(type='int', default=1), wait=dict(type='int', default=150), poll=dict(type='int', default=5),
        hostname=dict(type='str', required=True), port=dict(type='int', default=443),
        username=dict(type='str', required=True), password=dict(type='str', no_log=True),
        validate_certs=dict(type='bool', default=True), ca_file=dict(type='str'),
        timeout=dict(type='int', default=30)))
    if vim is None:
        module.fail_json(msg='vds_healthcheck: pyVmomi is not installed on the controller (apt-get install python3-pyvmomi)')
    p = module.params
    if not 1 <= p['interval'] <= 1440 or not 0 <= p['wait'] <= 3600 or not 1 <= p['poll'] <= 600:
        module.fail_json(msg='vds_healthcheck: interval (1 to 1440 minutes), wait (0 to 3600 s) or poll (1 to 600 s) '
                             'out of range (esxdiag_vds_healthcheck_interval, _wait, _poll)')
    socket.setdefaulttimeout(p['timeout'])
    try:
        si = _connect(p)
    except Exception as e:
        module.fail_json(msg='vds_healthcheck: vCenter %s:%s: %s' % (p['hostname'], p['port'], e))
    try:
        content = si.RetrieveContent()
        result = enable(module, content) if p['state'] == 'enabled' else restore(module, content)
    except vmodl.MethodFault as e:
        module.fail_json(msg='vds_healthcheck: vCenter %s:%s: %s' % (p['hostname'], p['port'], e.msg or type(e).__name__))
    finally:
        try:
            Disconnect(si)
        except Exception:
            pass
    module.exit_json(**result)


if __name__ == '__main__':
    main()
