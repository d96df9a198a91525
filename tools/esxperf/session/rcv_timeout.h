/* --rcv-timeout (iperf3 3.22's meaning): a side that receives data streams ends
 * the test when no byte has come for the timeout (default 120000 ms, as iperf3).
 * Pure: the caller gives the clock (monotonic ns) and the bytes received so far
 * (session_bytes of the receivers); the watch is progress.h's. */
#ifndef ESXPERF_RCV_TIMEOUT_H
#define ESXPERF_RCV_TIMEOUT_H
#include <stdint.h>

#include "clock.h"
#include "progress.h"

struct rcv_idle {
    uint64_t limit_ns;          /* 0 = this side receives nothing: never idle */
    struct progress rx;         /* the bytes received */
};

static inline void rcv_idle_init(struct rcv_idle *r, int receives, int64_t timeout_ms,
                                 uint64_t now)
{
    r->limit_ns = receives && timeout_ms > 0 ? (uint64_t)timeout_ms * NS_PER_MS : 0;
    progress_start(&r->rx, 0, now);
}

/* 1 when nothing came for the timeout, else 0 */
static inline int rcv_idle_check(struct rcv_idle *r, uint64_t now, uint64_t received)
{
    return r->limit_ns && progress_stalled(&r->rx, received, now, r->limit_ns);
}

#endif
