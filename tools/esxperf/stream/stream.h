/* Data streams: socket setup, one thread per stream running a send or receive
 * loop (TCP and UDP), shared stop flags and -n/-k budgets, TCP_INFO sampling.
 * The main thread only reads the atomic counters; it never touches data sockets
 * except through stream_tcp_info(). Where no thread can start, a test's one
 * stream runs its loop on the session's own thread and hands it turns
 * (struct stream_turn). */
#ifndef ESXPERF_STREAM_H
#define ESXPERF_STREAM_H
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "batch.h"
#include "proto.h"
#include "udp.h"

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
/* comma-separated names -> ENG_* bits; unknown names are ignored */
unsigned stream_engine_off(const char *list);

/* A test whose one stream runs on the session's thread (session_run_here, where
 * no thread can start): the stream's loop gives the session a turn when one is
 * due, and at once when watch_fd (the control connection, or -1) turns readable
 * while the loop waits on its socket. fn returns the milliseconds until it wants
 * the next turn (at most TURN_MAX_MS are waited), or -1: the test is over for
 * this stream, which then stops (both stop flags set) and takes no more turns. */
#define TURN_MAX_MS 10
struct stream_turn {
    int (*fn)(void *arg);
    void *arg;
    int watch_fd;
    uint64_t next_ns;            /* the next turn is due (mono ns) */
    int over;                    /* fn said -1 */
};

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
    struct stream_turn *turn;    /* the one-thread run's turns, NULL with threads */
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
    char path[224];              /* the I/O path that ran (for -V and JSON); written
                                  * by the stream thread, read after the join */
    struct stream_shared *sh;

    atomic_ullong bytes;         /* payload bytes moved */
    atomic_ullong blocks;        /* datagrams or send()/recv() that moved data */
    atomic_ullong calls;         /* I/O system calls made */
    atomic_int done;             /* loop left */
    atomic_int eof;              /* peer closed (TCP) */
    atomic_int err;              /* errno that ended the loop, 0 if none */

    pthread_mutex_t lock;        /* guards rx */
    struct udp_rx rx;

    pthread_t thr;
    int started;
};

/* socket options from the test parameters; family is the IP version on the wire
 * (net_wire_family: IPv4 for a v4-mapped peer), which picks IP_TOS or IPV6_TCLASS;
 * returns 0 or -1 with a static reason */
int stream_sockopts(int fd, const struct test_params *p, int family, const char **why);
/* the longest a loop's send or receive blocks before it looks at the stop flags */
#define LOOP_TIMEOUT_MS 100

/* what esxperf does where a buffer size cannot be read back (getsockopt refused):
 * one text per option, whichever reader notes it first */
#define SNDBUF_UNREAD "the send buffer's size is not reported"
#define RCVBUF_UNREAD "the receive buffer's size is not reported; TCP reads without SO_RCVLOWAT"
/* SO_SNDTIMEO/SO_RCVTIMEO so the loops notice the stop flags; a host that refuses
 * them gets a non-blocking socket and the loops poll() (stream_io_wait) instead,
 * so no loop can block past a stop. 0, or -1 when the socket could not be set */
int stream_set_timeouts(struct stream *s, int ms);
/* after EAGAIN on a socket without timeouts: wait up to LOOP_TIMEOUT_MS for EVENTS
 * (in a one-thread run until the next turn, which it then gives) */
void stream_io_wait(struct stream *s, short events);

/* prepare (buffers, -Z file) and start the thread; 0 or -1 with errno */
int stream_init(struct stream *s, int id, int fd, int sender, const struct test_params *p,
                struct stream_shared *sh);
int stream_start(struct stream *s);
/* the stream's loop on the calling thread (a one-thread run: sh->turn set), as its
 * thread would run it; returns when the loop leaves */
void stream_run_here(struct stream *s);
/* a one-thread run: the session's turn when it is due, or now (force) */
void stream_turn_take(struct stream_shared *sh, int force);
/* a one-thread run: wait for EVENTS on fd (-1: none) until the next turn, or less
 * when the control connection turns readable, then give that turn */
void stream_turn_wait(struct stream_shared *sh, int fd, short events);
/* -F NAME: the sender sends the file's bytes, the receiver writes what arrives to
 * it (created or truncated, mode 600), as iperf3 -F does; 0 or -1 with errno */
int stream_file_open(struct stream *s, const char *path);
/* file_opt.c: -F's file is a regular one (a FIFO, device, socket or directory is
 * refused, never waited on). file_opt_check before connecting or listening:
 * sender 1 (this side sends: it must exist and open) or 0 (it receives, or a
 * server, which may do either: absent is fine); 0, or -1 with one line in why.
 * file_opt_open: fd (blocking; the receiver's truncated), or -1 with errno
 * (EINVAL: not a regular file) */
int file_opt_check(const char *path, int sender, char *why, size_t len);
int file_opt_open(const char *path, int sender);
void stream_join(struct stream *s);
void stream_free(struct stream *s);

/* the loops (thread bodies): exposed for the speed work and for tests */
void stream_tcp_send(struct stream *s);
void stream_tcp_recv(struct stream *s);
void stream_udp_send(struct stream *s);
void stream_udp_recv(struct stream *s);
/* a UDP receiver that reads each datagram's header only (--skip-rx-copy, not
 * turned off): it never receives with GRO (batch.c udp_rxb_init_heads) */
int stream_udp_heads(const struct stream *s);

/* copy of the UDP receive statistics */
void stream_rx_snapshot(struct stream *s, struct udp_rx *out);

/* TCP_INFO: 0 and fields, or -1 when the kernel has none (ESXi: ENOSYS) */
struct tcp_sample {
    int64_t retrans;     /* total retransmits so far */
    int64_t cwnd;        /* bytes */
    int64_t rtt, rttvar; /* microseconds */
    int64_t pmtu;
    int64_t snd_wnd;     /* bytes the peer's window lets out; -1: kernel before 5.4 */
    int64_t reorder;     /* reordering events seen so far; -1: kernel before 4.19 */
    int64_t min_rtt;     /* the smallest RTT seen, microseconds; -1: kernel before 4.6 */
};
int stream_tcp_info(int fd, struct tcp_sample *t);
/* bytes this TCP socket has sent that the peer has not acknowledged yet (they
 * may still be lost to the peer's count), or -1 where the host cannot tell */
long long stream_tcp_unacked(int fd);
/* congestion control in use, "" when unknown */
void stream_congestion(int fd, char *buf, size_t len);
/* -C ALGO before the test: 0 when this host's TCP takes it, else -1 and one line
 * in why (unknown name, not allowed, no TCP_CONGESTION) with the names it has */
int stream_congestion_check(const char *algo, char *why, size_t len);

#endif
