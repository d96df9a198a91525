/* The client role: connect, send parameters, open streams, run, exchange results. */
#ifndef ESXPERF_CLIENT_H
#define ESXPERF_CLIENT_H
#include "options.h"
#include "session.h"

/* returns the exit code (0 ok, 1 test failed, 2 usage/system error); rr may be NULL */
int client_run(const struct perf_opts *o, struct run_result *rr);
/* client_params.c: the parameters this client sends (used by client_run and unit
 * tests); ctl_mss sizes UDP datagrams when -l is not given */
void client_params(const struct perf_opts *o, int ctl_mss, struct test_params *p);
/* with --username and --rsa-public-key-path, the authtoken (base64 ciphertext)
 * into out, made before connecting (a password prompt must not keep the server
 * waiting); 0 (out "" without them), or -1 after printing why */
int client_authtoken(const struct perf_opts *o, char *out, size_t outcap);
/* UDP -b whose whole datagrams cannot land near the rate in the test: one warning */
void client_warn_pace(const struct test_params *p);

#endif
