#!/usr/bin/env python3
"""hostile_server.py: a misbehaving iperf3 server, to prove a client (esxperf -c,
or the real iperf3 -c) copes with it: it must end with a clear error, in bounded
time and memory, instead of hanging or crashing.

usage: hostile_server.py [-B HOST] [-p PORT] [-t SECONDS] [--ierr N --errno M] MODE
       hostile_server.py --list

Serves ONE client in MODE and exits (with --linger, keeps its listeners until
-t is over, so a client that opens data streams late meets no closed port). Prints "port P" once it listens (with -p 0
the kernel picks P; TCP and UDP both use P, as iperf3 does), then one line:
    MODE: WHAT after S.SSs
WHAT says how far the client got (e.g. "client closed at stall-end", "completed,
received 123456 bytes"); S.SS is the time from accepting the control connection to
the end. Modes follow the iperf3 state sequence (see --list): the server plays the
protocol correctly up to one point, then misbehaves there. `normal` plays it to the
end (TCP, UDP, -R and --bidir), so the tool itself is tested.

Safety: HOST must be loopback (127.0.0.0/8, ::1) or in the test-namespace ranges
198.18.0.0/15 or 2001:db8::/32; the whole run is bounded by -t (default 60, at most
300 s); every wait has a deadline; data are sent only to the connected client.
Exit 0 when the mode ran, 2 on a usage or socket error.
"""
import argparse
import ipaddress
import json
import select
import socket
import struct
import sys
import threading
import time

ST = {"TEST_START": 1, "TEST_RUNNING": 2, "TEST_END": 4, "PARAM_EXCHANGE": 9,
      "CREATE_STREAMS": 10, "SERVER_TERMINATE": 11, "CLIENT_TERMINATE": 12,
      "EXCHANGE_RESULTS": 13, "DISPLAY_RESULTS": 14, "IPERF_DONE": 16,
      "ACCESS_DENIED": -1, "SERVER_ERROR": -2}
COOKIE_LEN = 37
MAX_LIFE = 300.0
STREAM_IDS = [1] + list(range(3, 300))      # iperf3 skips id 2
RESULTS_MAX = 8 << 20                       # esxperf's bound, for the edge modes


class Done(Exception):
    """the run is over: text says how (client closed, timed out, completed...)"""

    def __init__(self, text):
        super().__init__(text)
        self.text = text


def allowed_host(host):
    nets = [ipaddress.ip_network(n) for n in
            ("127.0.0.0/8", "::1/128", "198.18.0.0/15", "2001:db8::/32")]
    try:
        addr = ipaddress.ip_address(host)
    except ValueError:
        return False
    return any(addr in n for n in nets)


class Ctl:
    """the control connection, every read and write with the run's deadline"""

    def __init__(self, sock, deadline):
        self.s = sock
        self.deadline = deadline
        self.s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def left(self):
        t = self.deadline - time.monotonic()
        if t <= 0:
            raise Done("run time (-t) over")
        return t

    def recv_exact(self, n, what):
        buf = b""
        while len(buf) < n:
            self.s.settimeout(self.left())
            try:
                chunk = self.s.recv(n - len(buf))
            except socket.timeout:
                raise Done(f"run time (-t) over waiting for {what}")
            except OSError:
                raise Done(f"client reset the connection at {what}")
            if not chunk:
                raise Done(f"client closed at {what}")
            buf += chunk
        return buf

    def send(self, data, what="a message"):
        self.s.settimeout(self.left())
        try:
            self.s.sendall(data)
        except socket.timeout:
            raise Done(f"client stopped reading at {what}")
        except OSError:
            raise Done(f"client closed at {what}")

    def state(self, name):
        self.send(struct.pack("b", ST[name]), name)

    def expect(self, name):
        st = struct.unpack("b", self.recv_exact(1, f"waiting for {name}"))[0]
        if st != ST[name]:
            raise Done(f"client sent state {st} instead of {name}")

    def recv_json(self, what):
        n = struct.unpack(">I", self.recv_exact(4, what))[0]
        if n == 0 or n > RESULTS_MAX:
            raise Done(f"client sent length {n} for {what}")
        return json.loads(self.recv_exact(n, what))

    def send_json(self, body, what):
        self.send(struct.pack(">I", len(body)) + body, what)

    def hold(self, what):
        """stall: answer nothing, read and drop what comes, until the client closes"""
        while True:
            self.s.settimeout(self.left())
            try:
                if not self.s.recv(65536):
                    raise Done(f"client closed at {what}")
            except socket.timeout:
                raise Done(f"run time (-t) over at {what} (the client did not give up)")
            except OSError:
                raise Done(f"client reset the connection at {what}")

    def linger_close(self):
        """close after the client has had a moment to read what we sent"""
        try:
            self.s.shutdown(socket.SHUT_WR)
        except OSError:
            pass
        self.s.close()


