/* --rr's rows in text and its objects in the JSON (rr_report.h). Times are
 * printed in microseconds, as the limits they are judged against are named. */
#include "rr_report.h"
#include "report.h"

#include <stdio.h>

#define US(ns) ((double)(ns) / 1000.0)

static void id_text(char *buf, size_t len, int sock)
{
    if (sock < 0)
        snprintf(buf, len, "[SUM]");
    else
        snprintf(buf, len, "[%3d]", sock);
}

static void interval_row(struct report *r, int sock, double t0, double t1,
                         const struct rr_figs *f)
{
    char id[16];
    id_text(id, sizeof id, sock);
    double sec = t1 - t0;
    rep_printf(r, "%s %6.2f-%-6.2f sec  %12llu  %10.1f  %8.1f us %8.1f us  %4llu\n", id, t0, t1,
               (unsigned long long)f->n, sec > 0 ? (double)f->n / sec : 0.0, US(f->p50),
               US(f->p99), (unsigned long long)f->lost);
}

void rr_text_interval(struct report *r, const struct interval *iv)
{
    if (iv->n < 1)
        return;
    double t0 = iv->rows[0].start, t1 = iv->rows[0].end;
    if (t0 <= 0)
        rep_printf(r, "%-25s%12s  %10s  %11s %11s  %4s\n", "[ ID] Interval", "Transactions",
                   "Per sec", iv->rows[0].sender ? "RTT p50" : "Turn p50", "p99", "Lost");
    int n = 0;
    for (int i = 0; i < iv->n; i++)
        if (iv->rr.rows[i].on) {
            interval_row(r, iv->rows[i].sock, t0, t1, &iv->rr.rows[i]);
            n++;
        }
    if (n > 1) {
        interval_row(r, -1, t0, t1, &iv->rr.sum);
        rep_separator(r);
    }
}

static void end_row(struct report *r, const struct rr_stream_end *x)
{
    char id[16];
    id_text(id, sizeof id, x->sock);
    rep_printf(r, "%s %12llu %10.1f  %8.1f %8.1f %8.1f %8.1f %8.1f %8.1f %8.1f %9.1f %6llu\n", id,
               (unsigned long long)x->n, x->per_second, US(x->min), x->mean / 1000.0,
               x->stddev / 1000.0, US(x->p50), US(x->p90), US(x->p99), US(x->p999), US(x->max),
               (unsigned long long)x->lost);
}

void rr_text_end(struct report *r, const struct rr_end *e)
{
    rep_separator(r);
    rep_printf(r, "%s %s, %lld-byte requests, %lld-byte answers (us)%s:\n",
               e->udp ? "UDP" : "TCP",
               e->is_client ? "request/response round trips" : "request/response turnaround",
               (long long)e->request, (long long)e->response,
               e->load ? ", beside the bulk streams" : "");
    rep_printf(r, "[ ID] Transactions    Per sec       min     mean   stddev      p50      p90"
                  "      p99    p99.9       max   Lost\n");
    for (int i = 0; i < e->n; i++)
        end_row(r, &e->st[i]);
    if (e->n > 1)
        end_row(r, &e->sum);
    if (e->load)
        rep_printf(r, "Idle first (%.0f s, no bulk traffic): %llu transactions, p50 %.1f us, p99 "
                      "%.1f us; loaded (the rows above): p50 %.1f us, p99 %.1f us\n",
                   e->idle_seconds, (unsigned long long)e->idle.n, US(e->idle.p50),
                   US(e->idle.p99), US(e->sum.p50), US(e->sum.p99));
    if (e->sum.late)
        rep_printf(r, "Late answers: %llu (after their request was counted lost)\n",
                   (unsigned long long)e->sum.late);
    if (e->have_turn) {
        double net = e->sum.mean - e->turn.mean_ns;
        rep_printf(r, "Server turnaround (request read -> answer sent): mean %.1f us, p50 %.1f us, "
                      "p99 %.1f us; the network and this host: %.1f us of the %.1f us mean round trip\n",
                   e->turn.mean_ns / 1000.0, US(e->turn.p50_ns), US(e->turn.p99_ns),
                   (net > 0 ? net : 0) / 1000.0, e->sum.mean / 1000.0);
    }
    if (e->have_verdict)
        rep_printf(r, "%s\n", e->verdict.sentence);
}

static void json_figs(struct jsonw *w, const char *key, int sock, const struct rr_figs *f)
{
    jw_obj(w, key);
    if (sock >= 0)
        jw_int(w, "socket", sock);
    jw_uint(w, "transactions", f->n);
    jw_uint(w, "lost", f->lost);
    jw_double_prec(w, "p50_us", US(f->p50), 3);
    jw_double_prec(w, "p99_us", US(f->p99), 3);
    jw_end(w);
}

