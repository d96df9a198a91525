/* The data sockets' options and what the kernel says about them: -w -M -N -C -S
 * --dont-fragment and fqrate from the test parameters, the loop timeouts,
 * TCP_INFO samples, unacknowledged bytes, the congestion control in use, and the
 * -C check made before a test. */
#include "stream.h"
#include "fail.h"
#include "fallback.h"
#include "net.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

int stream_sockopts(int fd, const struct test_params *p, int family, const char **why)
{
    int one = 1;
    if (p->window) {
        int w = (int)p->window;
        if (setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &w, sizeof w) < 0 ||
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &w, sizeof w) < 0) {
            *why = "cannot set the socket buffer size (-w: SO_SNDBUF/SO_RCVBUF refused; drop -w)";
            return -1;
        }
    }
    if (!p->udp) {
        if (p->mss) {
            int m = (int)p->mss;
            if (setsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, &m, sizeof m) < 0) {
                *why = "cannot set the TCP MSS (-M: TCP_MAXSEG)";
                return -1;
            }
        }
        if (p->nodelay && setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) < 0) {
            *why = "cannot set TCP_NODELAY (-N)";
            return -1;
        }
        if (p->congestion[0] &&
            setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, p->congestion,
                       (socklen_t)strlen(p->congestion)) < 0) {
            *why = "cannot set the congestion control (-C; is the module loaded?)";
            return -1;
        }
    }
    if (p->tos) {
        int t = (int)p->tos;
        int rc = family == AF_INET6
                     ? setsockopt(fd, IPPROTO_IPV6, IPV6_TCLASS, &t, sizeof t)
                     : setsockopt(fd, IPPROTO_IP, IP_TOS, &t, sizeof t);
        if (rc < 0) {
            *why = "cannot set the TOS (-S: IP_TOS / IPV6_TCLASS)";
            return -1;
        }
    }
    if (p->dont_fragment && p->udp && family == AF_INET) {
        int v = IP_PMTUDISC_DO;
        if (setsockopt(fd, IPPROTO_IP, IP_MTU_DISCOVER, &v, sizeof v) < 0) {
            *why = "cannot set the don't-fragment bit (--dont-fragment: IP_MTU_DISCOVER)";
            return -1;
        }
    }
    if (p->fqrate / 8) {
        /* bytes/s, 64 bits as iperf3 gives it; a kernel before 4.20 takes 32 (capped) */
        uint64_t r = (uint64_t)p->fqrate / 8;
        unsigned int r32 = r > 0xffffffffu ? 0xffffffffu : (unsigned int)r;
        if (setsockopt(fd, SOL_SOCKET, SO_MAX_PACING_RATE, &r, sizeof r) < 0 &&
            setsockopt(fd, SOL_SOCKET, SO_MAX_PACING_RATE, &r32, sizeof r32) < 0) {
            *why = "cannot set the pacing rate (--fq-rate, SO_MAX_PACING_RATE)";
            return -1;
        }
    }
    return 0;
}

int stream_set_timeouts(struct stream *s, int ms)
{
    struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };
    const char *opt = "SO_SNDTIMEO";
    if (setsockopt(s->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv) == 0) {
        opt = "SO_RCVTIMEO";
        if (setsockopt(s->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) == 0)
            return 0;
    }
    fallback_note(opt, errno, "non-blocking data sockets, poll() before each retry");
    s->poll_wait = 1;
    return net_set_nonblock(s->fd, 1);
}

void stream_io_wait(struct stream *s, short events)
{
    if (!s->poll_wait)
        return;
    if (s->sh->turn) {           /* a one-thread run: no longer than until the next turn */
        stream_turn_wait(s->sh, s->fd, events);
        return;
    }
    struct pollfd p = { s->fd, events, 0 };
    (void)poll(&p, 1, LOOP_TIMEOUT_MS);     /* ready, timed out or interrupted: the loop looks */
}

