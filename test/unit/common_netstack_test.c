/* common/netstack_enter.c: the ++netstack= launch word among the leading ++ words, the
 * names a netstack may have, and the re-exec guard named after the tool. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "netstack_enter.h"

const char tool_name[] = "esxperf";

static void finds_the_word_among_leading_plus_words_only(void **state)
{
    (void)state;
    char *a[] = { "esxperf", "++group=host/vim/tmp", "++netstack=vmotion", "-c", "x", NULL };
    assert_string_equal(netstack_word(5, a), "vmotion");
    char *b[] = { "esxperf", "-c", "x", "++netstack=vmotion", NULL };
    assert_null(netstack_word(4, b));
    char *c[] = { "esxperf", "++netstack=", NULL };
    assert_string_equal(netstack_word(2, c), "");
    char *d[] = { "esxperf", NULL };
    assert_null(netstack_word(1, d));
}

static void accepts_netstack_names_only(void **state)
{
    (void)state;
    assert_true(netstack_name_ok("vmotion"));
    assert_true(netstack_name_ok("defaultTcpipStack"));
    assert_true(netstack_name_ok("vxlan_1-a.b"));
    assert_false(netstack_name_ok(""));
    assert_false(netstack_name_ok("v motion"));
    assert_false(netstack_name_ok("a;b"));
    assert_false(netstack_name_ok("vmotion\n"));
    char longest[NETSTACK_NAME_MAX + 1];
    memset(longest, 'a', sizeof longest);
    longest[NETSTACK_NAME_MAX - 1] = 0;
    assert_true(netstack_name_ok(longest));
    longest[NETSTACK_NAME_MAX - 1] = 'a';
    longest[NETSTACK_NAME_MAX] = 0;
    assert_false(netstack_name_ok(longest));
}

static void the_guard_is_the_tools_own(void **state)
{
    (void)state;
    unsetenv("ESXPERF_NETSTACK_REEXEC");
    setenv("ESXMTU_NETSTACK_REEXEC", "vmotion", 1);    /* another tool's: not ours */
    assert_null(netstack_guard());
    setenv("ESXPERF_NETSTACK_REEXEC", "vmotion", 1);
    setenv("ESXPERF_NETSTACK_FROM", "--netstack", 1);
    assert_string_equal(netstack_guard(), "vmotion");
    assert_string_equal(netstack_guard_from(), "--netstack");
    netstack_guard_clear();
    assert_null(netstack_guard());
    assert_null(netstack_guard_from());
    assert_string_equal(getenv("ESXMTU_NETSTACK_REEXEC"), "vmotion");
    unsetenv("ESXMTU_NETSTACK_REEXEC");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(finds_the_word_among_leading_plus_words_only),
        cmocka_unit_test(accepts_netstack_names_only),
        cmocka_unit_test(the_guard_is_the_tools_own),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