void rr_json_interval(struct jsonw *w, const struct rr_interval *iv, const struct interval *rows)
{
    jw_obj(w, "rr");
    jw_arr(w, "streams");
    for (int i = 0; i < rows->n; i++)
        if (iv->rows[i].on)
            json_figs(w, NULL, rows->rows[i].sock, &iv->rows[i]);
    jw_end(w);
    json_figs(w, "sum", -1, &iv->sum);
    jw_end(w);
}

static void json_stream_end(struct jsonw *w, const char *key, const struct rr_stream_end *x,
                            const char *times)
{
    jw_obj(w, key);
    if (x->sock >= 0)
        jw_int(w, "socket", x->sock);
    jw_uint(w, "transactions", x->n);
    jw_double_prec(w, "transactions_per_second", x->per_second, 1);
    jw_uint(w, "lost", x->lost);
    jw_uint(w, "late", x->late);
    jw_obj(w, times);
    jw_double_prec(w, "min", US(x->min), 3);
    jw_double_prec(w, "mean", x->mean / 1000.0, 3);
    jw_double_prec(w, "stddev", x->stddev / 1000.0, 3);
    jw_double_prec(w, "p50", US(x->p50), 3);
    jw_double_prec(w, "p90", US(x->p90), 3);
    jw_double_prec(w, "p99", US(x->p99), 3);
    jw_double_prec(w, "p99_9", US(x->p999), 3);
    jw_double_prec(w, "max", US(x->max), 3);
    jw_end(w);
    jw_end(w);
}

/* the sum's histogram: [lowest ns, width ns, count] for each bucket with samples */
static void json_hist(struct jsonw *w, const struct rr_hist *h)
{
    jw_obj(w, "histogram");
    jw_str(w, "unit", "ns");
    jw_int(w, "sub_buckets", RR_SUB);
    jw_arr(w, "buckets");
    for (unsigned i = 0; i < RR_BUCKETS; i++) {
        if (!h->count[i])
            continue;
        jw_arr(w, NULL);
        jw_uint(w, NULL, rr_bucket_lo(i));
        jw_uint(w, NULL, rr_bucket_width(i));
        jw_uint(w, NULL, h->count[i]);
        jw_end(w);
    }
    jw_end(w);
    jw_end(w);
}

/* end.rr.verdict: the class, what dominates, the limit and where it comes from */
static void json_verdict(struct jsonw *w, const struct rr_verdict *v)
{
    jw_obj(w, "verdict");
    jw_str(w, "verdict", v->verdict);
    jw_str(w, "dominant", v->dominant);
    jw_str(w, "role", v->role);
    jw_double_prec(w, "limit_us", (double)v->limit_ns / 1000.0, 3);
    jw_double_prec(w, "loss_percent", v->loss_pct, 2);
    if (v->host_pct >= 0)
        jw_double_prec(w, "host_percent", v->host_pct, 1);
    else
        jw_null(w, "host_percent");
    if (v->queue_factor > 0)
        jw_double_prec(w, "queue_factor", v->queue_factor, 2);
    else
        jw_null(w, "queue_factor");
    jw_str(w, "sentence", v->sentence);
    jw_end(w);
}

void rr_json_end(struct jsonw *w, const struct rr_end *e)
{
    const char *times = e->is_client ? "rtt_us" : "turnaround_us";
    jw_obj(w, "rr");
    jw_str(w, "protocol", e->udp ? "UDP" : "TCP");
    jw_int(w, "request_bytes", e->request);
    jw_int(w, "response_bytes", e->response);
    jw_double_prec(w, "seconds", e->seconds, 3);
    jw_arr(w, "streams");
    for (int i = 0; i < e->n; i++)
        json_stream_end(w, NULL, &e->st[i], times);
    jw_end(w);
    json_stream_end(w, "sum", &e->sum, times);
    if (e->load) {
        jw_double_prec(w, "idle_seconds", e->idle_seconds, 3);
        json_stream_end(w, "idle", &e->idle, times);
    }
    if (e->have_turn) {
        jw_obj(w, "server_turnaround_us");
        jw_uint(w, "transactions", e->turn.n);
        jw_double_prec(w, "mean", e->turn.mean_ns / 1000.0, 3);
        jw_double_prec(w, "p50", US(e->turn.p50_ns), 3);
        jw_double_prec(w, "p99", US(e->turn.p99_ns), 3);
        jw_double_prec(w, "max", US(e->turn.max_ns), 3);
        jw_end(w);
        double net = e->sum.mean - e->turn.mean_ns;
        jw_double_prec(w, "network_mean_us", (net > 0 ? net : 0) / 1000.0, 3);
    } else if (e->is_client) {
        jw_null(w, "server_turnaround_us");
        jw_null(w, "network_mean_us");
    }
    if (e->have_verdict)
        json_verdict(w, &e->verdict);
    json_hist(w, &e->hist);
    jw_end(w);
}
