/* The decision table of diagnose.h: one row per class, in the order they are tried
 * (a path that carries no full-size packet first, as nothing else can be judged on
 * it; a bound the user or the host set, -b, the link, a window, comes before the
 * receiver's CPU: a receiver busy with a small window's many wake-ups is fixed by
 * the window);
 * each row's test reads only known figures (an unknown one makes it not fire) and
 * writes the words that show why it fired; the advice is the row's. */
#include "diagnose.h"

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
    e->app_limited = -1;
    e->tso_off = e->lro_off = -1;
    e->local_sender = 1;
    e->rtt_us = e->segs_out = e->retrans = e->udp_loss_pct = -1;
    e->peer_wnd_bytes = e->autotune_cap_bytes = -1;
    e->snd_buf_bytes = e->rcv_buf_bytes = e->udp_drop_pct = e->dsack_dups = -1;
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

/* the rate passed the link's speed: that speed is no bound. A link carries its
 * speed in frames, and the headers take their share of them, so a payload rate
 * above the speed was never held by it: the speed is a virtual device's or wrong */
static int link_passed(const struct diag_evidence *e)
{
    return known(e->link_mbps) && e->link_mbps > 0 && known(e->rate_bps) &&
           e->rate_bps > e->link_mbps * 1e6;
}

/* the share of the link, of a speed that bounds only: not a virtual device's
 * nominal one, and never above 100 (a rate above a speed proves it no bound) */
static double link_pct(const struct diag_evidence *e)
{
    if (!known(e->link_mbps) || !(e->link_mbps > 0) || !known(e->rate_bps) || e->link_nominal ||
        link_passed(e))
        return -1;
    return 100.0 * e->rate_bps / (e->link_mbps * 1e6);
}

/* the link in words, for the line: its share, or why it has none */
static void link_words(const struct diag_evidence *e, char *w, size_t n)
{
    const char *name = e->link_name ? e->link_name : "the link";
    if (!known(e->link_mbps) || !(e->link_mbps > 0))
        snprintf(w, n, "link speed unknown");
    else if (e->link_nominal)
        snprintf(w, n, "%s's %.0f Mb/s is a virtual device's, no bound", name, e->link_mbps);
    else if (link_passed(e))
        snprintf(w, n, "the rate passes %s's %.0f Mb/s, so that speed is no bound", name, e->link_mbps);
    else
        snprintf(w, n, "%.0f %% of %s's %.0f Mb/s", link_pct(e), name, e->link_mbps);
}

double diag_bdp_bytes(const struct diag_evidence *e)
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

/* --- the rules: 1 fires (because written), 0 not */

static double udp_loss(const struct diag_evidence *e)
{
    return e->udp ? e->udp_loss_pct : -1;
}

/* the share of the datagrams that the receiving host's full socket buffer dropped:
 * they crossed the path, so they are no loss of the network's; -1 unknown */
static double socket_drops(const struct diag_evidence *e)
{
    return e->udp && known(e->udp_drop_pct) && e->udp_drop_pct < 100 ? e->udp_drop_pct : -1;
}

/* Pacing: the run was asked for a rate and reached it, so the rate asked for is the
 * limit; 90 % leaves room for the pacer's start and the TCP ramp. Reached means at
 * the receiving host: what its socket then dropped for a full buffer (a reader short
 * of CPU on a crowded host) arrived at the rate asked. The datagrams a paced UDP run
 * lost are said beside it: a rate reached with loss is not clean. */
