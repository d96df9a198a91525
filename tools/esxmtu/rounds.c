/* --discover's rounds: every peer's search side by side, in batches of whole peers. */
#include "rounds.h"
#include "fail.h"
#include "packet.h"

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

size_t rounds_fill(struct probe *v, size_t at, const union sockaddr_any *dst,
                   const struct disc_try *plan, size_t n, int group0)
{
    for (size_t i = 0; i < n; i++)
        for (unsigned c = 0; c < copies_of(&plan[i]); c++) {
            memset(&v[at], 0, sizeof v[at]);
            v[at].dst = dst;
            v[at].mtu = plan[i].mtu;
            v[at].group = group0 + (int)i;
            v[at].at_ns = (uint64_t)at * ROUNDS_GAP_NS;
            at++;
        }
    return at;
}

/* what one size's copies say, best answer first: a reply proves it passes; a refusal
 * here or a router's too-big (refused for room on every retry, ENOBUFS: a veth whose
 * far end is smaller, is this host refusing it, with no MTU given); then an ICMP
 * error; else lost */
static enum disc_outcome outcome_of(const struct probe *v, size_t n, int group, uint32_t *info,
                                    unsigned *lost, struct disc_report *out)
{
    enum disc_outcome got = DO_LOST;
    *info = 0;
    *lost = 0;
    for (size_t j = 0; j < n; j++) {
        const struct probe *pr = &v[j];
        if (pr->group != group)
            continue;
        if (pr->res == PR_REPLY) {
            got = DO_PASS;
        } else if ((pr->res == PR_TOO_BIG || pr->res == PR_LOCAL_MTU || pr->res == PR_SEND_FAIL) &&
                   got != DO_PASS) {
            got = pr->res == PR_TOO_BIG ? DO_TOO_BIG : DO_LOCAL;
            *info = pr->res == PR_SEND_FAIL ? 0 : pr->info;
            if (pr->res == PR_TOO_BIG && pr->from_set) {
                out->router = pr->from;
                out->router_set = 1;
            }
        } else if ((pr->res == PR_UNREACH || pr->res == PR_SHORT || pr->res == PR_TTL) && got == DO_LOST) {
            got = DO_ERROR;
        } else if (pr->res == PR_LOST) {
            (*lost)++;
        }
    }
    return got;
}

void rounds_fold(struct disc *d, const struct disc_try *plan, size_t nplan, const struct probe *v,
                 size_t n, int group0, struct disc_report *out)
{
    int timed_out = 0;
    d->probes += (unsigned)n;
    for (size_t i = 0; i < nplan; i++) {
        uint32_t info;
        unsigned lost, sent = copies_of(&plan[i]);
        enum disc_outcome got = outcome_of(v, n, group0 + (int)i, &info, &lost, out);
        if (got == DO_LOST && lost == sent)
            timed_out = 1;          /* this round waited the whole timeout */
        if (got == DO_PASS)
            disc_loss_seen(d, sent, lost);
        disc_feed(d, plan[i].mtu, got, info, lost);
    }
    disc_round_done(d, timed_out);
}

/* plan peer k's next round; a search that is over gets its report */
static void plan_next(struct rounds *r, size_t k, double elapsed_s)
{
    struct rounds_peer *x = &r->peer[k];
    x->nplan = disc_plan(&x->d, x->plan, DISC_MAX_PLAN);
    x->nprobes = rounds_probes(x->plan, x->nplan);
    if (x->nplan)
        return;
    disc_report_set(r->t[k].out, &x->d, elapsed_s);
}

void rounds_init(struct rounds *r, const struct disc_target *t, size_t n, size_t cap)
{
    memset(r, 0, sizeof *r);
    r->t = t;
    r->n = n;
    r->cap = cap;
    r->peer = xcalloc(n ? n : 1, sizeof *r->peer);
    r->active = xcalloc(n ? n : 1, sizeof *r->active);
    for (size_t k = 0; k < n; k++) {
        memset(t[k].out, 0, sizeof *t[k].out);
        disc_init(&r->peer[k].d, t[k].dst->sa.sa_family, PKT_MAX_MTU);
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

size_t rounds_next(struct rounds *r, struct probe *v)
{
    if (r->next >= r->nactive)
        start_round(r);
    if (r->nactive == 0)
        return 0;
    /* whole peers, as many as fit; always one (a round never exceeds the cap) */
    size_t m = 0, to = r->next;
    int group = 0;
    while (to < r->nactive) {
        struct rounds_peer *x = &r->peer[r->active[to]];
        if (to > r->next && m + x->nprobes > r->cap)
            break;
        m = rounds_fill(v, m, r->t[r->active[to]].dst, x->plan, x->nplan, group);
        group += (int)x->nplan;
        to++;
    }
    r->from = r->next;
    r->to = r->next = to;
    r->batches++;
    return m;
}

void rounds_take(struct rounds *r, const struct probe *v, size_t n, double elapsed_s)
{
    size_t off = 0;
    int group = 0;
    for (size_t a = r->from; a < r->to && off <= n; a++) {
        size_t k = r->active[a];
        struct rounds_peer *x = &r->peer[k];
        size_t m = x->nprobes <= n - off ? x->nprobes : n - off;
        rounds_fold(&x->d, x->plan, x->nplan, v + off, m, group, r->t[k].out);
        off += m;
        group += (int)x->nplan;
        plan_next(r, k, elapsed_s);
    }
    r->from = r->to;               /* taken: a second call folds nothing */
}

void rounds_free(struct rounds *r)
{
    free(r->peer);
    free(r->active);
    memset(r, 0, sizeof *r);
}

int rounds_run(struct prober *p, const struct disc_target *t, size_t n, uint64_t timeout_ns)
{
    double t0 = mono_s();
    struct rounds r;
    rounds_init(&r, t, n, ROUNDS_MAX_BATCH);
    struct probe *v = xcalloc(ROUNDS_MAX_BATCH, sizeof *v);
    size_t m;
    int rc = 0;
    while (rc == 0 && (m = rounds_next(&r, v)) > 0) {
        rc = probe_batch(p, v, m, timeout_ns, BATCH_BY_GROUP);
        if (rc == 0)
            rounds_take(&r, v, m, mono_s() - t0);
    }
    free(v);
    rounds_free(&r);
    return rc;
}
