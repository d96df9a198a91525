#!/usr/bin/python3
# Unit tests of the vDS VLAN/MTU health check in the fleet: module_utils/vds_health.py
# (vCenter's results per uplinkPortKey mapped to the host's vmnics through its proxy
# switch's pnicSpec, the findings, "unknown" when the check is off or has no result
# yet) and the report filter fleet_vds_health.py with fleet_matrix's text. The objects
# are shaped as pyVmomi gives them (the vSphere type name in _type for plain dicts).
# Run: python3 test/unit/fleet_vds_health_test.py (fleet_vcenter.bats runs it).
import os
import sys
import unittest

FLEET = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'esxi', 'fleet', 'collections',
                     'ansible_collections', 'esxdiag', 'fleet', 'plugins')
sys.path.insert(0, os.path.join(FLEET, 'filter'))
sys.path.insert(0, os.path.join(FLEET, 'module_utils'))
import fleet_matrix as fm  # noqa: E402
import fleet_page  # noqa: E402
import fleet_pairs as fp  # noqa: E402
import fleet_vds_health as fv  # noqa: E402
import vds_health as vh  # noqa: E402


def rng(a, b=None):
    return {'start': a, 'end': a if b is None else b}


def mtu_result(port, mismatch=False, ok=(), bad=()):
    return {'_type': 'VMwareDVSMtuHealthCheckResult', 'uplinkPortKey': port, 'mtuMismatch': mismatch,
            'vlanSupportSwitchMtu': list(ok), 'vlanNotSupportSwitchMtu': list(bad)}


def vlan_result(port, trunked=(), untrunked=()):
    return {'_type': 'VMwareDVSVlanHealthCheckResult', 'uplinkPortKey': port, 'trunkedVlan': list(trunked),
            'untrunkedVlan': list(untrunked)}


def dvs(enabled, results, configs=None):
    """A switch's DVS_PROPS: host-9's uplink ports 131 (vmnic1) and 130 (vmnic2)."""
    return {'name': 'dvs-vmotion', 'uuid': 'u-1', 'config.maxMtu': 9000,
            'config.healthCheckConfig': configs if configs is not None else [
                {'_type': 'VMwareDVSTeamingHealthCheckConfig', 'enable': True, 'interval': 1},
                {'_type': 'VMwareDVSVlanMtuHealthCheckConfig', 'enable': enabled, 'interval': 1}],
            'runtime.hostMemberRuntime': [{'host': 'host-9', 'healthCheckResult': results}]}


# the host's proxy switch: vmnic1 behind port 131, vmnic2 behind 130 (not in key order:
# the mapping is the pnicSpec's, never the position)
NET = {'proxySwitch': [{'dvsUuid': 'u-1', 'spec': {'backing': {'pnicSpec': [
    {'pnicDevice': 'vmnic1', 'uplinkPortKey': '131'}, {'pnicDevice': 'vmnic2', 'uplinkPortKey': '130'}]}}}]}
GOOD = [mtu_result('131', ok=[rng(20)]), vlan_result('131', trunked=[rng(20)]),
        mtu_result('130', ok=[rng(20)]), vlan_result('130', trunked=[rng(20)])]


def health(props, host='esx-02'):
    return vh.host_health(host, 'host-9', NET, {'u-1': vh.switch_state(props)}, 'read-only (vCenter inventory)')


class Mapping(unittest.TestCase):
    def test_port_key_to_vmnic_and_mtu_not_passed(self):
        res = [mtu_result('131', bad=[rng(20)]), vlan_result('131', trunked=[rng(20)])] + GOOD[2:]
        [e] = health(dvs(True, res))
        self.assertEqual([(u['vmnic'], u['port'], u['mtu'], u['vlan']) for u in e['uplinks']],
                         [('vmnic1', '131', 'not-passed', 'trunked'), ('vmnic2', '130', 'passed', 'trunked')])
        self.assertEqual(e['findings'], ['vDS health check: vmnic1 on esx-02: switch MTU does not match 9000 '
                                         '(VLAN 20; its physical switch port)'])
        self.assertIsNone(e['note'])
        self.assertTrue(vh.complete([e]))

    def test_untrunked_vlans_and_nic_mtu_mismatch(self):
        res = [mtu_result('131', mismatch=True), vlan_result('131', trunked=[rng(20)]),
               mtu_result('130', ok=[rng(20)]), vlan_result('130', untrunked=[rng(30, 39), rng(41)])]
        [e] = health(dvs(True, res))
        self.assertEqual([(u['mtu'], u['vlan']) for u in e['uplinks']],
                         [('nic-mtu-differs', 'trunked'), ('passed', 'untrunked')])
        self.assertIn("vmnic1 on esx-02: its NIC MTU is not dvs-vmotion's 9000 (the switch port was not probed",
                      e['findings'][0])
        self.assertEqual(e['findings'][1], 'vDS health check: vmnic2 on esx-02: VLANs 30-39, 41 not trunked '
                                           'on its physical switch port')

    def test_check_off_is_unknown_never_guessed(self):
        # results still in the runtime (stale, from before it was turned off): not used
        [e] = health(dvs(False, GOOD))
        self.assertEqual(e['check'], 'off')
        self.assertEqual([(u['mtu'], u['vlan']) for u in e['uplinks']], [('unknown', 'unknown')] * 2)
        self.assertEqual(e['findings'], [])
        self.assertEqual(e['note'], 'health check off on dvs-vmotion: results unknown')
        self.assertFalse(vh.complete([e]))

    def test_on_without_results_yet(self):
        [e] = health(dvs(True, GOOD[:2]))
        self.assertEqual(e['note'], 'health check on dvs-vmotion: no result yet for vmnic2: unknown')
        self.assertFalse(vh.complete([e]))

    def test_only_the_vlan_mtu_config_counts_and_no_config_is_unknown(self):
        teaming_only = [{'_type': 'VMwareDVSTeamingHealthCheckConfig', 'enable': True, 'interval': 1}]
        [e] = health(dvs(True, GOOD, teaming_only))
        self.assertEqual(e['check'], 'unknown')
        self.assertIn('no VLAN/MTU health check', e['note'])
        self.assertEqual(vh.vlan_mtu_config(dvs(False, [])['config.healthCheckConfig']),
                         {'enabled': False, 'interval': 1})

    def test_a_host_on_no_distributed_switch_has_no_entry(self):
        self.assertEqual(vh.host_health('h1', 'host-1', {'proxySwitch': []}, {}, 'x'), [])


