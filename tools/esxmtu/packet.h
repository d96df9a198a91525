/* ICMP / ICMPv6 echo probes: build them and parse what comes back.
 * Pure functions over byte buffers (no sockets), so the unit tests and the fuzzer
 * drive them directly. Every length read from a packet is checked against the
 * buffer before use. */
#ifndef ESXMTU_PACKET_H
#define ESXMTU_PACKET_H
#include <stddef.h>
#include <stdint.h>

/* IP + ICMP header bytes on top of the ICMP data: MTU = data + 28 (IPv4) or + 48 (IPv6) */
#define PKT_HDR4 28u
#define PKT_HDR6 48u
#define PKT_MIN_MTU4 68u
#define PKT_MIN_MTU6 1280u
#define PKT_MAX_MTU 65535u
/* our echo data starts with this stamp (shorter data carries a prefix of it) */
#define PKT_STAMP_LEN 16u

/* what a received buffer starts with */
enum pkt_layer {
    PKT_IP4 = 1,   /* IPv4 header, then ICMP (raw IPv4 socket) */
    PKT_ICMP4,     /* ICMP header (IPv4 ping socket, error-queue payload) */
    PKT_ICMP6      /* ICMPv6 header (raw or ping IPv6 socket) */
};

enum pkt_kind { PK_OTHER = 0, PK_ECHO_REPLY, PK_ECHO_REQUEST, PK_ERROR };

/* ICMP types we name */
enum {
    ICMP4_ECHO_REPLY = 0, ICMP4_UNREACH = 3, ICMP4_ECHO = 8, ICMP4_TIME_EXCEEDED = 11,
    ICMP4_PARAM = 12, ICMP4_FRAG_NEEDED_CODE = 4,
    ICMP6_UNREACH = 1, ICMP6_TOO_BIG = 2, ICMP6_TIME_EXCEEDED = 3, ICMP6_PARAM = 4,
    ICMP6_ECHO = 128, ICMP6_ECHO_REPLY = 129
};

struct pkt_info {
    enum pkt_kind kind;
    uint8_t type, code;        /* of the received ICMP message */
    uint16_t id, seq;          /* echo: its own; error: of the embedded echo request */
    int has_orig;              /* error: embedded original echo request id/seq present */
    const uint8_t *data;       /* echo: the data after the 8-byte header */
    size_t data_len;
    uint8_t src[4];            /* PKT_IP4: outer source (who sent this) */
    int has_src;
    int ttl;                   /* PKT_IP4: outer TTL, else -1 */
    uint8_t orig_dst[16];      /* error: destination of the embedded original */
    int orig_dst_len;          /* 4, 16, or 0 when absent */
    uint32_t orig_len;         /* error: original packet length from its header, 0 if absent */
    const uint8_t *orig_data;  /* error: the quoted echo request's data (as much as was quoted) */
    size_t orig_data_len;
    uint32_t mtu;              /* frag-needed next-hop MTU / Packet Too Big MTU, else 0 */
};

/* Parse one received buffer. Returns 0 (out filled, kind may be PK_OTHER) or -1
 * when the buffer is malformed (*why: a static reason). */
int pkt_parse(int layer, const uint8_t *buf, size_t len, struct pkt_info *out,
              const char **why);

/* the echo data stamp: nonce, sequence and size, then a pattern that depends on them */
void pkt_fill(uint8_t *data, size_t n, uint64_t nonce, uint16_t seq);
int pkt_data_ok(const uint8_t *data, size_t n, uint64_t nonce, uint16_t seq);

/* the IPv4 header fields we set when we write it ourselves (IP_HDRINCL) */
struct pkt_ip4 {
    uint8_t src[4], dst[4];    /* src 0.0.0.0 = the kernel picks */
    uint8_t ttl;
    int df;                    /* 1 = Don't Fragment */
};

/* Build an echo request with `data_len` data bytes. layer PKT_IP4 writes the IPv4
 * header first (ip must be given), PKT_ICMP4 / PKT_ICMP6 write only ICMP (the
 * ICMPv6 checksum is left 0: the kernel computes it). Returns the packet length,
 * or 0 when it does not fit in cap or exceeds 65535 bytes. */
size_t pkt_build_echo(int layer, uint8_t *buf, size_t cap, uint16_t id, uint16_t seq,
                      uint64_t nonce, size_t data_len, const struct pkt_ip4 *ip);

/* the IPv6 header fields we set when we write it ourselves (an IPPROTO_RAW socket) */
struct pkt_ip6 {
    uint8_t src[16], dst[16];  /* src: the address the packet leaves from (the checksum covers it) */
    uint8_t hops;              /* hop limit; 0 = 64 */
};

/* Build an IPv6 header (no extension header, next header ICMPv6, flow label 0) and
 * an ICMPv6 echo request with `data_len` data bytes behind it, its checksum computed
 * over the IPv6 pseudo-header (RFC 8200 8.1: source, destination, ICMPv6 length,
 * next header 58). Returns 40 + 8 + data_len, or 0 when it does not fit in cap or
 * the payload exceeds 65535 bytes (the payload length field; no jumbograms). */
size_t pkt_build_echo6(uint8_t *buf, size_t cap, uint16_t id, uint16_t seq, uint64_t nonce,
                       size_t data_len, const struct pkt_ip6 *ip);

/* What we expect back for one probe. */
struct pkt_expect {
    uint16_t id;
    int check_id;              /* 0 for ping sockets: the kernel owns the id */
    uint16_t seq;
    uint64_t nonce;
    size_t data_len;           /* echo data bytes sent */
    uint32_t ip_len;           /* the probe's IP packet size (its MTU); 0 = not checked */
    uint8_t dst[16];           /* the probe's destination (4 or 16 bytes used) */
    int dst_len;
};

enum pkt_match { PM_NOT_OURS = 0, PM_FULL, PM_SHORT, PM_ERROR };
/* Does this parsed message answer that probe?
 *   PM_FULL   an echo reply with the whole data intact;
 *   PM_SHORT  our id/seq and the whole stamp, but fewer (or altered) bytes: a failure;
 *   PM_ERROR  an ICMP error quoting this very probe: id, seq, destination, and, where
 *             the quote has them, its IP length and its data (stamp and pattern); or,
 *             from the error queue, the echo request itself (PK_ECHO_REQUEST).
 * A reply too short to carry the stamp cannot be told from a stranger's: not ours. */
enum pkt_match pkt_match(const struct pkt_info *r, const struct pkt_expect *x);

/* Can `mtu`, from a frag-needed or Packet Too Big, be the next-hop MTU for a probe of
 * `probe_mtu` bytes? Not below the family's minimum (68 / 1280), and below the probe
 * (a router refuses only what is bigger than its link). 0 from old routers, 68 to a
 * 9000 probe, 65535 to a 1500 one, a Packet Too Big under 1280: not an MTU. */
int pkt_mtu_plausible(int family, uint32_t mtu, uint32_t probe_mtu);

/* size arithmetic */
uint32_t pkt_hdr_len(int family);                 /* 28 or 48 */
uint32_t pkt_min_mtu(int family);                 /* 68 or 1280 */

#endif
