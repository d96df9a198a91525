# esxdiag fleet: the latency check (esxdiag_checks: rr, opt-in). From each host's
# record (tasks/rr.yml ran `esxperf -c PEER --rr -J` against every other host, in the
# throughput step's rounds) to report.json's `pairs` with check "rr": each ordered
# pair's p50 and p99 round trip, judged against the limit VMware documents for the
# pair's role, with one sentence when it fails:
#   witness    200 ms  either host is a stretched cluster's witness (esxdiag_rr_role)
#   stretched    5 ms  both hosts are in a stretched cluster (esxdiag_rr_role)
#   vmotion    150 ms  the vCenter inventory puts them in different clusters: they
#                      meet only through vMotion (long-distance vMotion's limit)
#   vsan         1 ms  otherwise: the hosts of a standard vSAN cluster
# A pair fails when its p50 is over the limit; a p99 over it is said, not failed
# (one write in a hundred). esxdiag_latency adds these pairs (and their counts in
# `summary`) to the report esxdiag_report built. Pure functions of the records.

try:        # as Ansible loads it, in the collection
    from ansible_collections.esxdiag.fleet.plugins.filter.fleet_pairs import parse_json, _num
except ImportError:     # beside fleet_pairs.py on sys.path (the unit tests)
    from fleet_pairs import parse_json, _num

ROLES = {
    'vsan': (1.0, 'a standard vSAN cluster, between its hosts'),
    'stretched': (5.0, 'a stretched vSAN cluster, between its data sites'),
    'witness': (200.0, 'a stretched vSAN cluster, to its witness host'),
    'vmotion': (150.0, 'long-distance vMotion, between hosts of different clusters'),
}


# esxperf's "what dominates" (end.rr.verdict.dominant), said after a failing pair's figures
DOMINANT = {
    'queueing': '; it queues behind other traffic on the path',
    'host': "; the server host's own turnaround dominates (its CPU load)",
    'loss': '; UDP requests were lost',
}


def _cluster(rec):
    cfg = rec.get('config') or {}
    return cfg.get('cluster') if isinstance(cfg, dict) and str(cfg.get('source') or '').startswith('vCenter') else None


def pair_role(rec_from, rec_to):
    """(role, why) of an ordered pair from both hosts' records."""
    roles = [str(r.get('rr_role') or 'vsan').lower() for r in (rec_from, rec_to)]
    if 'witness' in roles:
        who = rec_from['name'] if roles[0] == 'witness' else rec_to['name']
        return 'witness', '%s is the witness (esxdiag_rr_role)' % who
    if roles == ['stretched', 'stretched']:
        return 'stretched', 'both in a stretched cluster (esxdiag_rr_role)'
    ca, cb = _cluster(rec_from), _cluster(rec_to)
    if ca and cb and ca != cb:
        return 'vmotion', 'clusters %s and %s in vCenter' % (ca, cb)
    if ca and ca == cb:
        return 'vsan', 'both in cluster %s in vCenter' % ca
    return 'vsan', 'the default role'


def _ms(us):
    return None if us is None else round(us / 1000.0, 3)


