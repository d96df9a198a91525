/* The stop signals: a flag the probe loop looks at (stop.h). */
#include "stop.h"

#include <signal.h>
#include <string.h>

static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
static volatile sig_atomic_t caught;
static int watched[3];              /* which of sigs[] on_stop holds */

/* the first stop signal is noted; the three go back to their default at once, so
 * another one of them ends the process without waiting for the report */
static void on_stop(int sig)
{
    if (!caught)
        caught = sig;
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        if (watched[i])
            sigaction(sigs[i], &dfl, NULL);     /* async-signal-safe */
}

void stop_watch(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    /* no SA_RESTART: a poll() in progress returns EINTR and the loop sees the flag;
     * the three are blocked while on_stop runs, so it runs once */
    sa.sa_flags = 0;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        sigaddset(&sa.sa_mask, sigs[i]);
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction old;
        /* a signal ignored from the start (nohup, a background job of a script) was
         * meant not to stop this process: it stays ignored */
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
            continue;
        watched[i] = sigaction(sigs[i], &sa, NULL) == 0;
    }
}

int stop_requested(void)
{
    return caught;
}