class Stream:
    """one data stream: a thread that receives (counts) or sends until stopped"""

    def __init__(self, sock, udp, sender, params, read=True):
        self.s, self.udp, self.sender, self.p, self.read = sock, udp, sender, params, read
        self.bytes = self.packets = self.lost = 0
        self.stop = threading.Event()
        self.t = threading.Thread(target=self.run, daemon=True)

    def start(self):
        self.t.start()

    def run(self):
        try:
            self.s.settimeout(0.1)
            if self.sender:
                self.send_loop()
            elif self.read:
                self.recv_loop()
            else:
                self.stop.wait()            # no-read: hold the socket, never read it
        except OSError:
            pass

    def recv_loop(self):
        seq_max = 0
        wide = bool(self.p.get("udp_counters_64bit"))
        while not self.stop.is_set():
            try:
                b = self.s.recv(1 << 17)
            except socket.timeout:
                continue
            if not b:
                return
            self.bytes += len(b)
            if self.udp and len(b) >= 16:
                self.packets += 1
                seq = struct.unpack(">Q" if wide else ">I", b[8:16 if wide else 12])[0]
                seq_max = max(seq_max, seq)
                self.lost = max(0, seq_max - self.packets)

    def send_loop(self):
        blen = int(self.p.get("len") or (1448 if self.udp else 131072))
        rate = int(self.p.get("bandwidth") or (1048576 if self.udp else 0))
        wide = bool(self.p.get("udp_counters_64bit"))
        t0 = time.monotonic()
        seq = 0
        while not self.stop.is_set():
            if rate and self.bytes * 8 > rate * (time.monotonic() - t0):
                time.sleep(0.001)
                continue
            if self.udp:
                seq += 1
                now = time.time()
                head = struct.pack(">II", int(now), int((now % 1) * 1e6))
                head += struct.pack(">Q" if wide else ">I", seq)
                data = head + b"\0" * (blen - len(head))
            else:
                data = b"\0" * blen
            try:
                n = self.s.send(data)
            except socket.timeout:
                continue
            self.bytes += n
            self.packets += 1

    def end(self):
        self.stop.set()
        self.t.join(2)

    def result(self, sid, secs):
        return {"id": sid, "bytes": self.bytes, "retransmits": -1 if not self.sender else 0,
                "jitter": 0, "errors": self.lost, "packets": self.packets,
                "omitted_errors": 0, "omitted_packets": 0, "start_time": 0, "end_time": secs}


