/* Human and JSON reports. Keys and their order are part of the interface. */
#include "fallback.h"
#include "report.h"
#include "report_team.h"
#include "esxcli_ping.h"
#include "escape.h"
#include "fail.h"
#include "jsonw.h"
#include "packet.h"
#include "stop.h"
#include "version.h"

#include <errno.h>
#include <string.h>

static const char *fam_name(int family) { return family == AF_INET6 ? "ipv6" : "ipv4"; }

void report_arith(char *buf, size_t len, int family, uint32_t mtu)
{
    snprintf(buf, len, "MTU %u = %u data + 8 %s + %u %s", mtu, probe_data_len(family, mtu),
             family == AF_INET6 ? "ICMPv6" : "ICMP", family == AF_INET6 ? 40u : 20u,
             family == AF_INET6 ? "IPv6" : "IPv4");
}

static void addr_text(const union sockaddr_any *a, int set, char *buf, size_t len)
{
    if (set)
        net_ntop(a, buf, len);
    else
        snprintf(buf, len, "unknown");
}

/* "; 198.18.0.1 sent frag needed with next-hop MTU 0, which cannot be (below the IPv4
 * minimum 68): ignored" for a too-big whose MTU was impossible; "" when none came */
static void bogus_note(const struct peer *pe, char *buf, size_t len)
{
    const struct vstats *s = &pe->st;
    char who[64], why[64];
    buf[0] = 0;
    if (!s->bogus)
        return;
    addr_text(&s->bogus_from, s->bogus_from_set, who, sizeof who);
    uint32_t passed = s->small_recv ? pe->small_mtu : 0;
    if (pe->did_discover && pe->disc.mtu > passed)
        passed = pe->disc.mtu;
    if (!verdict_bogus_why(pe->family, s->bogus_mtu, pe->mtu, passed, why, sizeof why))
        snprintf(why, sizeof why, "contradicted by the replies");
    snprintf(buf, len, "; %s sent %s with next-hop MTU %u, which cannot be (%s): ignored", who,
             pe->family == AF_INET6 ? "Packet Too Big" : "frag needed", s->bogus_mtu, why);
}

/* "No buffer space available (refused 8 times over 127 ms)" */
static void send_fail_text(const struct vstats *s, char *buf, size_t len)
{
    unsigned t = s->send_fail_tries ? s->send_fail_tries : 1;
    snprintf(buf, len, "%s (refused %u time%s over %u ms)", errtext(s->send_fail_err), t, t == 1 ? "" : "s",
             t > 1 && t <= 32 ? (1u << (t - 1)) - 1 : 0);
}

static void evidence_local(const struct peer *pe, char *buf, size_t len)
{
    const struct vstats *s = &pe->st;
    char sf[96];
    if (!s->local) {               /* ENOBUFS for full-size probes while small ones come back */
        send_fail_text(s, sf, sizeof sf);
        snprintf(buf, len, "send failed here: %s for full-size probes while small ones are answered "
                 "(%u/%u): this host's link refuses the size (a veth or vNIC whose far end has a smaller MTU?)",
                 sf, s->small_recv, s->small_sent);
    } else if (s->local_mtu) {
        snprintf(buf, len, "send failed here: Message too long (this host's interface MTU is %u)", s->local_mtu);
    } else if (fallback_has(pe->family == AF_INET6 ? "IPV6_MTU_DISCOVER" : "IP_MTU_DISCOVER")) {
        /* without PMTUDISC_PROBE the kernel applies its path-MTU cache: a router's
         * earlier frag-needed / Packet Too Big refuses the size here as well */
        snprintf(buf, len, "send failed here: Message too long (this host's interface MTU is smaller, "
                 "or its path-MTU cache holds a router's smaller MTU: %s was refused)",
                 pe->family == AF_INET6 ? "IPV6_MTU_DISCOVER" : "IP_MTU_DISCOVER");
    } else {
        snprintf(buf, len, "send failed here: Message too long (this host's interface MTU is smaller)");
    }
}

