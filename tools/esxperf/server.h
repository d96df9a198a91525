/* The server role: one test at a time, ACCESS_DENIED to others, never wedged by a
 * client that disappears. */
#ifndef ESXPERF_SERVER_H
#define ESXPERF_SERVER_H
#include "options.h"

/* runs until killed (or one test with -1); returns the exit code */
int server_run(const struct perf_opts *o);

#endif
