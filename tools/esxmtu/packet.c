/* ICMP / ICMPv6 echo probes: building, parsing replies and errors, matching. */
#include "packet.h"
#include "bytes.h"
#include "checksum.h"

#include <string.h>
#include <sys/socket.h>

uint32_t pkt_hdr_len(int family) { return family == AF_INET6 ? PKT_HDR6 : PKT_HDR4; }
uint32_t pkt_min_mtu(int family) { return family == AF_INET6 ? PKT_MIN_MTU6 : PKT_MIN_MTU4; }

int pkt_mtu_plausible(int family, uint32_t mtu, uint32_t probe_mtu)
{
    return mtu >= pkt_min_mtu(family) && mtu < probe_mtu;
}

/* ---- echo data: 8 bytes nonce, 2 bytes seq, 6 bytes "esxmtu", then a pattern */
static uint8_t pattern_byte(size_t i, uint64_t nonce, uint16_t seq)
{
    return (uint8_t)(i * 7u + seq + (nonce >> ((i & 7) * 8)));
}

static void stamp(uint8_t st[PKT_STAMP_LEN], uint64_t nonce, uint16_t seq)
{
    store_be64(st, nonce);
    store_be16(st + 8, seq);
    memcpy(st + 10, "esxmtu", 6);
}

void pkt_fill(uint8_t *data, size_t n, uint64_t nonce, uint16_t seq)
{
    uint8_t st[PKT_STAMP_LEN];
    stamp(st, nonce, seq);
    size_t i = 0;
    for (; i < n && i < PKT_STAMP_LEN; i++)
        data[i] = st[i];
    for (; i < n; i++)
        data[i] = pattern_byte(i, nonce, seq);
}

int pkt_data_ok(const uint8_t *data, size_t n, uint64_t nonce, uint16_t seq)
{
    uint8_t st[PKT_STAMP_LEN];
    stamp(st, nonce, seq);
    size_t i = 0;
    for (; i < n && i < PKT_STAMP_LEN; i++)
        if (data[i] != st[i])
            return 0;
    for (; i < n; i++)
        if (data[i] != pattern_byte(i, nonce, seq))
            return 0;
    return 1;
}

/* ---- build */
/* the echo request's 8-byte header (checksum 0) and its data */
static void write_echo(uint8_t *icmp, uint8_t type, uint16_t id, uint16_t seq, uint64_t nonce,
                       size_t data_len)
{
    icmp[0] = type;
    icmp[1] = 0;
    icmp[2] = icmp[3] = 0;
    store_be16(icmp + 4, id);
    store_be16(icmp + 6, seq);
    pkt_fill(icmp + 8, data_len, nonce, seq);
}

size_t pkt_build_echo(int layer, uint8_t *buf, size_t cap, uint16_t id, uint16_t seq,
                      uint64_t nonce, size_t data_len, const struct pkt_ip4 *ip)
{
    size_t iphl = layer == PKT_IP4 ? 20 : 0;
    if (layer == PKT_IP4 && !ip)
        return 0;
    size_t total = iphl + 8 + data_len;
    if (data_len > PKT_MAX_MTU || total > cap || total > PKT_MAX_MTU + (layer == PKT_ICMP6 ? 40u : 0u))
        return 0;
    if (layer == PKT_ICMP6 && 8 + data_len > PKT_MAX_MTU)
        return 0;
    uint8_t *icmp = buf + iphl;
    write_echo(icmp, layer == PKT_ICMP6 ? ICMP6_ECHO : ICMP4_ECHO, id, seq, nonce, data_len);
    if (layer != PKT_ICMP6) {
        uint16_t ck = inet_checksum(icmp, 8 + data_len);
        memcpy(icmp + 2, &ck, 2);
    }
    if (layer == PKT_IP4) {
        buf[0] = 0x45;
        buf[1] = 0;
        store_be16(buf + 2, (uint16_t)total);
        store_be16(buf + 4, 0);                    /* id: the kernel fills it */
        store_be16(buf + 6, ip->df ? 0x4000 : 0);  /* DF, offset 0 */
        buf[8] = ip->ttl ? ip->ttl : 64;
        buf[9] = 1;                           /* ICMP */
        buf[10] = buf[11] = 0;
        memcpy(buf + 12, ip->src, 4);
        memcpy(buf + 16, ip->dst, 4);
        uint16_t ck = inet_checksum(buf, 20);
        memcpy(buf + 10, &ck, 2);
    }
    return total;
}

