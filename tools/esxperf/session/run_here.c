/* A run with no stream thread (the host gives none): the session's own loop runs
 * the lone stream's steps and, between them, the session's turns (interval rows,
 * control messages, the end), so no turn waits on a busy socket and no step
 * blocks past a turn; iperf3's main loop calls its streams the same way. */
#include "session.h"
#include "drive.h"
#include "clock.h"
#include "fail.h"
#include "net.h"

#include <poll.h>
#include <stdio.h>

void session_no_threads(const struct session *s, int err, char *buf, size_t len)
{
    snprintf(buf, len, "cannot start the stream threads: %s (this host gives no thread: a "
             "test of one stream runs without, %s needs one per stream)", errtext(err),
             s->p.bidir ? "--bidir" : "-P");
}

/* the turns of a one-thread run (session_run_here) */
struct here_turns {
    int (*fn)(void *arg);
    void *arg;
    int watch_fd;
    uint64_t next_ns;            /* the next turn is due (mono ns) */
    int over;                    /* fn said -1 */
};

/* the session's turn when it is due, or now (force) */
static void here_turn(struct session *s, struct here_turns *t, int force)
{
    if (t->over || (!force && mono_ns() < t->next_ns))
        return;
    int ms = t->fn(t->arg);
    if (ms < 0) {
        t->over = 1;
        atomic_store(&s->sh.stop_send, 1);
        atomic_store(&s->sh.stop_recv, 1);
        return;
    }
    t->next_ns = mono_ns() + (uint64_t)(ms < TURN_MAX_MS ? ms : TURN_MAX_MS) * NS_PER_MS;
}

/* wait for EVENTS on fd (-1: none) until the next turn, or less when the control
 * connection turns readable, then give that turn */
static void here_wait(struct session *s, struct here_turns *t, int fd, short events)
{
    struct pollfd p[2] = { { fd, events, 0 }, { t->watch_fd, POLLIN, 0 } };
    int ms = ms_until(t->next_ns);
    /* poll passes over a negative fd: -1 for either waits on the other alone */
    (void)poll(p, 2, ms < 0 ? 0 : ms > TURN_MAX_MS ? TURN_MAX_MS : ms);
    here_turn(s, t, p[1].revents != 0);
}

void session_run_here(struct session *s, int (*turn)(void *), void *arg, int watch_fd)
{
    struct here_turns t = { turn, arg, watch_fd, mono_ns(), 0 };
    struct stream *st = &s->st[0];
    /* no step blocks past a turn: the socket is non-blocking and the waits are
     * this loop's poll() */
    st->poll_wait = 1;
    (void)net_set_nonblock(st->fd, 1);
    stream_path_add(st, "on the session's thread (no stream thread); ");
    drive_enter(st);
    for (;;) {
        here_turn(s, &t, 0);     /* every pass: no turn waits on a busy socket */
        int r = drive_step(st);
        if (r == STEP_DONE)
            break;
        if (r == STEP_WAIT && st->wait_events) {
            here_wait(s, &t, st->fd, st->wait_events);
        } else if (r == STEP_WAIT) {
            /* a sleep (-b's pacer, a nap) no further than the next turn */
            uint64_t now = mono_ns(), slice = (uint64_t)TURN_MAX_MS * NS_PER_MS;
            drive_sleep_until(st->wait_until - now > slice && st->wait_until > now
                                  ? now + slice : st->wait_until);
        }
    }
    drive_leave(st);
    /* the stream left before the test's end (its count sent, the peer closed, an
     * error): the turns go on until the session says the test is over */
    while (!t.over)
        here_wait(s, &t, -1, 0);
}
