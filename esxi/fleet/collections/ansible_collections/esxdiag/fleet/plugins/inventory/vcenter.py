# esxdiag fleet: an Ansible inventory read from vCenter (pyVmomi). Every host of the
# chosen datacenters/clusters that is connected and not in maintenance mode, in one
# group, with what the fleet needs: ansible_host (the management vmk's address), the
# vMotion vmk (esxdiag_vmk), its addresses (esxdiag_test_ip, esxdiag_test_ip6), its
# netstack (esxdiag_netstack) and the configuration that bears on MTU (esxdiag_config:
# the vmk's MTU, its standard vSwitch or distributed switch and that switch's MTU,
# the uplinks; on a distributed switch, its VLAN/MTU health check's results per vmnic,
# read-only: esxdiag_config.vds_health, module_utils/vds_health.py). A host left out
# is named on stderr with the reason. Anything that
# stops the inventory from being read (no vCenter there, not a vCenter, an untrusted
# certificate, a refused login, a datacenter or cluster that does not exist or holds
# no host) is one line on stderr and exit 2, before any host is touched. The options
# are checked here, not by Ansible's type conversion (which turns a misspelt boolean
# into false and reports a wrong type as a warning and an empty inventory): a bad value
# stops the run before any connection. Control characters in what is printed (names
# from vCenter, values from the file) are written escaped, and a host whose name holds
# one is left out.

DOCUMENTATION = '''
    name: vcenter
    short_description: the ESXi hosts and vMotion vmks of a vCenter, for the esxdiag fleet
    description:
        - Reads the hosts of a vCenter (its datacenters, or some of its clusters) with pyVmomi
          and puts every connected host that is not in maintenance mode in one group, with its
          management address, its vMotion vmk, that vmk's addresses and netstack, and the MTU
          configuration on its path (vmk, standard vSwitch or distributed switch, uplinks).
        - The connection options are those of community.vmware, with the same environment
          variables. The password is read from the file (ansible-vault works, inline or for
          the whole file) or from VMWARE_PASSWORD, never from the command line, and never printed.
        - The vMotion vmk is the one with the vMotion service on, else the one on the vmotion netstack.
    options:
        plugin:
            description:
                - this plugin's name; its earlier name esxdiag_vcenter is accepted where Ansible
                  finds the plugin under it (a checkout's esxi/fleet/inventory_plugins)
            required: true
            choices: ['esxdiag.fleet.vcenter', 'esxdiag_vcenter']
        hostname:
            description: the vCenter's name or address
            type: raw
            env: [{name: VMWARE_HOST}]
        port:
            description: its HTTPS port (1 to 65535)
            type: raw
            default: 443
            env: [{name: VMWARE_PORT}]
        username:
            description: the user to log in as (read-only rights are enough)
            type: raw
            env: [{name: VMWARE_USER}, {name: VMWARE_USERNAME}]
        password:
            description: that user's password
            type: raw
            env: [{name: VMWARE_PASSWORD}]
        validate_certs:
            description:
                - check the vCenter's certificate against the trusted CAs (ca_file, else the system's)
                - anything but a boolean (true/false, yes/no, on/off, 1/0) is an error, never false
            type: raw
            default: true
            env: [{name: VMWARE_VALIDATE_CERTS}]
        ca_file:
            description: a PEM file (a regular file) of the CA(s) that signed the vCenter's certificate
            type: raw
        datacenters:
            description: only these datacenters (default every one)
            type: raw
            default: []
        clusters:
            description: only the hosts of these clusters (default every host of the datacenters)
            type: raw
            default: []
        group:
            description: the group the hosts go in (the playbook runs on esxdiag_group, default esxdiag)
            type: raw
            default: esxdiag
        timeout:
            description: seconds to wait for the vCenter to answer (1 to 86400)
            type: raw
            default: 30
'''

EXAMPLES = '''
# vcenter.yml, with VMWARE_HOST, VMWARE_USER, VMWARE_PASSWORD set in the environment:
#   ansible-inventory -i vcenter.yml --list
#   ansible-playbook esxdiag.fleet.validate -i vcenter.yml -e esxdiag_kit=esxdiag-0.1.0-x86_64.tar.gz
plugin: esxdiag.fleet.vcenter
clusters: [prod-01]
---
# the vCenter named in the file (the password from VMWARE_PASSWORD, or in the file as the
# output of ansible-vault encrypt_string), its certificate checked against its CA
plugin: esxdiag.fleet.vcenter
hostname: vcenter.example.com
username: readonly@vsphere.local
ca_file: /etc/ssl/vcenter-ca.pem
datacenters: [dc-east]
group: esxdiag
'''

