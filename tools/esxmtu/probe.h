/* Sending Don't-Fragment echo probes and collecting what answers them.
 * (probe.c: the batch, its sends and the matching of answers; method.c: the sockets.)
 *
 * Methods (per address family):
 *   raw       IPv4: raw ICMP socket + IP_HDRINCL, our own header with DF; IPv6: raw
 *             ICMPv6 socket + IPV6_PMTUDISC_PROBE + IPV6_DONTFRAG. ICMP errors are
 *             read as packets (frag-needed / Packet Too Big with the quoted probe).
 *             When the socket refuses those options, each family keeps one way to
 *             DF that needs no option: probes leave by an IPPROTO_RAW socket (sfd),
 *             which sends the IP header we write (IPv4 with DF; IPv6, which routers
 *             never fragment and Linux does not either: a header-included packet over
 *             the interface MTU, or without PMTUDISC_PROBE a cached path MTU, is
 *             refused with EMSGSIZE), and answers still come on the ICMP socket.
 *             IPv6's header needs the route's source address (src6.h) and carries
 *             the hop limit itself.
 *   errqueue  raw ICMP socket + IP(V6)_PMTUDISC_PROBE; errors from MSG_ERRQUEUE.
 *   dgram     unprivileged ICMP "ping" socket + PMTUDISC_PROBE; errors from
 *             MSG_ERRQUEUE. Needs the gid inside net.ipv4.ping_group_range.
 * None uses the kernel's path-MTU cache, so every run sees the path as it is.
 *
 * Sends never block. A probe to an on-link peer whose address (ARP/ND) is not yet
 * resolved waits in the kernel, charged to the socket's send buffer; a send refused
 * for room (EAGAIN) or by the interface (ENOBUFS: a full queue, or a veth whose far
 * end has a smaller MTU) is retried, 1 ms then doubling, PROBE_SEND_TRIES times at
 * most and never past the probe's own deadline (its first try + the timeout), then
 * it is PR_SEND_FAIL. So a batch ends by its last scheduled send + the retries (127
 * ms at most, and less than the timeout) + the timeout, whatever the number of peers.
 *
 * Lying ICMP: an answer counts only when it names a probe we sent (see pkt_match).
 * A too-big error whose next-hop MTU cannot be (pkt_mtu_plausible) does not settle
 * the probe: it is kept as `bogus` and the probe stays open for a real answer. A
 * full-size reply beats any error recorded for the same probe. */
#ifndef ESXMTU_PROBE_H
#define ESXMTU_PROBE_H
#include <stddef.h>
#include <stdint.h>
#include "net.h"
#include "src6.h"

enum probe_method { METHOD_AUTO = 0, METHOD_RAW, METHOD_ERRQUEUE, METHOD_DGRAM };
#define METHOD_LAST METHOD_DGRAM        /* tables indexed by the enum assert their size with it */
const char *probe_method_name(enum probe_method m);
int probe_method_parse(const char *s);          /* an enum probe_method, -1 if unknown */

enum probe_res {
    PR_PENDING = 0,
    PR_REPLY,        /* full-size echo reply, data intact */
    PR_SHORT,        /* our echo reply, but shorter than sent or altered */
    PR_TOO_BIG,      /* frag-needed / Packet Too Big from a router: info = next-hop MTU */
    PR_LOCAL_MTU,    /* refused here (EMSGSIZE): info = local MTU (0 if unknown) */
    PR_TTL,          /* time exceeded from a hop (trace) */
    PR_UNREACH,      /* other ICMP error (type/code), or a send error (err) */
    PR_LOST,         /* nothing within the timeout (see bogus) */
    PR_SEND_FAIL     /* this host would not send it: err (ENOBUFS, EAGAIN) after `tries` */
};
#define PR_LAST PR_SEND_FAIL
const char *probe_res_name(enum probe_res r);   /* "reply", "too-big"... (JSON words) */

struct probe {
    /* in */
    const union sockaddr_any *dst;
    uint32_t mtu;            /* IP packet size: data = mtu - 28 / - 48 */
    int ttl;                 /* 0 = the socket default (or -t) */
    int group;               /* probes of one group answer the same question; keep them adjacent in v */
    uint64_t at_ns;          /* send time, offset from the start of the batch */
    /* out */
    enum probe_res res;
    uint16_t seq;
    uint64_t sent_ns, rtt_ns;
    uint32_t info;           /* MTU for PR_TOO_BIG / PR_LOCAL_MTU */
    uint8_t type, code;      /* ICMP type/code for errors */
    int err;                 /* errno for a failed send */
    unsigned tries;          /* send attempts refused for room before it left (or gave up) */
    union sockaddr_any from; /* who answered (router for errors) */
    int from_set;
    /* a too-big error with an impossible next-hop MTU (it settles nothing): its MTU
     * and sender, kept for the evidence */
    int bogus;
    uint32_t bogus_mtu;
    union sockaddr_any bogus_from;
};

struct prober_opts {
    enum probe_method method;
    const char *iface;       /* -I */
    union sockaddr_any src4, src6;   /* -B, family 0 when unset */
    int ttl;                 /* -t, 0 = default */
};

#define PROBE_SBUF_LEN (65535 + 64)
#define PROBE_RBUF_LEN (65535 + 512)
#define PROBE_SNDBUF (32 << 20)      /* send buffer: probes waiting for ARP/ND count here */
#define PROBE_SEND_TRIES 8           /* EAGAIN/ENOBUFS tries: 1+2+...+64 ms = 127 ms of waits */

struct prober {
    const struct prober_opts *o;
    enum probe_method method[2];   /* resolved method for [0] IPv4, [1] IPv6 */
    int fd[2];
    int sfd[2];                    /* the socket probes leave by when not fd[] (raw when
                                    * fd[] cannot set DF: an IPPROTO_RAW socket), or -1 */
    struct src6_last src6;         /* IPv6 by sfd[1]: the last destination's source address */
    int cur_ttl[2];
    uint16_t id;
    uint16_t next_seq;
    uint64_t nonce;
    uint8_t *sbuf, *rbuf;
    unsigned long sent, received;    /* totals */
};

/* Open sockets for the families needed. Returns 0, or -1 with *why (static text)
 * and errno set; the caller turns it into a one-line message. */
int prober_open(struct prober *p, const struct prober_opts *o, int need4, int need6,
                const char **why);
void prober_close(struct prober *p);
const char *prober_method_desc(const struct prober *p, int family);
/* setsockopt of one int (method.c; probe.c sets the TTL with it) */
int prober_setopt(int fd, int level, int name, int val);

enum batch_wait {
    BATCH_ALL = 0,       /* until every probe has an answer, or timeout_ns after its send */
    BATCH_BY_GROUP,      /* until every group has one answered probe (or the same timeout) */
    BATCH_SEND_ONLY      /* until every probe has left or been refused here: no answers awaited */
};
/* Send the probes (at_ns must not decrease) and wait as `wait` says. Unanswered
 * probes become PR_LOST (with BATCH_SEND_ONLY: sent). Returns 0, or -1 on a system
 * error (errno), or -1 with errno EINTR after a stop signal (stop.h): then what had
 * come back is counted and the probes without an outcome stay PR_PENDING. */
int probe_batch(struct prober *p, struct probe *v, size_t n, uint64_t timeout_ns,
                enum batch_wait wait);

/* data bytes for a given MTU */
uint32_t probe_data_len(int family, uint32_t mtu);
/* same family and address (ports and scope ignored); trace.c uses it too */
int probe_same_addr(const union sockaddr_any *a, const union sockaddr_any *b);

#endif
