/* What a sender may send now: the -n/-k budgets and the sender's pace clock
 * (budget.h). */
#include "budget.h"

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

uint64_t budget_burst_bytes(const struct stream *s)
{
    return s->burst > 1 ? (uint64_t)(s->burst - 1) * s->blksize : 0;
}

void budget_pace_sync(struct stream *s, struct pace_clock *pc)
{
    uint64_t from = atomic_load_explicit(&s->sh->pace_from_ns, memory_order_relaxed);
    if (from != pc->from_ns) {
        pc->from_ns = from;
        pc->sent = 0;
    }
}