static int r_pacing(const struct diag_evidence *e, char *w, size_t n)
{
    if (!(e->target_bps > 0) || !known(e->rate_bps))
        return 0;
    double pct = 100.0 * e->rate_bps / e->target_bps, drops = socket_drops(e), arrived = pct;
    int k = snprintf(w, n, "%.0f %% of the %.0f Mbit/s asked for", pct, e->target_bps / 1e6);
    if (known(drops) && drops > 0) {
        arrived = pct / (1 - drops / 100);
        if (k > 0 && (size_t)k < n)
            k += snprintf(w + k, n - (size_t)k, " (%.0f %% reached the receiving host)", arrived);
    }
    if (known(udp_loss(e)) && udp_loss(e) >= DIAG_LOSS_PCT && k > 0 && (size_t)k < n) {
        k += snprintf(w + k, n - (size_t)k, ", but %.2f %% of the datagrams lost", udp_loss(e));
        if (known(drops) && drops > 0 && k > 0 && (size_t)k < n)
            snprintf(w + k, n - (size_t)k, ", %.2f %% by the receiver's full socket buffer", drops);
    }
    return arrived >= DIAG_PACING_PCT;
}

/* UDP datagrams lost mostly in the receiving host: 1 % lost or more, and the share
 * its sockets dropped for a full buffer (/proc/net/snmp's Udp RcvbufErrors against
 * InDatagrams over the run) at least half the share lost. Not the network: the
 * reader. */
static int udp_overflow(const struct diag_evidence *e, char *w, size_t n)
{
    if (!known(udp_loss(e)) || udp_loss(e) < DIAG_LOSS_PCT || !known(e->udp_drop_pct) ||
        e->udp_drop_pct < DIAG_OVERFLOW_FRAC * udp_loss(e))
        return 0;
    double t = thread_load(e->rcv_thread_pct, e->rcv_thread_demand_pct);
    int k = snprintf(w, n, "%.2f %% of the datagrams lost, %.2f %% dropped by the receiver's full "
                     "socket buffer", udp_loss(e), e->udp_drop_pct);
    if (k > 0 && (size_t)k < n)
        snprintf(w + k, n - (size_t)k, known(t) ? "; its thread ran or waited to run %.0f %% of a core"
                 : "; its thread's CPU unknown", t);
    return 1;
}

/* ... and the receiving thread at 75 % of a core or more: with datagrams always
 * waiting in its full buffer it never had to wait for one, so the quarter left is its
 * loop's start and end (the first datagram, the drain after the sender stops), not
 * room: it could not read faster */
static int r_udp_receiver_cpu(const struct diag_evidence *e, char *w, size_t n)
{
    double t = thread_load(e->rcv_thread_pct, e->rcv_thread_demand_pct);
    return udp_overflow(e, w, n) && known(t) && t >= DIAG_OVERFLOW_CPU_PCT;
}

/* ... the thread had room: the buffer was too small for the bursts between reads */
static int r_receive_buffer(const struct diag_evidence *e, char *w, size_t n)
{
    return udp_overflow(e, w, n);
}

/* Line rate: at 90 % of the link's speed little is left: framing (Ethernet, IP and
 * TCP headers) takes about 5 % of a 1500-byte frame. Only a speed that bounds:
 * not a virtual device's, not one the rate passed. */
static int r_line_rate(const struct diag_evidence *e, char *w, size_t n)
{
    double pct = link_pct(e);
    link_words(e, w, n);
    return known(pct) && pct >= DIAG_LINE_RATE_PCT;
}

/* the buffer -w made (the kernel doubles what it is asked for, and keeps about half
 * for data): the sender's SO_SNDBUF as read back, else twice -w */
static double set_buffer(const struct diag_evidence *e)
{
    return known(e->snd_buf_bytes) && e->snd_buf_bytes > 0 ? e->snd_buf_bytes : 2 * e->window_bytes;
}

/* -w set and its window full: TCP held by the receiver's window and its own send
 * buffer together half its busy time or more, or in flight (rate x RTT) a quarter of
 * the buffer -w made or more (about half of it holds data, the rest the kernel's
 * overhead). Both the receiver's window and the sender's buffer are -w's, so the
 * class is the window -w set, whichever of the two held TCP longer in this run (the
 * line gives both): one class for one cause, run after run. */
