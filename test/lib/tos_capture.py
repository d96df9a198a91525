#!/usr/bin/env python3
"""Capture the IP TOS / IPv6 traffic-class byte of data packets on one port.

tos_capture.py --port P [--iface lo] [--seconds 20] [--min-len 200] --ready FILE

Opens an AF_PACKET socket on the interface (root), writes FILE once it listens,
and records, for every IPv4 or IPv6 TCP/UDP packet to or from port P whose IP
payload is at least --min-len bytes (data, not handshakes or ACKs), the TOS byte
(IPv4) or traffic class (IPv6). Stops after --seconds or at SIGTERM/SIGINT (then
reads what the kernel had queued, up to 5 s more) and prints one JSON object:
{"to_port": {"ipv4": [tos...], "ipv6": [...]}, "from_port": {...}} with each list
the distinct values seen, sorted, and
"flowlabel": {"to_port": [...], "from_port": [...]}, the distinct IPv6 flow
labels of the same packets. Bounded: it never runs longer than --seconds plus 5 s, and
keeps only the distinct values."""
import argparse
import json
import select
import signal
import socket
import struct
import sys
import time

ETH_P_ALL = 0x0003


def parse(frame, port, min_len):
    """(direction, family, tos, flow label or None) of a data packet on port, or None."""
    if len(frame) < 14:
        return None
    etype = struct.unpack_from("!H", frame, 12)[0]
    ip = frame[14:]
    if etype == 0x0800 and len(ip) >= 20:
        ihl = (ip[0] & 0x0F) * 4
        total = struct.unpack_from("!H", ip, 2)[0]
        proto, tos, family, label = ip[9], ip[1], "ipv4", None
        l4, payload = ip[ihl:], total - ihl
    elif etype == 0x86DD and len(ip) >= 40:
        proto, family = ip[6], "ipv6"
        tos = ((ip[0] & 0x0F) << 4) | (ip[1] >> 4)
        label = struct.unpack_from("!I", ip, 0)[0] & 0xFFFFF
        l4, payload = ip[40:], struct.unpack_from("!H", ip, 4)[0]
    else:
        return None
    if proto not in (6, 17) or len(l4) < 4 or payload < min_len:
        return None
    sport, dport = struct.unpack_from("!HH", l4, 0)
    if dport == port:
        return "to_port", family, tos, label
    if sport == port:
        return "from_port", family, tos, label
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--iface", default="lo")
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--min-len", type=int, default=200)
    ap.add_argument("--ready", required=True)
    a = ap.parse_args()
    seen = {d: {"ipv4": set(), "ipv6": set()} for d in ("to_port", "from_port")}
    labels = {"to_port": set(), "from_port": set()}
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    signal.signal(signal.SIGINT, lambda *_: stop.append(1))
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    # room for a burst of a fast TCP test while this loop lags behind on a loaded
    # machine: a full buffer drops the frames of the next test
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
    s.bind((a.iface, 0))
    with open(a.ready, "w") as f:
        f.write("listening\n")
    end = time.monotonic() + a.seconds
    def take(frame):
        hit = parse(frame, a.port, a.min_len)
        if hit:
            seen[hit[0]][hit[1]].add(hit[2])
            if hit[3] is not None:
                labels[hit[0]].add(hit[3])

    while not stop and time.monotonic() < end:
        try:
            r, _, _ = select.select([s], [], [], 0.1)
        except InterruptedError:
            continue
        if r:
            take(s.recv(65600))
    # stopped: what the kernel queued before the stop is still read (the last test's
    # packets may wait behind others when this loop lags), bounded to 5 s
    s.setblocking(False)
    drain_end = time.monotonic() + 5.0
    while time.monotonic() < drain_end:
        try:
            take(s.recv(65600))
        except (BlockingIOError, InterruptedError):
            break
    out = {d: {f: sorted(v) for f, v in fams.items()} for d, fams in seen.items()}
    out["flowlabel"] = {d: sorted(v) for d, v in labels.items()}
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
