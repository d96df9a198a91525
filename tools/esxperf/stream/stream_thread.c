/* A data stream's thread: started (counted among the running senders), pinned to
 * its -A CPU, running the loop of its kind (stream_tcp.c, stream_udp.c), joined;
 * and the stream freed once its thread is gone. Where no thread can start, the
 * same loop runs on the session's thread (stream_run_here) and gives the session
 * its turns (stream_turn_take). */
#include "stream_loop.h"
#include "fail.h"

#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

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

/* the loop of the stream's kind; the caller counted a sender among the running */
static void stream_loop(struct stream *s)
{
    pin_thread(s);
    if (s->sender) {
        if (s->udp)
            stream_udp_send(s);
        else
            stream_tcp_send(s);
        atomic_fetch_sub(&s->sh->senders_running, 1);
    } else {
        if (s->udp)
            stream_udp_recv(s);
        else
            stream_tcp_recv(s);
    }
    atomic_store(&s->done, 1);
}

static void *stream_main(void *arg)
{
    stream_loop(arg);
    return NULL;
}

void stream_run_here(struct stream *s)
{
    stream_path_add(s, "on the session's thread (no stream thread); ");
    if (s->sender)
        atomic_fetch_add(&s->sh->senders_running, 1);
    stream_loop(s);
}

void stream_turn_wait(struct stream_shared *sh, int fd, short events)
{
    struct stream_turn *t = sh->turn;
    struct pollfd p[2] = { { fd, events, 0 }, { t->watch_fd, POLLIN, 0 } };
    int ms = ms_until(t->next_ns);
    /* poll passes over a negative fd: -1 for either waits on the other alone */
    (void)poll(p, 2, ms < 0 ? 0 : ms > TURN_MAX_MS ? TURN_MAX_MS : ms);
    stream_turn_take(sh, p[1].revents != 0);
}

void stream_turn_take(struct stream_shared *sh, int force)
{
    struct stream_turn *t = sh->turn;
    if (!t || t->over || (!force && mono_ns() < t->next_ns))
        return;
    int ms = t->fn(t->arg);
    if (ms < 0) {
        t->over = 1;
        atomic_store(&sh->stop_send, 1);
        atomic_store(&sh->stop_recv, 1);
        return;
    }
    t->next_ns = mono_ns() + (uint64_t)(ms < TURN_MAX_MS ? ms : TURN_MAX_MS) * NS_PER_MS;
}

int stream_start(struct stream *s)
{
    if (s->sender)
        atomic_fetch_add(&s->sh->senders_running, 1);
    int rc = pthread_create(&s->thr, NULL, stream_main, s);
    if (rc) {
        if (s->sender)
            atomic_fetch_sub(&s->sh->senders_running, 1);
        errno = rc;
        return -1;
    }
    s->started = 1;
    return 0;
}

void stream_join(struct stream *s)
{
    if (s->started) {
        pthread_join(s->thr, NULL);
        s->started = 0;
    }
}

void stream_free(struct stream *s)
{
    stream_join(s);
    if (s->fd >= 0)
        close(s->fd);
    if (s->zfd >= 0)
        close(s->zfd);
    if (s->file_fd >= 0)
        close(s->file_fd);
    s->fd = s->zfd = s->file_fd = -1;
    free(s->buf);
    s->buf = NULL;
    pthread_mutex_destroy(&s->lock);
}
