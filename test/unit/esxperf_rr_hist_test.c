/* esxperf --rr's histogram (rr/rr_hist.c): the buckets tile the values without
 * gap or overlap, and every percentile read from it is the recorded sample of
 * that rank in a sorted list, exactly where buckets are 1 ns wide and within half
 * a bucket (v / 256) above; the mean, deviation and a merge against direct sums. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "rr_hist.h"

const char tool_name[] = "esxperf_test";

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* the sample of rank ceil(q * n) in a sorted list (at least the first) */
static uint64_t exact_quantile(const uint64_t *v, size_t n, double q)
{
    double want = q * (double)n;
    size_t rank = (size_t)want;
    if ((double)rank < want)
        rank++;
    if (rank < 1)
        rank = 1;
    return v[rank - 1];
}

static uint64_t next_rand(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

static void buckets_tile_the_values(void **state)
{
    (void)state;
    for (unsigned i = 0; i + 1 < RR_BUCKETS; i++) {
        assert_int_equal(rr_bucket_lo(i) + rr_bucket_width(i), rr_bucket_lo(i + 1));
        assert_int_equal(rr_bucket_of(rr_bucket_lo(i)), i);
        assert_int_equal(rr_bucket_of(rr_bucket_lo(i) + rr_bucket_width(i) - 1), i);
        /* a bucket is at most 1/RR_SUB of the values in it wide */
        assert_true(rr_bucket_width(i) * RR_SUB <= rr_bucket_lo(i) || rr_bucket_width(i) == 1);
    }
    /* 1 us wide or finer up to 131 us, 0.4 % of the value above */
    assert_true(rr_bucket_width(rr_bucket_of(131071)) <= 1000);
    assert_true(rr_bucket_width(rr_bucket_of(131072)) > 1000);
    assert_int_equal(rr_bucket_of(UINT64_MAX), RR_BUCKETS - 1);
}

static const double qs[] = { 0, 0.001, 0.1, 0.5, 0.9, 0.99, 0.999, 1 };

/* the samples into a histogram and a sorted list; each quantile within bound */
static void check_against_sorted(uint64_t *v, size_t n, int exact)
{
    struct rr_hist *h = malloc(sizeof *h);
    assert_non_null(h);
    rr_hist_reset(h);
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        rr_hist_add(h, v[i]);
        sum += (double)v[i];
    }
    qsort(v, n, sizeof *v, cmp_u64);
    assert_int_equal(h->n, n);
    assert_int_equal(h->min, v[0]);
    assert_int_equal(h->max, v[n - 1]);
    double m = rr_hist_mean(h), want_m = sum / (double)n;
    if (m < want_m * (1 - 1e-12) - 1e-9 || m > want_m * (1 + 1e-12) + 1e-9)
        fail_msg("mean %.6f against %.6f", m, want_m);
    for (size_t k = 0; k < sizeof qs / sizeof qs[0]; k++) {
        uint64_t want = exact_quantile(v, n, qs[k]), got = rr_hist_quantile(h, qs[k]);
        if (exact) {
            assert_int_equal(got, want);
        } else {
            uint64_t d = got > want ? got - want : want - got;
            uint64_t bound = want / (2 * RR_SUB) + 1;
            if (d > bound)
                fail_msg("q %.3f: %llu against %llu (bound %llu)", qs[k],
                         (unsigned long long)got, (unsigned long long)want,
                         (unsigned long long)bound);
        }
    }
    free(h);
}

static void percentiles_exact_in_one_ns_buckets(void **state)
{
    (void)state;
    enum { N = 1001 };
    uint64_t v[N], x = 12345;
    for (size_t i = 0; i < N; i++)
        v[i] = next_rand(&x) % RR_SUB;
    check_against_sorted(v, N, 1);
}

static void percentiles_within_half_a_bucket(void **state)
{
    (void)state;
    enum { N = 20000 };
    uint64_t *v = malloc(N * sizeof *v), x = 987654321;
    assert_non_null(v);
    /* a spread like round trips: 5 us to 50 ms, with a long tail */
    for (size_t i = 0; i < N; i++) {
        uint64_t r = next_rand(&x);
        v[i] = 5000 + r % 20000 + (r >> 40 < 50 ? r % 50000000 : 0);
    }
    check_against_sorted(v, N, 0);
    /* one sample, and two far apart */
    uint64_t one[1] = { 123456789 };
    check_against_sorted(one, 1, 1);      /* clamped to min = max: exact */
    uint64_t two[2] = { 7, (uint64_t)1 << 45 };
    check_against_sorted(two, 2, 1);      /* above the top: the exact maximum */
    free(v);
}

static void merge_and_deviation(void **state)
{
    (void)state;
    struct rr_hist *a = malloc(sizeof *a), *b = malloc(sizeof *b);
    assert_non_null(a);
    assert_non_null(b);
    rr_hist_reset(a);
    rr_hist_reset(b);
    assert_int_equal(rr_hist_quantile(a, 0.5), 0);
    /* 10 and 30 us, evenly: mean 20 us, deviation 10 us */
    for (int i = 0; i < 500; i++) {
        rr_hist_add(a, 10000);
        rr_hist_add(b, 30000);
    }
    rr_hist_merge(a, b);
    assert_int_equal(a->n, 1000);
    assert_int_equal(a->min, 10000);
    assert_int_equal(a->max, 30000);
    assert_true(rr_hist_mean(a) == 20000.0);
    double sd = rr_hist_stddev(a);
    assert_true(sd > 9999.999 && sd < 10000.001);
    assert_true(rr_hist_quantile(a, 0.5) <= 10000 + 10000 / (2 * RR_SUB));
    assert_true(rr_hist_quantile(a, 0.501) >= 30000 - 30000 / (2 * RR_SUB));
    free(a);
    free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(buckets_tile_the_values),
        cmocka_unit_test(percentiles_exact_in_one_ns_buckets),
        cmocka_unit_test(percentiles_within_half_a_bucket),
        cmocka_unit_test(merge_and_deviation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
