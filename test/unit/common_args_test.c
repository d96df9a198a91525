/* common/args.c: ESXi "++" launch words, bounded integers, the one line for
 * getopt_long's refusals in each tool's words, and the option engine: getopt's
 * views of a table (optional values, aliases), what each kind of row sets, the
 * ranges and their refusals, roles, and the loop over a command line. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "args.h"

const char tool_name[] = "test";

static void skips_leading_vmk_words(void **state)
{
    (void)state;
    char *v[] = { "esxmtu", "++group=host/vim/tmp", "++netstack=vmotion", "-c", "3", NULL };
    char **argv = v;
    int argc = args_strip_vmk(5, &argv);
    assert_int_equal(argc, 3);
    assert_string_equal(argv[0], "esxmtu");
    assert_string_equal(argv[1], "-c");
}

static void keeps_plus_words_after_first_real_arg(void **state)
{
    (void)state;
    char *v[] = { "esxpart", "disk", "++x", NULL };
    assert_int_equal(args_skip_vmk(3, v), 1);
}

static void parses_bounded_integers(void **state)
{
    (void)state;
    uint64_t u;
    const char *why = NULL;
    assert_int_equal(parse_u64("128", 1, 128, &u, &why), 0);
    assert_int_equal(u, 128);
    assert_int_equal(parse_u64("129", 1, 128, &u, &why), -1);
    assert_string_equal(why, "out of range");
    assert_int_equal(parse_u64("0", 1, 128, &u, &why), -1);
    assert_int_equal(parse_u64("12x", 0, 128, &u, &why), -1);
    assert_int_equal(parse_u64("-1", 0, 128, &u, &why), -1);
    assert_int_equal(parse_u64("", 0, 128, &u, &why), -1);
    assert_int_equal(parse_u64("99999999999999999999999", 0, UINT64_MAX, &u, &why), -1);
    int64_t i;
    assert_int_equal(parse_i64("-5", -10, 10, &i, &why), 0);
    assert_int_equal(i, -5);
    double d;
    assert_int_equal(parse_double("0.5", 0, 1, &d, &why), 0);
    assert_int_equal(parse_double("nan", 0, 1, &d, &why), -1);
}

/* every parser refuses any leading white space: strto*() skip it, so "\t-5000"
 * would pass a sign check on the first character and read as -5000 */
static void refuses_leading_white_space(void **state)
{
    (void)state;
    static const char *const bad[] = { "\t-5000", "\t5", "\n5", "\v5", "\f5", "\r5", " 5",
                                       "\t+5" };
    uint64_t u;
    int64_t i;
    double d;
    const char *why = NULL;
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        assert_int_equal(parse_u64(bad[k], 0, 100, &u, &why), -1);
        assert_int_equal(parse_i64(bad[k], -10000, 100, &i, &why), -1);
        assert_int_equal(parse_double(bad[k], -10000, 100, &d, &why), -1);
    }
}

/* a long table with what the tools' have: flags with a letter, a long-only flag,
 * options with a value, two names of one option */
static const struct option longs[] = {
    { "json", no_argument, NULL, 'J' }, { "bidir", no_argument, NULL, 256 },
    { "port", required_argument, NULL, 'p' }, { "max-hops", required_argument, NULL, 257 },
    { "bitrate", required_argument, NULL, 'b' }, { "bandwidth", required_argument, NULL, 'b' },
    { "sector-size", required_argument, NULL, 's' }, { NULL, 0, NULL, 0 },
};

static void line_is(const struct bad_option_words *w, int c, int code, const char *word,
                    const char *want)
{
    char buf[256];
    assert_string_equal(bad_option_line(buf, sizeof buf, longs, w, c, code, word), want);
}

/* c, optopt and the word as musl's getopt_long leaves them, and the line each
 * tool's words give (the lines its bats rows and man page show) */
