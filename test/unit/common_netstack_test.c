/* common/netstack_enter.c: the ++netstack= launch word among the leading ++ words, the
 * names a netstack may have, and the re-exec guard named after the tool. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "netstack_enter.h"

const char tool_name[] = "esxperf";

static void finds_the_word_among_leading_plus_words_only(void **state)
{
    (void)state;
    const char *other;
    char *a[] = { "esxperf", "++group=host/vim/tmp", "++netstack=vmotion", "-c", "x", NULL };
    assert_string_equal(netstack_word(5, a, &other), "vmotion");
    assert_null(other);
    char *b[] = { "esxperf", "-c", "x", "++netstack=vmotion", NULL };
    assert_null(netstack_word(4, b, &other));
    char *c[] = { "esxperf", "++netstack=", NULL };
    assert_string_equal(netstack_word(2, c, &other), "");
    char *d[] = { "esxperf", NULL };
    assert_null(netstack_word(1, d, &other));
}

/* the same word twice is one netstack; two names are a conflict, the first kept */
static void names_a_second_netstack_word(void **state)
{
    (void)state;
    const char *other;
    char *a[] = { "esxmtu", "++netstack=vmotion", "++netstack=vmotion", "x", NULL };
    assert_string_equal(netstack_word(4, a, &other), "vmotion");
    assert_null(other);
    char *b[] = { "esxmtu", "++netstack=vmotion", "++netstack=a", "++netstack=b", "x", NULL };
    assert_string_equal(netstack_word(5, b, &other), "vmotion");
    assert_string_equal(other, "a");
}

/* the re-exec's mark counts only in the process that set it (its pid) */
static void a_guard_of_another_process_is_dropped(void **state)
{
    (void)state;
    char mine[64];
    setenv("ESXPERF_NETSTACK_REEXEC", "1:vmotion", 1);          /* pid 1 is not this test */
    setenv("ESXPERF_NETSTACK_FROM", "-S", 1);
    assert_null(netstack_guard());
    assert_null(getenv("ESXPERF_NETSTACK_REEXEC"));
    setenv("ESXPERF_NETSTACK_REEXEC", "vmotion", 1);             /* no pid at all */
    assert_null(netstack_guard());
    snprintf(mine, sizeof mine, "%ld:vmotion", (long)getpid());
    setenv("ESXPERF_NETSTACK_REEXEC", mine, 1);
    assert_string_equal(netstack_guard(), "vmotion");
    netstack_guard_clear();
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
    char mine[64];
    snprintf(mine, sizeof mine, "%ld:vmotion", (long)getpid());
    unsetenv("ESXPERF_NETSTACK_REEXEC");
    setenv("ESXMTU_NETSTACK_REEXEC", mine, 1);    /* another tool's: not ours */
    assert_null(netstack_guard());
    setenv("ESXPERF_NETSTACK_REEXEC", mine, 1);
    setenv("ESXPERF_NETSTACK_FROM", "--netstack", 1);
    assert_string_equal(netstack_guard(), "vmotion");
    assert_string_equal(netstack_guard_from(), "--netstack");
    netstack_guard_clear();
    assert_null(netstack_guard());
    assert_null(netstack_guard_from());
    assert_string_equal(getenv("ESXMTU_NETSTACK_REEXEC"), mine);
    unsetenv("ESXMTU_NETSTACK_REEXEC");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(finds_the_word_among_leading_plus_words_only),
        cmocka_unit_test(names_a_second_netstack_word),
        cmocka_unit_test(a_guard_of_another_process_is_dropped),
        cmocka_unit_test(accepts_netstack_names_only),
        cmocka_unit_test(the_guard_is_the_tools_own),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
