/* A stream's evidence for the verdict (stream_evidence.h): the thread's CPU clock,
 * its schedstat (run and runnable-wait times) and one TCP_INFO read at the end. */
#include "stream_evidence.h"
#include "stream.h"
#include "clock.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* offsets in Linux's struct tcp_info (include/uapi/linux/tcp.h): a field is read only
 * when the kernel's answer is long enough to hold it */
#define TI_APP_LIMITED_BYTE 7     /* tcpi_delivery_rate_app_limited: bit 0 (4.9) */
#define TI_RTT 68
#define TI_TOTAL_RETRANS 100
#define TI_DATA_SEGS_OUT 156      /* 4.6 */
#define TI_DELIVERY_RATE 160      /* 4.9: the app-limited bit comes with it */
#define TI_BUSY 168               /* tcpi_busy_time, u64 us (4.10) */
#define TI_RWND_LIMITED 176
#define TI_SNDBUF_LIMITED 184
#define TI_DSACK_DUPS 216         /* tcpi_dsack_dups: retransmits the receiver had (5.0) */
#define TI_SND_WND 228            /* 5.4 */

static int64_t ti_get(const unsigned char *raw, socklen_t len, size_t at, size_t size)
{
    if (len < at + size)
        return -1;
    if (size == 8) {
        uint64_t v;
        memcpy(&v, raw + at, sizeof v);
        return v > INT64_MAX ? -1 : (int64_t)v;
    }
    uint32_t v;
    memcpy(&v, raw + at, sizeof v);
    return v;
}

static int64_t thread_cpu_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) < 0)
        return -1;
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* /proc/thread-self/schedstat: nanoseconds run, nanoseconds waited runnable */
static void sched_times(int64_t *run, int64_t *wait)
{
    *run = *wait = -1;
    int fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    char buf[128];
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return;
    buf[n] = '\0';
    long long r, w;
    if (sscanf(buf, "%lld %lld", &r, &w) == 2 && r >= 0 && w >= 0) {
        *run = r;
        *wait = w;
    }
}

/* /proc/net/snmp's Udp InDatagrams and RcvbufErrors: the datagrams this network
 * namespace's UDP sockets took and those they dropped for a full buffer (a GRO batch
 * counts once in each, so their ratio is the share dropped); -1 where the host has no
 * such file (ESXi) */
static void udp_counters(int64_t *in, int64_t *drops)
{
    *in = *drops = -1;
    FILE *f = fopen("/proc/net/snmp", "r");
    if (!f)
        return;
    char names[1024], vals[1024];
    while (*drops < 0 && fgets(names, sizeof names, f) && fgets(vals, sizeof vals, f)) {
        if (strncmp(names, "Udp:", 4) || strncmp(vals, "Udp:", 4))
            continue;             /* the lines come in pairs: the names, the values */
        char *ns = NULL, *vs = NULL;
        char *n = strtok_r(names + 4, " \n", &ns), *x = strtok_r(vals + 4, " \n", &vs);
        for (; n && x; n = strtok_r(NULL, " \n", &ns), x = strtok_r(NULL, " \n", &vs))
            if (!strcmp(n, "InDatagrams"))
                *in = strtoll(x, NULL, 10);
            else if (!strcmp(n, "RcvbufErrors"))
                *drops = strtoll(x, NULL, 10);
    }
    fclose(f);
}

/* the share of the datagrams arriving over the stream's run that the host dropped
 * for a full socket buffer, in percent; -1 unknown */
static double udp_drop_pct(const struct stream_evidence *e)
{
    int64_t in, drops;
    udp_counters(&in, &drops);
    if (in < 0 || drops < 0 || e->udp_in_begin < 0 || e->udp_drops_begin < 0 || in < e->udp_in_begin ||
        drops < e->udp_drops_begin)
        return -1;
    double d = (double)(drops - e->udp_drops_begin), all = d + (double)(in - e->udp_in_begin);
    return all > 0 ? 100.0 * d / all : -1;
}

void stream_evidence_begin(struct stream *s)
{
    struct stream_evidence *e = &s->ev;
    memset(e, 0, sizeof *e);
    e->begin_ns = mono_ns();
    e->cpu_begin_ns = thread_cpu_ns();
    sched_times(&e->run_begin_ns, &e->wait_begin_ns);
    e->udp_in_begin = e->udp_drops_begin = -1;
    if (!s->sender && s->udp)
        udp_counters(&e->udp_in_begin, &e->udp_drops_begin);
}

static void tcp_evidence(struct stream *s)
{
    struct stream_evidence *e = &s->ev;
    union { struct tcp_info ti; unsigned char raw[512]; } u;
    socklen_t len = sizeof u;
    memset(&u, 0, sizeof u);
    if (getsockopt(s->fd, IPPROTO_TCP, TCP_INFO, &u, &len) < 0 || len < TI_TOTAL_RETRANS + 4)
        return;               /* refused or short: every TCP figure stays unknown */
    e->tcpi_len = (int)len;
    e->rtt_us = ti_get(u.raw, len, TI_RTT, 4);
    e->retrans = ti_get(u.raw, len, TI_TOTAL_RETRANS, 4);
    e->segs_out = ti_get(u.raw, len, TI_DATA_SEGS_OUT, 4);
    if (len >= TI_DELIVERY_RATE + 8)
        e->app_limited = u.raw[TI_APP_LIMITED_BYTE] & 1;
    e->busy_us = ti_get(u.raw, len, TI_BUSY, 8);
    e->rwnd_limited_us = ti_get(u.raw, len, TI_RWND_LIMITED, 8);
    e->sndbuf_limited_us = ti_get(u.raw, len, TI_SNDBUF_LIMITED, 8);
    e->dsack_dups = ti_get(u.raw, len, TI_DSACK_DUPS, 4);
    e->snd_wnd = ti_get(u.raw, len, TI_SND_WND, 4);
}

void stream_evidence_end(struct stream *s)
{
    struct stream_evidence *e = &s->ev;
    double wall = (double)(mono_ns() - e->begin_ns);
    int64_t cpu = thread_cpu_ns(), run, wait;
    sched_times(&run, &wait);
    e->thread_pct = e->demand_pct = -1;
    e->wall_us = wall / 1e3;
    if (wall > 0 && cpu >= 0 && e->cpu_begin_ns >= 0)
        e->thread_pct = 100.0 * (double)(cpu - e->cpu_begin_ns) / wall;
    if (wall > 0 && run >= 0 && e->run_begin_ns >= 0)
        e->demand_pct = 100.0 * (double)(run - e->run_begin_ns + wait - e->wait_begin_ns) / wall;
    e->app_limited = -1;
    e->busy_us = e->rwnd_limited_us = e->sndbuf_limited_us = -1;
    e->rtt_us = e->segs_out = e->retrans = e->snd_wnd = e->dsack_dups = -1;
    int buf = 0;
    socklen_t bl = sizeof buf;
    e->sock_buf = getsockopt(s->fd, SOL_SOCKET, s->sender ? SO_SNDBUF : SO_RCVBUF, &buf, &bl) == 0 &&
                  buf > 0 ? buf : -1;
    e->udp_drop_pct = !s->sender && s->udp ? udp_drop_pct(e) : -1;
    if (s->sender && !s->udp)
        tcp_evidence(s);
}