import importlib.util
import os
import re
import socket
import ssl
import stat
import sys
import unicodedata

from ansible.module_utils.common.text.converters import to_text
from ansible.module_utils.parsing.convert_bool import boolean
from ansible.parsing.yaml.objects import AnsibleVaultEncryptedUnicode
from ansible.plugins.inventory import BaseInventoryPlugin

try:
    from pyVim.connect import Disconnect, SmartConnect
    from pyVmomi import vim, vmodl
except ImportError:
    vim = vmodl = None

try:
    from ansible_collections.esxdiag.fleet.plugins.module_utils import vds_health
except ImportError:
    # a checkout's inventory_plugins/esxdiag_vcenter.py (a link here) outside the
    # collection path: the module beside this file's real one
    _spec = importlib.util.spec_from_file_location('esxdiag_vds_health', os.path.join(
        os.path.dirname(os.path.realpath(__file__)), '..', 'module_utils', 'vds_health.py'))
    vds_health = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(vds_health)

# the name its messages start with (the one the plugin had before it was in a collection)
NAME = 'esxdiag_vcenter'
HOST_PROPS = ['name', 'parent', 'runtime.connectionState', 'runtime.inMaintenanceMode',
              'config.network', 'config.virtualNicManagerInfo']


def _printable(text):
    """text with every control or format character (ESC, newline, C1, bidi) escaped
    as \\xNN or \\uNNNN: a name from vCenter cannot drive the terminal or forge a line."""
    return ''.join(c.encode('unicode_escape').decode('ascii') if unicodedata.category(c)[0] == 'C' else c
                   for c in to_text(text))


def _say(msg):
    sys.stderr.write('%s: %s\n' % (NAME, _printable(msg)))
    sys.stderr.flush()


def _stop(msg):
    """One line on stderr and exit 2: the run stops before any host is touched."""
    _say(msg)
    raise SystemExit(2)


def _shown(value):
    """An option's value as the user wrote it, for a message."""
    return "'%s'" % value if isinstance(value, str) else repr(value)


def _bool_opt(value):
    """Ansible's boolean spellings only: a typo is an error, never false."""
    if isinstance(value, bool):
        return value
    try:
        return boolean(value, strict=True)
    except TypeError:
        raise ValueError('not a boolean (true or false; yes/no, on/off, 1/0 also do)')


def _int_opt(low, high):
    def check(value):
        if isinstance(value, bool) or not isinstance(value, (int, str)) or \
                (isinstance(value, str) and not re.match(r'^\s*[0-9]{1,20}\s*$', value)):
            raise ValueError('not a whole number')
        n = int(value)
        if not low <= n <= high:
            raise ValueError('out of range (%d to %d)' % (low, high))
        return n
    return check


def _names_opt(value):
    """A list of names, or one string of comma-separated names."""
    if isinstance(value, str):
        value = [v.strip() for v in value.split(',') if v.strip()]
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise ValueError('not a list of names (quote a name that looks like a number)')
    return value


def _name_opt(value):
    if not isinstance(value, str) or not value.strip():
        raise ValueError('not a name')
    return value


def _password_opt(value):
    """A string, or an ansible-vault value (decrypted when it is used)."""
    if not isinstance(value, (str, AnsibleVaultEncryptedUnicode)):
        raise ValueError('not a string (quote it, or encrypt it with ansible-vault encrypt_string)')
    return value


def _ca_file_opt(value):
    """A regular file: a FIFO or a device would hold the read forever."""
    if not isinstance(value, str):
        raise ValueError('not a path')
    path = os.path.expanduser(os.path.expandvars(value))
    try:
        st = os.stat(path)
    except OSError as e:
        raise ValueError('cannot be read: %s' % e.strerror)
    if not stat.S_ISREG(st.st_mode):
        raise ValueError('%s, not a regular file (give the PEM file of the CA)' % (
            'a FIFO (named pipe)' if stat.S_ISFIFO(st.st_mode) else 'a directory' if stat.S_ISDIR(st.st_mode)
            else 'a socket' if stat.S_ISSOCK(st.st_mode) else 'a device'))
    return path


