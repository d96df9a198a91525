#!/usr/bin/env python3
"""capture_results.py: record what a real iperf3 server writes on the control
connection at the end of a test, as seeds for test/fuzz/esxperf_results_fuzz.c.

usage: capture_results.py [--iperf3 PATH] [--esxperf PATH] [--tag NAME] OUTDIR

For each test shape (TCP, UDP, -R, --bidir, -P 4, 64-bit UDP counters, and
--get-server-output from a plain and a -J server) it starts `iperf3 -s -1` on 127.0.0.1 under
strace, runs one 1-second `esxperf -c` against it, and takes from strace's record
of the server's write()s on the control connection everything from the
EXCHANGE_RESULTS byte on: EXCHANGE_RESULTS, the 4-byte length, the results JSON,
DISPLAY_RESULTS -- the bytes the client reads after it sent TEST_END. Each file is
OUTDIR/<tag>-<shape>.bin: one shape byte (as the fuzz target reads it) and those
bytes. Loopback only; each server and client is bounded by `timeout`.
"""
import argparse
import glob
import os
import re
import socket
import struct
import subprocess
import sys
import tempfile
import time

# shape byte, as esxperf_results_fuzz.c reads it: bit 0 UDP, bit 1 -R, bit 2 --bidir,
# bit 3 -J, bits 4-5 parallel-1
SHAPES = [
    ("tcp", 0x00, [], []),
    ("tcp-json", 0x08, ["-J"], []),
    ("udp", 0x01, ["-u", "-b", "10M"], []),
    ("tcp-reverse", 0x02, ["-R"], []),
    ("udp-reverse", 0x03, ["-u", "-R", "-b", "10M"], []),
    ("tcp-bidir-P2", 0x14, ["--bidir", "-P", "2"], []),
    ("tcp-P4", 0x30, ["-P", "4"], []),
    ("udp64-P2", 0x11, ["-u", "-b", "10M", "-P", "2", "--udp-counters-64bit"], []),
    # the server's own output: text from a plain server, JSON from iperf3 -s -J
    ("tcp-server-text", 0x00, ["--get-server-output"], []),
    ("tcp-server-json", 0x08, ["--get-server-output", "-J"], ["-J"]),
]
WRITE = re.compile(r'^write\((\d+), "((?:\\x[0-9a-f]{2})*)"(?:\.\.\.)?, (\d+)\) *= (\d+)')


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def wait_listen(port, deadline):
    """without connecting: iperf3 -1 would take a probe connection for its one test"""
    while time.monotonic() < deadline:
        ss = subprocess.run(["ss", "-ltnH", f"sport = :{port}"], capture_output=True, text=True)
        if ss.stdout.strip():
            return True
        time.sleep(0.05)
    return False


def server_writes(trace):
    """(fd, bytes) for each complete write() in the strace log, in order"""
    out = []
    with open(trace) as f:
        for line in f:
            m = WRITE.match(line)
            if m and m.group(3) == m.group(4):
                out.append((int(m.group(1)), bytes.fromhex(m.group(2).replace("\\x", ""))))
    return out


def end_of_test(writes):
    """the control connection's bytes from EXCHANGE_RESULTS (13) on: the fd on which
    a 4-byte length is followed by exactly that many bytes of JSON"""
    for i in range(len(writes) - 1):
        fd, head = writes[i]
        nfd, body = writes[i + 1]
        if len(head) == 4 and nfd == fd and body[:1] == b"{" and \
                struct.unpack(">I", head)[0] == len(body):
            blob = b"".join(b for f, b in writes if f == fd)
            at = blob.find(head + body) - 1
            if at >= 0 and blob[at] == 13:
                return blob[at:]
    return None


def capture(a, name, shape, args, sargs, tmp):
    port = free_port()
    trace = os.path.join(tmp, f"{name}.strace")
    # -ff: one file per thread, so a sending thread's write cannot split a control write
    srv = subprocess.Popen(["timeout", "30", "strace", "-ff", "-qq", "-e", "trace=write",
                            "-xx", "-s", "16777216", "-o", trace, a.iperf3, "-s", "-1",
                            "-B", "127.0.0.1", "-p", str(port)] + sargs,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        if not wait_listen(port, time.monotonic() + 10):
            raise SystemExit(f"capture_results: {a.iperf3} did not listen on port {port}")
        cli = subprocess.run(["timeout", "30", a.esxperf, "-c", "127.0.0.1", "-p", str(port),
                              "-t", "1", "-i", "0"] + args,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        srv.wait(timeout=35)
    finally:
        if srv.poll() is None:
            srv.kill()
            srv.wait()
    if cli.returncode != 0:
        raise SystemExit(f"capture_results: {name}: esxperf -c exited {cli.returncode}: "
                         f"{cli.stderr.strip()}")
    blob = None
    for f in sorted(glob.glob(trace + ".*")):
        blob = blob or end_of_test(server_writes(f))
    if blob is None:
        raise SystemExit(f"capture_results: {name}: no results message in {trace}")
    out = os.path.join(a.outdir, f"{a.tag}-{name}.bin")
    with open(out, "wb") as f:
        f.write(bytes([shape]) + blob)
    print(f"{out}: {len(blob)} bytes")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--iperf3", default="iperf3")
    ap.add_argument("--esxperf", default=os.path.join(os.path.dirname(__file__),
                                                      "../../out/bin/esxperf"))
    ap.add_argument("--tag", help="file name prefix (default: iperf3-VERSION)")
    ap.add_argument("outdir")
    a = ap.parse_args()
    if a.tag is None:
        v = subprocess.run([a.iperf3, "--version"], capture_output=True, text=True).stdout
        m = re.search(r"iperf (\d+\.\d+)", v)
        a.tag = f"iperf3-{m.group(1) if m else 'unknown'}"
    os.makedirs(a.outdir, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for name, shape, args, sargs in SHAPES:
            capture(a, name, shape, args, sargs, tmp)
    return 0


if __name__ == "__main__":
    sys.exit(main())
