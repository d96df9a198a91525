/* server.c end guard: when the server itself ends a running test
 * (--max-duration, a time test far past its end, an -n/-k test with no data moving).
 * Pure: synthetic monotonic times. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "options.h"
#include "proto.h"
#include "server.h"

const char tool_name[] = "esxperf_test";

#define S 1000000000ull
#define T0 (1000 * S)      /* an arbitrary monotonic start */

static void setup_opts(struct perf_opts *o, struct test_params *p)
{
    opts_defaults(o);
    params_defaults(p);
}

static void time_test_runs_to_time_plus_omit_plus_60(void **state)
{
    (void)state;
    struct perf_opts o;
    struct test_params p;
    struct end_guard g;
    setup_opts(&o, &p);
    p.time = 10;
    p.omit = 2;
    end_guard_init(&g, &o, &p, T0);
    /* no data at all is fine in a time test: the client ends it */
    assert_null(end_guard_check(&g, T0 + 71 * S, 0));
    assert_null(end_guard_check(&g, T0 + 72 * S, 0));
    const char *why = end_guard_check(&g, T0 + 72 * S + 1, 0);
    assert_non_null(why);
    assert_non_null(strstr(why, "did not end the test"));
}

static void max_duration_caps_every_kind(void **state)
{
    (void)state;
    struct perf_opts o;
    struct test_params p;
    struct end_guard g;
    setup_opts(&o, &p);
    o.max_duration = 5;
    p.time = 3600;
    end_guard_init(&g, &o, &p, T0);
    /* the cap is --server-max-duration plus the grace (the parameters were
     * refused already when they asked for more) */
    uint64_t cap = (5 + MAX_DURATION_GRACE_S) * S;
    assert_null(end_guard_check(&g, T0 + cap - 1, 123));
    assert_non_null(strstr(end_guard_check(&g, T0 + cap, 456), "--max-duration"));
    /* -n test with data flowing (a client that got past the refusal): the cap ends it */
    p.time = 0;
    p.num = (int64_t)1 << 50;
    end_guard_init(&g, &o, &p, T0);
    for (uint64_t t = 1; t < 5 + MAX_DURATION_GRACE_S; t++)
        assert_null(end_guard_check(&g, T0 + t * S, t * 1000));
    assert_non_null(strstr(end_guard_check(&g, T0 + cap, 9999), "--max-duration"));
    /* no cap: a flowing -n test never ends from the server side */
    o.max_duration = 0;
    end_guard_init(&g, &o, &p, T0);
    for (uint64_t t = 1; t < 1000; t++)
        assert_null(end_guard_check(&g, T0 + t * S, t));
}

static void counted_test_ends_after_3x_control_timeout_without_progress(void **state)
{
    (void)state;
    struct perf_opts o;
    struct test_params p;
    struct end_guard g;
    setup_opts(&o, &p);
    assert_int_equal(o.control_timeout_ms, 10000);      /* the documented default */
    o.control_timeout_ms = 1000;
    p.time = 0;
    p.blockcount = 1000;
    end_guard_init(&g, &o, &p, T0);
    assert_null(end_guard_check(&g, T0 + 2 * S, 0));
    assert_null(end_guard_check(&g, T0 + 3 * S - 1, 0));
    assert_non_null(strstr(end_guard_check(&g, T0 + 3 * S, 0), "no data moved"));
    /* progress restarts the clock */
    end_guard_init(&g, &o, &p, T0);
    assert_null(end_guard_check(&g, T0 + 2 * S, 10));
    assert_null(end_guard_check(&g, T0 + 5 * S - 1, 10));
    assert_null(end_guard_check(&g, T0 + 5 * S + 500000000ull, 20));
    assert_null(end_guard_check(&g, T0 + 8 * S, 20));
    assert_non_null(end_guard_check(&g, T0 + 8 * S + 500000001ull, 20));
}

/* iperf3's --server-max-duration and --server-bitrate-limit refusals at
 * the parameters (errors 37 and 27), and -F with UDP (34) */