def rr_pair(rec, run, by_name):
    """The pair of one `esxperf --rr -J` run of this host against run['to']."""
    to = run.get('to')
    role, why = pair_role(rec, by_name.get(to) or {'name': to})
    limit, what = ROLES[role]
    pair = {'from': rec['name'], 'to': to, 'check': 'rr', 'round': run.get('round'),
            'direction': run.get('direction'), 'port': run.get('port'),
            'role': role, 'role_source': why, 'limit_ms': limit,
            'p50_ms': None, 'p99_ms': None, 'mean_ms': None, 'transactions': None, 'lost': None,
            'server_turnaround_ms': None, 'dominant': None, 'error': None, 'sentence': None, 'tail': False}
    doc = parse_json(run.get('stdout'))
    rr = ((doc or {}).get('end') or {}).get('rr') or {}
    rtt = (rr.get('sum') or {}).get('rtt_us') or {}
    if doc is None or doc.get('error') or not rtt:
        msg = (doc or {}).get('error') or (run.get('stderr') or '').strip() or 'no JSON from esxperf --rr'
        pair['error'] = 'esxperf exit %s: %s' % (run.get('rc'), msg)
        pair['verdict'] = 'failed'
        pair['sentence'] = '%s -> %s: no latency measured (%s)' % (pair['from'], to, pair['error'])
        return pair
    pair.update(p50_ms=_ms(_num(rtt.get('p50'))), p99_ms=_ms(_num(rtt.get('p99'))), mean_ms=_ms(_num(rtt.get('mean'))),
                transactions=(rr.get('sum') or {}).get('transactions'), lost=(rr.get('sum') or {}).get('lost'),
                server_turnaround_ms=_ms(_num((rr.get('server_turnaround_us') or {}).get('mean'))),
                dominant=(rr.get('verdict') or {}).get('dominant'))
    over = pair['p50_ms'] is None or pair['p50_ms'] > limit
    pair['verdict'] = 'failed' if over else 'ok'
    tail = pair['tail'] = not over and pair['p99_ms'] is not None and pair['p99_ms'] > limit
    where = 'the %g ms VMware gives %s (%s)' % (limit, what, why)
    if over:
        share = ''
        if pair['server_turnaround_ms'] is not None and pair['mean_ms']:
            share = "; the server host's turnaround is %.3f of the %.3f ms mean" % (
                pair['server_turnaround_ms'], pair['mean_ms'])
        pair['sentence'] = '%s -> %s: p50 %.3f ms over %s, p99 %.3f ms%s%s' % (
            pair['from'], to, pair['p50_ms'], where, pair['p99_ms'] or 0, share, DOMINANT.get(pair['dominant'], ''))
    elif tail:
        pair['sentence'] = '%s -> %s: p50 %.3f ms within, but p99 %.3f ms over %s' % (
            pair['from'], to, pair['p50_ms'], pair['p99_ms'], where)
    return pair


def add_latency(report, names, hostvars):
    """The report with the rr pairs of the hosts named added (and counted)."""
    records = []
    for name in names:
        rec = hostvars[name].get('esxdiag_record') if name in hostvars else None
        if rec:
            records.append(dict(rec))
    by_name = dict((r['name'], r) for r in records)
    pairs = []
    for rec in records:
        if rec.get('tested') not in (True, 'True', 'true'):
            continue
        pairs += [rr_pair(rec, run, by_name) for run in rec.get('rr') or []]
    if not pairs:
        return report
    out = dict(report)
    out['pairs'] = list(report.get('pairs') or []) + pairs
    # each host's raw esxperf --rr JSON beside its throughput runs' (hosts[].raw)
    hosts = []
    for h in report.get('hosts') or []:
        runs = (by_name.get(h.get('name')) or {}).get('rr') or []
        if runs:
            h = dict(h)
            h['raw'] = dict(h.get('raw') or {})
            h['raw']['esxperf_rr'] = [dict(to=r.get('to'), round=r.get('round'), direction=r.get('direction'),
                                           client=parse_json(r.get('stdout')),
                                           server=parse_json(r.get('receiver_stdout'))) for r in runs]
        hosts.append(h)
    out['hosts'] = hosts
    summary = dict(report.get('summary') or {})
    failed = [p for p in pairs if p['verdict'] != 'ok']
    summary['pairs'] = summary.get('pairs', 0) + len(pairs)
    summary['failed'] = summary.get('failed', 0) + len(failed)
    summary['rr_failed'] = len(failed)
    out['summary'] = summary
    settings = dict(report.get('settings') or {})
    first = next((r for r in records if r.get('settings')), {})
    settings['rr_seconds'] = (first.get('settings') or {}).get('rr_seconds')
    out['settings'] = settings
    return out


class FilterModule(object):
    def filters(self):
        return {'esxdiag_latency': add_latency}
