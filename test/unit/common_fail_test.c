/* common/fail.c: message format "tool: ...", exit codes, allocation guard, own words
 * for errno values whose musl text differs from what administrators know. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fail.h"

const char tool_name[] = "esxtest";

/* run fn in a child with stderr captured; return its exit status, text in buf */
static int in_child(void (*fn)(void), char *buf, size_t len)
{
    int p[2];
    assert_int_equal(pipe(p), 0);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(p[1], 2);
        close(p[0]);
        fn();
        _exit(99);
    }
    close(p[1]);
    size_t n = 0;
    ssize_t r;
    while (n + 1 < len && (r = read(p[0], buf + n, len - 1 - n)) > 0)
        n += (size_t)r;
    buf[n] = 0;
    close(p[0]);
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void call_die(void) { die(EXIT_CHECK, "probe failed: %s", errtext(EMSGSIZE)); }
static void call_usage(void) { die_usage("bad -c value '%s'", "0"); }
static void call_warn(void) { warnmsg("skipping %d", 3); exit(0); }
static void call_usage_ctl(void) { die_usage("bad time '%s'", "\n5\t\x1b[2J"); }
static void call_warn_ctl(void) { warnmsg("name %s", "a\rb\x7f"); exit(0); }
static void call_huge(void) { (void)xmalloc((size_t)1 << 31); }
static void call_huge_calloc(void) { (void)xcalloc(SIZE_MAX / 2, 4); }

static void die_prefixes_the_tool_and_exits_with_the_code(void **state)
{
    (void)state;
    char b[256];
    assert_int_equal(in_child(call_die, b, sizeof b), 1);
    assert_string_equal(b, "esxtest: probe failed: Message too long\n");
    assert_int_equal(in_child(call_usage, b, sizeof b), 2);
    assert_string_equal(b, "esxtest: bad -c value '0' (try 'esxtest --help')\n");
    assert_int_equal(in_child(call_warn, b, sizeof b), 0);
    assert_string_equal(b, "esxtest: skipping 3\n");
}

/* control characters in a value (a newline would make two lines) are written as
 * \xNN, so a message stays one line and cannot drive the terminal */
static void messages_stay_one_line(void **state)
{
    (void)state;
    char b[256];
    assert_int_equal(in_child(call_usage_ctl, b, sizeof b), 2);
    assert_string_equal(b, "esxtest: bad time '\\x0a5\\x09\\x1b[2J' (try 'esxtest --help')\n");
    assert_int_equal(in_child(call_warn_ctl, b, sizeof b), 0);
    assert_string_equal(b, "esxtest: name a\\x0db\\x7f\n");
}

static void allocation_guard_refuses_absurd_sizes(void **state)
{
    (void)state;
    char b[256];
    assert_int_equal(in_child(call_huge, b, sizeof b), 2);
    assert_non_null(strstr(b, "refusing to allocate"));
    assert_int_equal(in_child(call_huge_calloc, b, sizeof b), 2);
    assert_non_null(strstr(b, "refusing to allocate"));
    char *p = xmalloc(0);           /* zero is a valid request */
    assert_non_null(p);
    free(p);
    char *s = xstrdup("vmk1");
    assert_string_equal(s, "vmk1");
    free(s);
}

static void errtext_uses_familiar_words(void **state)
{
    (void)state;
    assert_string_equal(errtext(EMSGSIZE), "Message too long");
    assert_string_equal(errtext(ENOSYS), "Function not implemented");
    assert_string_equal(errtext(ECONNREFUSED), "Connection refused");
    assert_non_null(errtext(ENOENT));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(die_prefixes_the_tool_and_exits_with_the_code),
        cmocka_unit_test(messages_stay_one_line),
        cmocka_unit_test(allocation_guard_refuses_absurd_sizes),
        cmocka_unit_test(errtext_uses_familiar_words),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
