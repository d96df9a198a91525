#!/usr/bin/python3
# Unit tests of the fleet report's self-test parts: fleet_pairs._selftest (a host's
# esxdiag-selftest -J record into hosts[].selftest) and fleet_matrix.selftest_line /
# selftest_refused (what report.txt and report.html show of it), for the cases the
# fleet bench does not make: a kit without the tool, a run that printed no JSON, a
# host where the step did not run, a refusal without an errno.
# Run: python3 test/unit/fleet_selftest_test.py (selftest.bats runs it).
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'esxi', 'fleet',
                                'collections', 'ansible_collections', 'esxdiag', 'fleet', 'plugins', 'filter'))
import fleet_matrix as fm  # noqa: E402
import fleet_pairs as fp  # noqa: E402


def report(probes):
    works = len([p for p in probes if p['result'] == 'works'])
    refused = len([p for p in probes if p['result'] == 'refused'])
    return {'selftest': {'version': '0.1.0', 'host': 'esx01', 'arch': 'x86_64', 'kernel': '7.0.3',
                         'system': 'VMkernel', 'root': True, 'probes': probes,
                         'summary': {'works': works, 'refused': refused,
                                     'not_tried': len(probes) - works - refused}}}


def probe(name, result, errno=None, detail=None, fallback='the tools do something else'):
    return {'name': name, 'kind': 'syscall', 'result': result, 'errno': errno, 'detail': detail,
            'fallback': fallback}


PROBES = [probe('accept4', 'works'), probe('getrandom', 'refused', 'ENOSYS', fallback='reads /dev/urandom'),
          probe('TCP_INFO', 'refused', None, '4 of 104 bytes: no retransmit count'),
          probe('IP_HDRINCL', 'not-tried', None, 'needs root')]


class Record(unittest.TestCase):
    def test_report_as_text_or_as_parsed_json(self):
        doc = report(PROBES)
        for stdout in (json.dumps(doc), doc):
            got = fp._selftest({'selftest': {'rc': '0', 'stdout': stdout, 'stderr': ''}})
            self.assertEqual(got, doc['selftest'])

    def test_not_run(self):
        self.assertIsNone(fp._selftest({}))
        self.assertIsNone(fp._selftest({'selftest': {'rc': 'None', 'stdout': '', 'stderr': ''}}))
        self.assertIsNone(fp._selftest({'selftest': {'rc': None, 'stdout': '', 'stderr': ''}}))

    def test_kit_without_the_tool(self):
        got = fp._selftest({'selftest': {'rc': '2', 'stdout': '',
                                         'stderr': '[Errno 2] No such file or directory'}})
        self.assertEqual(got, {'error': 'esxdiag-selftest exit 2: [Errno 2] No such file or directory'})
        self.assertEqual(fm.selftest_line(got), 'esxdiag-selftest exit 2: [Errno 2] No such file or directory')

    def test_no_json(self):
        got = fp._selftest({'selftest': {'rc': '139', 'stdout': 'garbage', 'stderr': ''}})
        self.assertEqual(got, {'error': 'esxdiag-selftest exit 139: no JSON from esxdiag-selftest'})


class Shown(unittest.TestCase):
    def test_line_names_each_refusal(self):
        st = report(PROBES)['selftest']
        self.assertEqual(fm.selftest_line(st), 'VMkernel 7.0.3 x86_64: 1 works, 2 refused '
                         '(getrandom ENOSYS, TCP_INFO 4 of 104 bytes: no retransmit count), 1 not tried')

    def test_line_nothing_refused(self):
        st = report([probe('accept4', 'works')])['selftest']
        self.assertEqual(fm.selftest_line(st), 'VMkernel 7.0.3 x86_64: 1 works, 0 refused, 0 not tried')
        self.assertEqual(fm.selftest_refused(st), [])
        self.assertEqual(fm.selftest_line(None), 'no self-test')

    def test_refused_rows_with_fallback(self):
        st = report(PROBES)['selftest']
        self.assertEqual(fm.selftest_refused(st), [
            ('getrandom', 'refused ENOSYS', 'reads /dev/urandom'),
            ('TCP_INFO', 'refused 4 of 104 bytes: no retransmit count', 'the tools do something else'),
            ('IP_HDRINCL', 'not tried: needs root', 'the tools do something else')])


if __name__ == '__main__':
    unittest.main()
