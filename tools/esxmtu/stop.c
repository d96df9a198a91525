/* The stop signals: a flag the probe loop looks at (stop.h). */
#include "stop.h"

#include <signal.h>
#include <string.h>

static volatile sig_atomic_t caught;

static void on_stop(int sig)
{
    if (!caught)
        caught = sig;
}

void stop_watch(void)
{
    static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    /* no SA_RESTART: a poll() in progress returns EINTR and the loop sees the flag;
     * SA_RESETHAND: a second ^C is not held up by the report */
    sa.sa_flags = SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction old;
        /* a signal ignored from the start (nohup, a background job of a script) was
         * meant not to stop this process: it stays ignored */
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
            continue;
        sigaction(sigs[i], &sa, NULL);
    }
}

int stop_requested(void)
{
    return caught;
}

const char *stop_signal_name(void)
{
    switch (caught) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    default: return "";
    }
}
