#!/usr/bin/python3
# Unit tests of the fleet report's throughput diagnosis: fleet_pairs (each throughput
# pair's `diagnosis`, esxperf's end.diagnosis passed through, and its share of the link:
# `percent_of_link`, `link_speed_mbps`, `link_speed_source`, `link_speed_note`, from the
# vCenter inventory's uplink speeds, else esxperf's own) and what report.txt and
# report.html show of it. The esxperf JSON is recorded (fleet_perf_records/): a client's
# -J on loopback, `esxperf -c 127.0.0.1 -J -t 1`, from an esxperf without the diagnosis
# and from one with it (once more with ESXPERF_LINK_MBPS=25000, so that esxperf has a
# link speed of its own). The fleet bench's esxperf is whichever the kit holds; these
# are the cases it does not make: both kinds of esxperf, vCenter's speeds mixed,
# missing, or slower than what was measured.
# Run: python3 test/unit/fleet_diagnosis_test.py (fleet_vcenter.bats runs it).
import copy
import json
import os
import re
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
COLLECTION = os.path.join(HERE, '..', '..', 'esxi', 'fleet', 'collections', 'ansible_collections', 'esxdiag',
                          'fleet')
sys.path.insert(0, os.path.join(COLLECTION, 'plugins', 'filter'))
import fleet_matrix as fm  # noqa: E402
import fleet_page  # noqa: E402
import fleet_pairs as fp  # noqa: E402


def recorded(name):
    with open(os.path.join(HERE, 'fleet_perf_records', name)) as f:
        return f.read()


OLD = recorded('esxperf-without-diagnosis.json')       # 10.18 Gbit/s received, no end.diagnosis
DIAG = recorded('esxperf-diagnosis.json')               # 8.57 Gbit/s, sender-cpu, no link speed
DIAG_LINK = recorded('esxperf-diagnosis-link.json')     # 19.68 Gbit/s, sender-cpu, 78.8 % of 25000 Mb/s
# esxperf_diagnose_mtu.bats's bench (hosts at 9000, a switch port dropping IP packets
# over 1500): `esxperf -c 198.18.3.2 -J -t 2`, no data crossed, path-mtu; and from a
# host at 1500, `-u -l 8000 -b 50M -t 1`: pacing with the fragmentation finding
PATH_MTU = recorded('esxperf-path-mtu.json')
FRAG = recorded('esxperf-fragmentation-finding.json')


def vcenter(*speeds):
    """A host's configuration as the vCenter inventory gives it, one uplink per speed."""
    return {'source': 'vCenter vc.lab:443', 'vmk': 'vmk1', 'vmk_mtu': 9000,
            'switch': {'type': 'standard', 'name': 'vSwitch1', 'mtu': 9000},
            'uplinks': [{'device': 'vmnic%d' % (i + 1), 'speed_mb': s} for i, s in enumerate(speeds)]}


def run(to, stdout, rnd=1, direction='forward'):
    return {'to': to, 'round': rnd, 'direction': direction, 'port': 5201, 'rc': 0, 'stdout': stdout,
            'stderr': '', 'receiver_started': True, 'receiver_rc': 0, 'receiver_stdout': '', 'receiver_stderr': ''}


def hostvars(hosts):
    """hostvars as the play leaves them: {name: (config, [runs])}; no test address, so
    the report holds the throughput pairs only."""
    out = {}
    for name, (config, runs) in hosts.items():
        out[name] = {'esxdiag_record': {'name': name, 'state': 'ok', 'tested': True, 'config': config,
                                        'perf': runs, 'settings': {'perf_seconds': 1}}}
    return out


def build(hosts):
    return fp.build_report(list(hosts), hostvars(hosts))


def perf(report, a, b):
    return next(p for p in report['pairs'] if p['check'] == 'perf' and p['from'] == a and p['to'] == b)


def end_of(text):
    return json.loads(text)['end']


LINK_KEYS = ('percent_of_link', 'link_speed_mbps', 'link_speed_source', 'link_speed_note')


def link(p):
    return tuple(p[k] for k in LINK_KEYS)