static void refusals_in_each_tools_words(void **state)
{
    (void)state;
    static const struct bad_option_words perf = { 0, "", " (drop the '=...')" };
    static const struct bad_option_words mtu = {
        BADOPT_NEEDS_FULL_NAME | BADOPT_TAKES_FULL_NAME | BADOPT_QUOTE_UNKNOWN, "", "",
    };
    static const struct bad_option_words part = { BADOPT_NEEDS_FULL_NAME, ": 512 or 4096", "" };
    /* esxperf: as typed */
    line_is(&perf, ':', 'p', NULL, "option -p needs a value");
    line_is(&perf, ':', 'p', "--port", "option --port needs a value");
    line_is(&perf, ':', 'p', "--po", "option --po needs a value");
    line_is(&perf, '?', 256, "--bidir=1", "option --bidir takes no value (drop the '=...')");
    line_is(&perf, '?', 0, "--no-such-option", "unknown option --no-such-option");
    line_is(&perf, '?', 0, "--no-such=1", "unknown option --no-such");
    line_is(&perf, '?', 'x', "-x", "unknown option -x");
    /* esxmtu: a long option by its whole name, an unknown one quoted whole */
    line_is(&mtu, ':', 'p', NULL, "option -p needs a value");
    line_is(&mtu, ':', 257, "--max", "option --max-hops needs a value");
    line_is(&mtu, '?', 'J', "--js=yes", "option --json takes no value");
    line_is(&mtu, '?', 'x', "-x", "unknown option -x");
    line_is(&mtu, '?', 0, "--bogus=3", "unknown option '--bogus=3'");
    /* esxpart: -s with its values, a flag given a value as typed */
    line_is(&part, ':', 's', NULL, "option -s needs a value: 512 or 4096");
    line_is(&part, ':', 's', "--sec", "option --sector-size needs a value: 512 or 4096");
    line_is(&part, '?', 'J', "--js=1", "option --js takes no value");
    line_is(&part, '?', 0, "--bogus=3", "unknown option --bogus");
    /* two long names of one option: the one typed */
    line_is(&mtu, ':', 'b', "--bandw", "option --bandwidth needs a value");
    line_is(&mtu, ':', 'b', "--bitrate", "option --bitrate needs a value");
}

/* an unknown letter inside a word of letters: getopt has not moved optind past
 * that word yet, so the word before it (here a long option) is what argv[optind-1]
 * holds; the line names the letter, not that earlier option */
static void letter_in_a_word_after_a_long_option(void **state)
{
    (void)state;
    static const struct bad_option_words perf = { 0, "", " (drop the '=...')" };
    static const struct bad_option_words mtu = { BADOPT_TAKES_FULL_NAME | BADOPT_QUOTE_UNKNOWN,
                                                 "", "" };
    line_is(&perf, '?', 'q', "--bidir", "unknown option -q");
    line_is(&mtu, '?', 'x', "--json", "unknown option -x");
    line_is(&perf, '?', 'q', NULL, "unknown option -q");
}

/* ------------------------------------------------ the option engine: one table */

/* a tool's options struct, with a field of every kind the engine sets */
struct t_opts {
    unsigned char given[300];
    int json, bidir;
    const char *name, *level;
    uint16_t port;
    uint32_t mtu;
    int ttl;
    int64_t tos, count;
    uint64_t wait_ns;
    int setter_calls;
};
enum { T_BIDIR = 256, T_WAIT, T_LEVEL, T_VERSION, T_BOGUS };
enum { T_ANY, T_CLIENT, T_SERVER };

static int set_level(void *p, const char *v, char *why, size_t len)
{
    struct t_opts *o = p;
    o->setter_calls++;
    if (v && strcmp(v, "bad") == 0) {
        snprintf(why, len, "bad level '%s'", v);
        return -1;
    }
    o->level = v ? v : "(none)";
    return 0;
}

