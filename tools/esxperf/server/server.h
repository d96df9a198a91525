/* The server role: one test at a time, ACCESS_DENIED to others, never wedged by a
 * client that disappears. */
#ifndef ESXPERF_SERVER_H
#define ESXPERF_SERVER_H
#include <stdint.h>

#include "options.h"
#include "progress.h"
#include "proto.h"

/* runs until killed (or one test with -1); returns the exit code */
int server_run(const struct perf_opts *o);

/* When the server ends a running test itself (pure; times in monotonic ns):
 * --server-max-duration (--max-duration) passed by MAX_DURATION_GRACE_S; a time test 60 s past its time + omit without TEST_END;
 * an -n/-k test in which no byte moved for 3 x --control-timeout, or that has
 * moved its count and gone on as long again as that took + 60 s without TEST_END
 * (a sending server's UDP goes on past the count until TEST_END: a UDP stream
 * whose client stopped listening would never stall). */
#define MAX_DURATION_GRACE_S 10     /* past --server-max-duration before SERVER_TERMINATE */
struct end_guard {
    uint64_t limit, cap;        /* 0 = none */
    uint64_t stall_ns;
    struct progress moved;      /* the bytes moved */
    int counted;                /* an -n/-k test */
    uint64_t count, start;      /* -n/-k in bytes (0 = none), and TEST_RUNNING */
};
void end_guard_init(struct end_guard *g, const struct perf_opts *o,
                    const struct test_params *p, uint64_t now);
/* NULL to go on, else why the test must end now; moved = bytes moved so far */
const char *end_guard_check(struct end_guard *g, uint64_t now, uint64_t moved);

/* What the server refuses at the parameters, as iperf3 does (pure):
 * --server-max-duration SEC and a test asking for more than SEC (-t plus -O) or
 * for no time at all (-n/-k): IE_MAXSERVERTESTDURATIONEXCEEDED; --server-bitrate-limit
 * and streams x -b (x 2 with --bidir) above it: IE_TOTALRATE; -F and a UDP
 * test: IE_UDPFILETRANSFER. Returns 0 to take
 * the test, else the iperf3 error code, with *why for the log. */
int server_params_refusal(const struct perf_opts *o, const struct test_params *p,
                          const char **why);

/* --server-bitrate-limit while a test runs (pure), as iperf3: the bytes all streams
 * moved, sampled every step (the server's -i, 1 s with -i 0); once a window of
 * samples (its /SEC, default 5 s) is full, their average is checked at each step. */
#define RATE_WINDOW_MAX 600         /* samples: 60 s of 0.1 s steps */
struct rate_guard {
    uint64_t limit;             /* bits/s, 0 = no limit */
    uint64_t step_ns, next;     /* sample period, next sample time */
    uint64_t last;              /* bytes moved at the last sample */
    uint64_t win[RATE_WINDOW_MAX];
    int n, count, at;           /* window size, samples taken, last slot */
    uint64_t bps;               /* the last average checked */
};
void rate_guard_init(struct rate_guard *g, const struct perf_opts *o, uint64_t now);
/* 1 when the average over the window passes the limit (g->bps holds it), else 0 */
int rate_guard_check(struct rate_guard *g, uint64_t now, uint64_t moved);

#endif