class Diagnosis(unittest.TestCase):
    def test_passed_through_as_esxperf_gave_it(self):
        r = build({'h1': (None, [run('h2', DIAG)]), 'h2': (None, [run('h1', DIAG_LINK)])})
        self.assertEqual(perf(r, 'h1', 'h2')['diagnosis'], end_of(DIAG)['diagnosis'])
        self.assertEqual(perf(r, 'h2', 'h1')['diagnosis'], end_of(DIAG_LINK)['diagnosis'])
        self.assertEqual(perf(r, 'h1', 'h2')['diagnosis']['bottleneck'], 'sender-cpu')

    def test_an_esxperf_without_it_gives_null_and_every_key(self):
        r = build({'h1': (None, [run('h2', OLD)]), 'h2': (None, [])})
        p = perf(r, 'h1', 'h2')
        self.assertIsNone(p['diagnosis'])
        self.assertEqual(link(p), (None, None, None, None))
        self.assertEqual(p['verdict'], 'ok')
        self.assertEqual(p['gbps'], 10.178)

    def test_no_json_or_not_an_object(self):
        doc = json.loads(DIAG)
        doc['end']['diagnosis'] = 'sender-cpu'
        r = build({'h1': (vcenter(10000), [run('h2', ''), run('h3', json.dumps(doc))]),
                   'h2': (vcenter(10000), []), 'h3': (vcenter(10000), [])})
        for to in ('h2', 'h3'):
            self.assertIsNone(perf(r, 'h1', to)['diagnosis'])
        self.assertEqual(link(perf(r, 'h1', 'h2')), (None, None, None, None))


    def test_a_nominal_link_and_a_new_class_pass_through(self):
        # esxperf on a VM's vmxnet3 (a virtual device: its speed no bound) naming the
        # receiver's socket buffer: the class as given, no percentage of any link
        doc = json.loads(DIAG_LINK)
        doc['end']['diagnosis'].update(bottleneck='receive-buffer', link_speed_mbps=None, percent_of_link=None)
        doc['end']['diagnosis']['link'].update(nominal=True, note='eth0 is a virtual device (vmxnet3): its '
                                               '10000 Mb/s is nominal, not a bound')
        r = build({'h1': (None, [run('h2', json.dumps(doc))]), 'h2': (None, [])})
        p = perf(r, 'h1', 'h2')
        self.assertEqual(fm.bottleneck(p), 'receive-buffer')
        self.assertEqual(link(p), (None, None, None, None))