#define T_FIELD(f) .off = offsetof(struct t_opts, f), .size = sizeof(((struct t_opts *)0)->f)
static const struct opt_row t_rows[] = {
    { .help = "usage: t [options]\n" },
    { 'J', 'J', "json", OPT_ARG_NONE, "  -J, --json\n", .kind = OPT_FLAG, T_FIELD(json) },
    { T_BIDIR, 0, "bidir", OPT_ARG_NONE, "      --bidir\n", .role = T_CLIENT,
      .kind = OPT_FLAG, T_FIELD(bidir) },
    { 'n', 'n', "name", OPT_ARG_REQ, "  -n, --name S\n", .kind = OPT_STR, T_FIELD(name) },
    { 'p', 'p', "port", OPT_ARG_REQ, "  -p, --port N\n", .role = T_SERVER, .kind = OPT_NUM,
      T_FIELD(port), .parse = parse_i64, .min = 1, .max = 65535, .what = "bad port",
      .intro = "allowed " },
    { 'm', 'm', NULL, OPT_ARG_REQ, "  -m MTU\n", .kind = OPT_NUM, T_FIELD(mtu),
      .parse = parse_uint, .min = 68, .max = 65535 },
    { 't', 't', "ttl", OPT_ARG_REQ, "  -t, --ttl N\n", .kind = OPT_NUM, T_FIELD(ttl),
      .parse = parse_uint, .min = 1, .max = 255 },
    { 'S', 'S', "tos", OPT_ARG_REQ, "  -S, --tos N\n", .role = T_CLIENT, .kind = OPT_NUM,
      T_FIELD(tos), .parse = parse_cnum, .min = 0, .max = 255, .what = "bad TOS",
      .intro = "allowed " },
    { 'k', 'k', "count", OPT_ARG_REQ, "  -k, --count N\n", .kind = OPT_NUM, T_FIELD(count),
      .parse = parse_i64, .min = INT64_MIN / 2, .max = INT64_MAX / 2, .what = "bad count",
      .intro = "counted: ", .unit = " blocks" },
    { T_WAIT, 0, "wait", OPT_ARG_REQ, "      --wait SEC\n", .kind = OPT_SECS, T_FIELD(wait_ns),
      .smin = 0.001, .smax = 60 },
    { 'd', 'd', "debug", OPT_ARG_OPTARG, "  -d, --debug[=LEVEL] (also --verbosity)\n",
      .kind = OPT_FN, .fn = set_level },
    { 'd', 0, "verbosity", OPT_ARG_OPTARG, "", .alias = OPT_ALIAS_SHOWN },
    { T_LEVEL, 0, "level", OPT_ARG_OPTARG, "      --level[=L]\n", .kind = OPT_FN,
      .fn = set_level },
    { T_LEVEL, 0, "old-level", OPT_ARG_OPTARG, "", .alias = OPT_ALIAS_HIDDEN },
    { 'q', 'q', NULL, OPT_ARG_NONE, "  -q\n", .kind = OPT_NOTHING },
    { T_VERSION, 0, "version", OPT_ARG_NONE, "      --version\n", .kind = OPT_MAIN },
    { .help = "exit codes: 0, 2\n" },
};
#define T_ROWS (sizeof t_rows / sizeof t_rows[0])
static const struct bad_option_words t_words = { 0, "", "" };
static char t_shorts[ARGS_SHORTS(T_ROWS)];
static struct option t_longs[T_ROWS + 1];
static const struct args_table t_table = { t_rows, T_ROWS, &t_words, 64, t_shorts, t_longs };

/* getopt's views: '::' for an optional value, an alias as one more long name of
 * its option's code (and no letter of its own), text rows nowhere */
