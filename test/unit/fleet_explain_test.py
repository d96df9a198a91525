#!/usr/bin/python3
# Unit tests of esxi/fleet/collections/ansible_collections/esxdiag/fleet/plugins/filter/fleet_explain.py: which configured MTU
# explains which failing pair, the sentences people read, and the report sections.
# Run: python3 test/unit/fleet_explain_test.py (fleet_vcenter.bats runs it).
import copy
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'esxi', 'fleet',
                                'collections', 'ansible_collections', 'esxdiag', 'fleet', 'plugins', 'filter'))
import fleet_explain as fx  # noqa: E402


def cfg(vmk_mtu=9000, sw_mtu=9000, sw='vSwitch1', kind='standard', uplinks=('vmnic1',), netstack='vmotion'):
    return {'vmk': 'vmk1', 'vmk_mtu': vmk_mtu, 'netstack': netstack,
            'switch': {'type': kind, 'name': sw, 'mtu': sw_mtu},
            'uplinks': [{'device': u, 'speed_mb': 10000} for u in uplinks], 'source': 'vcenter vc:443'}


def mtu_pair(a, b, verdict, family='ipv4', **ev):
    return {'from': a, 'to': b, 'check': 'mtu', 'family': family, 'verdict': verdict, 'evidence': ev}


class Settings(unittest.TestCase):
    def test_vmk_and_switch(self):
        got = fx.settings_of('esx01', cfg(vmk_mtu='1500'))
        self.assertEqual(got, [{'host': 'esx01', 'kind': 'vmk', 'name': 'vmk1', 'mtu': 1500},
                               {'host': 'esx01', 'kind': 'standard', 'name': 'vSwitch1', 'mtu': 9000}])

    def test_no_config(self):
        self.assertEqual(fx.settings_of('esx01', None), [])

    def test_cluster_mtu_is_the_most_common_tie_to_the_larger(self):
        self.assertEqual(fx.cluster_vmk_mtu([cfg(), cfg(1500), cfg()]), 9000)
        self.assertEqual(fx.cluster_vmk_mtu([cfg(1500), cfg(9000)]), 9000)
        self.assertEqual(fx.cluster_vmk_mtu([cfg(1500), cfg(1500), cfg(9000)]), 1500)
        self.assertIsNone(fx.cluster_vmk_mtu([None, {}]))


class Explained(unittest.TestCase):
    def test_local_mtu_by_the_senders_vmk(self):
        e = fx.explain_mtu_pair(mtu_pair('esx03', 'esx01', 'LOCAL-MTU'), cfg(1500), cfg(), 9000, 9000)
        self.assertTrue(e['explained'])
        self.assertEqual(e['text'], "esx03 vmk1 MTU 1500 while the cluster's vMotion vmks are 9000: LOCAL-MTU explained")
        self.assertEqual(e['settings'], [{'host': 'esx03', 'kind': 'vmk', 'name': 'vmk1', 'mtu': 1500, 'tested': 9000}])

    def test_black_hole_by_the_receivers_vmk(self):
        e = fx.explain_mtu_pair(mtu_pair('esx01', 'esx03', 'BLACK-HOLE'), cfg(), cfg(1500), 9000, 9000)
        self.assertEqual(e['text'], "esx03 vmk1 MTU 1500 while the cluster's vMotion vmks are 9000: BLACK-HOLE explained")

    def test_black_hole_by_the_senders_vswitch_under_its_vmk(self):
        e = fx.explain_mtu_pair(mtu_pair('esx05', 'esx01', 'BLACK-HOLE'), cfg(sw_mtu=1500), cfg(), 9000, 9000)
        self.assertEqual(e['text'], 'vSwitch1 on esx05 at 1500 under a vmk at 9000: BLACK-HOLE explained')

    def test_black_hole_by_the_receivers_distributed_switch(self):
        e = fx.explain_mtu_pair(mtu_pair('esx01', 'esx05', 'BLACK-HOLE'), cfg(),
                                cfg(sw_mtu=1500, sw='dvs-vmo', kind='distributed'), 9000, 9000)
        self.assertEqual(e['text'], 'distributed switch dvs-vmo at 1500 (on esx05) under a vmk at 9000: '
                                    'BLACK-HOLE explained')

    def test_a_shared_distributed_switch_named_once(self):
        d = cfg(sw_mtu=1500, sw='dvs-vmo', kind='distributed')
        e = fx.explain_mtu_pair(mtu_pair('esx01', 'esx02', 'BLACK-HOLE'), d, copy.deepcopy(d), 9000, 9000)
        self.assertEqual(e['text'], 'distributed switch dvs-vmo at 1500 (on esx01) under a vmk at 9000: '
                                    'BLACK-HOLE explained')

    def test_every_cause_in_one_sentence(self):
        e = fx.explain_mtu_pair(mtu_pair('esx01', 'esx02', 'BLACK-HOLE'), cfg(sw_mtu=1500), cfg(1500), 9000, 9000)
        self.assertEqual(e['text'], "vSwitch1 on esx01 at 1500 under a vmk at 9000; esx02 vmk1 MTU 1500 while "
                                    "the cluster's vMotion vmks are 9000: BLACK-HOLE explained")
        self.assertEqual([s['host'] for s in e['settings']], ['esx01', 'esx02'])

    def test_a_whole_cluster_under_the_size_tested(self):
        e = fx.explain_mtu_pair(mtu_pair('esx01', 'esx02', 'LOCAL-MTU'), cfg(1500), cfg(1500), 9000, 1500)
        self.assertEqual(e['text'], 'esx01 vmk1 MTU 1500, under the 9000 tested: LOCAL-MTU explained')

    def test_a_switch_and_vmk_both_low_names_both_for_the_receiver(self):
        e = fx.explain_mtu_pair(mtu_pair('esx01', 'esx02', 'BLACK-HOLE'), cfg(), cfg(1500, 1500), 9000, 9000)
        self.assertEqual(e['text'], "esx02 vmk1 MTU 1500 while the cluster's vMotion vmks are 9000; "
                                    "vSwitch1 on esx02 at 1500, under the 9000 tested: BLACK-HOLE explained")

    def test_numbers_as_text_from_ansible(self):
        e = fx.explain_mtu_pair(mtu_pair('a', 'b', 'LOCAL-MTU'), cfg('1500'), cfg('9000'), 9000, 9000)
        self.assertTrue(e['explained'])