class LinkShare(unittest.TestCase):
    def test_vcenter_speeds_give_the_percentage(self):
        r = build({'h1': (vcenter(25000, 25000), [run('h2', DIAG)]), 'h2': (vcenter(25000), [])})
        p = perf(r, 'h1', 'h2')
        self.assertEqual(link(p), (34.3, 25000, 'vcenter',
                                   "25000 Mb/s: h1's vmnic1, vmnic2 and h2's vmnic1 in vCenter"))
        # esxperf's own object is left as it was
        self.assertIsNone(p['diagnosis']['percent_of_link'])

    def test_vcenter_before_esxperf(self):
        r = build({'h1': (vcenter(40000), [run('h2', DIAG_LINK)]), 'h2': (vcenter(40000), [])})
        self.assertEqual(link(perf(r, 'h1', 'h2')),
                         (49.2, 40000, 'vcenter', "40000 Mb/s: h1's vmnic1 and h2's vmnic1 in vCenter"))

    def test_a_mixed_speed_path_takes_the_slowest_uplink_of_both_hosts(self):
        r = build({'h1': (vcenter(25000), [run('h2', DIAG)]), 'h2': (vcenter(10000, 25000), [run('h1', DIAG)])})
        want = (85.7, 10000, 'vcenter', "10000 Mb/s: h2's vmnic1 in vCenter")
        self.assertEqual(link(perf(r, 'h1', 'h2')), want)
        self.assertEqual(link(perf(r, 'h2', 'h1')), want)

    def test_a_link_that_is_down_has_no_speed_and_is_skipped(self):
        r = build({'h1': (vcenter(None, 10000), [run('h2', DIAG)]), 'h2': (vcenter(10000), [])})
        self.assertEqual(link(perf(r, 'h1', 'h2')),
                         (85.7, 10000, 'vcenter', "10000 Mb/s: h1's vmnic2 and h2's vmnic1 in vCenter"))

    def test_speeds_as_text_from_ansible(self):
        r = build({'h1': (vcenter('10000'), [run('h2', DIAG)]), 'h2': (vcenter('10000'), [])})
        self.assertEqual(link(perf(r, 'h1', 'h2'))[:3], (85.7, 10000, 'vcenter'))
        # a whole number in report.json, as vCenter gave it
        self.assertEqual(json.dumps(perf(r, 'h1', 'h2')['link_speed_mbps']), '10000')

    def test_a_missing_speed_gives_no_percentage(self):
        r = build({'h1': (vcenter(10000), [run('h2', DIAG)]), 'h2': (vcenter(None), [])})
        self.assertEqual(link(perf(r, 'h1', 'h2')), (None, None, None, 'no uplink speed of h2 in vCenter'))
        r = build({'h1': (vcenter(10000), [run('h2', DIAG)]), 'h2': (vcenter(), [])})
        self.assertEqual(link(perf(r, 'h1', 'h2')), (None, None, None, 'no uplink speed of h2 in vCenter'))
        r = build({'h1': (vcenter(10000), [run('h2', OLD)]), 'h2': (None, [])})
        self.assertEqual(link(perf(r, 'h1', 'h2')), (None, None, None, 'no uplink speed of h2 in vCenter'))

    def test_a_missing_vcenter_speed_falls_back_to_esxperfs_own(self):
        r = build({'h1': (vcenter(10000), [run('h2', DIAG_LINK)]), 'h2': (vcenter(None), [])})
        self.assertEqual(link(perf(r, 'h1', 'h2')), (78.8, 25000, 'esxperf', 'no uplink speed of h2 in vCenter; '
                                                     '25000 Mb/s: the link esxperf read on h1'))

    def test_a_typed_inventory_takes_esxperfs_own(self):
        typed = dict(vcenter(10000), source='inventory')
        r = build({'h1': (typed, [run('h2', DIAG_LINK), run('h3', DIAG)]), 'h2': (typed, []), 'h3': (None, [])})
        self.assertEqual(link(perf(r, 'h1', 'h2')), (78.8, 25000, 'esxperf', '25000 Mb/s: the link esxperf read on h1'))
        self.assertEqual(json.dumps(perf(r, 'h1', 'h2')['link_speed_mbps']), '25000')
        self.assertEqual(link(perf(r, 'h1', 'h3')), (None, None, None, None))

    def test_a_rate_over_vcenters_speed_is_not_a_percentage(self):
        # 19.68 Gbit/s through a 10000 Mb/s uplink: the path is not that uplink
        r = build({'h1': (vcenter(10000), [run('h2', DIAG_LINK), run('h3', DIAG)]), 'h2': (vcenter(10000), []),
                   'h3': (vcenter(1000), [])})
        self.assertEqual(link(perf(r, 'h1', 'h2')), (
            78.8, 25000, 'esxperf', "19.68 Gbit/s is over the 10000 Mb/s of h1's vmnic1 and h2's vmnic1 in "
                                    "vCenter: not the path's speed; 25000 Mb/s: the link esxperf read on h1"))
        self.assertEqual(link(perf(r, 'h1', 'h3')), (
            None, None, None, "8.57 Gbit/s is over the 1000 Mb/s of h3's vmnic1 in vCenter: not the path's speed"))

    def test_esxperfs_own_over_100_is_not_a_percentage(self):
        doc = json.loads(DIAG_LINK)
        doc['end']['diagnosis'].update(link_speed_mbps=10000, percent_of_link=196.8)
        r = build({'h1': (None, [run('h2', json.dumps(doc))]), 'h2': (None, [])})
        self.assertEqual(link(perf(r, 'h1', 'h2')),
                         (None, None, None, "esxperf's 196.8% of 10000 Mb/s is over 100%: not the path's speed"))

    def test_a_run_without_a_result_has_no_percentage(self):
        r = build({'h1': (vcenter(10000), [run('h2', '{"error": "unable to connect"}')]), 'h2': (vcenter(10000), [])})
        p = perf(r, 'h1', 'h2')
        self.assertEqual(p['verdict'], 'failed')
        self.assertEqual(link(p), (None, None, None, None))


