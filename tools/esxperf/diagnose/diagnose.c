/* The decision table of diagnose.h: one row per class, in the order they are tried
 * (a bound the user or the host set, -b, the link, a window, comes before the
 * receiver's CPU: a receiver busy with a small window's many wake-ups is fixed by
 * the window);
 * each row's test reads only known figures (an unknown one makes it not fire) and
 * writes the words that show why it fired; the advice is the row's. */
#include "diagnose.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void diag_evidence_init(struct diag_evidence *e)
{
    memset(e, 0, sizeof *e);
    e->streams = 1;
    e->rate_bps = e->link_mbps = -1;
    e->snd_thread_pct = e->snd_thread_demand_pct = -1;
    e->rcv_thread_pct = e->rcv_thread_demand_pct = -1;
    e->snd_proc_pct = e->rcv_proc_pct = -1;
    e->wall_us = e->busy_us = e->rwnd_limited_us = e->sndbuf_limited_us = -1;
    e->app_limited = e->tso_off = e->lro_off = -1;
    e->local_sender = 1;
    e->rtt_us = e->segs_out = e->retrans = e->udp_loss_pct = -1;
    e->peer_wnd_bytes = e->autotune_cap_bytes = -1;
    e->mss_bytes = e->bytes_acked = e->rto_backoff = e->route_mtu = e->udp_len = -1;
    e->frag_creates = e->mss_start_bytes = e->udp_sent = e->udp_received = -1;
}

static int known(double v)
{
    return v >= 0;
}

/* a thread's load: what it used or waited for where the host tells, else what it used */
static double thread_load(double used, double demand)
{
    return known(demand) ? demand : used;
}

static double pct_of_busy(double part, double busy)
{
    return known(part) && busy > 0 ? 100.0 * part / busy : -1;
}

static double link_pct(const struct diag_evidence *e)
{
    return known(e->link_mbps) && e->link_mbps > 0 && known(e->rate_bps)
               ? 100.0 * e->rate_bps / (e->link_mbps * 1e6) : -1;
}

/* the bandwidth-delay product in bytes (rate x RTT) */
static double bdp_bytes(const struct diag_evidence *e)
{
    return known(e->rate_bps) && known(e->rtt_us) ? e->rate_bps / 8.0 * e->rtt_us / 1e6 : -1;
}

/* the receiver's window: the largest it advertised, else -w, else the autotune cap */
static double rcv_window(const struct diag_evidence *e)
{
    if (known(e->peer_wnd_bytes) && e->peer_wnd_bytes > 0)
        return e->peer_wnd_bytes;
    if (e->window_bytes > 0)
        return e->window_bytes;
    return e->autotune_cap_bytes;
}

/* the IP header's bytes, and with UDP's the bytes before a datagram's payload */
static double ip_header(const struct diag_evidence *e)
{
    return e->ipv6 ? 40 : 20;
}

/* the IP packets one datagram leaves in: 1 when it fits the route's MTU, else its
 * fragments (each carries a multiple of 8 bytes; IPv6 adds an 8-byte fragment
 * header); -1 unknown */
static double frags_per_datagram(const struct diag_evidence *e)
{
    if (!e->udp || !known(e->udp_len) || !(e->route_mtu > 0))
        return -1;
    double whole = e->udp_len + 8;
    if (whole + ip_header(e) <= e->route_mtu)
        return 1;
    double per = floor((e->route_mtu - ip_header(e) - (e->ipv6 ? 8 : 0)) / 8) * 8;
    return per > 0 ? ceil(whole / per) : -1;
}

/* the largest IP packet the data left in: a full TCP segment, or a datagram (its
 * first fragment when it is fragmented); -1 unknown */
static double data_packet(const struct diag_evidence *e)
{
    if (!e->udp)
        return known(e->mss_bytes) ? e->mss_bytes + ip_header(e) + 20 : -1;
    if (!known(e->udp_len))
        return -1;
    double whole = e->udp_len + 8 + ip_header(e);
    return e->route_mtu > 0 && whole > e->route_mtu ? e->route_mtu : whole;
}

