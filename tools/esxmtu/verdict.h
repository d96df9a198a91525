/* From probe outcomes to one verdict per peer, with its evidence. Pure logic. */
#ifndef ESXMTU_VERDICT_H
#define ESXMTU_VERDICT_H
#include <stddef.h>
#include <stdint.h>
#include "net.h"

enum verdict {
    V_PASS = 0,      /* full-size replies came back */
    V_LOCAL_MTU,     /* refused here: the local interface MTU is smaller (EMSGSIZE), or this
                      * host's link refuses the size (ENOBUFS for full-size probes only) */
    V_TOO_BIG,       /* a router said frag-needed / Packet Too Big */
    V_SHORT_REPLY,   /* the peer answered with fewer bytes than we sent */
    V_UNREACHABLE,   /* another ICMP error (unreachable, prohibited...) or no route */
    V_TTL_EXCEEDED,  /* -t too small for the path */
    V_BLACK_HOLE,    /* small probes answered, full-size ones vanished silently */
    V_NO_REPLY,      /* nothing answered at all: no MTU conclusion */
    V_SEND_FAILED,   /* this host would not send the probes (ENOBUFS, EAGAIN after retries),
                      * and nothing answered: no MTU conclusion */
    V_INTERRUPTED    /* a stop signal came before all its probes had an outcome: no
                      * conclusion (check.c's, never verdict_decide's) */
};
#define V_LAST V_INTERRUPTED

/* what the probes to one peer produced */
struct vstats {
    uint32_t mtu, small_mtu;          /* full-size and small probe sizes (IP bytes) */
    unsigned big_sent, big_recv, big_short, big_lost;
    unsigned small_sent, small_recv;
    unsigned pending;                  /* probes without an outcome when a stop signal came */
    unsigned local, too_big, unreach, ttl;
    uint32_t local_mtu, next_hop_mtu;  /* from the first such event */
    union sockaddr_any router;         /* who sent TOO-BIG / UNREACH / TTL */
    int router_set;
    uint8_t icmp_type, icmp_code;      /* of the unreachable */
    int send_err;                      /* errno of a failed send (no route ...) */
    unsigned send_fail, small_send_fail;  /* refused here for room (PR_SEND_FAIL), by size */
    int send_fail_err;                 /* its errno (ENOBUFS, EAGAIN) and refusals, first one */
    unsigned send_fail_tries;
    unsigned bogus;                    /* full-size probes answered only by an impossible too-big */
    uint32_t bogus_mtu;                /* the first one's next-hop MTU and sender */
    union sockaddr_any bogus_from;
    int bogus_from_set;
    double rtt_min, rtt_max, rtt_sum;  /* ms, of full-size replies */
    int pmtu_cache;                    /* the socket could not bypass the path-MTU cache
                                        * (PMTUDISC_PROBE refused): a local refusal after
                                        * a router's too-big is that router's MTU */
};

enum verdict verdict_decide(const struct vstats *s);
/* --discover saw `passed` (IP bytes) answered: a next-hop MTU below it is a lie, so the
 * too-bigs that named it join the bogus ones (counted as lost, their sender no
 * router); before verdict_decide */
void verdict_weigh_discovery(struct vstats *s, uint32_t passed);
const char *verdict_name(enum verdict v);   /* "PASS", "LOCAL-MTU", ... */
int verdict_ok(enum verdict v);             /* 1 only for PASS */
/* 1 when something answered the probes in a way a size search can use (not
 * NO-REPLY, UNREACHABLE, TTL-EXCEEDED): --discover runs only then */
int verdict_answered(enum verdict v);
/* why a next-hop MTU cannot be, for a probe of probe_mtu when `passed` was answered
 * (0: none): "below the IPv4 minimum 68", "not below the 9000-byte probe", "below
 * 84, which was answered"; NULL when it can be */
const char *verdict_bogus_why(int family, uint32_t mtu, uint32_t probe_mtu, uint32_t passed,
                              char *buf, size_t len);
/* "net unreachable", "admin prohibited"... for an ICMP / ICMPv6 error */
const char *verdict_icmp_name(int family, uint8_t type, uint8_t code);

#endif