static int r_set_window(const struct diag_evidence *e, char *w, size_t n)
{
    if (e->udp || !(e->window_bytes > 0))
        return 0;
    double rw = pct_of_busy(e->rwnd_limited_us, e->busy_us), sb = pct_of_busy(e->sndbuf_limited_us, e->busy_us);
    double bdp = diag_bdp_bytes(e), buf = set_buffer(e);
    int held = known(rw) && known(sb) && rw + sb >= DIAG_LIMITED_PCT;
    int full = known(bdp) && bdp >= DIAG_INFLIGHT_FRAC * buf;
    size_t l = (size_t)snprintf(w, n, "-w %.0f KiB: the kernel made a %.0f KiB send buffer", e->window_bytes / 1024,
                                buf / 1024);
    if (l < n && known(e->rcv_buf_bytes))
        l += (size_t)snprintf(w + l, n - l, ", %.0f KiB receive buffer", e->rcv_buf_bytes / 1024);
    if (l < n && known(e->peer_wnd_bytes) && e->peer_wnd_bytes > 0)
        l += (size_t)snprintf(w + l, n - l, ", the receiver's window at most %.0f KiB", e->peer_wnd_bytes / 1024);
    if (l < n && known(bdp))
        l += (size_t)snprintf(w + l, n - l, "; in flight (rate x RTT %.2f ms) %.1f KiB", e->rtt_us / 1000,
                              bdp / 1024);
    if (l < n && known(rw) && known(sb))
        snprintf(w + l, n - l, "; TCP held by the receiver's window %.0f %%, by its send buffer %.0f %% of "
                 "its busy time", rw, sb);
    return held || full;
}

/* Sender CPU: a stream thread that ran, or was runnable and waited for a CPU, 90 %
 * of the time never waited for the network: one core is the limit, whatever the
 * process total on a many-core host (a thread crowded off its core by another
 * process ran half the time and waited the rest: 100 %). The process figure stands
 * in only where no thread figure was measured, and then per stream (each stream is
 * one thread). Also a TCP sender whose connection had data to send less than half
 * the time its loop ran, unpaced: nothing but the sending thread kept it unfed. */
