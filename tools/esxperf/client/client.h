/* The client role: connect, send parameters, open streams, run, exchange results. */
#ifndef ESXPERF_CLIENT_H
#define ESXPERF_CLIENT_H
#include <stdatomic.h>
#include <stddef.h>

#include "options.h"
#include "session.h"

/* SIGINT, SIGTERM and SIGHUP on a client, in every phase (client_abort.c): held in
 * every thread and taken by a waiter thread, which notes the signal and shuts the
 * read side of what the client waits on (the control connection, a connect in
 * progress), so that the wait ends at once and the client ends the test itself */
enum { STOP_CTL, STOP_DIAL, STOP_NFD };
struct client_stop {
    _Atomic int sig;                /* the signal taken, 0 while none came */
    _Atomic int fd[STOP_NFD];       /* what the client waits on, -1 for none */
};
/* call before any other thread starts: the signals held, the waiter started; the
 * guard lives as long as the process. NULL with one line in why when it cannot */
struct client_stop *client_stop_start(char *why, size_t len);
/* slot's descriptor (-1: none): a signal already taken shuts its read side at once */
void client_stop_watch(struct client_stop *cs, int slot, int fd);
/* the signal taken, 0 while none came (cs NULL: 0) */
int client_stop_signal(struct client_stop *cs);

/* one test; returns the exit code (0 ok, 1 test failed, 2 usage/system error).
 * stop may be NULL; rr (the figures) may be NULL; err (errlen bytes) gets the
 * failure line, "" after a success, unless NULL */
int client_run(const struct perf_opts *o, struct client_stop *stop, struct run_result *rr,
               char *err, size_t errlen);
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
