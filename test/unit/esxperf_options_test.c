/* tools/esxperf/options.c and client_params: -b/-l/-w/-n units, sweep lists,
 * and the parameters a client derives from its options. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "../../tools/esxperf/client.h"
#include "../../tools/esxperf/options.h"
#include "../../tools/esxperf/sweep.h"

const char tool_name[] = "esxperf_test";

static void sizes_for_l_w_n(void **state)
{
    (void)state;
    int64_t v;
    const char *why = NULL;
    assert_int_equal(opt_parse_size("128K", 1, 1 << 30, &v, &why), 0);
    assert_int_equal(v, 131072);
    assert_int_equal(opt_parse_size("4m", 1, 1 << 30, &v, &why), 0);
    assert_int_equal(v, 4194304);
    assert_int_equal(opt_parse_size("1G", 1, INT64_MAX / 2, &v, &why), 0);
    assert_int_equal(v, 1073741824);
    assert_int_equal(opt_parse_size("1500", 1, 65507, &v, &why), 0);
    assert_int_equal(opt_parse_size("0", 1, 65507, &v, &why), -1);
    assert_int_equal(opt_parse_size("2G", 1, 1 << 30, &v, &why), -1);
    assert_int_equal(opt_parse_size("12Q", 1, 1 << 30, &v, &why), -1);
    assert_int_equal(opt_parse_size("", 1, 1 << 30, &v, &why), -1);
    assert_int_equal(opt_parse_size("-1", 0, 1 << 30, &v, &why), -1);
}

static void rates_for_b(void **state)
{
    (void)state;
    uint64_t bps;
    int64_t burst;
    const char *why = NULL;
    assert_int_equal(opt_parse_rate("10M", &bps, &burst, &why), 0);
    assert_int_equal(bps, 10000000);
    assert_int_equal(burst, 0);
    assert_int_equal(opt_parse_rate("1g/32", &bps, &burst, &why), 0);
    assert_int_equal(bps, 1000000000);
    assert_int_equal(burst, 32);
    assert_int_equal(opt_parse_rate("0", &bps, &burst, &why), 0);
    assert_int_equal(bps, 0);
    assert_int_equal(opt_parse_rate("10X", &bps, &burst, &why), -1);
    assert_int_equal(opt_parse_rate("10M/0", &bps, &burst, &why), -1);
    assert_int_equal(opt_parse_rate("10M/1001", &bps, &burst, &why), -1);
    assert_int_equal(opt_parse_rate("/5", &bps, &burst, &why), -1);
}

static void sweep_lists(void **state)
{
    (void)state;
    int64_t v[SWEEP_MAX];
    int n;
    const char *why = NULL;
    assert_int_equal(opt_parse_counts("1-4", v, &n, &why), 0);
    assert_int_equal(n, 4);
    assert_int_equal(v[3], 4);
    assert_int_equal(opt_parse_counts("1,2,8-9", v, &n, &why), 0);
    assert_int_equal(n, 4);
    assert_int_equal(v[2], 8);
    assert_int_equal(opt_parse_counts("0-3", v, &n, &why), -1);
    assert_int_equal(opt_parse_counts("4-2", v, &n, &why), -1);
    assert_int_equal(opt_parse_counts("1-128", v, &n, &why), -1);   /* > 32 runs */
    assert_int_equal(opt_parse_sizes("64K,256K,1M,4M", v, &n, &why), 0);
    assert_int_equal(n, 4);
    assert_int_equal(v[3], 4 << 20);
    assert_int_equal(opt_parse_sizes("64K,,1M", v, &n, &why), 0);
    assert_int_equal(n, 2);
    assert_int_equal(opt_parse_sizes("12", v, &n, &why), -1);       /* below 1K */
}

static void client_params_defaults(void **state)
{
    (void)state;
    struct perf_opts o;
    struct test_params p;
    opts_defaults(&o);
    o.host = "x";
    client_params(&o, 1448, &p);
    assert_int_equal(p.len, 131072);
    assert_int_equal(p.bandwidth, 0);
    assert_int_equal(p.time, 10);
    o.udp = 1;
    client_params(&o, 1448, &p);
    assert_int_equal(p.len, 1448);          /* UDP block = control MSS */
    assert_int_equal(p.bandwidth, 1048576); /* UDP default rate */
    client_params(&o, 0, &p);
    assert_int_equal(p.len, 1460);
    o.num = 1000;
    client_params(&o, 0, &p);
    assert_int_equal(p.time, 0);            /* -n replaces -t */
    assert_int_equal(p.num, 1000);
}

static void sweep_table_layouts(void **state)
{
    (void)state;
    struct sweep_row rows[2];
    memset(rows, 0, sizeof rows);
    rows[0].streams = 1;
    rows[0].window = 262144;
    rows[0].r.gbps = 9.5;
    rows[0].r.cpu_local = 50;
    rows[0].r.cpu_remote = -1;
    rows[0].r.retrans = -1;
    rows[0].r.gbit_per_cpu_s = 19;
    rows[1].streams = 2;
    rows[1].rc = 1;
    char buf[2048];
    FILE *f = fmemopen(buf, sizeof buf, "w");
    sweep_print(f, rows, 2, 1, 0);
    fclose(f);
    assert_non_null(strstr(buf, "streams,window,"));
    assert_non_null(strstr(buf, "1,262144,9.500,50.0,,,19.00\n"));
    assert_non_null(strstr(buf, "2,0,,,,,\n"));
    f = fmemopen(buf, sizeof buf, "w");
    sweep_print(f, rows, 2, 0, 0);
    fclose(f);
    assert_non_null(strstr(buf, "256K"));
    assert_non_null(strstr(buf, "n/a"));
    assert_non_null(strstr(buf, "failed"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sizes_for_l_w_n),
        cmocka_unit_test(rates_for_b),
        cmocka_unit_test(sweep_lists),
        cmocka_unit_test(client_params_defaults),
        cmocka_unit_test(sweep_table_layouts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