size_t pkt_build_echo6(uint8_t *buf, size_t cap, uint16_t id, uint16_t seq, uint64_t nonce,
                       size_t data_len, const struct pkt_ip6 *ip)
{
    if (!ip || data_len > PKT_MAX_MTU - 8 || cap < 40 || cap - 40 < 8 + data_len)
        return 0;
    size_t plen = 8 + data_len;              /* the ICMPv6 message: IPv6's payload length */
    buf[0] = 0x60;                           /* version 6, traffic class 0, flow label 0 */
    buf[1] = buf[2] = buf[3] = 0;
    store_be16(buf + 4, (uint16_t)plen);
    buf[6] = 58;                             /* next header: ICMPv6 */
    buf[7] = ip->hops ? ip->hops : 64;
    memcpy(buf + 8, ip->src, 16);
    memcpy(buf + 24, ip->dst, 16);
    uint8_t *icmp = buf + 40;
    write_echo(icmp, ICMP6_ECHO, id, seq, nonce, data_len);
    /* the pseudo-header: both addresses (as in the header), the 32-bit upper-layer
     * length and three zero bytes before the next header value */
    uint8_t tail[8] = { 0, 0, 0, 0, 0, 0, 0, 58 };
    store_be32(tail, (uint32_t)plen);
    uint32_t sum = inet_sum(0, buf + 8, 32);
    sum = inet_sum(sum, tail, sizeof tail);
    sum = inet_sum(sum, icmp, plen);
    uint16_t ck = inet_checksum_finish(sum);
    memcpy(icmp + 2, &ck, 2);
    return 40 + plen;
}

/* ---- parse */
/* the original datagram quoted inside an ICMP error: its header and the first
 * 8 bytes of our echo request (id, seq) */
static void parse_orig4(const uint8_t *p, size_t len, struct pkt_info *o)
{
    if (len < 20 || (p[0] >> 4) != 4)
        return;
    size_t ihl = (size_t)(p[0] & 15) * 4;
    if (ihl < 20 || ihl > len)
        return;
    memcpy(o->orig_dst, p + 16, 4);
    o->orig_dst_len = 4;
    o->orig_len = load_be16(p + 2);
    if (p[9] != 1 || (load_be16(p + 6) & 0x1fff) != 0)   /* not ICMP, or not the first fragment */
        return;
    const uint8_t *ic = p + ihl;
    if (len - ihl < 8 || ic[0] != ICMP4_ECHO)
        return;
    o->id = load_be16(ic + 4);
    o->seq = load_be16(ic + 6);
    o->orig_data = ic + 8;
    o->orig_data_len = len - ihl - 8;
    o->has_orig = 1;
}

static void parse_orig6(const uint8_t *p, size_t len, struct pkt_info *o)
{
    if (len < 40 || (p[0] >> 4) != 6)
        return;
    memcpy(o->orig_dst, p + 24, 16);
    o->orig_dst_len = 16;
    o->orig_len = 40u + load_be16(p + 4);
    if (p[6] != 58)                     /* next header not ICMPv6: not one of ours */
        return;
    const uint8_t *ic = p + 40;
    if (len - 40 < 8 || ic[0] != ICMP6_ECHO)
        return;
    o->id = load_be16(ic + 4);
    o->seq = load_be16(ic + 6);
    o->orig_data = ic + 8;
    o->orig_data_len = len - 48;
    o->has_orig = 1;
}

/* what differs between ICMP and ICMPv6 for the messages we read */
static const struct icmp_family {
    uint8_t echo, echo_reply;
    uint8_t err[4];                     /* error types whose payload quotes our packet */
    const char *short_msg;
    void (*orig)(const uint8_t *p, size_t len, struct pkt_info *o);
} icmp_fam[2] = {
    { ICMP4_ECHO, ICMP4_ECHO_REPLY, { ICMP4_UNREACH, ICMP4_TIME_EXCEEDED, ICMP4_PARAM, ICMP4_PARAM /* filler */ },
      "ICMP message shorter than its 8-byte header", parse_orig4 },
    { ICMP6_ECHO, ICMP6_ECHO_REPLY, { ICMP6_UNREACH, ICMP6_TOO_BIG, ICMP6_TIME_EXCEEDED, ICMP6_PARAM },
      "ICMPv6 message shorter than its 8-byte header", parse_orig6 },
};

