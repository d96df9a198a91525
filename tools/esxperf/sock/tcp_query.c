/* What the kernel says about a TCP data socket (tcp_query.h). */
#include "tcp_query.h"
#include "fail.h"
#include "fallback.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

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
