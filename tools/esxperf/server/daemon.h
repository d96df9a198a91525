/* -D and -I: a server left running on a host, findable (its pid in a file,
 * pidfile.h) and stoppable (kill $(cat FILE) removes the file too): what the
 * server does with the stop signals (stop_signals.h takes them). daemon.c. */
#ifndef ESXPERF_DAEMON_H
#define ESXPERF_DAEMON_H
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>

#include "clock.h"
#include "pidfile.h"
#include "stop_signals.h"

/* -D: fork (the parent exits 0), new session, stdin on /dev/null, stdout and
 * stderr too unless keep_output (--logfile has them). Where fork is refused with
 * ENOSYS, argv (the command as started) is run again and detaches without a fork;
 * lfd, the listener, is closed for it first. 0 in the server that runs on, or -1
 * with one line in why */
int daemon_detach(int keep_output, char **argv, int lfd, char *why, size_t len);
/* a server stopped by SIGTERM, SIGINT or SIGHUP: the waiter thread writes the
 * signal's number into fd[1]; the server's loops poll fd[0], end a running test
 * with SERVER_TERMINATE and exit; one that has not done so STOP_GRACE_NS later
 * is ended by the waiter (SERVER_TERMINATE on ctl, the pid file removed, exit 0);
 * without threads signal handlers do the same, the grace timed by SIGALRM */
#define STOP_GRACE_NS (5 * NS_PER_SEC)  /* > SERVER_TERMINATE's 1 s send + 2 s drain */
struct stop_guard {
    int fd[2];
    const char *pidfile;            /* -I FILE, or NULL */
    _Atomic int ctl;                /* the open control connection, or -1 */
    int sig;                        /* the signal taken (stop_guard_signal), or 0 */
};
/* the signals held here and in every thread started later, the waiter started;
 * call before starting other threads (after daemon_detach). 0, or -1 with why */
int stop_guard_start(struct stop_guard *g, const char *pidfile, char *why, size_t len);
/* the signal that stops the server, 0 while none came (never blocks) */
int stop_guard_signal(struct stop_guard *g);
#endif
