#!/usr/bin/python3
# Unit tests of the fleet report's uplinks section: fleet_pairs._team_uplinks (a host's
# esxmtu -J `team`, `findings` and --each-uplink's `each_uplink` into hosts[].team, each
# uplink's pairs keyed by peer host) and fleet_matrix.uplink_rows / the text report,
# over an esxmtu -J recorded on the uplink bench (test/lib/uplink-net.bash: vmnic0's
# switch port passes 9000, vmnic1's drops over 1500).
# Run: python3 test/unit/fleet_uplinks_test.py (fleet_vcenter.bats runs it).
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'esxi', 'fleet',
                                'collections', 'ansible_collections', 'esxdiag', 'fleet', 'plugins', 'filter'))
import fleet_matrix as fm  # noqa: E402
import fleet_page  # noqa: E402
import fleet_pairs as fp  # noqa: E402

# esxmtu -J -I vmk1 --each-uplink --test-ip 198.18.4.50/24 198.18.4.2 on the bench (its
# team, findings and each_uplink keys)
RECORDED = json.loads(
    '{"team":{"vmk":"vmk1","vswitch":"vSwitch1","vds":null,"portgroup":"vMotion","vlan":0,"netstack":"vmo'
    'tion","mtu":9000,"load_balancing":"srcport","failback":true,"current_uplink":"vmnic0","current_from"'
    ':"teamUplink","uplinks":[{"name":"vmnic0","role":"active","order":1,"nic_mtu":9000,"switch":"switch0'
    '1","switch_port":"Gi1/0/1","switch_mtu":9216},{"name":"vmnic1","role":"standby","order":1,"nic_mtu":'
    '9000,"switch":"switch01","switch_port":"Gi1/0/2","switch_mtu":1500}],"not_read":null},"findings":["j'
    'umbo frames fail after a failover to vmnic1 (switch01 Gi1/0/2 at MTU 1500, below vmk1\'s 9000); stand'
    'by, Failback on: traffic returns to vmnic0 once its link is back","jumbo frames fail through vmnic1 '
    '(standby): 198.18.4.2 BLACK-HOLE, MTU 1500 is the largest that passed"],"each_uplink":{"test_ip":"19'
    '8.18.4.50","scratch_vmk":"vmk90","scratch_prefix":"esxmtu-scratch-","refused":null,"uplinks":[{"name'
    '":"vmnic0","role":"active","scratch_portgroup":"esxmtu-scratch-vmnic0","tested":true,"error":null,"p'
    'eers":[{"target":"198.18.4.2","verdict":"PASS","largest_mtu":9000}]},{"name":"vmnic1","role":"standb'
    'y","scratch_portgroup":"esxmtu-scratch-vmnic1","tested":true,"error":null,"peers":[{"target":"198.18'
    '.4.2","verdict":"BLACK-HOLE","largest_mtu":1500}]}],"stopped":null,"cleanup":{"clean":true,"left":nu'
    'll,"production_policy_unchanged":true,"note":null}}}')


def record(name, ip, stdout='', each=''):
    return {'name': name, 'state': 'ok', 'tested': True, 'test_ip': ip, 'vmk': 'vmk1',
            'mtu': {'rc': 1, 'stdout': stdout, 'stderr': '', 'each_stdout': each}}


class Uplinks(unittest.TestCase):
    def report(self, each=True):
        plain = dict(RECORDED)
        plain['findings'] = RECORDED['findings'][:1]
        del plain['each_uplink']
        hv = {'h1': {'esxdiag_record': record('h1', '198.18.4.1', json.dumps(plain),
                                              json.dumps(RECORDED) if each else '')},
              'h2': {'esxdiag_record': record('h2', '198.18.4.2')}}
        return fp.build_report(['h1', 'h2'], hv)

    def test_each_uplink_pairs_by_peer_host(self):
        rep = self.report()
        team = rep['hosts'][0]['team']
        self.assertEqual(team['vmk'], 'vmk1')
        self.assertEqual([(u['name'], u['role'], u['now'], u['switch_mtu']) for u in team['uplinks']],
                         [('vmnic0', 'active', True, 9216), ('vmnic1', 'standby', False, 1500)])
        self.assertEqual(team['uplinks'][1]['pairs'], {'h2': {'verdict': 'BLACK-HOLE', 'largest_mtu': 1500}})
        self.assertEqual(team['uplinks'][0]['pairs'], {'h2': {'verdict': 'PASS', 'largest_mtu': 9000}})
        self.assertEqual(len(team['findings']), 2)
        self.assertTrue(team['cleanup']['clean'])
        self.assertEqual(rep['summary']['uplink_findings'], 2)
        self.assertIsNone(rep['hosts'][1]['team'])
        peers, rows = fm.uplink_rows(rep['hosts'][0])
        self.assertEqual(peers, ['h2'])
        self.assertEqual([r['cells'] for r in rows], [['PASS 9000'], ['BLACK-HOLE 1500']])
        text = fm.text_report(rep)
        self.assertIn('h1 vmk1: vSwitch1, portgroup vMotion (VLAN 0), MTU 9000, load balancing srcport, failback True', text)
        self.assertIn('vmnic1   standby       NIC 9000  switch01 Gi1/0/2       port 1500  h2: BLACK-HOLE 1500', text)
        self.assertIn('finding: jumbo frames fail after a failover to vmnic1 (switch01 Gi1/0/2 at MTU 1500', text)
        self.assertIn('; 2 uplink findings', text)

    def test_report_html_has_a_table_per_host(self):
        html = fleet_page.render(self.report())
        self.assertIn('<th>to h2</th>', html)
        self.assertIn('<tr class="uplink" data-host="h1" data-uplink="vmnic1"><td>vmnic1</td><td>standby</td>'
                      '<td>9000</td><td>switch01 Gi1/0/2</td><td class="fail">1500</td>'
                      '<td class="each fail">BLACK-HOLE 1500</td></tr>', html)
        self.assertIn('<p class="finding" data-host="h1">finding: jumbo frames fail through vmnic1', html)

    def test_read_only_team_without_each_uplink(self):
        rep = self.report(each=False)
        team = rep['hosts'][0]['team']
        self.assertFalse(team['each_uplink'])
        self.assertEqual([u['pairs'] for u in team['uplinks']], [{}, {}])
        self.assertEqual(len(team['findings']), 1)
        self.assertEqual(fm.uplink_rows(rep['hosts'][0])[0], [])

    def test_odd_or_missing_json(self):
        self.assertIsNone(fp._team_uplinks(None, None, {}))
        self.assertIsNone(fp._team_uplinks({'team': 'x'}, None, {}))
        t = fp._team_uplinks({'team': {'uplinks': [None, {'name': 'vmnic3'}]}, 'findings': [3, 'f']},
                             {'each_uplink': {'uplinks': 'junk'}}, {})
        self.assertEqual([u['name'] for u in t['uplinks']], ['vmnic3'])
        self.assertEqual(t['findings'], ['f'])


if __name__ == '__main__':
    unittest.main()
