/* The verdict's evidence list and its line (diagnose.h): every figure measured, with
 * its unit, in the order the JSON gives them; what was not measured, named. */
#include "diagnose.h"

#include <stdio.h>
#include <string.h>

static int known(double v)
{
    return v >= 0;
}

static void add(struct diagnosis *d, const char *name, double v, const char *unit)
{
    if (known(v) && d->n < DIAG_ITEMS)
        d->ev[d->n++] = (struct diag_item){ name, v, unit };
}

static void miss(struct diagnosis *d, int absent, const char *name)
{
    if (!absent)
        return;
    size_t l = strlen(d->missing);
    snprintf(d->missing + l, sizeof d->missing - l, "%s%s", l ? ", " : "", name);
}

/* the evidence list, and what was not measured */
void diag_list_evidence(const struct diag_evidence *e, struct diagnosis *d)
{
    add(d, "rate", e->rate_bps / 1e6, "Mbit/s");
    if (e->target_bps > 0)
        add(d, "target_rate", e->target_bps / 1e6, "Mbit/s");
    if (!e->link_nominal)
        add(d, "link_speed", e->link_mbps, "Mb/s");
    add(d, "sender_thread_cpu", e->snd_thread_pct, "% of a core");
    add(d, "sender_thread_cpu_demand", e->snd_thread_demand_pct, "% of a core");
    add(d, "receiver_thread_cpu", e->rcv_thread_pct, "% of a core");
    add(d, "receiver_thread_cpu_demand", e->rcv_thread_demand_pct, "% of a core");
    add(d, "sender_process_cpu", e->snd_proc_pct, "% of a core");
    add(d, "receiver_process_cpu", e->rcv_proc_pct, "% of a core");
    add(d, "busy_time", e->busy_us / 1000, "ms");
    add(d, "rwnd_limited", e->rwnd_limited_us / 1000, "ms");
    add(d, "sndbuf_limited", e->sndbuf_limited_us / 1000, "ms");
    add(d, "app_limited", e->app_limited, "bool");
    add(d, "rtt", e->rtt_us / 1000, "ms");
    add(d, "bandwidth_delay_product", diag_bdp_bytes(e), "bytes");
    add(d, "segments_sent", e->segs_out, "segments");
    add(d, "retransmits", e->retrans, "segments");
    add(d, "needless_retransmits", e->dsack_dups, "segments");
    add(d, "udp_loss", e->udp_loss_pct, "%");
    add(d, "datagrams_sent", e->udp_sent, "datagrams");
    add(d, "datagrams_received", e->udp_received, "datagrams");
    add(d, "udp_socket_drops", e->udp_drop_pct, "%");
    add(d, "peer_window", e->peer_wnd_bytes, "bytes");
    if (e->window_bytes > 0)
        add(d, "socket_buffer", e->window_bytes, "bytes");
    add(d, "sender_socket_buffer", e->snd_buf_bytes, "bytes");
    add(d, "receiver_socket_buffer", e->rcv_buf_bytes, "bytes");
    add(d, "autotune_cap", e->autotune_cap_bytes, "bytes");
    add(d, "tso_off", e->tso_off, "bool");
    add(d, "lro_off", e->lro_off, "bool");
    add(d, "mss_start", e->mss_start_bytes, "bytes");
    add(d, "mss", e->mss_bytes, "bytes");
    add(d, "bytes_acked", e->bytes_acked, "bytes");
    add(d, "rto_backoff", e->rto_backoff, "timeouts");
    add(d, "route_mtu", e->route_mtu, "bytes");
    add(d, "datagram_size", e->udp ? e->udp_len : -1, "bytes");
    add(d, "fragments_per_datagram", diag_frags_per_datagram(e), "packets");
    add(d, "fragments_created", e->frag_creates, "packets");
    miss(d, !known(e->link_mbps), "link speed");
    miss(d, !known(e->snd_thread_pct) && !known(e->snd_proc_pct), "sender CPU");
    miss(d, !known(e->rcv_thread_pct) && !known(e->rcv_proc_pct), "receiver CPU");
    miss(d, e->udp && !known(e->udp_drop_pct), "the receiver's socket drops (/proc/net/snmp)");
    if (!e->udp) {
        miss(d, !known(e->rtt_us) && !known(e->retrans), "TCP_INFO");
        miss(d, (known(e->rtt_us) || known(e->retrans)) && !known(e->busy_us),
             "TCP_INFO busy/rwnd/sndbuf times (Linux 4.10+)");
    } else {
        miss(d, !known(e->route_mtu), "route MTU (IP_MTU)");
        miss(d, diag_frags_per_datagram(e) >= 2 && !known(e->frag_creates), "fragments made (/proc/net/snmp)");
    }
}

void diag_line(const struct diagnosis *d, char *buf, size_t len)
{
    int n = snprintf(buf, len, "bottleneck: %s (%s): %s", d->label, d->because, d->advice);
    if (n >= 0 && (size_t)n < len && d->missing[0])
        snprintf(buf + n, len - (size_t)n, "; not measured: %s", d->missing);
}
