/* The server role: one test at a time, ACCESS_DENIED to others, never wedged by a
 * client that disappears. */
#ifndef ESXPERF_SERVER_H
#define ESXPERF_SERVER_H
#include <stdint.h>

#include "options.h"
#include "proto.h"

/* runs until killed (or one test with -1); returns the exit code */
int server_run(const struct perf_opts *o);

/* When the server ends a running test itself (pure; times in monotonic ns):
 * --max-duration reached; a time test 60 s past its time + omit without TEST_END;
 * an -n/-k test in which no byte moved for 3 x --control-timeout. */
struct end_guard {
    uint64_t limit, cap;        /* 0 = none */
    uint64_t stall_ns;
    uint64_t moved, moved_at;   /* byte count last seen changing, and when */
    int counted;                /* an -n/-k test */
};
void end_guard_init(struct end_guard *g, const struct perf_opts *o,
                    const struct test_params *p, uint64_t now);
/* NULL to go on, else why the test must end now; moved = bytes moved so far */
const char *end_guard_check(struct end_guard *g, uint64_t now, uint64_t moved);

#endif
