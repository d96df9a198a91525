/* The end of a test in figures: each stream's sender and receiver rows (ours and
 * the peer's), each direction's sums, CPU and efficiency, the sweep's headline
 * (session_totals, pure: it prints nothing), and this side's results for the
 * exchange (session_local_results). */
#include "session.h"
#include "fail.h"
#include "rr_session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void session_local_results(struct session *s, struct test_results *r, const char *server_text,
                           const char *server_json)
{
    memset(r, 0, sizeof *r);
    cpu_util(&s->cpu_a, &s->cpu_b, &r->cpu_user, &r->cpu_system, &r->cpu_total);
    int any_sender = 0, any_receiver = 0;
    double secs = session_seconds(s);
    r->thread_cpu_demand = -1;
    for (int i = 0; i < s->nstreams; i++) {
        struct stream *st = &s->st[i];
        if (st->ev.begin_ns && st->ev.demand_pct > r->thread_cpu_demand)
            r->thread_cpu_demand = st->ev.demand_pct;
        struct stream_book *b = &s->bk[i];
        struct stream_result *x = &r->streams[r->nstreams++];
        x->id = st->id;
        x->bytes = (int64_t)(b->bytes_end - b->bytes_base);
        x->retransmits = -1;
        x->start_time = 0;
        x->end_time = secs;
        if (st->sender) {
            any_sender = 1;
            if (!st->udp && b->retr_end >= 0 && b->retr_base >= 0)
                x->retransmits = b->retr_end - b->retr_base;
            if (st->udp)
                x->packets = (int64_t)(b->blocks_end - b->blocks_base);
        } else {
            any_receiver = 1;
            if (st->udp) {
                x->jitter = b->rx_end.jitter;
                x->errors = b->rx_end.lost - b->rx_base.lost;
                x->packets = (int64_t)(b->rx_end.last_seq - b->rx_base.last_seq);
                x->omitted_errors = b->rx_base.lost;
                x->omitted_packets = (int64_t)b->rx_base.last_seq;
            }
        }
    }
    (void)any_receiver;
    if (!any_sender)
        r->sender_has_retransmits = -1;
    else
        r->sender_has_retransmits = !s->p.udp && s->tcpinfo_ok ? 1 : 0;
    if (!s->p.udp && s->nstreams > 0) {
        stream_congestion(s->st[0].fd, s->congestion, sizeof s->congestion);
        snprintf(r->congestion_used, sizeof r->congestion_used, "%s", s->congestion);
    }
    session_side_evidence(s, &r->ev);
    rr_session_results(s, r);
    r->server_output_text = server_text ? xstrdup(server_text) : NULL;
    r->server_output_json = server_json ? xstrdup(server_json) : NULL;
}

/* the figures of the thread that ran a stream, from the reads its evidence took */
static void thread_figs_of(const struct stream_evidence *e, struct thread_figs *f)
{
    f->wall_s = f->cpu_s = f->wait_s = f->cpu_pct = f->wait_pct = -1;
    if (!e->begin_ns || e->wall_us <= 0)
        return;                   /* never run, or the evidence is off */
    f->wall_s = e->wall_us / 1e6;
    f->cpu_s = e->cpu_s;
    f->cpu_pct = e->cpu_s >= 0 ? e->thread_pct : -1;
    f->wait_s = e->wait_s;
    f->wait_pct = e->wait_s >= 0 ? 100.0 * e->wait_s / f->wall_s : -1;
}

