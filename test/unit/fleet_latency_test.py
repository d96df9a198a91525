#!/usr/bin/python3
# Unit tests of the fleet's latency check (plugins/filter/fleet_latency.py): each
# ordered pair's role (the hosts' esxdiag_rr_role, their clusters in vCenter), its
# p50/p99 judged against that role's limit with one sentence when it fails, the
# report's counts, and the latency grid and failing pairs in report.txt / report.html
# (fleet_matrix.py). The esxperf JSON is recorded (fleet_rr_records/): a client's -J,
# `esxperf -c 127.0.0.1 --rr -t 1 -J` on loopback (p50 19 us), and `esxperf -c
# 198.18.42.2 --rr --rr-load=1 -t 2 -J` through a router namespace's 40 Mbit/s tbf
# shaper (loaded p50 7.9 ms, esxperf's verdict: queueing), as test/lib/bench-rr.sh
# and esxperf_rr.bats set them up.
# Run: /usr/bin/python3 test/unit/fleet_latency_test.py (fleet_vcenter.bats runs it).
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
COLLECTION = os.path.join(HERE, '..', '..', 'esxi', 'fleet', 'collections', 'ansible_collections', 'esxdiag',
                          'fleet')
sys.path.insert(0, os.path.join(COLLECTION, 'plugins', 'filter'))
import fleet_latency as fl  # noqa: E402
import fleet_matrix as fm  # noqa: E402


def recorded(name):
    with open(os.path.join(HERE, 'fleet_rr_records', name)) as f:
        return f.read()


LOOPBACK = recorded('esxperf-rr-loopback.json')    # p50 0.019 ms, p99 0.052 ms
QUEUED = recorded('esxperf-rr-queued.json')         # p50 7.881 ms, p99 68.944 ms


def host(name, role='vsan', cluster=None):
    rec = {'name': name, 'rr_role': role, 'tested': True, 'settings': {'rr_seconds': 5}}
    if cluster:
        rec['config'] = {'source': 'vCenter vc.lab:443', 'cluster': cluster}
    return rec


def run(to, stdout, rc=0, stderr=''):
    return {'to': to, 'round': 1, 'direction': 'A->B', 'port': 5201, 'rc': rc, 'stdout': stdout, 'stderr': stderr}


def report_of(records):
    """The report esxdiag_report would build for these hosts (no MTU, no throughput)."""
    hosts = [{'name': r['name'], 'tested': True, 'state': 'ok', 'vmk': None} for r in records]
    base = {'hosts': hosts, 'pairs': [], 'settings': {},
            'summary': {'hosts': len(records), 'hosts_tested': len(records), 'hosts_not_ok': [],
                        'pairs': 0, 'failed': 0, 'mtu_failed': 0, 'perf_failed': 0}}
    hostvars = dict((r['name'], {'esxdiag_record': r}) for r in records)
    return fl.add_latency(base, [r['name'] for r in records], hostvars)


class Roles(unittest.TestCase):
    def test_default_is_vsan(self):
        self.assertEqual(fl.pair_role(host('a'), host('b')), ('vsan', 'the default role'))

    def test_witness_on_either_end(self):
        role, why = fl.pair_role(host('a', 'stretched'), host('w', 'witness'))
        self.assertEqual(role, 'witness')
        self.assertIn('w is the witness', why)
        self.assertEqual(fl.pair_role(host('w', 'Witness'), host('a'))[0], 'witness')

    def test_stretched_needs_both(self):
        self.assertEqual(fl.pair_role(host('a', 'stretched'), host('b', 'stretched'))[0], 'stretched')
        self.assertEqual(fl.pair_role(host('a', 'stretched'), host('b'))[0], 'vsan')

    def test_clusters_from_vcenter(self):
        self.assertEqual(fl.pair_role(host('a', cluster='c1'), host('b', cluster='c2')),
                         ('vmotion', 'clusters c1 and c2 in vCenter'))
        self.assertEqual(fl.pair_role(host('a', cluster='c1'), host('b', cluster='c1')),
                         ('vsan', 'both in cluster c1 in vCenter'))
        # a cluster typed in an inventory by hand is not vCenter's
        typed = host('b')
        typed['config'] = {'cluster': 'c2'}
        self.assertEqual(fl.pair_role(host('a', cluster='c1'), typed)[0], 'vsan')


