/* Token-bucket pacing arithmetic (128-bit products: rate x time overflows 64 bits
 * after a few minutes at 10 Gbit/s) and the absolute-time sleep. */
#include "pace.h"
#include "clock.h"

#include <errno.h>
#include <stdint.h>
#include <time.h>

uint64_t pace_allowed(uint64_t rate_bps, uint64_t elapsed_ns, uint64_t burst_bytes)
{
    unsigned __int128 b = (unsigned __int128)rate_bps * elapsed_ns / (8u * (unsigned __int128)NS_PER_SEC);
    b += burst_bytes;
    return b > UINT64_MAX ? UINT64_MAX : (uint64_t)b;
}

int pace_batch(uint64_t allowed, uint64_t sent, size_t blk, int max)
{
    if (sent > allowed || blk == 0 || max <= 0)
        return 0;
    /* a block may start while the bucket is not negative, so the first goes at
     * once and the bucket ends at most one block below zero */
    uint64_t n = (allowed - sent) / blk + 1;
    return n > (uint64_t)max ? max : (int)n;
}

uint64_t pace_due_ns(uint64_t rate_bps, uint64_t bytes, uint64_t burst_bytes)
{
    if (bytes <= burst_bytes)
        return 0;
    if (rate_bps == 0)
        return UINT64_MAX;
    unsigned __int128 num = (unsigned __int128)(bytes - burst_bytes) * 8u * NS_PER_SEC;
    unsigned __int128 t = (num + rate_bps - 1) / rate_bps;   /* round up: never early */
    return t > UINT64_MAX ? UINT64_MAX : (uint64_t)t;
}

int pace_wake_blocks(uint64_t rate_bps, uint64_t period_ns, size_t blk, int max)
{
    if (blk == 0 || max <= 0)
        return 1;
    unsigned __int128 bytes = (unsigned __int128)rate_bps * period_ns / (8u * (unsigned __int128)NS_PER_SEC);
    unsigned __int128 n = bytes / blk;
    if (n < 1)
        return 1;
    return n > (unsigned)max ? max : (int)n;
}

int pace_step(uint64_t rate_bps, uint64_t elapsed_ns, uint64_t sent, uint64_t burst_bytes,
              size_t blk, int wake, int max, uint64_t *due_ns)
{
    if (wake < 1)
        wake = 1;
    if (wake > max)
        wake = max;
    int n = pace_batch(pace_allowed(rate_bps, elapsed_ns, burst_bytes), sent, blk, max);
    if (n >= wake || (sent == 0 && n > 0))
        return n;
    /* pace_batch reaches `wake` once (wake - 1) blocks more are allowed */
    *due_ns = pace_due_ns(rate_bps, sent + (uint64_t)(wake - 1) * blk, burst_bytes);
    return 0;
}

size_t pace_chunk(uint64_t rate_bps, size_t blk)
{
    unsigned __int128 b = (unsigned __int128)rate_bps * PACE_CHUNK_NS / (8u * (unsigned __int128)NS_PER_SEC);
    if (b < 1)
        b = 1;
    return b < blk ? (size_t)b : blk;
}

int pace_overshoot_pct(uint64_t rate_bps, size_t blk, uint64_t burst_blocks, uint64_t test_ns)
{
    if (!rate_bps || !test_ns)
        return 0;
    /* the bucket's last block, and a burst, go out ahead of the rate */
    uint64_t ahead = (uint64_t)blk * (burst_blocks > 1 ? burst_blocks : 1);
    unsigned __int128 want = (unsigned __int128)rate_bps * test_ns / (8u * (unsigned __int128)NS_PER_SEC);
    if (want == 0)
        return INT32_MAX;
    unsigned __int128 pct = (unsigned __int128)ahead * 100u / want;
    return pct > INT32_MAX ? INT32_MAX : (int)pct;
}

void pace_sleep_until(uint64_t abs_ns)
{
    struct timespec ts = { (time_t)(abs_ns / NS_PER_SEC), (long)(abs_ns % NS_PER_SEC) };
    int rc;
    do
        rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
    while (rc == EINTR);
    if (rc != 0) {
        uint64_t now = mono_ns();
        if (now < abs_ns)
            sleep_ns(abs_ns - now);
    }
}
