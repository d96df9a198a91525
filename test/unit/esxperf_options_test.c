/* options.c and client_params: -b/-l/-w/-n units, sweep lists,
 * and the parameters a client derives from its options. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <sys/socket.h>

#include "client.h"
#include "options.h"
#include "sweep.h"
#include "bytes.h"

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
    assert_int_equal(opt_parse_sizes("12", v, &n, &why), -1);       /* below 1K */
}

/* an empty item is a typo, refused (strtok would skip it in silence) */
static void sweep_lists_refuse_empty_items(void **state)
{
    (void)state;
    int64_t v[SWEEP_MAX];
    int n;
    const char *why = NULL;
    static const char *const bad[] = { "1,,2", ",1", "1,", ",", ",," };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        why = NULL;
        assert_int_equal(opt_parse_counts(bad[i], v, &n, &why), -1);
        if (!strstr(why, "empty item"))
            fail_msg("%s: %s", bad[i], why);
    }
    assert_int_equal(opt_parse_sizes("64K,,1M", v, &n, &why), -1);
    assert_int_equal(opt_parse_sizes(",64K", v, &n, &why), -1);
    assert_int_equal(opt_parse_counts("1,2", v, &n, &why), 0);
    assert_int_equal(n, 2);
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
    rows[0].r.bottleneck = "network";
    rows[0].r.thread_cpu_max = 72.25;
    rows[0].r.thread_wait_max = -1;    /* unknown (no schedstat): an empty cell */
    rows[1].streams = 2;
    rows[1].rc = 1;
    char buf[2048];
    FILE *f = fmemopen(buf, sizeof buf, "w");
    struct perf_opts o;
    opts_defaults(&o);
    o.csv = 1;
    report_sink_for(&o)->sweep_table(f, rows, 2);
    fclose(f);
    assert_non_null(strstr(buf, "streams,window,"));
    assert_non_null(strstr(buf, "client_thread_cpu_percent_max,client_thread_wait_percent_max,bottleneck\n"));
    assert_non_null(strstr(buf, "1,262144,9.500,50.0,,,19.00,72.2,,network\n"));
    assert_non_null(strstr(buf, "2,,,,,,,,,\n"));    /* the kernel's default window: empty */
    f = fmemopen(buf, sizeof buf, "w");
    o.csv = 0;
    report_sink_for(&o)->sweep_table(f, rows, 2);
    fclose(f);
    assert_non_null(strstr(buf, "256K"));
    assert_non_null(strstr(buf, "n/a"));
    assert_non_null(strstr(buf, "failed"));
}

/* opts_defaults plus a role, and the options "given" as main.c marks them */
static void client_opts(struct perf_opts *o, const char *host)
{
    opts_defaults(o);
    o->host = host;
}

static void server_opts(struct perf_opts *o)
{
    opts_defaults(o);
    o->server = 1;
}

static void assert_refused(const struct perf_opts *o, const char *needle)
{
    char why[320] = "";
    assert_int_equal(opts_validate(o, why, sizeof why), -1);
    if (!strstr(why, needle))
        fail_msg("refusal '%s' lacks '%s'", why, needle);
    assert_null(strchr(why, '\n'));        /* one line */
}

static void assert_valid(const struct perf_opts *o)
{
    char why[320] = "";
    if (opts_validate(o, why, sizeof why) != 0)
        fail_msg("refused: %s", why);
}

/* client options on a server and server options on a client
 * are refused, naming the option (iperf3 refuses them too) */
static void validate_roles(void **state)
{
    (void)state;
    struct perf_opts o;
    static const struct { int code; const char *name; } client_side[] = {
        { 'u', "-u" }, { 't', "-t" }, { 'P', "-P" }, { 'R', "-R" }, { O_CSV, "--csv" },
        { O_BIDIR, "--bidir" }, { 'b', "-b" }, { 'Z', "-Z" }, { O_SWEEP_P, "--sweep-parallel" },
    };
    for (size_t i = 0; i < sizeof client_side / sizeof client_side[0]; i++) {
        server_opts(&o);
        o.given[client_side[i].code] = 1;
        assert_refused(&o, client_side[i].name);
        assert_refused(&o, "client option");
    }
    static const struct { int code; const char *name; } server_side[] = {
        { '1', "-1" }, { O_IDLE_TIMEOUT, "--idle-timeout" }, { O_MAX_DURATION, "--max-duration" },
        { O_CONTROL_TIMEOUT, "--control-timeout" }, { O_SKEW, "--time-skew-threshold" },
    };
    for (size_t i = 0; i < sizeof server_side / sizeof server_side[0]; i++) {
        client_opts(&o, "198.18.0.2");
        o.given[server_side[i].code] = 1;
        assert_refused(&o, server_side[i].name);
        assert_refused(&o, "server option");
    }
    server_opts(&o);
    o.server_affinity = 3;
    assert_refused(&o, "-A N,S");
    /* what both roles use passes: -p -B -J -V -i -f -A N --logfile -4 */
    server_opts(&o);
    o.given['p'] = o.given['B'] = o.given['J'] = o.given['V'] = o.given['i'] = 1;
    o.given['A'] = o.given['4'] = o.given[O_LOGFILE] = o.given['1'] = 1;
    o.one_off = 1;
    assert_valid(&o);
    client_opts(&o, "198.18.0.2");
    o.server = 1;
    assert_refused(&o, "exactly one of -s");
    opts_defaults(&o);
    assert_refused(&o, "exactly one of -s");
}

