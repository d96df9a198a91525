/* The -J document in iperf3's structure: "start" (connected streams, system,
 * timestamp, the test's parameters), one "intervals" element per interval,
 * "end" (per-stream sender/receiver objects, the sums, CPU, congestion, and our
 * additions under "esxperf"). Every key of the document is written here; with
 * --json-stream each part is also one event line as iperf3 3.17+ writes it
 * ("start", "interval", "server_output_json"/"_text", "error", "end"). This is
 * the JSON sink (report_json_sink): report.c's report_sink_for picks it for -J. */
#include "report.h"
#include "rr_report.h"
#include "fallback.h"
#include "perf_netstack.h"
#include "fail.h"
#include "udp.h"
#include "version.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void rep_row_json_open(struct jsonw *w, const char *key, const struct row *row)
{
    jw_obj(w, key);
    if (row->sock >= 0)
        jw_int(w, "socket", row->sock);
    jw_double(w, "start", row->start);
    jw_double(w, "end", row->end);
    jw_double(w, "seconds", row->end - row->start);
    jw_uint(w, "bytes", row->bytes);
    jw_double(w, "bits_per_second", row_bps(row));
}

void rep_row_json(struct jsonw *w, const char *key, const struct row *row, int interval)
{
    rep_row_json_open(w, key, row);
    if (row->udp) {
        if (!(interval && row->sender)) {
            jw_double(w, "jitter_ms", row->jitter_ms);
            jw_int(w, "lost_packets", row->lost);
        }
        jw_int(w, "packets", row->packets);
        if (!(interval && row->sender)) {
            jw_double(w, "lost_percent", udp_loss_percent(row->lost, row->packets));
            if (row->sock >= 0)
                jw_int(w, "out_of_order", row->ooo);
        }
    } else if (row->sender) {
        jw_int(w, "retransmits", row->retrans);
        if (interval && row->sock >= 0) {
            /* in iperf3 3.22's order; snd_wnd and reorder -1 where unknown */
            jw_int(w, "snd_cwnd", row->cwnd);
            jw_int(w, "snd_wnd", row->snd_wnd);
            jw_int(w, "rtt", row->rtt);
            jw_int(w, "rttvar", row->rttvar);
            jw_int(w, "pmtu", row->pmtu);
            jw_int(w, "reorder", row->reorder);
        }
    }
    if (interval)
        jw_bool(w, "omitted", row->omitted);
    jw_bool(w, "sender", row->sender);
    jw_end(w);
}

