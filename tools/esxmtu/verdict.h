/* From probe outcomes to one verdict per peer, with its evidence. Pure logic. */
#ifndef ESXMTU_VERDICT_H
#define ESXMTU_VERDICT_H
#include <stdint.h>
#include "net.h"

enum verdict {
    V_PASS = 0,      /* full-size replies came back */
    V_LOCAL_MTU,     /* refused here: the local interface MTU is smaller */
    V_TOO_BIG,       /* a router said frag-needed / Packet Too Big */
    V_SHORT_REPLY,   /* the peer answered with fewer bytes than we sent */
    V_UNREACHABLE,   /* another ICMP error (unreachable, prohibited...) or no route */
    V_TTL_EXCEEDED,  /* -t too small for the path */
    V_BLACK_HOLE,    /* small probes answered, full-size ones vanished silently */
    V_NO_REPLY       /* nothing answered at all: no MTU conclusion */
};

/* what the probes to one peer produced */
struct vstats {
    uint32_t mtu, small_mtu;          /* full-size and small probe sizes (IP bytes) */
    unsigned big_sent, big_recv, big_short, big_lost;
    unsigned small_sent, small_recv;
    unsigned local, too_big, unreach, ttl;
    uint32_t local_mtu, next_hop_mtu;  /* from the first such event */
    union sockaddr_any router;         /* who sent TOO-BIG / UNREACH / TTL */
    int router_set;
    uint8_t icmp_type, icmp_code;      /* of the unreachable */
    int send_err;                      /* errno of a failed send (no route ...) */
    double rtt_min, rtt_max, rtt_sum;  /* ms, of full-size replies */
};

enum verdict verdict_decide(const struct vstats *s);
const char *verdict_name(enum verdict v);   /* "PASS", "LOCAL-MTU", ... */
int verdict_ok(enum verdict v);             /* 1 only for PASS */
/* 1 when something answered the probes in a way a size search can use (not
 * NO-REPLY, UNREACHABLE, TTL-EXCEEDED): --discover runs only then */
int verdict_answered(enum verdict v);
/* "net unreachable", "admin prohibited"... for an ICMP / ICMPv6 error */
const char *verdict_icmp_name(int family, uint8_t type, uint8_t code);

#endif