def records(entries):
    cfg = {'vmk': 'vmk1', 'vmk_mtu': 9000, 'switch': {'type': 'distributed', 'name': 'dvs-vmotion', 'mtu': 9000},
           'vds_health': entries}
    rec = {'name': 'esx-02', 'state': 'ok', 'tested': True, 'test_ip': '198.19.0.12', 'vmk': 'vmk1', 'config': cfg}
    return fp.build_report(['esx-02'], {'esx-02': {'esxdiag_record': rec}})


class Report(unittest.TestCase):
    def test_read_only_results_in_json_and_text(self):
        bad = [mtu_result('131', bad=[rng(20)]), vlan_result('131', trunked=[rng(20)])] + GOOD[2:]
        rep = fv.with_vds_health(records(health(dvs(True, bad))))
        self.assertEqual(rep['vds_health']['read'], 'read-only (vCenter inventory)')
        self.assertEqual(rep['summary']['vds_findings'], 1)
        self.assertEqual(rep['hosts'][0]['vds_health'][0]['uplinks'][0]['mtu'], 'not-passed')
        text = fm.text_report(rep)
        self.assertIn('vDS health check, VLAN/MTU: read-only (vCenter inventory)', text)
        self.assertIn('  esx-02 dvs-vmotion (MTU 9000): check on', text)
        self.assertIn('    vmnic1   port 131    switch MTU: does not pass 9000', text)
        self.assertIn('    finding: vDS health check: vmnic1 on esx-02: switch MTU does not match 9000', text)
        self.assertIn('; 1 vDS health check finding\n', text)

    def test_off_says_unknown(self):
        text = fm.text_report(fv.with_vds_health(records(health(dvs(False, [])))))
        self.assertIn('    health check off on dvs-vmotion: results unknown', text)
        self.assertIn('switch MTU: unknown                      VLAN: unknown', text)

    def test_the_run_that_turned_it_on_wins_over_the_inventory(self):
        live = {'hosts': {'esx-02': health(dvs(True, GOOD))}, 'complete': True, 'waited': 61.0,
                'switches': [{'dvs': 'dvs-vmotion', 'before': 'off', 'during': 'on', 'after': 'off (restored)'}]}
        rep = fv.with_vds_health(records(health(dvs(False, []))), live)
        self.assertEqual(rep['vds_health']['read'], 'enabled for this run, then restored')
        self.assertEqual([u['mtu'] for u in rep['hosts'][0]['vds_health'][0]['uplinks']], ['passed', 'passed'])
        self.assertIn('  dvs-vmotion: before off, during on, after off (restored)', fm.text_report(rep))

    def test_a_failed_enable_falls_back_to_the_read_only_results_and_says_why(self):
        rep = fv.with_vds_health(records(health(dvs(False, []))), {'failed': True, 'msg': 'permission denied'})
        self.assertEqual(rep['vds_health']['read'],
                         'read-only (vCenter inventory): turning it on failed: permission denied')

    def test_no_distributed_switch_no_section(self):
        rep = fv.with_vds_health(records([]))
        self.assertIsNone(rep['vds_health'])
        self.assertNotIn('vDS health check', fm.text_report(rep))

    def test_report_html_has_a_row_per_vmnic(self):
        bad = [mtu_result('131', bad=[rng(20)]), vlan_result('131', trunked=[rng(20)])] + GOOD[2:]
        html = fleet_page.render(fv.with_vds_health(records(health(dvs(True, bad)))))
        self.assertIn('<tr class="vds-uplink" data-host="esx-02" data-vmnic="vmnic1" data-check="on"><td>esx-02</td>'
                      '<td>dvs-vmotion (MTU 9000)</td><td>on</td><td>vmnic1</td><td>131</td>'
                      '<td class="fail">does not pass 9000</td><td class="pass">trunked</td></tr>', html)
        self.assertIn('<td colspan="7" class="finding" data-host="esx-02">finding: vDS health check: vmnic1 on '
                      'esx-02: switch MTU does not match 9000', html)

    def test_rows_for_the_page(self):
        rows = fv.vds_rows(health(dvs(True, [mtu_result('131', bad=[rng(20)])]))[0])
        self.assertEqual([(r['vmnic'], r['mtu'], r['vlan'], r['class']) for r in rows],
                         [('vmnic1', 'does not pass 9000', 'unknown', 'fail'),
                          ('vmnic2', 'unknown', 'unknown', 'unknown')])


if __name__ == '__main__':
    unittest.main()
