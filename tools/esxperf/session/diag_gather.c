/* The verdict's evidence from a finished test (diagnose.h): each side's own figures
 * (side_evidence.h: its streams' measures, stream_evidence.h, and its data socket's
 * route MTU), this side's gathered here and the peer's from the results exchange; the
 * direction judged takes the sender's figures from the side that sent and the
 * receiver's from the side that received, so -R, --bidir and a server judge as a
 * forward client does. Then the end figures, the egress link's speed (link_speed.h),
 * the peer's address and the decision. Read at the start and the end only: nothing
 * here runs per interval. */
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

static void sum_into(double *to, double v)
{
    if (v >= 0)
        *to = (*to < 0 ? 0 : *to) + v;
}

/* the data socket's peer: its family and address (as text into buf); unknown where
 * the host refuses. Returns the family, AF_UNSPEC unknown. */
static int peer_of(int fd, struct diag_evidence *e, char *buf, size_t len)
{
    union { struct sockaddr sa; struct sockaddr_in in; struct sockaddr_in6 in6; } a;
    socklen_t al = sizeof a;
    if (fd < 0 || getpeername(fd, &a.sa, &al) < 0)
        return AF_UNSPEC;
    if (e) {
        e->ipv6 = a.sa.sa_family == AF_INET6 && !IN6_IS_ADDR_V4MAPPED(&a.in6.sin6_addr);
        const void *addr = a.sa.sa_family == AF_INET6 ? (const void *)&a.in6.sin6_addr
                                                       : (const void *)&a.in.sin_addr;
        if (inet_ntop(a.sa.sa_family, addr, buf, (socklen_t)len)) {
            if (!strncmp(buf, "::ffff:", 7) && strchr(buf, '.'))
                memmove(buf, buf + 7, strlen(buf + 7) + 1);
            e->peer = buf;
        }
    }
    return a.sa.sa_family;
}

/* the MTU of the data socket's route (IP_MTU / IPV6_MTU, on a connected socket): the
 * sender's decides what leaves in fragments; -1 where the host refuses */
static double route_mtu(int fd)
{
    int af = peer_of(fd, NULL, NULL, 0), mtu = 0;
    socklen_t ml = sizeof mtu;
    if (af == AF_UNSPEC)
        return -1;
    int rc = af == AF_INET6 ? getsockopt(fd, IPPROTO_IPV6, IPV6_MTU, &mtu, &ml)
                            : getsockopt(fd, IPPROTO_IP, IP_MTU, &mtu, &ml);
    return rc == 0 && mtu > 0 ? mtu : -1;
}

/* a TCP sender's TCP_INFO into the side's sums */
static void tcp_sender(const struct stream_evidence *x, const struct stream_book *b, struct side_evidence *v)
{
    if (x->busy_us >= 0)
        sum_into(&v->wall_us, x->wall_us);
    sum_into(&v->busy_us, (double)x->busy_us);
    sum_into(&v->rwnd_limited_us, (double)x->rwnd_limited_us);
    sum_into(&v->sndbuf_limited_us, (double)x->sndbuf_limited_us);
    sum_into(&v->segs_out, (double)x->segs_out);
    sum_into(&v->retrans, (double)x->retrans);
    sum_into(&v->dsack_dups, (double)x->dsack_dups);
    max_into(&v->rtt_us, (double)x->rtt_us);
    if (x->app_limited >= 0)
        v->app_limited = v->app_limited > 0 || x->app_limited;
    max_into(&v->peer_wnd_bytes, (double)(b->tcpinfo_ok ? b->max_snd_wnd : x->snd_wnd));
    max_into(&v->mss_bytes, (double)x->mss);
    max_into(&v->mss_start_bytes, (double)x->mss_begin);
    sum_into(&v->bytes_acked, (double)x->bytes_acked);
    max_into(&v->rto_backoff, (double)x->backoff);
}

