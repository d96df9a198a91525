/* What a sender may send now: the -n/-k budgets that all senders of a test take
 * from (atomics, given back when a send moves less), and the glue between a
 * sender loop and the pacer (pace.c): its clock, and the sleeps to a due time. */
#include "stream_loop.h"
#include "pace.h"

#define SLEEP_MAX_NS (50 * NS_PER_MS)  /* pacing sleeps in slices so stop is seen */

size_t budget_take(struct stream *s, size_t n)
{
    struct stream_shared *sh = s->sh;
    if (sh->has_budget_blocks && atomic_fetch_sub(&sh->budget_blocks, 1) <= 0)
        return 0;
    if (sh->has_budget_bytes) {
        long long left = atomic_fetch_sub(&sh->budget_bytes, (long long)n);
        if (left <= 0)
            return 0;
        if ((unsigned long long)left < n) {
            atomic_fetch_add(&sh->budget_bytes, (long long)n - left);
            return (size_t)left;
        }
    }
    return n;
}

void budget_return(struct stream *s, size_t unsent, int whole_block)
{
    if (s->sh->has_budget_bytes && unsent)
        atomic_fetch_add(&s->sh->budget_bytes, (long long)unsent);
    if (s->sh->has_budget_blocks && whole_block)
        atomic_fetch_add(&s->sh->budget_blocks, 1);
}

int budget_take_datagrams(struct stream *s, int n)
{
    struct stream_shared *sh = s->sh;
    if (sh->has_budget_blocks) {
        long long left = atomic_fetch_sub(&sh->budget_blocks, n);
        if (left <= 0)
            return 0;
        if (left < n) {
            atomic_fetch_add(&sh->budget_blocks, n - left);
            n = (int)left;
        }
    }
    if (sh->has_budget_bytes) {
        long long want = (long long)n * (long long)s->blksize;
        long long left = atomic_fetch_sub(&sh->budget_bytes, want);
        if (left <= 0)
            return 0;
        if (left < want) {
            int m = (int)((left + (long long)s->blksize - 1) / (long long)s->blksize);
            atomic_fetch_add(&sh->budget_bytes, (long long)(n - m) * (long long)s->blksize);
            n = m;
        }
    }
    return n;
}

void budget_return_datagrams(struct stream *s, int n)
{
    if (n <= 0)
        return;
    if (s->sh->has_budget_bytes)
        atomic_fetch_add(&s->sh->budget_bytes, (long long)n * (long long)s->blksize);
    if (s->sh->has_budget_blocks)
        atomic_fetch_add(&s->sh->budget_blocks, n);
}

uint64_t stream_burst_bytes(const struct stream *s)
{
    return s->burst > 1 ? (uint64_t)(s->burst - 1) * s->blksize : 0;
}

void stream_pace_sync(struct stream *s, struct pace_clock *pc)
{
    uint64_t from = atomic_load_explicit(&s->sh->pace_from_ns, memory_order_relaxed);
    if (from != pc->from_ns) {
        pc->from_ns = from;
        pc->sent = 0;
    }
}

int stream_pace_wait(struct stream *s, const struct pace_clock *pc, uint64_t due_ns)
{
    uint64_t due = pc->from_ns + due_ns;
    for (;;) {
        if (atomic_load_explicit(&s->sh->stop_send, memory_order_relaxed))
            return -1;
        uint64_t now = mono_ns();
        if (now >= due)
            return 0;
        /* a one-thread run sleeps no further than its next turn */
        uint64_t slice = s->sh->turn ? (uint64_t)TURN_MAX_MS * NS_PER_MS : SLEEP_MAX_NS;
        pace_sleep_until(due - now > slice ? now + slice : due);
        stream_turn(s);
    }
}
