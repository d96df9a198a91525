/* The batch: send probes on time, retry what the host refuses for room, and match
 * every answer to the probe it names (see probe.h for the rules). */
#include "probe.h"
#include "linux_opts.h"
#include "fallback.h"
#include "stop.h"
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

/* musl has no <linux/errqueue.h>: the layout of struct sock_extended_err */
struct ext_err {
    uint32_t ee_errno;
    uint8_t ee_origin, ee_type, ee_code, ee_pad;
    uint32_t ee_info, ee_data;
};
enum { EE_ORIGIN_LOCAL = 1, EE_ORIGIN_ICMP = 2, EE_ORIGIN_ICMP6 = 3 };

#define DRAIN_MAX 512            /* messages read per wake-up, so one loop stays bounded */

static int fidx(int family) { return family == AF_INET6; }

static const char *const res_names[] = {
    [PR_PENDING] = "pending", [PR_REPLY] = "reply", [PR_SHORT] = "short", [PR_TOO_BIG] = "too-big",
    [PR_LOCAL_MTU] = "local-mtu", [PR_TTL] = "ttl-exceeded", [PR_UNREACH] = "unreachable",
    [PR_LOST] = "lost", [PR_SEND_FAIL] = "send-failed",
};
_Static_assert(ARRAY_SIZE(res_names) == PR_LAST + 1, "a name for every enum probe_res");

const char *probe_res_name(enum probe_res r)
{
    return (unsigned)r < ARRAY_SIZE(res_names) ? res_names[r] : "?";
}

uint32_t probe_data_len(int family, uint32_t mtu)
{
    uint32_t h = pkt_hdr_len(family);
    return mtu > h ? mtu - h : 0;
}

/* ---- one batch */
struct retry {                   /* a probe whose send was refused for room */
    size_t idx;
    uint64_t due, until;         /* next try; its own deadline (first try + timeout) */
};

