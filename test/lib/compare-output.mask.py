#!/usr/bin/env python3
"""Masks the run-dependent figures of esxperf output, for compare-output.sh.

usage: compare-output.mask.py PORT < output > masked

What a run cannot repeat is replaced: in text report lines (interval, summary and
sweep rows, CPU and efficiency lines, "connected" lines) every number except the
[ID] column, the unit prefixes (the unit follows the value) and runs of spaces; the
RTT in the engine lines ("smallest RTT 3 us"); in JSON, the values of the keys in MASKED (rates, bytes, times, CPU, ports, cookie,
timestamps, retransmits, cwnd, rtt). The server port the script chose reads PORT.
Everything else (the words, the key order, the layout of the JSON, error lines
and their codes) is kept as it came.
"""
import json
import re
import sys

MASKED = {
    "start", "end", "seconds", "bytes", "bits_per_second", "jitter_ms", "lost_packets",
    "packets", "lost_percent", "out_of_order", "retransmits", "snd_cwnd", "rtt", "rttvar",
    "pmtu", "max_snd_cwnd", "max_rtt", "min_rtt", "mean_rtt", "host_total", "host_user",
    "host_system", "remote_total", "remote_user", "remote_system", "cpu_seconds_local",
    "cpu_seconds_remote", "gbit_per_cpu_second_local", "gbit_per_cpu_second_remote",
    "io_calls_per_second", "gbit_per_second", "client_cpu_percent", "server_cpu_percent",
    "gbit_per_cpu_second", "cookie", "time", "timesecs", "version", "local_port",
    "remote_port", "port", "snd_wnd", "max_snd_wnd", "reorder",
    "timemillisecs", "bottleneck", "because", "value", "advice", "link_speed_mbps",
    "percent_of_link", "note",
}
ID = re.compile(r"(\[ *\d+\])")
NUM = re.compile(r"\d+(?:\.\d+)?(?:e[+-]?\d+)?")
UNIT = re.compile(r"\b[KMGT]?(Bytes|bits)\b")
REPORT = re.compile(
    r"\bsec\b|CPU Utilization|Efficiency:|connected to .* port|Accepted connection from"
    r"|datagrams received out-of-order|^\s*\d+\s+(default|\d+[KM]?)\s+[\d.]+|^\d+,\d+,")
# a --csv data row of a sweep: the run's parameters (streams, window), then figures
CSV_ROW = re.compile(r"^\d+,[0-9.KMG]*(,[0-9.]*)+$")
JSON_LINE = re.compile(r'^(\s*"([A-Za-z_]+)":\s*)(.*?)(,?)$')


def mask_report(line):
    parts = ID.split(line)
    out = []
    for p in parts:
        if ID.fullmatch(p):
            out.append(p)
        else:
            p = NUM.sub("#", UNIT.sub(r"X\1", p))
            out.append(re.sub(r" {2,}", " ", p))
    return "".join(out)


def mask_text(line, port):
    if port:
        line = re.sub(r"\b%s\b" % re.escape(port), "PORT", line)
    line = re.sub(r"commit [0-9a-f]+(-dirty)?", "commit C", line)
    # -V's and the JSON "engine" lines name the RTT the send buffer was sized from
    line = re.sub(r"smallest RTT \d+ us", "smallest RTT # us", line)
    if CSV_ROW.match(line):
        f = line.split(",")
        return ",".join(f[:2] + ["#" if x else "" for x in f[2:]])
    # the verdict depends on the machine's load at the time: its line is one mask
    if line.lstrip().startswith("bottleneck:"):
        return "bottleneck: #"
    if REPORT.search(line):
        return mask_report(line)
    return line


def mask_json_line(line, port):
    m = JSON_LINE.match(line)
    if not m:
        return mask_text(line, port)
    head, key, val, comma = m.groups()
    if key in MASKED and not val.startswith(("{", "[")):
        return head + "#" + comma
    if key in ("server_output_text", "error") and val.startswith('"'):
        text = json.loads(val)
        text = "\n".join(mask_text(l, port) for l in text.split("\n"))
        return head + json.dumps(text) + comma
    return mask_text(line, port)


def main():
    port = sys.argv[1] if len(sys.argv) > 1 else ""
    for raw in sys.stdin.read().split("\n"):
        sys.stdout.write(mask_json_line(raw, port) + "\n")


if __name__ == "__main__":
    main()