class NotExplained(unittest.TestCase):
    def test_consistent_black_hole_is_physical(self):
        p = mtu_pair('esx01', 'esx02', 'BLACK-HOLE', discovered_mtu=1500, largest_passed=1500)
        e = fx.explain_mtu_pair(p, cfg(), cfg(uplinks=('vmnic1', 'vmnic2')), 9000, 9000)
        self.assertFalse(e['explained'])
        self.assertEqual(e['settings'], [])
        self.assertEqual(e['text'], "the configuration is consistent (9000 everywhere): the physical network drops "
                                    "frames over 1500 (the physical switch ports of esx01's vmnic1 and esx02's "
                                    "vmnic1, vmnic2)")

    def test_consistent_but_not_equal(self):
        p = mtu_pair('a', 'b', 'BLACK-HOLE')
        e = fx.explain_mtu_pair(p, cfg(sw_mtu=9216, uplinks=()), cfg(uplinks=()), 9000, 9000)
        self.assertEqual(e['text'], 'the configuration is consistent (at least 9000 everywhere): the physical '
                                    'network drops 9000-byte frames')

    def test_a_low_setting_that_cannot_cause_this_verdict(self):
        # the sender's vmk at 1500 gives LOCAL-MTU, not a black hole
        e = fx.explain_mtu_pair(mtu_pair('a', 'b', 'BLACK-HOLE', discovered_mtu=1400), cfg(1500, uplinks=()),
                                cfg(uplinks=()), 9000, 9000)
        self.assertFalse(e['explained'])
        self.assertEqual(e['text'], 'no setting of a or b explains it: the physical network drops frames over 1400')

    def test_local_mtu_with_a_good_vmk_says_the_host_differs(self):
        e = fx.explain_mtu_pair(mtu_pair('esx02', 'esx01', 'LOCAL-MTU'), cfg(), cfg(), 9000, 9000)
        self.assertFalse(e['explained'])
        self.assertEqual(e['text'], "the configuration gives esx02's vmk1 MTU 9000, yet esx02 refused 9000-byte sends: "
                                    "the host runs with another MTU than vCenter shows (esxcli network ip interface "
                                    "list on esx02)")

    def test_too_big_names_the_router(self):
        p = mtu_pair('esx03', 'esx04', 'TOO-BIG', router='198.19.0.1', next_hop_mtu=1500)
        e = fx.explain_mtu_pair(p, cfg(), cfg(), 9000, 9000)
        self.assertFalse(e['explained'])
        self.assertEqual(e['text'], 'the router 198.19.0.1 between them forwards at most 1500: not a host setting; '
                                    'the configuration is consistent (9000 everywhere)')

    def test_no_config_for_a_host(self):
        e = fx.explain_mtu_pair(mtu_pair('a', 'b', 'BLACK-HOLE'), cfg(), None, 9000, 9000)
        self.assertEqual(e, {'explained': False, 'settings': [],
                             'text': 'no configuration of b (not read from vCenter): nothing to compare'})

    def test_not_an_mtu_verdict(self):
        self.assertIsNone(fx.explain_mtu_pair(mtu_pair('a', 'b', 'NO-REPLY'), cfg(), cfg(), 9000, 9000))
        self.assertIsNone(fx.explain_mtu_pair({'from': 'a', 'to': 'b', 'check': 'perf', 'verdict': 'failed'},
                                              cfg(), cfg(), 9000, 9000))


