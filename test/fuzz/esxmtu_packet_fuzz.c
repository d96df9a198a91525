/* libFuzzer target: esxmtu's received-packet parser and reply matcher.
 * Byte 0 picks the layer (IPv4 raw socket, ICMP ping socket / error-queue payload,
 * ICMPv6); the rest is the packet: echo replies, frag-needed and Packet Too Big
 * with their quoted original headers and data (a forged quote must not match). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <stdlib.h>
#include <sys/socket.h>

#include "../../tools/esxmtu/packet.h"

const char tool_name[] = "esxmtu_fuzz";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int layer = PKT_IP4 + data[0] % 3;
    /* a private copy of exactly the packet bytes, so ASan sees any over-read */
    size_t n = size - 1;
    uint8_t *buf = malloc(n ? n : 1);
    if (!buf)
        return 0;
    memcpy(buf, data + 1, n);
    struct pkt_info r;
    const char *why = NULL;
    if (pkt_parse(layer, buf, n, &r, &why) == 0) {
        if (r.data && (r.data < buf || r.data + r.data_len > buf + n))
            abort();                       /* data must lie inside the packet */
        if (r.orig_dst_len != 0 && r.orig_dst_len != 4 && r.orig_dst_len != 16)
            abort();
        if (r.orig_data && (r.orig_data < buf || r.orig_data + r.orig_data_len > buf + n))
            abort();                       /* the quoted probe's data too */
        struct pkt_expect x;
        memset(&x, 0, sizeof x);
        x.id = r.id;
        x.check_id = data[0] & 4;
        x.seq = r.seq;
        x.nonce = 0x0102030405060708ull;
        x.data_len = r.data_len ? r.data_len - (data[0] & 8 ? 1 : 0)
                   : r.orig_data_len + (data[0] & 16 ? 0 : 1);
        x.ip_len = data[0] & 32 ? r.orig_len : (uint32_t)x.data_len + 28;
        if (r.orig_dst_len)
            memcpy(x.dst, r.orig_dst, (size_t)r.orig_dst_len);
        x.dst_len = r.orig_dst_len;
        enum pkt_match m = pkt_match(&r, &x);
        if (m != PM_NOT_OURS && m != PM_FULL && m != PM_SHORT && m != PM_ERROR)
            abort();
        (void)pkt_mtu_plausible(data[0] & 64 ? AF_INET6 : AF_INET, r.mtu, x.ip_len);
    } else if (!why) {
        abort();                           /* a refusal always says why */
    }
    free(buf);
    return 0;
}