void session_side_evidence(const struct session *s, struct side_evidence *v)
{
    side_evidence_init(v);
    for (int i = 0; i < s->nstreams; i++) {
        const struct stream *st = &s->st[i];
        const struct stream_evidence *x = &st->ev;
        if (!x->begin_ns)
            continue;             /* a loop never run, or no evidence read */
        if (st->sender) {
            max_into(&v->snd_thread_pct, x->thread_pct);
            max_into(&v->snd_demand_pct, x->demand_pct);
            max_into(&v->snd_buf_bytes, (double)x->sock_buf);
            if (!st->udp && x->tcpi_len)
                tcp_sender(x, &s->bk[i], v);
            if (st->udp)          /* the host's count: each stream saw the whole run's */
                max_into(&v->frag_creates, (double)x->frags);
        } else {
            max_into(&v->rcv_thread_pct, x->thread_pct);
            max_into(&v->rcv_demand_pct, x->demand_pct);
            max_into(&v->rcv_buf_bytes, (double)x->sock_buf);
            if (st->udp)
                max_into(&v->udp_drop_pct, x->udp_drop_pct);
        }
    }
    v->route_mtu = route_mtu(s->nstreams > 0 ? s->st[0].fd : -1);
}

/* the link this side's data leaves by, and this host's offloads (ESXi, through
 * esxcli): TSO where it sends, LRO where it receives */
static void link_evidence(const struct session *s, struct totals *t, struct diag_evidence *e)
{
    if (s->nstreams > 0)
        link_speed_of(s->st[0].fd, &t->link);
    else
        memset(&t->link, 0, sizeof t->link), t->link.mbps = t->link.hw_tso = t->link.lro = -1;
    e->link_mbps = t->link.mbps;
    e->link_nominal = t->link.nominal;
    e->link_name = t->link.uplink[0] ? t->link.uplink : t->link.iface[0] ? t->link.iface : NULL;
    e->tso_off = !strcmp(t->link.tso, "off") || t->link.hw_tso == 0 ? 1 : t->link.tso[0] ? 0 : -1;
    e->lro_off = t->link.lro < 0 ? -1 : t->link.lro == 0;
}

void session_diagnose(const struct session *s, struct totals *t)
{
    struct diag_evidence e;
    char peer[INET6_ADDRSTRLEN];
    diag_evidence_init(&e);
    const struct group_totals *g0 = &t->grp[0];
    e.udp = t->udp;
    e.streams = (int)(s->p.parallel > 0 ? s->p.parallel : 1);
    e.rate_bps = t->fig.gbps * 1e9;    /* the receiver's, over its own seconds */
    int64_t per = s->p.bandwidth > 0 ? s->p.bandwidth : s->p.fqrate;
    e.target_bps = per > 0 ? (double)per * e.streams : 0;
    link_evidence(s, t, &e);
    /* the direction judged is the test's (--bidir: client to server, named) */
    int local_sends = s->is_client ? !s->p.reverse : s->p.reverse;
    e.local_sender = local_sends;
    e.direction = s->p.bidir ? "client to server" : NULL;
    struct side_evidence here, there;
    session_side_evidence(s, &here);
    if (s->have_remote)
        there = s->remote.ev;
    else
        side_evidence_init(&there);
    /* an older esxperf peer sent its busiest thread alone: the role it had */
    double *old = local_sends ? &there.rcv_demand_pct : &there.snd_demand_pct;
    if (s->have_remote && *old < 0 && s->remote.thread_cpu_demand >= 0)
        *old = s->remote.thread_cpu_demand;
    side_evidence_apply(local_sends ? &here : &there, local_sends ? &there : &here, &e);
    /* the process figures: this side's, the peer's from the results exchange */
    double cpu_here = t->cpu_total, cpu_there = t->have_remote ? t->remote_total : -1;
    e.snd_proc_pct = local_sends ? cpu_here : cpu_there;
    e.rcv_proc_pct = local_sends ? cpu_there : cpu_here;
    if (e.udp && g0->nrcv) {
        e.udp_loss_pct = g0->rcv.packets > 0 ? 100.0 * (double)g0->rcv.lost / (double)g0->rcv.packets : 0;
    }
    e.window_bytes = (double)s->p.window;
    if (!e.udp)
        e.autotune_cap_bytes = autotune_cap();
    peer_of(s->nstreams > 0 ? s->st[0].fd : -1, &e, peer, sizeof peer);
    if (e.udp) {
        e.udp_len = (double)s->p.len;
        if (g0->nsnd)
            e.udp_sent = (double)g0->snd.packets;
        if (g0->nrcv && g0->rcv.packets >= g0->rcv.lost)
            e.udp_received = (double)(g0->rcv.packets - g0->rcv.lost);
    }
    e.vmk = !strncmp(t->link.iface, "vmk", 3) ? t->link.iface : NULL;
    diag_decide(&e, &t->diag);
    t->have_diag = 1;
    t->fig.bottleneck = t->diag.key;
}
