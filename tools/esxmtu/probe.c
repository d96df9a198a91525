/* Sockets, sending, and matching answers to probes (see probe.h for the methods). */
#include "probe.h"
#include "packet.h"
#include "bytes.h"
#include "clock.h"
#include "fail.h"

#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#ifndef IP_RECVERR
#define IP_RECVERR 11
#endif
#ifndef IP_MTU_DISCOVER
#define IP_MTU_DISCOVER 10
#endif
#ifndef IP_PMTUDISC_PROBE
#define IP_PMTUDISC_PROBE 3
#endif
#ifndef IPV6_RECVERR
#define IPV6_RECVERR 25
#endif
#ifndef IPV6_MTU_DISCOVER
#define IPV6_MTU_DISCOVER 23
#endif
#ifndef IPV6_PMTUDISC_PROBE
#define IPV6_PMTUDISC_PROBE 3
#endif
#ifndef IPV6_DONTFRAG
#define IPV6_DONTFRAG 62
#endif
#ifndef SO_RCVBUFFORCE
#define SO_RCVBUFFORCE 33
#endif

/* musl has no <linux/errqueue.h>: the layout of struct sock_extended_err */
struct ext_err {
    uint32_t ee_errno;
    uint8_t ee_origin, ee_type, ee_code, ee_pad;
    uint32_t ee_info, ee_data;
};
enum { EE_ORIGIN_LOCAL = 1, EE_ORIGIN_ICMP = 2, EE_ORIGIN_ICMP6 = 3 };

#define SBUF_LEN (PKT_MAX_MTU + 64)
#define RBUF_LEN (PKT_MAX_MTU + 512)
#define DRAIN_MAX 512            /* messages read per wake-up, so one loop stays bounded */

static int fidx(int family) { return family == AF_INET6; }

static const char *const method_names[] = {
    [METHOD_AUTO] = "auto", [METHOD_RAW] = "raw", [METHOD_ERRQUEUE] = "errqueue", [METHOD_DGRAM] = "dgram",
};
_Static_assert(ARRAY_SIZE(method_names) == METHOD_DGRAM + 1, "a name for every enum probe_method");

const char *probe_method_name(enum probe_method m)
{
    return (unsigned)m < ARRAY_SIZE(method_names) ? method_names[m] : "?";
}

int probe_method_parse(const char *s)
{
    for (size_t m = 0; m < ARRAY_SIZE(method_names); m++)
        if (strcmp(s, method_names[m]) == 0)
            return (int)m;
    return -1;
}

static const char *const res_names[] = {
    [PR_PENDING] = "pending", [PR_REPLY] = "reply", [PR_SHORT] = "short", [PR_TOO_BIG] = "too-big",
    [PR_LOCAL_MTU] = "local-mtu", [PR_TTL] = "ttl-exceeded", [PR_UNREACH] = "unreachable",
    [PR_LOST] = "lost",
};
_Static_assert(ARRAY_SIZE(res_names) == PR_LOST + 1, "a name for every enum probe_res");

const char *probe_res_name(enum probe_res r)
{
    return (unsigned)r < ARRAY_SIZE(res_names) ? res_names[r] : "?";
}

const char *prober_method_desc(const struct prober *p, int family)
{
    enum probe_method m = p->method[fidx(family)];
    if (m == METHOD_RAW)
        return family == AF_INET6 ? "raw ICMPv6 socket, IPV6_DONTFRAG + PMTUDISC_PROBE"
                                  : "raw socket, own IPv4 header with DF (IP_HDRINCL) + PMTUDISC_PROBE";
    if (m == METHOD_ERRQUEUE)
        return "raw socket, PMTUDISC_PROBE, errors from the error queue";
    if (m == METHOD_DGRAM)
        return "unprivileged ping socket, PMTUDISC_PROBE, errors from the error queue";
    return "none";
}

uint32_t probe_data_len(int family, uint32_t mtu)
{
    uint32_t h = pkt_hdr_len(family);
    return mtu > h ? mtu - h : 0;
}

static int setint(int fd, int level, int name, int val)
{
    return setsockopt(fd, level, name, &val, sizeof val);
}

