#!/usr/bin/env python3
"""hostile_client.py: misbehaving iperf3 control/data clients, to prove a server
(esxperf -s, or the real iperf3 -s) survives them.

usage: hostile_client.py [-H HOST] [-p PORT] [-t SECONDS] [-n COUNT] [--authtoken B64]
                         MODE [MODE...]
       hostile_client.py --list

Each MODE connects, misbehaves, and prints one line:
    MODE: ANSWER after S.SSs [detail]
where ANSWER is state:NAME (the state byte the server sent, e.g. state:ACCESS_DENIED,
state:SERVER_ERROR with its error ints), closed (EOF), reset (ECONNRESET) or
timeout (no answer within -t seconds; the connection was still open), refused
(no listener within -t seconds; connects are retried while refused, since iperf3
closes its listener for a moment between tests). Before each mode the tool waits
-s seconds (default 1) so the previous mode's test is over.

Safety: HOST must be loopback (127.0.0.0/8, ::1) or in the test-namespace ranges
198.18.0.0/15 or 2001:db8::/32; -t is at most 60 s, -n at most 500 connections;
every wait has a deadline. Exit 0 when every mode ran, 2 on a usage error.

Examples:
    iperf3 -s -p 5299 & hostile_client.py -p 5299 silent garbage-cookie flood
    hostile_client.py -p 5299 -t 3 all
"""
import argparse
import contextlib
import ipaddress
import json
import os
import socket
import struct
import sys
import time

STATES = {1: "TEST_START", 2: "TEST_RUNNING", 4: "TEST_END", 9: "PARAM_EXCHANGE",
          10: "CREATE_STREAMS", 11: "SERVER_TERMINATE", 12: "CLIENT_TERMINATE",
          13: "EXCHANGE_RESULTS", 14: "DISPLAY_RESULTS", 15: "PARAM_EXCHANGE_RESULTS",
          16: "IPERF_DONE", -1: "ACCESS_DENIED", -2: "SERVER_ERROR"}
ALPHABET = b"abcdefghijklmnopqrstuvwxyz234567"
MAX_TIMEOUT = 60.0
MAX_COUNT = 500


class Answer(Exception):
    """the server did something final (sent a state we stop at, closed, reset...)"""

    def __init__(self, text):
        super().__init__(text)
        self.text = text


def allowed_host(host):
    try:
        infos = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
    except socket.gaierror as e:
        raise SystemExit(f"hostile_client: cannot resolve {host}: {e} (use 127.0.0.1)")
    nets = [ipaddress.ip_network(n) for n in
            ("127.0.0.0/8", "::1/128", "198.18.0.0/15", "2001:db8::/32")]
    for info in infos:
        addr = ipaddress.ip_address(info[4][0])
        if not any(addr in n for n in nets):
            return False
    return True


def cookie():
    raw = os.urandom(36)
    return bytes(ALPHABET[b % 32] for b in raw) + b"\0"


class Conn:
    """one TCP connection with deadlines on every read"""

    def __init__(self, host, port, timeout):
        self.timeout = timeout
        self.start = time.monotonic()
        # iperf3 closes its listener for a moment between tests: retry refused
        # connects until the deadline
        deadline = self.start + timeout
        while True:
            try:
                self.s = socket.create_connection((host, port), timeout=timeout)
                break
            except ConnectionRefusedError:
                if time.monotonic() + 0.05 >= deadline:
                    raise Answer("refused")
                time.sleep(0.05)
        self.s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def elapsed(self):
        return time.monotonic() - self.start

    def send(self, data):
        try:
            self.s.sendall(data)
        except (BrokenPipeError, ConnectionResetError):
            raise Answer("reset")

    def recv_exact(self, n, timeout=None):
        deadline = time.monotonic() + (timeout if timeout is not None else self.timeout)
        buf = b""
        while len(buf) < n:
            left = deadline - time.monotonic()
            if left <= 0:
                raise Answer("timeout")
            self.s.settimeout(left)
            try:
                chunk = self.s.recv(n - len(buf))
            except socket.timeout:
                raise Answer("timeout")
            except ConnectionResetError:
                raise Answer("reset")
            if not chunk:
                raise Answer("closed" if not buf else f"closed after {len(buf)} of {n} bytes")
            buf += chunk
        return buf

    def state(self, timeout=None):
        """read one state byte; SERVER_ERROR and ACCESS_DENIED are final answers"""
        b = self.recv_exact(1, timeout)
        st = struct.unpack("b", b)[0]
        name = STATES.get(st, f"UNKNOWN({st})")
        if st == -2:
            ints = []
            for _ in range(2):
                try:
                    ints.append(struct.unpack(">i", self.recv_exact(4, 1.0))[0])
                except Answer:
                    break
            raise Answer(f"state:SERVER_ERROR errors={ints}")
        if st == -1:
            raise Answer("state:ACCESS_DENIED")
        return st, name

    def expect_close(self):
        """wait for the server to drop us; report how"""
        st = struct.unpack("b", self.recv_exact(1))[0]
        raise Answer(f"state:{STATES.get(st, st)}")

    def abort(self):
        """close with RST, as a killed process with unread data would"""
        try:
            self.s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        except OSError:
            pass
        self.s.close()

    def close(self):
        self.s.close()