/* the "start" object under key (the document's "start", an event's "data") */
static void json_start_obj(struct jsonw *w, const char *key, const struct start_info *si)
{
    const struct test_params *p = si->p;
    char tbuf[64], ver[64];
    time_t now = (time_t)si->now;
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(tbuf, sizeof tbuf, "%a, %d %b %Y %H:%M:%S GMT", &tm);
    jw_obj(w, key);
    jw_arr(w, "connected");
    for (int i = 0; i < si->n; i++) {
        const struct rep_ends *e = &si->ends[i];
        jw_obj(w, NULL);
        jw_int(w, "socket", e->sock);
        jw_str(w, "local_host", e->lhost);
        jw_int(w, "local_port", e->lport);
        jw_str(w, "remote_host", e->rhost);
        jw_int(w, "remote_port", e->rport);
        jw_end(w);
    }
    jw_end(w);
    snprintf(ver, sizeof ver, "esxperf %s", version_string());
    jw_str(w, "version", ver);
    jw_str(w, "system_info", si->system);
    jw_obj(w, "timestamp");
    jw_str(w, "time", tbuf);
    jw_int(w, "timesecs", si->now);
    jw_int(w, "timemillisecs", si->now_ms);
    jw_end(w);
    jw_obj(w, si->is_client ? "connecting_to" : "accepted_connection");
    jw_str(w, "host", si->host);
    jw_int(w, "port", si->port);
    jw_end(w);
    jw_str(w, "cookie", si->cookie);
    if (si->mss >= 0)
        jw_int(w, "tcp_mss_default", si->mss);
    if (si->sndbuf >= 0)
        jw_int(w, "sndbuf_actual", si->sndbuf);
    if (si->rcvbuf >= 0)
        jw_int(w, "rcvbuf_actual", si->rcvbuf);
    jw_int(w, "target_bitrate", p->bandwidth);
    jw_int(w, "fq_rate", p->fqrate);        /* iperf3 3.22 */
    jw_int(w, "sock_bufsize", p->window);
    jw_obj(w, "test_start");
    jw_str(w, "protocol", p->udp ? "UDP" : "TCP");
    jw_int(w, "num_streams", p->parallel);
    jw_int(w, "blksize", p->len);
    jw_int(w, "omit", p->omit);
    jw_int(w, "duration", p->time);
    jw_int(w, "bytes", p->num);
    jw_int(w, "blocks", p->blockcount);
    jw_int(w, "reverse", p->reverse);
    jw_int(w, "tos", p->tos);
    jw_int(w, "target_bitrate", p->bandwidth);
    jw_int(w, "bidir", p->bidir);
    jw_int(w, "fqrate", p->fqrate);
    /* iperf3 3.18+: a whole number of seconds as an integer, as cJSON writes it */
    if (si->interval == (double)(int64_t)si->interval)
        jw_int(w, "interval", (int64_t)si->interval);
    else
        jw_double(w, "interval", si->interval);
    /* iperf3 3.22: 0 or 1. Ours: what this side's UDP streams use (a sender GSO, a
     * receiver GRO, both with --bidir), decided by the kernel and -l, not by
     * --gsro; TCP 0 (iperf3 echoes --gsro there, which TCP does not use) */
    jw_int(w, "gso", si->gso);
    jw_int(w, "gro", si->gro);
    jw_end(w);
    jw_end(w);
}

/* --json-stream: one line {"event":NAME,"data":...} on the report's output, as
 * iperf3 3.17+ writes it (compact, then a newline); data is written by body(w,
 * "data", arg), or is the JSON text raw when body is NULL */
static void stream_event(struct report *r, const char *name,
                         void (*body)(struct jsonw *, const char *, const void *),
                         const void *arg, const char *raw)
{
    if (!r->json_stream || !r->out)
        return;
    struct jsonw w;
    jw_init(&w, 0);
    jw_obj(&w, NULL);
    jw_str(&w, "event", name);
    if (body)
        body(&w, "data", arg);
    else
        jw_raw(&w, "data", raw);
    jw_end(&w);
    fprintf(r->out, "%s\n", jw_text(&w));
    fflush(r->out);
    jw_free(&w);
}

static void start_body(struct jsonw *w, const char *key, const void *si)
{
    json_start_obj(w, key, si);
}

/* How far the document is written. It only moves forward, and doc_move writes
 * what lies between where it is and where a part needs it, so every way to the
 * end (a complete test, a failure at any point) closes it the same way. */
enum doc_pos {
    DOC_EMPTY,          /* nothing yet */
    DOC_INTERVALS,      /* "start" written, inside "intervals" */
    DOC_BODY,           /* top level, after "intervals" (and "end", if the test got there) */
    DOC_TAIL,           /* the title and --extra-data written */
    DOC_CLOSED,         /* the document is complete */
};

static void doc_move(struct report *r, enum doc_pos to)
{
    struct jsonw *w = &r->jw;
    while (r->doc_pos < (int)to) {
        switch (r->doc_pos) {
        case DOC_EMPTY:
            /* no test started: iperf3's empty start, intervals and end */
            jw_obj(w, NULL);
            jw_obj(w, "start");
            jw_end(w);
            jw_arr(w, "intervals");
            jw_end(w);
            jw_obj(w, "end");
            jw_end(w);
            r->doc_pos = DOC_BODY;
            break;
        case DOC_INTERVALS:
            jw_end(w);
            r->doc_pos = DOC_BODY;
            break;
        case DOC_BODY:
            /* the title (-T, or the client's on the server) and --extra-data as
             * iperf3 writes them: top-level, after "end" (and "error"), before the
             * server's output */
            if (r->json_title)
                jw_str(w, "title", r->json_title);
            if (r->extra_data)
                jw_str(w, "extra_data", r->extra_data);
            r->doc_pos = DOC_TAIL;
            break;
        default:
            jw_end(w);
            r->doc_pos = DOC_CLOSED;
            break;
        }
    }
}

