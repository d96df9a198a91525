/* --discover's rounds: every peer's search side by side, in batches of whole peers, over
 * a transport (rounds.h); the socket transport's batches. */
#include "rounds.h"
#include "fail.h"
#include "packet.h"
#include "stop.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static unsigned copies_of(const struct disc_try *t)
{
    return t->copies < DISC_CONFIRM_MAX ? t->copies : DISC_CONFIRM_MAX;
}

size_t rounds_probes(const struct disc_try *plan, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += copies_of(&plan[i]);
    return k;
}

size_t rounds_fill(struct probe *v, size_t at, const struct round_try *t, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (unsigned c = 0; c < t[i].copies; c++) {
            memset(&v[at], 0, sizeof v[at]);
            v[at].dst = t[i].dst;
            v[at].mtu = t[i].mtu;
            v[at].group = (int)i;
            v[at].at_ns = (uint64_t)at * ROUNDS_GAP_NS;
            at++;
        }
    return at;
}

/* what one size's copies say, best answer first: a reply proves it passes; a refusal
 * here or a router's too-big (refused for room on every retry, ENOBUFS: a veth whose
 * far end is smaller, is this host refusing it, with no MTU given); then an ICMP
 * error; else lost */
static void outcome_of(const struct probe *v, size_t n, int group, struct round_try *t)
{
    t->got = DO_LOST;
    t->info = 0;
    t->lost = 0;
    t->sent = t->copies;
    t->router_set = 0;
    for (size_t j = 0; j < n; j++) {
        const struct probe *pr = &v[j];
        if (pr->group != group)
            continue;
        if (pr->res == PR_REPLY) {
            t->got = DO_PASS;
        } else if ((pr->res == PR_TOO_BIG || pr->res == PR_LOCAL_MTU || pr->res == PR_SEND_FAIL) &&
                   t->got != DO_PASS) {
            t->got = pr->res == PR_TOO_BIG ? DO_TOO_BIG : DO_LOCAL;
            t->info = pr->res == PR_SEND_FAIL ? 0 : pr->info;
            if (pr->res == PR_TOO_BIG && pr->from_set) {
                t->router = pr->from;
                t->router_set = 1;
            }
        } else if ((pr->res == PR_UNREACH || pr->res == PR_SHORT || pr->res == PR_TTL) && t->got == DO_LOST) {
            t->got = DO_ERROR;
        } else if (pr->res == PR_LOST) {
            t->lost++;
        }
    }
}

void rounds_read(const struct probe *v, size_t m, struct round_try *t, size_t n)
{
    for (size_t i = 0; i < n; i++)
        outcome_of(v, m, (int)i, &t[i]);
}

void rounds_fold(struct disc *d, const struct round_try *v, size_t n, struct disc_report *out)
{
    int timed_out = 0;
    for (size_t i = 0; i < n; i++) {
        const struct round_try *t = &v[i];
        d->probes += t->sent;
        if (t->got == DO_LOST && t->lost >= t->sent)
            timed_out = 1;          /* this round waited the whole timeout */
        if (t->got == DO_PASS)
            disc_loss_seen(d, t->sent, t->lost);
        if (t->router_set) {
            out->router = t->router;
            out->router_set = 1;
        }
        disc_feed(d, t->mtu, t->got, t->info, t->lost);
    }
    disc_round_done(d, timed_out);
}

/* plan peer k's next round; a search that is over gets its report */
static void plan_next(struct rounds *r, size_t k, double elapsed_s)
{
    struct rounds_peer *x = &r->peer[k];
    x->nplan = disc_plan(&x->d, x->plan, r->budget ? r->budget : DISC_MAX_PLAN);
    x->nprobes = rounds_probes(x->plan, x->nplan);
    if (x->nplan)
        return;
    disc_report_set(r->t[k].out, &x->d, elapsed_s);
}

void rounds_init(struct rounds *r, const struct disc_target *t, size_t n, size_t cap, unsigned budget)
{
    memset(r, 0, sizeof *r);
    r->t = t;
    r->n = n;
    r->cap = cap;
    r->budget = budget;
    /* a batch's tries: no more than its probes (a try has a copy at least), except a
     * lone peer's round past the cap, which is one plan */
    size_t plan = budget && budget < DISC_MAX_PLAN ? budget : DISC_MAX_PLAN;
    r->room = n && cap / n >= plan ? n * plan : cap;
    if (r->room < plan)
        r->room = plan;
    r->peer = xcalloc(n ? n : 1, sizeof *r->peer);
    r->active = xcalloc(n ? n : 1, sizeof *r->active);
    for (size_t k = 0; k < n; k++) {
        memset(t[k].out, 0, sizeof *t[k].out);
        disc_init(&r->peer[k].d, t[k].dst->sa.sa_family, PKT_MAX_MTU);
        if (budget)
            r->peer[k].d.budget = budget;
        plan_next(r, k, 0);
    }
    r->next = r->nactive = 0;      /* the first call of rounds_next starts round 1 */
}

