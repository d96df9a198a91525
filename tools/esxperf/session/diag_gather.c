/* The verdict's evidence from a finished test (diagnose.h): the streams' own
 * measures (stream_evidence.h), the end figures, the peer's CPU from the results
 * exchange, the egress link's speed (link_speed.h), the data socket's route MTU and
 * peer; then the decision. Read at the end only: nothing here runs per interval. */
#include "session.h"
#include "netstack_enter.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#define ESXI_AUTOTUNE_CAP 16777216.0   /* Net.TcpipAutoScaleRcvBufSize's default */

/* the largest receive buffer autotuning reaches: Linux's tcp_rmem maximum, else
 * (no /proc) on a host with esxcli ESXi's default cap, else unknown */
static double autotune_cap(void)
{
    FILE *f = fopen("/proc/sys/net/ipv4/tcp_rmem", "r");
    if (f) {
        long a, b, c;
        int ok = fscanf(f, "%ld %ld %ld", &a, &b, &c) == 3;
        fclose(f);
        if (ok && c > 0)
            return (double)c;
    }
    char prog[256];
    return netstack_find_esxcli(prog, sizeof prog) == 0 ? ESXI_AUTOTUNE_CAP : -1;
}

static void max_into(double *to, double v)
{
    if (v >= 0 && v > *to)
        *to = v;
}

static void sum_into(double *to, int64_t v)
{
    if (v >= 0)
        *to = (*to < 0 ? 0 : *to) + (double)v;
}

/* this side's streams: thread CPU, and a TCP sender's TCP_INFO */
static void streams_evidence(const struct session *s, const struct totals *t, struct diag_evidence *e)
{
    for (int i = 0; i < s->nstreams; i++) {
        const struct stream *st = &s->st[i];
        const struct stream_evidence *v = &st->ev;
        if (session_group(s, i) != 0 || !v->begin_ns)
            continue;            /* --bidir's reverse direction, or a loop never run */
        max_into(st->sender ? &e->snd_thread_pct : &e->rcv_thread_pct, v->thread_pct);
        max_into(st->sender ? &e->snd_thread_demand_pct : &e->rcv_thread_demand_pct, v->demand_pct);
        if (!st->sender || st->udp || !v->tcpi_len)
            continue;
        if (v->busy_us >= 0)
            sum_into(&e->wall_us, (int64_t)v->wall_us);
        sum_into(&e->busy_us, v->busy_us);
        sum_into(&e->rwnd_limited_us, v->rwnd_limited_us);
        sum_into(&e->sndbuf_limited_us, v->sndbuf_limited_us);
        sum_into(&e->segs_out, v->segs_out);
        sum_into(&e->retrans, v->retrans);
        max_into(&e->rtt_us, (double)v->rtt_us);
        if (v->app_limited >= 0)
            e->app_limited = e->app_limited > 0 || v->app_limited;
        max_into(&e->peer_wnd_bytes, (double)(t->st[i].tcpinfo_ok ? t->st[i].max_snd_wnd : v->snd_wnd));
        max_into(&e->mss_bytes, (double)v->mss);
        max_into(&e->mss_start_bytes, (double)v->mss_begin);
        sum_into(&e->bytes_acked, v->bytes_acked);
        max_into(&e->rto_backoff, (double)v->backoff);
    }
}

/* a UDP sender's fragments: the count is the host's (or namespace's), so each
 * stream saw about the whole run's; the largest */
static void udp_frags(const struct session *s, struct diag_evidence *e)
{
    for (int i = 0; i < s->nstreams; i++)
        if (session_group(s, i) == 0 && s->st[i].sender && s->st[i].udp && s->st[i].ev.begin_ns)
            max_into(&e->frag_creates, (double)s->st[i].ev.frags);
}

/* the data socket's peer (its address as text into buf) and the MTU of its route
 * (IP_MTU / IPV6_MTU, on a connected socket); each unknown where the host refuses */
