# esxdiag fleet: from each host's record (tasks/record.yml: its state and the raw
# output of esxmtu, esxperf, esxpart) to report.json's content: `pairs`, one object
# per directed pair and check (from, to, check, verdict, evidence; a throughput pair
# also esxperf's diagnosis and its share of the link), `hosts`, each host's state with
# its raw tool JSON, its pre-flight report and its self-test, and a `summary`. Pure
# functions of the records.

import json

from ansible.errors import AnsibleFilterError

MTU_PASS = 'PASS'


def parse_json(text):
    """The tool's JSON object, or None when the text is not one (a crash, an error)."""
    if isinstance(text, dict):
        return text
    try:
        value = json.loads(text or '')
    except (TypeError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def mtu_failing(stdout):
    """The targets of one esxmtu -J run that did not pass (for --discover)."""
    doc = parse_json(stdout) or {}
    return [p.get('target') for p in doc.get('peers', [])
            if p.get('verdict') != MTU_PASS and p.get('target')]


def _netstack(ns):
    """The netstack a tool's -J says it ran in: {name, from, method} (name null: none
    named, the shell's own), or None when the tool gave no JSON."""
    if not isinstance(ns, dict):
        return None
    return {'name': ns.get('name'), 'from': ns.get('from'), 'method': ns.get('method')}


def mtu_netstack(stdout):
    """The netstack one esxmtu -J run found for its vmk ('' for none or the default):
    esxperf then runs there too (--netstack)."""
    ns = _netstack((parse_json(stdout) or {}).get('netstack')) or {}
    name = ns.get('name') or ''
    return '' if name == 'defaultTcpipStack' else name


def _perf_netstack(doc):
    return _netstack((((doc or {}).get('end') or {}).get('esxperf') or {}).get('netstack'))


def _num(value, kind=float):
    """Ansible hands facts back as text at times ('None', '12'): the number, or None."""
    if value is None or value == '' or value == 'None':
        return None
    try:
        return kind(value)
    except (TypeError, ValueError):
        return None


def _addresses(rec):
    out = {}
    if rec.get('test_ip'):
        out[rec['test_ip']] = 'ipv4'
    if rec.get('test_ip6'):
        out[rec['test_ip6']] = 'ipv6'
    return out


def _mtu_evidence(peer, disc):
    ev = dict(peer.get('evidence') or {})
    d = (disc or {}).get('discover') or {}
    found = d.get('state') == 'found'
    verdict = peer.get('verdict')
    ev.update({
        'largest_passed': peer.get('mtu') if verdict == MTU_PASS else (d.get('mtu') if found else None),
        'smallest_failed': d.get('smallest_failed') if found else None,
        'discovered_mtu': (disc or {}).get('discovered_mtu') if disc else peer.get('discovered_mtu'),
        'discover_proof': d.get('proof'),
        'discover_text': (disc or {}).get('evidence', {}).get('text') if disc else None,
        'loss_percent': (peer.get('probes') or {}).get('loss_percent'),
        'rtt_ms': peer.get('rtt_ms'),
        'method': peer.get('method'),
        'mtu': peer.get('mtu'),
    })
    return ev


def _mtu_pairs(rec, tested, by_name):
    """One pair per (peer host, family) this host probed, from its esxmtu JSON."""
    raw = rec.get('mtu') or {}
    doc = parse_json(raw.get('stdout'))
    disc_doc = parse_json(raw.get('discover_stdout')) or {}
    disc = dict((p.get('target'), p) for p in disc_doc.get('peers', []))
    got = dict((p.get('target'), p) for p in (doc or {}).get('peers', []))
    netstack = _netstack((doc or {}).get('netstack'))
    pairs = []
    for other in tested:
        if other == rec['name']:
            continue
        for addr, family in sorted(_addresses(by_name[other]).items(), key=lambda a: a[1]):
            if family == 'ipv6' and not rec.get('test_ip6') or family == 'ipv4' and not rec.get('test_ip'):
                continue
            peer = got.get(addr)
            pair = {'from': rec['name'], 'to': other, 'check': 'mtu', 'family': family, 'address': addr,
                    'netstack': netstack}
            if peer is None:
                why = (raw.get('stderr') or '').strip() or 'esxmtu gave no result for this peer'
                pair.update({'verdict': 'ERROR', 'evidence': {'text': 'esxmtu exit %s: %s' % (raw.get('rc'), why)}})
            else:
                pair.update({'verdict': peer.get('verdict'), 'evidence': _mtu_evidence(peer, disc.get(addr))})
            pairs.append(pair)
    return pairs


def _diagnosis(end):
    """esxperf's end.diagnosis as it gave it (bottleneck, evidence, link_speed_mbps,
    percent_of_link, advice, ...), or None: an esxperf older than the diagnosis gives
    none, and anything but an object is not one."""
    d = (end or {}).get('diagnosis')
    return d if isinstance(d, dict) else None


def _mbps(value):
    """A link speed in Mb/s (a whole number, as vCenter and esxperf give it, even when
    Ansible hands it back as text), or None when unknown or not above 0."""
    speed = _num(value)
    if speed is None or speed <= 0:
        return None
    return int(speed) if speed == int(speed) else speed


def vcenter_uplink_speed(cfg):
    """(Mb/s, uplinks) of a host's vmk path as the vCenter inventory read it: the
    slowest uplink with a speed (vCenter gives none for a link that is down, which
    carries nothing), with the uplinks at that speed; (None, []) when the
    configuration did not come from vCenter or no uplink has a speed."""
    cfg = cfg or {}
    if not str(cfg.get('source') or '').startswith('vCenter'):
        return None, []
    known = []
    for u in cfg.get('uplinks') or []:
        speed = _mbps(u.get('speed_mb')) if isinstance(u, dict) else None
        if speed:
            known.append((speed, u.get('device') or '?'))
    if not known:
        return None, []
    slowest = min(s for s, _ in known)
    return slowest, [d for s, d in known if s == slowest]


def _share(bps, mbps):
    """The rate as a percentage of the link, one decimal; None when either is unknown or
    the rate is over the link's speed: a path cannot carry more than its slowest link,
    so that speed is not this path's and the percentage would be wrong."""
    if bps is None or not mbps or mbps <= 0:
        return None
    pct = round(100.0 * bps / (mbps * 1e6), 1)
    return pct if pct <= 100 else None


def link_share(pair, bps, cfg_from, cfg_to):
    """The pair's share of its link: percent_of_link, link_speed_mbps,
    link_speed_source (vcenter: the slower of both hosts' slowest uplinks in vCenter;
    esxperf: the link speed esxperf's diagnosis read on the sender; null: neither)
    and link_speed_note (which uplinks, or why there is no percentage)."""
    out = {'percent_of_link': None, 'link_speed_mbps': None, 'link_speed_source': None, 'link_speed_note': None}
    notes = []
    speeds = [(name,) + vcenter_uplink_speed(cfg) for name, cfg in ((pair['from'], cfg_from), (pair['to'], cfg_to))]
    if all(s is not None for _, s, _ in speeds):
        mbps = min(s for _, s, _ in speeds)
        where = ' and '.join("%s's %s" % (n, ', '.join(d)) for n, s, d in speeds if s == mbps)
        pct = _share(bps, mbps)
        if pct is not None:
            out.update(percent_of_link=pct, link_speed_mbps=mbps, link_speed_source='vcenter',
                       link_speed_note='%d Mb/s: %s in vCenter' % (mbps, where))
            return out
        if bps is not None:
            notes.append("%.2f Gbit/s is over the %d Mb/s of %s in vCenter: not the path's speed" % (
                bps / 1e9, mbps, where))
    elif any(s is not None for _, s, _ in speeds):
        notes.append('no uplink speed of %s in vCenter' % ' or '.join(n for n, s, _ in speeds if s is None))
    diag = pair.get('diagnosis') or {}
    pct, mbps = _num(diag.get('percent_of_link')), _mbps(diag.get('link_speed_mbps'))
    if pct is not None and mbps and 0 <= pct <= 100:
        out.update(percent_of_link=round(pct, 1), link_speed_mbps=mbps, link_speed_source='esxperf')
        notes.append('%d Mb/s: the link esxperf read on %s' % (mbps, pair['from']))
    elif pct is not None and mbps:
        notes.append("esxperf's %.1f%% of %d Mb/s is over 100%%: not the path's speed" % (pct, mbps))
    out['link_speed_note'] = '; '.join(notes) or None
    return out


def _printable_short(text, limit=240):
    """A host's words for one line: control characters shown as '?', at most limit
    characters."""
    text = ''.join(c if c.isprintable() else '?' for c in str(text or ''))
    return text if len(text) <= limit else text[:limit - 3] + '...'


def _receiver_said(run):
    doc = parse_json(run.get('receiver_stdout'))
    text = (doc or {}).get('error') or (run.get('receiver_stderr') or '').strip()
    return text or 'no message'


def _perf_pair(rec, run, min_gbps, cfg_to=None):
    pair = {'from': rec['name'], 'to': run.get('to'), 'check': 'perf', 'round': _num(run.get('round'), int),
            'direction': run.get('direction'), 'port': _num(run.get('port'), int),
            'gbps': None, 'sent_gbps': None, 'retransmits': None, 'cpu_sender': None, 'cpu_receiver': None,
            'error': None}
    doc = parse_json(run.get('stdout'))
    pair['netstack'] = _perf_netstack(doc)
    pair['receiver_netstack'] = _perf_netstack(parse_json(run.get('receiver_stdout')))
    end = (doc or {}).get('end') or {}
    recv, sent = end.get('sum_received') or {}, end.get('sum_sent') or {}
    cpu = end.get('cpu_utilization_percent') or {}
    pair['diagnosis'] = _diagnosis(end)
    bps = _num(recv.get('bits_per_second')) if recv else None
    pair.update(link_share(pair, bps, rec.get('config'), cfg_to))
    if recv:
        pair['gbps'] = round(recv.get('bits_per_second', 0) / 1e9, 3)
    if sent:
        pair['sent_gbps'] = round(sent.get('bits_per_second', 0) / 1e9, 3)
        r = sent.get('retransmits')
        pair['retransmits'] = r if isinstance(r, int) and r >= 0 else None
    pair['cpu_sender'] = cpu.get('host_total')
    pair['cpu_receiver'] = cpu.get('remote_total')
    if not run.get('receiver_started') in (True, 'True', 'true'):
        pair['error'] = 'the receiver (esxperf -s) could not be started on %s' % run.get('to')
    elif 'Connection refused' in (run.get('stderr') or ''):
        pair['error'] = 'the receiver did not listen on port %s (its exit %s: %s)' % (
            run.get('port'), run.get('receiver_rc'), _receiver_said(run))
    elif doc is None or (doc or {}).get('error'):
        msg = (doc or {}).get('error') or (run.get('stderr') or '').strip() or 'no JSON from esxperf'
        pair['error'] = 'esxperf exit %s: %s' % (run.get('rc'), msg)
    elif (pair['diagnosis'] or {}).get('bottleneck') == 'path-mtu':
        pair['error'] = 'full-size packets vanish on the way, small ones cross (esxperf: path-mtu, %s)' % (
            _printable_short(pair['diagnosis'].get('because')))
    elif not recv.get('bytes'):
        pair['error'] = 'no data reached the receiver in %.1f s (sent %s bytes, %s retransmits)' % (
            recv.get('seconds') or 0, sent.get('bytes'), sent.get('retransmits'))
    elif pair['gbps'] < min_gbps:
        pair['error'] = '%.2f Gbit/s, below esxdiag_perf_min_gbps %g' % (pair['gbps'], min_gbps)
    pair['verdict'] = 'failed' if pair['error'] else 'ok'
    return pair


def _mark_asymmetric(pairs):
    index = dict(((p['check'], p.get('family'), p['from'], p['to']), p) for p in pairs)
    for p in pairs:
        back = index.get((p['check'], p.get('family'), p['to'], p['from']))
        if back is None:
            p['asymmetric'] = False
        elif p['check'] == 'perf' and p['verdict'] == back['verdict'] == 'ok':
            lo, hi = sorted([p['gbps'] or 0, back['gbps'] or 0])
            p['asymmetric'] = hi > 0 and lo / hi < 0.8
        else:
            p['asymmetric'] = p['verdict'] != back['verdict']


def _part_summary(doc):
    """Where OSDATA, the bootbanks and the VMFS datastores are, one line each."""
    found = {'osdata': [], 'bootbanks': [], 'vmfs': []}
    for disk in (doc or {}).get('disks', []):
        for part in disk.get('partitions') or []:
            role = part.get('role') or ''
            where = '%s #%s' % (disk.get('path'), part.get('number'))
            label = ((part.get('content') or {}).get('label') or '')
            if role.startswith('OSDATA'):
                found['osdata'].append(where)
            elif role == 'bootbank':
                found['bootbanks'].append(where)
            elif role == 'VMFS datastore':
                found['vmfs'].append(where + (' (%s)' % label if label else ''))
    return found


def _preflight(rec):
    """The host's pre-flight report (esxi/prepare.sh --check --json, run after the kit
    was unpacked), or None when it did not run or gave no JSON."""
    return parse_json(rec.get('preflight'))


def _selftest(rec):
    """The host's esxdiag-selftest -J report (its "selftest" object: kernel, probes,
    summary); None when it did not run; {'error': why} when it ran and gave no report."""
    st = rec.get('selftest')
    if not isinstance(st, dict):
        return None
    rc = _num(st.get('rc'), int)
    if rc is None:
        return None
    inner = (parse_json(st.get('stdout')) or {}).get('selftest')
    if not isinstance(inner, dict):
        why = (st.get('stderr') or '').strip() or 'no JSON from esxdiag-selftest'
        return {'error': 'esxdiag-selftest exit %s: %s' % (rc, why)}
    return inner


def _team_uplinks(doc, each_doc, addr_host):
    """A host's vmk, its team and each uplink from esxmtu -J's `team`, `findings` and
    (with --each-uplink) `each_uplink`; each uplink's pairs keyed by peer host:
    {verdict, largest_mtu}. None when esxmtu read no team."""
    team = (doc or {}).get('team')
    if not isinstance(team, dict):
        return None
    each = (each_doc or {}).get('each_uplink') if each_doc else None
    tested = dict((u.get('name'), u) for u in ((each or {}).get('uplinks') or []) if isinstance(u, dict))
    ups = []
    for u in team.get('uplinks') or []:
        if not isinstance(u, dict):
            continue
        t = tested.get(u.get('name')) or {}
        pairs = {}
        for p in t.get('peers') or []:
            host = addr_host.get(p.get('target'), p.get('target'))
            pairs[host] = {'verdict': p.get('verdict'), 'largest_mtu': p.get('largest_mtu')}
        ups.append({'name': u.get('name'), 'role': u.get('role'), 'order': u.get('order'),
                    'now': u.get('name') == team.get('current_uplink'), 'nic_mtu': u.get('nic_mtu'),
                    'switch': u.get('switch'), 'switch_port': u.get('switch_port'),
                    'switch_mtu': u.get('switch_mtu'), 'tested': bool(t.get('tested')),
                    'error': t.get('error'), 'pairs': pairs})
    findings = [f for f in ((doc or {}).get('findings') or []) if isinstance(f, str)]
    findings += [f for f in ((each_doc or {}).get('findings') or []) if isinstance(f, str) and f not in findings]
    cleanup = (each or {}).get('cleanup') or None
    return {'vmk': team.get('vmk'), 'vswitch': team.get('vswitch') or team.get('vds'),
            'portgroup': team.get('portgroup'), 'vlan': team.get('vlan'), 'mtu': team.get('mtu'),
            'load_balancing': team.get('load_balancing'), 'failback': team.get('failback'),
            'current_uplink': team.get('current_uplink'), 'not_read': team.get('not_read'),
            'uplinks': ups, 'findings': findings, 'each_uplink': bool(each),
            'each_refused': (each or {}).get('refused'), 'cleanup': cleanup}


def _host(rec, addr_host=None):
    raw = {}
    mtu = rec.get('mtu') or {}
    if mtu:
        raw['esxmtu'] = parse_json(mtu.get('stdout'))
        raw['esxmtu_discover'] = parse_json(mtu.get('discover_stdout'))
    raw['esxperf'] = [dict(to=r.get('to'), round=_num(r.get('round'), int), direction=r.get('direction'),
                           sender=parse_json(r.get('stdout')), receiver=parse_json(r.get('receiver_stdout')))
                      for r in rec.get('perf') or []]
    part = rec.get('part') or {}
    if part:
        raw['esxpart'] = parse_json(part.get('stdout'))
    host = dict((k, rec.get(k)) for k in ('name', 'state', 'detail', 'management', 'test_ip', 'test_ip6',
                                          'vmk', 'netstack', 'config', 'arch', 'remote_dir', 'steps'))
    host['tested'] = rec.get('tested') in (True, 'True', 'true')
    host['part'] = _part_summary(raw.get('esxpart')) if part else None
    host['preflight'] = _preflight(rec)
    host['selftest'] = _selftest(rec)
    host['team'] = _team_uplinks(raw.get('esxmtu'), parse_json(mtu.get('each_stdout')) if mtu else None,
                                 addr_host or {})
    if mtu and mtu.get('each_stdout'):
        raw['esxmtu_each_uplink'] = parse_json(mtu.get('each_stdout'))
    host['raw'] = raw
    return host


def build_report(names, hostvars):
    """The report from the records of the hosts named (the inventory group)."""
    records = []
    for name in names:
        rec = hostvars[name].get('esxdiag_record') if name in hostvars else None
        if not rec:
            rec = {'name': name, 'state': 'not run', 'detail': 'the play stopped before this host'}
        records.append(dict(rec))
    if not records:
        raise AnsibleFilterError('esxdiag_report: the group has no hosts')
    by_name = dict((r['name'], r) for r in records)
    tested = [r['name'] for r in records if r.get('tested') in (True, 'True', 'true')]
    first = next((r for r in records if r.get('settings')), {})
    settings = dict(first.get('settings') or {})
    min_gbps = _num(settings.get('perf_min_gbps')) or 0.0
    pairs = []
    for name in tested:
        pairs += _mtu_pairs(by_name[name], tested, by_name)
    for name in tested:
        pairs += [_perf_pair(by_name[name], run, min_gbps, (by_name.get(run.get('to')) or {}).get('config'))
                  for run in by_name[name].get('perf') or []]
    _mark_asymmetric(pairs)
    addr_host = dict((a, r['name']) for r in records for a in _addresses(r))
    hosts = [_host(r, addr_host) for r in records]
    t0 = [t for t in (_num(r.get('t0')) for r in records) if t is not None]
    t1 = [t for t in (_num(r.get('finished')) for r in records) if t is not None]
    failed = [p for p in pairs if p['verdict'] not in (MTU_PASS, 'ok')]
    steps = {}
    for step in ('mtu_seconds', 'perf_seconds'):
        vals = [v for v in (_num(by_name[n].get(step)) for n in tested) if v is not None]
        steps[step] = round(max(vals), 2) if vals else None
    return {
        'tool': 'esxdiag fleet',
        'kit': first.get('kit') or {},
        'started': first.get('started'),
        'seconds': {'total': round(max(t1) - min(t0), 2) if t0 and t1 else None,
                    'mtu': steps['mtu_seconds'], 'perf': steps['perf_seconds']},
        'settings': settings,
        'interrupted': any(r.get('interrupted') for r in records),
        'hosts': hosts,
        'pairs': pairs,
        'summary': {
            'hosts': len(records), 'hosts_tested': len(tested),
            'hosts_not_ok': [h['name'] for h in hosts if h['state'] != 'ok'],
            'pairs': len(pairs), 'failed': len(failed),
            'mtu_failed': len([p for p in failed if p['check'] == 'mtu']),
            'perf_failed': len([p for p in failed if p['check'] == 'perf']),
            'uplink_findings': sum(len((h.get('team') or {}).get('findings') or []) for h in hosts),
        },
    }


class FilterModule(object):
    def filters(self):
        return {'esxdiag_mtu_failing': mtu_failing, 'esxdiag_report': build_report,
                'esxdiag_mtu_netstack': mtu_netstack,
                'esxdiag_parse_json': parse_json}