class Server:
    def __init__(self, a, mode):
        self.a, self.mode = a, mode
        self.deadline = time.monotonic() + a.timeout
        fam = socket.AF_INET6 if ":" in a.bind else socket.AF_INET
        self.fam = fam
        self.lsock = socket.socket(fam, socket.SOCK_STREAM)
        self.lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.lsock.bind((a.bind, a.port))
        self.lsock.listen(16)
        self.port = self.lsock.getsockname()[1]
        self.usock = None                   # the UDP socket waiting for the next hello
        self.ctl = None
        self.streams = []
        self.params = {}
        self.cookie = b""
        self.t_accept = None

    def left(self):
        t = self.deadline - time.monotonic()
        if t <= 0:
            raise Done("run time (-t) over")
        return t

    # ---- the points of the sequence; a mode replaces the action at one of them

    def at(self, point):
        """the mode's action at this point, if any (it may raise Done)"""
        act = self.mode.get(point)
        if act is None:
            return False
        if act == "close":
            self.close_all()
            raise Done(f"closed at {point}")
        if act == "stall":
            self.ctl.hold(f"stall-{point}")
        act(self)
        return True

    def close_all(self):
        """the test's sockets; the listeners stay, as on a server whose test failed"""
        for st in self.streams:
            st.stop.set()
            st.s.close()
        self.ctl.s.close()

    def linger(self):
        """keep the listeners until the run time is over (the caller kills us once
        its client is done), so the client meets no closed port by accident"""
        left = self.deadline - time.monotonic()
        if left > 0:
            time.sleep(left)

    def run(self):
        self.lsock.settimeout(self.left())
        try:
            cs, _ = self.lsock.accept()
        except socket.timeout:
            raise Done("no client came")
        self.t_accept = time.monotonic()
        self.ctl = Ctl(cs, self.deadline)
        self.cookie = self.ctl.recv_exact(COOKIE_LEN, "the cookie")
        if not self.at("cookie"):
            self.ctl.state("PARAM_EXCHANGE")
        self.params = self.ctl.recv_json("the parameters")
        udp = bool(self.params.get("udp"))
        if udp:
            self.usock = self.udp_socket()
        if not self.at("params"):
            self.ctl.state("CREATE_STREAMS")
        if not self.at("create"):
            self.accept_streams(udp)
        if not self.at("start"):
            self.ctl.state("TEST_START")
        if not self.at("running"):
            self.ctl.state("TEST_RUNNING")
        for st in self.streams:
            st.start()
        t_run = time.monotonic()
        if not self.at("test"):
            self.ctl.expect("TEST_END")
        secs = time.monotonic() - t_run
        for st in self.streams:
            st.end()
        if not self.at("end"):
            self.ctl.state("EXCHANGE_RESULTS")
        if not self.at("exchange"):
            self.ctl.recv_json("the client's results")
        if not self.at("results"):
            self.ctl.send_json(self.results(secs), "our results")
        if not self.at("display"):
            self.ctl.state("DISPLAY_RESULTS")
        if not self.at("done"):
            self.ctl.expect("IPERF_DONE")
        got = sum(st.bytes for st in self.streams if not st.sender)
        sent = sum(st.bytes for st in self.streams if st.sender)
        raise Done(f"completed, received {got} bytes, sent {sent} bytes")

    def udp_socket(self):
        u = socket.socket(self.fam, socket.SOCK_DGRAM)
        u.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        u.bind((self.a.bind, self.port))
        return u

    def nstreams(self):
        n = int(self.params.get("parallel", 1))
        if not 1 <= n <= 128:
            raise Done(f"client asked for {n} streams")
        return n * (2 if self.params.get("bidirectional") else 1)

    def is_sender(self, i):
        """stream i from the server's side: -R sends all; --bidir receives the first P"""
        if self.params.get("reverse"):
            return True
        if self.params.get("bidirectional"):
            return i >= int(self.params.get("parallel", 1))
        return False

    def accept_streams(self, udp):
        read = self.mode.get("read", True)
        for i in range(self.nstreams()):
            if udp:
                s = self.udp_hello()
            else:
                self.lsock.settimeout(self.left())
                try:
                    s, _ = self.lsock.accept()
                except socket.timeout:
                    raise Done(f"data stream {i + 1} never came")
                s.settimeout(self.left())
                got = b""
                while len(got) < COOKIE_LEN:
                    chunk = s.recv(COOKIE_LEN - len(got))
                    if not chunk:
                        raise Done(f"data stream {i + 1} closed before its cookie")
                    got += chunk
                if got != self.cookie:
                    raise Done(f"data stream {i + 1} sent another cookie")
            self.streams.append(Stream(s, udp, self.is_sender(i), self.params, read))

    def udp_hello(self):
        """take the 4-byte hello on the waiting socket, connect it to the client,
        bind the next waiting socket, then reply "6789" (3.12+)"""
        u = self.usock
        u.settimeout(self.left())
        try:
            data, peer = u.recvfrom(64)
        except socket.timeout:
            raise Done("no UDP hello came")
        u.connect(peer)
        self.usock = self.udp_socket()
        u.send(b"6789")
        return u

    def results(self, secs):
        streams = [st.result(STREAM_IDS[i], secs) for i, st in enumerate(self.streams)]
        senders = any(st.sender for st in self.streams)
        return json.dumps({"cpu_util_total": 1.5, "cpu_util_user": 0.5, "cpu_util_system": 1.0,
                           "sender_has_retransmits": 0 if senders else -1,
                           "streams": streams}, separators=(",", ":")).encode()


# ---------------------------------------------------------------- modes

