# esxdiag fleet: the vDS VLAN/MTU health check in the report. Each host's results per
# vmnic come from the vCenter inventory (esxdiag_config.vds_health: read-only, as the
# check stood) or, with esxdiag_vds_healthcheck_enable, from the run that turned the
# check on for the play and restored it after (plugins/modules/vds_healthcheck.py);
# both are shaped by module_utils/vds_health.py. This filter puts them in report.json
# (hosts[].vds_health, vds_health, summary.vds_findings); fleet_matrix.py writes the
# text and templates/report.html.j2 the table. Pure functions of the report.


def _checks(live):
    """The module's result, or None when the check was not turned on for the run."""
    return live if isinstance(live, dict) and live.get('hosts') is not None else None


def with_vds_health(report, live=None):
    """The report with each host's vds_health (a list, one entry per distributed
    switch; None for a host on none or not read from vCenter) and the section
    vds_health {read, switches: [{dvs, before, during, after}], findings, unknown}."""
    run = _checks(live)
    out = dict(report)
    hosts, findings, unknown = [], 0, []
    for h in report.get('hosts') or []:
        h = dict(h)
        entries = None
        if run is not None and h['name'] in run['hosts']:
            entries = run['hosts'][h['name']]
        elif h.get('config'):
            entries = h['config'].get('vds_health')
        h['vds_health'] = entries or None
        for e in entries or []:
            findings += len(e.get('findings') or [])
            if e.get('note'):
                unknown.append('%s: %s' % (h['name'], e['note']))
        hosts.append(h)
    out['hosts'] = hosts
    if not any(h['vds_health'] for h in hosts):
        out['vds_health'] = None
        return out
    read = 'read-only (vCenter inventory)'
    if run is not None:
        read = 'enabled for this run, then restored' if any(s.get('before') == 'off' for s in run.get(
            'switches') or []) else 'on already (left on), read for this run'
    elif isinstance(live, dict) and live.get('msg') and not live.get('skipped'):
        read = 'read-only (vCenter inventory): turning it on failed: %s' % live['msg']
    out['vds_health'] = {
        'read': read,
        'switches': (run or {}).get('switches') or [], 'findings': findings, 'unknown': unknown,
        'complete': (run or {}).get('complete'), 'waited': (run or {}).get('waited')}
    out['summary'] = dict(report.get('summary') or {}, vds_findings=findings)
    return out


def vds_rows(entry):
    """One switch's vmnics for people: {vmnic, port, mtu, vlan, class}."""
    rows = []
    for u in entry.get('uplinks') or []:
        mtu = {'passed': 'passes %s' % entry.get('mtu'), 'not-passed': 'does not pass %s' % entry.get('mtu'),
               'nic-mtu-differs': 'NIC MTU differs (not probed)'}.get(u.get('mtu'), 'unknown')
        vlan = {'trunked': 'trunked', 'untrunked': 'untrunked'}.get(u.get('vlan'), 'unknown')
        bad = u.get('mtu') in ('not-passed', 'nic-mtu-differs') or u.get('vlan') == 'untrunked'
        rows.append({'vmnic': u.get('vmnic'), 'port': u.get('port'), 'mtu': mtu, 'vlan': vlan,
                     'class': 'fail' if bad else ('unknown' if 'unknown' in (mtu, vlan) else 'pass')})
    return rows


def text_lines(report, printable=str):
    """The report.txt section: per host and switch, each vmnic's results, the
    findings, and what is unknown and why."""
    sec = report.get('vds_health')
    if not sec:
        return []
    lines = ['', 'vDS health check, VLAN/MTU: %s' % sec['read']]
    for s in sec.get('switches') or []:
        lines.append('  %s: before %s, during %s, after %s' % (s.get('dvs'), s.get('before'), s.get('during'),
                                                             s.get('after')))
    for h in report.get('hosts') or []:
        for e in h.get('vds_health') or []:
            lines.append('  %s %s (MTU %s): check %s' % (h['name'], printable(e.get('dvs')), e.get('mtu'),
                                                          e.get('check')))
            for r in vds_rows(e):
                lines.append('    %-8s port %-6s switch MTU: %-28s VLAN: %s' % (
                    printable(r['vmnic']), printable(r['port']), r['mtu'], r['vlan']))
            for f in e.get('findings') or []:
                lines.append('    finding: %s' % printable(f))
            if e.get('note'):
                lines.append('    %s' % printable(e['note']))
    return lines


class FilterModule(object):
    def filters(self):
        return {'esxdiag_vds_health': with_vds_health, 'esxdiag_vds_rows': vds_rows}
