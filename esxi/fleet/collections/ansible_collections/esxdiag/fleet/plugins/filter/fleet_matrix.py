# esxdiag fleet: the report for people. From report.json's content (fleet_pairs.py):
#   esxdiag_matrices  the grids, hosts as rows (from) and columns (to): one per MTU
#                     family, one for throughput and one for latency (rr, opt-in:
#                     fleet_latency.py); each cell has its label (PASS, the failing
#                     verdict with its MTU, Gbit/s, p50/p99 ms), a class and details
#   esxdiag_text      the text printed at the end of the run (report.txt): the grids,
#                     each throughput pair's bottleneck and share of its link, the
#                     hosts, then the failing pairs in words with what to look at
# report.html (templates/report.html.j2) draws the same grids.

try:
    from ansible_collections.esxdiag.fleet.plugins.filter.fleet_vds_health import text_lines as vds_text_lines
except ImportError:  # the unit tests import the filters from their folder
    from fleet_vds_health import text_lines as vds_text_lines

FAMILY_NAME = {'ipv4': 'IPv4', 'ipv6': 'IPv6'}

# what to look at, per esxmtu verdict (docs/esxmtu.md, "Verdicts and what to fix")
HINTS = {
    'LOCAL-MTU': "{f}'s own interface is smaller: the MTU of its vmk{vmk} and its vSwitch/DVS "
                 "(esxcli network ip interface list; esxcli network vswitch standard list)",
    'TOO-BIG': "the router {router} between them: its interface towards {t} has MTU {nh}",
    'BLACK-HOLE': "an L2 device between {f} and {t} that drops big frames silently: the physical "
                  "switch ports of both hosts' uplinks, the vSwitch/DVS and vmk MTU on {t}, or a router "
                  "whose frag-needed is filtered (esxmtu --trace {addr} on {f} shows where)",
    'NO-REPLY': "{t} does not answer ICMP at all (host down, wrong test address, or filtered): "
                "no MTU conclusion",
    'UNREACHABLE': "routing between {f} and {t} (the ICMP error names who refused)",
    'TTL-EXCEEDED': "a routing loop or a TTL too small between {f} and {t}",
    'SHORT-REPLY': "a device between {f} and {t} that truncates packets",
    'ERROR': "esxmtu did not run on {f}: its stderr is in report.json",
}


# esxperf's bottleneck classes (docs/esxperf.md); a word outside them is shown when it
# looks like one (a newer esxperf's class), anything else as '?'
BOTTLENECKS = ('path-mtu', 'fragmentation', 'line-rate', 'sender-cpu', 'receiver-cpu', 'receive-window',
               'send-buffer', 'network-loss', 'receive-buffer', 'pacing', 'network', 'unknown')
# a pair esxperf calls path-mtu carries no full-size packet: whatever else its figures
# say follows from that, so it is the pair to fix first
FIX_FIRST = ('path-mtu',)
SOURCE_NAME = {'vcenter': 'vCenter', 'esxperf': 'esxperf'}


def _printable(text):
    """Text from a host's tool output, with control characters shown as '?'."""
    return ''.join(c if c.isprintable() else '?' for c in str(text))


def bottleneck(pair):
    """The bottleneck esxperf named for a throughput pair, or None when it named none."""
    word = (pair.get('diagnosis') or {}).get('bottleneck')
    if word is None:
        return None
    word = str(word)
    if word in BOTTLENECKS:
        return word
    ok = 0 < len(word) <= 32 and all(c.isascii() and (c.isalnum() or c == '-') for c in word)
    return word if ok else '?'


def fix_first(pair):
    """True for a throughput pair whose bottleneck is to be fixed before anything else."""
    return pair.get('check') == 'perf' and bottleneck(pair) in FIX_FIRST


def advice(pair):
    """esxperf's advice for the pair's bottleneck, printable, or ''."""
    text = (pair.get('diagnosis') or {}).get('advice')
    return _printable(text) if text else ''


def link_label(pair):
    """'10000 Mb/s (vCenter)', '' without a percentage of the link."""
    if pair.get('percent_of_link') is None or not pair.get('link_speed_mbps'):
        return ''
    return '%d Mb/s (%s)' % (pair['link_speed_mbps'], SOURCE_NAME.get(pair.get('link_speed_source'), '?'))


