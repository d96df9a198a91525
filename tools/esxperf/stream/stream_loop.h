/* What the stream loops (stream_tcp.c, stream_udp.c) share with stream.c and
 * stream_budget.c: the I/O path text, the bound on draining after stop, and what
 * a sender may send now (the -n/-k budgets all senders share, the -b pacer's
 * clock and waits). Internal to the data streams; the rest of esxperf uses
 * stream.h. */
#ifndef ESXPERF_STREAM_LOOP_H
#define ESXPERF_STREAM_LOOP_H
#include <stddef.h>
#include <stdint.h>

#include "clock.h"
#include "stream.h"

#define DRAIN_MAX_NS (1000 * NS_PER_MS)   /* bound on reading what is queued after stop */

/* a one-thread run (stream.h struct stream_turn): the session's turn when it is
 * due; every loop calls it once per pass, so no turn waits on a busy socket */
static inline void stream_turn(struct stream *s)
{
    if (s->sh->turn)
        stream_turn_take(s->sh, 0);
}

/* append to the stream's I/O path text (-V, JSON "engine") */
void stream_path_add(struct stream *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* take n bytes (and one block) from the -n/-k budgets; returns how many bytes
 * may be sent (0 = budget used up) */
size_t budget_take(struct stream *s, size_t n);
/* give back what was not sent (and the block, when none of it went) */
void budget_return(struct stream *s, size_t unsent, int whole_block);
/* UDP: take up to n whole datagrams from the budgets (a partial last block
 * still goes out whole, as iperf3 does); 0 = used up */
int budget_take_datagrams(struct stream *s, int n);
void budget_return_datagrams(struct stream *s, int n);

/* -b RATE/BURST: the burst allowance in bytes beyond the first block */
uint64_t stream_burst_bytes(const struct stream *s);
/* a sender's place in the token bucket: bytes sent since the pacing reference;
 * when the session moves the reference (end of -O), the count starts again */
struct pace_clock {
    uint64_t from_ns, sent;
};
void stream_pace_sync(struct stream *s, struct pace_clock *pc);
/* -b: sleep until due_ns after the pacing reference (pace_due_ns, pace_step), to
 * an absolute time, in slices so a stop is seen. Returns 0, or -1 on stop. */
int stream_pace_wait(struct stream *s, const struct pace_clock *pc, uint64_t due_ns);

#endif