static void engine_views(void **state)
{
    (void)state;
    const char *shorts;
    const struct option *l;
    args_views(&t_table, &shorts, &l);
    assert_string_equal(shorts, ":Jn:p:m:t:S:k:d::q");
    static const struct { const char *name; int has_arg, val; } want[] = {
        { "json", no_argument, 'J' }, { "bidir", no_argument, T_BIDIR },
        { "name", required_argument, 'n' }, { "port", required_argument, 'p' },
        { "ttl", required_argument, 't' }, { "tos", required_argument, 'S' },
        { "count", required_argument, 'k' }, { "wait", required_argument, T_WAIT },
        { "debug", optional_argument, 'd' }, { "verbosity", optional_argument, 'd' },
        { "level", optional_argument, T_LEVEL }, { "old-level", optional_argument, T_LEVEL },
        { "version", no_argument, T_VERSION },
    };
    size_t n = sizeof want / sizeof want[0];
    for (size_t i = 0; i < n; i++) {
        assert_string_equal(l[i].name, want[i].name);
        assert_int_equal(l[i].has_arg, want[i].has_arg);
        assert_int_equal(l[i].val, want[i].val);
        assert_null(l[i].flag);
    }
    assert_null(l[n].name);
    /* the row of a code is the option's, never its alias's */
    assert_ptr_equal(args_row(&t_table, 'd'), &t_rows[10]);
    assert_ptr_equal(args_row(&t_table, T_LEVEL), &t_rows[12]);
    assert_null(args_row(&t_table, 0));
    assert_null(args_row(&t_table, T_BOGUS));
    char name[80];
    assert_string_equal(args_name(&t_table, 'd', name, sizeof name), "-d");
    assert_string_equal(args_name(&t_table, T_BIDIR, name, sizeof name), "--bidir");
    assert_string_equal(args_name(&t_table, T_LEVEL, name, sizeof name),
                        "--level (--old-level)");
    assert_string_equal(args_name(&t_table, '?', name, sizeof name), "?");
    /* a buffer too small for the aliases: cut, still a string */
    assert_string_equal(args_name(&t_table, T_LEVEL, name, 12), "--level (--");
}

/* what each kind sets, given[] marked; a number in range at both ends, refused
 * past them in the row's words; seconds kept in ns */
static void engine_setter_kinds(void **state)
{
    (void)state;
    struct t_opts o = { 0 };
    char why[128];
#define SET(code, v) args_set(&t_table, &o, o.given, code, v, why, sizeof why)
    assert_int_equal(SET('J', NULL), 0);
    assert_int_equal(o.json, 1);
    assert_true(o.given['J']);
    assert_int_equal(SET('n', "peer"), 0);
    assert_string_equal(o.name, "peer");
    assert_int_equal(SET('p', "65535"), 0);
    assert_int_equal(o.port, 65535);
    assert_int_equal(SET('p', "1"), 0);
    assert_int_equal(o.port, 1);
    assert_int_equal(SET('p', "65536"), -1);
    assert_string_equal(why, "bad port '65536': out of range (allowed 1..65535)");
    assert_int_equal(SET('p', "-1"), -1);
    assert_string_equal(why, "bad port '-1': out of range (allowed 1..65535)");
    assert_int_equal(o.port, 1);
    assert_int_equal(SET('m', "9000"), 0);
    assert_int_equal(o.mtu, 9000);
    /* no "what": the refusal names the option */
    assert_int_equal(SET('m', "67"), -1);
    assert_string_equal(why, "-m '67': out of range (68..65535)");
    assert_int_equal(SET('m', "+9000"), -1);
    assert_string_equal(why, "-m '+9000': not a plain non-negative integer (68..65535)");
    assert_int_equal(SET('t', "255"), 0);
    assert_int_equal(o.ttl, 255);
    assert_int_equal(SET('S', "0x10"), 0);
    assert_int_equal(o.tos, 16);
    assert_int_equal(SET('S', "020"), 0);
    assert_int_equal(o.tos, 16);
    assert_int_equal(SET('k', "-4611686018427387904"), 0);
    assert_int_equal(o.count, INT64_MIN / 2);
    assert_int_equal(SET('k', "99999999999999999999"), -1);
    assert_string_equal(why, "bad count '99999999999999999999': out of range (counted: "
                             "-4611686018427387904..4611686018427387903 blocks)");
    assert_int_equal(SET(T_WAIT, "0.001"), 0);
    assert_int_equal(o.wait_ns, 1000000);
    assert_int_equal(SET(T_WAIT, "60"), 0);
    assert_int_equal(o.wait_ns, 60000000000ULL);
    assert_int_equal(SET(T_WAIT, "0.0009"), -1);
    assert_string_equal(why, "--wait '0.0009': out of range (0.001..60 seconds)");
    /* an optional value: the setter sees NULL when none was given */
    assert_int_equal(SET('d', NULL), 0);
    assert_string_equal(o.level, "(none)");
    assert_int_equal(SET(T_LEVEL, "3"), 0);
    assert_string_equal(o.level, "3");
    assert_int_equal(SET(T_LEVEL, "bad"), -1);
    assert_string_equal(why, "bad level 'bad'");
    assert_int_equal(o.setter_calls, 3);
    assert_int_equal(SET('q', NULL), 0);
    assert_true(o.given['q']);
    /* main's rows and getopt's own codes are not the engine's */
    assert_int_equal(SET(T_VERSION, NULL), 1);
    assert_true(o.given[T_VERSION]);
    assert_int_equal(SET('?', NULL), 1);
    assert_int_equal(SET(':', NULL), 1);
    assert_int_equal(SET(0, NULL), 1);
    assert_false(o.given['?']);
    /* a refusal longer than the caller's buffer is cut, not overrun */
    char small[16];
    assert_int_equal(args_set(&t_table, &o, NULL, 'p', "123456789", small, sizeof small), -1);
    assert_string_equal(small, "bad port '12345");
#undef SET
}

