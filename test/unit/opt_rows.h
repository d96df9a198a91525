/* Checks every tool's option table (common/args.h's struct opt_row) must pass,
 * for the unit tests of esxmtu's and esxpart's tables: codes, letters and long
 * names unique; a letter is its own code, a long-only option's code above 255;
 * getopt_long's short string and long table are exactly the rows'; --help is the
 * rows' help in order, a row's help starts with its own name and every option
 * but the refused ones (refused(code) true) is named in --help. */
#ifndef TEST_OPT_ROWS_H
#define TEST_OPT_ROWS_H
#include <ctype.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "args.h"

/* s names w as a whole option word (not a prefix of a longer one) */
static int rows_names_word(const char *s, const char *w)
{
    size_t n = strlen(w);
    for (const char *at = s; (at = strstr(at, w)); at++) {
        char before = at == s ? ' ' : at[-1], after = at[n];
        if (!(isalnum((unsigned char)before) || before == '-') &&
            !(isalnum((unsigned char)after) || after == '-'))
            return 1;
    }
    return 0;
}

__attribute__((unused))
static void rows_check(const struct opt_row *rows, size_t n, const char *usage,
                       const char *shorts, const struct option *longs, int (*refused)(int code))
{
    size_t letters = 0, colons = 0, names = 0, len = 0, opts = 0;
    assert_int_equal(shorts[0], ':');
    for (size_t i = 0; i < n; i++) {
        const struct opt_row *r = &rows[i];
        size_t h = strlen(r->help);
        assert_memory_equal(usage + len, r->help, h);
        len += h;
        if (!r->code) {
            assert_int_equal(r->letter, 0);
            assert_null(r->name);
            assert_true(h > 0);
            continue;
        }
        opts++;
        assert_true(r->letter || r->name);
        if (r->letter)
            assert_int_equal(r->code, r->letter);
        else
            assert_true(r->code > 255);
        for (size_t j = i + 1; j < n; j++) {
            if (r->code == rows[j].code)
                fail_msg("code %d: two rows", r->code);
            if (r->name && rows[j].name && strcmp(r->name, rows[j].name) == 0)
                fail_msg("--%s: two rows", r->name);
        }
        char word[80];
        if (r->letter) {
            letters++;
            colons += r->arg == OPT_ARG_REQ;
            const char *at = strchr(shorts + 1, r->letter);
            if (!at)
                fail_msg("-%c: not in getopt's short string %s", r->letter, shorts);
            assert_null(strchr(at + 1, r->letter));
            assert_int_equal(strspn(at + 1, ":"), r->arg == OPT_ARG_REQ);
            snprintf(word, sizeof word, "-%c", r->letter);
        } else {
            snprintf(word, sizeof word, "--%s", r->name);
        }
        /* a row's own lines start with its first name, after the indent */
        if (h) {
            const char *start = r->help + strspn(r->help, " ");
            assert_true(start > r->help);
            if (strncmp(start, word, strlen(word)) != 0)
                fail_msg("%s: its help line is another's: %s", word, r->help);
        }
        int shown = rows_names_word(usage, word);
        if (r->name) {
            char full[80];
            snprintf(full, sizeof full, "--%s", r->name);
            shown = shown && rows_names_word(usage, full);
            names++;
            size_t seen = 0;
            for (const struct option *l = longs; l->name; l++) {
                if (strcmp(l->name, r->name) != 0)
                    continue;
                seen++;
                assert_int_equal(l->val, r->code);
                assert_null(l->flag);
                assert_int_equal(l->has_arg,
                                 r->arg == OPT_ARG_REQ ? required_argument : no_argument);
            }
            assert_int_equal(seen, 1);
        }
        if (shown == refused(r->code))
            fail_msg("%s: --help %s it, but the tool %s it", word,
                     shown ? "names" : "does not name", shown ? "refuses" : "takes");
    }
    assert_int_equal(len, strlen(usage));
    assert_int_equal(strlen(shorts), 1 + letters + colons);
    size_t m = 0;
    while (longs[m].name)
        m++;
    assert_int_equal(m, names);
    assert_int_equal(longs[m].val, 0);
    assert_true(opts > 5);
}

#endif
