/* What a data stream measures about itself for the bottleneck verdict (diagnose.h),
 * read once when its loop starts and once when it leaves, never per interval: the
 * CPU its thread used and, where the host's /proc tells, the time it waited to run
 * (a thread throttled by a CPU cap or crowded off its core waits runnable); and for
 * a TCP sender TCP_INFO's busy, receive-window-limited and send-buffer-limited times
 * (Linux 4.10+), RTT, segments sent and retransmitted, the peer's window, the MSS,
 * the bytes acknowledged and the timeouts in a row (a path that loses every
 * full-size segment); for a UDP sender the IP fragments this host made while it
 * ran (/proc/net/snmp, a count of the whole host or namespace); the
 * socket's buffer as the kernel made it (what -w became); for a UDP receiver the
 * share of the datagrams arriving that the host dropped for a full socket buffer
 * (/proc/net/snmp's Udp RcvbufErrors against InDatagrams over its run: the drop
 * counts a GRO batch once, as InDatagrams does, where the socket's own count,
 * SO_RXQ_OVFL's, has nothing to set it against). Every
 * figure the host refuses stays -1 (ESXi: TCP_INFO ENOSYS, no /proc). Written by the
 * stream's thread, read after its join. */
#ifndef ESXPERF_STREAM_EVIDENCE_H
#define ESXPERF_STREAM_EVIDENCE_H
#include <stdint.h>

struct stream_evidence {
    uint64_t begin_ns;                    /* mono, at the loop's start */
    int64_t cpu_begin_ns, run_begin_ns, wait_begin_ns;
    double wall_us;                       /* the loop's run, start to leave */
    double thread_pct;                    /* CPU used, % of one core */
    double demand_pct;                    /* used or waited for (runnable), % of one core */
    double cpu_s, wait_s;                 /* the same two as seconds: CPU used, waited
                                           * runnable (the reports' thread figures); -1 */
    int tcpi_len;                         /* bytes of TCP_INFO given; 0 refused or not read */
    int64_t busy_us, rwnd_limited_us, sndbuf_limited_us;
    int app_limited;
    int64_t rtt_us, segs_out, retrans, snd_wnd;
    int64_t mss_begin, mss, bytes_acked, backoff;  /* the MSS at the start and at the end */
    int64_t frags_begin, frags;           /* UDP sender: FragCreates at the start, made since */
    int64_t dsack_dups;                   /* retransmits the receiver already had (5.0+) */
    int64_t sock_buf;                     /* SO_SNDBUF of a sender, SO_RCVBUF of a
                                           * receiver, as the kernel made it; -1 */
    int64_t udp_in_begin, udp_drops_begin;   /* a UDP receiver: the host's counters */
    double udp_drop_pct;                  /* ... the share of the datagrams arriving over
                                           * its run dropped for a full socket buffer, -1 */
};

struct stream;
void stream_evidence_begin(struct stream *s);
void stream_evidence_end(struct stream *s);

#endif