/* one socket for one family and method; -1 with errno and *why */
static int open_one(int family, enum probe_method method, const struct prober_opts *o, const char **why)
{
    int v6 = family == AF_INET6;
    int type = method == METHOD_DGRAM ? SOCK_DGRAM : SOCK_RAW;
    int fd = socket(family, type, v6 ? IPPROTO_ICMPV6 : IPPROTO_ICMP);
    if (fd < 0) {
        *why = method == METHOD_DGRAM ? "cannot open an ICMP ping socket" : "cannot open a raw ICMP socket";
        return -1;
    }
    /* what must work: something that sets DF, and for the error-queue methods the
     * error queue itself; the rest only sharpens the evidence */
    int ok;
    if (!v6 && method == METHOD_RAW) {
        ok = setint(fd, IPPROTO_IP, IP_HDRINCL, 1) == 0;      /* DF is in our header */
        /* even with our own header, Linux's output path applies the cached path
         * MTU (EMSGSIZE after one frag-needed) unless the socket says PROBE */
        (void)setint(fd, IPPROTO_IP, IP_MTU_DISCOVER, IP_PMTUDISC_PROBE);
        (void)setint(fd, IPPROTO_IP, IP_RECVERR, 1);          /* local MTU value */
    } else if (!v6) {
        ok = setint(fd, IPPROTO_IP, IP_MTU_DISCOVER, IP_PMTUDISC_PROBE) == 0 &&
             setint(fd, IPPROTO_IP, IP_RECVERR, 1) == 0;
    } else {
        int probe = setint(fd, IPPROTO_IPV6, IPV6_MTU_DISCOVER, IPV6_PMTUDISC_PROBE) == 0;
        int dontfrag = setint(fd, IPPROTO_IPV6, IPV6_DONTFRAG, 1) == 0;
        int recverr = setint(fd, IPPROTO_IPV6, IPV6_RECVERR, 1) == 0;
        ok = (probe || dontfrag) && (recverr || method == METHOD_RAW);
    }
    if (!ok) {
        *why = "cannot set Don't-Fragment / error reporting on the socket";
        net_close_fail(fd);
        return -2;
    }
    /* 9000-byte replies of a whole round must fit while we are still sending */
    if (setint(fd, SOL_SOCKET, SO_RCVBUFFORCE, 4 << 20) != 0)
        (void)setint(fd, SOL_SOCKET, SO_RCVBUF, 4 << 20);
    if (o->iface && net_bind_device(fd, o->iface) != 0) {
        *why = errno == ENODEV ? "no such interface (-I)"
                             : "cannot bind to the interface (-I; or give its address with -B instead)";
        goto fail;
    }
    const union sockaddr_any *src = v6 ? &o->src6 : &o->src4;
    if (src->sa.sa_family == family && bind(fd, &src->sa, net_len(src)) != 0) {
        *why = "cannot use the source address (-B)";
        goto fail;
    }
    return fd;
fail:
    return net_close_fail(fd);
}

int prober_open(struct prober *p, const struct prober_opts *o, int need4, int need6,
                const char **why)
{
    memset(p, 0, sizeof *p);
    p->o = o;
    p->fd[0] = p->fd[1] = -1;
    p->nonce = mono_ns() ^ (wall_us() << 17) ^ ((uint64_t)getpid() << 40);
    p->id = (uint16_t)(getpid() ^ (p->nonce >> 7));
    p->next_seq = (uint16_t)(p->nonce >> 29);
    for (int fi = 0; fi < 2; fi++) {
        if (!(fi ? need6 : need4))
            continue;
        int family = fi ? AF_INET6 : AF_INET;
        enum probe_method m = o->method == METHOD_AUTO ? METHOD_RAW : o->method;
        int fd = open_one(family, m, o, why);
        if (fd == -2 && o->method == METHOD_AUTO) {   /* options unsupported: next method */
            m = METHOD_ERRQUEUE;
            fd = open_one(family, m, o, why);
        }
        if (fd == -2 && o->method == METHOD_AUTO) {
            int e = errno;
            m = METHOD_DGRAM;
            fd = open_one(family, m, o, why);
            if (fd < 0) {     /* say the first reason: raw sockets refused DF */
                *why = "cannot set Don't-Fragment on raw sockets here, and no ping socket either";
                errno = e;
            }
        }
        if (fd < 0 && m != METHOD_DGRAM && o->method == METHOD_AUTO &&
            (errno == EPERM || errno == EACCES)) {
            m = METHOD_DGRAM;
            fd = open_one(family, m, o, why);
            if (fd < 0 && (errno == EPERM || errno == EACCES))
                *why = "no permission for raw sockets, and ping sockets are not allowed for this group";
        }
        if (fd < 0) {
            int e = errno;
            prober_close(p);
            errno = e;
            return -1;
        }
        p->fd[fi] = fd;
        p->method[fi] = m;
    }
    p->sbuf = xmalloc(SBUF_LEN);
    p->rbuf = xmalloc(RBUF_LEN);
    return 0;
}