def mixed_report():
    """Four hosts from vCenter: 25G, 10G+25G, 10G, and one whose uplink has no speed;
    an esxperf with the diagnosis on three, one without on h4."""
    hosts = {'h1': (vcenter(25000), [run('h2', DIAG), run('h3', DIAG), run('h4', DIAG)]),
             'h2': (vcenter(10000, 25000), [run('h1', DIAG_LINK)]),
             'h3': (vcenter(10000), [run('h1', '')]),
             'h4': (vcenter(None), [run('h1', OLD)])}
    return build(hosts)


class Shown(unittest.TestCase):
    def test_report_txt_table_aligned_with_the_advice_once(self):
        text = fm.text_report(mixed_report())
        start = text.index('Throughput per pair')
        block = text[start:].split('\n\n')[0].split('\n')
        self.assertEqual(block, [
            "Throughput per pair: % of the slowest uplink (vCenter's, else the link esxperf read), "
            'the bottleneck esxperf names',
            '  from  to  Gbit/s  % of link  link                  bottleneck',
            '  h1    h2  8.57    85.7%      10000 Mb/s (vCenter)  sender-cpu',
            '  h1    h3  8.57    85.7%      10000 Mb/s (vCenter)  sender-cpu',
            '  h1    h4  8.57    -          -                     sender-cpu',
            '  h2    h1  19.68   78.8%      25000 Mb/s (esxperf)  sender-cpu',
            '  h3    h1  failed  -          -                     -',
            '  h4    h1  10.18   -          -                     -',
            '  % of link -: no link speed to compare with (report.json pairs[].link_speed_note says why)',
            '  bottleneck -: esxperf gave no diagnosis (an esxperf without it, or no result)',
            "  sender-cpu: try -P 4 (a core per stream), or check TSO on the sender's uplink"])
        # after the throughput grid, before the hosts
        self.assertLess(text.index('Throughput, Gbit/s received'), start)
        self.assertLess(start, text.index('\nhosts\n'))

    def test_no_table_without_throughput_pairs(self):
        r = build({'h1': (None, []), 'h2': (None, [])})
        self.assertNotIn('Throughput per pair', fm.text_report(r))

    def test_grid_cell_title_names_the_share_and_the_bottleneck(self):
        grid = [g for g in fm.matrices(mixed_report()) if g['check'] == 'perf'][0]
        cell = grid['rows'][0]['cells'][1]
        self.assertEqual(cell['title'], 'h1 -> h2: 8.57 Gbit/s received, 4 retransmits, CPU sender 18%, receiver 9%, '
                                        '85.7% of 10000 Mb/s (vCenter), '
                                        'bottleneck sender-cpu, round 1, port 5201')
        self.assertEqual((cell['bottleneck'], cell['percent_of_link'], cell['link']),
                         ('sender-cpu', '85.7%', '10000 Mb/s (vCenter)'))

    def test_a_bottleneck_word_from_a_host_is_shown_only_when_it_is_a_word(self):
        self.assertEqual(fm.bottleneck({'diagnosis': {'bottleneck': 'nic-offload'}}), 'nic-offload')
        self.assertEqual(fm.bottleneck({'diagnosis': {'bottleneck': '\x1b[31mred'}}), '?')
        self.assertIsNone(fm.bottleneck({'diagnosis': None}))
        self.assertEqual(fm.advice({'diagnosis': {'advice': 'a\nb\x1b'}}), 'a?b?')

    def test_report_html_has_the_columns(self):
        r = mixed_report()
        r['configuration'] = None
        html = fleet_page.render(r)
        rows = re.findall(r'<tr class="pair-perf"[^>]*>(.*?)</tr>', html)
        self.assertEqual(len(rows), 6, html)
        self.assertIn('<th>% of link</th><th>bottleneck (esxperf)</th>', html)
        self.assertIn('<td class="link">85.7% of 10000 Mb/s (vCenter)</td><td class="bottleneck" '
                      'title="try -P 4 (a core per stream), or check TSO on the sender&#39;s uplink">sender-cpu</td>',
                      rows[0])
        self.assertIn('<td class="link"></td><td class="bottleneck" title=""></td>', rows[5])
        # the page's grid cells and failing pairs are the only elements with data-from
        # and data-check (test/lib/fleet-page.bash reads them so)
        for tag in re.findall(r'<tr class="pair-[^>]*>', html):
            self.assertNotIn('data-from', tag)