# option: (how it is checked, its environment variable or None). Unset (None) is
# left to the option's default; empty ('', e.g. VMWARE_VALIDATE_CERTS=) is checked
# like any value (an empty boolean is no boolean), except for the options that say
# "no ... given" or have none by default. The password's value is never shown.
SECRET_OPTIONS = ('password',)
EMPTY_IS_UNSET = ('hostname', 'username', 'password', 'ca_file')
OPTION_CHECKS = {
    'hostname': (_name_opt, 'VMWARE_HOST'),
    'password': (_password_opt, 'VMWARE_PASSWORD'),
    'port': (_int_opt(1, 65535), 'VMWARE_PORT'),
    'username': (_name_opt, 'VMWARE_USER'),
    'validate_certs': (_bool_opt, 'VMWARE_VALIDATE_CERTS'),
    'ca_file': (_ca_file_opt, None),
    'datacenters': (_names_opt, None),
    'clusters': (_names_opt, None),
    'group': (_name_opt, None),
    'timeout': (_int_opt(1, 86400), None),
}


def _connect_error(where, user, exc):
    """What went wrong connecting to the vCenter, in words, with what to do."""
    if vim is not None and isinstance(exc, vim.fault.InvalidLogin):
        return ('vCenter %s: login as %s refused: wrong user name or password '
                '(check username or VMWARE_USER, password or VMWARE_PASSWORD)' % (where, user))
    if isinstance(exc, ssl.SSLCertVerificationError):
        why = getattr(exc, 'verify_message', None) or str(exc)
        return ('vCenter %s: its certificate is not trusted: %s (give the CA that signed it with '
                'ca_file, or set validate_certs: false to skip the check)' % (where, why))
    if isinstance(exc, ssl.SSLError):
        return ('vCenter %s: not a vCenter: no TLS there (%s; a plain HTTP server?) '
                '(check hostname and port, VMWARE_HOST and VMWARE_PORT)' % (where, exc.reason or exc))
    if isinstance(exc, socket.gaierror):
        return 'vCenter %s: the name does not resolve (%s) (check hostname or VMWARE_HOST)' % (where, exc.strerror)
    if isinstance(exc, (socket.timeout, TimeoutError)):
        return 'vCenter %s: no answer (timed out) (check the address and the network path to it)' % where
    if isinstance(exc, OSError) and exc.strerror:
        return ('vCenter %s: %s (is that the vCenter\'s address and HTTPS port? '
                'VMWARE_HOST, VMWARE_PORT)' % (where, exc.strerror.lower()))
    if 'is not a VIM server' in str(exc):
        return ('vCenter %s: not a vCenter: no vSphere API at /sdk (check hostname and port, '
                'VMWARE_HOST and VMWARE_PORT)' % where)
    return 'vCenter %s: %s: %s' % (where, type(exc).__name__, exc)


def _ssl_context(validate, ca_file):
    if not validate:
        return ssl._create_unverified_context()
    try:
        return ssl.create_default_context(cafile=ca_file or None)
    except (OSError, ssl.SSLError) as e:
        _stop('ca_file %s: cannot be read as PEM certificates: %s (give the CA file of the vCenter)' % (
            ca_file, getattr(e, 'strerror', None) or e))


def _collect(content, root, kind, props):
    """[(object, {property: value})] of every `kind` under root, in one round trip."""
    pc = vmodl.query.PropertyCollector
    view = content.viewManager.CreateContainerView(root, [kind], True)
    try:
        spec = pc.FilterSpec(
            objectSet=[pc.ObjectSpec(obj=view, skip=True, selectSet=[
                pc.TraversalSpec(name='view', path='view', skip=False, type=vim.view.ContainerView)])],
            propSet=[pc.PropertySpec(type=kind, pathSet=props)])
        out = []
        for o in content.propertyCollector.RetrieveContents([spec]):
            out.append((o.obj, dict((p.name, p.val) for p in o.propSet)))
        return out
    finally:
        view.Destroy()