static void validate_test_shape(void **state)
{
    (void)state;
    struct perf_opts o;
    client_opts(&o, "198.18.0.2");
    assert_valid(&o);
    o.reverse = o.bidir = 1;
    assert_refused(&o, "-R and --bidir");
    client_opts(&o, "198.18.0.2");
    o.num = 1000;
    o.given['t'] = 1;
    assert_refused(&o, "only one of -t, -n, -k");
    client_opts(&o, "198.18.0.2");
    o.udp = 1;
    o.len = 70000;
    assert_refused(&o, "UDP block size");
    /* -P with --sweep-parallel contradict */
    client_opts(&o, "198.18.0.2");
    o.given['P'] = 1;
    o.parallel = 2;
    o.sweep_np = 2;
    o.sweep_parallel[0] = 1;
    o.sweep_parallel[1] = 2;
    assert_refused(&o, "-P and --sweep-parallel");
    o.given['P'] = 0;
    assert_valid(&o);
    client_opts(&o, "198.18.0.2");
    o.username = "alice";
    assert_refused(&o, "--username and --rsa-public-key-path");
}

/* stream i binds --cport + i - 1; the last must be a port */
static void validate_cport_range(void **state)
{
    (void)state;
    struct perf_opts o;
    client_opts(&o, "198.18.0.2");
    o.cport = 65535;
    assert_valid(&o);                       /* one stream: 65535 */
    o.parallel = 2;
    assert_refused(&o, "65535..65536");
    assert_refused(&o, "--cport 65534 or lower");
    o.cport = 65534;
    assert_valid(&o);
    o.bidir = 1;                            /* bidir: 4 streams */
    assert_refused(&o, "--cport 65532 or lower");
    client_opts(&o, "198.18.0.2");
    o.cport = 65530;
    o.sweep_np = 2;
    o.sweep_parallel[0] = 1;
    o.sweep_parallel[1] = 8;                /* the sweep's largest run counts */
    assert_refused(&o, "65530..65537");
}

/* numeric addresses of the wrong family say so */
static void validate_family(void **state)
{
    (void)state;
    struct perf_opts o;
    client_opts(&o, "127.0.0.1");
    o.family = AF_INET6;
    assert_refused(&o, "IPv4 address but -6 asks for IPv6");
    client_opts(&o, "::1");
    o.bind = "127.0.0.1";
    assert_refused(&o, "families do not match");
    server_opts(&o);
    o.bind = "::1";
    o.family = AF_INET;
    assert_refused(&o, "-B ::1 is an IPv6 address but -4 asks for IPv4");
    client_opts(&o, "::1");
    o.family = AF_INET6;
    o.bind = "::1";
    assert_valid(&o);
    client_opts(&o, "server.example");      /* a name: getaddrinfo decides */
    o.family = AF_INET6;
    o.bind = "127.0.0.1";
    assert_refused(&o, "-B 127.0.0.1");
    o.bind = NULL;
    assert_valid(&o);
}

/* all warnings a command line earns, joined by '|' */
static void warnings_of(const struct perf_opts *o, char *out, size_t len)
{
    char why[320];
    out[0] = '\0';
    for (int k = 0; (k = opts_warning(o, k, why, sizeof why)) >= 0; k++) {
        assert_null(strchr(why, '\n'));
        size_t used = strlen(out);
        snprintf(out + used, len - used, "%s|", why);
    }
}