class PathMtu(unittest.TestCase):
    """A pair esxperf calls path-mtu is failed and the one to fix first; the classes
    and findings of the MTU verdict pass through as esxperf gave them."""

    def report(self):
        return build({'h1': (vcenter(10000), [run('h2', DIAG), run('h3', PATH_MTU)]),
                      'h2': (vcenter(10000), [run('h1', FRAG)]), 'h3': (vcenter(10000), [run('h1', DIAG)])})

    def test_the_pair_fails_with_the_verdicts_words(self):
        p = perf(self.report(), 'h1', 'h3')
        self.assertEqual(p['verdict'], 'failed')
        self.assertEqual(p['diagnosis']['bottleneck'], 'path-mtu')
        self.assertTrue(p['error'].startswith('full-size packets vanish on the way, small ones cross (esxperf: '
                                              'path-mtu, 5 of 14 segments of 8948 bytes retransmitted'), p['error'])
        self.assertEqual(fm.bottleneck(p), 'path-mtu')
        self.assertEqual(fm.bottleneck(perf(self.report(), 'h2', 'h1')), 'pacing')
        self.assertEqual(perf(self.report(), 'h2', 'h1')['diagnosis']['findings'][0]['key'], 'fragmentation')

    def test_first_in_the_failing_pairs_with_the_esxmtu_command(self):
        r = self.report()
        bad = fm.failing(r)
        self.assertEqual((bad[0]['from'], bad[0]['to']), ('h1', 'h3'))
        self.assertIn('fix this pair first', bad[0]['hint'])
        self.assertIn('esxmtu -I vmk1 -s 8972 -d 198.18.3.2', bad[0]['hint'])
        # a pair that fails for another reason keeps its own hint, after it
        doc = json.loads(DIAG)
        doc['end']['sum_received']['bytes'] = 0
        r = build({'h1': (None, [run('h2', json.dumps(doc)), run('h3', PATH_MTU)]), 'h2': (None, []),
                   'h3': (None, [])})
        self.assertEqual([(f['to'], 'fix this pair first' in f['hint']) for f in fm.failing(r)],
                         [('h3', True), ('h2', False)])

    def test_report_txt_says_fix_first_and_the_grid_cell_is_a_black_hole(self):
        r = self.report()
        text = fm.text_report(r)
        self.assertIn('  h1    h3  failed  0.0%       10000 Mb/s (vCenter)  path-mtu', text)
        self.assertIn('  fix first: h1 -> h3 (path-mtu: full-size packets vanish on the way', text)
        grid = [g for g in fm.matrices(r) if g['check'] == 'perf'][0]
        cell = grid['rows'][0]['cells'][2]
        self.assertEqual((cell['to'], cell['cls'], cell['bottleneck']),
                         ('h3', 'fail v-failed v-black-hole', 'path-mtu'))
        self.assertNotIn('v-black-hole', grid['rows'][0]['cells'][1]['cls'])

    def test_an_old_report_without_path_mtu_says_no_fix_first(self):
        self.assertNotIn('fix first', fm.text_report(mixed_report()))


if __name__ == '__main__':
    unittest.main(verbosity=2)
