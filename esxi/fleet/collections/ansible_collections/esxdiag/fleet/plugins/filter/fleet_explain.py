# esxdiag fleet: configuration against measurement. From report.json's content
# (fleet_pairs.py) and each host's MTU configuration as the inventory gave it
# (hosts[].config, from vCenter: plugins/inventory/vcenter.py), one sentence
# per failing pair: the setting to fix when the configuration explains the verdict,
# or that the configuration is consistent and the cause lies outside the hosts.
# Pure functions of the report; no Ansible needed to run them (test/unit has tests).
#
# Which settings can explain which verdict, for a probe from A to B (the echo
# request goes A -> B at the full size, its reply B -> A at the same size):
#   LOCAL-MTU   A refused the send itself: A's vmk MTU under the size tested
#   BLACK-HOLE  the frames vanished on the way: A's switch under A's vmk (the vmk
#               sends, the switch drops), or B's vmk or B's switch under the size
#               (B cannot take the request in, nor send the reply back)
#   TOO-BIG     a router said so: never a host setting; the router is named
# Any other verdict (NO-REPLY, UNREACHABLE, ...) is not about the MTU: no sentence.

SWITCH_WORD = {'standard': 'vSwitch', 'distributed': 'distributed switch'}


def _int(value):
    """An MTU as a number (Ansible may hand numbers back as text), or None."""
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def settings_of(name, cfg):
    """The settings of a host that bear on MTU: its vMotion vmk and that vmk's switch,
    each {host, kind (vmk, standard, distributed), name, mtu}; [] without a config."""
    if not cfg:
        return []
    out = [{'host': name, 'kind': 'vmk', 'name': cfg.get('vmk') or 'vmk', 'mtu': _int(cfg.get('vmk_mtu'))}]
    sw = cfg.get('switch') or {}
    if sw.get('name') or sw.get('mtu') is not None:
        out.append({'host': name, 'kind': sw.get('type') or 'standard', 'name': sw.get('name') or '?',
                    'mtu': _int(sw.get('mtu'))})
    return out


def cluster_vmk_mtu(configs):
    """The vMotion vmk MTU most hosts have (a tie goes to the larger), or None."""
    count = {}
    for cfg in configs:
        mtu = _int((cfg or {}).get('vmk_mtu'))
        if mtu:
            count[mtu] = count.get(mtu, 0) + 1
    if not count:
        return None
    return max(count, key=lambda m: (count[m], m))


def _vmk_sentence(s, tested, cluster):
    if cluster and cluster >= tested and s['mtu'] < cluster:
        return "%s %s MTU %d while the cluster's vMotion vmks are %d" % (s['host'], s['name'], s['mtu'], cluster)
    return '%s %s MTU %d, under the %d tested' % (s['host'], s['name'], s['mtu'], tested)


def _switch_sentence(s, vmk_mtu, tested):
    if s['kind'] == 'distributed':
        where = 'distributed switch %s at %d (on %s)' % (s['name'], s['mtu'], s['host'])
    else:
        where = '%s on %s at %d' % (s['name'], s['host'], s['mtu'])
    if vmk_mtu and s['mtu'] < vmk_mtu:
        return '%s under a vmk at %d' % (where, vmk_mtu)
    return '%s, under the %d tested' % (where, tested)


def _low_settings(settings, tested):
    """(vmk, switch, vmk MTU) of one host: the vmk and the switch when under the size tested."""
    vmk = next((s for s in settings if s['kind'] == 'vmk'), None)
    sw = next((s for s in settings if s['kind'] != 'vmk'), None)
    vmk_low = vmk if vmk and vmk['mtu'] is not None and vmk['mtu'] < tested else None
    sw_low = sw if sw and sw['mtu'] is not None and sw['mtu'] < tested else None
    return vmk_low, sw_low, vmk['mtu'] if vmk else None


