#!/usr/bin/env python3
"""Read the socket options of another running process's sockets (root): each
socket descriptor of PID is copied with pidfd_getfd(2) and asked with
getsockopt(2), so a test sees what a running esxperf or iperf3 really set.

usage: sockopt_peek.py PID   -> one JSON object per TCP/UDP socket on stdout:
  fd, type ("tcp"/"udp"), proto (6, 17, 262 = MPTCP), local, peer,
  listening, user_timeout_ms, keepalive, keepidle, keepintvl, keepcnt,
  max_pacing_rate (bytes/s; 2**64-1 = none), bind_dev, tos (IP_TOS or
  IPV6_TCLASS by family)
Exit 2 when the process cannot be read (gone, or no permission).
"""
import ctypes
import json
import os
import socket
import struct
import sys

SYS_PIDFD_GETFD = 438          # x86-64 and aarch64 alike
SO_BINDTODEVICE = 25
SO_PROTOCOL = 38
SO_ACCEPTCONN = 30
SO_MAX_PACING_RATE = 47
TCP_USER_TIMEOUT = 18
IPV6_TCLASS = 67

libc = ctypes.CDLL(None, use_errno=True)


def getfd(pidfd, fd):
    r = libc.syscall(SYS_PIDFD_GETFD, pidfd, fd, 0)
    return r if r >= 0 else None


def opt_int(s, level, name, size=4):
    try:
        raw = s.getsockopt(level, name, size)
    except OSError:
        return None
    return int.from_bytes(raw[:size], sys.byteorder) if len(raw) >= size else \
        int.from_bytes(raw, sys.byteorder)


def addr(a):
    if isinstance(a, tuple):
        return "%s:%d" % (a[0], a[1])
    return str(a)


def describe(s, fd):
    kind = {socket.SOCK_STREAM: "tcp", socket.SOCK_DGRAM: "udp"}.get(s.type)
    if kind is None or s.family not in (socket.AF_INET, socket.AF_INET6):
        return None
    d = {"fd": fd, "type": kind, "proto": opt_int(s, socket.SOL_SOCKET, SO_PROTOCOL)}
    try:
        d["local"] = addr(s.getsockname())
    except OSError:
        d["local"] = None
    try:
        d["peer"] = addr(s.getpeername())
    except OSError:
        d["peer"] = None
    d["listening"] = bool(opt_int(s, socket.SOL_SOCKET, SO_ACCEPTCONN))
    if kind == "tcp":
        d["user_timeout_ms"] = opt_int(s, socket.IPPROTO_TCP, TCP_USER_TIMEOUT)
        d["keepalive"] = bool(opt_int(s, socket.SOL_SOCKET, socket.SO_KEEPALIVE))
        d["keepidle"] = opt_int(s, socket.IPPROTO_TCP, socket.TCP_KEEPIDLE)
        d["keepintvl"] = opt_int(s, socket.IPPROTO_TCP, socket.TCP_KEEPINTVL)
        d["keepcnt"] = opt_int(s, socket.IPPROTO_TCP, socket.TCP_KEEPCNT)
    d["max_pacing_rate"] = opt_int(s, socket.SOL_SOCKET, SO_MAX_PACING_RATE, 8)
    try:
        dev = s.getsockopt(socket.SOL_SOCKET, SO_BINDTODEVICE, 16)
        d["bind_dev"] = dev.split(b"\0", 1)[0].decode() or None
    except OSError:
        d["bind_dev"] = None
    if s.family == socket.AF_INET6:
        d["tos"] = opt_int(s, socket.IPPROTO_IPV6, IPV6_TCLASS)
    else:
        d["tos"] = opt_int(s, socket.IPPROTO_IP, socket.IP_TOS)
    return d


def main():
    if len(sys.argv) != 2 or not sys.argv[1].isdigit():
        sys.exit("usage: sockopt_peek.py PID")
    pid = int(sys.argv[1])
    try:
        pidfd = os.pidfd_open(pid)
        fds = sorted(int(f) for f in os.listdir("/proc/%d/fd" % pid))
    except OSError as e:
        print("sockopt_peek: cannot read process %d: %s" % (pid, e), file=sys.stderr)
        sys.exit(2)
    for fd in fds:
        try:
            if not os.readlink("/proc/%d/fd/%d" % (pid, fd)).startswith("socket:"):
                continue
        except OSError:
            continue
        mine = getfd(pidfd, fd)
        if mine is None:
            continue
        s = socket.socket(fileno=mine)
        try:
            d = describe(s, fd)
        finally:
            s.close()
        if d:
            print(json.dumps(d))
    os.close(pidfd)


if __name__ == "__main__":
    main()
