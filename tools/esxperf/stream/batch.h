/* UDP batch I/O: many datagrams per system call, each with its own iperf3
 * header. Send: sendmmsg over a slab of datagram slots, each message a UDP GSO
 * super-datagram (UDP_SEGMENT) when the kernel takes it; fallbacks: send() per
 * message when sendmmsg is missing (ENOSYS), one datagram per message when GSO
 * is refused (setsockopt ENOPROTOOPT, or EINVAL/EIO at send time). Receive:
 * recvmmsg, with UDP_GRO (coalesced datagrams cut back by the segment size the
 * kernel reports); fallbacks: recv()/recvmsg() one at a time, no GRO. Or, for
 * --skip-rx-copy, heads only: recvmmsg with MSG_TRUNC into header-sized slots,
 * one datagram per message (no GRO), the true lengths counted. */
#ifndef ESXPERF_BATCH_H
#define ESXPERF_BATCH_H
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/uio.h>

#define BATCH_MAX 64          /* messages per sendmmsg/recvmmsg */
#define GSO_SEGS_MAX 64       /* datagrams per GSO send (kernel's UDP_MAX_SEGMENTS) */
#define GSO_BYTES_MAX 65000   /* payload of one GSO send, under the IP length limit */

struct udp_tx {
    int fd;
    size_t blk;               /* datagram size */
    int counters64;
    unsigned char *slab;      /* max slots of blk bytes, payload prefilled */
    int max;                  /* datagrams per call */
    int gso;                  /* datagrams per message (1 = no GSO) */
    int mmsg;                 /* sendmmsg usable */
    struct mmsghdr *msgs;
    struct iovec *iov;
    uint64_t calls;           /* system calls made */
};

/* use_mmsg / use_gso: 0 to force the fallback (tests, ESXPERF_ENGINE_OFF) */
void udp_tx_init(struct udp_tx *t, int fd, size_t blk, int counters64,
                 const unsigned char *payload, int use_mmsg, int use_gso);
/* send n (1..max) datagrams numbered first_seq, first_seq+1, ... stamped with
 * the wall time; returns how many went (>= 1), or -1 with errno */
int udp_tx_send(struct udp_tx *t, int n, uint64_t first_seq);
void udp_tx_free(struct udp_tx *t);
/* e.g. "sendmmsg x64, GSO 44 datagrams/send" */
void udp_tx_describe(const struct udp_tx *t, char *buf, size_t len);

struct udp_rxb {
    int fd;
    size_t slot;              /* bytes per message buffer */
    size_t room;              /* bytes of the socket's queue one message can take */
    int max;                  /* messages per call */
    int gro;                  /* UDP_GRO enabled */
    int mmsg;                 /* recvmmsg usable */
    int heads;                /* MSG_TRUNC: only the first slot bytes are copied */
    unsigned char *slab;
    struct mmsghdr *msgs;
    struct iovec *iov;
    unsigned char *ctl;       /* control space per message (GRO segment size) */
    size_t ctl_len;
    uint64_t calls;
};

void udp_rxb_init(struct udp_rxb *r, int fd, size_t blk, int use_mmsg, int use_gro);
/* --skip-rx-copy: datagrams of blk bytes, of which only the first head bytes
 * (the iperf3 header) are copied out; GRO stays off (see batch.c) */
void udp_rxb_init_heads(struct udp_rxb *r, int fd, size_t blk, size_t head, int use_mmsg);
/* receive 1..max messages (flags: 0 or MSG_DONTWAIT); count or -1 with errno */
int udp_rxb_recv(struct udp_rxb *r, int flags);
/* message i of the last call: its bytes and the datagram size inside it
 * (GRO coalesces several; seg == len when it did not). With heads only, len
 * is the datagram's true length but data holds only its first slot bytes. */
void udp_rxb_msg(const struct udp_rxb *r, int i, const unsigned char **data, size_t *len,
                 size_t *seg);
void udp_rxb_free(struct udp_rxb *r);
void udp_rxb_describe(const struct udp_rxb *r, char *buf, size_t len);

/* The receiver's nap. A receiver that empties the queue and blocks in recvmmsg
 * is woken by the sender's softirq (on loopback: in the sender's own system
 * call) for nearly every GRO buffer that arrives, and then takes one or two
 * per call: profiled at jumbo sizes, 2,000 wake-ups and 5,500 calls per GB,
 * about 8 % of the sender's time spent waking it. At high arrival rates the
 * receiver instead sleeps, after a call that emptied the queue, for as long as
 * about half a batch takes to arrive, then reads without waiting: nobody waits
 * on the socket, so the sender wakes nobody. Only when the nap comes out between
 * RX_NAP_MIN_NS and RX_NAP_MAX_NS (fast traffic, a short nap); otherwise, and
 * when a nap found nothing, the receiver blocks as before. */
#define RX_NAP_MIN_NS (20 * 1000ull)     /* shorter: not worth a timer */
#define RX_NAP_MAX_NS (200 * 1000ull)    /* longer: the rate is modest, block */

struct rx_nap {
    size_t target;            /* bytes to let arrive: half a batch, <= 1/8 of SO_RCVBUF */
    uint64_t last_ns;         /* when the previous call returned (0: none yet) */
    double bytes_per_ns;      /* arrival rate, smoothed (0: unknown) */
};

/* batch_bytes: what one call can take (max x slot); rcvbuf: the socket's
 * buffer (getsockopt SO_RCVBUF; 0 if unknown) */
void rx_nap_init(struct rx_nap *n, size_t batch_bytes, int rcvbuf);
/* after a call returned at now_ns with bytes in its messages (full: it filled
 * every message slot): how long to sleep before a non-blocking call, 0 = none */
uint64_t rx_nap_after(struct rx_nap *n, uint64_t now_ns, uint64_t bytes, int full);
/* a non-blocking call after a nap found nothing: the traffic paused; forget the rate */
void rx_nap_idle(struct rx_nap *n);

/* datagrams in a buffer of len bytes cut in seg-byte segments (last may be
 * shorter), and the length of datagram i */
size_t gro_count(size_t len, size_t seg);
size_t gro_seg_len(size_t len, size_t seg, size_t i);
/* datagrams per GSO send for this datagram size (1 = GSO pointless) */
int gso_segments(size_t blk);
/* the one place GSO and GRO are decided for a socket (udp_tx_init, udp_rxb_init,
 * and -J's start.test_start gso/gro before the streams run): UDP_SEGMENT set to
 * blk on fd when 2+ datagrams fit a send; the datagrams per send, 1 = no GSO
 * (the kernel has none, or blk is too big). udp_gro_on: UDP_GRO set, 1 or 0 */
int udp_gso_on(int fd, size_t blk);
int udp_gro_on(int fd);

#endif
