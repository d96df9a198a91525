/* --rcv-timeout (iperf3 3.22's meaning): a side that receives data streams ends
 * the test when no byte has come for the timeout (default 120000 ms, as iperf3).
 * Pure: the caller gives the clock (monotonic ns) and the bytes received so far
 * (rcv_idle_received). */
#ifndef ESXPERF_RCV_TIMEOUT_H
#define ESXPERF_RCV_TIMEOUT_H
#include <stdint.h>

#include "clock.h"
#include "session.h"

struct rcv_idle {
    uint64_t limit_ns;          /* 0 = this side receives nothing: never idle */
    uint64_t seen, seen_at;     /* bytes last seen changing, and when */
};

static inline void rcv_idle_init(struct rcv_idle *r, int receives, int64_t timeout_ms,
                                 uint64_t now)
{
    r->limit_ns = receives && timeout_ms > 0 ? (uint64_t)timeout_ms * NS_PER_MS : 0;
    r->seen = 0;
    r->seen_at = now;
}

/* what this side's receiving streams have taken so far */
static inline uint64_t rcv_idle_received(const struct session *s)
{
    uint64_t n = 0;
    for (int i = 0; i < s->nstreams; i++)
        if (!s->st[i].sender)
            n += atomic_load(&s->st[i].bytes);
    return n;
}

/* 1 when nothing came for the timeout, else 0 */
static inline int rcv_idle_check(struct rcv_idle *r, uint64_t now, uint64_t received)
{
    if (!r->limit_ns)
        return 0;
    if (received != r->seen) {
        r->seen = received;
        r->seen_at = now;
        return 0;
    }
    return now - r->seen_at >= r->limit_ns;
}

#endif
