/* UDP batch I/O (sendmmsg/recvmmsg, UDP GSO/GRO) with per-call fallbacks. */
#include "batch.h"
#include "fallback.h"
#include "fallback_texts.h"
#include "clock.h"
#include "fail.h"
#include "udp.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define TX_BYTES_MAX (512u * 1024u)   /* per call: a few sndbufs' worth */
#define RX_BYTES_MAX (1024u * 1024u)
#define GRO_SLOT 65536u

size_t gro_count(size_t len, size_t seg)
{
    if (len == 0)
        return 0;
    if (seg == 0 || seg >= len)
        return 1;
    return (len + seg - 1) / seg;
}

size_t gro_seg_len(size_t len, size_t seg, size_t i)
{
    if (seg == 0 || seg >= len)
        return i == 0 ? len : 0;
    size_t off = i * seg;
    if (off >= len)
        return 0;
    return len - off < seg ? len - off : seg;
}

int gso_segments(size_t blk)
{
    if (blk == 0)
        return 1;
    size_t n = GSO_BYTES_MAX / blk;
    if (n > GSO_SEGS_MAX)
        n = GSO_SEGS_MAX;
    return n < 2 ? 1 : (int)n;
}

int udp_gso_on(int fd, size_t blk)
{
    int g = gso_segments(blk), v = (int)blk;
    if (g < 2)
        return 1;
    if (setsockopt(fd, SOL_UDP, UDP_SEGMENT, &v, sizeof v) == 0)
        return g;
    fallback_refused("UDP_SEGMENT", errno);
    return 1;
}

int udp_gro_on(int fd)
{
    int one = 1;
    if (setsockopt(fd, SOL_UDP, UDP_GRO, &one, sizeof one) == 0)
        return 1;
    fallback_refused("UDP_GRO", errno);
    return 0;
}

static int is_missing(int e)
{
    return e == ENOSYS || e == EINVAL || e == EOPNOTSUPP || e == ENOPROTOOPT;
}

void udp_tx_init(struct udp_tx *t, int fd, size_t blk, int counters64,
                 const unsigned char *payload, int use_mmsg, int use_gso)
{
    memset(t, 0, sizeof *t);
    t->fd = fd;
    t->blk = blk;
    t->counters64 = counters64;
    t->mmsg = use_mmsg;
    t->gso = use_gso ? udp_gso_on(fd, blk) : 1;
    size_t per_call = TX_BYTES_MAX / blk;
    if (per_call < 1)
        per_call = 1;
    size_t cap = (size_t)BATCH_MAX * (size_t)t->gso;
    t->max = (int)(per_call < cap ? per_call : cap);
    if (t->max > 1 && !t->mmsg && t->gso == 1)
        t->max = 1;          /* send() loop: nothing to gain from a batch */
    t->slab = xmalloc((size_t)t->max * blk);
    for (int i = 0; i < t->max; i++)
        memcpy(t->slab + (size_t)i * blk, payload, blk);
    t->msgs = xcalloc(BATCH_MAX, sizeof *t->msgs);
    t->iov = xcalloc(BATCH_MAX, sizeof *t->iov);
}

/* GSO refused at send time (path MTU below the datagram, no checksum offload
 * on the route...): datagrams go one per message from now on */
static void gso_off(struct udp_tx *t)
{
    int zero = 0;
    setsockopt(t->fd, SOL_UDP, UDP_SEGMENT, &zero, sizeof zero);
    t->gso = 1;
    if (t->max > BATCH_MAX)
        t->max = BATCH_MAX;
    if (!t->mmsg)
        t->max = 1;
}

static void tx_sendmmsg_off(struct udp_tx *t)
{
    t->mmsg = 0;
    if (t->gso == 1)
        t->max = 1;
}

