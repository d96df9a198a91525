/* A client's test that ends short: the one failure line (cfail, client_fail_line:
 * stderr, -J's "error", a sweep's record), or SIGINT, SIGTERM or SIGHUP (^C, kill,
 * a dropped SSH session) in any phase, as iperf3's client catches them: while it
 * connects, during the handshake, the test or the wait for the results. The
 * signals are held in every thread and taken by a waiter, which notes the signal
 * and shuts the read side of the control connection and of a connect in progress:
 * (or, where no thread can start, a signal handler that does the same),
 * every wait of the client is on one of those, so it ends at once, and the client
 * ends the test itself (client_interrupted): CLIENT_TERMINATE to the server (the
 * write side still works), the summary of what it measured, the line (and "error"
 * in -J), exit 1. What waits on nothing the waiter can shut (a name lookup, a
 * password prompt, joining the stream threads) is bounded, and the stop is acted
 * on after it. */
#include "client.h"
#include "client_conn.h"
#include "clock.h"
#include "fail.h"
#include "stop_signals.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/socket.h>

static void shut_watched(struct client_stop *cs)
{
    for (int i = 0; i < STOP_NFD; i++) {
        int fd = atomic_load(&cs->fd[i]);
        if (fd >= 0)
            shutdown(fd, SHUT_RD);
    }
}

/* the first signal is the stop; later ones find it taken (async-signal-safe: the
 * handler below does this too) */
static void stop_take(struct client_stop *cs, int sig)
{
    int none = 0;
    atomic_compare_exchange_strong(&cs->sig, &none, sig);
    shut_watched(cs);
}

static void *stop_wait(void *arg)
{
    struct client_stop *cs = arg;
    sigset_t set;
    stop_signals(&set);
    for (;;) {
        int sig = 0;
        if (sigwait(&set, &sig) == 0)
            stop_take(cs, sig);
    }
    return NULL;
}

/* without a waiter thread: the one client's stop, taken by a handler */
static struct client_stop *handled_stop;

static void stop_handled(int sig)
{
    stop_take(handled_stop, sig);
}

struct client_stop *client_stop_start(char *why, size_t len)
{
    struct client_stop *cs = xcalloc(1, sizeof *cs);
    atomic_init(&cs->sig, 0);
    for (int i = 0; i < STOP_NFD; i++)
        atomic_init(&cs->fd[i], -1);
    handled_stop = cs;
    return stop_waiter_start(stop_wait, stop_handled, cs, "client", why, len) < 0 ? NULL : cs;
}

void client_stop_watch(struct client_stop *cs, int slot, int fd)
{
    if (!cs)
        return;
    atomic_store(&cs->fd[slot], fd);
    /* a signal taken before the store: its waiter may not have seen fd */
    if (fd >= 0 && atomic_load(&cs->sig))
        shutdown(fd, SHUT_RD);
}

int client_stop_signal(struct client_stop *cs)
{
    return cs ? atomic_load(&cs->sig) : 0;
}

int client_interrupted(struct client *c)
{
    int sig = client_stop_signal(c->stop);
    int told = c->ctl >= 0 &&
               ctl_send_state(c->ctl, ST_CLIENT_TERMINATE, mono_ns() + NS_PER_SEC) == 0;
    /* what this side measured, once the test ran (its end is the stop) */
    if (c->have_session && c->s.t_start && !c->summarized) {
        session_summary_so_far(&c->s);
        c->summarized = 1;
    }
    char msg[160];
    snprintf(msg, sizeof msg, "interrupted (%s): the client has terminated%s",
             signal_name(sig), told ? "; the server was told" : "");
    return client_fail_line(c, EXIT_CHECK, msg);
}

int client_fail_line(struct client *c, int code, const char *msg)
{
    c->rep.sink->failure(&c->rep, msg);
    warnmsg("%s", msg);
    if (c->err)
        snprintf(c->err, c->errlen, "%s", msg);
    return code;
}

int cfail(struct client *c, int code, const char *fmt, ...)
{
    /* a wait the stop signal cut short fails with whatever it found: the stop is
     * the reason */
    if (client_stop_signal(c->stop))
        return client_interrupted(c);
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return client_fail_line(c, code, msg);
}