/* TCP cut its MSS during the run below what the route's MTU carries (a segment,
 * with 40 bytes of TCP options at most, fits with room to spare), from a full-size
 * one: Linux's black-hole detection (net.ipv4.tcp_mtu_probing 1) does that after
 * about 3 s of timeouts with no ICMP error. A frag-needed would have cut the route's
 * MTU with it. */
static int mss_cut(const struct diag_evidence *e)
{
    return known(e->mss_start_bytes) && known(e->mss_bytes) && e->route_mtu > 0 &&
           e->mss_bytes < e->mss_start_bytes && e->mss_start_bytes + ip_header(e) + 20 > DIAG_SMALL_PACKET &&
           e->mss_bytes + ip_header(e) + 60 < e->route_mtu;
}

/* the datagrams lost, % of those sent: the receiver's count of gaps in the
 * sequence, or where more, the sender's count against the receiver's (a receiver
 * that got none sees no gap) */
static double udp_lost_pct(const struct diag_evidence *e)
{
    double pct = e->udp_loss_pct;
    if (e->udp_sent > 0 && known(e->udp_received) && e->udp_received <= e->udp_sent) {
        double by_count = 100.0 * (1 - e->udp_received / e->udp_sent);
        if (by_count > pct)
            pct = by_count;
    }
    return pct;
}

/* --- the rules: 1 fires (because written), 0 not */

/* Path MTU: full-size packets vanish while small ones cross, the signature of a hop
 * with a smaller MTU that drops what it cannot carry without an ICMP error (a
 * physical switch port left at 1500 between two hosts at 9000). TCP: the handshake
 * (small) made the connection and the control connection carried the results, yet
 * of the bytes sent (segments x MSS) under 1 % were acknowledged, with retransmits:
 * the data segments never arrive (random loss, even 50 %, lets far more through);
 * or the kernel cut the MSS on its own (mss_cut), which lets some data through
 * later and so hides the first sign.
 * UDP: 99 % of the datagrams lost, each an IP packet over 1280 bytes, while the
 * stream's small hello datagram crossed; not fragmented datagrams, whose loss may
 * as well be the receiver's reassembly (the fragmentation rule's). First: nothing else can be judged on a
 * path that carries no full-size packet. */
static int r_path_mtu(const struct diag_evidence *e, char *w, size_t n)
{
    double pkt = data_packet(e);
    if (e->udp) {
        double lost = udp_lost_pct(e), k = frags_per_datagram(e);
        if (!known(lost) || !known(pkt) || (known(k) && k >= 2 && e->frag_creates != 0))
            return 0;
        snprintf(w, n, "%.1f %% of the %.0f-byte datagrams lost (IP packets of %.0f bytes) while the small "
                 "hello datagram and the control connection crossed", lost, e->udp_len, pkt);
        return lost >= DIAG_LOST_ALL_PCT && pkt > DIAG_SMALL_PACKET;
    }
    if (!known(pkt) || !(e->segs_out > 0) || !(e->retrans > 0))
        return 0;
    if (mss_cut(e)) {
        snprintf(w, n, "the MSS fell from %.0f to %.0f bytes while the route's MTU stayed %.0f (the kernel's "
                 "black-hole detection, tcp_mtu_probing); %.0f of %.0f segments retransmitted",
                 e->mss_start_bytes, e->mss_bytes, e->route_mtu, e->retrans, e->segs_out);
        return 1;
    }
    if (!known(e->bytes_acked))
        return 0;
    double pct = 100.0 * e->bytes_acked / (e->segs_out * e->mss_bytes);
    snprintf(w, n, "%.0f of %.0f segments of %.0f bytes retransmitted, %.0f bytes acknowledged (%.2f %% of "
             "those sent)", e->retrans, e->segs_out, e->mss_bytes, e->bytes_acked, pct);
    if (known(e->rto_backoff))
        snprintf(w + strlen(w), n - strlen(w), ", %.0f timeouts in a row", e->rto_backoff);
    snprintf(w + strlen(w), n - strlen(w), "; the handshake and the control connection worked");
    return pct < DIAG_ACKED_PCT && pkt > DIAG_SMALL_PACKET;
}

