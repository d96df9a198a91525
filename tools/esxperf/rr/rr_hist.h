/* The round-trip histogram of esxperf --rr: log-linear buckets over nanoseconds
 * (HDR-like), a fixed array, so its memory is the same after a second or after
 * hours. Values below RR_SUB ns each have a bucket of their own (exact); above,
 * every power of two is cut into RR_SUB equal buckets, so a bucket is at most
 * 1/RR_SUB of the values in it wide: below 131 us a bucket is 1 us wide or less
 * (0.5 us below 65 us).
 * A percentile is read as the middle of its bucket, clamped to the exact minimum
 * and maximum: it is within half a bucket of the recorded sample at that rank,
 * i.e. within v / (2 * RR_SUB) of it (0.4 %), and exact below RR_SUB ns.
 * Values above 2^RR_TOP_BITS ns (18 minutes) are counted in the last bucket; the
 * maximum stays exact. Pure; implemented by rr_hist.c. */
#ifndef ESXPERF_RR_HIST_H
#define ESXPERF_RR_HIST_H
#include <stdint.h>

#define RR_SUB_BITS 7
#define RR_SUB (1u << RR_SUB_BITS)
#define RR_TOP_BITS 40
#define RR_BUCKETS ((RR_TOP_BITS - RR_SUB_BITS + 1) * RR_SUB)

struct rr_hist {
    uint64_t n;                  /* samples */
    uint64_t min, max;           /* ns, exact (min 0 when n is 0) */
    double sum, sumsq;           /* ns and ns^2, for the mean and the deviation */
    uint64_t count[RR_BUCKETS];
};

void rr_hist_reset(struct rr_hist *h);
void rr_hist_add(struct rr_hist *h, uint64_t ns);
/* dst += src */
void rr_hist_merge(struct rr_hist *dst, const struct rr_hist *src);
/* the bucket a value falls in, its lowest value and its width (ns) */
unsigned rr_bucket_of(uint64_t ns);
uint64_t rr_bucket_lo(unsigned i);
uint64_t rr_bucket_width(unsigned i);
/* the value at quantile q (0..1): the sample of rank ceil(q * n) (at least 1), as
 * its bucket's middle clamped to min..max; 0 when empty */
uint64_t rr_hist_quantile(const struct rr_hist *h, double q);
double rr_hist_mean(const struct rr_hist *h);
double rr_hist_stddev(const struct rr_hist *h);

#endif
