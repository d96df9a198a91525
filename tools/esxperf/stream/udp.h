/* UDP data streams: the datagram header, loss/jitter/out-of-order arithmetic (pure
 * functions) and the 4-byte connect handshake; the send and receive steps are
 * udp_io.h's. */
#ifndef ESXPERF_UDP_H
#define ESXPERF_UDP_H
#include <stddef.h>
#include <stdint.h>

/* header: sec u32 @0, usec u32 @4, count u32 @8 (or u64 with 64-bit counters) */
size_t udp_header_size(int counters64);
void udp_header_put(unsigned char *buf, uint32_t sec, uint32_t usec, uint64_t count,
                    int counters64);
/* returns -1 when the datagram is shorter than the header */
int udp_header_get(const unsigned char *buf, size_t len, int counters64, uint32_t *sec,
                   uint32_t *usec, uint64_t *count);

/* receiver statistics, updated per datagram */
struct udp_rx {
    uint64_t packets;      /* datagrams received */
    uint64_t last_seq;     /* highest sequence seen (iperf3's packet count) */
    int64_t lost;          /* gaps minus late arrivals, never below 0 */
    uint64_t out_of_order;
    double jitter;         /* seconds, RFC 1889 smoothed by 1/16 */
    double prev_transit;
    int have_transit;
};
void udp_rx_init(struct udp_rx *s);
/* one datagram with sequence seq (iperf3 starts at 1), sent at sent_s, arriving
 * at arrival_s (both seconds, any common epoch offset cancels in the jitter) */
void udp_rx_update(struct udp_rx *s, uint64_t seq, double sent_s, double arrival_s);
/* loss percent of lost/(packets+lost) the way iperf3 reports it */
double udp_loss_percent(int64_t lost, int64_t total);

/* connect handshake values */
#define UDP_CONNECT_CLIENT_OLD 123456789u   /* <= 3.11, host-order int */
#define UDP_CONNECT_SERVER_OLD 987654321u
extern const unsigned char udp_connect_client_new[4];   /* "9876" (3.12+) */
extern const unsigned char udp_connect_server_new[4];   /* "6789" */
enum udp_connect_kind {
    UDP_CONNECT_NONE = 0,       /* neither */
    UDP_CONNECT_NEW = 1,        /* 3.12+: "9876" / "6789" */
    UDP_CONNECT_OLD = 2,        /* <= 3.11: 123456789 / 987654321 as host-order ints */
};
enum udp_connect_kind udp_connect_kind(const unsigned char msg[4], int from_client);
/* the 4 bytes of the handshake of that kind (NONE writes the new ones) */
void udp_connect_value(unsigned char msg[4], enum udp_connect_kind kind, int from_client);

#endif