def _causes(verdict, sa, sb, tested, cluster):
    """[(setting, sentence)] that explain this verdict from A to B."""
    a_vmk, a_sw, a_vmk_mtu = _low_settings(sa, tested)
    b_vmk, b_sw, b_vmk_mtu = _low_settings(sb, tested)
    out = []
    if verdict == 'LOCAL-MTU' and a_vmk:
        out.append((a_vmk, _vmk_sentence(a_vmk, tested, cluster)))
    elif verdict == 'BLACK-HOLE':
        if a_sw:
            out.append((a_sw, _switch_sentence(a_sw, a_vmk_mtu, tested)))
        if b_vmk:
            out.append((b_vmk, _vmk_sentence(b_vmk, tested, cluster)))
        if b_sw and not (a_sw and a_sw['kind'] == b_sw['kind'] == 'distributed' and a_sw['name'] == b_sw['name']):
            out.append((b_sw, _switch_sentence(b_sw, b_vmk_mtu, tested)))
    return out


def _consistent(sa, sb, tested):
    """'(9000 everywhere)' when every setting of both hosts is one MTU, else
    '(at least 9000 everywhere)'; None when a setting is under the size tested."""
    mtus = [s['mtu'] for s in sa + sb if s['mtu'] is not None]
    if any(m < tested for m in mtus):
        return None
    if len(set(mtus)) == 1:
        return '(%d everywhere)' % mtus[0]
    return '(at least %d everywhere)' % tested


def _uplinks(name_a, cfg_a, name_b, cfg_b):
    parts = []
    for name, cfg in ((name_a, cfg_a), (name_b, cfg_b)):
        devs = [u.get('device') for u in (cfg or {}).get('uplinks') or [] if u.get('device')]
        if devs:
            parts.append("%s's %s" % (name, ', '.join(devs)))
    return ' (the physical switch ports of %s)' % ' and '.join(parts) if parts else ''


def _found_mtu(pair):
    ev = pair.get('evidence') or {}
    return _int(ev.get('discovered_mtu')) or _int(ev.get('largest_passed'))


def _unexplained(pair, sa, sb, cfg_a, cfg_b, tested):
    """The sentence when no host setting explains the verdict."""
    a, b, v = pair['from'], pair['to'], pair['verdict']
    same = _consistent(sa, sb, tested)
    ev = pair.get('evidence') or {}
    if v == 'TOO-BIG':
        nh = _int(ev.get('next_hop_mtu')) or _found_mtu(pair)
        lead = 'the router %s between them forwards at most %s' % (ev.get('router') or '?', nh or '?')
        return lead + (': not a host setting; the configuration is consistent %s' % same if same else
                       ': not a host setting')
    if v == 'LOCAL-MTU':
        return ("the configuration gives %s's %s MTU %s, yet %s refused %d-byte sends: the host runs with "
                "another MTU than vCenter shows (esxcli network ip interface list on %s)" % (
                    a, (sa[0]['name'] if sa else 'vmk'), sa[0]['mtu'] if sa else '?', a, tested, a))
    found = _found_mtu(pair)
    drop = 'drops frames over %d' % found if found and found < tested else 'drops %d-byte frames' % tested
    if same:
        return 'the configuration is consistent %s: the physical network %s%s' % (
            same, drop, _uplinks(a, cfg_a, b, cfg_b))
    return 'no setting of %s or %s explains it: the physical network %s%s' % (a, b, drop, _uplinks(a, cfg_a, b, cfg_b))


def explain_mtu_pair(pair, cfg_a, cfg_b, tested, cluster=None):
    """{explained, text, settings} for one failing MTU pair from A (cfg_a) to B
    (cfg_b), or None when its verdict is not about the MTU or a host has no config."""
    if pair.get('check') != 'mtu' or pair.get('verdict') not in ('LOCAL-MTU', 'BLACK-HOLE', 'TOO-BIG'):
        return None
    if not cfg_a or not cfg_b:
        missing = ' and '.join(n for n, c in ((pair['from'], cfg_a), (pair['to'], cfg_b)) if not c)
        return {'explained': False, 'settings': [],
                'text': 'no configuration of %s (not read from vCenter): nothing to compare' % missing}
    sa, sb = settings_of(pair['from'], cfg_a), settings_of(pair['to'], cfg_b)
    causes = _causes(pair['verdict'], sa, sb, tested, cluster)
    if causes:
        return {'explained': True, 'settings': [dict(s, tested=tested) for s, _ in causes],
                'text': '%s: %s explained' % ('; '.join(t for _, t in causes), pair['verdict'])}
    return {'explained': False, 'settings': [], 'text': _unexplained(pair, sa, sb, cfg_a, cfg_b, tested)}