static void params_refused_as_iperf3(void **state)
{
    (void)state;
    struct perf_opts o;
    struct test_params p;
    const char *why = NULL;
    setup_opts(&o, &p);
    assert_int_equal(server_params_refusal(&o, &p, &why), 0);
    o.max_duration = 10;
    p.time = 10;
    assert_int_equal(server_params_refusal(&o, &p, &why), 0);
    p.omit = 1;                                        /* -t plus -O counts */
    assert_int_equal(server_params_refusal(&o, &p, &why), IE_MAXSERVERTESTDURATIONEXCEEDED);
    assert_non_null(strstr(why, "--server-max-duration"));
    p.omit = 0;
    p.time = 0;
    p.num = 1 << 20;                                   /* -n: no time at all */
    assert_int_equal(server_params_refusal(&o, &p, &why), 37);
    setup_opts(&o, &p);
    o.bitrate_limit = 100000000;
    p.bandwidth = 50000000;
    p.parallel = 2;
    assert_int_equal(server_params_refusal(&o, &p, &why), 0);    /* 100M: at the limit */
    p.bidir = 1;
    assert_int_equal(server_params_refusal(&o, &p, &why), IE_TOTALRATE);
    assert_int_equal(IE_TOTALRATE, 27);
    p.bidir = 0;
    p.fqrate = 60000000;
    assert_int_equal(server_params_refusal(&o, &p, &why), 27);
    setup_opts(&o, &p);
    o.file = "f.bin";
    assert_int_equal(server_params_refusal(&o, &p, &why), 0);
    p.udp = 1;
    assert_int_equal(server_params_refusal(&o, &p, &why), IE_UDPFILETRANSFER);
    assert_int_equal(IE_UDPFILETRANSFER, 34);
}

/* the running limit: the average over the window (5 steps of the 1 s interval by
 * default), checked at every step once the window is full */
static void rate_guard_averages_the_window(void **state)
{
    (void)state;
    struct perf_opts o;
    struct test_params p;
    struct rate_guard g;
    setup_opts(&o, &p);
    rate_guard_init(&g, &o, T0);
    assert_int_equal(rate_guard_check(&g, T0 + 100 * S, 1ull << 50), 0);   /* no limit */
    o.bitrate_limit = 8000000;                          /* 1 MB/s */
    rate_guard_init(&g, &o, T0);
    assert_int_equal(g.n, 5);
    uint64_t moved = 0;
    /* 4 s at 10 MB/s: the window is not full yet, nothing is said */
    for (int t = 1; t <= 4; t++) {
        moved += 10000000;
        assert_int_equal(rate_guard_check(&g, T0 + (uint64_t)t * S, moved), 0);
    }
    moved += 10000000;
    assert_int_equal(rate_guard_check(&g, T0 + 5 * S, moved), 1);
    assert_int_equal(g.bps, 80000000);
    /* under the limit on average: a burst in one second of five is allowed */
    rate_guard_init(&g, &o, T0);
    moved = 0;
    for (int t = 1; t <= 10; t++) {
        moved += t == 3 ? 4000000 : 200000;             /* 4 MB then 0.2 MB/s */
        assert_int_equal(rate_guard_check(&g, T0 + (uint64_t)t * S, moved), 0);
    }
    /* -i 0.5 and /2: four half-second samples */
    o.interval = 0.5;
    o.bitrate_limit_secs = 2;
    rate_guard_init(&g, &o, T0);
    assert_int_equal(g.n, 4);
    /* a late wake-up takes the steps it missed, with nothing moved in the later ones */
    assert_int_equal(rate_guard_check(&g, T0 + 2 * S, 2000000), 0);   /* 1 MB/s x 2 s */
    assert_int_equal(g.bps, 8000000);
}

/* a sending server sends past the count until TEST_END (as iperf3's): a client that
 * keeps taking the data but never ends the test is ended as long again after the
 * count moved + 60 s (UDP data always moves, so the stall guard alone would not) */
static void counted_test_ends_as_long_again_plus_60_after_the_count(void **state)
{
    (void)state;
    struct perf_opts o;
    struct test_params p;
    struct end_guard g;
    setup_opts(&o, &p);
    p.time = 0;
    p.blockcount = 1024;
    p.len = 1000;
    end_guard_init(&g, &o, &p, T0);
    assert_null(end_guard_check(&g, T0 + 1 * S, 500000));
    /* the count (1024 x 1000 bytes) moved 10 s in: the limit is 10 + 60 s later */
    assert_null(end_guard_check(&g, T0 + 10 * S, 1024000));
    for (uint64_t t = 11; t <= 80; t++)
        assert_null(end_guard_check(&g, T0 + t * S, 1024000 + t));
    const char *why = end_guard_check(&g, T0 + 80 * S + 1, 2000000);
    assert_non_null(why);
    assert_non_null(strstr(why, "did not end the -n/-k test"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(time_test_runs_to_time_plus_omit_plus_60),
        cmocka_unit_test(max_duration_caps_every_kind),
        cmocka_unit_test(params_refused_as_iperf3),
        cmocka_unit_test(rate_guard_averages_the_window),
        cmocka_unit_test(counted_test_ends_after_3x_control_timeout_without_progress),
        cmocka_unit_test(counted_test_ends_as_long_again_plus_60_after_the_count),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