def percent_label(pair):
    """'81.1%', '' when unknown."""
    pct = pair.get('percent_of_link')
    return '' if pct is None else '%.1f%%' % pct


def _mtu_of(pair):
    ev = pair.get('evidence') or {}
    v = pair['verdict']
    if v == 'LOCAL-MTU':
        return ev.get('local_mtu') or ev.get('discovered_mtu')
    if v == 'TOO-BIG':
        return ev.get('next_hop_mtu') or ev.get('discovered_mtu')
    return ev.get('discovered_mtu')


def cell_label(pair):
    if pair['check'] == 'rr':
        if pair.get('p50_ms') is None:
            return 'failed'
        return '%.3g/%.3g' % (pair['p50_ms'], pair['p99_ms'] or 0)
    if pair['check'] == 'perf':
        return '%.2f' % pair['gbps'] if pair['verdict'] == 'ok' else 'failed'
    if pair['verdict'] == 'PASS':
        return 'PASS'
    mtu = _mtu_of(pair)
    return '%s %s' % (pair['verdict'], mtu) if mtu else pair['verdict']


def netstack_label(pair):
    """Where the sending side ran and how it got there: 'vmotion via esxcli',
    'vmotion (launch word)', 'default' ('' when the tool gave no JSON)."""
    ns = pair.get('netstack')
    if not ns:
        return ''
    name = ns.get('name') or 'default'
    method = ns.get('method')
    if method == 'esxcli':
        return '%s via esxcli' % name
    if method == 'launch-word':
        return '%s (launch word)' % name
    return name if name != 'defaultTcpipStack' else 'default'


def pair_details(pair):
    """One line of evidence, as a person reads it."""
    if pair['check'] == 'rr':
        if pair.get('sentence'):
            return pair['sentence']
        return 'p50 %.3f ms, p99 %.3f ms within the %g ms of role %s (%s); %s transactions' % (
            pair['p50_ms'], pair['p99_ms'] or 0, pair['limit_ms'], pair['role'], pair['role_source'],
            pair.get('transactions'))
    if pair['check'] == 'perf':
        if pair['verdict'] != 'ok':
            return pair.get('error') or 'failed'
        parts = ['%.2f Gbit/s received' % pair['gbps']]
        if pair.get('retransmits') is not None:
            parts.append('%d retransmits' % pair['retransmits'])
        if pair.get('cpu_sender') is not None:
            parts.append('CPU sender %.0f%%, receiver %.0f%%' % (pair['cpu_sender'], pair['cpu_receiver'] or 0))
        if percent_label(pair):
            parts.append('%s of %s' % (percent_label(pair), link_label(pair)))
        if bottleneck(pair):
            parts.append('bottleneck %s' % bottleneck(pair))
        parts.append('round %s, port %s' % (pair.get('round'), pair.get('port')))
        return ', '.join(parts)
    ev = pair.get('evidence') or {}
    text = ev.get('discover_text') or ev.get('text') or ''
    if ev.get('discovered_mtu') and 'discovered' not in text:
        text += '; discovered path MTU %s' % ev['discovered_mtu']
    return text


def hint(pair, vmk_of, mtu_bad=()):
    if pair['check'] == 'rr':
        if pair.get('error'):
            return "the receiver %s: its esxperf output and prepare.sh's output are in report.json" % pair['to']
        return ("what shares the path: esxperf -c %s --rr --rr-load on %s shows the queueing a bulk "
                "stream adds; then the hops between them (esxmtu --trace)" % (pair['to'], pair['from']))
    if pair['check'] == 'perf':
        if fix_first(pair):
            return 'fix this pair first, an MTU black hole between %s and %s: %s' % (
                pair['from'], pair['to'], advice(pair) or 'esxmtu between them shows where')
        if (pair['from'], pair['to']) in mtu_bad:
            return 'the MTU check of this pair fails too: full-size TCP segments cannot cross; fix that first'
        err = pair.get('error') or ''
        if 'did not listen' in err or 'could not be started' in err:
            return "the receiver %s: its esxperf output and prepare.sh's output are in report.json" % pair['to']
        return ("the host firewalls (prepare.sh's output in report.json), then the path: "
                "esxperf -c by hand between them")
    ev = pair.get('evidence') or {}
    vmk = vmk_of.get(pair['from'])
    return HINTS.get(pair['verdict'], 'see the evidence').format(
        f=pair['from'], t=pair['to'], vmk=' (%s)' % vmk if vmk else '', router=ev.get('router'),
        nh=ev.get('next_hop_mtu'), addr=pair.get('address'))