void prober_close(struct prober *p)
{
    for (int fi = 0; fi < 2; fi++)
        if (p->fd[fi] >= 0) {
            close(p->fd[fi]);
            p->fd[fi] = -1;
        }
    free(p->sbuf);
    free(p->rbuf);
    p->sbuf = p->rbuf = NULL;
}

/* ---- one batch */
struct batch {
    struct prober *p;
    struct probe *v;
    size_t n;
    uint16_t base;
};

static void addr_bytes(const union sockaddr_any *a, uint8_t out[16], int *len)
{
    if (a->sa.sa_family == AF_INET6) {
        memcpy(out, &a->in6.sin6_addr, 16);
        *len = 16;
    } else {
        memcpy(out, &a->in4.sin_addr, 4);
        *len = 4;
    }
}

int probe_same_addr(const union sockaddr_any *a, const union sockaddr_any *b)
{
    if (a->sa.sa_family != b->sa.sa_family)
        return 0;
    if (a->sa.sa_family == AF_INET6)
        return memcmp(&a->in6.sin6_addr, &b->in6.sin6_addr, 16) == 0;
    return a->in4.sin_addr.s_addr == b->in4.sin_addr.s_addr;
}

static struct probe *probe_by_seq(struct batch *b, uint16_t seq)
{
    uint16_t idx = (uint16_t)(seq - b->base);
    return idx < b->n ? &b->v[idx] : NULL;
}

static void expect_of(const struct batch *b, const struct probe *pr, struct pkt_expect *x)
{
    int family = pr->dst->sa.sa_family;
    memset(x, 0, sizeof *x);
    x->id = b->p->id;
    x->check_id = b->p->method[fidx(family)] != METHOD_DGRAM;
    x->seq = pr->seq;
    x->nonce = b->p->nonce;
    x->data_len = probe_data_len(family, pr->mtu);
    addr_bytes(pr->dst, x->dst, &x->dst_len);
}

/* ICMP type/code of an error -> result */
static enum probe_res classify(int family, uint8_t type, uint8_t code)
{
    if (family == AF_INET6)
        return type == ICMP6_TOO_BIG ? PR_TOO_BIG : type == ICMP6_TIME_EXCEEDED ? PR_TTL : PR_UNREACH;
    if (type == ICMP4_UNREACH && code == ICMP4_FRAG_NEEDED_CODE)
        return PR_TOO_BIG;
    return type == ICMP4_TIME_EXCEEDED ? PR_TTL : PR_UNREACH;
}

static void set_error(struct probe *pr, enum probe_res res, uint8_t type, uint8_t code, uint32_t info,
                      const union sockaddr_any *from)
{
    pr->res = res;
    pr->type = type;
    pr->code = code;
    pr->info = info;
    if (from) {
        pr->from = *from;
        pr->from_set = 1;
    }
    pr->rtt_ns = mono_ns() - pr->sent_ns;
}

/* error-queue entries: local EMSGSIZE (for `just_sent`) and, for the errqueue and
 * dgram methods, ICMP errors with the quoted echo request as payload */
static void drain_errqueue(struct batch *b, int fi, struct probe *just_sent)
{
    struct prober *p = b->p;
    int family = fi ? AF_INET6 : AF_INET;
    for (int k = 0; k < DRAIN_MAX; k++) {
        union { struct cmsghdr h; uint8_t b[512]; } ctl;
        union sockaddr_any name;
        struct iovec iov = { p->rbuf, RBUF_LEN };
        struct msghdr msg = { .msg_name = &name, .msg_namelen = sizeof name,
                              .msg_iov = &iov, .msg_iovlen = 1,
                              .msg_control = &ctl, .msg_controllen = sizeof ctl };
        ssize_t len = recvmsg(p->fd[fi], &msg, MSG_ERRQUEUE | MSG_DONTWAIT);
        if (len < 0) {
            if (errno == EINTR)
                continue;
            return;
        }
        const struct ext_err *ee = NULL;
        union sockaddr_any off;
        memset(&off, 0, sizeof off);
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
            int ours = fi ? (c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_RECVERR)
                          : (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_RECVERR);
            if (!ours || c->cmsg_len < CMSG_LEN(sizeof *ee))
                continue;
            ee = (const struct ext_err *)CMSG_DATA(c);
            size_t room = c->cmsg_len - CMSG_LEN(sizeof *ee);
            if (room > sizeof off)
                room = sizeof off;
            memcpy(&off, ee + 1, room);   /* SO_EE_OFFENDER follows the record */
        }
        if (!ee)
            continue;
        if (ee->ee_origin == EE_ORIGIN_LOCAL) {
            if (ee->ee_errno == EMSGSIZE && just_sent && just_sent->res == PR_LOCAL_MTU)
                just_sent->info = ee->ee_info;
            continue;
        }
        if (p->method[fi] == METHOD_RAW)        /* raw: the ICMP packet itself is read */
            continue;
        if (ee->ee_origin != EE_ORIGIN_ICMP && ee->ee_origin != EE_ORIGIN_ICMP6)
            continue;
        struct pkt_info r;
        if (pkt_parse(fi ? PKT_ICMP6 : PKT_ICMP4, p->rbuf, (size_t)len, &r, NULL) != 0 ||
            r.kind != PK_ECHO_REQUEST)
            continue;
        struct probe *pr = probe_by_seq(b, r.seq);
        if (!pr || pr->res != PR_PENDING || pr->dst->sa.sa_family != family)
            continue;
        if (p->method[fi] != METHOD_DGRAM && r.id != p->id)
            continue;
        if (name.sa.sa_family == family && !probe_same_addr(&name, pr->dst))
            continue;
        set_error(pr, classify(family, ee->ee_type, ee->ee_code), ee->ee_type, ee->ee_code,
                  ee->ee_info, off.sa.sa_family == family ? &off : NULL);
    }
}