long long stream_tcp_unacked(int fd)
{
    int n = 0;
    /* TIOCOUTQ on a TCP socket (SIOCOUTQ): bytes written and not yet acknowledged */
    if (ioctl(fd, TIOCOUTQ, &n) < 0)
        return -1;
    return n;
}

/* Three u32 fields of Linux's struct tcp_info by their offsets in its ABI (the same on
 * x86_64 and aarch64): older C libraries' headers end before them. A kernel fills
 * as much of the struct as it knows, so the length it returns says which it has. */
#define TCPI_MIN_RTT_AT 148         /* tcpi_min_rtt, Linux 4.6 */
#define TCPI_REORD_SEEN_AT 220      /* tcpi_reord_seen, Linux 4.19 */
#define TCPI_SND_WND_AT 228         /* tcpi_snd_wnd, Linux 5.4 */
static int64_t tcpi_u32(const unsigned char *raw, socklen_t len, size_t at)
{
    uint32_t v;
    if (len < at + sizeof v)
        return -1;
    memcpy(&v, raw + at, sizeof v);
    return v;
}

int stream_tcp_info(int fd, struct tcp_sample *t)
{
    union { struct tcp_info ti; unsigned char raw[512]; } u;
    socklen_t len = sizeof u;
    memset(&u, 0, sizeof u);
    if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &u, &len) < 0 || len < 104) {
        fallback_note("TCP_INFO", len < 104 ? EINVAL : errno, "retransmits, cwnd and rtt are n/a");
        t->retrans = t->cwnd = t->rtt = t->rttvar = t->pmtu = t->snd_wnd = t->reorder = -1;
        t->min_rtt = -1;
        return -1;
    }
    const struct tcp_info ti = u.ti;
    /* what iperf3 3.20+ reports as snd_wnd and reorder, where this kernel has them */
    t->snd_wnd = tcpi_u32(u.raw, len, TCPI_SND_WND_AT);
    t->reorder = tcpi_u32(u.raw, len, TCPI_REORD_SEEN_AT);
    t->min_rtt = tcpi_u32(u.raw, len, TCPI_MIN_RTT_AT);
    t->retrans = ti.tcpi_total_retrans;
    t->cwnd = (int64_t)ti.tcpi_snd_cwnd * ti.tcpi_snd_mss;
    t->rtt = ti.tcpi_rtt;
    t->rttvar = ti.tcpi_rttvar;
    t->pmtu = ti.tcpi_pmtu;
    return 0;
}

void stream_congestion(int fd, char *buf, size_t len)
{
    char name[32] = "";
    socklen_t n = sizeof name - 1;
    if (getsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, name, &n) < 0) {
        fallback_note("getsockopt TCP_CONGESTION", errno, "the congestion control in use is not reported");
        name[0] = '\0';
    }
    name[sizeof name - 1] = '\0';
    snprintf(buf, len, "%s", name);
}

int stream_congestion_check(const char *algo, char *why, size_t len)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return 0;       /* no socket to ask: the data streams will say */
    int rc = setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, algo, (socklen_t)strlen(algo));
    int e = errno;
    close(fd);
    if (rc == 0)
        return 0;
    char have[200] = "";
    FILE *f = fopen("/proc/sys/net/ipv4/tcp_available_congestion_control", "r");
    if (f) {
        if (!fgets(have, sizeof have, f))
            have[0] = '\0';
        fclose(f);
        have[strcspn(have, "\n")] = '\0';
    }
    snprintf(why, len, "bad congestion control -C '%s': %s (%s%s)", algo,
             e == ENOENT ? "this host has no such algorithm"
             : e == EPERM ? "not allowed for this user (net.ipv4.tcp_allowed_congestion_control)"
             : e == ENOPROTOOPT ? "this system cannot choose one" : errtext(e),
             have[0] ? "available: " : "drop -C", have);
    return -1;
}
