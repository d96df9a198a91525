/* common/output.c: a run whose results could not be written ends with exit 2 and
 * one line naming where they should have gone. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "fail.h"
#include "output.h"

const char tool_name[] = "tool";

/* what output_done wrote to its error descriptor */
static int done_with(FILE *f, const char *where, int rc, char *msg, size_t len)
{
    int p[2];
    assert_int_equal(pipe(p), 0);
    int got = output_done(f, where, p[1], rc);
    close(p[1]);
    ssize_t n = read(p[0], msg, len - 1);
    close(p[0]);
    msg[n > 0 ? n : 0] = 0;
    return got;
}

static void a_full_device_is_a_system_error(void **state)
{
    (void)state;
    char msg[200];
    FILE *f = fopen("/dev/full", "w");
    assert_non_null(f);
    fputs("results\n", f);   /* still in the buffer: the flush finds ENOSPC */
    assert_int_equal(done_with(f, "stdout", EXIT_OKAY, msg, sizeof msg), EXIT_USAGE);
    assert_string_equal(msg, "tool: cannot write the results to stdout: No space left on device\n");
    fclose(f);
    /* a failure earlier in the run counts too, and a check failure (1) becomes 2;
     * the reason is the failing write's while errno still holds it */
    f = fopen("/dev/full", "w");
    setvbuf(f, NULL, _IONBF, 0);
    fputs("results\n", f);
    assert_int_equal(done_with(f, "/dev/full", EXIT_CHECK, msg, sizeof msg), EXIT_USAGE);
    assert_string_equal(msg, "tool: cannot write the results to /dev/full: No space left on device\n");
    /* ... and a generic one when something else has set errno since */
    errno = EAGAIN;
    assert_int_equal(done_with(f, "/dev/full", EXIT_OKAY, msg, sizeof msg), EXIT_USAGE);
    assert_string_equal(msg, "tool: cannot write the results to /dev/full: an earlier write failed\n");
    /* a name with control characters stays one line */
    assert_int_equal(done_with(f, "log\n\x1b[2J", EXIT_OKAY, msg, sizeof msg), EXIT_USAGE);
    assert_non_null(strstr(msg, "tool: cannot write the results to log\\x0a\\x1b[2J: "));
    fclose(f);
}

static void written_results_keep_the_exit_code(void **state)
{
    (void)state;
    char msg[200];
    FILE *f = tmpfile();
    assert_non_null(f);
    fputs("results\n", f);
    assert_int_equal(done_with(f, "stdout", EXIT_CHECK, msg, sizeof msg), EXIT_CHECK);
    assert_string_equal(msg, "");
    assert_int_equal(done_with(f, "stdout", EXIT_OKAY, msg, sizeof msg), EXIT_OKAY);
    fclose(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_full_device_is_a_system_error),
        cmocka_unit_test(written_results_keep_the_exit_code),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
