/* The TCP receiver's wake-up size (SO_RCVLOWAT), set from the rate the stream
 * receives at: about a millisecond of data per wake-up, at most TCP_LOWAT_MAX.
 * A fast stream is woken for big chunks (fewer wake-ups, and fewer window-update
 * ACKs for its sender to process: on loopback that work runs in the sender's own
 * send()), a slow one for every segment, so interval rows stay exact and no read
 * waits long for a chunk that comes slowly. Pure: the caller gives the clock. */
#ifndef ESXPERF_TCP_LOWAT_H
#define ESXPERF_TCP_LOWAT_H
#include <stddef.h>
#include <stdint.h>

#define TCP_LOWAT_START (96 * 1024)      /* before the rate is known */
#define TCP_LOWAT_MAX (512 * 1024)       /* at -P 1 and 2 (see tcp_lowat_cap) */
#define TCP_LOWAT_MANY (96 * 1024)       /* at -P 3 and more */
#define TCP_LOWAT_MIN (16 * 1024)        /* below this, wake for each segment (1) */
#define TCP_LOWAT_WINDOW_NS 10000000ull  /* the rate is re-measured every 10 ms */

struct tcp_lowat {
    int cap;                    /* the largest lowat this socket takes (<= TCP_LOWAT_MAX) */
    int cur;                    /* the lowat set now (1 = each segment) */
    uint64_t from_ns, bytes;    /* the rate's window: since when, and bytes read in it */
};

/* the largest lowat for a test of n streams. Measured on loopback in alternating
 * pairs: 384-512 KiB (not 256) cut the CPU per byte 1.27x for one stream and
 * 1.24x at -P 2; at -P 4 and 8 anything above 96 KiB was the same or up to 1.23x
 * worse (more bytes wait per stream than the caches hold) */
int tcp_lowat_cap(int64_t streams);
/* the lowat for a stream receiving bytes in ns: a power of two, 1, or cap itself */
int tcp_lowat_for_rate(uint64_t bytes, uint64_t ns, int cap);
/* the largest lowat up to want that fits in room bytes (half the socket's receive
 * buffer): want itself, or the power of two at or below room, or 1 when room is
 * under TCP_LOWAT_MIN */
int tcp_lowat_fit(int want, uint64_t room);
/* start: cur = min(TCP_LOWAT_START, cap) */
void tcp_lowat_init(struct tcp_lowat *t, int cap, uint64_t now);
/* n bytes were read at now; returns the lowat to set when it changes, else 0.
 * The caller stores in cur what the socket took: less (a receive buffer still
 * small) makes the next window ask again, so the lowat grows with the buffer */
int tcp_lowat_step(struct tcp_lowat *t, size_t n, uint64_t now);
#endif