class Pairs(unittest.TestCase):
    def test_loopback_within_vsan(self):
        p = fl.rr_pair(host('a'), run('b', LOOPBACK), {'b': host('b')})
        self.assertEqual((p['verdict'], p['role'], p['limit_ms']), ('ok', 'vsan', 1.0))
        self.assertEqual((p['p50_ms'], p['p99_ms']), (0.019, 0.052))
        self.assertIsNone(p['sentence'])
        self.assertGreater(p['transactions'], 1000)
        self.assertIsNotNone(p['server_turnaround_ms'])

    def test_queued_fails_vsan_with_one_sentence(self):
        p = fl.rr_pair(host('a'), run('b', QUEUED), {'b': host('b')})
        self.assertEqual(p['verdict'], 'failed')
        self.assertEqual(p['dominant'], 'queueing')
        self.assertTrue(p['sentence'].startswith(
            'a -> b: p50 7.881 ms over the 1 ms VMware gives a standard vSAN cluster, between its hosts '
            '(the default role), p99 68.944 ms'), p['sentence'])
        self.assertIn('queues behind other traffic', p['sentence'])

    def test_queued_p50_within_the_witness_limit(self):
        p = fl.rr_pair(host('a'), run('w', QUEUED), {'w': host('w', 'witness')})
        self.assertEqual((p['verdict'], p['role'], p['limit_ms']), ('ok', 'witness', 200.0))
        # a stretched cluster's 5 ms: p50 over
        p = fl.rr_pair(host('a', 'stretched'), run('b', QUEUED), {'b': host('b', 'stretched')})
        self.assertEqual((p['verdict'], p['limit_ms']), ('failed', 5.0))

    def test_p99_over_is_said_not_failed(self):
        p = fl.rr_pair(host('a', cluster='c1'), run('b', QUEUED), {'b': host('b', cluster='c2')})
        self.assertEqual(p['role'], 'vmotion')
        self.assertEqual(p['verdict'], 'ok')         # p50 7.9 ms within 150 ms, p99 69 ms too
        self.assertFalse(p['tail'])

    def test_no_json_is_a_failed_pair_naming_why(self):
        p = fl.rr_pair(host('a'), run('b', '', rc=2, stderr='esxperf: --rr: the server at 198.18.0.2 '
                                                         'does not answer requests'), {'b': host('b')})
        self.assertEqual(p['verdict'], 'failed')
        self.assertIn('esxperf exit 2: esxperf: --rr: the server at 198.18.0.2 does not answer requests', p['error'])


class Report(unittest.TestCase):
    def setUp(self):
        a, b, c = host('a'), host('b'), host('c')
        a['rr'] = [run('b', LOOPBACK), run('c', QUEUED)]
        b['rr'] = [run('a', LOOPBACK)]
        c['rr'] = []
        self.report = report_of([a, b, c])

    def test_raw_json_kept(self):
        raw = dict((h['name'], (h.get('raw') or {}).get('esxperf_rr')) for h in self.report['hosts'])
        self.assertEqual([r['to'] for r in raw['a']], ['b', 'c'])
        self.assertEqual(raw['a'][1]['client']['end']['rr']['verdict']['dominant'], 'queueing')
        self.assertIsNone(raw['c'])

    def test_counts(self):
        s = self.report['summary']
        self.assertEqual((s['pairs'], s['failed'], s['rr_failed']), (3, 1, 1))
        self.assertEqual(self.report['settings']['rr_seconds'], 5)

    def test_grid_and_failing_pairs(self):
        grids = fm.matrices(self.report)
        self.assertEqual([g['check'] for g in grids], ['rr'])
        self.assertTrue(grids[0]['title'].startswith('Latency, request/response round trip p50/p99 in ms, 5 s'))
        row_a = dict((c['to'], c) for c in grids[0]['rows'][0]['cells'])
        self.assertEqual(row_a['b']['label'], '0.019/0.052')
        self.assertEqual(row_a['b']['cls'], 'pass')
        self.assertEqual(row_a['c']['label'], '7.88/68.9')
        self.assertEqual(row_a['c']['cls'], 'fail v-failed')
        bad = fm.failing(self.report)
        self.assertEqual([(f['from'], f['to'], f['what']) for f in bad], [('a', 'c', 'latency')])
        self.assertIn('esxperf -c c --rr --rr-load on a', bad[0]['hint'])
        text = fm.text_report(self.report)
        self.assertIn('a -> c  latency  failed: a -> c: p50 7.881 ms over the 1 ms', text)
        self.assertIn('(MTU 0, throughput 0, latency 1)', text)

    def test_no_rr_runs_leave_the_report_alone(self):
        base = report_of([host('a'), host('b')])
        self.assertNotIn('rr_failed', base['summary'])
        self.assertEqual(base['pairs'], [])


if __name__ == '__main__':
    unittest.main()