static int parse_icmp(int v6, const uint8_t *p, size_t len, struct pkt_info *o, const char **why)
{
    const struct icmp_family *f = &icmp_fam[v6];
    if (len < 8) {
        *why = f->short_msg;
        return -1;
    }
    o->type = p[0];
    o->code = p[1];
    if (p[0] == f->echo || p[0] == f->echo_reply) {
        o->kind = p[0] == f->echo ? PK_ECHO_REQUEST : PK_ECHO_REPLY;
        o->id = load_be16(p + 4);
        o->seq = load_be16(p + 6);
        o->data = p + 8;
        o->data_len = len - 8;
        return 0;
    }
    if (!memchr(f->err, p[0], sizeof f->err))
        return 0;
    o->kind = PK_ERROR;
    if (v6 && p[0] == ICMP6_TOO_BIG)
        o->mtu = load_be32(p + 4);
    else if (!v6 && p[0] == ICMP4_UNREACH && p[1] == ICMP4_FRAG_NEEDED_CODE)
        o->mtu = load_be16(p + 6);
    f->orig(p + 8, len - 8, o);
    return 0;
}

int pkt_parse(int layer, const uint8_t *buf, size_t len, struct pkt_info *out,
              const char **why)
{
    const char *dummy;     /* a local: no mutable static state */
    if (!why)
        why = &dummy;
    memset(out, 0, sizeof *out);
    out->ttl = -1;
    if (!buf) {
        *why = "no buffer";
        return -1;
    }
    if (layer == PKT_ICMP4 || layer == PKT_ICMP6)
        return parse_icmp(layer == PKT_ICMP6, buf, len, out, why);
    if (layer != PKT_IP4) {
        *why = "unknown layer";
        return -1;
    }
    if (len < 20 || (buf[0] >> 4) != 4) {
        *why = "not an IPv4 header";
        return -1;
    }
    size_t ihl = (size_t)(buf[0] & 15) * 4;
    size_t tot = load_be16(buf + 2);
    if (ihl < 20 || ihl > len || tot < ihl) {
        *why = "bad IPv4 header length";
        return -1;
    }
    if (tot > len)           /* cut short in our buffer: use what we have */
        tot = len;
    memcpy(out->src, buf + 12, 4);
    out->has_src = 1;
    out->ttl = buf[8];
    if (buf[9] != 1) {
        *why = "not ICMP";
        return -1;
    }
    if (load_be16(buf + 6) & 0x3fff) {   /* a fragment (MF or offset): never ours whole */
        *why = "IPv4 fragment";
        return -1;
    }
    return parse_icmp(0, buf + ihl, tot - ihl, out, why);   /* src and ttl stay as set above */
}

/* ---- match */
/* quoted data is a prefix of what we sent: no more bytes, the same stamp and pattern */
static int quote_is_ours(const uint8_t *d, size_t n, const struct pkt_expect *x)
{
    return n <= x->data_len && pkt_data_ok(d, n, x->nonce, x->seq);
}

/* the quoted IP length names our probe's size (tolerated byte-swapped, as a stack
 * that quotes its host-order copy of the header would send it) */
static int len_is_ours(uint32_t quoted, uint32_t sent)
{
    return !quoted || !sent || quoted == sent || quoted == __builtin_bswap16((uint16_t)sent);
}

enum pkt_match pkt_match(const struct pkt_info *r, const struct pkt_expect *x)
{
    size_t stamp = x->data_len < PKT_STAMP_LEN ? x->data_len : PKT_STAMP_LEN;
    if ((x->check_id && r->id != x->id) || r->seq != x->seq)
        return PM_NOT_OURS;
    switch (r->kind) {
    case PK_ECHO_REPLY: {
        /* the whole stamp (as much of it as we sent) must be ours */
        if (r->data_len < stamp || !pkt_data_ok(r->data, stamp, x->nonce, x->seq))
            return PM_NOT_OURS;
        if (r->data_len != x->data_len || !pkt_data_ok(r->data, r->data_len, x->nonce, x->seq))
            return PM_SHORT;
        return PM_FULL;
    }
    case PK_ERROR:
        if (!r->has_orig)
            return PM_NOT_OURS;
        if (r->orig_dst_len && x->dst_len == r->orig_dst_len &&
            memcmp(r->orig_dst, x->dst, (size_t)x->dst_len) != 0)
            return PM_NOT_OURS;
        if (!len_is_ours(r->orig_len, x->ip_len))
            return PM_NOT_OURS;
        /* a quote of the ICMP header alone (RFC 792's 8 bytes) is all some routers send */
        if (!quote_is_ours(r->orig_data, r->orig_data_len, x))
            return PM_NOT_OURS;
        return PM_ERROR;
    case PK_ECHO_REQUEST:          /* the error queue hands back our own request */
        return quote_is_ours(r->data, r->data_len, x) ? PM_ERROR : PM_NOT_OURS;
    default:
        return PM_NOT_OURS;
    }
}
