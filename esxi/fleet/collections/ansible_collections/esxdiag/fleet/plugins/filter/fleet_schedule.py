# esxdiag fleet: the throughput schedule, a round-robin tournament by the circle
# method. With N hosts (one empty seat added when N is odd) there are N-1 rounds
# (N when odd); in each round every host meets at most one other, and over all
# rounds every unordered pair meets exactly once. Each round becomes two phases,
# A->B then B->A, on the round's port.

from ansible.errors import AnsibleFilterError


def round_robin(hosts):
    """[{'round': r, 'pairs': [[a, b], ...], 'bye': host or None}], r from 1."""
    seats = list(hosts)
    if len(set(seats)) != len(seats):
        raise AnsibleFilterError('esxdiag_round_robin: duplicate host names in %r' % (seats,))
    if len(seats) % 2:
        seats.append(None)
    n = len(seats)
    rounds = []
    for r in range(n - 1):
        pairs, bye = [], None
        for i in range(n // 2):
            a, b = seats[i], seats[n - 1 - i]
            if a is None or b is None:
                bye = a if b is None else b
                continue
            pairs.append([a, b])
        rounds.append({'round': r + 1, 'pairs': pairs, 'bye': bye})
        # seat 0 stays, the others turn one place
        seats = [seats[0], seats[-1]] + seats[1:-1]
    return rounds


def perf_phases(hosts, port_base=5201, port_per_round=True):
    """Two phases per round: 'forward' (a sends to b) and 'reverse' (b to a).
    Each phase: round, rounds, direction, port, tests [{from, to}], servers,
    clients, peer {client: server}, bye."""
    try:
        port_base = int(port_base)
    except (TypeError, ValueError):
        raise AnsibleFilterError('esxdiag_perf_phases: port base %r is not a number' % (port_base,))
    rounds = round_robin(hosts)
    last = port_base + (len(rounds) - 1 if port_per_round else 0)
    if rounds and not (1 <= port_base and last <= 65535):
        raise AnsibleFilterError('esxdiag_port_base %d: the rounds would use ports %d-%d, outside 1-65535'
                                 % (port_base, port_base, last))
    phases = []
    for rnd in rounds:
        port = port_base + (rnd['round'] - 1 if port_per_round else 0)
        for direction in ('forward', 'reverse'):
            tests = [{'from': a, 'to': b} if direction == 'forward' else {'from': b, 'to': a}
                     for a, b in rnd['pairs']]
            phases.append({
                'round': rnd['round'], 'rounds': len(rounds), 'direction': direction, 'port': port,
                'tests': tests,
                'servers': [t['to'] for t in tests],
                'clients': [t['from'] for t in tests],
                'peer': dict((t['from'], t['to']) for t in tests),
                'bye': rnd['bye'],
            })
    return phases


class FilterModule(object):
    def filters(self):
        return {'esxdiag_round_robin': round_robin, 'esxdiag_perf_phases': perf_phases}