struct batch {
    struct prober *p;
    struct probe *v;
    size_t n;
    uint16_t base;
    uint64_t timeout_ns;
    uint64_t deadline;           /* last successful send + timeout */
    struct retry *r;
    size_t nr;
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
    x->ip_len = pr->mtu;
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

/* an ICMP error that names this probe; a too-big with an impossible next-hop MTU
 * is only noted (the first one): it settles nothing */
static void note_error(struct probe *pr, enum probe_res res, uint8_t type, uint8_t code, uint32_t info,
                       const union sockaddr_any *from)
{
    if (pr->res != PR_PENDING)
        return;
    if (res == PR_TOO_BIG && !pkt_mtu_plausible(pr->dst->sa.sa_family, info, pr->mtu)) {
        if (!pr->bogus) {
            pr->bogus = 1;
            pr->bogus_mtu = info;
            if (from)
                pr->bogus_from = *from;
        }
        return;
    }
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
        struct iovec iov = { p->rbuf, PROBE_RBUF_LEN };
        struct msghdr msg = { .msg_name = &name, .msg_namelen = sizeof name,
                              .msg_iov = &iov, .msg_iovlen = 1,
                              .msg_control = &ctl, .msg_controllen = sizeof ctl };
        /* the socket the probe left by holds its local errors */
        ssize_t len = recvmsg(p->sfd[fi] >= 0 ? p->sfd[fi] : p->fd[fi], &msg, MSG_ERRQUEUE | MSG_DONTWAIT);
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
        if (!pr || !pr->sent_ns || pr->dst->sa.sa_family != family)
            continue;                    /* not ours, or a probe that never left */
        struct pkt_expect x;
        expect_of(b, pr, &x);
        if (pkt_match(&r, &x) != PM_ERROR)
            continue;
        if (name.sa.sa_family == family && !probe_same_addr(&name, pr->dst))
            continue;
        note_error(pr, classify(family, ee->ee_type, ee->ee_code), ee->ee_type, ee->ee_code,
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
        ssize_t len = recvfrom(p->fd[fi], p->rbuf, PROBE_RBUF_LEN, MSG_DONTWAIT, &from.sa, &fl);
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
        if (!pr || !pr->sent_ns || pr->dst->sa.sa_family != family)
            continue;                    /* not ours, or a probe that never left */
        struct pkt_expect x;
        expect_of(b, pr, &x);
        enum pkt_match m = pkt_match(&r, &x);
        if (m == PM_NOT_OURS)
            continue;
        if (layer == PKT_IP4) {       /* the sender is in the IPv4 header */
            from.in4.sin_family = AF_INET;
            memcpy(&from.in4.sin_addr, r.src, 4);
        }
        if (m == PM_FULL || m == PM_SHORT) {
            if (!probe_same_addr(&from, pr->dst))
                continue;                /* the right bytes from the wrong host */
            /* a full-size reply is proof, whatever error came first for the probe */
            if (m == PM_FULL ? pr->res != PR_REPLY : pr->res == PR_PENDING) {
                p->received += pr->res != PR_SHORT;
                pr->res = m == PM_FULL ? PR_REPLY : PR_SHORT;
                pr->rtt_ns = mono_ns() - pr->sent_ns;
                pr->from = from;
                pr->from_set = 1;
            }
        } else {
            note_error(pr, classify(family, r.type, r.code), r.type, r.code, r.mtu, &from);
        }
    }
}

/* build() could not give the probe its TTL (the socket refused it) */
#define BUILD_NO_TTL ((size_t)-1)
/* build() found no source address for the IPv6 header (the route lookup failed) */
#define BUILD_NO_SRC ((size_t)-2)
/* the probe's packet in p->sbuf (the TTL set on the socket first where the kernel
 * writes the header); 0 when it cannot be built: bigger than an IP packet;
 * BUILD_NO_TTL or BUILD_NO_SRC (errno set) when its TTL was refused or its source
 * cannot be known */
static size_t build(struct batch *b, const struct probe *pr)
{
    struct prober *p = b->p;
    int family = pr->dst->sa.sa_family;
    int fi = fidx(family);
    int ttl = pr->ttl ? pr->ttl : p->o->ttl;
    if (fi && p->sfd[1] >= 0) {          /* IPv6 by IPPROTO_RAW: the hop limit is in our header */
        struct pkt_ip6 ip;
        if (p->o->src6.sa.sa_family == AF_INET6)
            memcpy(ip.src, &p->o->src6.in6.sin6_addr, 16);
        else if (src6_lookup(&p->src6, &pr->dst->in6, p->o->iface, ip.src) != 0)
            return BUILD_NO_SRC;
        memcpy(ip.dst, &pr->dst->in6.sin6_addr, 16);
        ip.hops = (uint8_t)(ttl ? ttl : 64);
        return pkt_build_echo6(p->sbuf, PROBE_SBUF_LEN, p->id, pr->seq, p->nonce,
                               probe_data_len(family, pr->mtu), &ip);
    }
    if (!fi && p->method[0] == METHOD_RAW) {
        struct pkt_ip4 ip;
        memset(&ip, 0, sizeof ip);
        if (p->o->src4.sa.sa_family == AF_INET)
            memcpy(ip.src, &p->o->src4.in4.sin_addr, 4);
        memcpy(ip.dst, &pr->dst->in4.sin_addr, 4);
        ip.ttl = (uint8_t)(ttl ? ttl : 64);
        ip.df = 1;
        return pkt_build_echo(PKT_IP4, p->sbuf, PROBE_SBUF_LEN, p->id, pr->seq, p->nonce,
                              probe_data_len(family, pr->mtu), &ip);
    }
    if (ttl != p->cur_ttl[fi]) {
        int v = ttl ? ttl : -1;     /* -1: back to the system default */
        int rc = fi ? prober_setopt(p->fd[fi], IPPROTO_IPV6, IPV6_UNICAST_HOPS, v)
                    : prober_setopt(p->fd[fi], IPPROTO_IP, IP_TTL, v);
        if (rc != 0) {
            /* a probe with another TTL than its own would answer for another hop */
            fallback_note(fi ? "IPV6_UNICAST_HOPS" : "IP_TTL", errno,
                          "probes whose TTL the socket refused are not sent: they fail here");
            return BUILD_NO_TTL;
        }
        p->cur_ttl[fi] = ttl;
    }
    return pkt_build_echo(fi ? PKT_ICMP6 : PKT_ICMP4, p->sbuf, PROBE_SBUF_LEN, p->id, pr->seq,
                          p->nonce, probe_data_len(family, pr->mtu), NULL);
}

static int no_room(int e) { return e == EAGAIN || e == EWOULDBLOCK || e == ENOBUFS; }

/* One send, never blocking: 0 when it left, else the errno. An ICMP error that came
 * for an earlier probe is reported once by the next send on the socket (the kernel's
 * pending socket error) and nothing was sent; a real refusal repeats, so a new errno
 * is tried again at once. */
static int send_now(struct batch *b, const struct probe *pr, size_t len)
{
    int fi = fidx(pr->dst->sa.sa_family), last = 0;
    int fd = b->p->sfd[fi] >= 0 ? b->p->sfd[fi] : b->p->fd[fi];
    for (int k = 0; k < 4; k++) {
        if (sendto(fd, b->p->sbuf, len, MSG_DONTWAIT, &pr->dst->sa, net_len(pr->dst)) >= 0)
            return 0;
        int e = errno;
        if (e == EINTR)
            continue;
        if (no_room(e) || e == last)
            return e;
        last = e;
    }
    return last ? last : EIO;
}

/* Try v[idx] (again, when prev is its retry entry). Refused for room: queued for a
 * later try, up to PROBE_SEND_TRIES and its own deadline, then PR_SEND_FAIL. */
static void attempt(struct batch *b, size_t idx, const struct retry *prev)
{
    struct probe *pr = &b->v[idx];
    size_t len = build(b, pr);
    if (len == 0) {
        pr->res = PR_LOCAL_MTU;
        pr->err = EMSGSIZE;
        return;
    }
    if (len == BUILD_NO_TTL) {
        pr->res = PR_SEND_FAIL;
        pr->err = errno;
        return;
    }
    if (len == BUILD_NO_SRC) {       /* what the send itself would have met: no route */
        pr->res = PR_UNREACH;
        pr->err = errno;
        return;
    }
    int e = send_now(b, pr, len);
    uint64_t now = mono_ns();
    if (e == 0) {
        pr->sent_ns = now;
        pr->err = 0;                 /* refusals before it left are only counted in tries */
        b->p->sent++;
        if (now + b->timeout_ns > b->deadline)
            b->deadline = now + b->timeout_ns;
        return;
    }
    pr->err = e;
    if (no_room(e)) {
        uint64_t until = prev ? prev->until : now + b->timeout_ns;
        uint64_t due = now + (NS_PER_MS << pr->tries);
        if (++pr->tries < PROBE_SEND_TRIES && due <= until) {
            b->r[b->nr++] = (struct retry){ idx, due, until };
            return;
        }
        pr->res = PR_SEND_FAIL;
    } else if (e == EMSGSIZE) {
        pr->res = PR_LOCAL_MTU;
        drain_errqueue(b, fidx(pr->dst->sa.sa_family), pr);
    } else {
        pr->res = PR_UNREACH;
    }
}

/* resend the probes whose retry time has come; returns the earliest retry still
 * waiting (UINT64_MAX: none) */
static uint64_t retry_due(struct batch *b)
{
    uint64_t now = mono_ns(), next = UINT64_MAX;
    for (size_t k = 0; k < b->nr;) {
        if (b->r[k].due > now) {
            k++;
            continue;
        }
        struct retry t = b->r[k];
        b->r[k] = b->r[--b->nr];     /* attempt() appends it again if it must wait more */
        attempt(b, t.idx, &t);
    }
    for (size_t k = 0; k < b->nr; k++)
        if (b->r[k].due < next)
            next = b->r[k].due;
    return next;
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

/* wait up to ms (0: not at all) for the sockets, then read their errors and answers;
 * -1 when poll fails (an interrupted poll is no failure: the caller looks again) */
static int batch_read(struct batch *b, int ms)
{
    struct pollfd pf[2];
    int np = 0, which[2];
    for (int fi = 0; fi < 2; fi++)
        if (b->p->fd[fi] >= 0) {
            pf[np].fd = b->p->fd[fi];
            pf[np].events = POLLIN;
            pf[np].revents = 0;
            which[np++] = fi;
        }
    int rc = poll(pf, (nfds_t)np, ms);
    if (rc < 0)
        return errno == EINTR ? 0 : -1;
    for (int k = 0; k < np; k++) {
        if (pf[k].revents & POLLERR)
            drain_errqueue(b, which[k], NULL);
        /* POLLERR is also a pending socket error: an ICMP error that a socket without
         * IP(V6)_RECVERR (the reader beside an IPPROTO_RAW sender) notes after
         * queueing the error's packet. Only a read clears it, so it is read also when
         * no packet is left, or poll would wake at once until the deadline. */
        if (pf[k].revents & (POLLIN | POLLERR))
            drain_packets(b, which[k]);
    }
    return 0;
}

int probe_batch(struct prober *p, struct probe *v, size_t n, uint64_t timeout_ns, enum batch_wait wait)
{
    if (n == 0)
        return 0;
    if (n > 30000) {
        errno = E2BIG;
        return -1;
    }
    struct batch b = { p, v, n, p->next_seq, timeout_ns, 0, NULL, 0 };
    p->next_seq = (uint16_t)(p->next_seq + n);
    for (size_t i = 0; i < n; i++) {
        const union sockaddr_any *dst = v[i].dst;
        uint32_t mtu = v[i].mtu;
        int ttl = v[i].ttl, group = v[i].group;
        uint64_t at = v[i].at_ns;
        memset(&v[i], 0, sizeof v[i]);     /* every out field starts clean */
        v[i].dst = dst;
        v[i].mtu = mtu;
        v[i].ttl = ttl;
        v[i].group = group;
        v[i].at_ns = at;
        v[i].res = PR_PENDING;
        v[i].seq = (uint16_t)(b.base + i);
        if (p->fd[fidx(dst->sa.sa_family)] < 0) {
            errno = EAFNOSUPPORT;
            return -1;
        }
    }
    b.r = xcalloc(n, sizeof *b.r);
    uint64_t start = mono_ns();
    size_t next = 0;
    for (unsigned long loops = 0; loops < 10000000UL; loops++) {
        if (stop_requested()) {
            /* a stop signal: nothing more is sent; what already came back counts, the
             * rest stays PR_PENDING for the caller to report as unfinished */
            batch_read(&b, 0);
            free(b.r);
            errno = EINTR;
            return -1;
        }
        for (int k = 0; k < 16 && next < n && start + v[next].at_ns <= mono_ns(); k++)
            attempt(&b, next++, NULL);     /* 16 at most, then read: long rounds interleave */
        uint64_t wake = retry_due(&b);
        int sending = next < n || b.nr > 0;
        if (!sending && (wait == BATCH_SEND_ONLY || settled(&b, wait == BATCH_BY_GROUP) ||
                         mono_ns() >= b.deadline))
            break;
        if (next < n && start + v[next].at_ns < wake)
            wake = start + v[next].at_ns;
        if (!sending)
            wake = b.deadline;
        int ms = ms_until(wake);
        if (ms == 0 && wake > mono_ns())
            ms = 1;
        if (batch_read(&b, ms) < 0) {
            free(b.r);
            return -1;
        }
    }
    free(b.r);
    for (size_t i = 0; i < n; i++)
        if (v[i].res == PR_PENDING)
            v[i].res = PR_LOST;
    return 0;
}
