#!/usr/bin/env python3
"""Check one iperf3-protocol test from both ends' -J output: what the protocol promises.

usage: iperf3-json-check.py CLIENT.json SERVER.json [--sender-cancels fwd|rev ...]
                            [--sent-at-least N [--sent-exact]] [--expect PYEXPR ...]
       iperf3-json-check.py --case LABEL CLIENT.json SERVER.json [options] --case ...
(several tests in one run, each failure line prefixed with its LABEL)

Each side's JSON holds its own counts; the client's also holds the server's counts as
the server sent them at EXCHANGE_RESULTS (an iperf3 server's JSON leaves the client's
side at 0). Per direction (forward = client sends; reverse = -R, or --bidir's second
half, keys *_bidir_reverse):
  TCP  the receiver got no more than the sender counted (plus one block per stream in
       a direction named by --sender-cancels: iperf3 3.16+ ends its sender threads
       with pthread_cancel, which can land inside a send() that already moved bytes,
       so against a receiver that reads to the end it may count up to one block per
       stream less than it sent); when the server received, the count the client
       shows for it is the one the server itself reports.
  UDP  the same for datagrams: the receiver's packet count (highest sequence seen,
       lost ones included) is at most what the sender sent, lost <= packets, and
       when the server received, both sides show the same packets and lost.
  -O   with an omit period "received <= sent" is not promised: each side leaves out
       its own first seconds by its own clock (iperf3 against itself shows received
       > sent by megabytes), so only the equality of the server's count is checked.
  -n/-k  --sent-at-least N: the sender sent at least N bytes; --sent-exact: and at
       most N plus a block per stream (a client that stops at the count; an iperf3
       server under -R keeps sending until TEST_END, and iperf3 3.18+ UDP clients
       until the end of the interval, so those are not exact).
Both sides agree on the test's parameters (start.test_start keys both have), and
every --expect expression (Python, over c and s, the two documents, and e and i, the
esxperf and the iperf3 one when the test is between them) is true.
esxperf writes start.test_start as the iperf3 peer does: every key the peer writes
(3.22: ... fqrate, interval, gso, gro), with the same JSON type and in the same order.
Exit 0 when all hold, 1 with one line per broken promise.
"""
import argparse
import json
import sys

TEST_START_KEYS = ("protocol", "num_streams", "blksize", "omit", "duration", "bytes",
                   "blocks", "reverse", "tos", "bidir")


class Broken(Exception):
    """a document that cannot be checked at all"""


def load(path, who):
    try:
        with open(path) as f:
            text = f.read()
    except OSError as e:
        raise Broken(f"{who} JSON: cannot read {path}: {e.strerror}") from None
    # a server without -1 appends one document per test: take the last one
    dec, docs, i = json.JSONDecoder(), [], 0
    while i < len(text):
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text):
            break
        try:
            d, i = dec.raw_decode(text, i)
        except json.JSONDecodeError as e:
            raise Broken(f"{who} JSON: not JSON at offset {i} ({e.msg}): {text[i:i + 80]!r}") from None
        docs.append(d)
    if not docs:
        raise Broken(f"{who} JSON: empty ({path})")
    if "error" in docs[-1]:
        raise Broken(f"{who} JSON reports an error: {docs[-1]['error']}")
    return docs[-1]


def num(doc, who, *path):
    v = doc
    for p in path:
        if not isinstance(v, dict) or p not in v:
            raise KeyError(f"{who} JSON lacks {'.'.join(path)}")
        v = v[p]
    return v


def jtype(v):
    """a JSON value's type as a consumer sees it (an integral number is a number)"""
    if isinstance(v, bool):
        return "bool"
    return "number" if isinstance(v, (int, float)) else type(v).__name__


def pair(c, s):
    """(esxperf document, iperf3 document), or (None, None) when not one of each"""
    ver = [d.get("start", {}).get("version", "") for d in (c, s)]
    if ver[0].startswith("esxperf") and ver[1].startswith("iperf "):
        return c, s
    if ver[1].startswith("esxperf") and ver[0].startswith("iperf "):
        return s, c
    return None, None


def same_shape(c, s):
    """esxperf's start.test_start has the iperf3 peer's keys, types and order"""
    e, i = pair(c, s)
    if e is None:
        return []
    ets, its = e["start"].get("test_start", {}), i["start"].get("test_start", {})
    who = f"test_start beside {i['start']['version']}'s"
    bad = [f"{who}: esxperf lacks {k!r}" for k in its if k not in ets]
    bad += [f"{who}: {k!r} is a {jtype(ets[k])} ({ets[k]!r}), iperf3's a {jtype(its[k])} "
            f"({its[k]!r})" for k in its if k in ets and jtype(ets[k]) != jtype(its[k])]
    order = [k for k in ets if k in its]
    if not bad and order != list(its):
        bad.append(f"{who}: keys in the order {order}, iperf3's {list(its)}")
    return bad


