/* options.c opts_set: what each option of the command line sets
 * (the opt_sets table), the one-line refusals of bad values (the same words main
 * printed before the table), and that every option main.c hands over is known. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <sys/socket.h>

#include "options.h"
#include "bytes.h"

const char tool_name[] = "esxperf_test";

static struct perf_opts o;

static void set_ok(int code, const char *value)
{
    char why[2048] = "";
    int rc = opts_set(&o, code, value, why, sizeof why);
    if (rc != 0)
        fail_msg("option %d '%s': rc %d, %s", code, value ? value : "", rc, why);
    assert_true(o.given[code]);
}

static void set_bad(int code, const char *value, const char *line)
{
    char why[2048] = "";
    assert_int_equal(opts_set(&o, code, value, why, sizeof why), -1);
    assert_string_equal(why, line);
}

static void flags_strings_numbers_sizes(void **state)
{
    (void)state;
    opts_defaults(&o);
    set_ok('s', NULL);
    assert_int_equal(o.server, 1);
    set_ok('c', "198.18.0.2");
    assert_string_equal(o.host, "198.18.0.2");
    set_ok('p', "5999");
    assert_int_equal(o.port, 5999);
    set_ok(O_CPORT, "65535");
    assert_int_equal(o.cport, 65535);
    set_ok('t', "30");
    assert_int_equal(o.time, 30);
    set_ok('l', "128K");
    assert_int_equal(o.len, 131072);
    set_ok('w', "4M");
    assert_int_equal(o.window, 4 << 20);
    set_ok('n', "1G");
    assert_int_equal(o.num, 1 << 30);
    set_ok('k', "2k");
    assert_int_equal(o.blockcount, 2048);
    set_ok('P', "128");
    assert_int_equal(o.parallel, 128);
    set_ok(O_BIDIR, NULL);
    assert_int_equal(o.bidir, 1);
    set_ok(O_SKEW, "0");
    assert_int_equal(o.time_skew, 0);
    set_ok(O_CONNECT_TIMEOUT, "1500");
    assert_int_equal(o.connect_timeout_ms, 1500);
    set_ok(O_LOGFILE, "/tmp/x.log");
    assert_string_equal(o.logfile, "/tmp/x.log");
    set_ok(O_UDP64, NULL);
    assert_int_equal(o.udp64, 1);
    set_ok('6', NULL);
    assert_int_equal(o.family, AF_INET6);
    set_ok('4', NULL);
    assert_int_equal(o.family, AF_INET);
}

static void own_parsers(void **state)
{
    (void)state;
    opts_defaults(&o);
    set_ok('f', "M");
    assert_int_equal(o.format, 'M');
    set_ok('i', "0.5");
    assert_true(o.interval == 0.5);
    set_ok('i', "0");
    assert_true(o.interval == 0);
    set_ok('b', "10M/32");
    assert_int_equal(o.bandwidth, 10000000);
    assert_int_equal(o.burst, 32);
    assert_int_equal(o.bandwidth_set, 1);
    set_ok('A', "0-3,5");
    assert_int_equal(o.naffinity, 4);
    assert_int_equal(o.server_affinity, 5);
    set_ok(O_SWEEP_P, "1-4");
    assert_int_equal(o.sweep_np, 4);
    set_ok(O_SWEEP_W, "64K,1M");
    assert_int_equal(o.sweep_nw, 2);
    assert_int_equal(o.sweep_window[1], 1 << 20);
    set_ok(O_CONTROL_TIMEOUT, "2.5");
    assert_int_equal(o.control_timeout_ms, 2500);
}

/* iperf3 3.17..3.22's output, run and server options, with iperf3's
 * defaults (--timestamps "%c ", --server-bitrate-limit over 5 s, --debug 4) */