def _ipv6(ip):
    """The vmk's global IPv6 address (not link-local, not invalid or duplicate), or ''."""
    cfg = getattr(ip, 'ipV6Config', None) if ip else None
    for a in (cfg.ipV6Address if cfg else None) or []:
        if a.ipAddress and not a.ipAddress.lower().startswith('fe80:') and \
                (a.dadState or 'preferred') not in ('invalid', 'duplicate'):
            return a.ipAddress
    return ''


def _selected(nic_info, service):
    """The vmk devices that carry `service` (virtualNicManagerInfo's selectedVnic)."""
    devs = []
    for nc in (nic_info.netConfig if nic_info else None) or []:
        if nc.nicType != service:
            continue
        by_key = dict((c.key, c.device) for c in nc.candidateVnic or [])
        for key in nc.selectedVnic or []:
            dev = by_key.get(key) or key.rsplit('-', 1)[-1]
            if dev not in devs:
                devs.append(dev)
    return devs


def _pnic_list(net, keys):
    by_key = dict((p.key, p) for p in net.pnic or [])
    out = []
    for k in keys or []:
        p = by_key.get(k)
        speed = p.linkSpeed.speedMb if p is not None and p.linkSpeed else None
        out.append({'device': p.device if p is not None else k.rsplit('-', 1)[-1], 'speed_mb': speed})
    return out


def _switch_of(net, vnic, dvs_by_uuid, pg_by_key):
    """(switch, uplinks, portgroup) of the vmk: its standard vSwitch or its DVS."""
    port = vnic.spec.distributedVirtualPort
    if port is not None and port.switchUuid:
        dvs = dvs_by_uuid.get(port.switchUuid) or {}
        proxy = next((p for p in net.proxySwitch or [] if p.dvsUuid == port.switchUuid), None)
        mtu = dvs.get('mtu') or (proxy.mtu if proxy is not None else None)
        switch = {'type': 'distributed', 'name': dvs.get('name') or (proxy.dvsName if proxy else port.switchUuid),
                  'mtu': mtu, 'host_mtu': proxy.mtu if proxy is not None else None}
        return switch, _pnic_list(net, proxy.pnic if proxy is not None else []), pg_by_key.get(port.portgroupKey)
    pg = next((p for p in net.portgroup or [] if p.spec.name == vnic.portgroup), None)
    vs_name = pg.spec.vswitchName if pg is not None else None
    vs = next((s for s in net.vswitch or [] if s.name == vs_name), None)
    if vs is None:
        return {'type': 'standard', 'name': vs_name, 'mtu': None}, [], vnic.portgroup
    return {'type': 'standard', 'name': vs.name, 'mtu': vs.mtu}, _pnic_list(net, vs.pnic), vnic.portgroup


def _vmotion_vmk(net, nic_info):
    """(vnic, how it was chosen, the other vMotion vmks) or (None, ...)."""
    vnics = sorted(net.vnic or [], key=lambda v: v.device)
    tagged = _selected(nic_info, 'vmotion')
    chosen = [v for v in vnics if v.device in tagged]
    how = 'vMotion service'
    if not chosen:
        chosen = [v for v in vnics if v.spec.netStackInstanceKey == 'vmotion']
        how = 'vmotion netstack'
    if not chosen:
        return None, None, []
    return chosen[0], how, [v.device for v in chosen[1:]]


