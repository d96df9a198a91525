/* The probe table and how a probe is run (probes.h); the probes themselves are in
 * probe_syscalls.c and probe_sockopts.c. Rule for every probe: it makes the very
 * call the tools make, with the tools' arguments, straight to the kernel (syscall()
 * where musl would hide a refusal behind its own fallback), on a socket bound to
 * loopback or never connected; what it needs first (a loopback TCP connection, a
 * UDP socket talking to itself) is made with the plain calls of Linux 2.6.32 and no
 * socket option, so that one refused call shows in its own row and no other. */
#include "probe_kit.h"
#include "linux_opts.h"
#include "fallback_texts.h"
#include "errname.h"
#include "bytes.h"
#include "clock.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- the table: one row per call or option, what the tools do without it */

#define SYSCALL(name, fn, v, fb) { { name, "syscall", fb }, fn, 0, 0, 0, 0, 0, v, 0 }
/* SOCKET and OPT take a socket as TCP4, UDP6, ...: expanded into three arguments first */
#define SOCKET(...) SOCKET_(__VA_ARGS__)
#define OPT(...) OPT_(__VA_ARGS__)
#define SOCKET_(name, fam, type, proto, root, fb) \
    { { name, "syscall", fb }, try_socket, fam, type, proto, 0, 0, 0, root }
#define OPT_(name, fn, fam, type, proto, lvl, opt, v, root, fb) \
    { { name, "sockopt", fb }, fn, fam, type, proto, lvl, opt, v, root }
#define TCP4 AF_INET, SOCK_STREAM, 0
#define TCP6 AF_INET6, SOCK_STREAM, 0
#define UDP4 AF_INET, SOCK_DGRAM, 0
#define UDP6 AF_INET6, SOCK_DGRAM, 0
#define RAW4 AF_INET, SOCK_RAW, IPPROTO_ICMP