/* rows for stream i: local and (when known) remote */
static void stream_rows(const struct session *s, int i, struct stream_totals *x)
{
    const struct stream *st = &s->st[i];
    const struct stream_book *b = &s->bk[i];
    struct row *snd = &x->snd, *rcv = &x->rcv;
    double secs = session_seconds(s);
    const struct stream_result *rem = s->have_remote ? results_find(&s->remote, st->id) : NULL;
    struct row base;
    memset(&base, 0, sizeof base);
    base.sock = st->fd;
    base.role = session_role(s, i);
    base.start = 0;
    base.end = secs;
    base.udp = st->udp;
    base.retrans = base.cwnd = -1;
    *snd = base;
    *rcv = base;
    snd->sender = 1;
    rcv->sender = 0;
    x->have_snd = x->have_rcv = 0;
    if (st->sender) {
        x->have_snd = 1;
        snd->bytes = b->bytes_end - b->bytes_base;
        snd->packets = (int64_t)(b->blocks_end - b->blocks_base);
        if (!st->udp && b->retr_end >= 0 && b->retr_base >= 0)
            snd->retrans = b->retr_end - b->retr_base;
        snd->cwnd = b->max_cwnd;
        if (rem) {
            x->have_rcv = 1;
            rcv->bytes = (uint64_t)rem->bytes;
            rcv->jitter_ms = rem->jitter * 1000.0;
            rcv->lost = rem->errors;
            rcv->packets = rem->packets;
            if (rem->end_time > 0)
                rcv->end = rem->end_time;
        }
    } else {
        x->have_rcv = 1;
        rcv->bytes = b->bytes_end - b->bytes_base;
        rcv->jitter_ms = b->rx_end.jitter * 1000.0;
        rcv->lost = b->rx_end.lost - b->rx_base.lost;
        rcv->packets = (int64_t)(b->rx_end.last_seq - b->rx_base.last_seq);
        rcv->ooo = (int64_t)(b->rx_end.out_of_order - b->rx_base.out_of_order);
        if (rem) {
            x->have_snd = 1;
            snd->bytes = (uint64_t)rem->bytes;
            snd->packets = rem->packets;
            snd->retrans = s->remote.sender_has_retransmits == 1 ? rem->retransmits : -1;
            if (rem->end_time > 0)
                snd->end = rem->end_time;
        }
    }
    if (st->udp) {
        /* iperf3 shows the sender row with zero jitter and 0/sent */
        snd->jitter_ms = 0;
        snd->lost = 0;
    }
    x->group = session_group(s, i);
    x->sender = st->sender;
    x->tcpinfo_ok = b->tcpinfo_ok;
    x->max_cwnd = b->max_cwnd;
    x->max_snd_wnd = b->max_snd_wnd;
    x->reorder = b->reorder;
    x->max_rtt = b->max_rtt;
    x->min_rtt = b->min_rtt;
    x->mean_rtt = b->n_rtt ? b->sum_rtt / b->n_rtt : -1;
    x->engine = st->path;
    thread_figs_of(&st->ev, &x->thr);
}

/* each group's SUM rows from its streams' rows */
static void group_sums(const struct session *s, struct totals *t)
{
    for (int g = 0; g < GROUPS; g++) {
        struct group_totals *gt = &t->grp[g];
        memset(gt, 0, sizeof *gt);
        gt->snd.sock = gt->rcv.sock = -1;
        gt->snd.end = gt->rcv.end = t->seconds;
        gt->snd.udp = gt->rcv.udp = t->udp;
        gt->snd.sender = 1;
        gt->snd.retrans = gt->rcv.retrans = -1;
        int first = g ? (int)s->p.parallel : 0;
        gt->first_sends = first < s->nstreams && s->st[first].sender;
    }
    for (int i = 0; i < t->n; i++) {
        const struct stream_totals *x = &t->st[i];
        struct group_totals *gt = &t->grp[x->group];
        gt->n++;
        if (x->have_snd) {
            gt->nsnd++;
            row_add(&gt->snd, &x->snd);
            gt->snd.role = x->snd.role;
            if (x->snd.end > gt->snd.end)
                gt->snd.end = x->snd.end;
        }
        if (x->have_rcv) {
            gt->nrcv++;
            row_add(&gt->rcv, &x->rcv);
            gt->rcv.role = x->rcv.role;
            if (x->rcv.end > gt->rcv.end)
                gt->rcv.end = x->rcv.end;
        }
    }
    for (int g = 0; g < GROUPS; g++) {
        struct group_totals *gt = &t->grp[g];
        if (gt->nrcv)
            gt->rcv.jitter_ms /= gt->nrcv;
        gt->snd.jitter_ms = 0;
        gt->snd.lost = 0;
    }
}