AUTHTOKEN = None        # --authtoken: sent in every parameter message


def params(**over):
    p = {"tcp": True, "omit": 0, "time": 1, "num": 0, "blockcount": 0, "parallel": 1,
         "len": 131072, "pacing_timer": 1000, "client_version": "3.12"}
    if AUTHTOKEN is not None:
        p["authtoken"] = AUTHTOKEN
    p.update(over)
    return json.dumps(p, separators=(",", ":")).encode()


def send_json(c, body):
    c.send(struct.pack(">I", len(body)) + body)


def expect(c, want):
    """read one state byte; any other than want is the mode's answer"""
    st, name = c.state()
    if st != want:
        raise Answer(f"state:{name}")


def hello(c):
    """cookie, then expect PARAM_EXCHANGE; returns the cookie"""
    ck = cookie()
    c.send(ck)
    expect(c, 9)
    return ck


@contextlib.contextmanager
def control(a, end="close"):
    """the control connection and a list for data streams; on the way out the
    time is noted and all are ended by end ("close", or "abort" for RST)"""
    c = Conn(a.host, a.port, a.timeout)
    streams = []
    try:
        yield c, streams
    finally:
        a.elapsed = c.elapsed()
        for d in streams:
            getattr(d, end)()
        getattr(c, end)()


# ---------------------------------------------------------------- modes

def m_silent(a):
    with control(a) as (c, _):
        c.expect_close()


def m_mid_cookie(a):
    with control(a) as (c, _):
        c.send(cookie()[:12])
        c.expect_close()


def m_mid_length(a):
    with control(a) as (c, _):
        hello(c)
        c.send(b"\0\0")
        c.expect_close()


