/* A data stream's thread: started (counted among the running senders), pinned to
 * its -A CPU, running the loop of its kind (stream_tcp.c, stream_udp.c), joined;
 * and the stream freed once its thread is gone. */
#include "stream_loop.h"
#include "fail.h"

#include <errno.h>
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

static void *stream_main(void *arg)
{
    struct stream *s = arg;
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
    return NULL;
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