/* CPU for the measured period, and efficiency (ttcp's measures); the sweep's row */
static void cpu_figures(const struct session *s, struct totals *t)
{
    uint64_t bytes_local = 0, calls = 0;
    for (int i = 0; i < t->n; i++) {
        const struct stream_totals *x = &t->st[i];
        bytes_local += x->sender ? x->snd.bytes : x->rcv.bytes;
        calls += s->bk[i].calls_end - s->bk[i].calls_base;
    }
    double secs = t->seconds;
    cpu_util(&s->cpu_a, &s->cpu_b, &t->cpu_user, &t->cpu_system, &t->cpu_total);
    t->have_remote = s->have_remote;
    t->remote_total = s->remote.cpu_total;
    t->remote_user = s->remote.cpu_user;
    t->remote_system = s->remote.cpu_system;
    double lcpu_s = cpu_seconds(&s->cpu_a, &s->cpu_b);
    double gbit = (double)bytes_local * 8.0 / 1e9;
    double rcpu_s = s->have_remote ? s->remote.cpu_total / 100.0 * secs : -1;
    t->cpu_seconds_local = lcpu_s;
    t->cpu_seconds_remote = rcpu_s;
    t->gbit_per_cpu_local = lcpu_s > 0 ? gbit / lcpu_s : 0;
    t->gbit_per_cpu_remote = rcpu_s > 0 ? gbit / rcpu_s : 0;
    t->io_calls_per_second = secs > 0 ? (double)calls / secs : 0;
    t->threads_cpu_s = -1;
    t->fig.thread_cpu_max = t->fig.thread_wait_max = -1;
    for (int i = 0; i < t->n; i++) {
        const struct thread_figs *th = &t->st[i].thr;
        if (th->cpu_s >= 0)
            t->threads_cpu_s = (t->threads_cpu_s < 0 ? 0 : t->threads_cpu_s) + th->cpu_s;
        if (th->cpu_pct > t->fig.thread_cpu_max)
            t->fig.thread_cpu_max = th->cpu_pct;
        if (th->wait_pct > t->fig.thread_wait_max)
            t->fig.thread_wait_max = th->wait_pct;
    }

    const struct group_totals *g0 = &t->grp[0];
    struct run_result *f = &t->fig;
    uint64_t main_bytes = g0->nrcv ? g0->rcv.bytes : g0->snd.bytes;
    /* the receiver's bytes over the receiver's own seconds (iperf3's sum_received):
     * what a shaper's queue delivers after the sender stopped arrives in the
     * receiver's time, and over the sender's shorter one would read as more than the
     * path carried */
    double main_secs = g0->nrcv && g0->rcv.end > 0 ? g0->rcv.end : secs;
    f->seconds = secs;
    f->gbps = main_secs > 0 ? (double)main_bytes * 8.0 / main_secs / 1e9 : 0;
    f->cpu_local = t->cpu_total;
    f->cpu_remote = s->have_remote ? s->remote.cpu_total : -1;
    f->retrans = g0->snd.retrans;
    f->bytes_sent = g0->snd.bytes;
    f->bytes_received = g0->rcv.bytes;
    double cpu_s = lcpu_s + (rcpu_s > 0 ? rcpu_s : 0);
    double bits = (double)main_bytes * 8.0 / 1e9;
    f->gbit_per_cpu_s = cpu_s > 0 ? bits / cpu_s : 0;
}

void session_totals(const struct session *s, struct totals *t)
{
    memset(t, 0, sizeof *t);
    t->is_client = s->is_client;
    t->udp = s->p.udp;
    t->bidir = s->p.bidir;
    t->reverse = s->p.reverse;
    t->parallel = s->p.parallel;
    t->cooldown = s->is_client ? s->o->cooldown : 0;
    t->local_sender = s->is_client ? (!s->p.reverse || s->p.bidir) : s->p.reverse;
    t->tcp_info = s->tcpinfo_ok;
    t->seconds = session_seconds(s);
    t->n = s->nstreams;
    for (int i = 0; i < s->nstreams; i++)
        stream_rows(s, i, &t->st[i]);
    group_sums(s, t);
    cpu_figures(s, t);
    if (s->rr) {
        rr_session_end(s);
        t->rr = s->rr;
    }
    snprintf(t->congestion_local, sizeof t->congestion_local, "%s", s->congestion);
    snprintf(t->congestion_remote, sizeof t->congestion_remote, "%s",
             s->have_remote ? s->remote.congestion_used : "");
}

void session_summary_so_far(struct session *s)
{
    session_stop_all(s);
    session_summary(s);
}

void session_summary(struct session *s)
{
    struct totals *t = xmalloc(sizeof *t);
    session_totals(s, t);
    if (!s->rr)    /* --rr has a verdict of its own (rr_report.h) */
        session_diagnose(s, t);
    s->rep->sink->summary(s->rep, t);
    s->fig = t->fig;
    free(t);
}
