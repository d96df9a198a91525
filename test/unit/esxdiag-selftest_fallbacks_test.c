/* The fallback texts are held once (common/fallback_texts.h): every self-test probe
 * row for an option in the table ends with the table's text, every table entry has
 * its probe row, and what esxperf notes for a refusal (fallback_refused) is the
 * table's text, as its -V "fallback:" line and -J "fallbacks" show it. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>

#include "fallback.h"
#include "fallback_texts.h"
#include "probes.h"

const char tool_name[] = "esxtest";

static const char *const table_options[] = {
    "SO_REUSEADDR", "IPV6_V6ONLY", "TCP_NODELAY", "SO_ZEROCOPY", "SO_RCVLOWAT",
    "SO_RCVTIMEO", "SO_SNDTIMEO", "IP_PKTINFO", "IPV6_RECVPKTINFO", "UDP_SEGMENT", "UDP_GRO",
};
#define NOPT (sizeof table_options / sizeof table_options[0])

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), t = strlen(tail);
    return n >= t && strcmp(s + n - t, tail) == 0;
}

static void probe_rows_take_the_table_text(void **state)
{
    (void)state;
    size_t rows = 0;
    for (size_t i = 0; i < probe_count(); i++) {
        const struct probe_row *p = probe_row(i);
        const char *t = fallback_says(p->name);
        if (!t)
            continue;
        rows++;
        if (!ends_with(p->fallback, t))
            fail_msg("probe %s: \"%s\" does not end with the table's \"%s\"", p->name, p->fallback, t);
    }
    assert_int_equal(rows, NOPT);
}

static void every_table_entry_has_a_probe_row(void **state)
{
    (void)state;
    for (size_t k = 0; k < NOPT; k++) {
        assert_non_null(fallback_says(table_options[k]));
        int found = 0;
        for (size_t i = 0; i < probe_count() && !found; i++)
            found = strcmp(probe_row(i)->name, table_options[k]) == 0;
        if (!found)
            fail_msg("no probe row for %s", table_options[k]);
    }
    assert_null(fallback_says("NO_SUCH_OPTION"));
}

static void esxperf_notes_the_table_text(void **state)
{
    (void)state;
    char line[256], want[256];
    for (size_t k = 0; k < NOPT; k++) {
        errno = EINTR;
        fallback_refused(table_options[k], ENOPROTOOPT);
        assert_int_equal(errno, EINTR);
    }
    int n;
    const struct fallback *f = fallback_list(&n);
    assert_int_equal(n, (int)NOPT);
    for (int i = 0; i < n; i++) {
        assert_string_equal(f[i].option, table_options[i]);
        assert_ptr_equal(f[i].instead, fallback_says(table_options[i]));
        snprintf(want, sizeof want, "%s refused (ENOPROTOOPT): %s", table_options[i],
                 fallback_says(table_options[i]));
        assert_string_equal(fallback_text(i, line, sizeof line), want);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(probe_rows_take_the_table_text),
        cmocka_unit_test(every_table_entry_has_a_probe_row),
        cmocka_unit_test(esxperf_notes_the_table_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