static void evidence_black_hole(const struct peer *pe, char *buf, size_t len)
{
    const struct vstats *s = &pe->st;
    uint32_t passed = pe->small_mtu, failed = pe->mtu;
    if (pe->did_discover && pe->disc.mtu) {
        passed = pe->disc.mtu;
        failed = pe->disc.smallest_failed ? pe->disc.smallest_failed : pe->mtu;
    }
    char note[200];
    bogus_note(pe, note, sizeof note);
    snprintf(buf, len, "small probes answered (%u/%u), full-size ones %s; largest passed %u, smallest failed %u%s",
             s->small_recv, s->small_sent, s->bogus ? "got no true answer" : "vanish without an error", passed, failed,
             note);
}

/* the evidence sentence for one verdict */
static void evidence(const struct peer *pe, char *buf, size_t len)
{
    const struct vstats *s = &pe->st;
    char who[64], note[200], sf[96];
    addr_text(&s->router, s->router_set, who, sizeof who);
    switch (pe->verdict) {
    case V_PASS: {
        unsigned loss = s->big_sent ? (unsigned)(100 * (s->big_sent - s->big_recv) / s->big_sent) : 0;
        snprintf(buf, len, "%u/%u full-size replies, %u%% loss, rtt min/avg/max %.3f/%.3f/%.3f ms",
                 s->big_recv, s->big_sent, loss, s->rtt_min, s->rtt_sum / s->big_recv, s->rtt_max);
        break;
    }
    case V_LOCAL_MTU:
        evidence_local(pe, buf, len);
        break;
    case V_TOO_BIG:
        snprintf(buf, len, "router %s: %s, next-hop MTU %u", who,
                 pe->family == AF_INET6 ? "Packet Too Big" : "frag needed and DF set", s->next_hop_mtu);
        break;
    case V_SHORT_REPLY:
        snprintf(buf, len, "%u replies came back shorter than the %u data bytes sent",
                 s->big_short, probe_data_len(pe->family, pe->mtu));
        break;
    case V_UNREACHABLE:
        if (s->send_err)
            snprintf(buf, len, "send failed here: %s", errtext(s->send_err));
        else
            snprintf(buf, len, "%s from %s", verdict_icmp_name(pe->family, s->icmp_type, s->icmp_code), who);
        break;
    case V_TTL_EXCEEDED:
        snprintf(buf, len, "%s at %s (raise -t)", verdict_icmp_name(pe->family, s->icmp_type, s->icmp_code), who);
        break;
    case V_BLACK_HOLE:
        evidence_black_hole(pe, buf, len);
        break;
    case V_INTERRUPTED:
        snprintf(buf, len, "interrupted (%s) before its probes were done (%u of %u without an outcome); "
                 "so far %u/%u full-size and %u/%u small probes answered; no conclusion", signal_name(stop_requested()),
                 s->pending, s->pending + s->big_sent + s->small_sent, s->big_recv, s->big_sent, s->small_recv,
                 s->small_sent);
        break;
    case V_SEND_FAILED:
        send_fail_text(s, sf, sizeof sf);
        snprintf(buf, len, "send failed here: %s, and nothing answered: this host's interface queue or "
                 "socket buffer is full; no MTU conclusion", sf);
        break;
    default:
        bogus_note(pe, note, sizeof note);
        snprintf(buf, len, "no reply, not even to small probes (%u sent): peer down or filtering ICMP; "
                 "no MTU conclusion%s", s->small_sent + s->big_sent, note);
        break;
    }
}

static void human_discover(FILE *f, const struct report_ctx *c, const struct peer *pe)
{
    const struct disc_report *d = &pe->disc;
    if (c->interrupted && d->state == DS_RUN)
        fprintf(f, "  discovery interrupted: largest answered %u; ", d->mtu);
    else if (d->state == DS_FOUND)
        fprintf(f, "  discovered path MTU %u (%u data bytes): smallest failed %u (%s); ",
                d->mtu, probe_data_len(pe->family, d->mtu), d->smallest_failed ? d->smallest_failed : d->mtu + 1,
                d->proof == DP_MAX ? "the largest IP packet passed" : disc_proof_name(d->proof));
    else if (d->state == DS_NONE)
        fprintf(f, "  discovery: no size answered; ");
    else
        fprintf(f, "  discovery incomplete: largest answered %u; ", d->mtu);
    fprintf(f, "%u round%s, %u timeout%s, %u probes, %.2f s\n", d->rounds, d->rounds == 1 ? "" : "s", d->timeouts,
            d->timeouts == 1 ? "" : "s", d->probes, d->seconds);
}