int udp_tx_send(struct udp_tx *t, int n, uint64_t first_seq)
{
    if (n < 1)
        n = 1;
    if (n > t->max)
        n = t->max;
    uint64_t us = wall_us();
    for (int i = 0; i < n; i++)
        udp_header_put(t->slab + (size_t)i * t->blk, (uint32_t)(us / 1000000u),
                       (uint32_t)(us % 1000000u), first_seq + (uint64_t)i, t->counters64);
    for (;;) {
        int g = t->gso;
        int nmsg = (n + g - 1) / g;
        if (nmsg > BATCH_MAX)
            nmsg = BATCH_MAX;
        int rc, via_mmsg = 0;
        if (t->mmsg && nmsg > 1) {
            via_mmsg = 1;
            for (int m = 0; m < nmsg; m++) {
                int first = m * g, cnt = n - first < g ? n - first : g;
                t->iov[m].iov_base = t->slab + (size_t)first * t->blk;
                t->iov[m].iov_len = (size_t)cnt * t->blk;
                memset(&t->msgs[m], 0, sizeof t->msgs[m]);
                t->msgs[m].msg_hdr.msg_iov = &t->iov[m];
                t->msgs[m].msg_hdr.msg_iovlen = 1;
            }
            t->calls++;
            /* the system call itself: musl's 64-bit sendmmsg() is a sendmsg()
             * loop (its msghdr padding, zeroed here by the memset above) */
            rc = (int)syscall(SYS_sendmmsg, t->fd, t->msgs, (unsigned)nmsg, MSG_NOSIGNAL);
            if (rc < 0 && errno == ENOSYS) {
                tx_sendmmsg_off(t);
                if (n > t->max)
                    n = t->max;
                continue;
            }
            if (rc == 0) {
                errno = EAGAIN;
                return -1;
            }
            if (rc > 0) {
                int sent = 0;
                for (int m = 0; m < rc; m++)
                    sent += (int)(t->iov[m].iov_len / t->blk);
                return sent;
            }
        } else {
            int cnt = n < g ? n : g;
            t->calls++;
            ssize_t w = send(t->fd, t->slab, (size_t)cnt * t->blk, MSG_NOSIGNAL);
            if (w >= 0)
                return cnt;
            rc = -1;
        }
        if (rc < 0 && t->gso > 1 && (is_missing(errno) || errno == EIO || errno == EMSGSIZE)) {
            gso_off(t);
            if (n > t->max)
                n = t->max;
            continue;
        }
        if (rc < 0 && via_mmsg && is_missing(errno)) {
            /* a sendmmsg that exists but refuses (flags, an emulation): plain
             * sends; a real EINVAL comes back from send() as well */
            tx_sendmmsg_off(t);
            if (n > t->max)
                n = t->max;
            continue;
        }
        return -1;
    }
}

void udp_tx_free(struct udp_tx *t)
{
    free(t->slab);
    free(t->msgs);
    free(t->iov);
    memset(t, 0, sizeof *t);
}

void udp_tx_describe(const struct udp_tx *t, char *buf, size_t len)
{
    if (t->gso > 1)
        snprintf(buf, len, "%s, GSO %d datagrams/send", t->mmsg ? "sendmmsg" : "send", t->gso);
    else if (t->mmsg)
        snprintf(buf, len, "sendmmsg up to %d, no GSO", t->max);
    else
        snprintf(buf, len, "send, one datagram per call");
}

/* the buffers for max messages of r->slot bytes each */
static void rxb_alloc(struct udp_rxb *r)
{
    r->slab = xmalloc((size_t)r->max * r->slot);
    r->msgs = xcalloc((size_t)r->max, sizeof *r->msgs);
    r->iov = xcalloc((size_t)r->max, sizeof *r->iov);
    r->ctl_len = CMSG_SPACE(sizeof(int));
    r->ctl = xcalloc((size_t)r->max, r->ctl_len);
}

void udp_rxb_init(struct udp_rxb *r, int fd, size_t blk, int use_mmsg, int use_gro)
{
    memset(r, 0, sizeof *r);
    r->fd = fd;
    r->mmsg = use_mmsg;
    r->gro = use_gro && udp_gro_on(fd);
    size_t slot = r->gro ? GRO_SLOT : ((blk + 64 + 63) & ~(size_t)63);
    if (slot > GRO_SLOT)
        slot = GRO_SLOT;
    r->slot = r->room = slot;
    size_t m = RX_BYTES_MAX / slot;
    r->max = m < 1 ? 1 : m > BATCH_MAX ? BATCH_MAX : (int)m;
    if (!r->mmsg)
        r->max = 1;
    rxb_alloc(r);
}

/* Heads only, and why without GRO: a GRO message is many datagrams laid end to
 * end, and MSG_TRUNC stops the copy at the end of the buffer, so a buffer of
 * one header would hold the first datagram's header only; the others' sequence
 * numbers, so loss, order and jitter, would be guesses. Reading the whole GRO
 * buffer to find them is the copy --skip-rx-copy is there to avoid. So every
 * datagram is a message of its own and recvmmsg takes up to BATCH_MAX of them
 * per call, copying head bytes of each; the kernel reports each true length.
 * The price is GRO's: on loopback, where a GSO send reaches a GRO socket whole,
 * the kernel now cuts it into datagrams, and the GRO copy is the faster path
 * there (measured: ~0.8x its packets/s at 8972 bytes, ~1.5x a copy without GRO). */
void udp_rxb_init_heads(struct udp_rxb *r, int fd, size_t blk, size_t head, int use_mmsg)
{
    int zero = 0;              /* whoever asked for GRO on this socket before */
    setsockopt(fd, SOL_UDP, UDP_GRO, &zero, sizeof zero);
    memset(r, 0, sizeof *r);
    r->fd = fd;
    r->mmsg = use_mmsg;
    r->heads = 1;
    r->slot = head;
    r->room = blk;
    r->max = use_mmsg ? BATCH_MAX : 1;
    rxb_alloc(r);
}

