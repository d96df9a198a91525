/* common/runcmd.c: a program's output and exit status; its group killed at the
 * deadline, when a stop is asked, and when it exits leaving a child that holds its
 * output; a program that cannot run said so. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runcmd.h"

const char tool_name[] = "test";

static int run_sh(struct runcmd *c, const char *script, double deadline_s, int (*stop)(void))
{
    static const char *argv[4];
    argv[0] = "/bin/sh";
    argv[1] = "-c";
    argv[2] = script;
    argv[3] = NULL;
    memset(c, 0, sizeof *c);
    c->argv = argv;
    return runcmd_one(c, deadline_s, 4096, stop);
}

static int running(pid_t pid)
{
    char path[64], buf[256];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    const char *close_paren = strrchr(buf, ')');
    return close_paren && close_paren[1] == ' ' && close_paren[2] != 'Z';   /* a zombie is dead */
}

/* killed: SIGKILL lands within moments; looked at for 2 s at most */
static int gone(pid_t pid)
{
    for (int i = 0; i < 200; i++) {
        if (!running(pid))
            return 1;
        usleep(10000);
    }
    return 0;
}

static void output_and_status(void **state)
{
    (void)state;
    struct runcmd c;
    assert_int_equal(run_sh(&c, "echo out; echo err >&2; exit 3", 10, NULL), 0);
    assert_int_equal(c.code, 3);
    assert_string_equal(c.out, "out\nerr\n");
    assert_string_equal(c.why, "");
    free(c.out);
}

static void output_is_bounded(void **state)
{
    (void)state;
    struct runcmd c;
    assert_int_equal(run_sh(&c, "i=0; while [ $i -lt 2000 ]; do echo 0123456789; i=$((i+1)); done", 10, NULL), 0);
    assert_int_equal(c.code, 0);
    assert_int_equal(c.len, 4096);          /* the rest read and dropped */
    free(c.out);
}

static void deadline_kills_the_group(void **state)
{
    (void)state;
    struct runcmd c;
    /* the child's own child writes its pid, then both sleep past the deadline */
    assert_int_equal(run_sh(&c, "sleep 30 & echo $!; wait", 0.3, NULL), 0);
    assert_int_equal(c.code, -1);
    assert_non_null(strstr(c.why, "did not finish within"));
    pid_t left = (pid_t)atoi(c.out);
    assert_true(left > 0);
    assert_true(gone(left));
    free(c.out);
}

static void exit_with_a_child_holding_the_output(void **state)
{
    (void)state;
    struct runcmd c;
    /* it answers and exits; the sleep holds its stdout for 30 s: read at once, killed */
    assert_int_equal(run_sh(&c, "sleep 30 & echo $!; exit 0", 20, NULL), 0);
    assert_int_equal(c.code, 0);
    pid_t left = (pid_t)atoi(c.out);
    assert_true(left > 0);
    assert_true(gone(left));
    free(c.out);
}

static int calls;
static int stop_after_two(void)
{
    return ++calls > 2;
}

static void stop_kills_and_says_so(void **state)
{
    (void)state;
    struct runcmd c;
    calls = 0;
    assert_int_equal(run_sh(&c, "sleep 30", 20, stop_after_two), 1);
    assert_true(c.stopped);
    assert_int_equal(c.code, -1);
    assert_non_null(strstr(c.why, "interrupted"));
    free(c.out);
}

/* one at a time: the second never starts, and says it was stopped too */
static void stop_marks_the_unstarted(void **state)
{
    (void)state;
    const char *argv[] = { "/bin/sh", "-c", "sleep 30", NULL };
    struct runcmd c[2];
    memset(c, 0, sizeof c);
    c[0].argv = c[1].argv = argv;
    calls = 0;
    assert_int_equal(runcmd_all(c, 2, 1, 20, 4096, stop_after_two), 1);
    assert_true(c[0].stopped);
    assert_true(c[1].stopped);
    assert_non_null(strstr(c[1].why, "not run"));
    free(c[0].out);
    free(c[1].out);
}

static void cannot_run(void **state)
{
    (void)state;
    const char *argv[] = { "/nonexistent/esxcli", "network", NULL };
    struct runcmd c;
    memset(&c, 0, sizeof c);
    c.argv = argv;
    assert_int_equal(runcmd_one(&c, 5, 4096, NULL), 0);
    assert_int_equal(c.code, -1);
    assert_non_null(strstr(c.why, "cannot run /nonexistent/esxcli"));
    free(c.out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(output_and_status),
        cmocka_unit_test(output_is_bounded),
        cmocka_unit_test(deadline_kills_the_group),
        cmocka_unit_test(exit_with_a_child_holding_the_output),
        cmocka_unit_test(stop_kills_and_says_so),
        cmocka_unit_test(stop_marks_the_unstarted),
        cmocka_unit_test(cannot_run),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
