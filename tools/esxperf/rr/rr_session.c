/* --rr's figures from a session's streams (rr_session.h). */
#include "rr_session.h"
#include "fail.h"
#include "session.h"

#include <stdlib.h>
#include <string.h>

void rr_session_interval(struct session *s, struct rr_interval *iv)
{
    struct rr_hist *sum = xcalloc(1, sizeof *sum);
    memset(&iv->sum, 0, sizeof iv->sum);
    iv->on = 1;
    for (int i = 0; i < s->nstreams; i++) {
        rr_book_interval(&s->st[i], sum, &iv->rows[i]);
        iv->sum.lost += iv->rows[i].lost;
    }
    iv->sum.on = 1;
    iv->load = s->p.rr_load;
    iv->sum.n = sum->n;
    iv->sum.p50 = rr_hist_quantile(sum, 0.50);
    iv->sum.p99 = rr_hist_quantile(sum, 0.99);
    free(sum);
}

/* the figures of one histogram */
static void stream_end(struct rr_stream_end *e, const struct rr_hist *h, double seconds)
{
    e->n = h->n;
    e->per_second = seconds > 0 ? (double)h->n / seconds : 0;
    e->mean = rr_hist_mean(h);
    e->stddev = rr_hist_stddev(h);
    e->min = h->min;
    e->p50 = rr_hist_quantile(h, 0.50);
    e->p90 = rr_hist_quantile(h, 0.90);
    e->p99 = rr_hist_quantile(h, 0.99);
    e->p999 = rr_hist_quantile(h, 0.999);
    e->max = h->max;
}

/* the client's verdict on the figures (rr_verdict.h) */
static void verdict(const struct session *s, struct rr_end *e)
{
    struct rr_judged j = {
        .p50 = e->sum.p50, .p99 = e->sum.p99, .mean = e->sum.mean, .n = e->sum.n,
        .lost = e->sum.lost, .udp = e->udp, .turn_mean = e->have_turn ? e->turn.mean_ns : -1,
        .role = s->o->rr_role, .limit_ns = (uint64_t)s->o->rr_limit_ns,
        .idle_p50 = e->load ? e->idle.p50 : 0,
    };
    rr_verdict_make(&j, &e->verdict);
    e->have_verdict = 1;
}

void rr_session_end(const struct session *s)
{
    struct rr_end *e = s->rr;
    struct rr_hist *one = xcalloc(1, sizeof *one), *idle = xcalloc(1, sizeof *idle);
    memset(e, 0, sizeof *e);
    e->is_client = s->is_client;
    e->udp = s->p.udp;
    e->request = s->p.len;
    e->response = s->p.rr_response > 0 ? s->p.rr_response : s->p.len;
    e->seconds = session_seconds(s);
    e->load = s->p.rr_load;
    e->idle_seconds = (double)s->p.omit;
    for (int i = 0; i < s->nstreams; i++) {
        if (!s->st[i].rrb)       /* --rr-load's bulk streams */
            continue;
        struct rr_stream_end *x = &e->st[e->n++];
        rr_hist_reset(one);
        rr_book_total(&s->st[i], one, idle, &x->lost, &x->late);
        stream_end(x, one, e->seconds);
        x->sock = s->st[i].fd;
        rr_hist_merge(&e->hist, one);
        e->sum.lost += x->lost;
        e->sum.late += x->late;
        if (s->st[i].rrb->stalled)
            e->stalled = 1;
    }
    stream_end(&e->sum, &e->hist, e->seconds);
    e->sum.sock = -1;
    if (e->load) {
        stream_end(&e->idle, idle, e->idle_seconds);
        e->idle.sock = -1;
    }
    free(idle);
    if (s->is_client && s->have_remote && s->remote.rr_turn.n) {
        e->have_turn = 1;
        e->turn = s->remote.rr_turn;
    }
    free(one);
    if (s->is_client && e->sum.n)
        verdict(s, e);
}

void rr_session_results(const struct session *s, struct test_results *r)
{
    if (s->is_client || !s->rr)
        return;
    rr_session_end(s);
    const struct rr_stream_end *x = &s->rr->sum;
    r->rr_turn.n = x->n;
    r->rr_turn.mean_ns = x->mean;
    r->rr_turn.p50_ns = x->p50;
    r->rr_turn.p99_ns = x->p99;
    r->rr_turn.max_ns = x->max;
}