/* a new round: the peers still searching, in their order */
static void start_round(struct rounds *r)
{
    r->nactive = 0;
    for (size_t k = 0; k < r->n; k++)
        if (r->peer[k].nplan)
            r->active[r->nactive++] = k;
    r->next = 0;
    if (r->nactive)
        r->rounds++;
}

size_t rounds_next(struct rounds *r, struct round_try *v)
{
    if (r->next >= r->nactive)
        start_round(r);
    if (r->nactive == 0)
        return 0;
    /* whole peers, as many as fit; always one (a round never exceeds the cap) */
    size_t m = 0, probes = 0, to = r->next;
    while (to < r->nactive) {
        struct rounds_peer *x = &r->peer[r->active[to]];
        if (to > r->next && probes + x->nprobes > r->cap)
            break;
        for (size_t i = 0; i < x->nplan; i++) {
            memset(&v[m], 0, sizeof v[m]);
            v[m].dst = r->t[r->active[to]].dst;
            v[m].mtu = x->plan[i].mtu;
            v[m].copies = copies_of(&x->plan[i]);
            m++;
        }
        probes += x->nprobes;
        to++;
    }
    r->from = r->next;
    r->to = r->next = to;
    r->batches++;
    return m;
}

void rounds_take(struct rounds *r, const struct round_try *v, size_t n, double elapsed_s)
{
    size_t off = 0;
    for (size_t a = r->from; a < r->to && off <= n; a++) {
        size_t k = r->active[a];
        struct rounds_peer *x = &r->peer[k];
        size_t m = x->nplan <= n - off ? x->nplan : n - off;
        rounds_fold(&x->d, v + off, m, r->t[k].out);
        off += m;
        plan_next(r, k, elapsed_s);
    }
    r->from = r->to;               /* taken: a second call folds nothing */
}

void rounds_stopped(struct rounds *r, double elapsed_s)
{
    for (size_t k = 0; k < r->n; k++)
        if (r->peer[k].d.state == DS_RUN)
            disc_report_set(r->t[k].out, &r->peer[k].d, elapsed_s);
}

void rounds_free(struct rounds *r)
{
    free(r->peer);
    free(r->active);
    memset(r, 0, sizeof *r);
}

int rounds_run(const struct rounds_transport *tp, const struct disc_target *t, size_t n, char *why,
               size_t len)
{
    double t0 = mono_s();
    struct rounds r;
    rounds_init(&r, t, n, tp->cap, tp->budget);
    struct round_try *v = xcalloc(r.room, sizeof *v);
    size_t m;
    int rc = 0;
    while (rc == 0 && (m = rounds_next(&r, v)) > 0) {
        rc = tp->batch(tp->ctx, v, m, why, len);
        if (rc == 0)
            rounds_take(&r, v, m, mono_s() - t0);
    }
    if (rc > 0)
        rounds_stopped(&r, mono_s() - t0);
    free(v);
    rounds_free(&r);
    return rc;
}

/* a socket batch: every copy on the wire, each size's answer read from its copies' */
static int socket_batch(void *ctx, struct round_try *t, size_t n, char *why, size_t len)
{
    struct rounds_socket *s = ctx;
    size_t m = rounds_fill(s->v, 0, t, n);
    if (probe_batch(s->p, s->v, m, s->timeout_ns, BATCH_BY_GROUP) != 0)
        return stop_requested() ? 1 : why_fmt(why, len, "%s", errtext(errno));
    rounds_read(s->v, m, t, n);
    return 0;
}

void rounds_socket_open(struct rounds_transport *tp, struct rounds_socket *s, struct prober *p,
                        uint64_t timeout_ns)
{
    s->p = p;
    s->timeout_ns = timeout_ns;
    s->v = xcalloc(ROUNDS_MAX_BATCH, sizeof *s->v);
    *tp = (struct rounds_transport){ ROUNDS_MAX_BATCH, 0, socket_batch, s };
}

void rounds_socket_close(struct rounds_socket *s)
{
    free(s->v);
    s->v = NULL;
}
