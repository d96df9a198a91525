/* A data stream: what it is (its socket, buffers, -Z and -F files, counters,
 * the stop flags and -n/-k budgets its test shares), its life (made, its thread
 * joined, freed), and the contract of its steps. A stream moves data in steps
 * (tcp_io.h, udp_io.h): each does one batch and returns what it needs next; a
 * driver calls them (drive.h: a thread per stream; or the session's own loop in
 * a one-thread run) and does all the waiting. The session's thread only reads
 * the atomic counters; it never touches data sockets except through the kernel
 * reads of tcp_query.h. Implemented by stream.c alone. */
#ifndef ESXPERF_STREAM_H
#define ESXPERF_STREAM_H
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "clock.h"
#include "proto.h"
#include "rr_io.h"
#include "stream_evidence.h"
#include "tcp_io.h"
#include "udp.h"
#include "udp_io.h"

/* techniques ESXPERF_ENGINE_OFF turns off, e.g. ESXPERF_ENGINE_OFF=gso,mmsg (for
 * the tests of each fallback, and as a way out when one misbehaves on a host) */
#define ENG_MMSG     0x01u    /* sendmmsg/recvmmsg */
#define ENG_GSO      0x02u    /* UDP_SEGMENT */
#define ENG_GRO      0x04u    /* UDP_GRO */
#define ENG_LOWAT    0x08u    /* TCP receive SO_RCVLOWAT */
#define ENG_TRUNC    0x10u    /* --skip-rx-copy MSG_TRUNC */
#define ENG_SENDFILE 0x20u    /* -Z sendfile */
#define ENG_RCVBUF   0x40u    /* larger UDP receive buffer */
#define ENG_PKTINFO  0x80u    /* UDP server: answer from the hello's destination */
#define ENG_SNDBUF   0x100u   /* TCP send buffer held at several streams (tcp_sndbuf.h) */
#define ENG_THREADS  0x200u   /* a thread per stream: a lone stream runs on the session's */
#define ENG_EVIDENCE 0x400u   /* the verdict's per-stream evidence (stream_evidence.h), for
                               * the benchmark of its cost; by name only, like threads */
#define ENG_MSGZC    0x800u   /* -Z as send(MSG_ZEROCOPY): off, sendfile instead */
/* comma-separated names -> ENG_* bits; unknown names are ignored */
unsigned stream_engine_off(const char *list);

/* state shared by all streams of one test */
struct stream_shared {
    atomic_int stop_send;        /* senders leave their loop */
    atomic_int stop_recv;        /* receivers drain what is queued and leave */
    atomic_llong budget_bytes;   /* -n: bytes left to send (shared by all senders) */
    atomic_llong budget_blocks;  /* -k: blocks left to send */
    int has_budget_bytes, has_budget_blocks;
    /* -b's reference: TEST_RUNNING, moved to the end of -O as iperf3 does (the
     * omitted second must not leave a debt the measured ones pay back in a burst) */
    atomic_ullong pace_from_ns;
    atomic_int senders_running;
};

