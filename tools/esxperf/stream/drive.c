/* The thread per stream and what every driver shares (drive.h): the choice of
 * step, the -A pin, the count of running senders, and the thread's waits. */
#include "drive.h"
#include "fail.h"
#include "pace.h"
#include "rr_io.h"
#include "tcp_io.h"
#include "udp_io.h"

#include <errno.h>
#include <poll.h>
#include <sched.h>

#define SLEEP_MAX_NS (50 * NS_PER_MS)  /* sleeps in slices so a stop is seen */

/* -A: pin the calling thread; says so in the path text */
static void pin_thread(struct stream *s)
{
    if (s->cpu < 0)
        return;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(s->cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) == 0)
        stream_path_add(s, "pinned to CPU %d; ", s->cpu);
    else
        stream_path_add(s, "not pinned (CPU %d: %s); ", s->cpu, errtext(errno));
}

/* the stream's first moments on the thread that runs it: its -A pin, and the
 * verdict's evidence from here (stream_evidence.h) unless ESXPERF_ENGINE_OFF names
 * evidence (the benchmark of its cost) */
static void thread_begin(struct stream *s)
{
    pin_thread(s);
    if (!(s->eng_off & ENG_EVIDENCE))
        stream_evidence_begin(s);
}

/* the step of the stream's kind */
static int (*step_of(const struct stream *s))(struct stream *)
{
    if (s->rrb)      /* --rr: the client asks, the server answers */
        return s->io.rr.asks ? rr_client_step : rr_server_step;
    if (s->sender)
        return s->udp ? udp_send_step : tcp_send_step;
    return s->udp ? udp_recv_step : tcp_recv_step;
}

int drive_step(struct stream *s)
{
    return step_of(s)(s);
}

void drive_sleep_until(uint64_t abs_ns)
{
    pace_sleep_until(abs_ns);
}

void drive_enter(struct stream *s)
{
    if (s->sender)
        atomic_fetch_add(&s->sh->senders_running, 1);
    thread_begin(s);
}

void drive_leave(struct stream *s)
{
    if (!(s->eng_off & ENG_EVIDENCE))
        stream_evidence_end(s);
    if (s->sender)
        atomic_fetch_sub(&s->sh->senders_running, 1);
    atomic_store(&s->done, 1);
}

/* a thread's wait for what the step asked: the socket, no longer than
 * LOOP_TIMEOUT_MS (only without socket timeouts: with them the call has
 * waited), or a sleep to wait_until in slices, left early on the stream's stop */
static void thread_wait(struct stream *s)
{
    if (s->wait_events) {
        if (s->poll_wait) {
            struct pollfd p = { s->fd, s->wait_events, 0 };
            (void)poll(&p, 1, LOOP_TIMEOUT_MS);   /* ready, timed out or interrupted: the step looks */
        }
        return;
    }
    atomic_int *stop = s->sender ? &s->sh->stop_send : &s->sh->stop_recv;
    for (;;) {
        if (atomic_load_explicit(stop, memory_order_relaxed))
            return;
        uint64_t now = mono_ns();
        if (now >= s->wait_until)
            return;
        pace_sleep_until(s->wait_until - now > SLEEP_MAX_NS ? now + SLEEP_MAX_NS : s->wait_until);
    }
}

/* the steps to the end on this thread; drive_enter has run */
static void thread_steps(struct stream *s)
{
    int (*step)(struct stream *) = step_of(s);
    int r;
    while ((r = step(s)) != STEP_DONE)
        if (r == STEP_WAIT)
            thread_wait(s);
}

/* --rr-load: a bulk sender waits out the idle phase (hold_until), or the stop */
static void thread_hold(struct stream *s)
{
    while (s->hold_until && !atomic_load(&s->sh->stop_send) && !atomic_load(&s->sh->stop_recv)) {
        uint64_t now = mono_ns();
        if (now >= s->hold_until)
            return;
        pace_sleep_until(s->hold_until - now > SLEEP_MAX_NS ? now + SLEEP_MAX_NS : s->hold_until);
    }
}

static void *thread_main(void *arg)
{
    struct stream *s = arg;
    thread_begin(s);
    thread_hold(s);
    thread_steps(s);
    drive_leave(s);
    return NULL;
}

void drive_run(struct stream *s)
{
    drive_enter(s);
    thread_steps(s);
    drive_leave(s);
}

int drive_start(struct stream *s)
{
    /* counted before the thread runs, so the session never sees none running */
    if (s->sender)
        atomic_fetch_add(&s->sh->senders_running, 1);
    int rc = pthread_create(&s->thr, NULL, thread_main, s);
    if (rc) {
        if (s->sender)
            atomic_fetch_sub(&s->sh->senders_running, 1);
        errno = rc;
        return -1;
    }
    s->started = 1;
    return 0;
}