/* Pacing: the run was asked for a rate and reached it, so the rate asked for is the
 * limit; 90 % leaves room for the pacer's start and the TCP ramp. */
static int r_pacing(const struct diag_evidence *e, char *w, size_t n)
{
    if (!(e->target_bps > 0) || !known(e->rate_bps))
        return 0;
    double pct = 100.0 * e->rate_bps / e->target_bps;
    snprintf(w, n, "%.0f %% of the %.0f Mbit/s asked for", pct, e->target_bps / 1e6);
    return pct >= DIAG_PACING_PCT;
}

/* Line rate: at 90 % of the link's speed little is left: framing (Ethernet, IP and
 * TCP headers) takes about 5 % of a 1500-byte frame. */
static int r_line_rate(const struct diag_evidence *e, char *w, size_t n)
{
    double pct = link_pct(e);
    snprintf(w, n, "%.0f %% of %s's %.0f Mb/s", pct, e->link_name ? e->link_name : "the link",
             e->link_mbps);
    return known(pct) && pct >= DIAG_LINE_RATE_PCT;
}

/* Sender CPU: a stream thread that ran, or was runnable and waited for a CPU, 90 %
 * of the time never waited for the network: one core is the limit, whatever the
 * process total on a many-core host. The process figure stands in only where no
 * thread figure was measured, and then per stream (each stream is one thread).
 * Also a TCP sender whose connection had data to send less than half the time its
 * loop ran, unpaced: nothing but the sending thread itself kept the socket unfed. */
static int r_sender_cpu(const struct diag_evidence *e, char *w, size_t n)
{
    if (!(e->target_bps > 0) && known(e->busy_us) && e->wall_us > 0 &&
        100.0 * e->busy_us / e->wall_us < DIAG_FED_PCT) {
        snprintf(w, n, "TCP had data to send %.0f %% of the time the sender ran; its thread %s %.0f %% "
                 "of a core", 100.0 * e->busy_us / e->wall_us,
                 known(e->snd_thread_demand_pct) ? "ran or waited to run" : "at",
                 thread_load(e->snd_thread_pct, e->snd_thread_demand_pct));
        return 1;
    }
    double t = thread_load(e->snd_thread_pct, e->snd_thread_demand_pct);
    if (known(t)) {
        snprintf(w, n, "one stream thread %s %.0f %% of a core; receiver %s",
                 known(e->snd_thread_demand_pct) ? "ran or waited to run" : "at", t,
                 known(e->rcv_proc_pct) ? "" : "n/a");
        if (known(e->rcv_proc_pct))
            snprintf(w + strlen(w), n - strlen(w), "%.0f %%", e->rcv_proc_pct);
        return t >= DIAG_CPU_BOUND_PCT;
    }
    if (!known(e->snd_proc_pct))
        return 0;
    double per = e->snd_proc_pct / (e->streams > 0 ? e->streams : 1);
    snprintf(w, n, "sending process at %.0f %% of a core per stream", per);
    return per >= DIAG_CPU_BOUND_PCT;
}

/* the receiver's window was at its bound: -w set it, or the bandwidth-delay product
 * (what the path needed in flight) reached half the autotuning cap. The window the
 * receiver advertised is no sign: a receiver that reads in bursts makes autotuning
 * grow it, though the buffer stays full. */
static int window_bounded(const struct diag_evidence *e)
{
    double bdp = bdp_bytes(e), cap = e->autotune_cap_bytes;
    return e->window_bytes > 0 || (known(cap) && known(bdp) && bdp >= cap * DIAG_AUTOTUNE_FRAC);
}

/* Receiver CPU: the receiving thread at 90 % of a core (measured where this side
 * receives); else the receiving process at 90 % of a core per stream; else the
 * sender held back by the receiver's window a quarter of its busy time or more while
 * that window was free to grow (no -w, autotuning below half its cap): the receive
 * buffer was full of unread data, so the reading application fell behind. A quarter,
 * not half: a receiver starved of CPU reads in bursts, and between them the sender
 * also waits on the congestion window its delayed ACKs hold back; autotuning's own
 * ramp costs a few RTTs, far less. The receiver's process CPU is no help under a
 * cap (it shows the cap), hence the sender's view. */
