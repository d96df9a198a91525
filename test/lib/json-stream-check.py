#!/usr/bin/env python3
"""Compare esxperf's --json-stream output with iperf3's, figures masked.

usage: json-stream-check.py IPERF3.jsonl ESXPERF.jsonl

Both files: every non-empty line must be one JSON object {"event": NAME, "data": ...}
(iperf3 3.17+'s newline-delimited form). The event sequences must match, with a run
of "interval" events counted as one (the number of intervals is timing). For each
event name, every key path iperf3 writes in its data (lists: the union over their
elements) must be in esxperf's too, except the -J keys listed in GAPS below (keys of
3.22's -J that esxperf does not write yet; esxperf may have them: they are allowed
to be missing, not required to be). Exit 0 when they match, else 1 with what differs.
"""
import json
import sys

# iperf3 3.22 -J keys esxperf's -J lacks (a key added to esxperf's -J comes out of
# this table)
GAPS = {
    "start": {"fq_rate"},
    "interval": {"sum.reorder"},
    "end": {"streams[].receiver.reorder", "sum_sent.reorder", "sum.reorder",
            # 3.22's -R client writes the remote sender's TCP figures as zeros
            # (esxperf leaves them out where it has none)
            "streams[].sender.reorder", "streams[].sender.max_snd_wnd",
            "streams[].sender.max_snd_cwnd", "streams[].sender.max_rtt",
            "streams[].sender.min_rtt", "streams[].sender.mean_rtt",
            "sum_sent.retransmits"},
}


def load(path):
    events = []
    for n, line in enumerate(open(path, encoding="utf-8"), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except ValueError as e:
            raise SystemExit("%s line %d is not JSON (%s): %.120s" % (path, n, e, line))
        if not isinstance(obj, dict) or set(obj) != {"event", "data"}:
            raise SystemExit("%s line %d is not {event, data}: %.120s" % (path, n, line))
        events.append(obj)
    return events


def paths(value, prefix=""):
    out = set()
    if isinstance(value, dict):
        for k, v in value.items():
            out.add(prefix + k)
            out |= paths(v, prefix + k + ".")
    elif isinstance(value, list):
        for v in value:
            out |= paths(v, prefix[:-1] + "[]." if prefix else "[].")
    return out


def sequence(events):
    seq = []
    for e in events:
        if not (seq and seq[-1] == "interval" and e["event"] == "interval"):
            seq.append(e["event"])
    return seq


def main():
    ref, ours = load(sys.argv[1]), load(sys.argv[2])
    bad = []
    if sequence(ref) != sequence(ours):
        bad.append("events: iperf3 %s, esxperf %s" % (sequence(ref), sequence(ours)))
    for name in sorted({e["event"] for e in ref}):
        want, have = set(), set()
        for e in ref:
            if e["event"] == name:
                want |= paths(e["data"])
        for e in ours:
            if e["event"] == name:
                have |= paths(e["data"])
        missing = sorted(want - have - GAPS.get(name, set()))
        if missing:
            bad.append("%s: esxperf lacks %s" % (name, ", ".join(missing)))
        kinds = {type(e["data"]).__name__ for e in ref if e["event"] == name}
        ours_kinds = {type(e["data"]).__name__ for e in ours if e["event"] == name}
        if ours_kinds and kinds != ours_kinds:
            bad.append("%s: data is %s in iperf3, %s in esxperf" % (name, kinds, ours_kinds))
    for line in bad:
        print(line, file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