static void iperf3_322_run_options(void **state)
{
    (void)state;
    opts_defaults(&o);
    set_ok(O_JSON_STREAM, NULL);
    assert_int_equal(o.json_stream, 1);
    assert_int_equal(o.json, 1);                    /* --json-stream is -J's events */
    set_ok(O_JSON_STREAM_FULL, NULL);
    assert_int_equal(o.json_stream_full, 1);
    set_ok(O_TIMESTAMPS, NULL);
    assert_string_equal(o.timestamps, "%c ");
    set_ok(O_TIMESTAMPS, "%H:%M:%S ");
    assert_string_equal(o.timestamps, "%H:%M:%S ");
    set_ok(O_REPEATING_PAYLOAD, NULL);
    assert_int_equal(o.repeating_payload, 1);
    set_ok(O_EXTRA_DATA, "rack 7");
    assert_string_equal(o.extra_data, "rack 7");
    set_ok('F', "/tmp/f.bin");
    assert_string_equal(o.file, "/tmp/f.bin");
    set_ok('D', NULL);
    assert_int_equal(o.daemon, 1);
    set_ok('I', "/tmp/esxperf.pid");
    assert_string_equal(o.pidfile, "/tmp/esxperf.pid");
    assert_true(o.bitrate_limit_secs == 5);         /* iperf3's default window */
    set_ok(O_BITRATE_LIMIT, "1G");
    assert_int_equal(o.bitrate_limit, 1000000000);
    assert_true(o.bitrate_limit_secs == 5);
    set_ok(O_BITRATE_LIMIT, "500m/2.5");
    assert_int_equal(o.bitrate_limit, 500000000);
    assert_true(o.bitrate_limit_secs == 2.5);
    set_ok(O_MAX_DURATION, "0");                    /* iperf3: 0 = no cap */
    assert_int_equal(o.max_duration, 0);
    set_ok('d', NULL);
    assert_int_equal(o.debug, 4);
    assert_int_equal(o.verbose, 1);                 /* --debug prints what -V does */
    set_ok('d', "2");
    assert_int_equal(o.debug, 2);
    set_ok('d', "-1");
    assert_int_equal(o.debug, 4);                   /* iperf3: negative = all */
    set_bad(O_BITRATE_LIMIT, "1M/0", "bad --server-bitrate-limit '1M/0': the averaging time "
            "after '/' must be 0.1..60 seconds");
    set_bad(O_BITRATE_LIMIT, "fast", "bad --server-bitrate-limit 'fast': not a number "
            "(e.g. 1G, 500M/10)");
    set_bad(O_BITRATE_LIMIT, "/5", "bad --server-bitrate-limit '/5': not a rate (e.g. 1G, "
            "500M/10)");
    set_bad('d', "lots", "bad --debug level 'lots': not a number (1..4)");
    set_bad('X', "198.18.0.2", "-X/--xbind and --nstreams are SCTP options, and ESXi has no "
            "SCTP: esxperf runs TCP or UDP (-u)");
    set_bad(O_NSTREAMS, "4", "-X/--xbind and --nstreams are SCTP options, and ESXi has no "
            "SCTP: esxperf runs TCP or UDP (-u)");
    set_bad(O_TIMESTAMPS, "%c%c%c%c%c%c%c%c%c%c%c%c%c%c%c%c%c%c%c%c%c%c%c%c%c%c%c%c%c%c%c%c%c",
            "bad --timestamps format: longer than 64 characters");
}

/* the lines esxperf printed for these before the table (captured from main's
 * binary), word for word */
static void bad_values_one_line_each(void **state)
{
    (void)state;
    opts_defaults(&o);
    set_bad('p', "0", "bad port '0': out of range (allowed 1..65535)");
    set_bad('t', "x", "bad time 'x': not a number (allowed 1..86400)");
    set_bad('n', "1Q", "bad byte count (-n) '1Q': unknown unit suffix (use K, M, G or T) "
            "(a number with K, M or G, 1..4611686018427387903 bytes)");
    set_bad('k', "0", "bad block count (-k) '0': out of range (a number with K, M or G, "
            "1..4611686018427387903 blocks)");
    set_bad('w', "1", "bad window (-w) '1': out of range (a number with K, M or G, "
            "1024..1073741824 bytes)");
    set_bad('P', "129", "bad stream count (-P) '129': out of range (allowed 1..128)");
    set_bad('f', "x", "bad format 'x': use one of k m g t K M G T");
    set_bad('f', "", "bad format '': use one of k m g t K M G T");
    set_bad('i', "0.05", "bad interval '0.05': 0 or 0.1..60 seconds");
    set_bad('b', "10M/0", "bad bitrate '10M/0': out of range (e.g. 100M, 1G, 10M/32)");
    set_bad('A', "9999", "bad -A '9999': not a CPU number 0..1024 (e.g. -A 1, -A 0-3, -A 0,1)");
    set_bad(O_SWEEP_P, "1,,2", "bad --sweep-parallel '1,,2': empty item in the list (a comma "
            "at an end, or two in a row) (e.g. 1-8 or 1,2,4)");
    set_bad(O_SWEEP_W, "1", "bad --sweep-window '1': out of range (e.g. 64K,256K,1M)");
    set_bad(O_CONTROL_TIMEOUT, "0", "bad control timeout '0': 0.1..3600 seconds");
    set_bad(O_CPORT, "0", "bad client port '0': out of range (allowed 1..65535)");
    set_bad(O_SKEW, "-1", "bad time skew threshold '-1': out of range (allowed 0..31536000)");
    set_bad(O_MAX_DURATION, "-1", "bad max duration '-1': out of range (allowed 0..604800)");
    set_bad('M', "50", "bad MSS (-M) '50': out of range (allowed 88..9216)");
    /* a refused value leaves the field as it was */
    assert_int_equal(o.port, 5201);
    assert_int_equal(o.parallel, 1);
}

