/* esxpart's option table (options_table.h): the rows are unique and are what
 * getopt_long and --help see (opt_rows.h), and opts_set does what each row says:
 * every flag sets a field of its own, -s takes 512 and 4096 only, -V is refused with a
 * pointer to -v and --version. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "opt_rows.h"
#include "../../tools/esxpart/options.h"

const char tool_name[] = "esxpart";

static struct part_opts o;

/* a flag opts_set refuses whenever it is given is only refused, not offered */
static int refused(int code)
{
    char why[160];
    for (size_t i = 0; i < PART_OPT_ROWS; i++)
        if (part_rows[i].code == code && part_rows[i].arg == OPT_ARG_NONE) {
            o = (struct part_opts){ 0 };
            return opts_set(&o, code, NULL, why, sizeof why) < 0;
        }
    return 0;
}

static void rows_are_getopt_and_help(void **state)
{
    (void)state;
    const char *shorts;
    const struct option *longs;
    args_views(&part_table, &shorts, &longs);
    rows_check(part_rows, PART_OPT_ROWS, part_usage, shorts, longs, refused);
    assert_string_equal(shorts, ":pugJvs:hV");
    assert_true(refused('V'));
}

static void every_row_sets_what_it_says(void **state)
{
    (void)state;
    char why[160];
    size_t flags = 0;
    for (size_t i = 0; i < PART_OPT_ROWS; i++) {
        const struct opt_row *r = &part_rows[i], *e = r;
        if (!r->code)
            continue;
        o = (struct part_opts){ 0 };
        int rc = opts_set(&o, r->code, r->arg == OPT_ARG_REQ ? "512" : NULL, why, sizeof why);
        if (e->kind == OPT_MAIN) {
            assert_int_equal(rc, 1);
        } else if (e->kind == OPT_FLAG) {
            flags++;
            assert_int_equal(rc, 0);
            assert_int_equal(*(int *)((char *)&o + e->off), 1);
            /* one flag sets one field */
            struct part_opts only = { 0 };
            *(int *)((char *)&only + e->off) = 1;
            assert_memory_equal(&o, &only, sizeof o);
            /* and no other flag sets it */
            for (size_t j = i + 1; j < PART_OPT_ROWS; j++)
                if (part_rows[j].kind == OPT_FLAG && part_rows[j].off == e->off)
                    fail_msg("-%c and -%c set the same field", r->letter, part_rows[j].letter);
        } else {
            assert_int_not_equal(rc, 1);
        }
    }
    assert_int_equal(flags, 5);
    assert_int_equal(opts_set(&o, '?', NULL, why, sizeof why), 1);
    assert_int_equal(opts_set(&o, 0, NULL, why, sizeof why), 1);
}

static void sector_size_and_V(void **state)
{
    (void)state;
    char why[160];
    o = (struct part_opts){ 0 };
    assert_int_equal(opts_set(&o, 's', "4096", why, sizeof why), 0);
    assert_int_equal(o.sector, 4096);
    assert_int_equal(opts_set(&o, 's', "512", why, sizeof why), 0);
    assert_int_equal(o.sector, 512);
    assert_int_equal(opts_set(&o, 's', "5120", why, sizeof why), -1);
    assert_string_equal(why, "--sector-size 5120: must be 512 or 4096");
    assert_int_equal(o.sector, 512);
    assert_int_equal(opts_set(&o, 'V', NULL, why, sizeof why), -1);
    assert_string_equal(why, "-V is not an option: -v (--verify) checks the tables, "
                             "--version prints the version");
    o = (struct part_opts){ .partedutil = 1, .usable = 1 };
    assert_int_equal(opts_validate(&o, why, sizeof why), -1);
    assert_string_equal(why, "--partedutil and --usable do not go together");
    o.usable = 0;
    assert_int_equal(opts_validate(&o, why, sizeof why), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rows_are_getopt_and_help),
        cmocka_unit_test(every_row_sets_what_it_says),
        cmocka_unit_test(sector_size_and_V),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
