/* esxmtu's option table (options_table.h): the rows are unique and are what
 * getopt_long and --help see (opt_rows.h), and opts_set does what each row says:
 * every option is known, a bounded value is taken at both bounds into its field
 * and refused past them by the option's name. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <sys/socket.h>

#include "opt_rows.h"
#include "../../tools/esxmtu/options.h"
#include "../../tools/esxmtu/probe.h"

const char tool_name[] = "esxmtu";

static struct mtu_opts o;

/* a flag opts_set refuses whenever it is given is only refused, not offered */
static int refused(int code)
{
    char why[320];
    for (size_t i = 0; i < MTU_OPT_ROWS; i++)
        if (mtu_rows[i].code == code && mtu_rows[i].arg == OPT_ARG_NONE) {
            opts_defaults(&o);
            return opts_set(&o, code, NULL, why, sizeof why) < 0;
        }
    return 0;
}

static void rows_are_getopt_and_help(void **state)
{
    (void)state;
    const char *shorts;
    const struct option *longs;
    opts_getopt(&shorts, &longs);
    rows_check(mtu_rows, MTU_OPT_ROWS, mtu_usage, shorts, longs, refused);
    /* the rows getopt's strings are built from, as the tool has always taken them */
    assert_string_equal(shorts, ":m:s:c:i:W:t:I:S:B:46df:JVqh");
}

/* v as the row's value would be written: 65535, 0.001 */
static const char *value(char *buf, size_t len, double v)
{
    snprintf(buf, len, "%.10g", v);
    return buf;
}

static void every_row_sets_what_it_says(void **state)
{
    (void)state;
    char why[320], v[32], name[32];
    size_t bounded = 0;
    for (size_t i = 0; i < MTU_OPT_ROWS; i++) {
        const struct opt_row *r = &mtu_rows[i], *e = r;
        if (!r->code)
            continue;
        opts_defaults(&o);
        const char *any = r->arg == OPT_ARG_REQ ? "1" : NULL;
        int rc = opts_set(&o, r->code, any, why, sizeof why);
        assert_true(o.given[r->code]);
        if (e->kind == OPT_MAIN) {
            assert_int_equal(rc, 1);
            continue;
        }
        if (rc == 1)
            fail_msg("%s: opts_set does not know it", opts_name(r->code, name, sizeof name));
        char *field = (char *)&o + e->off;
        switch (e->kind) {
        case OPT_FLAG:
            assert_int_equal(*(int *)field, 1);
            for (size_t j = i + 1; j < MTU_OPT_ROWS; j++)
                if (mtu_rows[j].kind == OPT_FLAG && mtu_rows[j].off == e->off)
                    fail_msg("%s and another row set the same flag",
                             opts_name(r->code, name, sizeof name));
            break;
        case OPT_STR:
            assert_ptr_equal(*(const char **)field, any);
            break;
        case OPT_NUM:
        case OPT_SECS:
            bounded++;
            assert_int_equal(r->arg, OPT_ARG_REQ);
            for (int end = 0; end < 2; end++) {
                int secs = e->kind == OPT_SECS;
                double at = secs ? (end ? e->smax : e->smin) : (double)(end ? e->max : e->min);
                opts_defaults(&o);
                assert_int_equal(opts_set(&o, r->code, value(v, sizeof v, at), why, sizeof why), 0);
                if (secs)
                    assert_int_equal(*(uint64_t *)field, (uint64_t)(at * 1e9));
                else if (e->size == sizeof(uint32_t))
                    assert_int_equal(*(uint32_t *)field, (uint32_t)at);
                else
                    fail_msg("%s: a field of %zu bytes", opts_name(r->code, name, sizeof name),
                             e->size);
                double past = end ? at + 1 : at - (secs ? 0.0005 : 1);
                if (past < 0)
                    continue;
                assert_int_equal(opts_set(&o, r->code, value(v, sizeof v, past), why, sizeof why), -1);
                opts_name(r->code, name, sizeof name);
                assert_memory_equal(why, name, strlen(name));
                assert_non_null(strstr(why, "out of range"));
            }
            break;
        default:
            break;
        }
    }
    assert_int_equal(bounded, 6);
    /* what getopt_long returns for no option is no row's */
    assert_int_equal(opts_set(&o, '?', NULL, why, sizeof why), 1);
    assert_int_equal(opts_set(&o, ':', NULL, why, sizeof why), 1);
    assert_int_equal(opts_set(&o, 0, NULL, why, sizeof why), 1);
}

static void setters(void **state)
{
    (void)state;
    char why[320];
    opts_defaults(&o);
    assert_int_equal(opts_set(&o, 'i', "0.5", why, sizeof why), 0);
    assert_int_equal(o.chk.interval_ns, 500000000);
    assert_string_equal(o.interval, "0.5");
    assert_int_equal(opts_set(&o, 'i', "61", why, sizeof why), -1);
    assert_string_equal(why, "-i '61': out of range (0..60 seconds)");
    assert_int_equal(opts_set(&o, '6', NULL, why, sizeof why), 0);
    assert_int_equal(o.family, AF_INET6);
    assert_int_equal(opts_set(&o, '4', NULL, why, sizeof why), 0);
    assert_int_equal(o.family, AF_INET);
    assert_int_equal(opts_set(&o, OPT_METHOD, "dgram", why, sizeof why), 0);
    assert_int_equal(o.po.method, METHOD_DGRAM);
    assert_int_equal(opts_set(&o, OPT_METHOD, "pigeon", why, sizeof why), -1);
    assert_string_equal(why, "--method 'pigeon': unknown (auto, raw, errqueue or dgram)");
    assert_int_equal(opts_set(&o, 'm', "9k", why, sizeof why), -1);
    assert_string_equal(why, "-m '9k': not a number (68..65535)");
    assert_int_equal(opts_set(&o, OPT_HOPS, "65", why, sizeof why), -1);
    assert_string_equal(why, "--max-hops '65': out of range (1..64)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rows_are_getopt_and_help),
        cmocka_unit_test(every_row_sets_what_it_says),
        cmocka_unit_test(setters),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
