#!/usr/bin/env python3
"""A lying host on the path, for esxmtu's tests.

Runs inside the router namespace of test/lib/esxmtu-net.bash, reads the frames that
arrive on one interface (AF_PACKET, before the router's nft rules drop them) and, for
every ICMP / ICMPv6 echo request longer than --min-len, sends forged ICMP back out of
that interface to the sender, as whole Ethernet frames (any source address):

  too-big MTU       frag-needed (IPv4) / Packet Too Big (IPv6) with next-hop MTU MTU,
                    quoting the request as a router does (576 / 1280 bytes in all)
  quote-other       too-big with a sane MTU (1500) quoting a probe that was never sent:
                    the request under the next sequence number, and the request with
                    its payload stamp altered
  reply-bad-stamp   echo replies from the peer with the right id and sequence: one of
                    full length with the payload stamp altered, one with no data
  reply-foreign     a perfect echo reply (the request's own data) from --from4/--from6,
                    an address that is not the peer

One line "forged <kind> seq=N" per packet goes to --log, so a test can prove the lies
were told. Exits after --seconds (a bound against a stray process) or on SIGTERM.
Own socket code: no scapy, nothing but the standard library.
"""
import argparse
import signal
import socket
import struct
import sys
import time

ETH_P_ALL = 0x0003
PACKET_HOST = 0


def csum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return (~s) & 0xFFFF


def ipv4(src, dst, payload, ttl=64):
    hdr = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(payload), 0, 0, ttl, 1, 0,
                      socket.inet_pton(socket.AF_INET, src), socket.inet_pton(socket.AF_INET, dst))
    hdr = hdr[:10] + struct.pack("!H", csum(hdr)) + hdr[12:]
    return hdr + payload


def icmp4(type_, code, rest, body):
    msg = struct.pack("!BBH", type_, code, 0) + rest + body
    return msg[:2] + struct.pack("!H", csum(msg)) + msg[4:]


def ipv6(src, dst, payload, hlim=64):
    s = socket.inet_pton(socket.AF_INET6, src)
    d = socket.inet_pton(socket.AF_INET6, dst)
    pseudo = s + d + struct.pack("!I3xB", len(payload), 58)
    ck = csum(pseudo + payload)
    payload = payload[:2] + struct.pack("!H", ck) + payload[4:]
    return struct.pack("!IHBB", 6 << 28, len(payload), 58, hlim) + s + d + payload


def icmp6(type_, code, rest, body):
    return struct.pack("!BBH", type_, code, 0) + rest + body


