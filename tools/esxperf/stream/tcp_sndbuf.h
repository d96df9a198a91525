/* The TCP sender's send buffer when several streams share a short path: held at
 * 512 KiB instead of the kernel's autotuning, which grows every stream's buffer
 * towards tcp_wmem's maximum (4 MiB) whenever the receiver is the slower side,
 * as it always is on loopback: four streams then queue 16 MiB that was written
 * long before it is read, far more than the caches hold. Held only where the
 * buffers together still cover twice the path's bandwidth-delay product at
 * 100 Gbit/s, so no real link is slowed by it. Pure: the caller measures. */
#ifndef ESXPERF_TCP_SNDBUF_H
#define ESXPERF_TCP_SNDBUF_H
#include <stdint.h>

#define TCP_SNDBUF_ASK (256 * 1024)       /* SO_SNDBUF asked; Linux doubles it */
#define TCP_SNDBUF_HELD_MIN (416 * 1024)  /* held at the least: 2 x a stock net.core.wmem_max */
#define TCP_SNDBUF_FAST_BPS 12500000000ull /* 100 Gbit/s, in bytes per second */
#define TCP_SNDBUF_AFTER_NS 10000000ull   /* decided 10 ms after the first send step */

/* SO_SNDBUF to ask for one sender of a test of `streams` TCP streams (sending
 * in the same direction) whose path's smallest RTT so far is min_rtt_us: 0 = leave
 * the kernel's autotuning (one stream, RTT unknown (< 0), or a path long enough
 * that streams x TCP_SNDBUF_HELD_MIN < 2 x 100 Gbit/s x min_rtt). A lone stream
 * is never held, because holding it gains nothing; the held size is the one that
 * measured best, smaller and larger ones giving up most of the gain (the figures:
 * BENCHMARKS.md, "The held send buffer"). */
int tcp_sndbuf_hold(int64_t streams, int64_t min_rtt_us);
#endif