static const struct probe probes[] = {
    SYSCALL("fork", try_fork, 0,
            "esxperf -D: starts the same command again (posix_spawn) to detach"),
    SYSCALL("accept4", try_accept4, 0,
            "esxperf -s: musl's accept4 accepts with accept, then fcntl FD_CLOEXEC"),
    SYSCALL("pipe2", try_pipe2, 0,
            "esxperf -D: musl's pipe2 makes a pipe, then fcntl FD_CLOEXEC"),
    SYSCALL("dup3", try_dup3, 0,
            "esxperf --logfile, -D: x86_64 uses dup2; aarch64 has only dup3: no redirect"),
    SYSCALL("openat", try_openat, 0,
            "x86_64: musl opens with open; aarch64 has no other call: no file can be opened"),
    SYSCALL("socket SOCK_CLOEXEC", try_socket_flag, SOCK_CLOEXEC,
            "all tools: musl's socket retries without the flag, then fcntl FD_CLOEXEC"),
    SYSCALL("socket SOCK_NONBLOCK", try_socket_flag, SOCK_NONBLOCK,
            "all tools: musl's socket retries without the flag, then fcntl O_NONBLOCK"),
    SYSCALL("getrandom", try_getrandom, 0,
            "esxperf: reads /dev/urandom (test cookie, authentication)"),
    SYSCALL("sendmmsg", try_mmsg, 1,
            "esxperf -u: one datagram per sendmsg call (more CPU per datagram)"),
    SYSCALL("recvmmsg", try_mmsg, 0,
            "esxperf -u: one datagram per recvmsg call (more CPU per datagram)"),
    SYSCALL("pthread_create", try_pthread, 0,
            "esxperf: one stream runs on the session's thread; -P 2+, --bidir refused"),
    SYSCALL("clock_gettime", try_clock, 0,
            "none: every tool times with CLOCK_MONOTONIC"),
    SYSCALL("sched_setaffinity", try_affinity, 0,
            "esxperf -A: warns and runs unpinned"),
    SYSCALL("prlimit64", try_prlimit, 0,
            "esxperf (open-file limit after EMFILE): musl's getrlimit asks getrlimit"),
    SYSCALL("membarrier", try_membarrier, 0,
            "none needed: the static tools never ask for it (musl signals each thread)"),
    SYSCALL("statx", try_statx, 0,
            "none needed: musl stats with fstat/newfstatat on x86_64 and aarch64"),
    SYSCALL("setpgid", try_setpgid, 0,
            "esxmtu's esxcli calls: in esxmtu's own group; what esxcli leaves behind is not killed"),
    SYSCALL("sendfile", try_sendfile, 0,
            "esxperf -Z: send() copies from user memory"),
    SOCKET("socket IPPROTO_MPTCP", AF_INET, SOCK_STREAM, IPPROTO_MPTCP, 0,
           "esxperf -m: refused with a message (plain TCP without -m)"),
    SOCKET("socket SOCK_RAW ICMP", RAW4, 1,
           "esxmtu: unprivileged ping sockets (--method dgram)"),
    SOCKET("socket SOCK_RAW ICMPv6", AF_INET6, SOCK_RAW, IPPROTO_ICMPV6, 1,
           "esxmtu -6: unprivileged ping sockets (--method dgram)"),
    SOCKET("socket ICMP ping (dgram)", AF_INET, SOCK_DGRAM, IPPROTO_ICMP, 0,
           "esxmtu: raw sockets (needs root); without root no IPv4 probing"),
    SOCKET("socket ICMPv6 ping (dgram)", AF_INET6, SOCK_DGRAM, IPPROTO_ICMPV6, 0,
           "esxmtu -6: raw sockets (needs root); without root no IPv6 probing"),
    SOCKET("socket SOCK_RAW IPPROTO_RAW", AF_INET, SOCK_RAW, IPPROTO_RAW, 1,
           "esxmtu: IP_HDRINCL on the ICMP socket; both refused: --method errqueue"),
    SOCKET("socket SOCK_RAW IPPROTO_RAW IPv6", AF_INET6, SOCK_RAW, IPPROTO_RAW, 1,
           "esxmtu -6: DF by IPV6_DONTFRAG or PMTUDISC_PROBE; all three refused: no -6 probes"),
    OPT("IP_HDRINCL", try_setopt, RAW4, IPPROTO_IP, IP_HDRINCL, 1, 1,
        "esxmtu: an IPPROTO_RAW socket sends its own header (DF set); else --method errqueue"),
    OPT("IP_MTU_DISCOVER PMTUDISC_DO", try_setopt, UDP4, IPPROTO_IP, IP_MTU_DISCOVER, IP_PMTUDISC_DO, 0,
        "esxperf --dont-fragment: refused with a message"),
    OPT("IP_MTU_DISCOVER PMTUDISC_PROBE", try_setopt, UDP4, IPPROTO_IP, IP_MTU_DISCOVER, IP_PMTUDISC_PROBE, 0,
        "esxmtu: raw method only (own header with DF); the path-MTU cache applies, named in its output"),
    OPT("IP_RECVERR", try_setopt, UDP4, IPPROTO_IP, IP_RECVERR, 1, 0,
        "esxmtu: raw method reads ICMP itself; errqueue and dgram methods unusable"),
    OPT("IPV6_MTU_DISCOVER PMTUDISC_PROBE", try_setopt, UDP6, IPPROTO_IPV6, IPV6_MTU_DISCOVER, IPV6_PMTUDISC_PROBE, 0,
        "esxmtu -6: IPV6_DONTFRAG alone; both refused: own IPv6 header by an IPPROTO_RAW socket"),
    OPT("IPV6_DONTFRAG", try_setopt, UDP6, IPPROTO_IPV6, IPV6_DONTFRAG, 1, 0,
        "esxmtu -6: PMTUDISC_PROBE alone; both refused: own IPv6 header by an IPPROTO_RAW socket"),
    OPT("IPV6_RECVERR", try_setopt, UDP6, IPPROTO_IPV6, IPV6_RECVERR, 1, 0,
        "esxmtu -6: raw method only (it reads ICMPv6 itself)"),
    OPT("IP_TTL", try_setopt, UDP4, IPPROTO_IP, IP_TTL, 64, 0,
        "esxmtu --trace, -t: probes with a TTL are not sent (SEND FAILED); IPv4 raw sets it in its header"),
    OPT("IPV6_UNICAST_HOPS", try_setopt, UDP6, IPPROTO_IPV6, IPV6_UNICAST_HOPS, 64, 0,
        "esxmtu --trace -6, -t: probes with a hop limit are not sent (SEND FAILED)"),
    OPT("IP_PKTINFO", try_setopt, UDP4, IPPROTO_IP, IP_PKTINFO, 1, 0,
        "esxperf -s -u (wildcard): " FB_PKTINFO),
    OPT("IPV6_RECVPKTINFO", try_setopt, UDP6, IPPROTO_IPV6, IPV6_RECVPKTINFO, 1, 0,
        "esxperf -s -u -6 (wildcard): " FB_PKTINFO),
    OPT("UDP_SEGMENT", try_setopt, UDP4, SOL_UDP, UDP_SEGMENT, 1400, 0,
        "esxperf -u: " FB_UDP_SEGMENT),
    OPT("UDP_GRO", try_setopt, UDP4, SOL_UDP, UDP_GRO, 1, 0,
        "esxperf -u receiver: " FB_UDP_GRO),
    OPT("SO_REUSEADDR", try_setopt, TCP4, SOL_SOCKET, SO_REUSEADDR, 1, 0,
        "esxperf -s: " FB_SO_REUSEADDR),
    OPT("IPV6_V6ONLY", try_setopt, TCP6, IPPROTO_IPV6, IPV6_V6ONLY, 1, 0,
        "esxperf -s -6: warns that the listener takes IPv4 clients too; esxperf -s: " FB_IPV6_V6ONLY),
    OPT("SO_SNDBUF", try_setopt, TCP4, SOL_SOCKET, SO_SNDBUF, 1 << 20, 0,
        "esxperf -w: refused with a message; otherwise the kernel's default size"),
    OPT("SO_RCVBUF", try_setopt, TCP4, SOL_SOCKET, SO_RCVBUF, 1 << 20, 0,
        "esxperf -w: refused with a message; esxmtu: the kernel's default size"),
    OPT("SO_SNDBUFFORCE", try_setopt, UDP4, SOL_SOCKET, SO_SNDBUFFORCE, 1 << 20, 1,
        "esxmtu: SO_SNDBUF (capped by the kernel's wmem_max)"),
    OPT("SO_RCVBUFFORCE", try_setopt, UDP4, SOL_SOCKET, SO_RCVBUFFORCE, 1 << 20, 1,
        "esxmtu: SO_RCVBUF (capped by the kernel's rmem_max)"),
    OPT("SO_RCVLOWAT", try_setopt, TCP4, SOL_SOCKET, SO_RCVLOWAT, 65536, 0,
        "esxperf: " FB_SO_RCVLOWAT),
    OPT("SO_RCVTIMEO", try_timeo, TCP4, SOL_SOCKET, SO_RCVTIMEO, 0, 0,
        "esxperf: " FB_TIMEO),
    OPT("SO_SNDTIMEO", try_timeo, TCP4, SOL_SOCKET, SO_SNDTIMEO, 0, 0,
        "esxperf: " FB_TIMEO),
    OPT("SO_KEEPALIVE", try_setopt, TCP4, SOL_SOCKET, SO_KEEPALIVE, 1, 0,
        "esxperf --cntl-ka: refused with a message"),
    OPT("TCP_KEEPIDLE", try_setopt, TCP4, IPPROTO_TCP, TCP_KEEPIDLE, 30, 0,
        "esxperf --cntl-ka: refused with a message"),
    OPT("TCP_KEEPINTVL", try_setopt, TCP4, IPPROTO_TCP, TCP_KEEPINTVL, 10, 0,
        "esxperf --cntl-ka: refused with a message"),
    OPT("TCP_KEEPCNT", try_setopt, TCP4, IPPROTO_TCP, TCP_KEEPCNT, 3, 0,
        "esxperf --cntl-ka: refused with a message"),
    OPT("TCP_NODELAY", try_setopt, TCP4, IPPROTO_TCP, TCP_NODELAY, 1, 0,
        "esxperf -N: refused with a message; otherwise " FB_TCP_NODELAY),
    OPT("TCP_MAXSEG", try_setopt, TCP4, IPPROTO_TCP, TCP_MAXSEG, 1400, 0,
        "esxperf -M: refused with a message"),
    OPT("TCP_CONGESTION", try_congestion, TCP4, 0, 0, 0, 0,
        "esxperf -C: refused with a message; the report names no algorithm"),
    OPT("TCP_USER_TIMEOUT", try_setopt, TCP4, IPPROTO_TCP, TCP_USER_TIMEOUT, 10000, 0,
        "esxperf --snd-timeout: refused with a message"),
    OPT("TCP_INFO", try_tcp_info, TCP4, 0, 0, 0, 0,
        "esxperf: retransmits reported as n/a"),
    OPT("getsockopt SO_ERROR", try_getopt, TCP4, SOL_SOCKET, SO_ERROR, 0, 0,
        "esxperf -c: a connect's outcome read by calling connect() again"),
    OPT("getsockopt TCP_MAXSEG", try_getopt, TCP4, IPPROTO_TCP, TCP_MAXSEG, 0, 0,
        "esxperf: the MSS is not reported; -u sends 1460-byte datagrams unless -l"),
    OPT("getsockopt SO_SNDBUF", try_getopt, TCP4, SOL_SOCKET, SO_SNDBUF, 0, 0,
        "esxperf: the send buffer's size is not reported"),
    OPT("getsockopt SO_RCVBUF", try_getopt, TCP4, SOL_SOCKET, SO_RCVBUF, 0, 0,
        "esxperf: the receive buffer's size is not reported; TCP reads without SO_RCVLOWAT"),
    OPT("getsockopt IP_MTU", try_getopt_connected, UDP4, IPPROTO_IP, IP_MTU, 0, 0,
        "esxperf: the route's MTU is not in the verdict's evidence (path-mtu, fragmentation)"),
    OPT("getsockopt IPV6_MTU", try_getopt_connected, UDP6, IPPROTO_IPV6, IPV6_MTU, 0, 0,
        "esxperf: the route's MTU is not in the verdict's evidence (path-mtu, fragmentation)"),
    OPT("TCP_QUICKACK", try_setopt, TCP4, IPPROTO_TCP, TCP_QUICKACK, 1, 0,
        "esxperf --rr: answers may be acknowledged late (a fallback line says so)"),
    OPT("SO_MAX_PACING_RATE", try_pacing, TCP4, 0, 0, 0, 0,
        "esxperf --fq-rate: refused with a message"),
    OPT("SO_ZEROCOPY", try_setopt, TCP4, SOL_SOCKET, SO_ZEROCOPY, 1, 0,
        "esxperf: " FB_SO_ZEROCOPY),
    OPT("MSG_ZEROCOPY", try_msg_zerocopy, TCP4, 0, 0, 0, 0,
        "esxperf -Z after SO_ZEROCOPY worked: sendfile() from the first refused send"),
    OPT("IP_TOS", try_setopt, TCP4, IPPROTO_IP, IP_TOS, 0x10, 0,
        "esxperf -S: refused with a message"),
    OPT("IPV6_TCLASS", try_setopt, TCP6, IPPROTO_IPV6, IPV6_TCLASS, 0x10, 0,
        "esxperf -S -6: refused with a message"),
    OPT("IPV6_FLOWLABEL_MGR", try_flowlabel, TCP6, 0, 0, 0, 0,
        "esxperf -L: refused with a message"),
    OPT("IPV6_FLOWINFO_SEND", try_setopt, TCP6, IPPROTO_IPV6, IPV6_FLOWINFO_SEND, 1, 0,
        "esxperf -L: refused with a message"),
    OPT("SO_BINDTODEVICE", try_bindtodevice, UDP4, 0, 0, 0, 1,
        "esxmtu -I, esxperf --bind-dev: refused with a message (give the address with -B)"),
};

size_t probe_count(void)
{
    return ARRAY_SIZE(probes);
}

const struct probe_row *probe_row(size_t i)
{
    return i < ARRAY_SIZE(probes) ? &probes[i].row : NULL;
}

void probe_run(size_t i, int root, struct probe_result *r)
{
    memset(r, 0, sizeof *r);
    if (i >= ARRAY_SIZE(probes)) {
        not_tried(r, "no such probe", 0);
        return;
    }
    const struct probe *p = &probes[i];
    if (p->root && !root) {
        not_tried(r, "needs root", 0);
        return;
    }
    int saved = errno;
    p->run(p, r);
    errno = saved;
}

const char *probe_state_name(enum probe_state s)
{
    return s == PROBE_WORKS ? "works" : s == PROBE_REFUSED ? "refused" : "not-tried";
}