def send_state_then_hold(byte, point):
    def act(srv):
        srv.ctl.send(bytes([byte & 0xff]), "a garbage state")
        srv.ctl.hold(point)
    return act


def server_error(ints, point):
    """SERVER_ERROR (-2) then the given big-endian int32s, then close"""
    def act(srv):
        srv.ctl.send(struct.pack("b", -2) + b"".join(struct.pack(">i", v) for v in ints),
                     "SERVER_ERROR")
        srv.ctl.linger_close()
        raise Done(f"sent SERVER_ERROR {ints} at {point}")
    return act


def server_error_stall(srv):
    srv.ctl.send(struct.pack("b", -2), "SERVER_ERROR")
    srv.ctl.hold("SERVER_ERROR without its error codes")


def streams_then_state(byte):
    """end the test the way a server that gives up may: close the data streams
    (unread data: the client's senders get a reset), then 0.5 s later say why"""
    def act(srv):
        for st in srv.streams:
            st.stop.set()
            st.s.close()
        time.sleep(0.5)
        srv.ctl.send(struct.pack("b", byte), "a state after closing the streams")
        srv.ctl.hold("after closing the streams")
    return act


def during_test(act):
    """let the test run 0.3 s, then act"""
    def run(srv):
        time.sleep(0.3)
        act(srv)
    return run


def results_body(srv, **top):
    """our real results, with top-level keys replaced by top"""
    d = json.loads(srv.results(1.0))
    d.update(top)
    return json.dumps(d, separators=(",", ":")).encode()


def send_results(make):
    """replace our results message with make(srv) (bytes, framed here); then go on
    to DISPLAY_RESULTS if the client still listens"""
    def act(srv):
        srv.ctl.send_json(make(srv), "hostile results")
        srv.ctl.state("DISPLAY_RESULTS")
        srv.ctl.hold("after hostile results")
    return act


def results_length(n, then=b""):
    """a results header announcing n bytes, then `then`, then hold"""
    def act(srv):
        srv.ctl.send(struct.pack(">I", n) + then, "results header")
        srv.ctl.hold(f"results length {n}")
    return act


def results_100m(srv):
    """announce 100 MB and really send them (valid JSON), until the client hangs up"""
    total = 100 * 1000 * 1000
    head = b'{"cpu_util_total":0,"cpu_util_user":0,"cpu_util_system":0,' \
           b'"sender_has_retransmits":0,"streams":[],"pad":"'
    tail = b'"}'
    srv.ctl.send(struct.pack(">I", total) + head, "results header")
    chunk = b"x" * 65536
    left = total - len(head) - len(tail)
    while left > 0:
        part = chunk[:min(left, len(chunk))]
        srv.ctl.send(part, f"100 MB of results ({total - left} sent)")
        left -= len(part)
    srv.ctl.send(tail, "results end")
    srv.ctl.hold("after 100 MB of results")