static int r_receiver_cpu(const struct diag_evidence *e, char *w, size_t n)
{
    double t = thread_load(e->rcv_thread_pct, e->rcv_thread_demand_pct);
    if (known(t)) {
        snprintf(w, n, "one receiving thread at %.0f %% of a core", t);
        if (t >= DIAG_CPU_BOUND_PCT)
            return 1;
    }
    if (known(e->rcv_proc_pct)) {
        double per = e->rcv_proc_pct / (e->streams > 0 ? e->streams : 1);
        snprintf(w, n, "receiving process at %.0f %% of a core per stream", per);
        if (per >= DIAG_CPU_BOUND_PCT)
            return 1;
    }
    double rw = pct_of_busy(e->rwnd_limited_us, e->busy_us);
    if (!known(rw) || !known(e->autotune_cap_bytes))
        return 0;
    size_t l = strlen(w);
    snprintf(w + l, n - l, "%ssender held by the receiver's window %.0f %% of its busy time with no -w "
             "and the window below half the %.0f MiB autotuning cap", l ? "; " : "", rw,
             e->autotune_cap_bytes / 1048576);
    return rw >= DIAG_STARVED_PCT && !window_bounded(e);
}

/* Network loss: 1 % of the segments retransmitted (or 1 % of the datagrams lost) is
 * far more than TCP's own probing of a full queue costs (well under 0.5 %), so the
 * path drops packets and the congestion window never opens. */
static int r_loss(const struct diag_evidence *e, char *w, size_t n)
{
    if (e->udp) {
        snprintf(w, n, "%.2f %% of the datagrams lost", e->udp_loss_pct);
        return known(e->udp_loss_pct) && e->udp_loss_pct >= DIAG_LOSS_PCT;
    }
    if (!known(e->retrans) || !(e->segs_out > 0))
        return 0;
    double pct = 100.0 * e->retrans / e->segs_out;
    snprintf(w, n, "%.2f %% of the segments retransmitted", pct);
    return pct >= DIAG_LOSS_PCT;
}

/* Fragmentation: datagrams larger than the route's MTU leave in fragments, and one
 * fragment lost loses its datagram (k fragments turn a packet loss p into a datagram
 * loss near k x p), so the 1 % of datagrams lost that the loss rule reads comes from
 * the fragmenting; before that rule, as its cause. Where this host counted no
 * fragment made (the don't-fragment bit, or a datagram that fit) it does not fire. */
static int r_fragmentation(const struct diag_evidence *e, char *w, size_t n)
{
    double k = frags_per_datagram(e), lost = udp_lost_pct(e);
    if (!known(k) || k < 2 || !known(lost) || e->frag_creates == 0)
        return 0;
    snprintf(w, n, "%.2f %% of the datagrams lost; each %.0f-byte datagram left in %.0f fragments (route MTU "
             "%.0f)", lost, e->udp_len, k, e->route_mtu);
    return lost >= DIAG_LOSS_PCT;
}

/* Receive window: the sender held back by the receiver's window more than half its
 * busy time, and that window at its bound (-w, or autotuning at half its cap): the
 * rate is the window / RTT; the bandwidth-delay product (rate x RTT) shows how
 * little the window holds. */
static int r_receive_window(const struct diag_evidence *e, char *w, size_t n)
{
    double rw = pct_of_busy(e->rwnd_limited_us, e->busy_us), sb = pct_of_busy(e->sndbuf_limited_us, e->busy_us);
    double bdp = bdp_bytes(e), win = rcv_window(e);
    if (!known(rw) || rw < DIAG_LIMITED_PCT || (known(sb) && sb > rw))
        return 0;
    if (known(bdp) && known(win))
        snprintf(w, n, "sender held by the receiver's window %.0f %% of its busy time; window %.0f KiB%s, "
                 "bandwidth-delay product %.0f KiB (RTT %.2f ms)", rw, win / 1024,
                 e->window_bytes > 0 ? " (-w)" : "", bdp / 1024, e->rtt_us / 1000);
    else
        snprintf(w, n, "sender held by the receiver's window %.0f %% of its busy time", rw);
    return window_bounded(e) || !known(e->autotune_cap_bytes);
}

