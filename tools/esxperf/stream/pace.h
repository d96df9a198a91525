/* Rate pacing for -b: a token bucket measured from the start of the test, so the
 * long-run rate is exact however the sleeps fall (no drift), with batch sends
 * and absolute-time sleeps (clock_nanosleep TIMER_ABSTIME) to keep the timer
 * cost low. The arithmetic is pure and unit-tested; pace_sleep_until() sleeps. */
#ifndef ESXPERF_PACE_H
#define ESXPERF_PACE_H
#include <stddef.h>
#include <stdint.h>

/* bytes allowed out by elapsed_ns at rate_bps, plus the burst allowance */
uint64_t pace_allowed(uint64_t rate_bps, uint64_t elapsed_ns, uint64_t burst_bytes);
/* blocks of blk bytes that may go now, at most max: none while sent > allowed,
 * else (allowed - sent) / blk + 1 (the bucket may run up to one block negative:
 * the first block goes at once, and no rate waits for a whole block's worth) */
int pace_batch(uint64_t allowed, uint64_t sent, size_t blk, int max);
/* nanoseconds after the start at which `bytes` (total) become allowed */
uint64_t pace_due_ns(uint64_t rate_bps, uint64_t bytes, uint64_t burst_bytes);
/* blocks worth one wake-up: what the rate moves in period_ns, 1..max */
int pace_wake_blocks(uint64_t rate_bps, uint64_t period_ns, size_t blk, int max);
/* one step of a paced batch sender at elapsed_ns with sent bytes out: how many
 * blocks to send now (at most max), or 0 and *due_ns (from the start) to sleep
 * to. Sends only whole wake-up batches (`wake` blocks) unless it has fallen
 * further behind, so a fast loop does not trickle one block per call. */
int pace_step(uint64_t rate_bps, uint64_t elapsed_ns, uint64_t sent, uint64_t burst_bytes,
              size_t blk, int wake, int max, uint64_t *due_ns);
/* TCP paced writes: at most PACE_CHUNK_NS of the rate per send(), so a block
 * larger than what the rate moves in a test does not overshoot it (TCP is a
 * byte stream: the write size is not seen on the wire); 1..blk bytes */
#define PACE_CHUNK_NS 10000000u
size_t pace_chunk(uint64_t rate_bps, size_t blk);
/* how far (in % of the asked rate) a test of test_ns that sends whole blocks of
 * blk bytes (UDP datagrams) can land above rate_bps: the bucket's last block, or
 * a burst, goes out ahead of the rate. 0 without a rate or a duration. */
#define PACE_OVERSHOOT_OK 5    /* % above the rate that a client warns about */
int pace_overshoot_pct(uint64_t rate_bps, size_t blk, uint64_t burst_blocks, uint64_t test_ns);
/* a sender's place in the token bucket: bytes sent since the pacing reference;
 * when the session moves the reference (end of -O), the count starts again
 * (budget.h budget_pace_sync) */
struct pace_clock {
    uint64_t from_ns, sent;
};
/* sleep until the CLOCK_MONOTONIC time abs_ns (clock_nanosleep with
 * TIMER_ABSTIME, nanosleep when that fails); returns at once when passed */
void pace_sleep_until(uint64_t abs_ns);

#endif