def host_vars(props, dvs_by_uuid, pg_by_key, where, health=None):
    """The inventory variables of one host, or (None, why it is left out); `health`
    is {dvs uuid: vds_health.switch_state} (read-only)."""
    state = props.get('runtime.connectionState')
    if state != 'connected':
        return None, 'not connected (vCenter says %s)' % state
    if props.get('runtime.inMaintenanceMode'):
        return None, 'in maintenance mode'
    net = props.get('config.network')
    if net is None:
        return None, 'vCenter has no network configuration for it'
    nic_info = props.get('config.virtualNicManagerInfo')
    mgmt_devs = _selected(nic_info, 'management') or ['vmk0']
    mgmt = next((v for v in net.vnic or [] if v.device in mgmt_devs and v.spec.ip and
                 (v.spec.ip.ipAddress or _ipv6(v.spec.ip))), None)
    if mgmt is None:
        return None, 'no management vmk with an address'
    vnic, how, others = _vmotion_vmk(net, nic_info)
    if vnic is None:
        return None, 'no vmk with the vMotion service on, none on the vmotion netstack'
    ip4, ip6 = (vnic.spec.ip.ipAddress if vnic.spec.ip else '') or '', _ipv6(vnic.spec.ip)
    if not ip4 and not ip6:
        return None, '%s (the vMotion vmk) has no address' % vnic.device
    switch, uplinks, portgroup = _switch_of(net, vnic, dvs_by_uuid, pg_by_key)
    out = {
        'ansible_host': mgmt.spec.ip.ipAddress or _ipv6(mgmt.spec.ip),
        'esxdiag_vmk': vnic.device,
        'esxdiag_netstack': vnic.spec.netStackInstanceKey or 'defaultTcpipStack',
        'esxdiag_config': {
            'source': 'vCenter %s' % where, 'vmk': vnic.device, 'vmk_mtu': vnic.spec.mtu,
            'chosen_by': how, 'other_vmotion_vmks': others, 'netstack': vnic.spec.netStackInstanceKey,
            'portgroup': portgroup, 'switch': switch, 'uplinks': uplinks, 'management_vmk': mgmt.device,
            'vds_health': vds_health.host_health(props.get('name'), props.get('_key'), net, health or {},
                                                 'read-only (vCenter inventory)'),
        },
    }
    if ip4:
        out['esxdiag_test_ip'] = ip4
    if ip6:
        out['esxdiag_test_ip6'] = ip6
    return out, None