static const char *res_text(enum probe_res res, char *buf, size_t len, const struct trace_hop *h, int family)
{
    if (res == PR_LOST && h->big_bogus) {
        char who[64];
        addr_text(&h->big_bogus_from, h->big_bogus_from.sa.sa_family != 0, who, sizeof who);
        snprintf(buf, len, "* (ignored: %s, MTU %u from %s cannot be)", family == AF_INET6 ? "PACKET TOO BIG"
                 : "FRAG NEEDED", h->big_bogus_mtu, who);
        return buf;
    }
    switch (res) {
    case PR_REPLY: snprintf(buf, len, "reply %.3f ms", h->big_rtt_ms); break;
    case PR_TTL: snprintf(buf, len, "passes"); break;
    case PR_TOO_BIG: snprintf(buf, len, "%s, MTU %u", family == AF_INET6 ? "PACKET TOO BIG" : "FRAG NEEDED", h->big_info); break;
    case PR_LOCAL_MTU: snprintf(buf, len, "LOCAL MTU %u", h->big_info); break;
    case PR_UNREACH: snprintf(buf, len, "unreachable"); break;
    case PR_SEND_FAIL: snprintf(buf, len, "SEND FAILED here"); break;
    case PR_SHORT: snprintf(buf, len, "short reply"); break;
    default: snprintf(buf, len, "*"); break;
    }
    return buf;
}

/* one hop's row, without its number */
static void trace_row(const struct trace_report *t, int h, int family, char *buf, size_t len)
{
    const struct trace_hop *x = &t->hop[h];
    char a[64], sm[32], bg[160];
    if (x->small_from_set)
        net_ntop(&x->small_from, a, sizeof a);
    else if (x->big_from_set)
        net_ntop(&x->big_from, a, sizeof a);
    else
        snprintf(a, sizeof a, "*");
    if (x->small_res == PR_REPLY || x->small_res == PR_TTL)
        snprintf(sm, sizeof sm, "%.3f ms", x->small_rtt_ms);
    else
        snprintf(sm, sizeof sm, "*");
    res_text(x->big_res, bg, sizeof bg, x, family);
    if (x->big_res == PR_TOO_BIG && x->big_from_set) {
        char r[64];
        net_ntop(&x->big_from, r, sizeof r);
        size_t l = strlen(bg);
        snprintf(bg + l, sizeof bg - l, " from %s", r);
    }
    snprintf(buf, len, "%-28s %-12s %s", a, sm, bg);
}

/* the hop table; a run of identical rows (a silent target behind the limiting
 * router answers every TTL with the same refusal) is folded into one line */
static void trace_table(FILE *f, const struct peer *pe)
{
    const struct trace_report *t = pe->trace;
    char row[256], prev[256] = "";
    int run_from = 0;
    for (int h = 1; h <= t->nhops + 1; h++) {
        if (h <= t->nhops)
            trace_row(t, h, pe->family, row, sizeof row);
        if (h <= t->nhops && run_from && strcmp(row, prev) == 0)
            continue;
        if (run_from && h - 1 > run_from) {       /* hops run_from+1 .. h-1 repeated it */
            if (h - 1 == run_from + 1)
                fprintf(f, "  %3d  %s\n", h - 1, prev);
            else
                fprintf(f, "  %3d-%d  the same as hop %d (%d hops)\n", run_from + 1, h - 1, run_from,
                        h - 1 - run_from);
        }
        if (h > t->nhops)
            break;
        fprintf(f, "  %3d  %s\n", h, row);
        snprintf(prev, sizeof prev, "%s", row);
        run_from = h;
    }
}

