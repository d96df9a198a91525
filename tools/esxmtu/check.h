/* The default check: full-size DF probes (and small ones, to tell a black hole from
 * a silent peer) to every peer at once; one verdict per peer, decided when every phase
 * (the check, --discover) is over. */
#ifndef ESXMTU_CHECK_H
#define ESXMTU_CHECK_H
#include <stddef.h>
#include <stdint.h>
#include "net.h"
#include "probe.h"
#include "verdict.h"
#include "discover.h"
#include "trace.h"

#define CHECK_SMALL_DATA 56u     /* vmkping's default -s */

struct peer {
    const char *name;            /* as given */
    union sockaddr_any addr;
    int family;
    uint32_t mtu;                /* full-size probe (IP bytes) */
    uint32_t small_mtu;          /* 0 = no small probe (the full size is small) */
    struct vstats st;
    enum verdict verdict;
    int did_discover;
    struct disc_report disc;
    struct trace_report *trace;  /* NULL unless --trace */
};

struct check_opts {
    unsigned count;              /* -c */
    uint64_t interval_ns;        /* -i */
    uint64_t timeout_ns;         /* -W */
};

/* sizes for a peer: mtu from -m or -s (data + 28 / 48) */
void check_sizes(struct peer *pe, uint32_t mtu);
/* fold probe outcomes of peer number `peer` (probe.group / 2 == peer) into its stats */
void check_collect(const struct probe *v, size_t n, int peer, struct vstats *s);
/* run the check for all peers, their evidence collected (check_decide decides);
 * returns 0 or -1 on a system error, or -1 with errno EINTR after a stop signal
 * (stop.h), the evidence as far as it goes */
int check_run(struct prober *p, struct peer *peers, size_t npeers, const struct check_opts *o);
/* what a peer's evidence says so far: INTERRUPTED when a probe had no outcome, else
 * verdict_decide's verdict (the phases ask it; the peer's verdict is check_decide's) */
enum verdict check_evidence(const struct peer *pe);
/* the peer's verdict, decided once, when every phase is over: a next-hop MTU below
 * the size --discover saw pass is a lie and joins the bogus ones first */
void check_decide(struct peer *pe);

#endif
