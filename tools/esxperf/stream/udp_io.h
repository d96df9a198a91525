/* The UDP steps of a data stream, each one batch of datagrams, called by a
 * driver (drive.h) until STEP_DONE (stream.h enum step). Send: whole datagrams
 * in batches (batch.c: sendmmsg, GSO) under the pacer and the -n/-k budgets.
 * Receive: recvmmsg, GRO; with --skip-rx-copy each datagram's header only,
 * MSG_TRUNC, no GRO; at high rates a nap between calls instead of blocking
 * (batch.h rx_nap); loss, jitter and order counted by udp.c. */
#ifndef ESXPERF_UDP_IO_H
#define ESXPERF_UDP_IO_H
#include <stdint.h>

#include "batch.h"
#include "pace.h"

struct stream;

/* what a UDP stream keeps between its steps (in struct stream) */
struct udp_io {
    int begun;                   /* the first step set the rest up */
    char how[96];                /* the batch path as it started */
    /* send */
    struct udp_tx tx;
    uint64_t seq;                /* datagrams sent */
    struct pace_clock pc;
    uint64_t burst;              /* -b's burst allowance, bytes: fixed for the test */
    int wake;                    /* datagrams per wake-up when paced */
    /* receive */
    struct udp_rxb rb;
    struct rx_nap nap;
    int flags;                   /* MSG_DONTWAIT right after a nap */
};

/* one step of a UDP sender or receiver: STEP_ON, STEP_WAIT or STEP_DONE */
int udp_send_step(struct stream *s);
int udp_recv_step(struct stream *s);
/* a UDP receiver that reads each datagram's header only (--skip-rx-copy, not
 * turned off): it never receives with GRO (batch.c udp_rxb_init_heads) */
int udp_io_heads(const struct stream *s);

#endif