struct stream {
    int id;                      /* 1, 3, 4, 5, ... */
    int fd;
    int udp, sender;
    int counters64, skip_rx_copy;
    int zfd;                     /* -Z: file to sendfile() from, or -1 */
    int file_fd;                 /* -F: the file sent from (sender) or written to, or -1 */
    size_t file_at, file_have;   /* -F sender: buf[file_at..file_have) read, not yet sent */
    int file_eof;                /* -F sender: the file is all sent */
    size_t blksize;
    size_t wsize;                /* TCP send: bytes per call (whole blocks) */
    unsigned char *buf;
    size_t bufsize;
    uint64_t rate_bps;           /* per stream; 0 = unpaced */
    int64_t burst;
    uint64_t pacing_ns;          /* sleep granularity (iperf3's pacing_timer) */
    int64_t window;              /* -w, 0 = kernel autotuning */
    int lowat_max;               /* TCP receive: the largest SO_RCVLOWAT (tcp_lowat_cap) */
    int64_t hold_streams;        /* TCP send: the streams sending with this one, when its
                                  * buffer may be held (tcp_sndbuf.h); 0 = never */
    unsigned eng_off;            /* ENG_* bits turned off */
    int poll_wait;               /* no socket timeouts: non-blocking, poll() on EAGAIN */
    int cpu;                     /* -A: CPU to pin this thread to, -1 = none */
    short wait_events;           /* STEP_WAIT: POLLIN or POLLOUT on fd, or 0: */
    uint64_t wait_until;         /* STEP_WAIT: ... a sleep to this mono ns */
    uint64_t hold_until;         /* --rr-load: a bulk sender starts at this mono ns (0: at once) */
    union {                      /* what the stream's steps keep between calls */
        struct tcp_io tcp;
        struct udp_io udp;
        struct rr_io rr;         /* --rr (rr_io.h) */
    } io;
    struct rr_book *rrb;         /* --rr: its round trips (rr_io.h), else NULL */
    char path[224];              /* the I/O path that ran (for -V and JSON); written
                                  * by the stream thread, read after the join */
    struct stream_shared *sh;

    atomic_ullong bytes;         /* payload bytes moved */
    atomic_ullong blocks;        /* datagrams or send()/recv() that moved data */
    atomic_ullong calls;         /* I/O system calls made */
    atomic_int done;             /* loop left */
    atomic_int eof;              /* peer closed (TCP) */
    atomic_int err;              /* errno that ended the loop, 0 if none */

    struct stream_evidence ev;   /* for the verdict: written by the stream's thread
                                  * when its loop starts and leaves, read after the join */

    pthread_mutex_t lock;        /* guards rx */
    struct udp_rx rx;

    pthread_t thr;
    int started;
};

/* what a step (tcp_io.h, udp_io.h) asks of its driver */
enum step {
    STEP_ON,       /* call it again */
    STEP_WAIT,     /* wait for wait_events on the socket (only when poll_wait: a socket
                    * with timeouts has already waited in its call), or sleep until
                    * wait_until (-b's pacer, a receiver's nap), then call it again */
    STEP_DONE,     /* the stream's loop is over: call it no more */
};
/* the step asks for a wait: on the socket for EVENTS, or (events 0) until UNTIL */
static inline int stream_wait(struct stream *s, short events, uint64_t until)
{
    s->wait_events = events;
    s->wait_until = until;
    return STEP_WAIT;
}

/* the longest a step's send or receive blocks, or a driver waits on the socket,
 * before the stop flags are looked at */
#define LOOP_TIMEOUT_MS 100
/* bound on reading what is queued after stop */
#define DRAIN_MAX_NS (1000 * NS_PER_MS)

/* what esxperf does where a buffer size cannot be read back (getsockopt refused):
 * one text per option, whichever reader notes it first */
#define SNDBUF_UNREAD "the send buffer's size is not reported"
#define RCVBUF_UNREAD "the receive buffer's size is not reported; TCP reads without SO_RCVLOWAT"

/* prepare (buffers, -Z file, the loop timeouts); 0 or -1 with errno. The socket
 * gets SO_SNDTIMEO/SO_RCVTIMEO so the steps notice the stop flags; a host that
 * refuses them gets a non-blocking socket (poll_wait) and the driver poll()s */
int stream_init(struct stream *s, int id, int fd, int sender, const struct test_params *p,
                struct stream_shared *sh);
/* -F NAME: the sender sends the file's bytes, the receiver writes what arrives to
 * it (created or truncated, mode 600), as iperf3 -F does; 0 or -1 with errno */
int stream_file_open(struct stream *s, const char *path);
/* append to the stream's I/O path text (-V, JSON "engine") */
void stream_path_add(struct stream *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* the stream's thread (drive.h drive_start), if it has one, joined */
void stream_join(struct stream *s);
void stream_free(struct stream *s);

/* copy of the UDP receive statistics */
void stream_rx_snapshot(struct stream *s, struct udp_rx *out);

#endif