/* the first option given of a role, in the table's order, never an alias */
static void engine_roles(void **state)
{
    (void)state;
    unsigned char given[300] = { 0 };
    assert_null(args_first_given(&t_table, T_CLIENT, given));
    given['S'] = 1;
    assert_ptr_equal(args_first_given(&t_table, T_CLIENT, given), &t_rows[7]);
    given[T_BIDIR] = 1;
    assert_ptr_equal(args_first_given(&t_table, T_CLIENT, given), &t_rows[2]);
    assert_null(args_first_given(&t_table, T_SERVER, given));
    given['p'] = 1;
    assert_ptr_equal(args_first_given(&t_table, T_SERVER, given), &t_rows[4]);
}

static int t_main_calls;
static void t_main(void *ctx, int code, const char *value)
{
    (void)value;
    assert_ptr_equal(ctx, &t_main_calls);
    assert_int_equal(code, T_VERSION);
    t_main_calls++;
}

/* the whole loop on a good command line: letters in one word, a value in the
 * same word or the next, an optional value only in the same word (else the next
 * word is an operand), an alias and a unique prefix of a long name, "--" ending
 * the options; the operands are left at the end, from the returned index */
static void engine_parses_a_command_line(void **state)
{
    (void)state;
    char *v[] = { "t", "-Jq", "-p5201", "op1", "--verb=2", "--old-lev", "-d", "op2",
                  "--ttl", "64", "--wa=0.5", "--version", "-m", "1500", "--", "-J", NULL };
    int argc = (int)(sizeof v / sizeof v[0]) - 1;
    struct t_opts o = { 0 };
    optind = 1;
    t_main_calls = 0;
    int first = args_parse(&t_table, &o, o.given, argc, v, t_main, &t_main_calls);
    assert_int_equal(o.json, 1);
    assert_int_equal(o.port, 5201);
    assert_int_equal(o.ttl, 64);
    assert_int_equal(o.mtu, 1500);
    assert_int_equal(o.wait_ns, 500000000);
    assert_string_equal(o.level, "(none)");    /* -d last, without a value */
    assert_int_equal(o.setter_calls, 3);
    assert_true(o.given[T_LEVEL] && o.given['d'] && o.given['q']);
    assert_int_equal(t_main_calls, 1);
    assert_int_equal(argc - first, 3);
    assert_string_equal(v[first], "op1");
    assert_string_equal(v[first + 1], "op2");
    assert_string_equal(v[first + 2], "-J");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(skips_leading_vmk_words),
        cmocka_unit_test(keeps_plus_words_after_first_real_arg),
        cmocka_unit_test(parses_bounded_integers),
        cmocka_unit_test(refuses_leading_white_space),
        cmocka_unit_test(refusals_in_each_tools_words),
        cmocka_unit_test(letter_in_a_word_after_a_long_option),
        cmocka_unit_test(engine_views),
        cmocka_unit_test(engine_setter_kinds),
        cmocka_unit_test(engine_roles),
        cmocka_unit_test(engine_parses_a_command_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