/* each number as iperf3 3.22 reads it, option by option: -S and
 * -A's own CPUs with strtol base 0 (hex, octal), -A's server CPU and the rest with
 * atoi (decimal: 010 is ten), --pacing-timer and --connect-timeout with unit_atoi
 * (K/M/G suffixes); what strtol or atoi would stop at is refused, not cut */
static void numbers_as_iperf3_reads_them(void **state)
{
    (void)state;
    opts_defaults(&o);
    set_ok('S', "0x10");
    assert_int_equal(o.tos, 16);
    set_ok('S', "064");
    assert_int_equal(o.tos, 52);
    set_ok('S', "0XfF");
    assert_int_equal(o.tos, 255);
    set_ok('S', "16");
    assert_int_equal(o.tos, 16);
    set_ok('A', "0x2,010");
    assert_int_equal(o.naffinity, 1);
    assert_int_equal(o.affinity[0], 2);
    assert_int_equal(o.server_affinity, 10);
    set_ok('A', "0,1024");                  /* iperf3's bound, not the host's */
    assert_int_equal(o.server_affinity, 1024);
    set_ok('t', "010");
    assert_int_equal(o.time, 10);
    set_ok('P', "010");
    assert_int_equal(o.parallel, 10);
    set_ok(O_PACING, "20000000");
    assert_int_equal(o.pacing_timer, 20000000);
    set_ok(O_PACING, "2K");
    assert_int_equal(o.pacing_timer, 2048);
    set_ok(O_CONNECT_TIMEOUT, "0x10");
    assert_int_equal(o.connect_timeout_ms, 16);
    set_bad('S', "08", "bad TOS (-S) '08': not a number (decimal, 0x hex, or octal with a "
            "leading 0) (allowed 0..255)");
    set_bad('S', "0x", "bad TOS (-S) '0x': not a number (decimal, 0x hex, or octal with a "
            "leading 0) (allowed 0..255)");
    set_bad('S', "0x100", "bad TOS (-S) '0x100': out of range (allowed 0..255)");
    set_bad('S', " 16", "bad TOS (-S) ' 16': not a number (decimal, 0x hex, or octal with a "
            "leading 0) (allowed 0..255)");
    set_bad('t', "0x10", "bad time '0x10': not a number (allowed 1..86400)");
    set_bad('A', "1,0x1", "bad -A '1,0x1': the server CPU after the comma is not a decimal "
            "number 0..1024 (e.g. -A 1, -A 0-3, -A 0,1)");
    set_bad(O_PACING, "-1", "bad pacing timer '-1': not a plain non-negative number (a number "
            "with K, M or G, 0..2147483647 us)");
    assert_int_equal(o.tos, 16);
}

/* every option main.c passes on is in the table; -h, -v and getopt's own codes
 * are main's */
static void every_option_known(void **state)
{
    (void)state;
    static const char letters[] = "scpfiBJV1tnkublwPROMNCSZTA46FDIdX";
    char why[2048];
    for (const char *l = letters; *l; l++) {
        opts_defaults(&o);
        assert_int_not_equal(opts_set(&o, *l, "1", why, sizeof why), 1);
    }
    for (int code = O_BIDIR; code < O_CODE_END; code++) {
        opts_defaults(&o);
        assert_int_not_equal(opts_set(&o, code, "1", why, sizeof why), 1);
    }
    static const int theirs[] = { 'h', 'v', '?', ':' };
    for (size_t i = 0; i < ARRAY_SIZE(theirs); i++)
        assert_int_equal(opts_set(&o, theirs[i], NULL, why, sizeof why), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(flags_strings_numbers_sizes),
        cmocka_unit_test(own_parsers),
        cmocka_unit_test(iperf3_322_run_options),
        cmocka_unit_test(bad_values_one_line_each),
        cmocka_unit_test(numbers_as_iperf3_reads_them),
        cmocka_unit_test(every_option_known),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