static void json_start(struct report *r, const struct start_info *si)
{
    struct jsonw *w = &r->jw;
    free(r->json_title);
    r->json_title = si->p->title[0] ? xstrdup(si->p->title) : NULL;
    jw_obj(w, NULL);
    json_start_obj(w, "start", si);
    jw_arr(w, "intervals");
    r->doc_pos = DOC_INTERVALS;
    stream_event(r, "start", start_body, si, NULL);
}

/* one element of "intervals" (key NULL), or an event's "data" */
static void json_interval_obj(struct jsonw *w, const char *key, const void *arg)
{
    static const char *const sum_key[GROUPS] = { "sum", "sum_bidir_reverse" };
    const struct interval *iv = arg;
    jw_obj(w, key);
    jw_arr(w, "streams");
    for (int i = 0; i < iv->n; i++)
        rep_row_json(w, NULL, &iv->rows[i], 1);
    jw_end(w);
    for (int g = 0; g < GROUPS; g++)
        if (iv->nin[g])
            rep_row_json(w, sum_key[g], &iv->sum[g], 1);
    if (iv->rr.on)
        rr_json_interval(w, &iv->rr, iv);
    jw_end(w);
}

static void json_interval(struct report *r, const struct interval *iv)
{
    json_interval_obj(&r->jw, NULL, iv);
    stream_event(r, "interval", json_interval_obj, iv, NULL);
}

/* one element of end.streams: "udp", or "sender" and "receiver" */
static void json_stream_end(struct jsonw *w, const struct totals *t, const struct stream_totals *st)
{
    jw_obj(w, NULL);
    if (t->udp) {
        struct row u = st->rcv;
        u.sender = st->sender;
        if (!st->have_rcv)
            u = st->snd;
        else if (st->have_snd)
            u.bytes = st->snd.bytes;
        rep_row_json_open(w, "udp", &u);
        jw_double(w, "jitter_ms", u.jitter_ms);
        jw_int(w, "lost_packets", u.lost);
        jw_int(w, "packets", u.packets);
        jw_double(w, "lost_percent", udp_loss_percent(u.lost, u.packets));
        jw_int(w, "out_of_order", st->rcv.ooo);
        jw_bool(w, "sender", st->sender);
        jw_end(w);
    } else {
        if (st->have_snd) {
            rep_row_json_open(w, "sender", &st->snd);
            jw_int(w, "retransmits", st->snd.retrans);
            if (st->sender) {       /* in iperf3 3.22's order */
                jw_int(w, "reorder", st->tcpinfo_ok ? st->reorder : -1);
                jw_int(w, "max_snd_cwnd", st->tcpinfo_ok ? st->max_cwnd : -1);
                jw_int(w, "max_snd_wnd", st->tcpinfo_ok ? st->max_snd_wnd : -1);
                jw_int(w, "max_rtt", st->tcpinfo_ok ? st->max_rtt : -1);
                jw_int(w, "min_rtt", st->tcpinfo_ok ? st->min_rtt : -1);
                jw_int(w, "mean_rtt", st->mean_rtt);
            }
            jw_bool(w, "sender", st->sender);
            jw_end(w);
        }
        if (st->have_rcv) {
            rep_row_json_open(w, "receiver", &st->rcv);
            jw_bool(w, "sender", st->sender);
            jw_end(w);
        }
    }
    jw_end(w);
}