def mid_results(close):
    def act(srv):
        body = srv.results(1.0)
        srv.ctl.send(struct.pack(">I", len(body)) + body[:len(body) // 2], "half the results")
        if close:
            srv.ctl.linger_close()
            raise Done("closed mid-results")
        srv.ctl.hold("stall mid-results")
    return act


def deep(srv):
    """streams nested a million arrays deep (2 MB): quadratic for a tokenizer
    that walks back to find each open bracket"""
    depth = 1000000
    return results_body(srv, streams="@").replace(b'"@"', b"[" * depth + b"]" * depth)


def many_keys(srv):
    """valid results with 500000 more (unknown) top-level keys: a million tokens,
    just under esxperf's limit; quadratic for a tokenizer that walks back over the
    object at each comma"""
    pairs = 500000
    return results_body(srv)[:-1] + b',' + b'"k":0,' * (pairs - 1) + b'"k":0}'


def many_tokens(srv):
    """a valid message just under 8 MiB whose server_output_json holds four
    million tokens: the largest token array the limit allows"""
    base = results_body(srv)
    n = (RESULTS_MAX - len(base) - 64) // 2
    return base[:-1] + b',"server_output_json":{"a":[' + b"0," * (n - 1) + b"0]}}"


def big_text(srv):
    """a valid message just under 8 MiB: server_output_text of ~8 MiB"""
    base = results_body(srv)
    n = RESULTS_MAX - len(base) - 64
    return base[:-1] + b',"server_output_text":"' + b"A" * n + b'"}'


def truncated(srv):
    body = srv.results(1.0)
    return body[:len(body) * 2 // 3]


def wrong_types(srv):
    return json.dumps({"cpu_util_total": "high", "cpu_util_user": [1], "cpu_util_system": {},
                       "sender_has_retransmits": "yes",
                       "streams": {"id": "1", "bytes": [1]}}).encode()


def wrong_stream_types(srv):
    d = json.loads(srv.results(1.0))
    for s in d["streams"]:
        s.update({"id": "1", "bytes": "many", "packets": None, "jitter": [0]})
    return json.dumps(d).encode()


def huge_counts(srv):
    """right types, absurd values: sums of two such streams overflow int64"""
    d = json.loads(srv.results(1.0))
    big = 9223372036854775807
    d.update({"cpu_util_total": 1e308, "cpu_util_user": 1e308, "cpu_util_system": -1e308})
    for s in d["streams"]:
        s.update({"bytes": big, "retransmits": big, "errors": big, "packets": big,
                  "omitted_errors": big, "omitted_packets": big, "jitter": 1e308,
                  "end_time": 1e-300})
    return json.dumps(d).encode()


def many_streams(srv):
    d = json.loads(srv.results(1.0))
    d["streams"] = [dict(d["streams"][0], id=STREAM_IDS[i % 200]) for i in range(1000)]
    return json.dumps(d, separators=(",", ":")).encode()


POINTS = ["cookie", "params", "create", "start", "running", "test", "end", "exchange",
          "results", "display", "done"]
POINT_WHAT = {
    "cookie": "after reading the cookie (no PARAM_EXCHANGE)",
    "params": "after reading the parameters (no CREATE_STREAMS)",
    "create": "after CREATE_STREAMS (data streams not accepted)",
    "start": "after accepting the streams (no TEST_START)",
    "running": "after TEST_START (no TEST_RUNNING)",
    "test": "during the test (TEST_END never read)",
    "end": "after TEST_END (no EXCHANGE_RESULTS)",
    "exchange": "after EXCHANGE_RESULTS (the client's results not read)",
    "results": "after the client's results (ours never sent)",
    "display": "after our results (no DISPLAY_RESULTS)",
    "done": "after DISPLAY_RESULTS (IPERF_DONE not read)",
}

MODES = {"normal": ({}, "plays the protocol correctly to the end (TCP, UDP, -R, --bidir)")}
for _p in POINTS:
    MODES[f"close-{_p}"] = ({_p: "close"}, f"closes every socket {POINT_WHAT[_p]}")
for _p in ("cookie", "params", "create", "start", "running", "end", "exchange", "display"):
    MODES[f"stall-{_p}"] = ({_p: "stall"}, f"says nothing more {POINT_WHAT[_p]}")
MODES.update({
    "garbage-state": ({"cookie": send_state_then_hold(0x55, "garbage-state")},
                      "answers the cookie with state byte 0x55"),
    "garbage-running": ({"test": during_test(send_state_then_hold(0x7f, "garbage-running"))},
                        "sends state byte 0x7f during the test"),
    "garbage-end": ({"end": send_state_then_hold(0xe0, "garbage-end")},
                    "answers TEST_END with state byte 0xe0 (-32)"),
    "terminate-streams-first": ({"test": during_test(streams_then_state(11))},
                                "closes the data streams, 0.5 s later sends SERVER_TERMINATE"),
    "error-negative": ({"params": server_error([-5, -7], "params")},
                       "SERVER_ERROR with i_errno -5, errno -7"),
    "error-max": ({"params": server_error([2**31 - 1, 2**31 - 1], "params")},
                  "SERVER_ERROR with i_errno and errno 2^31-1"),
    "error-min": ({"params": server_error([-2**31, -2**31], "params")},
                  "SERVER_ERROR with i_errno and errno -2^31"),
    "error-errno": ({"params": server_error([118, 0x41414141], "params")},
                    "SERVER_ERROR with a real i_errno and errno 0x41414141"),
    "error-short": ({"params": server_error([], "params")},
                    "SERVER_ERROR, then close without the error codes"),
    "error-duration": ({"params": server_error([37, 0], "params")},
                       "SERVER_ERROR 37 (over the server's --server-max-duration), errno 0"),
    "error-unknown": ({"params": server_error([41, 0], "params")},
                      "SERVER_ERROR 41 (no iperf3 3.22 error), errno 0"),
    "error-code": ({"params": lambda srv: server_error([srv.a.ierr, srv.a.errno], "params")(srv)},
                   "SERVER_ERROR with --ierr N and --errno M (default 0)"),
    "error-stall": ({"params": server_error_stall},
                    "SERVER_ERROR, then nothing (no codes, no close)"),
    "error-running": ({"test": during_test(server_error([-1, 2**31 - 1], "test"))},
                      "SERVER_ERROR with absurd codes during the test"),
    "results-len-0": ({"results": results_length(0)}, "results length 0"),
    "results-len-2g": ({"results": results_length(2**31, b"{}")}, "results length 2^31"),
    "results-len-max": ({"results": results_length(2**32 - 1, b"{}")},
                        "results length 2^32-1"),
    "results-len-8m1": ({"results": results_length(RESULTS_MAX + 1, b"{")},
                        "results length 8 MiB + 1 (one past esxperf's limit)"),
    "results-100m": ({"results": results_100m}, "100 MB of results, really sent"),
    "results-deep": ({"results": send_results(deep)}, "streams nested a million arrays deep (2 MB)"),
    "results-many-keys": ({"results": send_results(many_keys)},
                          "valid results with 500000 more keys (1M tokens, 3 MB)"),
    "results-many-tokens": ({"results": send_results(many_tokens)},
                            "valid results, 4 million tokens (just under 8 MiB)"),
    "results-big-text": ({"results": send_results(big_text)},
                         "valid results with an 8 MiB server_output_text"),
    "results-truncated": ({"results": send_results(truncated)},
                          "results JSON cut at two thirds (length matches)"),
    "results-wrong-types": ({"results": send_results(wrong_types)},
                            "strings, arrays, objects where numbers belong"),
    "results-stream-types": ({"results": send_results(wrong_stream_types)},
                             "stream entries with wrong types"),
    "results-huge-counts": ({"results": send_results(huge_counts)},
                            "right types, absurd values (INT64_MAX counts, 1e308)"),
    "results-many-streams": ({"results": send_results(many_streams)},
                             "1000 stream entries (esxperf allows 256)"),
    "stall-mid-results": ({"results": mid_results(False)},
                          "half the results, then nothing"),
    "close-mid-results": ({"results": mid_results(True)}, "half the results, then close"),
    "no-read": ({"read": False}, "accepts the data streams but never reads them"),
})


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-B", "--bind", default="127.0.0.1")
    ap.add_argument("-p", "--port", type=int, default=5201, help="0: any free port")
    ap.add_argument("-t", "--timeout", type=float, default=60.0,
                    help="seconds the whole run may take (max 300)")
    ap.add_argument("--linger", action="store_true",
                    help="after the line, keep listening until -t is over")
    ap.add_argument("--list", action="store_true", help="list the modes")
    ap.add_argument("--ierr", type=int, default=0, help="error-code: the i_errno to send")
    ap.add_argument("--errno", type=int, default=0, help="error-code: the errno to send")
    ap.add_argument("mode", nargs="?")
    a = ap.parse_args()
    if a.list:
        for k, (_, what) in MODES.items():
            print(f"{k:24} {what}")
        return 0
    if a.mode not in MODES:
        ap.error(f"give one MODE (see --list), not {a.mode!r}")
    if not 0 < a.timeout <= MAX_LIFE or not 0 <= a.port < 65536:
        ap.error(f"-t must be in (0, {MAX_LIFE:g}], -p in [0, 65535]")
    if not allowed_host(a.bind):
        ap.error(f"{a.bind} is not a loopback or test-namespace address; refusing")
    try:
        srv = Server(a, MODES[a.mode][0])
    except OSError as e:
        print(f"hostile_server: cannot listen on {a.bind} port {a.port}: {e}", file=sys.stderr)
        return 2
    print(f"port {srv.port}", flush=True)
    t0 = time.monotonic()
    try:
        srv.run()
        text = "ended"
    except Done as d:
        text = d.text
    except (OSError, ValueError) as e:
        text = f"error: {e}"
    el = time.monotonic() - (srv.t_accept or t0)
    print(f"{a.mode}: {text} after {el:.2f}s", flush=True)
    if a.linger:
        srv.linger()
    return 0


if __name__ == "__main__":
    sys.exit(main())
