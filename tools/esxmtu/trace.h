/* --trace: hop by hop (TTL 1..N), a small and a full-size probe per hop, all hops in
 * one round. Raw/PROBE sockets make it immune to the path-MTU cache: the hop that
 * limits the path is named on every run. */
#ifndef ESXMTU_TRACE_H
#define ESXMTU_TRACE_H
#include <stdint.h>
#include "net.h"
#include "probe.h"

#define TRACE_MAX_HOPS 64

struct trace_hop {
    enum probe_res small_res, big_res;
    union sockaddr_any small_from, big_from;
    int small_from_set, big_from_set;
    double small_rtt_ms, big_rtt_ms;
    uint32_t big_info;               /* next-hop MTU for PR_TOO_BIG, local MTU */
    int big_bogus;                   /* the full-size probe got only a too-big with an */
    uint32_t big_bogus_mtu;          /* impossible MTU (ignored; big_res says what else) */
    union sockaddr_any big_bogus_from;
};

enum trace_kind { TR_PASS = 0, TR_TOO_BIG, TR_VANISH, TR_LOCAL, TR_NO_REPLY, TR_UNKNOWN };
#define TR_LAST TR_UNKNOWN

struct trace_report {
    uint32_t mtu, small_mtu;
    int nhops;                       /* hops shown */
    int max_hops;
    struct trace_hop hop[TRACE_MAX_HOPS + 1];  /* [1..nhops] */
    int dest_hop;                    /* first TTL answered by the target, 0 = never */
    enum trace_kind kind;
    int limit_hop;                   /* the hop that refused, or where big probes vanished */
    uint32_t limit_mtu;
    unsigned probes;
    double seconds;
};

/* decide from the hop table (pure; fills nhops, dest_hop, kind, limit_*) */
void trace_analyze(struct trace_report *t, const union sockaddr_any *dst);
const char *trace_kind_name(enum trace_kind kind);   /* "pass", "too-big"... (JSON words) */
int trace_run(struct prober *p, const union sockaddr_any *dst, uint32_t mtu, uint32_t small_mtu,
              int max_hops, uint64_t timeout_ns, struct trace_report *out);

#endif
