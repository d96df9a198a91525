/* A count that must keep moving (the bytes a test's streams send or receive): the
 * watch notes when the count last changed and says when it has stood still for a
 * limit. One rule for every stall and idle check of both roles (the client's
 * -n/-k send stall, the counted receive stall, --rcv-timeout, the server's end
 * guard).
 * Pure: the caller gives the clock (monotonic ns). A zeroed watch starts at its
 * first look. */
#ifndef ESXPERF_PROGRESS_H
#define ESXPERF_PROGRESS_H
#include <stdint.h>

struct progress {
    uint64_t seen, seen_at;     /* the count last seen changing, and when (0: not yet) */
};

/* the watch (re)started: value as of now */
static inline void progress_start(struct progress *p, uint64_t value, uint64_t now)
{
    p->seen = value;
    p->seen_at = now;
}

/* 1 when value has not changed for limit_ns or longer; a change, or a first
 * look, starts the wait anew (0) */
static inline int progress_stalled(struct progress *p, uint64_t value, uint64_t now,
                                   uint64_t limit_ns)
{
    if (!p->seen_at || value != p->seen) {
        progress_start(p, value, now);
        return 0;
    }
    return now - p->seen_at >= limit_ns;
}

#endif
