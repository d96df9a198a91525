/* The log-linear round-trip histogram (rr_hist.h): bucket arithmetic, recording,
 * merging and the percentiles read from it. */
#include "rr_hist.h"

#include <string.h>

void rr_hist_reset(struct rr_hist *h)
{
    memset(h, 0, sizeof *h);
}

/* floor(log2(v)) for v > 0 */
static unsigned log2_floor(uint64_t v)
{
    return 63u - (unsigned)__builtin_clzll(v);
}

unsigned rr_bucket_of(uint64_t ns)
{
    if (ns < RR_SUB)
        return (unsigned)ns;
    unsigned e = log2_floor(ns);
    if (e >= RR_TOP_BITS)
        return RR_BUCKETS - 1;
    unsigned shift = e - RR_SUB_BITS;
    /* the power of two e, sub-bucket (ns >> shift) - RR_SUB */
    return (e - RR_SUB_BITS + 1) * RR_SUB + (unsigned)(ns >> shift) - RR_SUB;
}

uint64_t rr_bucket_lo(unsigned i)
{
    if (i < RR_SUB)
        return i;
    unsigned e = i / RR_SUB + RR_SUB_BITS - 1, sub = i % RR_SUB;
    return (uint64_t)(RR_SUB + sub) << (e - RR_SUB_BITS);
}

uint64_t rr_bucket_width(unsigned i)
{
    if (i < RR_SUB)
        return 1;
    unsigned e = i / RR_SUB + RR_SUB_BITS - 1;
    return (uint64_t)1 << (e - RR_SUB_BITS);
}

void rr_hist_add(struct rr_hist *h, uint64_t ns)
{
    if (!h->n || ns < h->min)
        h->min = ns;
    if (ns > h->max)
        h->max = ns;
    h->n++;
    h->sum += (double)ns;
    h->sumsq += (double)ns * (double)ns;
    h->count[rr_bucket_of(ns)]++;
}

void rr_hist_merge(struct rr_hist *dst, const struct rr_hist *src)
{
    if (!src->n)
        return;
    if (!dst->n || src->min < dst->min)
        dst->min = src->min;
    if (src->max > dst->max)
        dst->max = src->max;
    dst->n += src->n;
    dst->sum += src->sum;
    dst->sumsq += src->sumsq;
    for (unsigned i = 0; i < RR_BUCKETS; i++)
        dst->count[i] += src->count[i];
}

uint64_t rr_hist_quantile(const struct rr_hist *h, double q)
{
    if (!h->n)
        return 0;
    if (q < 0)
        q = 0;
    if (q > 1)
        q = 1;
    double want = q * (double)h->n;
    uint64_t rank = (uint64_t)want;
    if ((double)rank < want)
        rank++;
    if (rank < 1)
        rank = 1;
    uint64_t seen = 0;
    unsigned i = 0;
    for (; i < RR_BUCKETS - 1; i++) {
        seen += h->count[i];
        if (seen >= rank)
            break;
    }
    uint64_t v = rr_bucket_lo(i) + (rr_bucket_width(i) - 1) / 2;
    if (v < h->min)
        v = h->min;
    if (v > h->max || i == RR_BUCKETS - 1)
        v = h->max;
    return v;
}

double rr_hist_mean(const struct rr_hist *h)
{
    return h->n ? h->sum / (double)h->n : 0.0;
}

/* the square root by Newton's steps (no libm in the unit tests' link): from above,
 * each step at least halves the error, so 64 reach double precision and more */
static double root(double x)
{
    if (x <= 0)
        return 0.0;
    double r = x > 1 ? x : 1;
    for (int i = 0; i < 200; i++) {
        double next = 0.5 * (r + x / r);
        if (next >= r)
            break;
        r = next;
    }
    return r;
}

double rr_hist_stddev(const struct rr_hist *h)
{
    if (h->n < 2)
        return 0.0;
    double m = h->sum / (double)h->n, var = h->sumsq / (double)h->n - m * m;
    return root(var);
}
