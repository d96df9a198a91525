/* The client role: connect, send parameters, open streams, run, exchange results. */
#ifndef ESXPERF_CLIENT_H
#define ESXPERF_CLIENT_H
#include "options.h"
#include "session.h"

/* returns the exit code (0 ok, 1 test failed, 2 usage/system error); rr may be NULL */
int client_run(const struct perf_opts *o, struct run_result *rr);
/* the parameters this client would send (used by client_run and unit tests) */
void client_params(const struct perf_opts *o, int ctl_mss, struct test_params *p);

#endif
