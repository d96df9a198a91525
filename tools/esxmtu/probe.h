/* Sending Don't-Fragment echo probes and collecting what answers them.
 *
 * Methods (per address family):
 *   raw       IPv4: raw ICMP socket + IP_HDRINCL, our own header with DF; IPv6: raw
 *             ICMPv6 socket + IPV6_PMTUDISC_PROBE + IPV6_DONTFRAG. ICMP errors are
 *             read as packets (frag-needed / Packet Too Big with the quoted probe).
 *   errqueue  raw ICMP socket + IP(V6)_PMTUDISC_PROBE; errors from MSG_ERRQUEUE.
 *   dgram     unprivileged ICMP "ping" socket + PMTUDISC_PROBE; errors from
 *             MSG_ERRQUEUE. Needs the gid inside net.ipv4.ping_group_range.
 * None uses the kernel's path-MTU cache, so every run sees the path as it is. */
#ifndef ESXMTU_PROBE_H
#define ESXMTU_PROBE_H
#include <stddef.h>
#include <stdint.h>
#include "net.h"

enum probe_method { METHOD_AUTO = 0, METHOD_RAW, METHOD_ERRQUEUE, METHOD_DGRAM };
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
    PR_LOST          /* nothing within the timeout */
};
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
    union sockaddr_any from; /* who answered (router for errors) */
    int from_set;
};

struct prober_opts {
    enum probe_method method;
    const char *iface;       /* -I */
    union sockaddr_any src4, src6;   /* -B, family 0 when unset */
    int ttl;                 /* -t, 0 = default */
};

struct prober {
    const struct prober_opts *o;
    enum probe_method method[2];   /* resolved method for [0] IPv4, [1] IPv6 */
    int fd[2];
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

/* Send the probes (at_ns must not decrease) and wait for answers until each one has
 * a result or `timeout_ns` after the last send. With by_group, stop as soon as every
 * group has one answered probe. Unanswered probes become PR_LOST.
 * Returns 0, or -1 on a system error (errno). */
int probe_batch(struct prober *p, struct probe *v, size_t n, uint64_t timeout_ns,
                int by_group);

/* data bytes for a given MTU */
uint32_t probe_data_len(int family, uint32_t mtu);
/* same family and address (ports and scope ignored); trace.c uses it too */
int probe_same_addr(const union sockaddr_any *a, const union sockaddr_any *b);

#endif