class Forger:
    def __init__(self, args):
        self.a = args
        self.sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
        # a discovery round is hundreds of 9000-byte frames at once: room for them all
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
        self.sock.bind((args.iface, 0))
        self.log = open(args.log, "a", buffering=1)

    def send(self, eth_in, ethertype, packet, kind, seq):
        # back to the sender: swap the MAC addresses of the frame we saw
        frame = eth_in[6:12] + eth_in[0:6] + struct.pack("!H", ethertype) + packet
        try:
            self.sock.send(frame)
        except OSError as e:
            # ENOBUFS when the receiver's backlog is full (a loaded machine, a discovery
            # round): that lie is lost, the liar carries on
            self.log.write("lost %s seq=%d: %s\n" % (kind, seq, e.strerror))
            return
        self.log.write("forged %s seq=%d\n" % (kind, seq))

    def run(self):
        end = time.monotonic() + self.a.seconds
        self.sock.settimeout(0.2)
        print("ready", flush=True)
        while time.monotonic() < end:
            try:
                frame, addr = self.sock.recvfrom(70000)
            except socket.timeout:
                continue
            if addr[2] != PACKET_HOST or len(frame) < 14:
                continue
            ethertype = struct.unpack("!H", frame[12:14])[0]
            if ethertype == 0x0800:
                self.on_ipv4(frame[:14], frame[14:])
            elif ethertype == 0x86DD:
                self.on_ipv6(frame[:14], frame[14:])

    # ---- IPv4
    def on_ipv4(self, eth, ip):
        if len(ip) < 28 or ip[0] >> 4 != 4:
            return
        ihl = (ip[0] & 15) * 4
        total = struct.unpack("!H", ip[2:4])[0]
        if ip[9] != 1 or total <= self.a.min_len or len(ip) < ihl + 8 or ip[ihl] != 8:
            return
        ip = ip[:total]
        src = socket.inet_ntop(socket.AF_INET, ip[12:16])
        dst = socket.inet_ntop(socket.AF_INET, ip[16:20])
        ident, seq = struct.unpack("!HH", ip[ihl + 4:ihl + 8])
        mode = self.a.mode
        if mode == "too-big":
            self.too_big4(eth, ip, src, self.a.mtu, "too-big", seq)
        elif mode == "quote-other":
            other = bytearray(ip)
            struct.pack_into("!H", other, ihl + 6, (seq + 1) & 0xFFFF)   # the next probe's number
            self.too_big4(eth, bytes(other), src, 1500, "quote-next-seq", seq)
            other = bytearray(ip)
            other[ihl + 8] ^= 0x5A                                       # another run's stamp
            self.too_big4(eth, bytes(other), src, 1500, "quote-other-stamp", seq)
        elif mode == "reply-bad-stamp":
            data = bytearray(ip[ihl + 8:])
            data[0] ^= 0x5A
            self.reply4(eth, dst, src, ident, seq, bytes(data), "reply-bad-stamp", seq)
            self.reply4(eth, dst, src, ident, seq, b"", "reply-no-stamp", seq)
        elif mode == "reply-foreign":
            self.reply4(eth, self.a.from4, src, ident, seq, ip[ihl + 8:], "reply-foreign", seq)

    def too_big4(self, eth, quoted, to, mtu, kind, seq):
        body = icmp4(3, 4, struct.pack("!HH", 0, mtu & 0xFFFF), quoted[:548])
        self.send(eth, 0x0800, ipv4(self.a.from4, to, body), kind, seq)

    def reply4(self, eth, frm, to, ident, seq, data, kind, tag):
        body = icmp4(0, 0, struct.pack("!HH", ident, seq), data)
        self.send(eth, 0x0800, ipv4(frm, to, body), kind, tag)

    # ---- IPv6
    def on_ipv6(self, eth, ip):
        if len(ip) < 48 or ip[0] >> 4 != 6 or ip[6] != 58:
            return
        plen = struct.unpack("!H", ip[4:6])[0]
        if 40 + plen <= self.a.min_len or ip[40] != 128:
            return
        ip = ip[:40 + plen]
        src = socket.inet_ntop(socket.AF_INET6, ip[8:24])
        dst = socket.inet_ntop(socket.AF_INET6, ip[24:40])
        ident, seq = struct.unpack("!HH", ip[44:48])
        mode = self.a.mode
        if mode == "too-big":
            self.too_big6(eth, ip, src, self.a.mtu, "too-big", seq)
        elif mode == "quote-other":
            other = bytearray(ip)
            struct.pack_into("!H", other, 46, (seq + 1) & 0xFFFF)
            self.too_big6(eth, bytes(other), src, 1500, "quote-next-seq", seq)
            other = bytearray(ip)
            other[48] ^= 0x5A
            self.too_big6(eth, bytes(other), src, 1500, "quote-other-stamp", seq)
        elif mode == "reply-bad-stamp":
            data = bytearray(ip[48:])
            data[0] ^= 0x5A
            self.reply6(eth, dst, src, ident, seq, bytes(data), "reply-bad-stamp")
            self.reply6(eth, dst, src, ident, seq, b"", "reply-no-stamp")
        elif mode == "reply-foreign":
            self.reply6(eth, self.a.from6, src, ident, seq, ip[48:], "reply-foreign")

    def too_big6(self, eth, quoted, to, mtu, kind, seq):
        body = icmp6(2, 0, struct.pack("!I", mtu), quoted[:1280 - 48])
        self.send(eth, 0x86DD, ipv6(self.a.from6, to, body), kind, seq)

    def reply6(self, eth, frm, to, ident, seq, data, kind):
        body = icmp6(129, 0, struct.pack("!HH", ident, seq), data)
        self.send(eth, 0x86DD, ipv6(frm, to, body), kind, seq)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("iface")
    p.add_argument("mode", choices=["too-big", "quote-other", "reply-bad-stamp", "reply-foreign"])
    p.add_argument("--mtu", type=int, default=0, help="next-hop MTU for too-big")
    p.add_argument("--min-len", type=int, default=1500, help="only requests longer than this")
    p.add_argument("--from4", default="198.18.0.1")
    p.add_argument("--from6", default="2001:db8::1")
    p.add_argument("--log", required=True)
    p.add_argument("--seconds", type=float, default=120)
    a = p.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    Forger(a).run()


if __name__ == "__main__":
    main()