static void drain_packets(struct batch *b, int fi)
{
    struct prober *p = b->p;
    int family = fi ? AF_INET6 : AF_INET;
    int layer = fi ? PKT_ICMP6 : p->method[fi] == METHOD_DGRAM ? PKT_ICMP4 : PKT_IP4;
    for (int k = 0; k < DRAIN_MAX; k++) {
        union sockaddr_any from;
        socklen_t fl = sizeof from;
        memset(&from, 0, sizeof from);
        ssize_t len = recvfrom(p->fd[fi], p->rbuf, RBUF_LEN, MSG_DONTWAIT, &from.sa, &fl);
        if (len < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                return;
            continue;    /* a pending socket error (ICMP) reported once: read on */
        }
        struct pkt_info r;
        if (pkt_parse(layer, p->rbuf, (size_t)len, &r, NULL) != 0)
            continue;
        if (r.kind != PK_ECHO_REPLY && !(r.kind == PK_ERROR && p->method[fi] == METHOD_RAW))
            continue;
        struct probe *pr = probe_by_seq(b, r.seq);
        if (!pr || pr->dst->sa.sa_family != family)
            continue;
        struct pkt_expect x;
        expect_of(b, pr, &x);
        int m = pkt_match(&r, &x);
        if (m == PM_NOT_OURS)
            continue;
        if (layer == PKT_IP4) {       /* the sender is in the IPv4 header */
            from.in4.sin_family = AF_INET;
            memcpy(&from.in4.sin_addr, r.src, 4);
        }
        if (m == PM_FULL || m == PM_SHORT) {
            if (!probe_same_addr(&from, pr->dst))
                continue;
            if (pr->res == PR_PENDING || (pr->res == PR_SHORT && m == PM_FULL)) {
                pr->res = m == PM_FULL ? PR_REPLY : PR_SHORT;
                pr->rtt_ns = mono_ns() - pr->sent_ns;
                pr->from = from;
                pr->from_set = 1;
                p->received++;
            }
        } else if (pr->res == PR_PENDING) {
            set_error(pr, classify(family, r.type, r.code), r.type, r.code, r.mtu, &from);
        }
    }
}