static void human_trace(FILE *f, const struct peer *pe)
{
    const struct trace_report *t = pe->trace;
    fprintf(f, "  trace (TTL 1..%d, small %u, full-size %u):\n", t->max_hops, t->small_mtu, t->mtu);
    fprintf(f, "  %3s  %-28s %-12s %s\n", "hop", "address", "small", "full-size");
    trace_table(f, pe);
    char who[64] = "?", prev[64] = "?";
    int h = t->limit_hop;
    if (t->kind == TR_TOO_BIG) {      /* the refusing router, wherever it answered */
        for (int k = 1; k <= t->nhops; k++)
            if (t->hop[k].big_res == PR_TOO_BIG && t->hop[k].big_from_set) {
                net_ntop(&t->hop[k].big_from, who, sizeof who);
                break;
            }
    } else if (h >= 1 && h <= t->nhops) {
        const struct trace_hop *x = &t->hop[h];
        if (x->small_from_set)
            net_ntop(&x->small_from, who, sizeof who);
        if (h > 1 && t->hop[h - 1].small_from_set)
            net_ntop(&t->hop[h - 1].small_from, prev, sizeof prev);
    }
    switch (t->kind) {
    case TR_PASS: fprintf(f, "  trace: full-size probes reach the target (hop %d)\n", t->dest_hop); break;
    case TR_TOO_BIG: fprintf(f, "  trace: hop %d (%s) limits the path: next-hop MTU %u\n", h, who, t->limit_mtu); break;
    case TR_VANISH:
        if (h <= 1)
            fprintf(f, "  trace: full-size probes vanish before hop 1 (%s): on this host's link or in that hop\n", who);
        else
            fprintf(f, "  trace: full-size probes vanish after hop %d (%s), before hop %d (%s)\n", h - 1, prev, h, who);
        break;
    case TR_LOCAL:
        if (t->limit_mtu)
            fprintf(f, "  trace: this host's interface MTU (%u) limits the path\n", t->limit_mtu);
        else
            fprintf(f, "  trace: this host refuses to send full-size probes\n");
        break;
    case TR_NO_REPLY: fprintf(f, "  trace: no hop answered\n"); break;
    default: fprintf(f, "  trace: no conclusion (hops silent)\n"); break;
    }
}

static int via_esxcli(const struct report_ctx *c)
{
    return c->ns && c->ns->method == NSM_ESXCLI;
}

/* "raw", "dgram"... or "esxcli" */
static const char *method_of(const struct report_ctx *c, int family)
{
    return via_esxcli(c) ? "esxcli" : probe_method_name(c->p->method[family == AF_INET6]);
}

/* the netstack line of the header: which one, where its name came from, how it was reached */
static void human_netstack(FILE *f, const struct netstack *ns)
{
    if (!ns || !ns->name[0])
        return;
    fprintf(f, "netstack %s (%s): ", ns->name, ns->from);
    if (ns->method == NSM_WORD)
        fprintf(f, "entered with the ++netstack=%s launch word (%s)\n", ns->name, ns->note);
    else if (ns->method == NSM_ESXCLI)
        fprintf(f, "not entered (%s): probing through esxcli network diag ping\n", ns->note);
    else if (strcmp(ns->name, NETSTACK_DEFAULT) != 0)
        fprintf(f, "not entered, probing in this process's netstack (%s)\n", ns->note);
    else
        fprintf(f, "%s\n", ns->note);
}

void report_human(FILE *f, const struct report_ctx *c, const struct peer *peers, size_t n, int exit_code)
{
    int shown[2] = { 0, 0 };
    unsigned pass = 0;
    for (size_t i = 0; i < n; i++)
        pass += verdict_ok(peers[i].verdict);
    if (!c->quiet)
        human_netstack(f, c->ns);
    if (!c->quiet)
        for (size_t i = 0; i < n; i++) {
            int fi = peers[i].family == AF_INET6;
            if (shown[fi])
                continue;
            shown[fi] = 1;
            char a[96];
            report_arith(a, sizeof a, peers[i].family, peers[i].mtu);
            fprintf(f, "%s, DF set; method %s: %s\n", a, method_of(c, peers[i].family),
                    via_esxcli(c) ? ecp_method_desc() : prober_method_desc(c->p, peers[i].family));
        }
    int nf;
    (void)fallback_list(&nf);
    char line[256];
    for (int i = 0; !c->quiet && i < nf; i++)
        fprintf(f, "fallback: %s\n", fallback_text(i, line, sizeof line));
    for (size_t i = 0; i < n; i++) {
        const struct peer *pe = &peers[i];
        char ev[512], addr[64], name[128], given[41];
        net_ntop(&pe->addr, addr, sizeof addr);
        esc_text(pe->name, given, sizeof given);     /* the name as given, cut, terminal-safe */
        if (strcmp(addr, pe->name) == 0)
            snprintf(name, sizeof name, "%s", addr);
        else
            snprintf(name, sizeof name, "%s (%s)", given, addr);
        evidence(pe, ev, sizeof ev);
        fprintf(f, "%-18s %-11s %s\n", name, verdict_name(pe->verdict), ev);
        if (pe->did_discover)
            human_discover(f, c, pe);
        if (pe->trace && !c->quiet)
            human_trace(f, pe);
    }
    size_t nf_team = report_team_human(f, c->team, c->verbose && !c->quiet);
    report_each_human(f, c->each);
    nf_team += report_each_findings(f, c->each);
    char findings[40] = "";
    if (nf_team)
        snprintf(findings, sizeof findings, "; %zu finding%s", nf_team, nf_team == 1 ? "" : "s");
    fprintf(f, "summary: %u of %zu peer%s pass%s%s%s%s (exit %d)\n", pass, n, n == 1 ? "" : "s",
            n == 1 ? "es" : "", findings, c->interrupted ? "; " : "", c->interrupted ? c->interrupted : "",
            exit_code);
}

