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

void rr_session_end(const struct session *s)
{
    struct rr_end *e = s->rr;
    struct rr_hist *one = xcalloc(1, sizeof *one);
    memset(e, 0, sizeof *e);
    e->is_client = s->is_client;
    e->udp = s->p.udp;
    e->request = s->p.len;
    e->response = s->p.rr_response > 0 ? s->p.rr_response : s->p.len;
    e->seconds = session_seconds(s);
    e->n = s->nstreams;
    for (int i = 0; i < s->nstreams; i++) {
        struct rr_stream_end *x = &e->st[i];
        rr_hist_reset(one);
        rr_book_total(&s->st[i], one, &x->lost, &x->late);
        stream_end(x, one, e->seconds);
        x->sock = s->st[i].fd;
        rr_hist_merge(&e->hist, one);
        e->sum.lost += x->lost;
        e->sum.late += x->late;
        if (s->st[i].rrb && s->st[i].rrb->stalled)
            e->stalled = 1;
    }
    stream_end(&e->sum, &e->hist, e->seconds);
    e->sum.sock = -1;
    if (s->is_client && s->have_remote && s->remote.rr_turn.n) {
        e->have_turn = 1;
        e->turn = s->remote.rr_turn;
    }
    free(one);
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