/* sum (UDP), sum_sent, sum_received and their bidir_reverse twins */
static void json_sums(struct jsonw *w, const struct totals *t)
{
    static const char *const keys[GROUPS][2] = {
        { "sum_sent", "sum_received" },
        { "sum_sent_bidir_reverse", "sum_received_bidir_reverse" },
    };
    const struct group_totals *g0 = &t->grp[0];
    if (t->udp && (g0->nrcv || g0->nsnd)) {
        struct row u = g0->nrcv ? g0->rcv : g0->snd;
        if (g0->nsnd)
            u.bytes = g0->snd.bytes;
        u.sender = !t->is_client ? t->reverse : !t->reverse;
        rep_row_json(w, "sum", &u, 0);
    }
    for (int g = 0; g < GROUPS; g++) {
        if (!t->grp[g].n)
            continue;
        /* iperf3 marks both sums with who sends in this direction, from the client */
        int fwd_sender = t->is_client ? (g == 0 ? !t->reverse : 0) : (g == 0 ? t->reverse : 1);
        struct row snd = t->grp[g].snd, rcv = t->grp[g].rcv;
        snd.sender = rcv.sender = fwd_sender;
        rep_row_json(w, keys[g][0], &snd, 0);
        rep_row_json(w, keys[g][1], &rcv, 0);
    }
}

/* end.esxperf.threads: the thread that ran each stream, in the streams' order,
 * the figures the text's -V lines and the verdict read (figures.h) */
static void json_threads(struct jsonw *w, const struct totals *t)
{
    jw_arr(w, "threads");
    for (int i = 0; i < t->n; i++) {
        const struct stream_totals *st = &t->st[i];
        const struct thread_figs *th = &st->thr;
        jw_obj(w, NULL);
        jw_int(w, "socket", st->snd.sock);
        jw_bool(w, "sender", st->sender);
        rep_json_known(w, "seconds", th->wall_s, 6);
        rep_json_known(w, "cpu_seconds", th->cpu_s, 6);
        rep_json_known(w, "wait_seconds", th->wait_s, 6);
        rep_json_known(w, "cpu_percent", th->cpu_pct, 2);
        rep_json_known(w, "wait_percent", th->wait_pct, 2);
        jw_end(w);
    }
    jw_end(w);
    rep_json_known(w, "threads_cpu_seconds", t->threads_cpu_s, 6);
}

static void json_esxperf(struct jsonw *w, const struct totals *t)
{
    jw_obj(w, "esxperf");
    jw_double(w, "seconds", t->seconds);
    jw_int(w, "cooldown", t->cooldown);
    jw_bool(w, "tcp_info", t->tcp_info);
    jw_double(w, "cpu_seconds_local", t->cpu_seconds_local);
    jw_double(w, "cpu_seconds_remote", t->cpu_seconds_remote);
    jw_double(w, "gbit_per_cpu_second_local", t->gbit_per_cpu_local);
    jw_double(w, "gbit_per_cpu_second_remote", t->gbit_per_cpu_remote);
    jw_double(w, "io_calls_per_second", t->io_calls_per_second);
    jw_arr(w, "engine");          /* the I/O path each stream took */
    for (int i = 0; i < t->n; i++)
        jw_str(w, NULL, t->st[i].engine);
    jw_end(w);
    json_threads(w, t);
    perf_netstack_json(w);        /* the netstack this side ran in, and how it knows */
    fallback_json(w, "fallbacks"); /* the socket options refused and what ran instead */
    jw_end(w);
}