static void jaddr(struct jsonw *w, const char *key, const union sockaddr_any *a, int set)
{
    if (!set) {
        jw_null(w, key);
        return;
    }
    char b[64];
    net_ntop(a, b, sizeof b);
    jw_str(w, key, b);
}

static void juint_or_null(struct jsonw *w, const char *key, uint32_t v)
{
    if (v)
        jw_uint(w, key, v);
    else
        jw_null(w, key);
}

/* evidence keys added after the first release (kept after the original ones) */
static void json_evidence_more(struct jsonw *w, const struct peer *pe)
{
    const struct vstats *s = &pe->st;
    if (s->send_fail || s->small_send_fail)
        jw_str(w, "send_error", errtext(s->send_fail_err));
    else if (s->local)
        jw_str(w, "send_error", errtext(EMSGSIZE));
    else if (s->send_err && s->unreach)
        jw_str(w, "send_error", errtext(s->send_err));
    else
        jw_null(w, "send_error");
    if (s->bogus) {
        jw_uint(w, "bogus_next_hop_mtu", s->bogus_mtu);
        jaddr(w, "bogus_router", &s->bogus_from, s->bogus_from_set);
    } else {
        jw_null(w, "bogus_next_hop_mtu");
        jw_null(w, "bogus_router");
    }
}

static void json_trace(struct jsonw *w, const struct trace_report *t)
{
    jw_obj(w, "trace");
    jw_str(w, "result", trace_kind_name(t->kind));
    if (t->limit_hop)
        jw_int(w, "limit_hop", t->limit_hop);
    else
        jw_null(w, "limit_hop");
    juint_or_null(w, "limit_mtu", t->limit_mtu);
    if (t->dest_hop)
        jw_int(w, "target_hop", t->dest_hop);
    else
        jw_null(w, "target_hop");
    jw_uint(w, "probes", t->probes);
    jw_double_prec(w, "seconds", t->seconds, 3);
    jw_arr(w, "hops");
    for (int h = 1; h <= t->nhops; h++) {
        const struct trace_hop *x = &t->hop[h];
        jw_obj(w, NULL);
        jw_int(w, "hop", h);
        jaddr(w, "address", x->small_from_set ? &x->small_from : &x->big_from,
              x->small_from_set || x->big_from_set);
        jw_str(w, "small", probe_res_name(x->small_res));
        jw_str(w, "full_size", probe_res_name(x->big_res));
        jaddr(w, "full_size_from", &x->big_from, x->big_from_set);
        juint_or_null(w, "mtu", x->big_res == PR_TOO_BIG ? x->big_info : 0);
        if (x->big_bogus)
            jw_uint(w, "bogus_mtu", x->big_bogus_mtu);
        else
            jw_null(w, "bogus_mtu");
        jw_end(w);
    }
    jw_end(w);
    jw_end(w);
}