class InventoryModule(BaseInventoryPlugin):
    NAME = 'esxdiag.fleet.vcenter'

    def verify_file(self, path):
        return super(InventoryModule, self).verify_file(path) and path.endswith(('.yml', '.yaml'))

    def _check_options(self):
        """Every option's value checked and converted, before any connection."""
        self._checked = {}
        for name, (check, env) in OPTION_CHECKS.items():
            value = self.get_option(name)
            if value is None or (name in EMPTY_IS_UNSET and isinstance(value, str) and value == ''):
                self._checked[name] = value
                continue
            try:
                self._checked[name] = check(value)
            except ValueError as e:
                _stop('%s%s: %s (set %s in %s%s)' % (
                    name, '' if name in SECRET_OPTIONS else ' ' + _shown(value), e, name, self._path,
                    ', or %s' % env if env else ''))

    def _opt(self, name, env, what):
        value = self._checked[name] if name in self._checked else self.get_option(name)
        if value is None or str(value) == '':
            _stop('no %s given: set %s in %s, or %s' % (what, name, self._path, env))
        return value

    def _login(self):
        host = self._opt('hostname', 'VMWARE_HOST', 'vCenter')
        user = self._opt('username', 'VMWARE_USER', 'user name')
        # the password may be vault-encrypted in the file: str() decrypts it
        pwd = str(self._opt('password', 'VMWARE_PASSWORD', 'password'))
        port = self._checked['port']
        self._where = '%s:%s' % (host, port) if ':' not in str(host) else '[%s]:%s' % (host, port)
        ctx = _ssl_context(self._checked['validate_certs'], self._checked['ca_file'])
        try:
            return SmartConnect(host=host, port=port, user=user, pwd=pwd, sslContext=ctx)
        except Exception as e:
            _stop(_connect_error(self._where, user, e))

    def _datacenters(self, content):
        found = _collect(content, content.rootFolder, vim.Datacenter, ['name', 'hostFolder'])
        want = self._checked['datacenters'] or []
        names = sorted(p['name'] for _, p in found)
        for w in want:
            if w not in names:
                _stop("datacenter '%s' not found in vCenter %s (datacenters there: %s)" % (
                    w, self._where, ', '.join(names) or 'none'))
        return [(p['name'], p['hostFolder']) for _, p in found if not want or p['name'] in want]

    def _hosts(self, content):
        """[(datacenter, cluster, props)] of the hosts asked for."""
        want = self._checked['clusters'] or []
        out, seen = [], set()
        for dc, folder in self._datacenters(content):
            clusters = dict((o, p) for o, p in _collect(content, folder, vim.ClusterComputeResource, ['name', 'host']))
            names = dict((o, p['name']) for o, p in clusters.items())
            for w in want:
                if w in names.values():
                    seen.add(w)
                    if not [h for o, p in clusters.items() if p['name'] == w for h in p['host'] or []]:
                        _stop("cluster '%s' in datacenter %s has no hosts (name the cluster whose "
                              "hosts to test)" % (w, dc))
            for obj, props in _collect(content, folder, vim.HostSystem, HOST_PROPS):
                props['_key'] = obj._moId
                cluster = names.get(props.get('parent'))
                if not want or cluster in want:
                    out.append((dc, cluster, props))
        for w in want:
            if w not in seen:
                _stop("cluster '%s' not found in vCenter %s (clusters there: %s)" % (
                    w, self._where, ', '.join(self._all_clusters(content)) or 'none'))
        return out

    def _all_clusters(self, content):
        return sorted(p['name'] for _, p in _collect(content, content.rootFolder, vim.ClusterComputeResource, ['name']))

    def _switches(self, content):
        """({uuid: {name, mtu}}, {portgroup key: name}, {uuid: its health check}); the
        health check's config and results are read, never changed."""
        found = _collect(content, content.rootFolder, vim.DistributedVirtualSwitch, vds_health.DVS_PROPS)
        dvs = dict((p['uuid'], {'name': p['name'], 'mtu': p.get('config.maxMtu')}) for _, p in found)
        health = dict((p['uuid'], vds_health.switch_state(p)) for _, p in found)
        pgs = dict((p['key'], p['name']) for _, p in _collect(
            content, content.rootFolder, vim.dvs.DistributedVirtualPortgroup, ['key', 'name']))
        return dvs, pgs, health

    def parse(self, inventory, loader, path, cache=True):
        super(InventoryModule, self).parse(inventory, loader, path, cache)
        self._path = path
        self._read_config_data(path)
        self._check_options()
        if vim is None:
            _stop('pyVmomi is not installed on the controller (apt-get install python3-pyvmomi)')
        # every socket pyVmomi opens waits at most `timeout` seconds for the vCenter
        # (pyVmomi 6.7 takes no timeout of its own)
        old = socket.getdefaulttimeout()
        socket.setdefaulttimeout(self._checked['timeout'])
        try:
            hosts, dvs, pgs, health = self._read()
        finally:
            socket.setdefaulttimeout(old)
        self._populate(hosts, dvs, pgs, health)

    def _read(self):
        si = self._login()
        try:
            content = si.RetrieveContent()
            hosts = self._hosts(content)
            dvs, pgs, health = self._switches(content)
        except vmodl.MethodFault as e:
            _stop('vCenter %s: reading the inventory failed: %s' % (self._where, e.msg or type(e).__name__))
        except OSError as e:
            _stop(_connect_error(self._where, self.get_option('username'), e))
        finally:
            try:
                Disconnect(si)
            except Exception:
                pass
        return hosts, dvs, pgs, health

    def _vcenter(self):
        """How to reach this vCenter again (the vDS health check's explicit option,
        plugins/modules/vds_healthcheck.py), never the password."""
        return {'hostname': self._checked['hostname'] or self.get_option('hostname'), 'port': self._checked['port'],
                'username': self._checked['username'] or self.get_option('username'),
                'validate_certs': self._checked['validate_certs'], 'ca_file': self._checked['ca_file']}

    def _populate(self, hosts, dvs, pgs, health):
        group = self._checked['group']
        self.inventory.add_group(group)
        kept, left = 0, 0
        for dc, cluster, props in sorted(hosts, key=lambda h: to_text(h[2].get('name'))):
            name = to_text(props.get('name'))
            hv, why = host_vars(props, dvs, pgs, self._where, health)
            if hv is not None and _printable(name) != name:
                hv, why = None, 'its name holds control characters'
            if hv is None:
                left += 1
                _say('%s left out: %s' % (name, why))
                continue
            hv['esxdiag_config'].update({'datacenter': dc, 'cluster': cluster})
            hv['esxdiag_vcenter'] = self._vcenter()
            self.inventory.add_host(name, group=group)
            for k, v in hv.items():
                self.inventory.set_variable(name, k, v)
            kept += 1
        if not kept:
            _stop('no host to test in vCenter %s: %s' % (
                self._where, 'all %d hosts found were left out (reasons above)' % left if left else 'no hosts found'))
        _say('%d hosts from vCenter %s in group %s%s' % (
            kept, self._where, group, ', %d left out' % left if left else ''))