def m_mid_json(a):
    with control(a) as (c, _):
        hello(c)
        body = params()
        c.send(struct.pack(">I", len(body)) + body[:len(body) // 2])
        c.expect_close()


def m_garbage_cookie(a):
    with control(a) as (c, _):
        c.send(bytes(range(200, 237)))
        st, name = c.state()
        if st == 9:        # the server took it as a cookie: then garbage params
            c.send(b"\xff" * 64)
            c.expect_close()
        raise Answer(f"state:{name}")


def bad_params(raw_len, body):
    def run(a):
        with control(a) as (c, _):
            hello(c)
            c.send(struct.pack(">I", raw_len if raw_len is not None else len(body)) + body)
            st, name = c.state()
            raise Answer(f"state:{name}")
    return run


def deep_json():
    depth = 3000
    return b'{"tcp":true,"x":' + b"[" * depth + b"]" * depth + b"}"


def m_flood(a):
    """a normal client must be able to run meanwhile; we open n connections at once"""
    socks, answers = [], {}
    deadline = time.monotonic() + a.timeout
    start = time.monotonic()
    for _ in range(a.count):
        try:
            s = socket.create_connection((a.host, a.port), timeout=max(0.1, deadline - time.monotonic()))
            s.sendall(cookie())
            socks.append(s)
        except OSError as e:
            answers[f"connect-error:{e.errno}"] = answers.get(f"connect-error:{e.errno}", 0) + 1
        if time.monotonic() > deadline:
            break
    for s in socks:
        left = deadline - time.monotonic()
        try:
            s.settimeout(max(0.05, left))
            b = s.recv(1)
            key = "closed" if not b else STATES.get(struct.unpack("b", b)[0], "?")
        except socket.timeout:
            key = "timeout"
        except OSError:
            key = "reset"
        answers[key] = answers.get(key, 0) + 1
    for s in socks:
        s.close()
    a.elapsed = time.monotonic() - start
    raise Answer("flood " + " ".join(f"{k}={v}" for k, v in sorted(answers.items())))


def start_test(c, **over):
    """hello and parameters (over: changes to them), then expect CREATE_STREAMS;
    returns the cookie"""
    ck = hello(c)
    send_json(c, params(**over))
    expect(c, 10)
    return ck


def data_stream(a, ck):
    d = Conn(a.host, a.port, a.timeout)
    d.send(ck)
    return d


def m_bad_stream_cookie(a):
    with control(a, "abort") as (c, _):
        start_test(c, parallel=1, time=2)
        d = data_stream(a, cookie())        # not the control connection's cookie
        try:
            st, name = d.state()
            raise Answer(f"stream:state:{name}")
        except Answer as ans:
            raise Answer(ans.text if ans.text.startswith("stream:") else "stream:" + ans.text)
        finally:
            d.close()


def m_extra_streams(a):
    with control(a, "abort") as (c, streams):
        ck = start_test(c, parallel=1, time=2)
        streams.append(data_stream(a, ck))
        st, name = c.state()               # TEST_START after the one agreed stream
        extra = data_stream(a, ck)
        streams.append(extra)
        try:
            est, ename = extra.state()
            raise Answer(f"extra-stream:state:{ename} (control got {name})")
        except Answer as ans:
            if ans.text.startswith("extra-stream:"):
                raise
            raise Answer(f"extra-stream:{ans.text} (control got {name})")


def m_stall_bytes(a):
    """an -n test (1 TiB to send) whose client then sends nothing on any connection"""
    with control(a, "abort") as (c, streams):
        ck = start_test(c, time=0, num=1 << 40)
        streams.append(data_stream(a, ck))
        expect(c, 1)
        expect(c, 2)
        st, name = c.state()               # what the server does about the silence
        raise Answer(f"state:{name}")


def results_json(nstreams, nbytes):
    ids = [1] + list(range(3, nstreams + 2))
    return json.dumps({
        "cpu_util_total": 0.0, "cpu_util_user": 0.0, "cpu_util_system": 0.0,
        "sender_has_retransmits": 0,
        "streams": [{"id": i, "bytes": nbytes, "retransmits": 0, "jitter": 0, "errors": 0,
                     "packets": 0, "start_time": 0, "end_time": 1} for i in ids]},
        separators=(",", ":")).encode()


def full_test(a, stop_at=None, **over):
    """a complete TCP test (1 stream, 1 s); stop_at = the point where we die; over:
    more parameters"""
    with control(a) as (c, streams):
        if stop_at == "cookie":
            c.send(cookie()[:20])
            c.abort()
            raise Answer("aborted mid-cookie")
        ck = hello(c)
        if stop_at == "params":
            c.abort()
            raise Answer("aborted at PARAM_EXCHANGE")
        send_json(c, params(time=1, **over))
        expect(c, 10)
        if stop_at == "create":
            c.abort()
            raise Answer("aborted at CREATE_STREAMS")
        d = data_stream(a, ck)
        streams.append(d)
        expect(c, 1)
        expect(c, 2)
        if stop_at == "running":
            d.abort()
            c.abort()
            raise Answer("aborted at TEST_RUNNING")
        sent = 0
        block = b"\0" * 131072
        end = time.monotonic() + 1.0
        d.s.settimeout(a.timeout)
        while time.monotonic() < end:
            d.s.sendall(block)
            sent += len(block)
        c.send(bytes([4]))                        # TEST_END
        expect(c, 13)
        if stop_at == "results":
            d.abort()
            c.abort()
            raise Answer("aborted at EXCHANGE_RESULTS")
        send_json(c, results_json(1, sent))
        n = struct.unpack(">I", c.recv_exact(4))[0]
        if n > 1 << 20:
            raise Answer(f"server results length {n} is absurd")
        json.loads(c.recv_exact(n))
        expect(c, 14)
        c.send(bytes([16]))                       # IPERF_DONE
        raise Answer(f"completed {sent} bytes")


MODES = {
    "silent": (m_silent, "connect and send nothing"),
    "mid-cookie": (m_mid_cookie, "send 12 of the 37 cookie bytes, then wait"),
    "mid-length": (m_mid_length, "cookie, then 2 of the 4 length bytes, then wait"),
    "mid-json": (m_mid_json, "cookie, length, half of the JSON, then wait"),
    "garbage-cookie": (m_garbage_cookie, "37 bytes outside the cookie alphabet"),
    "len-0": (bad_params(0, b""), "params length 0"),
    "len-2g": (bad_params(1 << 31, b"{}"), "params length 2^31 (then 2 bytes)"),
    "len-max": (bad_params(0xFFFFFFFF, b"{}"), "params length 2^32-1"),
    "len-9k": (bad_params(None, params(title="x" * 9000)), "9 KiB params (3.18+ limit is 8 KiB)"),
    "title-8k": (lambda a: full_test(a, title="t" * 8000),
                 "a whole test whose params are just under 8 KiB (an 8000-byte title)"),
    "bad-json": (bad_params(None, b'{"tcp":tru'), "invalid JSON"),
    "deep-json": (bad_params(None, deep_json()), "JSON nested 3000 deep"),
    "not-object": (bad_params(None, b'[1,2,3]'), "JSON array at the top"),
    "wrong-types": (bad_params(None, b'{"tcp":"yes","time":"10","parallel":"1","len":[1]}'),
                    "strings and arrays where numbers belong"),
    "token-not-string": (bad_params(None, b'{"tcp":true,"time":1,"parallel":1,"authtoken":5}'),
                         "authtoken as a number (kills iperf3 3.12: NULL strdup)"),
    "title-not-string": (bad_params(None, b'{"tcp":true,"time":1,"parallel":1,"title":{}}'),
                         "title as an object"),
    "parallel-100000": (bad_params(None, params(parallel=100000)), "parallel 100000"),
    "len-2p40": (bad_params(None, params(len=1 << 40)), "block length 2^40"),
    "time-neg": (bad_params(None, params(time=-1)), "time -1"),
    "flood": (m_flood, "COUNT connections at once, each sends a cookie"),
    "stall-bytes": (m_stall_bytes, "start an -n 1T test, then send nothing at all"),
    "bad-stream-cookie": (m_bad_stream_cookie, "data stream with another cookie"),
    "extra-streams": (m_extra_streams, "one stream more than agreed"),
    "abort-cookie": (lambda a: full_test(a, "cookie"), "die mid-cookie (RST)"),
    "abort-params": (lambda a: full_test(a, "params"), "die at PARAM_EXCHANGE"),
    "abort-create": (lambda a: full_test(a, "create"), "die at CREATE_STREAMS"),
    "abort-running": (lambda a: full_test(a, "running"), "die at TEST_RUNNING"),
    "abort-results": (lambda a: full_test(a, "results"), "die at EXCHANGE_RESULTS"),
    "normal": (lambda a: full_test(a, None), "a complete 1 s TCP test"),
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-H", "--host", default="127.0.0.1")
    ap.add_argument("-p", "--port", type=int, default=5201)
    ap.add_argument("-t", "--timeout", type=float, default=5.0,
                    help="seconds to wait for any answer (max 60)")
    ap.add_argument("-n", "--count", type=int, default=200,
                    help="connections for flood (max 500)")
    ap.add_argument("-s", "--settle", type=float, default=1.0,
                    help="seconds to wait before each mode, so the server is idle (max 10)")
    ap.add_argument("--authtoken", help="base64 authtoken to send in the parameters "
                    "(e.g. one made with an old timestamp)")
    ap.add_argument("--list", action="store_true", help="list the modes")
    ap.add_argument("modes", nargs="*")
    a = ap.parse_args()
    if a.list:
        for k, (_, what) in MODES.items():
            print(f"{k:18} {what}")
        return 0
    if not a.modes:
        ap.error("no MODE given (see --list)")
    global AUTHTOKEN
    AUTHTOKEN = a.authtoken
    if not (0 < a.timeout <= MAX_TIMEOUT) or not (0 < a.count <= MAX_COUNT) or \
            not (0 <= a.settle <= 10):
        ap.error(f"-t must be in (0, {MAX_TIMEOUT:g}], -n in [1, {MAX_COUNT}], -s in [0, 10]")
    if not (0 < a.port < 65536):
        ap.error("bad port")
    if not allowed_host(a.host):
        ap.error(f"{a.host} is not loopback or a test-namespace address; refusing")
    modes = [m for m in MODES if m != "normal"] if a.modes == ["all"] else a.modes
    for m in modes:
        if m not in MODES:
            ap.error(f"unknown mode {m} (see --list)")
    for m in modes:
        time.sleep(a.settle)
        a.elapsed = 0.0
        t0 = time.monotonic()
        try:
            MODES[m][0](a)
            text = "no answer"
        except Answer as ans:
            text = ans.text
        except OSError as e:
            text = f"error: {e}"
        el = a.elapsed or (time.monotonic() - t0)
        print(f"{m}: {text} after {el:.2f}s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