static void send_one(struct batch *b, struct probe *pr)
{
    struct prober *p = b->p;
    int family = pr->dst->sa.sa_family;
    int fi = fidx(family);
    int ttl = pr->ttl ? pr->ttl : p->o->ttl;
    size_t len;
    if (!fi && p->method[0] == METHOD_RAW) {
        struct pkt_ip4 ip;
        memset(&ip, 0, sizeof ip);
        if (p->o->src4.sa.sa_family == AF_INET)
            memcpy(ip.src, &p->o->src4.in4.sin_addr, 4);
        memcpy(ip.dst, &pr->dst->in4.sin_addr, 4);
        ip.ttl = (uint8_t)(ttl ? ttl : 64);
        ip.df = 1;
        len = pkt_build_echo(PKT_IP4, p->sbuf, SBUF_LEN, p->id, pr->seq, p->nonce,
                             probe_data_len(family, pr->mtu), &ip);
    } else {
        if (ttl != p->cur_ttl[fi]) {
            int v = ttl ? ttl : -1;     /* -1: back to the system default */
            if (fi)
                (void)setint(p->fd[fi], IPPROTO_IPV6, IPV6_UNICAST_HOPS, v);
            else
                (void)setint(p->fd[fi], IPPROTO_IP, IP_TTL, v);
            p->cur_ttl[fi] = ttl;
        }
        len = pkt_build_echo(fi ? PKT_ICMP6 : PKT_ICMP4, p->sbuf, SBUF_LEN, p->id, pr->seq,
                             p->nonce, probe_data_len(family, pr->mtu), NULL);
    }
    pr->sent_ns = mono_ns();
    if (len == 0) {
        pr->res = PR_LOCAL_MTU;
        pr->err = EMSGSIZE;
        return;
    }
    p->sent++;
    int last = 0;
    for (int tries = 0; tries < 50; tries++) {
        ssize_t rc = sendto(p->fd[fi], p->sbuf, len, 0, &pr->dst->sa, net_len(pr->dst));
        if (rc >= 0)
            return;
        if (errno == EINTR)
            continue;
        if (errno == ENOBUFS || errno == EAGAIN) {   /* queue full: give it a moment */
            sleep_ns(NS_PER_MS);
            continue;
        }
        /* An ICMP error that arrived for an earlier probe is reported once by
         * the next send on this socket (the kernel's pending socket error), and
         * then nothing was sent. A real failure repeats: only then is it ours. */
        if (errno != last) {
            last = errno;
            continue;
        }
        pr->err = errno;
        if (errno == EMSGSIZE) {
            pr->res = PR_LOCAL_MTU;
            drain_errqueue(b, fi, pr);
        } else {
            pr->res = PR_UNREACH;
        }
        pr->rtt_ns = 0;
        return;
    }
    pr->err = ENOBUFS;
    pr->res = PR_UNREACH;
}

/* all answered, or (by_group) one answered in every group. Groups are runs of
 * adjacent probes, so this is one pass (it runs at every wake-up of a round of up
 * to 2048 probes); a group split into two runs just needs an answer in each. */
static int settled(const struct batch *b, int by_group)
{
    for (size_t i = 0; i < b->n;) {
        size_t j = i;
        int answered = 0;
        do
            answered |= b->v[j].res != PR_PENDING;
        while (++j < b->n && by_group && b->v[j].group == b->v[i].group);
        if (!answered)
            return 0;
        i = j;
    }
    return 1;
}

int probe_batch(struct prober *p, struct probe *v, size_t n, uint64_t timeout_ns, int by_group)
{
    if (n == 0)
        return 0;
    if (n > 30000) {
        errno = E2BIG;
        return -1;
    }
    struct batch b = { p, v, n, p->next_seq };
    p->next_seq = (uint16_t)(p->next_seq + n);
    for (size_t i = 0; i < n; i++) {
        v[i].res = PR_PENDING;
        v[i].seq = (uint16_t)(b.base + i);
        v[i].rtt_ns = v[i].sent_ns = 0;
        v[i].info = 0;
        v[i].err = 0;
        v[i].from_set = 0;
        if (p->fd[fidx(v[i].dst->sa.sa_family)] < 0) {
            errno = EAFNOSUPPORT;
            return -1;
        }
    }
    uint64_t start = mono_ns(), deadline = 0;
    size_t next = 0;
    for (unsigned long loops = 0; loops < 10000000UL; loops++) {
        uint64_t now = mono_ns();
        while (next < n && start + v[next].at_ns <= now) {
            send_one(&b, &v[next]);
            deadline = mono_ns() + timeout_ns;
            next++;
            if ((next & 15) == 0)          /* read between sends in long rounds */
                break;
        }
        if (next == n && (settled(&b, by_group) || mono_ns() >= deadline))
            break;
        uint64_t wake = next < n ? start + v[next].at_ns : deadline;
        struct pollfd pf[2];
        int np = 0, which[2];
        for (int fi = 0; fi < 2; fi++)
            if (p->fd[fi] >= 0) {
                pf[np].fd = p->fd[fi];
                pf[np].events = POLLIN;
                pf[np].revents = 0;
                which[np++] = fi;
            }
        int ms = ms_until(wake);
        if (ms == 0 && wake > mono_ns())
            ms = 1;
        int rc = poll(pf, (nfds_t)np, ms);
        if (rc < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        for (int k = 0; k < np; k++) {
            if (pf[k].revents & POLLERR)
                drain_errqueue(&b, which[k], NULL);
            if (pf[k].revents & POLLIN)
                drain_packets(&b, which[k]);
        }
    }
    for (size_t i = 0; i < n; i++)
        if (v[i].res == PR_PENDING)
            v[i].res = PR_LOST;
    return 0;
}