def check(c, s, args):
    bad = same_shape(c, s)
    ts = c["start"]["test_start"]
    udp = ts.get("protocol") == "UDP"
    streams = ts.get("num_streams", 1)
    blk = ts.get("blksize", 0)
    slack = {d: streams * blk if d in args.sender_cancels else 0 for d in ("fwd", "rev")}
    if ts.get("bidir"):
        dirs = [("forward", "", slack["fwd"]), ("reverse", "_bidir_reverse", slack["rev"])]
    elif ts.get("reverse"):
        dirs = [("reverse", "", slack["rev"])]
    else:
        dirs = [("forward", "", slack["fwd"])]
    for name, sfx, slack in dirs:
        sent_k, recv_k = "sum_sent" + sfx, "sum_received" + sfx
        field = "packets" if udp else "bytes"
        if name == "forward":   # client sends; the server's own count is its received
            sent = num(c, "client", "end", sent_k, field)
            recv_own = num(s, "server", "end", recv_k, field)
            recv_shown = num(c, "client", "end", recv_k, field)
            if recv_shown != recv_own:
                bad.append(f"{name}: the client shows the server received {recv_shown} {field}, "
                           f"the server reports {recv_own}")
        else:                   # server sends; the client's own count is its received
            sent = num(s, "server", "end", sent_k, field)
            recv_own = num(c, "client", "end", recv_k, field)
            shown = num(c, "client", "end", sent_k, field)
            if shown + (slack if not udp else 0) < recv_own:
                bad.append(f"{name}: the client shows the server sent {shown} {field}, "
                           f"but received {recv_own}")
        if sent <= 0:
            bad.append(f"{name}: the sender counted {sent} {field}")
        lim = sent + (slack if not udp else 0)
        if recv_own > lim and not ts.get("omit"):
            bad.append(f"{name}: received {recv_own} {field} > sent {sent}"
                       + (f" + slack {slack}" if slack and not udp else ""))
        if udp:
            for who, doc in (("receiver", s if name == "forward" else c),):
                lost = num(doc, who, "end", recv_k, "lost_packets")
                pk = num(doc, who, "end", recv_k, "packets")
                if not 0 <= lost <= pk:
                    bad.append(f"{name}: {who} lost {lost} of {pk} packets")
            if name == "forward":
                for k in ("lost_packets",):
                    a = num(c, "client", "end", recv_k, k)
                    b = num(s, "server", "end", recv_k, k)
                    if a != b:
                        bad.append(f"{name}: {k}: client shows {a}, server reports {b}")
        if args.sent_at_least is not None:
            sent_bytes = num(c if name == "forward" else s, "sender", "end", sent_k, "bytes")
            hi = args.sent_at_least + streams * blk if args.sent_exact else float("inf")
            if not args.sent_at_least <= sent_bytes <= hi:
                bad.append(f"{name}: sent {sent_bytes} bytes, asked for {args.sent_at_least}"
                           + (f" (at most {hi} with {streams} x {blk}-byte blocks)"
                              if args.sent_exact else ""))
    sts = s.get("start", {}).get("test_start", {})
    for k in TEST_START_KEYS:
        if k in ts and k in sts and ts[k] != sts[k]:
            bad.append(f"test_start.{k}: client {ts[k]!r}, server {sts[k]!r}")
    for e in args.expect:
        try:
            esx, ipf = pair(c, s)
            ok = eval(e, {}, {"c": c, "s": s, "e": esx, "i": ipf})  # noqa: S307 (suite's own)
        except Exception as x:  # noqa: BLE001
            ok = False
            e = f"{e} ({type(x).__name__}: {x})"
        if not ok:
            bad.append(f"expected: {e}")
    return bad


def one(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("client")
    ap.add_argument("server")
    ap.add_argument("--sender-cancels", action="append", default=[], choices=("fwd", "rev"))
    ap.add_argument("--sent-at-least", type=int)
    ap.add_argument("--sent-exact", action="store_true")
    ap.add_argument("--expect", action="append", default=[])
    args = ap.parse_args(argv)
    try:
        return check(load(args.client, "client"), load(args.server, "server"), args)
    except Broken as e:
        return [e.args[0]]
    except KeyError as e:
        return [e.args[0]]


def main():
    argv, cases = sys.argv[1:], []
    if argv[:1] != ["--case"]:
        cases.append(("", argv))
    else:
        while argv:
            if len(argv) < 2 or argv[0] != "--case":
                sys.exit("iperf3-json-check: --case LABEL CLIENT SERVER [options]")
            label, argv = argv[1], argv[2:]
            end = argv.index("--case") if "--case" in argv else len(argv)
            cases.append((label + ": ", argv[:end]))
            argv = argv[end:]
    failed = 0
    for label, a in cases:
        bad = one(a)
        failed += bool(bad)
        for b in bad:
            print(label + b)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
