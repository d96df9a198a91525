/* esxperf --rr on a data stream: the client's step sends a request of the test's
 * -l bytes and reads the answer of --rr-response bytes, one transaction in flight,
 * optionally paced (-b: transactions/s per stream); the server's step reads a
 * request whole and answers it. Each round trip (client) and each turnaround
 * (server: request read -> answer sent) goes into the stream's book, which the
 * session's thread reads at interval ticks and at the end under the stream's lock.
 * UDP: a request carries its sequence number in its first 8 bytes and the answer
 * echoes it; one unanswered within --rr-timeout is counted lost and the next goes
 * out (a late answer is counted, not taken). TCP: an answer that does not come
 * within --rr-timeout ends the stream with ETIMEDOUT (the server stopped
 * answering). TCP_NODELAY on both ends, TCP_QUICKACK where an ACK can be waited for
 * (rr_io.c); where the host refuses them the test runs and says so (fallback.h).
 * The steps follow stream.h's contract (drive.h calls them); rr_io.c. */
#ifndef ESXPERF_RR_IO_H
#define ESXPERF_RR_IO_H
#include <stddef.h>
#include <stdint.h>

#include "rr_hist.h"

#define RR_LEN_DEFAULT 64        /* -l with --rr: a small request */
#define RR_SEQ_BYTES 8           /* UDP: the sequence number at the start */
#define RR_LOAD_LEN (128 * 1024) /* --rr-load: the bulk streams' block (iperf3's TCP -l) */
/* --rr-load: the requests are paced, so that each phase's percentiles weigh its time:
 * back to back, the moments a queue happens to be empty would give most of the
 * transactions (a full queue gives one per queueing delay) */
#define RR_LOAD_RATE 200

struct stream;
struct test_params;

/* what the step keeps between calls (in struct stream's io union) */
struct rr_io {
    int begun;
    int asks;                    /* this side sends the requests (the client) */
    int quiet;                   /* --rr-load: its bytes are not the test's throughput */
    uint64_t load_ns;            /* --rr-load: the idle phase's length (the test's omit) */
    uint64_t load_at;            /* mono ns the loaded phase starts (0: no phases) */
    int phase;                   /* RR_IDLE, RR_SEND, RR_RECV */
    size_t out_len, in_len;      /* what this side sends and reads per transaction */
    size_t done;                 /* bytes of the message under way */
    uint64_t t0;                 /* request sent (client) or read (server) */
    uint64_t next;               /* paced: the next request's time (0: at once) */
    uint64_t period_ns;          /* paced: 1 s / rate; 0 back to back */
    uint64_t timeout_ns;         /* --rr-timeout */
    uint64_t seq;                /* UDP: the request's number */
    unsigned char *in, *out;     /* the buffers, in_len and out_len bytes */
};

/* what the session reads (under the stream's lock) */
struct rr_book {
    struct rr_hist all, iv;      /* the whole test (with --rr-load: its loaded phase),
                                  * and the interval under way */
    struct rr_hist idle;         /* --rr-load: the idle phase before the bulk streams */
    uint64_t lost, iv_lost;      /* UDP requests unanswered within --rr-timeout */
    uint64_t late;               /* answers that came after their request was lost */
    uint64_t started, stalled;   /* TCP: a request unanswered past --rr-timeout */
};

/* the book and buffers of an --rr stream (session_add), asks: the client's;
 * 0 or -1 with errno */
int rr_stream_init(struct stream *s, const struct test_params *p, int64_t timeout_ms, int asks);
void rr_stream_free(struct stream *s);
/* the steps: the client's (it sends the requests) and the server's */
int rr_client_step(struct stream *s);
int rr_server_step(struct stream *s);

/* the interval's figures of one book, moved on (the session's thread): the
 * interval histogram is merged into into (if not NULL) and reset */
struct rr_figs {
    int on;                      /* an --rr stream (with --rr-load the others are bulk) */
    uint64_t n, lost;
    uint64_t p50, p99;           /* ns */
};
void rr_book_interval(struct stream *s, struct rr_hist *into, struct rr_figs *f);
/* the whole test's histogram merged into into, lost and late added (after the join);
 * idle (if not NULL): the idle phase's of --rr-load */
void rr_book_total(struct stream *s, struct rr_hist *into, struct rr_hist *idle, uint64_t *lost,
                   uint64_t *late);

#endif
