/* --trace: TTL-limited probes, read hop by hop. */
#include "trace.h"
#include "bytes.h"
#include "clock.h"
#include "fail.h"

#include <stdlib.h>
#include <string.h>

static const char *const kind_names[] = {
    [TR_PASS] = "pass", [TR_TOO_BIG] = "too-big", [TR_VANISH] = "vanish", [TR_LOCAL] = "local-mtu",
    [TR_NO_REPLY] = "no-reply", [TR_UNKNOWN] = "unknown",
};
_Static_assert(ARRAY_SIZE(kind_names) == TR_LAST + 1, "a name for every enum trace_kind");

const char *trace_kind_name(enum trace_kind kind)
{
    return (unsigned)kind < ARRAY_SIZE(kind_names) ? kind_names[kind] : "?";
}

static int answered(enum probe_res res) { return res != PR_LOST && res != PR_PENDING; }
static int big_passed(enum probe_res res) { return res == PR_TTL || res == PR_REPLY; }

void trace_analyze(struct trace_report *t, const union sockaddr_any *dst)
{
    int max = t->max_hops > TRACE_MAX_HOPS ? TRACE_MAX_HOPS : t->max_hops;
    t->dest_hop = 0;
    int last = 0;
    for (int h = 1; h <= max; h++) {
        const struct trace_hop *x = &t->hop[h];
        if (answered(x->small_res) || answered(x->big_res))
            last = h;
        if ((x->small_res == PR_REPLY && probe_same_addr(&x->small_from, dst)) ||
            (x->big_res == PR_REPLY && probe_same_addr(&x->big_from, dst))) {
            t->dest_hop = h;
            break;
        }
    }
    t->nhops = t->dest_hop ? t->dest_hop : (last < max ? last + 1 : max);
    if (t->nhops > max)
        t->nhops = max;
    t->kind = last ? TR_UNKNOWN : TR_NO_REPLY;
    t->limit_hop = 0;
    t->limit_mtu = 0;
    for (int h = 1; h <= t->nhops; h++) {
        const struct trace_hop *x = &t->hop[h];
        if (x->big_res == PR_LOCAL_MTU || x->big_res == PR_SEND_FAIL) {
            t->kind = TR_LOCAL;
            t->limit_mtu = x->big_info;
            return;
        }
        if (x->big_res == PR_TOO_BIG) {
            t->kind = TR_TOO_BIG;
            t->limit_hop = h;
            /* a router checks the TTL before the MTU: the refusal for TTL h often
             * comes from the hop before; name the hop that answers from there */
            for (int k = 1; k < h && x->big_from_set; k++)
                if (t->hop[k].small_from_set && probe_same_addr(&t->hop[k].small_from, &x->big_from)) {
                    t->limit_hop = k;
                    break;
                }
            t->limit_mtu = x->big_info;
            return;
        }
        if (x->big_res == PR_REPLY) {
            t->kind = TR_PASS;
            return;
        }
        if (big_passed(x->big_res) || x->big_res != PR_LOST)
            continue;
        /* lost here: a black hole only if no later hop saw a full-size probe */
        int later = 0;
        for (int k = h + 1; k <= t->nhops; k++)
            if (big_passed(t->hop[k].big_res) || t->hop[k].big_res == PR_TOO_BIG)
                later = 1;
        if (later)
            continue;
        if (answered(x->small_res) || t->dest_hop) {
            t->kind = TR_VANISH;
            t->limit_hop = h;
            return;
        }
    }
}

static void take(struct trace_hop *h, const struct probe *pr, int big)
{
    /* rank: an answer beats an error beats a loss */
    static const int rank[] = { [PR_PENDING] = 0, [PR_LOST] = 1, [PR_SHORT] = 2, [PR_UNREACH] = 3,
                                [PR_SEND_FAIL] = 4, [PR_LOCAL_MTU] = 5, [PR_TTL] = 6, [PR_TOO_BIG] = 7,
                                [PR_REPLY] = 8 };
    _Static_assert(ARRAY_SIZE(rank) == PR_LAST + 1, "a rank for every enum probe_res");
    enum probe_res *res = big ? &h->big_res : &h->small_res;
    if (big && pr->bogus && !h->big_bogus) {
        h->big_bogus = 1;
        h->big_bogus_mtu = pr->bogus_mtu;
        h->big_bogus_from = pr->bogus_from;
    }
    if (rank[pr->res] <= rank[*res])
        return;
    *res = pr->res;
    double rtt = (double)pr->rtt_ns / (double)NS_PER_MS;
    if (big) {
        h->big_rtt_ms = rtt;
        h->big_info = pr->info;
        h->big_from = pr->from;
        h->big_from_set = pr->from_set;
    } else {
        h->small_rtt_ms = rtt;
        h->small_from = pr->from;
        h->small_from_set = pr->from_set;
    }
}

int trace_run(struct prober *p, const union sockaddr_any *dst, uint32_t mtu, uint32_t small_mtu,
              int max_hops, uint64_t timeout_ns, struct trace_report *out)
{
    if (max_hops < 1)
        max_hops = 1;
    if (max_hops > TRACE_MAX_HOPS)
        max_hops = TRACE_MAX_HOPS;
    memset(out, 0, sizeof *out);
    out->mtu = mtu;
    out->small_mtu = small_mtu;
    out->max_hops = max_hops;
    size_t n = (size_t)max_hops * 3;
    struct probe *v = xcalloc(n, sizeof *v);
    size_t k = 0;
    for (int h = 1; h <= max_hops; h++)
        for (int c = 0; c < 3; c++, k++) {
            v[k].dst = dst;
            v[k].ttl = h;
            v[k].mtu = c == 0 ? small_mtu : mtu;
            v[k].group = h * 2 + (c > 0);
            v[k].at_ns = k * 200 * NS_PER_US;   /* 0.2 ms apart */
        }
    double t0 = mono_s();
    if (probe_batch(p, v, n, timeout_ns, BATCH_BY_GROUP) != 0) {
        free(v);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        take(&out->hop[v[i].ttl], &v[i], i % 3 != 0);
    /* a next-hop MTU below the small probe, which crossed the same hop: a lie */
    for (int h = 1; h <= max_hops; h++) {
        struct trace_hop *x = &out->hop[h];
        if (x->big_res == PR_TOO_BIG && x->big_info < small_mtu && answered(x->small_res)) {
            x->big_bogus = 1;
            x->big_bogus_mtu = x->big_info;
            x->big_bogus_from = x->big_from;
            x->big_res = PR_LOST;
            x->big_from_set = 0;
        }
    }
    out->probes = (unsigned)n;
    out->seconds = mono_s() - t0;
    free(v);
    trace_analyze(out, dst);
    return 0;
}