static int r_sender_cpu(const struct diag_evidence *e, char *w, size_t n)
{
    double t = thread_load(e->snd_thread_pct, e->snd_thread_demand_pct);
    char ran[24] = "";
    if (known(e->snd_thread_demand_pct) && known(e->snd_thread_pct))
        snprintf(ran, sizeof ran, " (ran %.0f %%)", e->snd_thread_pct);
    if (!(e->target_bps > 0) && known(e->busy_us) && e->wall_us > 0 &&
        100.0 * e->busy_us / e->wall_us < DIAG_FED_PCT) {
        snprintf(w, n, "TCP had data to send %.0f %% of the time the sender ran; its thread %s %.0f %% "
                 "of a core%s", 100.0 * e->busy_us / e->wall_us,
                 known(e->snd_thread_demand_pct) ? "ran or waited to run" : "at", t, ran);
        return 1;
    }
    if (known(t)) {
        int k = snprintf(w, n, "one stream thread %s %.0f %% of a core%s", known(e->snd_thread_demand_pct)
                         ? "ran or waited to run" : "at", t, ran);
        if (k > 0 && (size_t)k < n)
            snprintf(w + k, n - (size_t)k, known(e->rcv_proc_pct) ? "; receiver %.0f %%" : "; receiver n/a",
                     e->rcv_proc_pct);
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
    double bdp = diag_bdp_bytes(e), cap = e->autotune_cap_bytes;
    return e->window_bytes > 0 || (known(cap) && known(bdp) && bdp >= cap * DIAG_AUTOTUNE_FRAC);
}

/* Receiver CPU: the receiving thread at 90 % of a core, ran or waited to run
 * (measured where this side receives, or sent by an esxperf peer); else the
 * receiving process at 90 % of a core per stream; else the sender held back by the
 * receiver's window a quarter of its busy time or more while that window was free
 * to grow (no -w, autotuning below half its cap): the receive buffer was full of
 * unread data, so the reading application fell behind. A quarter, not half: a
 * receiver starved of CPU reads in bursts, and between them the sender also waits
 * on the congestion window its delayed ACKs hold back; autotuning's own ramp costs a
 * few RTTs, far less. The receiver's process CPU is no help under a cap (it shows
 * the cap), hence the sender's view. */
static int r_receiver_cpu(const struct diag_evidence *e, char *w, size_t n)
{
    double t = thread_load(e->rcv_thread_pct, e->rcv_thread_demand_pct);
    if (known(t)) {
        snprintf(w, n, "one receiving thread %s %.0f %% of a core",
                 known(e->rcv_thread_demand_pct) ? "ran or waited to run" : "at", t);
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

/* the segments lost on the path, percent of those sent: the retransmits less those
 * the receiver already had (it says so with a DSACK: a sender whose ACKs came late, a
 * crowded core, retransmits what was never lost) */
static double lost_pct(const struct diag_evidence *e)
{
    if (!known(e->retrans) || !(e->segs_out > 0))
        return -1;
    double lost = e->retrans - (known(e->dsack_dups) ? e->dsack_dups : 0);
    return 100.0 * (lost > 0 ? lost : 0) / e->segs_out;
}

/* Network loss: 1 % of the segments lost (retransmitted, less the needless ones), or
 * 1 % of the datagrams (less those the receiver's full socket dropped), is far more than TCP's own probing of a full queue costs (well
 * under 0.5 %), so the path drops packets and the congestion window never opens. */
static int r_loss(const struct diag_evidence *e, char *w, size_t n)
{
    if (e->udp) {
        double drops = socket_drops(e), path = e->udp_loss_pct;
        int k = snprintf(w, n, "%.2f %% of the datagrams lost", e->udp_loss_pct);
        if (known(path) && known(drops) && drops > 0) {
            path = path > drops ? path - drops : 0;
            if (k > 0 && (size_t)k < n)
                snprintf(w + k, n - (size_t)k, ", %.2f %% by the receiver's full socket buffer: %.2f %% on "
                         "the path", drops, path);
        }
        return known(path) && path >= DIAG_LOSS_PCT;
    }
    double pct = lost_pct(e);
    if (!known(pct))
        return 0;
    int k = snprintf(w, n, "%.2f %% of the segments retransmitted", 100.0 * e->retrans / e->segs_out);
    if (known(e->dsack_dups) && e->dsack_dups > 0 && k > 0 && (size_t)k < n)
        snprintf(w + k, n - (size_t)k, ", %.2f %% needlessly (the receiver had them): %.2f %% lost",
                 100.0 * e->dsack_dups / e->segs_out, pct);
    return pct >= DIAG_LOSS_PCT;
}

/* the window and the send buffer held TCP half its busy time or more together;
 * which held it longer */
static int held(const struct diag_evidence *e, double *rw, double *sb)
{
    *rw = pct_of_busy(e->rwnd_limited_us, e->busy_us);
    *sb = pct_of_busy(e->sndbuf_limited_us, e->busy_us);
    return known(*rw) && known(*sb) && *rw + *sb >= DIAG_LIMITED_PCT;
}

/* Receive window (no -w): the sender held back by the receiver's window (with its
 * own buffer, half its busy time or more, the window the longer), and that window at
 * autotuning's bound (the BDP at half its cap): the rate is the window / RTT. */
static int r_receive_window(const struct diag_evidence *e, char *w, size_t n)
{
    double rw, sb, bdp = diag_bdp_bytes(e), win = rcv_window(e);
    if (!held(e, &rw, &sb) || sb > rw)
        return 0;
    if (known(bdp) && known(win))
        snprintf(w, n, "sender held by the receiver's window %.0f %% of its busy time; window %.0f KiB, "
                 "bandwidth-delay product %.0f KiB (RTT %.2f ms), the autotuning cap %.0f KiB", rw,
                 win / 1024, bdp / 1024, e->rtt_us / 1000, e->autotune_cap_bytes / 1024);
    else
        snprintf(w, n, "sender held by the receiver's window %.0f %% of its busy time", rw);
    return window_bounded(e) || !known(e->autotune_cap_bytes);
}

/* Send buffer (no -w): the sender's own socket buffer full, with the window half its
 * busy time or more, the buffer the longer: in flight is capped by SO_SNDBUF's
 * autotuning. */
static int r_send_buffer(const struct diag_evidence *e, char *w, size_t n)
{
    double rw, sb, bdp = diag_bdp_bytes(e);
    int h = held(e, &rw, &sb);
    if (known(bdp))
        snprintf(w, n, "send buffer full %.0f %% of the busy time (the receiver's window %.0f %%); "
                 "bandwidth-delay product %.0f KiB (RTT %.2f ms)", sb, rw, bdp / 1024, e->rtt_us / 1000);
    else
        snprintf(w, n, "send buffer full %.0f %% of the busy time", sb);
    return h && sb > rw;
}

/* the time a thread waited to run while runnable, percent of its loop's run */
static double waited(double used, double demand)
{
    return known(used) && known(demand) && demand > used ? demand - used : -1;
}

/* Crowded: a stream thread runnable but kept off its core by other work (a busy
 * process beside it, VMs on an ESXi host) a quarter of its loop's run or more. Such
 * a thread is not at 90 % of a core when it also sleeps in poll (its ACKs, processed on
 * the same crowded core, come late and its buffer stays full), so the rule above does
 * not see it; nothing the network did explains the rate either (no loss, no window:
 * those rules come first). The side that waited longer is named. */
static int crowded_side(const struct diag_evidence *e, int sender, char *w, size_t n)
{
    double ws = waited(e->snd_thread_pct, e->snd_thread_demand_pct);
    double wr = waited(e->rcv_thread_pct, e->rcv_thread_demand_pct);
    double mine = sender ? ws : wr, other = sender ? wr : ws;
    if (!known(mine) || mine < DIAG_CROWDED_PCT || (known(other) && other > mine))
        return 0;
    snprintf(w, n, "the %s thread waited to run %.0f %% of its run (it ran %.0f %%): crowded off its "
             "core; the %s's waited %s%.0f %%", sender ? "sending" : "receiving", mine,
             sender ? e->snd_thread_pct : e->rcv_thread_pct, sender ? "receiver" : "sender",
             known(other) ? "" : "n/a ", known(other) ? other : 0);
    return 1;
}

static int r_sender_crowded(const struct diag_evidence *e, char *w, size_t n)
{
    return crowded_side(e, 1, w, n);
}

static int r_receiver_crowded(const struct diag_evidence *e, char *w, size_t n)
{
    return crowded_side(e, 0, w, n);
}

/* Network: TCP said what held it (busy time known) and neither window, buffer, loss
 * nor CPU did: the congestion window, i.e. the path's capacity. The line gives each
 * figure that was below its rule, never "none seen" over figures it has. */
static int r_network(const struct diag_evidence *e, char *w, size_t n)
{
    char lw[120];
    link_words(e, lw, sizeof lw);
    if (e->udp) {
        snprintf(w, n, "%.2f %% of the datagrams lost; %s", e->udp_loss_pct, lw);
        return known(e->udp_loss_pct);
    }
    double rw = pct_of_busy(e->rwnd_limited_us, e->busy_us), sb = pct_of_busy(e->sndbuf_limited_us, e->busy_us);
    snprintf(w, n, "TCP held by the receiver's window %.0f %% and its send buffer %.0f %% of its busy "
             "time, %.2f %% of the segments lost: under each rule's bound; %s", rw, sb, lost_pct(e), lw);
    return e->busy_us > 0;
}

static int r_unknown(const struct diag_evidence *e, char *w, size_t n)
{
    (void)e;
    snprintf(w, n, "no rule's evidence was conclusive");
    return 1;
}

/* the classes: key, label and advice (TCP; UDP's where it differs) */
struct diag_class_row {
    const char *key, *label, *advice, *advice_udp;
};

static const struct diag_class_row classes[DIAG_CLASSES] = {
    [DIAG_PATH_MTU] = { "path-mtu", "path MTU",
        "a hop drops full-size packets without an ICMP error (a switch port or vSwitch at a smaller "
        "MTU); confirm with", NULL },
    [DIAG_PACING] = { "pacing", "pacing",
        "the rate asked for (-b, --fq-rate) was reached; drop it to measure the path", NULL },
    [DIAG_LINE_RATE] = { "line-rate", "line rate",
        "the link is full; a faster link, or more uplinks for more flows, is the next step", NULL },
    [DIAG_SENDER_CPU] = { "sender-cpu", "sender CPU",
        "try -P 4 (a core per stream), or check TSO on the sender's uplink",
        "try -P 4 (a core per stream), or larger datagrams (-l) for fewer sends" },
    [DIAG_FRAGMENTATION] = { "fragmentation", "fragmentation",
        "datagrams over the route's MTU leave in fragments: a smaller -l keeps each in one packet", NULL },
    [DIAG_NETWORK_LOSS] = { "network-loss", "network loss",
        "the path drops packets: check the uplinks' error counters, cabling and the switch ports", NULL },
    [DIAG_RECEIVE_WINDOW] = { "receive-window", "receive window",
        "a larger window than autotuning reaches: -w at least rate x RTT, or a higher cap (Linux "
        "tcp_rmem; ESXi's autotuning stops at 16 MiB)", NULL },
    [DIAG_SEND_BUFFER] = { "send-buffer", "send buffer",
        "a larger send buffer than autotuning reaches: -w at least rate x RTT, or a higher cap (Linux "
        "tcp_wmem)", NULL },
    [DIAG_RECEIVER_CPU] = { "receiver-cpu", "receiver CPU",
        "try -P 4 (a core per stream), or check LRO (/Net/TcpipDefLROEnabled) on the receiver",
        "try -P 4 (a core per stream); a larger socket buffer (-w, net.core.rmem_max) rides out "
        "bursts, not a reader that is too slow" },
    [DIAG_RECEIVE_BUFFER] = { "receive-buffer", "receive buffer",
        "a larger receive buffer: -w (Linux caps it at net.core.rmem_max: raise that too), or -P 2 "
        "for more readers", NULL },
    [DIAG_NETWORK] = { "network", "network",
        "the path below the link's speed: a shaper, a slower hop or other traffic; try -P 4 for "
        "more flows", NULL },
    [DIAG_UNKNOWN] = { "unknown", "unknown",
        "measure with TCP_INFO (a Linux peer as the sender) or read the figures above", NULL },
};

/* the rules in the order they are tried; a class may have more than one */
struct diag_rule {
    enum diag_class cls;
    int (*test)(const struct diag_evidence *, char *, size_t);
    const char *advice;           /* the rule's own, else the class's */
};

static const struct diag_rule rules[] = {
    { DIAG_PATH_MTU, diag_r_path_mtu, NULL },
    { DIAG_PACING, r_pacing, NULL },
    { DIAG_RECEIVER_CPU, r_udp_receiver_cpu, NULL },
    { DIAG_RECEIVE_BUFFER, r_receive_buffer, NULL },
    { DIAG_LINE_RATE, r_line_rate, NULL },
    { DIAG_RECEIVE_WINDOW, r_set_window,
      "-w holds the rate (rate = what is in flight / RTT): a larger -w, or none (autotuning)" },
    { DIAG_SENDER_CPU, r_sender_cpu, NULL },
    { DIAG_FRAGMENTATION, diag_r_fragmentation, NULL },
    { DIAG_NETWORK_LOSS, r_loss, NULL },
    { DIAG_RECEIVE_WINDOW, r_receive_window, NULL },
    { DIAG_SEND_BUFFER, r_send_buffer, NULL },
    { DIAG_RECEIVER_CPU, r_receiver_cpu, NULL },
    { DIAG_SENDER_CPU, r_sender_crowded,
      "the sender's core is shared: pin it to a core of its own (-A), or move what crowds it" },
    { DIAG_RECEIVER_CPU, r_receiver_crowded,
      "the receiver's core is shared: pin it to a core of its own (-A), or move what crowds it" },
    { DIAG_NETWORK, r_network, NULL },
    { DIAG_UNKNOWN, r_unknown, NULL },
};
#define NRULES (sizeof rules / sizeof rules[0])

const char *diag_class_key(enum diag_class c)
{
    return (unsigned)c < DIAG_CLASSES ? classes[c].key : NULL;
}

/* the class's advice, with this host's offloads where they are the side it names */
static void advise(const struct diag_evidence *e, const struct diag_rule *r, struct diagnosis *d)
{
    const struct diag_class_row *c = &classes[r->cls];
    const char *a = r->advice ? r->advice : e->udp && c->advice_udp ? c->advice_udp : c->advice;
    int l = snprintf(d->advice, sizeof d->advice, "%s", a);
    if (l < 0 || (size_t)l >= sizeof d->advice)
        return;
    if (d->cls == DIAG_SENDER_CPU && !e->udp && e->local_sender && e->tso_off == 1)
        snprintf(d->advice + l, sizeof d->advice - (size_t)l, "; TSO is off here%s%s",
                 e->link_name ? " on " : "", e->link_name ? e->link_name : "");
    else if (d->cls == DIAG_RECEIVER_CPU && !e->udp && !e->local_sender && e->lro_off == 1)
        snprintf(d->advice + l, sizeof d->advice - (size_t)l, "; LRO is off here (/Net/TcpipDefLROEnabled 0)");
    else if (d->cls == DIAG_PACING && known(udp_loss(e)) && udp_loss(e) >= DIAG_LOSS_PCT)
        snprintf(d->advice + l, sizeof d->advice - (size_t)l, "%s", known(socket_drops(e)) &&
                 socket_drops(e) >= DIAG_OVERFLOW_FRAC * udp_loss(e)
                 ? "; the receiver's full socket buffer dropped most of the loss: a larger -w, or lower -b"
                 : "; the loss is the receiver's or the path's: lower -b until it stops");
}

void diag_decide(const struct diag_evidence *e, struct diagnosis *d)
{
    memset(d, 0, sizeof *d);
    char why[sizeof d->because];
    size_t c = 0;
    for (; c < NRULES - 1; c++) {
        why[0] = '\0';
        if (rules[c].test(e, why, sizeof why))
            break;
    }
    if (c == NRULES - 1)
        rules[c].test(e, why, sizeof why);
    const struct diag_rule *r = &rules[c];
    d->cls = r->cls;
    d->key = classes[r->cls].key;
    d->label = classes[r->cls].label;
    /* --bidir: the line names the direction it judges */
    snprintf(d->because, sizeof d->because, "%s%s", e->direction ? e->direction : "",
             e->direction ? ": " : "");
    size_t k = strlen(d->because);
    snprintf(d->because + k, sizeof d->because - k, "%s", why);
    advise(e, r, d);
    diag_mtu_advice(e, d);
    d->link_mbps = known(e->link_mbps) && e->link_mbps > 0 && !e->link_nominal ? e->link_mbps : -1;
    d->percent_of_link = link_pct(e);
    if (link_passed(e) && !e->link_nominal)
        snprintf(d->link_note, sizeof d->link_note, "the rate passed the %.0f Mb/s %s reports: that speed "
                 "is no bound", e->link_mbps, e->link_name ? e->link_name : "the link");
    diag_list_evidence(e, d);
    diag_list_findings(e, d);
}