static void rx_prepare(struct udp_rxb *r, int n)
{
    for (int i = 0; i < n; i++) {
        r->iov[i].iov_base = r->slab + (size_t)i * r->slot;
        r->iov[i].iov_len = r->slot;
        memset(&r->msgs[i], 0, sizeof r->msgs[i]);
        r->msgs[i].msg_hdr.msg_iov = &r->iov[i];
        r->msgs[i].msg_hdr.msg_iovlen = 1;
        if (r->gro) {
            r->msgs[i].msg_hdr.msg_control = r->ctl + (size_t)i * r->ctl_len;
            r->msgs[i].msg_hdr.msg_controllen = r->ctl_len;
        }
    }
}

int udp_rxb_recv(struct udp_rxb *r, int flags)
{
    if (r->heads)
        flags |= MSG_TRUNC;      /* the true length, not the bytes copied */
    for (;;) {
        if (r->mmsg && r->max > 1) {
            rx_prepare(r, r->max);
            r->calls++;
            int rc = recvmmsg(r->fd, r->msgs, (unsigned)r->max, flags | MSG_WAITFORONE, NULL);
            if (rc < 0 && is_missing(errno)) {
                /* ENOSYS, or EINVAL/EOPNOTSUPP for MSG_WAITFORONE: one at a time */
                r->mmsg = 0;
                r->max = 1;
                continue;
            }
            return rc;
        }
        r->calls++;
        ssize_t n;
        if (r->gro) {
            rx_prepare(r, 1);
            n = recvmsg(r->fd, &r->msgs[0].msg_hdr, flags);
        } else {
            n = recv(r->fd, r->slab, r->slot, flags);
            r->msgs[0].msg_hdr.msg_controllen = 0;
        }
        if (n < 0)
            return -1;
        r->msgs[0].msg_len = (unsigned)n;
        return 1;
    }
}

void udp_rxb_msg(const struct udp_rxb *r, int i, const unsigned char **data, size_t *len,
                 size_t *seg)
{
    const struct msghdr *h = &r->msgs[i].msg_hdr;
    *data = r->slab + (size_t)i * r->slot;
    *len = r->msgs[i].msg_len;
    *seg = *len;
    if (!r->gro || !h->msg_control)
        return;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(h); c; c = CMSG_NXTHDR((struct msghdr *)h, c)) {
        if (c->cmsg_level == SOL_UDP && c->cmsg_type == UDP_GRO &&
            c->cmsg_len >= CMSG_LEN(sizeof(int))) {
            int v;
            memcpy(&v, CMSG_DATA(c), sizeof v);
            if (v > 0 && (size_t)v < *len)
                *seg = (size_t)v;
        }
    }
}

void rx_nap_init(struct rx_nap *n, size_t batch_bytes, int rcvbuf)
{
    memset(n, 0, sizeof *n);
    n->target = batch_bytes / 2;
    if (rcvbuf > 0 && (size_t)rcvbuf / 8 < n->target)
        n->target = (size_t)rcvbuf / 8;
}

uint64_t rx_nap_after(struct rx_nap *n, uint64_t now_ns, uint64_t bytes, int full)
{
    if (n->last_ns && now_ns > n->last_ns) {
        double sample = (double)bytes / (double)(now_ns - n->last_ns);
        n->bytes_per_ns = n->bytes_per_ns > 0 ? (3 * n->bytes_per_ns + sample) / 4 : sample;
    }
    n->last_ns = now_ns;
    if (full || n->target == 0 || n->bytes_per_ns <= 0)
        return 0;             /* more is queued already, or nothing known */
    double ns = (double)n->target / n->bytes_per_ns;
    if (ns < (double)RX_NAP_MIN_NS || ns > (double)RX_NAP_MAX_NS)
        return 0;
    return (uint64_t)ns;
}

void rx_nap_idle(struct rx_nap *n)
{
    n->bytes_per_ns = 0;
}

void udp_rxb_free(struct udp_rxb *r)
{
    free(r->slab);
    free(r->msgs);
    free(r->iov);
    free(r->ctl);
    memset(r, 0, sizeof *r);
}

void udp_rxb_describe(const struct udp_rxb *r, char *buf, size_t len)
{
    if (r->heads && r->mmsg && r->max > 1)
        snprintf(buf, len, "recvmmsg up to %d, MSG_TRUNC: %zu-byte headers, no copy, no GRO",
                 r->max, r->slot);
    else if (r->heads)
        snprintf(buf, len, "recv, one message per call, MSG_TRUNC: %zu-byte headers, no copy, "
                 "no GRO", r->slot);
    else if (r->mmsg && r->max > 1)
        snprintf(buf, len, "recvmmsg up to %d, %s", r->max, r->gro ? "GRO" : "no GRO");
    else
        snprintf(buf, len, "%s, one message per call, %s", r->gro ? "recvmsg" : "recv",
                 r->gro ? "GRO" : "no GRO");
}