/* Send buffer: the sender's own socket buffer full more than half its busy time:
 * the data in flight is capped by SO_SNDBUF (-w, or its autotuning cap). */
static int r_send_buffer(const struct diag_evidence *e, char *w, size_t n)
{
    double sb = pct_of_busy(e->sndbuf_limited_us, e->busy_us);
    double bdp = bdp_bytes(e);
    if (known(bdp))
        snprintf(w, n, "send buffer full %.0f %% of the busy time; bandwidth-delay product %.0f KiB "
                 "(RTT %.2f ms)", sb, bdp / 1024, e->rtt_us / 1000);
    else
        snprintf(w, n, "send buffer full %.0f %% of the busy time", sb);
    return known(sb) && sb >= DIAG_LIMITED_PCT;
}

/* Network: TCP said what held it (busy time known) and neither window, buffer, loss
 * nor CPU did: the congestion window, i.e. the path's capacity below the link. */
static int r_network(const struct diag_evidence *e, char *w, size_t n)
{
    double pct = link_pct(e);
    if (known(pct))
        snprintf(w, n, "%.0f %% of %s's %.0f Mb/s; no window, buffer, loss or CPU limit seen", pct,
                 e->link_name ? e->link_name : "the link", e->link_mbps);
    else
        snprintf(w, n, "no window, buffer, loss or CPU limit seen");
    return e->udp ? known(e->udp_loss_pct) : e->busy_us > 0;
}

static int r_unknown(const struct diag_evidence *e, char *w, size_t n)
{
    (void)e;
    snprintf(w, n, "no rule's evidence was conclusive");
    return 1;
}

struct diag_rule {
    enum diag_class cls;
    const char *key, *label;
    int (*test)(const struct diag_evidence *, char *, size_t);
    const char *advice;
};

static const struct diag_rule rules[DIAG_CLASSES] = {
    { DIAG_PATH_MTU, "path-mtu", "path MTU", r_path_mtu,
      "a hop drops full-size packets without an ICMP error (a switch port or vSwitch at a smaller "
      "MTU); confirm with" },
    { DIAG_PACING, "pacing", "pacing", r_pacing,
      "the rate asked for (-b, --fq-rate) was reached; drop it to measure the path" },
    { DIAG_LINE_RATE, "line-rate", "line rate", r_line_rate,
      "the link is full; a faster link, or more uplinks for more flows, is the next step" },
    { DIAG_SENDER_CPU, "sender-cpu", "sender CPU", r_sender_cpu,
      "try -P 4 (a core per stream), or check TSO on the sender's uplink" },
    { DIAG_FRAGMENTATION, "fragmentation", "fragmentation", r_fragmentation,
      "datagrams over the route's MTU leave in fragments: a smaller -l keeps each in one packet" },
    { DIAG_NETWORK_LOSS, "network-loss", "network loss", r_loss,
      "the path drops packets: check the uplinks' error counters, cabling and the switch ports" },
    { DIAG_RECEIVE_WINDOW, "receive-window", "receive window", r_receive_window,
      "a larger window: -w at least rate x RTT (ESXi's autotuning stops at 16 MiB)" },
    { DIAG_SEND_BUFFER, "send-buffer", "send buffer", r_send_buffer,
      "a larger send buffer: -w at least rate x RTT (ESXi's autotuning stops at 16 MiB)" },
    { DIAG_RECEIVER_CPU, "receiver-cpu", "receiver CPU", r_receiver_cpu,
      "try -P 4 (a core per stream), or check LRO (/Net/TcpipDefLROEnabled) on the receiver" },
    { DIAG_NETWORK, "network", "network", r_network,
      "the path below the link's speed: a shaper, a slower hop or other traffic; try -P 4 for "
      "more flows" },
    { DIAG_UNKNOWN, "unknown", "unknown", r_unknown,
      "measure with TCP_INFO (a Linux peer as the sender) or read the figures above" },
};