/* end.diagnosis: the verdict (diagnose.h), its evidence and the link it measured */
static void json_diagnosis(struct jsonw *w, const struct totals *t)
{
    const struct diagnosis *d = &t->diag;
    jw_obj(w, "diagnosis");
    jw_str(w, "bottleneck", d->key);
    jw_str(w, "because", d->because);
    jw_arr(w, "evidence");
    for (int i = 0; i < d->n; i++) {
        jw_obj(w, NULL);
        jw_str(w, "name", d->ev[i].name);
        jw_double_prec(w, "value", d->ev[i].value, 3);
        jw_str(w, "unit", d->ev[i].unit);
        jw_end(w);
    }
    jw_end(w);
    if (d->link_mbps > 0)
        jw_double_prec(w, "link_speed_mbps", d->link_mbps, 0);
    else
        jw_null(w, "link_speed_mbps");
    if (d->percent_of_link >= 0)
        jw_double_prec(w, "percent_of_link", d->percent_of_link, 1);
    else
        jw_null(w, "percent_of_link");
    jw_str(w, "advice", d->advice);
    jw_arr(w, "missing");           /* the evidence the host did not give */
    char miss[sizeof d->missing];
    snprintf(miss, sizeof miss, "%s", d->missing);
    for (char *save = NULL, *m = strtok_r(miss, ",", &save); m; m = strtok_r(NULL, ",", &save))
        jw_str(w, NULL, m + (*m == ' '));
    jw_end(w);
    jw_arr(w, "findings");          /* what the run shows beside the bottleneck */
    for (int i = 0; i < d->nfind; i++) {
        jw_obj(w, NULL);
        jw_str(w, "key", d->find[i].key);
        jw_str(w, "text", d->find[i].text);
        jw_end(w);
    }
    jw_end(w);
    jw_obj(w, "link");
    jw_str(w, "interface", t->link.iface[0] ? t->link.iface : NULL);
    jw_str(w, "uplink", t->link.uplink[0] ? t->link.uplink : NULL);
    jw_str(w, "tso", t->link.tso[0] ? t->link.tso : NULL);
    if (t->link.hw_tso >= 0)
        jw_int(w, "use_hw_tso", t->link.hw_tso);      /* /Net/UseHwTSO */
    else
        jw_null(w, "use_hw_tso");
    if (t->link.lro >= 0)
        jw_int(w, "tcpip_lro", t->link.lro);          /* /Net/TcpipDefLROEnabled */
    else
        jw_null(w, "tcpip_lro");
    jw_str(w, "source", t->link.via);
    jw_bool(w, "nominal", t->link.nominal);      /* a virtual device's speed: no bound */
    jw_str(w, "note", d->link_note[0] ? d->link_note : t->link.note[0] ? t->link.note : NULL);
    jw_end(w);
    jw_end(w);
}

/* the "end" object under key */
static void json_end_obj(struct jsonw *w, const char *key, const void *arg)
{
    const struct totals *t = arg;
    jw_obj(w, key);
    jw_arr(w, "streams");
    for (int i = 0; i < t->n; i++)
        json_stream_end(w, t, &t->st[i]);
    jw_end(w);
    json_sums(w, t);
    jw_obj(w, "cpu_utilization_percent");
    jw_double(w, "host_total", t->cpu_total);
    jw_double(w, "host_user", t->cpu_user);
    jw_double(w, "host_system", t->cpu_system);
    jw_double(w, "remote_total", t->have_remote ? t->remote_total : 0);
    jw_double(w, "remote_user", t->have_remote ? t->remote_user : 0);
    jw_double(w, "remote_system", t->have_remote ? t->remote_system : 0);
    jw_end(w);
    if (!t->udp) {
        const char *lc = t->congestion_local, *rc = t->congestion_remote;
        jw_str(w, "sender_tcp_congestion", t->local_sender ? lc : rc);
        jw_str(w, "receiver_tcp_congestion", t->local_sender ? rc : lc);
    }
    if (t->rr)
        rr_json_end(w, t->rr);
    if (t->have_diag)
        json_diagnosis(w, t);
    json_esxperf(w, t);
    jw_end(w);
}

static void json_summary(struct report *r, const struct totals *t)
{
    doc_move(r, DOC_BODY);
    json_end_obj(&r->jw, "end", t);
    if (r->json_stream) {
        /* iperf3 writes the "end" event last, after any error and server output */
        struct jsonw e;
        jw_init(&e, 0);
        json_end_obj(&e, NULL, t);
        free(r->stream_end);
        r->stream_end = jw_take(&e, SIZE_MAX, NULL);
    }
}

