/* options.c opts_set: what each option of the command line sets (the rows of
 * options_table.h), the one-line refusals of bad values, and that what is
 * derived from the table (getopt_long's tables, --help, the role checks) holds
 * each option once, as its row says. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <ctype.h>
#include <getopt.h>
#include <stdio.h>
#include <sys/socket.h>

#include "options.h"
#include "opt_rows.h"
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
            "at an end, or two in a row) (allowed 1..128 each, at most 32 values in 255 "
            "characters: 1-8 or 1,2,4)");
    set_bad(O_SWEEP_W, "1", "bad --sweep-window '1': out of range (each a number with K, M or G, "
            "1024..1073741824 bytes, at most 32 values in 255 characters: 64K,256K,1M)");
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

/* every option of the table sets something, except -h and -v (main's); getopt's
 * own codes are main's too */
static void every_option_known(void **state)
{
    (void)state;
    char why[2048];
    size_t opts = 0;
    for (size_t i = 0; i < PERF_OPT_ROWS; i++) {
        const struct opt_row *r = &perf_options[i];
        if (!r->code)
            continue;
        /* an alias is another name of an option that has its own row */
        assert_non_null(args_row(&perf_table, r->code));
        if (r->alias)
            continue;
        opts++;
        opts_defaults(&o);
        int rc = opts_set(&o, r->code, "1", why, sizeof why);
        if (r->kind == OPT_MAIN)
            assert_int_equal(rc, 1);
        else if (rc == 1)
            fail_msg("--%s: opts_set does not know it", r->name);
        assert_true(o.given[r->code]);
    }
    assert_true(opts > 60);
    static const int theirs[] = { 'h', 'v', '?', ':' };
    for (size_t i = 0; i < ARRAY_SIZE(theirs); i++)
        assert_int_equal(opts_set(&o, theirs[i], NULL, why, sizeof why), 1);
}

/* the row of long name n, NULL when none */
static const struct opt_row *by_name(const char *n)
{
    for (size_t i = 0; i < PERF_OPT_ROWS; i++)
        if (perf_options[i].name && strcmp(perf_options[i].name, n) == 0)
            return &perf_options[i];
    return NULL;
}

/* getopt_long's short string and long table hold each letter and each long name
 * of the table once, with the row's code and argument kind, and nothing else */
static void getopt_tables_are_the_table(void **state)
{
    (void)state;
    const char *shorts;
    const struct option *longs;
    args_views(&perf_table, &shorts, &longs);
    assert_int_equal(shorts[0], ':');
    size_t letters = 0, colons = 0, names = 0;
    for (size_t i = 0; i < PERF_OPT_ROWS; i++) {
        const struct opt_row *r = &perf_options[i];
        if (!r->code) {
            assert_null(r->name);
            continue;
        }
        names++;
        if (!r->alias) {
            /* one OPT or LONG row per code; a letter is its own code */
            assert_ptr_equal(args_row(&perf_table, r->code), r);
            if (r->letter)
                assert_int_equal(r->code, r->letter);
            else
                assert_true(r->code > 255 && r->code < O_CODE_END);
        } else {
            assert_int_equal(r->letter, 0);
            assert_int_equal(r->arg, args_row(&perf_table, r->code)->arg);
        }
        if (r->letter) {
            letters++;
            colons += (size_t)r->arg;
            const char *at = strchr(shorts + 1, r->letter);
            assert_non_null(at);
            assert_null(strchr(at + 1, r->letter));
            const char *want[] = { "", ":", "::" };
            size_t n = strspn(at + 1, ":");
            assert_int_equal(n, strlen(want[r->arg]));
        }
        /* the long name: once in the table, once in getopt's */
        assert_ptr_equal(by_name(r->name), r);
        size_t seen = 0;
        for (const struct option *l = longs; l->name; l++) {
            if (strcmp(l->name, r->name) != 0)
                continue;
            seen++;
            assert_int_equal(l->val, r->code);
            assert_null(l->flag);
            static const int has_arg[] = { no_argument, required_argument, optional_argument };
            assert_int_equal(l->has_arg, has_arg[r->arg]);
        }
        assert_int_equal(seen, 1);
    }
    assert_int_equal(strlen(shorts), 1 + letters + colons);
    size_t n = 0;
    while (longs[n].name)
        n++;
    assert_int_equal(n, names);
    assert_int_equal(longs[n].val, 0);
}

/* --help is the rows' help in order; a row's help starts with its own name, and
 * every name is somewhere in --help except the aliases marked hidden */
static void usage_is_the_rows_help(void **state)
{
    (void)state;
    size_t len = 0;
    for (size_t i = 0; i < PERF_OPT_ROWS; i++) {
        const struct opt_row *r = &perf_options[i];
        size_t n = strlen(r->help);
        assert_memory_equal(perf_usage + len, r->help, n);
        len += n;
        if (!r->code)
            continue;
        char word[64];
        if (r->letter) {
            snprintf(word, sizeof word, "-%c", r->letter);
            assert_true(rows_names_word(perf_usage, word));
            if (n) {
                snprintf(word, sizeof word, "  -%c", r->letter);
                assert_memory_equal(r->help, word, strlen(word));
            }
        } else if (n) {
            snprintf(word, sizeof word, "      --%s", r->name);
            assert_memory_equal(r->help, word, strlen(word));
        }
        snprintf(word, sizeof word, "--%s", r->name);
        int hidden = r->alias == OPT_ALIAS_HIDDEN;
        if (rows_names_word(perf_usage, word) == hidden)
            fail_msg("%s: --help %s it, the row says %s", word,
                     hidden ? "names" : "does not name", hidden ? "hidden" : "shown");
    }
    assert_int_equal(strlen(perf_usage), len);
    assert_true(len > 5000);
}

/* each CLIENT row is refused on a server and each SERVER row on a client, by its
 * name; an ANY row on either side is no role's refusal */
static void roles_are_the_rows(void **state)
{
    (void)state;
    char why[2048], name[80];
    size_t client = 0, server = 0;
    for (size_t i = 0; i < PERF_OPT_ROWS; i++) {
        const struct opt_row *r = &perf_options[i];
        if (!r->code || r->alias)
            continue;
        for (int side = 0; side < 2; side++) {
            opts_defaults(&o);
            o.server = side;
            o.host = side ? NULL : "198.18.0.2";
            o.given[r->code] = 1;
            why[0] = '\0';
            opts_validate(&o, why, sizeof why);
            int refused_client = strstr(why, "is a client option") != NULL;
            int refused_server = strstr(why, "is a server option") != NULL;
            assert_int_equal(refused_client, side && r->role == PERF_ROLE_CLIENT);
            assert_int_equal(refused_server, !side && r->role == PERF_ROLE_SERVER);
            if (refused_client || refused_server) {
                opts_name(r->code, name, sizeof name);
                assert_memory_equal(why, name, strlen(name));
                assert_int_equal(why[strlen(name)], ' ');
            }
        }
        client += r->role == PERF_ROLE_CLIENT;
        server += r->role == PERF_ROLE_SERVER;
    }
    assert_true(client > 30 && server > 5);
    assert_string_equal(opts_name(O_MAX_DURATION, name, sizeof name),
                        "--server-max-duration (--max-duration)");
    assert_string_equal(opts_name('b', name, sizeof name), "-b");
    assert_string_equal(opts_name(O_BIDIR, name, sizeof name), "--bidir");
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
        cmocka_unit_test(getopt_tables_are_the_table),
        cmocka_unit_test(usage_is_the_rows_help),
        cmocka_unit_test(roles_are_the_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
