/* What the kernel says about a TCP data socket: TCP_INFO samples, the bytes not
 * yet acknowledged, the congestion control in use, and the -C check made before
 * a test (can this host's TCP take that algorithm). */
#ifndef ESXPERF_TCP_QUERY_H
#define ESXPERF_TCP_QUERY_H
#include <stddef.h>
#include <stdint.h>

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