/* the stream's last events: the error (if any), then "end" ({} when the test
 * never got to its summary) */
static void stream_close(struct report *r, const char *error)
{
    if (error) {
        struct jsonw e;
        jw_init(&e, 0);
        jw_str(&e, NULL, error);
        stream_event(r, "error", NULL, NULL, jw_text(&e));
        jw_free(&e);
    }
    stream_event(r, "end", NULL, NULL, r->stream_end ? r->stream_end : "{}");
}

/* the document ends: "error" when given (after "end", before the title), the
 * rest, then the stream's last events */
static void doc_close(struct report *r, const char *error)
{
    doc_move(r, DOC_BODY);
    if (error)
        jw_str(&r->jw, "error", error);
    doc_move(r, DOC_CLOSED);
    stream_close(r, error);
}

/* the document on the output, unless --json-stream without
 * --json-stream-full-output (the events were the output then) */
static void doc_print(struct report *r)
{
    if (r->out && (!r->json_stream || r->json_full))
        fprintf(r->out, "%s\n", jw_text(&r->jw));
}

static void json_close(struct report *r)
{
    if (r->doc_pos != DOC_CLOSED)
        doc_close(r, NULL);
}

static void json_done(struct report *r, const char *last_line)
{
    (void)last_line;
    json_close(r);
    doc_print(r);
}

/* the document so far closed with "error" (or, when no test had started, iperf3's
 * empty parts with "error"); a document already complete stays as it is (the
 * error is the log's) */
static void json_fail(struct report *r, const char *msg)
{
    if (!r->out)
        return;
    if (r->doc_pos != DOC_CLOSED)
        doc_close(r, msg);
    doc_print(r);
    fflush(r->out);
}

static void str_body(struct jsonw *w, const char *key, const void *text)
{
    jw_str(w, key, text);
}

/* --get-server-output: the server's report under server_output_json (its JSON) or
 * server_output_text; nothing when rem is NULL or has neither */
static void json_peer_output(struct report *r, const struct test_results *rem)
{
    doc_move(r, DOC_TAIL);
    if (rem && rem->server_output_json) {
        jw_raw(&r->jw, "server_output_json", rem->server_output_json);
        stream_event(r, "server_output_json", NULL, NULL, rem->server_output_json);
    } else if (rem && rem->server_output_text) {
        jw_str(&r->jw, "server_output_text", rem->server_output_text);
        stream_event(r, "server_output_text", str_body, rem->server_output_text, NULL);
    }
}

static void json_own_output(struct report *r, const char **text, const char **json)
{
    *text = NULL;
    *json = jw_text(&r->jw);
}

/* what JSON has no form for: the text lines, the interval rows' header, the lines
 * outside a test, a sweep's progress */
static void no_line(struct report *r, const char *text, size_t len)
{
    (void)r; (void)text; (void)len;
}
static void no_header(struct report *r, int udp, int sender, int bidir)
{
    (void)r; (void)udp; (void)sender; (void)bidir;
}
static void no_banner(FILE *out, const char *timestamps, unsigned port, int test)
{
    (void)out; (void)timestamps; (void)port; (void)test;
}
static void no_user(FILE *out, const char *user, const char *peer)
{
    (void)out; (void)user; (void)peer;
}
static void no_netstack(FILE *out) { (void)out; }
static void no_progress(FILE *f, int done, int total, const struct perf_opts *one, int rc)
{
    (void)f; (void)done; (void)total; (void)one; (void)rc;
}

const struct report_sink report_json_sink = {
    .line = no_line,
    .start = json_start,
    .interval_header = no_header,
    .interval = json_interval,
    .summary = json_summary,
    .peer_output = json_peer_output,
    .own_output = json_own_output,
    .close = json_close,
    .done = json_done,
    .failure = json_fail,
    .banner = no_banner,
    .authenticated = no_user,
    .netstack = no_netstack,
    .sweep_progress = no_progress,
    .sweep_table = rep_json_sweep_table,
};