/* one element of peers[] */
static void json_peer(struct jsonw *w, const struct report_ctx *c, const struct peer *pe)
{
    const struct vstats *s = &pe->st;
    char addr[64];
    net_ntop(&pe->addr, addr, sizeof addr);
    jw_obj(w, NULL);
    jw_str(w, "target", pe->name);
    jw_str(w, "address", addr);
    jw_str(w, "family", fam_name(pe->family));
    jw_uint(w, "mtu", pe->mtu);
    jw_uint(w, "payload", probe_data_len(pe->family, pe->mtu));
    jw_str(w, "method", method_of(c, pe->family));
    jw_str(w, "verdict", verdict_name(pe->verdict));
    char ev[512];
    evidence(pe, ev, sizeof ev);
    jw_obj(w, "evidence");
    jw_str(w, "text", ev);
    jaddr(w, "router", &s->router, s->router_set && (s->too_big || s->unreach || s->ttl));
    juint_or_null(w, "next_hop_mtu", s->too_big ? s->next_hop_mtu : 0);
    juint_or_null(w, "local_mtu", s->local ? s->local_mtu : 0);
    if (s->unreach || s->ttl)
        jw_str(w, "icmp", s->send_err ? errtext(s->send_err)
                           : verdict_icmp_name(pe->family, s->icmp_type, s->icmp_code));
    else
        jw_null(w, "icmp");
    json_evidence_more(w, pe);
    jw_end(w);
    jw_obj(w, "probes");
    jw_uint(w, "sent", s->big_sent);
    jw_uint(w, "received", s->big_recv);
    jw_uint(w, "short", s->big_short);
    jw_uint(w, "small_sent", s->small_sent);
    jw_uint(w, "small_received", s->small_recv);
    jw_double_prec(w, "loss_percent",
                   s->big_sent ? 100.0 * (s->big_sent - s->big_recv) / s->big_sent : 0, 1);
    jw_end(w);
    if (s->big_recv) {
        jw_obj(w, "rtt_ms");
        jw_double_prec(w, "min", s->rtt_min, 3);
        jw_double_prec(w, "avg", s->rtt_sum / s->big_recv, 3);
        jw_double_prec(w, "max", s->rtt_max, 3);
        jw_end(w);
    } else {
        jw_null(w, "rtt_ms");
    }
    if (pe->did_discover && pe->disc.state == DS_FOUND)
        jw_uint(w, "discovered_mtu", pe->disc.mtu);
    else
        jw_null(w, "discovered_mtu");
    if (pe->did_discover) {
        const struct disc_report *d = &pe->disc;
        jw_obj(w, "discover");
        jw_str(w, "state", disc_state_name(d->state));
        juint_or_null(w, "mtu", d->mtu);
        juint_or_null(w, "smallest_failed", d->smallest_failed);
        jw_str(w, "proof", disc_proof_name(d->proof));
        jaddr(w, "router", &d->router, d->router_set);
        jw_uint(w, "rounds", d->rounds);
        jw_uint(w, "timeouts", d->timeouts);
        jw_uint(w, "probes", d->probes);
        jw_double_prec(w, "seconds", d->seconds, 3);
        jw_end(w);
    }
    if (pe->trace)
        json_trace(w, pe->trace);
    jw_end(w);
}

char *report_json(const struct report_ctx *c, const struct peer *peers, size_t n, int exit_code)
{
    struct jsonw w;
    jw_init(&w, 1);
    jw_obj(&w, NULL);
    jw_str(&w, "tool", tool_name);
    jw_str(&w, "version", version_string());
    jw_arr(&w, "peers");
    unsigned pass = 0;
    for (size_t i = 0; i < n; i++) {
        pass += verdict_ok(peers[i].verdict);
        json_peer(&w, c, &peers[i]);
    }
    jw_end(&w);
    jw_obj(&w, "summary");
    jw_uint(&w, "peers", n);
    jw_uint(&w, "pass", pass);
    jw_uint(&w, "fail", n - pass);
    jw_int(&w, "exit", exit_code);
    jw_end(&w);
    /* added after the first release: kept after the original keys; name null when
     * none was named (this process's own netstack) */
    jw_obj(&w, "netstack");
    if (c->ns && c->ns->name[0]) {
        jw_str(&w, "name", c->ns->name);
        jw_str(&w, "from", c->ns->from);
        jw_str(&w, "method", netstack_method_name(c->ns->method));
        jw_str(&w, "note", c->ns->note);
    } else {
        jw_null(&w, "name");
        jw_null(&w, "from");
        jw_str(&w, "method", netstack_method_name(NSM_CURRENT));
        jw_null(&w, "note");
    }
    jw_end(&w);
    /* the socket options this host refused and what was done instead ([] if none) */
    fallback_json(&w, "fallbacks");
    report_team_json(&w, c->team, c->each);
    report_each_json(&w, c->each);
    if (c->interrupted)
        jw_str(&w, "error", c->interrupted);
    jw_end(&w);
    char *out = xstrdup(jw_text(&w));
    jw_free(&w);
    return out;
}