/* accepted but ignored options get one warning line each */
static void warnings_for_ignored_options(void **state)
{
    (void)state;
    struct perf_opts o;
    char w[2048];
    client_opts(&o, "198.18.0.2");
    warnings_of(&o, w, sizeof w);
    assert_string_equal(w, "");
    server_opts(&o);
    o.given[O_IDLE_TIMEOUT] = 1;
    o.idle_timeout = 5;
    warnings_of(&o, w, sizeof w);
    assert_non_null(strstr(w, "--idle-timeout only acts with -1"));
    o.one_off = 1;
    warnings_of(&o, w, sizeof w);
    assert_string_equal(w, "");
    server_opts(&o);
    o.given[O_CPORT] = 1;
    warnings_of(&o, w, sizeof w);
    assert_non_null(strstr(w, "--cport"));
    client_opts(&o, "198.18.0.2");
    o.udp = o.zerocopy = o.csv = 1;
    warnings_of(&o, w, sizeof w);
    assert_non_null(strstr(w, "-Z is for TCP"));
    assert_non_null(strstr(w, "--csv formats a sweep"));
    o.udp = o.zerocopy = 0;
    o.sweep_np = 1;
    o.sweep_parallel[0] = 1;
    warnings_of(&o, w, sizeof w);
    assert_string_equal(w, "");             /* --csv with a sweep: what it is for */
    o.json = 1;
    warnings_of(&o, w, sizeof w);
    assert_non_null(strstr(w, "--csv and -J"));
    assert_null(strstr(w, "--json-stream"));
    o.csv = 0;
    o.json_stream = 1;          /* --json-stream sets -J too */
    warnings_of(&o, w, sizeof w);
    assert_string_equal(w, "--json-stream and a sweep: the sweep's table is one JSON document "
                           "(as with -J), not one event a line: --json-stream is ignored|");
    client_opts(&o, "198.18.0.2");
    o.use_pkcs1 = 1;
    warnings_of(&o, w, sizeof w);
    assert_non_null(strstr(w, "--use-pkcs1-padding"));
    assert_int_equal(opts_warning(&o, 99, w, sizeof w), -1);
}

/* the roles iperf3 gives its 3.17..3.22 options, -F's TCP-only rule,
 * and what the client sends for --repeating-payload and --extra-data */
static void iperf3_322_options_roles(void **state)
{
    (void)state;
    struct perf_opts o;
    static const struct { int code; const char *name; } server_side[] = {
        { 'D', "-D" }, { O_BITRATE_LIMIT, "--server-bitrate-limit" },
        { O_MAX_DURATION, "--server-max-duration" },
    };
    for (size_t i = 0; i < ARRAY_SIZE(server_side); i++) {
        client_opts(&o, "198.18.0.2");
        o.given[server_side[i].code] = 1;
        assert_refused(&o, server_side[i].name);
        assert_refused(&o, "server option");
    }
    static const struct { int code; const char *name; } client_side[] = {
        { O_REPEATING_PAYLOAD, "--repeating-payload" }, { O_EXTRA_DATA, "--extra-data" },
    };
    for (size_t i = 0; i < ARRAY_SIZE(client_side); i++) {
        server_opts(&o);
        o.given[client_side[i].code] = 1;
        assert_refused(&o, client_side[i].name);
        assert_refused(&o, "client option");
    }
    /* both roles, as iperf3: -F, -I, --json-stream, --timestamps, --debug */
    static const int both[] = { 'F', 'I', O_JSON_STREAM, O_JSON_STREAM_FULL, O_TIMESTAMPS, 'd' };
    for (size_t i = 0; i < ARRAY_SIZE(both); i++) {
        server_opts(&o);
        o.given[both[i]] = 1;
        assert_valid(&o);
        client_opts(&o, "198.18.0.2");
        o.given[both[i]] = 1;
        assert_valid(&o);
    }
    client_opts(&o, "198.18.0.2");
    o.file = "f.bin";
    o.udp = 1;
    assert_refused(&o, "-F moves a file over TCP only");
    char w[1024];
    struct test_params p;
    client_opts(&o, "198.18.0.2");
    o.json_stream_full = 1;
    warnings_of(&o, w, sizeof w);
    assert_non_null(strstr(w, "--json-stream-full-output only adds to --json-stream"));
    o.json_stream = 1;
    warnings_of(&o, w, sizeof w);
    assert_string_equal(w, "");
    o.file = "f.bin";
    o.parallel = 2;
    warnings_of(&o, w, sizeof w);
    assert_non_null(strstr(w, "-F with several streams"));
    /* a longer --extra-data than the parameters carry is refused, not cut */
    char big[sizeof p.extra_data + 1];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    client_opts(&o, "198.18.0.2");
    o.extra_data = big;
    assert_refused(&o, "--extra-data is");
    big[sizeof big - 2] = '\0';
    assert_valid(&o);
    client_opts(&o, "198.18.0.2");
    client_params(&o, 1448, &p);
    assert_int_equal(p.repeating_payload, 0);
    assert_string_equal(p.extra_data, "");
    o.repeating_payload = 1;
    o.extra_data = "rack 7, port 3";
    client_params(&o, 1448, &p);
    assert_int_equal(p.repeating_payload, 1);
    assert_string_equal(p.extra_data, "rack 7, port 3");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sizes_for_l_w_n),
        cmocka_unit_test(rates_for_b),
        cmocka_unit_test(sweep_lists),
        cmocka_unit_test(sweep_lists_refuse_empty_items),
        cmocka_unit_test(validate_roles),
        cmocka_unit_test(validate_test_shape),
        cmocka_unit_test(validate_cport_range),
        cmocka_unit_test(validate_family),
        cmocka_unit_test(warnings_for_ignored_options),
        cmocka_unit_test(client_params_defaults),
        cmocka_unit_test(sweep_table_layouts),
        cmocka_unit_test(iperf3_322_options_roles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