def host_summary(name, cfg, tested, cluster=None):
    """One host's configured MTUs: {vmk, vmk_mtu, netstack, switch, switch_type,
    switch_mtu, uplinks, source, below: [a sentence per setting under the size tested],
    text: all of it in one line for people}."""
    if not cfg:
        return None
    sw = cfg.get('switch') or {}
    vmk_low, sw_low, vmk_mtu = _low_settings(settings_of(name, cfg), tested)
    below = []
    if vmk_low:
        below.append(_vmk_sentence(vmk_low, tested, cluster))
    if sw_low:
        below.append(_switch_sentence(sw_low, vmk_mtu, tested))
    out = {'vmk': cfg.get('vmk'), 'vmk_mtu': vmk_mtu, 'netstack': cfg.get('netstack'),
           'switch': sw.get('name'), 'switch_type': sw.get('type'), 'switch_mtu': _int(sw.get('mtu')),
           'uplinks': [u.get('device') for u in cfg.get('uplinks') or [] if u.get('device')],
           'source': cfg.get('source'), 'below': below}
    out['text'] = host_line(out)
    return out


def host_line(c):
    """A host's configuration for people: 'vmk1 9000 (vmotion netstack), vSwitch1 9000, uplinks vmnic1'."""
    if not c:
        return 'not read from vCenter'
    word = SWITCH_WORD.get(c.get('switch_type'), 'switch')
    sw = c.get('switch') or '?'
    sw = sw if word == 'vSwitch' and sw.startswith('vSwitch') else '%s %s' % (word, sw)
    line = '%s %s (%s netstack), %s %s, uplinks %s' % (
        c.get('vmk'), c.get('vmk_mtu'), c.get('netstack') or 'default', sw, c.get('switch_mtu'),
        ', '.join(c.get('uplinks') or []) or 'none')
    return line + ('; ' + '; '.join(c['below']) if c.get('below') else '')


def _perf_configuration(pair, mtu_expl):
    """A failing throughput pair whose MTU pair (same direction) failed: the same sentence."""
    for fam in ('ipv4', 'ipv6'):
        e = mtu_expl.get((pair['from'], pair['to'], fam))
        if e:
            return dict(e, text='its MTU pair: ' + e['text'])
    return None


def explain(report):
    """The report with `configuration` (tested MTU, the cluster's vMotion vmk MTU, each
    configured host's MTUs) and, on every failing pair, `configuration` (its sentence).
    Unchanged but for configuration: null when no host has a configuration."""
    out = dict(report)
    cfgs = dict((h['name'], h.get('config')) for h in report.get('hosts') or [])
    if not any(cfgs.values()):
        out['configuration'] = None
        return out
    tested = _int((report.get('settings') or {}).get('mtu')) or 9000
    cluster = cluster_vmk_mtu(c for c in cfgs.values() if c)
    hosts, pairs, mtu_expl = [], [], {}
    for h in report.get('hosts') or []:
        hosts.append(dict(h, mtu_config=host_summary(h['name'], h.get('config'), tested, cluster)))
    for p in report.get('pairs') or []:
        p = dict(p)
        if p.get('check') == 'mtu' and p.get('verdict') != 'PASS':
            p['configuration'] = explain_mtu_pair(p, cfgs.get(p['from']), cfgs.get(p['to']), tested, cluster)
            if p['configuration']:
                mtu_expl[(p['from'], p['to'], p.get('family'))] = p['configuration']
        pairs.append(p)
    for p in pairs:
        if p.get('check') == 'perf' and p.get('verdict') != 'ok':
            p['configuration'] = _perf_configuration(p, mtu_expl)
    out.update(hosts=hosts, pairs=pairs, configuration={
        'tested_mtu': tested, 'cluster_vmk_mtu': cluster,
        'hosts_configured': len([c for c in cfgs.values() if c]),
        'explained': len([p for p in pairs if (p.get('configuration') or {}).get('explained')]),
        'unexplained': len([p for p in pairs if p.get('configuration') and not p['configuration']['explained']]),
    })
    return out


class FilterModule(object):
    def filters(self):
        return {'esxdiag_explain': explain}
