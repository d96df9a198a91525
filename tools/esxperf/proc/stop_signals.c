/* The signals that stop esxperf, client or server: held in every thread and taken by
 * a waiter thread of the role's, or by the role's handler where no thread starts. */
#include "stop_signals.h"
#include "fail.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>

void stop_signals(sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, SIGTERM);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGHUP);
}

int stop_waiter_start(void *(*waiter)(void *), void (*handler)(int), void *arg,
                      const char *role, char *why, size_t len)
{
    sigset_t set;
    stop_signals(&set);
    /* taken even where the shell left them ignored (a background job's SIGINT,
     * nohup's SIGHUP), as iperf3 installs its handler over those; POSIX leaves it
     * open whether an ignored signal that is blocked stays pending */
    /* held (first, so that none kills us meanwhile) in this thread and every
     * thread started after it: only the waiter takes them */
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    pthread_t t;
    int rc = pthread_create(&t, NULL, waiter, arg);
    if (rc == 0) {
        pthread_detach(t);
        return 0;
    }
    /* no thread: handler takes them, in whichever thread they interrupt (SA_RESTART:
     * the blocking calls it does not mean to end go on; the loops poll its pipe or
     * the connections it shuts) */
    struct sigaction sa = { .sa_handler = handler, .sa_flags = SA_RESTART };
    sa.sa_mask = set;
    if (sigaction(SIGTERM, &sa, NULL) < 0 || sigaction(SIGINT, &sa, NULL) < 0 ||
        sigaction(SIGHUP, &sa, NULL) < 0)
        return why_fmt(why, len, "cannot start the %s's signal thread (%s) nor take the "
                       "signals by handler: %s", role, errtext(rc), errtext(errno));
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
    return 0;
}
