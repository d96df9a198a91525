/* The TCP steps of a data stream, each one write or one read and its counting,
 * called by a driver (drive.h) until STEP_DONE (stream.h enum step). Send:
 * send(), -Z sendfile or MSG_ZEROCOPY, -F's file, paced writes, -n/-k budgets,
 * the send buffer held at several streams. Receive: SO_RCVLOWAT, MSG_TRUNC for
 * --skip-rx-copy, -F's file written, the drain after stop. */
#ifndef ESXPERF_TCP_IO_H
#define ESXPERF_TCP_IO_H
#include <stddef.h>
#include <stdint.h>

#include "pace.h"
#include "tcp_lowat.h"

struct stream;

/* what a TCP stream keeps between its steps (in struct stream) */
struct tcp_io {
    int begun;                   /* the first step set the rest up */
    uint64_t calls;              /* I/O system calls made */
    /* send */
    struct pace_clock pc;
    uint64_t burst;              /* -b's burst allowance, bytes */
    int budget;                  /* -n or -k: sends take from the budgets */
    int msgzc;                   /* -Z as send(MSG_ZEROCOPY) */
    size_t want;                 /* bytes a write takes from the budgets */
    size_t chunk, pending;       /* the chunk being written, and what is left of it */
    uint64_t hold_at;            /* when the send buffer is decided (tcp_sndbuf.h) */
    unsigned writes;             /* the clock is read for that every 16th write */
    /* receive */
    int flags;                   /* MSG_TRUNC, or 0 */
    struct tcp_lowat lw;
    int lowat;                   /* SO_RCVLOWAT set, 0: none */
};

/* one step of a TCP sender or receiver: STEP_ON, STEP_WAIT or STEP_DONE */
int tcp_send_step(struct stream *s);
int tcp_recv_step(struct stream *s);

#endif