const char *diag_class_key(enum diag_class c)
{
    return (unsigned)c < DIAG_CLASSES ? rules[c].key : NULL;
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
static void list_evidence(const struct diag_evidence *e, struct diagnosis *d)
{
    add(d, "rate", e->rate_bps / 1e6, "Mbit/s");
    if (e->target_bps > 0)
        add(d, "target_rate", e->target_bps / 1e6, "Mbit/s");
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
    add(d, "bandwidth_delay_product", bdp_bytes(e), "bytes");
    add(d, "segments_sent", e->segs_out, "segments");
    add(d, "retransmits", e->retrans, "segments");
    add(d, "udp_loss", e->udp_loss_pct, "%");
    add(d, "datagrams_sent", e->udp_sent, "datagrams");
    add(d, "datagrams_received", e->udp_received, "datagrams");
    add(d, "peer_window", e->peer_wnd_bytes, "bytes");
    if (e->window_bytes > 0)
        add(d, "socket_buffer", e->window_bytes, "bytes");
    add(d, "autotune_cap", e->autotune_cap_bytes, "bytes");
    add(d, "tso_off", e->tso_off, "bool");
    add(d, "lro_off", e->lro_off, "bool");
    add(d, "mss_start", e->mss_start_bytes, "bytes");
    add(d, "mss", e->mss_bytes, "bytes");
    add(d, "bytes_acked", e->bytes_acked, "bytes");
    add(d, "rto_backoff", e->rto_backoff, "timeouts");
    add(d, "route_mtu", e->route_mtu, "bytes");
    add(d, "datagram_size", e->udp ? e->udp_len : -1, "bytes");
    add(d, "fragments_per_datagram", frags_per_datagram(e), "packets");
    add(d, "fragments_created", e->frag_creates, "packets");
    miss(d, !known(e->link_mbps), "link speed");
    miss(d, !known(e->snd_thread_pct) && !known(e->snd_proc_pct), "sender CPU");
    miss(d, !known(e->rcv_thread_pct) && !known(e->rcv_proc_pct), "receiver CPU");
    if (!e->udp) {
        miss(d, !known(e->rtt_us) && !known(e->retrans), "TCP_INFO");
        miss(d, (known(e->rtt_us) || known(e->retrans)) && !known(e->busy_us),
             "TCP_INFO busy/rwnd/sndbuf times (Linux 4.10+)");
    } else {
        miss(d, !known(e->route_mtu), "route MTU (IP_MTU)");
        miss(d, frags_per_datagram(e) >= 2 && !known(e->frag_creates), "fragments made (/proc/net/snmp)");
    }
}

/* the esxmtu command that checks the path to the peer at MTU mtu: the ICMP data of
 * a full packet (IP and ICMP headers off, as vmkping -d -s takes it), through the
 * vmknic the data left by */
static void esxmtu_cmd(const struct diag_evidence *e, double mtu, char *buf, size_t n)
{
    snprintf(buf, n, "esxmtu%s%s -s %.0f -d %s", e->vmk ? " -I " : "", e->vmk ? e->vmk : "",
             mtu - ip_header(e) - 8, e->peer ? e->peer : "PEER");
}

/* the largest datagram payload that fits the route's MTU in one packet */
static double udp_fits(const struct diag_evidence *e)
{
    return e->route_mtu - ip_header(e) - 8;
}

/* the MTU classes' advice, with this path's figures: path-mtu the esxmtu command at
 * the route's MTU (the size that vanished; 9000 where unknown), fragmentation the -l
 * that fits one packet and the esxmtu command for jumbo frames */
static void mtu_advice(const struct diag_evidence *e, struct diagnosis *d)
{
    char cmd[96];
    size_t l = strlen(d->advice);
    if (d->cls == DIAG_PATH_MTU) {
        esxmtu_cmd(e, e->route_mtu > 0 ? e->route_mtu : 9000, cmd, sizeof cmd);
        snprintf(d->advice + l, sizeof d->advice - l, " %s", cmd);
    } else if (d->cls == DIAG_FRAGMENTATION) {
        esxmtu_cmd(e, 9000, cmd, sizeof cmd);
        snprintf(d->advice, sizeof d->advice, "datagrams over the route's MTU (%.0f) leave in fragments: "
                 "-l %.0f keeps each in one packet; where jumbo frames are meant: %s", e->route_mtu,
                 udp_fits(e), cmd);
    }
}

/* what the run shows beside its bottleneck: datagrams fragmented where the class is
 * not fragmentation itself (a loss later on that path costs whole datagrams) */
static void list_findings(const struct diag_evidence *e, struct diagnosis *d)
{
    double k = frags_per_datagram(e);
    if (d->cls != DIAG_FRAGMENTATION && d->cls != DIAG_PATH_MTU && known(k) && k >= 2 &&
        e->frag_creates != 0 && d->nfind < DIAG_FINDINGS) {
        struct diag_finding *f = &d->find[d->nfind++];
        char cmd[96];
        esxmtu_cmd(e, 9000, cmd, sizeof cmd);
        f->key = "fragmentation";
        snprintf(f->text, sizeof f->text, "each %.0f-byte datagram left in %.0f fragments (route MTU %.0f): "
                 "one fragment lost loses the datagram; -l %.0f keeps each in one packet; where jumbo frames "
                 "are meant: %s", e->udp_len, k, e->route_mtu, udp_fits(e), cmd);
        if (known(e->frag_creates) && strlen(f->text) + 40 < sizeof f->text)
            snprintf(f->text + strlen(f->text), sizeof f->text - strlen(f->text), " (%.0f fragments made here)",
                     e->frag_creates);
    }
}

void diag_decide(const struct diag_evidence *e, struct diagnosis *d)
{
    memset(d, 0, sizeof *d);
    int c = 0;
    for (; c < DIAG_CLASSES - 1; c++) {
        d->because[0] = '\0';
        if (rules[c].test(e, d->because, sizeof d->because))
            break;
    }
    if (c == DIAG_CLASSES - 1)
        rules[c].test(e, d->because, sizeof d->because);
    d->cls = rules[c].cls;
    d->key = rules[c].key;
    d->label = rules[c].label;
    snprintf(d->advice, sizeof d->advice, "%s", rules[c].advice);
    /* an offload found off on this host, where it is the side the class names */
    size_t l = strlen(d->advice);
    if (d->cls == DIAG_SENDER_CPU && e->local_sender && e->tso_off == 1)
        snprintf(d->advice + l, sizeof d->advice - l, "; TSO is off here%s%s", e->link_name ? " on " : "",
                 e->link_name ? e->link_name : "");
    else if (d->cls == DIAG_RECEIVER_CPU && !e->local_sender && e->lro_off == 1)
        snprintf(d->advice + l, sizeof d->advice - l, "; LRO is off here (/Net/TcpipDefLROEnabled 0)");
    mtu_advice(e, d);
    d->link_mbps = known(e->link_mbps) && e->link_mbps > 0 ? e->link_mbps : -1;
    d->percent_of_link = link_pct(e);
    list_evidence(e, d);
    list_findings(e, d);
}

void diag_finding_line(const struct diagnosis *d, int i, char *buf, size_t len)
{
    if (i >= 0 && i < d->nfind)
        snprintf(buf, len, "finding: %s: %s", d->find[i].key, d->find[i].text);
    else if (len)
        buf[0] = '\0';
}

void diag_line(const struct diagnosis *d, char *buf, size_t len)
{
    int n = snprintf(buf, len, "bottleneck: %s (%s): %s", d->label, d->because, d->advice);
    if (n >= 0 && (size_t)n < len && d->missing[0])
        snprintf(buf + n, len - (size_t)n, "; not measured: %s", d->missing);
}