def matrices(report):
    """[{title, key, check, family, hosts, rows: [{host, cells: [cell]}]}] for the grids."""
    names = [h['name'] for h in report['hosts']]
    tested = set(h['name'] for h in report['hosts'] if h.get('tested'))
    settings = report.get('settings') or {}
    grids = []
    order = {'mtu': 0, 'perf': 1, 'rr': 2}
    kinds = sorted(set((p['check'], p.get('family')) for p in report['pairs']),
                   key=lambda k: (order.get(k[0], 3), k[1] or ''))
    for check, family in kinds:
        index = dict(((p['from'], p['to']), p) for p in report['pairs']
                     if p['check'] == check and p.get('family') == family)
        if check == 'mtu':
            title = 'MTU %s %s, DF set (row: from, column: to)' % (settings.get('mtu'), FAMILY_NAME.get(family, family))
        elif check == 'rr':
            title = ('Latency, request/response round trip p50/p99 in ms, %s s per direction '
                     '(row: client, column: server)' % settings.get('rr_seconds'))
        else:
            title = 'Throughput, Gbit/s received, %s s per direction (row: sender, column: receiver)' % (
                settings.get('perf_seconds'))
        rows = []
        for a in names:
            cells = []
            for b in names:
                p = index.get((a, b))
                if a == b:
                    cells.append({'label': '-', 'cls': 'self', 'title': '', 'from': a, 'to': b, 'asym': False})
                elif p is None:
                    why = 'not tested' if a not in tested or b not in tested else 'no result'
                    cells.append({'label': 'n/t' if why == 'not tested' else '?', 'cls': 'none',
                                  'title': why, 'from': a, 'to': b, 'asym': False})
                else:
                    ok = p['verdict'] in ('PASS', 'ok')
                    cls = 'pass' if ok else 'fail v-%s' % p['verdict'].lower()
                    cells.append({'label': cell_label(p), 'from': a, 'to': b, 'asym': p.get('asymmetric', False),
                                  'cls': cls + (' v-black-hole' if fix_first(p) else ''),
                                  'title': '%s -> %s: %s' % (a, b, pair_details(p)), 'verdict': p['verdict'],
                                  'netstack': netstack_label(p), 'bottleneck': bottleneck(p) or '',
                                  'advice': advice(p), 'percent_of_link': percent_label(p),
                                  'link': link_label(p)})
            rows.append({'host': a, 'cells': cells})
        grids.append({'title': title, 'key': check + ('-' + family if family else ''), 'check': check,
                      'family': family, 'hosts': names, 'rows': rows})
    return grids


def failing(report):
    vmk_of = dict((h['name'], h.get('vmk')) for h in report['hosts'])
    mtu_bad = set((p['from'], p['to']) for p in report['pairs'] if p['check'] == 'mtu' and p['verdict'] != 'PASS')
    out = []
    # the pairs to fix first lead (sorted() keeps the rest in their order)
    for p in sorted(report['pairs'], key=lambda p: not fix_first(p)):
        if p['verdict'] in ('PASS', 'ok'):
            continue
        what = ('MTU %s' % FAMILY_NAME.get(p.get('family'), '') if p['check'] == 'mtu'
                else 'latency' if p['check'] == 'rr' else 'throughput')
        out.append({'from': p['from'], 'to': p['to'], 'check': p['check'], 'family': p.get('family'),
                    'what': what.strip(), 'verdict': p['verdict'], 'asymmetric': p.get('asymmetric'),
                    'details': pair_details(p), 'hint': hint(p, vmk_of, mtu_bad),
                    'configuration': (p.get('configuration') or {}).get('text'),
                    'explained': (p.get('configuration') or {}).get('explained')})
    return out


def suspects(report):
    """Hosts every one of whose MTU pairs fails, both ways: look at them first."""
    out = []
    for h in report['hosts']:
        mine = [p for p in report['pairs'] if p['check'] == 'mtu' and h['name'] in (p['from'], p['to'])]
        if mine and all(p['verdict'] != 'PASS' for p in mine) and report['summary']['hosts_tested'] > 2:
            out.append(h['name'])
    return out