def report(hosts, pairs, mtu=9000):
    return {'settings': {'mtu': mtu}, 'hosts': [{'name': n, 'config': c} for n, c in hosts], 'pairs': pairs}


class Report(unittest.TestCase):
    def test_hand_written_inventory_unchanged(self):
        r = report([('a', None), ('b', None)], [mtu_pair('a', 'b', 'BLACK-HOLE')])
        out = fx.explain(r)
        self.assertIsNone(out['configuration'])
        self.assertEqual(out['pairs'], r['pairs'])
        self.assertNotIn('configuration', out['pairs'][0])

    def test_every_failing_pair_gets_its_sentence_and_the_hosts_their_mtus(self):
        pairs = [mtu_pair('h1', 'h2', 'BLACK-HOLE', discovered_mtu=1500), mtu_pair('h2', 'h1', 'LOCAL-MTU'),
                 mtu_pair('h1', 'h3', 'BLACK-HOLE', discovered_mtu=1500), mtu_pair('h3', 'h1', 'PASS'),
                 {'from': 'h1', 'to': 'h2', 'check': 'perf', 'verdict': 'failed'},
                 {'from': 'h3', 'to': 'h1', 'check': 'perf', 'verdict': 'ok'}]
        r = report([('h1', cfg(uplinks=())), ('h2', cfg(1500, uplinks=())), ('h3', cfg(uplinks=()))], pairs)
        before = copy.deepcopy(r)
        out = fx.explain(r)
        self.assertEqual(r, before, 'explain changed its input')
        self.assertEqual(out['configuration'], {'tested_mtu': 9000, 'cluster_vmk_mtu': 9000, 'hosts_configured': 3,
                                                'explained': 3, 'unexplained': 1})
        texts = [(p['from'], p['to'], p['check'], (p.get('configuration') or {}).get('text')) for p in out['pairs']]
        why = "h2 vmk1 MTU 1500 while the cluster's vMotion vmks are 9000"
        self.assertEqual(texts, [
            ('h1', 'h2', 'mtu', why + ': BLACK-HOLE explained'),
            ('h2', 'h1', 'mtu', why + ': LOCAL-MTU explained'),
            ('h1', 'h3', 'mtu', 'the configuration is consistent (9000 everywhere): the physical network drops '
                                'frames over 1500'),
            ('h3', 'h1', 'mtu', None),
            ('h1', 'h2', 'perf', 'its MTU pair: ' + why + ': BLACK-HOLE explained'),
            ('h3', 'h1', 'perf', None)])
        self.assertNotIn('configuration', out['pairs'][3])
        h2 = out['hosts'][1]['mtu_config']
        line = 'vmk1 1500 (vmotion netstack), vSwitch1 9000, uplinks none; ' + why
        self.assertEqual(h2, {'vmk': 'vmk1', 'vmk_mtu': 1500, 'netstack': 'vmotion', 'switch': 'vSwitch1',
                              'switch_type': 'standard', 'switch_mtu': 9000, 'uplinks': [],
                              'source': 'vcenter vc:443', 'below': [why], 'text': line})

    def test_host_line_for_a_distributed_switch_and_no_config(self):
        h = fx.host_summary('h3', cfg(sw='dvs-vmo', kind='distributed', netstack='defaultTcpipStack',
                                      uplinks=('vmnic1', 'vmnic2')), 9000, 9000)
        self.assertEqual(h['text'], 'vmk1 9000 (defaultTcpipStack netstack), distributed switch dvs-vmo 9000, '
                                    'uplinks vmnic1, vmnic2')
        self.assertIsNone(fx.host_summary('h4', None, 9000, 9000))
        self.assertEqual(fx.host_line(None), 'not read from vCenter')


if __name__ == '__main__':
    unittest.main(verbosity=2)
