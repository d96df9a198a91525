/* esxperf --rr's verdict (rr/rr_verdict.c): each class from the figures that
 * make it, what dominates, the limits by role and --rr-limit's parser. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "rr_verdict.h"

const char tool_name[] = "esxperf_test";

#define US 1000ull
#define MS 1000000ull

static struct rr_judged base(void)
{
    struct rr_judged j = { .p50 = 200 * US, .p99 = 400 * US, .mean = 220e3, .n = 1000,
                           .turn_mean = 20e3, .role = -1 };
    return j;
}

static void classes_against_vsans_default(void **state)
{
    (void)state;
    struct rr_verdict v;
    struct rr_judged j = base();
    rr_verdict_make(&j, &v);
    assert_string_equal(v.verdict, "within");
    assert_string_equal(v.role, "vsan");
    assert_int_equal(v.limit_ns, 1 * MS);
    assert_string_equal(v.dominant, "network");
    assert_non_null(strstr(v.sentence, "latency: within (p50 0.200 ms, p99 0.400 ms against "
                                       "VMware's 1 ms for a standard vSAN cluster"));
    j.p99 = 1500 * US;                   /* the tail over, the middle within */
    rr_verdict_make(&j, &v);
    assert_string_equal(v.verdict, "tail");
    j.p50 = 1200 * US;
    rr_verdict_make(&j, &v);
    assert_string_equal(v.verdict, "over");
    j.p50 = 1 * MS;                      /* at the limit is within it */
    j.p99 = 1 * MS;
    rr_verdict_make(&j, &v);
    assert_string_equal(v.verdict, "within");
}

static void roles_and_the_users_limit(void **state)
{
    (void)state;
    struct rr_verdict v;
    struct rr_judged j = base();
    j.p50 = 3 * MS;
    j.p99 = 6 * MS;
    j.role = RR_ROLE_STRETCHED;
    rr_verdict_make(&j, &v);
    assert_string_equal(v.verdict, "tail");
    assert_int_equal(v.limit_ns, 5 * MS);
    j.role = RR_ROLE_WITNESS;
    rr_verdict_make(&j, &v);
    assert_string_equal(v.verdict, "within");
    assert_int_equal(v.limit_ns, 200 * MS);
    j.role = RR_ROLE_VMOTION;
    rr_verdict_make(&j, &v);
    assert_int_equal(v.limit_ns, 150 * MS);
    j.limit_ns = 2 * MS;                 /* the user's limit wins */
    rr_verdict_make(&j, &v);
    assert_string_equal(v.role, "custom");
    assert_string_equal(v.verdict, "over");
    assert_non_null(strstr(v.sentence, "against --rr-limit 2 ms"));
    assert_int_equal(rr_role_find("Witness"), RR_ROLE_WITNESS);
    assert_int_equal(rr_role_find("vsan-ish"), -1);
}

static void what_dominates(void **state)
{
    (void)state;
    struct rr_verdict v;
    struct rr_judged j = base();
    j.turn_mean = 150e3;                 /* 150 of 220 us: the host */
    rr_verdict_make(&j, &v);
    assert_string_equal(v.dominant, "host");
    assert_true(v.host_pct > 68 && v.host_pct < 69);
    j.turn_mean = -1;
    rr_verdict_make(&j, &v);
    assert_string_equal(v.dominant, "unknown");
    j.idle_p50 = 50 * US;                /* 200 us loaded against 50 idle: x4 */
    rr_verdict_make(&j, &v);
    assert_string_equal(v.dominant, "queueing");
    assert_true(v.queue_factor == 4.0);
    j.idle_p50 = 150 * US;               /* x1.33: not queueing */
    rr_verdict_make(&j, &v);
    assert_string_equal(v.dominant, "unknown");
    /* UDP: 2 of 100 requests lost is "loss", whatever the times */
    j = base();
    j.udp = 1;
    j.n = 98;
    j.lost = 2;
    rr_verdict_make(&j, &v);
    assert_string_equal(v.verdict, "loss");
    assert_string_equal(v.dominant, "loss");
    j.lost = 0;
    rr_verdict_make(&j, &v);
    assert_string_equal(v.verdict, "within");
}

static void limit_parser(void **state)
{
    (void)state;
    uint64_t ns;
    assert_int_equal(rr_limit_parse("1ms", &ns), 0);
    assert_int_equal(ns, 1 * MS);
    assert_int_equal(rr_limit_parse("500us", &ns), 0);
    assert_int_equal(ns, 500 * US);
    assert_int_equal(rr_limit_parse("0.2s", &ns), 0);
    assert_int_equal(ns, 200 * MS);
    assert_int_equal(rr_limit_parse("1.5", &ns), 0);
    assert_int_equal(ns, 1500 * US);
    assert_int_equal(rr_limit_parse("1 ms", &ns), -1);
    assert_int_equal(rr_limit_parse("0.5us", &ns), -1);
    assert_int_equal(rr_limit_parse("61s", &ns), -1);
    assert_int_equal(rr_limit_parse("ms", &ns), -1);
    assert_int_equal(rr_limit_parse("nan", &ns), -1);
    assert_int_equal(rr_limit_parse("1h", &ns), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(classes_against_vsans_default),
        cmocka_unit_test(roles_and_the_users_limit),
        cmocka_unit_test(what_dominates),
        cmocka_unit_test(limit_parser),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