def _same_in_both_families(bad):
    """The text lists a pair once when IPv4 and IPv6 fail with the same words."""
    out, seen = [], {}
    for f in bad:
        key = (f['from'], f['to'], f['check'], f['verdict'], f['details'])
        if f['check'] == 'mtu' and key in seen:
            seen[key]['what'] += ', ' + FAMILY_NAME.get(f['family'], f['family'])
            continue
        f = dict(f)
        seen[key] = f
        out.append(f)
    return out


def _grid_text(grid):
    widths = [max([len('from \\ to')] + [len(r['host']) for r in grid['rows']])]
    for j, name in enumerate(grid['hosts']):
        col = [name] + [r['cells'][j]['label'] + ('*' if r['cells'][j]['asym'] else '') for r in grid['rows']]
        widths.append(max(len(c) for c in col))
    lines = ['  '.join(c.ljust(w) for c, w in zip(['from \\ to'] + grid['hosts'], widths)).rstrip()]
    for r in grid['rows']:
        cells = [c['label'] + ('*' if c['asym'] else '') for c in r['cells']]
        lines.append('  '.join(c.ljust(w) for c, w in zip([r['host']] + cells, widths)).rstrip())
    return lines


def _perf_pairs_text(report):
    """The report.txt table of every throughput pair: its rate, its share of the link and
    the bottleneck esxperf named, in the grid's order; then each bottleneck's advice once."""
    order = dict((h['name'], i) for i, h in enumerate(report['hosts']))
    perf = sorted((p for p in report['pairs'] if p['check'] == 'perf'),
                  key=lambda p: (order.get(p['from'], 0), order.get(p['to'], 0)))
    if not perf:
        return []
    rows = [('from', 'to', 'Gbit/s', '% of link', 'link', 'bottleneck')]
    said = []
    for p in perf:
        rows.append((p['from'], p['to'], cell_label(p), percent_label(p) or '-', link_label(p) or '-',
                     bottleneck(p) or '-'))
        if bottleneck(p) and advice(p) and (bottleneck(p), advice(p)) not in said:
            said.append((bottleneck(p), advice(p)))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ['', "Throughput per pair: % of the slowest uplink (vCenter's, else the link esxperf read), "
                 'the bottleneck esxperf names']
    lines += ['  ' + '  '.join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    if any(p.get('percent_of_link') is None for p in perf):
        lines.append('  % of link -: no link speed to compare with (report.json pairs[].link_speed_note says why)')
    if any(not bottleneck(p) for p in perf):
        lines.append('  bottleneck -: esxperf gave no diagnosis (an esxperf without it, or no result)')
    lines += ['  %s: %s' % (b, a) for b, a in said]
    first = ['%s -> %s' % (p['from'], p['to']) for p in perf if fix_first(p)]
    if first:
        lines.append('  fix first: %s (path-mtu: full-size packets vanish on the way; every other figure of '
                     'such a pair follows from that)' % ', '.join(first))
    return lines


def preflight_line(pf):
    """One line of a host's pre-flight report (prepare.sh --check --json) for people."""
    if not pf:
        return 'no pre-flight report'
    locks = pf.get('locks') or {}
    fw, arch, free = pf.get('firewall') or {}, pf.get('arch') or {}, pf.get('free_space') or {}
    parts = ['locks: runtime %s, boot %s, TPM %s' % tuple(
        (locks.get(k) or {}).get('state', '?') for k in ('runtime', 'boot', 'tpm'))]
    parts.append('firewall %s' % {True: 'on', False: 'off'}.get(fw.get('enabled'), 'unknown'))
    if arch.get('state') == 'unchecked':
        parts.append('architecture not checked')
    else:
        parts.append('kit %s on %s' % (arch.get('kit'), arch.get('host')))
    if free.get('kib') is not None:
        parts.append('%d MiB free' % (free['kib'] // 1024))
    missing = (pf.get('shell') or {}).get('missing', []) + (pf.get('shell') or {}).get('optional_missing', [])
    if missing:
        parts.append('no %s' % ', '.join(missing))
    if pf.get('blocked_by'):
        parts.append('BLOCKED by %s' % ', '.join(pf['blocked_by']))
    return '; '.join(parts)


def _preflight_text(report):
    """The report.txt section of every host's pre-flight line (none if no host has one)."""
    hosts = [h for h in report['hosts'] if h.get('preflight')]
    if not hosts:
        return []
    width = max(len(h['name']) for h in hosts)
    return ['', 'pre-flight (esxi/prepare.sh --check on each host)'] + [
        '  %s  %s' % (h['name'].ljust(width), preflight_line(h['preflight'])) for h in hosts]


def selftest_refused(st):
    """The probes a host's self-test found refused or could not try: (name, result
    text, fallback) each, in the self-test's order."""
    out = []
    for p in (st or {}).get('probes') or []:
        if p.get('result') == 'refused':
            out.append((p.get('name'), 'refused ' + (p.get('errno') or p.get('detail') or ''), p.get('fallback')))
        elif p.get('result') == 'not-tried':
            out.append((p.get('name'), 'not tried: %s' % (p.get('detail') or ''), p.get('fallback')))
    return out


def selftest_line(st):
    """One line of a host's self-test for people: its kernel, the counts, what was refused."""
    if not st:
        return 'no self-test'
    if st.get('error'):
        return st['error']
    s = st.get('summary') or {}
    refused = ['%s %s' % (n, r[len('refused '):]) for n, r, _ in selftest_refused(st) if r.startswith('refused')]
    return '%s %s %s: %s works, %s refused%s, %s not tried' % (
        st.get('system') or '', st.get('kernel') or '?', st.get('arch') or '?', s.get('works', '?'),
        s.get('refused', '?'), ' (%s)' % ', '.join(refused) if refused else '', s.get('not_tried', '?'))


def _selftest_text(report):
    """The report.txt section of every host's self-test line (none if no host ran it)."""
    hosts = [h for h in report['hosts'] if h.get('selftest')]
    if not hosts:
        return []
    width = max(len(h['name']) for h in hosts)
    return ['', 'self-test (esxdiag-selftest on each host: what its kernel refuses the tools)'] + [
        '  %s  %s' % (h['name'].ljust(width), selftest_line(h['selftest'])) for h in hosts]


def _config_text(report):
    """The report.txt section of each host's configured MTUs (none without a configuration)."""
    conf = report.get('configuration')
    if not conf:
        return []
    width = max(len(h['name']) for h in report['hosts'])
    lines = ['', "configuration (%s; %d MTU tested, the cluster's vMotion vmks at %s)" % (
        next((h['mtu_config']['source'] for h in report['hosts'] if h.get('mtu_config')), 'inventory'),
        conf['tested_mtu'], conf['cluster_vmk_mtu'] or '?')]
    for h in report['hosts']:
        lines.append('  %s  %s' % (h['name'].ljust(width), (h.get('mtu_config') or {}).get('text')
                                   or 'not read from vCenter'))
    return lines


def uplink_rows(host):
    """A host's uplinks for people: one row each, and one column per peer host where
    --each-uplink ran: 'PASS 9000', 'BLACK-HOLE 1500'."""
    team = host.get('team') or {}
    peers = sorted(set(p for u in team.get('uplinks') or [] for p in u.get('pairs') or {}))
    rows = []
    for u in team.get('uplinks') or []:
        sw = '%s %s' % (u.get('switch'), u.get('switch_port')) if u.get('switch') else 'no CDP'
        cells = []
        for p in peers:
            r = (u.get('pairs') or {}).get(p)
            cells.append('%s %s' % (r['verdict'], r.get('largest_mtu') or '-') if r else '-')
        rows.append({'name': u.get('name'), 'role': '%s%s' % (u.get('role'), ', now' if u.get('now') else ''),
                     'nic_mtu': u.get('nic_mtu') or '?', 'switch': sw, 'switch_mtu': u.get('switch_mtu') or '?',
                     'cells': cells, 'error': u.get('error')})
    return peers, rows


def _uplinks_text(report):
    lines = []
    for h in report['hosts']:
        team = h.get('team')
        if not team:
            continue
        if not lines:
            lines = ['', 'uplinks of each vmk (esxmtu: read-only; each uplink tested where --each-uplink ran)']
        lines.append('  %s %s: %s, portgroup %s (VLAN %s), MTU %s, load balancing %s, failback %s' % (
            h['name'], team.get('vmk'), team.get('vswitch'), team.get('portgroup'), team.get('vlan'),
            team.get('mtu'), team.get('load_balancing'), team.get('failback')))
        peers, rows = uplink_rows(h)
        for r in rows:
            lines.append('    %-8s %-13s NIC %-5s %-22s port %-5s %s' % (
                r['name'], r['role'], r['nic_mtu'], r['switch'], r['switch_mtu'],
                '  '.join('%s: %s' % (p, c) for p, c in zip(peers, r['cells']))))
            if r['error']:
                lines.append('             not tested: %s' % r['error'])
        for f in team.get('findings') or []:
            lines.append('    finding: %s' % _printable(f))
        if team.get('each_refused'):
            lines.append('    --each-uplink refused: %s' % _printable(team['each_refused']))
        if team.get('cleanup') and not team['cleanup'].get('clean'):
            lines.append('    --each-uplink cleanup FAILED, left: %s' % _printable(team['cleanup'].get('left')))
    return lines


def text_report(report, report_dir=''):
    s, kit = report['summary'], report.get('kit') or {}
    secs = report.get('seconds') or {}
    lines = ['esxdiag fleet: %d hosts (%d tested), kit %s, started %s' % (
        s['hosts'], s['hosts_tested'], kit.get('file', '?'), report.get('started'))]
    timing = ['%s step %.1f s' % (k, secs[k]) for k in ('mtu', 'perf') if secs.get(k) is not None]
    if timing:
        lines.append('  ' + ', '.join(timing).replace('perf step', 'throughput step'))
    if report.get('interrupted'):
        lines.append('  INTERRUPTED: the tests stopped early; cleanup ran on every host that had the kit')
    for grid in matrices(report):
        lines += ['', grid['title']] + _grid_text(grid)
    if any(c['asym'] for g in matrices(report) for r in g['rows'] for c in r['cells']):
        lines.append('* the other direction of this pair gives another verdict (or under 80% of its rate)')
    lines += _perf_pairs_text(report)
    lines += ['', 'hosts']
    width = max(len(h['name']) for h in report['hosts'])
    for h in report['hosts']:
        state = h['state'] + (': ' + h['detail'] if h.get('detail') else '')
        lines.append('  %s  %s' % (h['name'].ljust(width), state))
        part = h.get('part')
        if part:
            lines.append('  %s  OSDATA %s; bootbanks %s; VMFS %s' % (
                ''.ljust(width), ', '.join(part['osdata']) or 'none', ', '.join(part['bootbanks']) or 'none',
                ', '.join(part['vmfs']) or 'none'))
    lines += _uplinks_text(report)
    lines += vds_text_lines(report, _printable)
    lines += _preflight_text(report)
    lines += _selftest_text(report)
    lines += _config_text(report)
    bad = failing(report)
    if bad:
        lines += ['', 'failing pairs (%d of %d directed checks)' % (len(bad), s['pairs'])]
        for f in _same_in_both_families(bad):
            lines.append('  %s -> %s  %s  %s: %s' % (f['from'], f['to'], f['what'], f['verdict'], f['details']))
            lines.append('      look at: %s' % f['hint'])
            if f.get('configuration'):
                lines.append('      configuration: %s' % f['configuration'])
    sus = suspects(report)
    if sus:
        lines += ['', 'every MTU pair with %s fails, in both directions: look at %s first' % (
            ' and with '.join(sus), 'them' if len(sus) > 1 else 'that host')]
    lines += ['', 'summary: %d of %d directed checks failed (MTU %d, throughput %d%s); %d of %d hosts not ok%s%s%s' % (
        s['failed'], s['pairs'], s['mtu_failed'], s['perf_failed'],
        ', latency %d' % s['rr_failed'] if 'rr_failed' in s else '', len(s['hosts_not_ok']), s['hosts'],
        '; %d uplink finding%s' % (s['uplink_findings'], '' if s['uplink_findings'] == 1 else 's')
        if s.get('uplink_findings') else '',
        '; %d vDS health check finding%s' % (s['vds_findings'], '' if s['vds_findings'] == 1 else 's')
        if s.get('vds_findings') else '',
        '; report in %s' % report_dir if report_dir else '')]
    return '\n'.join(lines) + '\n'


class FilterModule(object):
    def filters(self):
        return {'esxdiag_matrices': matrices, 'esxdiag_text': text_report, 'esxdiag_failing': failing,
                'esxdiag_suspects': suspects, 'esxdiag_preflight_line': preflight_line,
                'esxdiag_selftest_line': selftest_line, 'esxdiag_selftest_refused': selftest_refused,
                'esxdiag_uplink_rows': uplink_rows}
