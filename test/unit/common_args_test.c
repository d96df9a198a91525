/* common/args.c: ESXi "++" launch words, bounded integers, the one line for
 * getopt_long's refusals in each tool's words. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <getopt.h>

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(skips_leading_vmk_words),
        cmocka_unit_test(keeps_plus_words_after_first_real_arg),
        cmocka_unit_test(parses_bounded_integers),
        cmocka_unit_test(refuses_leading_white_space),
        cmocka_unit_test(refusals_in_each_tools_words),
        cmocka_unit_test(letter_in_a_word_after_a_long_option),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
