/* SIGTERM, SIGINT, SIGHUP: the signals that stop esxperf, for the server (daemon.c's
 * stop guard) and the client (client_abort.c). stop_signals.c. */
#ifndef ESXPERF_STOP_SIGNALS_H
#define ESXPERF_STOP_SIGNALS_H
#include <signal.h>
#include <stddef.h>

/* the signals that stop esxperf (SIGTERM, SIGINT, SIGHUP) into set */
void stop_signals(sigset_t *set);
/* those held in this thread and every thread started later, and taken by
 * waiter(arg) on a thread of its own (one that sigwaits them); where no thread can
 * start (pthread_create fails: a host without clone), taken by handler(sig)
 * instead, which does only async-signal-safe work. Call before other threads
 * start. 0, or -1 with why naming role ("server", "client") */
int stop_waiter_start(void *(*waiter)(void *), void (*handler)(int), void *arg,
                      const char *role, char *why, size_t len);

#endif