static void path_of(int fd, struct diag_evidence *e, char *buf, size_t len)
{
    union { struct sockaddr sa; struct sockaddr_in in; struct sockaddr_in6 in6; } a;
    socklen_t al = sizeof a;
    if (fd < 0 || getpeername(fd, &a.sa, &al) < 0)
        return;
    e->ipv6 = a.sa.sa_family == AF_INET6 && !IN6_IS_ADDR_V4MAPPED(&a.in6.sin6_addr);
    const void *addr = a.sa.sa_family == AF_INET6 ? (const void *)&a.in6.sin6_addr : (const void *)&a.in.sin_addr;
    if (inet_ntop(a.sa.sa_family, addr, buf, (socklen_t)len)) {
        if (!strncmp(buf, "::ffff:", 7) && strchr(buf, '.'))
            memmove(buf, buf + 7, strlen(buf + 7) + 1);
        e->peer = buf;
    }
    int mtu = 0;
    socklen_t ml = sizeof mtu;
    int rc = a.sa.sa_family == AF_INET6 ? getsockopt(fd, IPPROTO_IPV6, IPV6_MTU, &mtu, &ml)
                                        : getsockopt(fd, IPPROTO_IP, IP_MTU, &mtu, &ml);
    if (rc == 0 && mtu > 0)
        e->route_mtu = mtu;
}

void session_diagnose(const struct session *s, struct totals *t)
{
    struct diag_evidence e;
    char peer[INET6_ADDRSTRLEN];
    diag_evidence_init(&e);
    const struct group_totals *g0 = &t->grp[0];
    e.udp = t->udp;
    e.streams = (int)(s->p.parallel > 0 ? s->p.parallel : 1);
    e.rate_bps = t->fig.gbps * 1e9;
    int64_t per = s->p.bandwidth > 0 ? s->p.bandwidth : s->p.fqrate;
    e.target_bps = per > 0 ? (double)per * e.streams : 0;
    if (s->nstreams > 0)
        link_speed_of(s->st[0].fd, &t->link);
    else
        memset(&t->link, 0, sizeof t->link), t->link.mbps = t->link.hw_tso = t->link.lro = -1;
    e.link_mbps = t->link.mbps;
    e.link_name = t->link.uplink[0] ? t->link.uplink : t->link.iface[0] ? t->link.iface : NULL;
    /* this host's offloads (ESXi, read through esxcli): TSO where it sends, LRO where
     * it receives */
    e.tso_off = !strcmp(t->link.tso, "off") || t->link.hw_tso == 0 ? 1 : t->link.tso[0] ? 0 : -1;
    e.lro_off = t->link.lro < 0 ? -1 : t->link.lro == 0;
    e.local_sender = !s->p.reverse;
    /* the process figures: this side's, the peer's from the results exchange */
    int local_sends = !s->p.reverse;
    double here = t->cpu_total, there = t->have_remote ? t->remote_total : -1;
    e.snd_proc_pct = local_sends ? here : there;
    e.rcv_proc_pct = local_sends ? there : here;
    streams_evidence(s, t, &e);
    /* the peer's busiest thread, where the peer is esxperf (the results' addition) */
    if (s->have_remote && s->remote.thread_cpu_demand >= 0)
        max_into(local_sends ? &e.rcv_thread_demand_pct : &e.snd_thread_demand_pct,
                 s->remote.thread_cpu_demand);
    if (e.udp && g0->nrcv)
        e.udp_loss_pct = g0->rcv.packets > 0 ? 100.0 * (double)g0->rcv.lost / (double)g0->rcv.packets : 0;
    e.window_bytes = (double)s->p.window;
    if (!e.udp)
        e.autotune_cap_bytes = autotune_cap();
    path_of(s->nstreams > 0 ? s->st[0].fd : -1, &e, peer, sizeof peer);
    if (e.udp) {
        e.udp_len = (double)s->p.len;
        if (g0->nsnd)
            e.udp_sent = (double)g0->snd.packets;
        if (g0->nrcv && g0->rcv.packets >= g0->rcv.lost)
            e.udp_received = (double)(g0->rcv.packets - g0->rcv.lost);
        udp_frags(s, &e);
    }
    e.vmk = !strncmp(t->link.iface, "vmk", 3) ? t->link.iface : NULL;
    diag_decide(&e, &t->diag);
    t->have_diag = 1;
    t->fig.bottleneck = t->diag.key;
}
