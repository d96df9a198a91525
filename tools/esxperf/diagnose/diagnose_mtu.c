/* The verdict's rules on the path's MTU (diagnose.h): path-mtu, a hop that drops
 * full-size packets without a word, tried first; fragmentation, datagrams over the
 * route's MTU whose fragments' loss is the datagrams' loss, tried before the loss
 * rule; their advice with the esxmtu command that confirms it, and the finding of
 * fragmented datagrams beside another bottleneck. Each rule reads only known
 * figures; the thresholds are diagnose.h's. */
#include "diagnose.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static int known(double v)
{
    return v >= 0;
}

/* the IP header's bytes, and with UDP's the bytes before a datagram's payload */
static double ip_header(const struct diag_evidence *e)
{
    return e->ipv6 ? 40 : 20;
}

/* the IP packets one datagram leaves in: 1 when it fits the route's MTU, else its
 * fragments (each carries a multiple of 8 bytes; IPv6 adds an 8-byte fragment
 * header); -1 unknown */
double diag_frags_per_datagram(const struct diag_evidence *e)
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
int diag_r_path_mtu(const struct diag_evidence *e, char *w, size_t n)
{
    double pkt = data_packet(e);
    if (e->udp) {
        double lost = udp_lost_pct(e), k = diag_frags_per_datagram(e);
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

/* Fragmentation: datagrams larger than the route's MTU leave in fragments, and one
 * fragment lost loses its datagram (k fragments turn a packet loss p into a datagram
 * loss near k x p), so the 1 % of datagrams lost that the loss rule reads comes from
 * the fragmenting; before that rule, as its cause. Where this host counted no
 * fragment made (the don't-fragment bit, or a datagram that fit) it does not fire. */
int diag_r_fragmentation(const struct diag_evidence *e, char *w, size_t n)
{
    double k = diag_frags_per_datagram(e), lost = udp_lost_pct(e);
    if (!known(k) || k < 2 || !known(lost) || e->frag_creates == 0)
        return 0;
    snprintf(w, n, "%.2f %% of the datagrams lost; each %.0f-byte datagram left in %.0f fragments (route MTU "
             "%.0f)", lost, e->udp_len, k, e->route_mtu);
    return lost >= DIAG_LOSS_PCT;
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
void diag_mtu_advice(const struct diag_evidence *e, struct diagnosis *d)
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
void diag_list_findings(const struct diag_evidence *e, struct diagnosis *d)
{
    double k = diag_frags_per_datagram(e);
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

void diag_finding_line(const struct diagnosis *d, int i, char *buf, size_t len)
{
    if (i >= 0 && i < d->nfind)
        snprintf(buf, len, "finding: %s: %s", d->find[i].key, d->find[i].text);
    else if (len)
        buf[0] = '\0';
}
