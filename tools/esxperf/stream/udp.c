/* UDP datagram header and receiver arithmetic (loss, jitter, out-of-order). */
#include "udp.h"
#include "bytes.h"

#include <string.h>

const unsigned char udp_connect_client_new[4] = { '9', '8', '7', '6' };
const unsigned char udp_connect_server_new[4] = { '6', '7', '8', '9' };

size_t udp_header_size(int counters64)
{
    return counters64 ? 16 : 12;
}

void udp_header_put(unsigned char *buf, uint32_t sec, uint32_t usec, uint64_t count,
                    int counters64)
{
    store_be32(buf, sec);
    store_be32(buf + 4, usec);
    if (counters64)
        store_be64(buf + 8, count);
    else
        store_be32(buf + 8, (uint32_t)count);
}

int udp_header_get(const unsigned char *buf, size_t len, int counters64, uint32_t *sec,
                   uint32_t *usec, uint64_t *count)
{
    if (len < udp_header_size(counters64))
        return -1;
    *sec = load_be32(buf);
    *usec = load_be32(buf + 4);
    *count = counters64 ? load_be64(buf + 8) : load_be32(buf + 8);
    return 0;
}

void udp_rx_init(struct udp_rx *s)
{
    memset(s, 0, sizeof *s);
}

void udp_rx_update(struct udp_rx *s, uint64_t seq, double sent_s, double arrival_s)
{
    s->packets++;
    if (seq > s->last_seq) {
        /* in order, maybe after a gap: the skipped ones count as lost for now */
        s->lost += (int64_t)(seq - s->last_seq - 1);
        s->last_seq = seq;
    } else {
        /* late or duplicate: it was counted lost when the gap opened */
        s->out_of_order++;
        if (s->lost > 0)
            s->lost--;
    }
    double transit = arrival_s - sent_s;
    if (s->have_transit) {
        double d = transit - s->prev_transit;
        if (d < 0)
            d = -d;
        s->jitter += (d - s->jitter) / 16.0;
    }
    s->prev_transit = transit;
    s->have_transit = 1;
}

double udp_loss_percent(int64_t lost, int64_t total)
{
    if (total <= 0)
        return 0.0;
    return 100.0 * (double)lost / (double)total;
}

enum udp_connect_kind udp_connect_kind(const unsigned char msg[4], int from_client)
{
    const unsigned char *nw = from_client ? udp_connect_client_new : udp_connect_server_new;
    uint32_t old = from_client ? UDP_CONNECT_CLIENT_OLD : UDP_CONNECT_SERVER_OLD;
    uint32_t v;
    if (!memcmp(msg, nw, 4))
        return UDP_CONNECT_NEW;
    memcpy(&v, msg, 4);
    if (v == old)
        return UDP_CONNECT_OLD;
    return UDP_CONNECT_NONE;
}

void udp_connect_value(unsigned char msg[4], enum udp_connect_kind kind, int from_client)
{
    if (kind == UDP_CONNECT_OLD) {
        uint32_t v = from_client ? UDP_CONNECT_CLIENT_OLD : UDP_CONNECT_SERVER_OLD;
        memcpy(msg, &v, 4);
    } else {
        memcpy(msg, from_client ? udp_connect_client_new : udp_connect_server_new, 4);
    }
}
