/* esxmtu rounds.c: every peer's path-MTU search in the same rounds. The scheduler
 * runs against a simulated network: each peer has its own path (a black hole, a router
 * that says too-big, a smaller local link, random loss, or silence), and every probe
 * of a batch is answered by its own peer's path. Each peer must end exactly as its
 * search ends when run alone, the run must take as many rounds as its slowest peer
 * (not the sum), and no batch may exceed its cap or split a peer's round. The driver,
 * rounds_run, runs over a transport of that network. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <sys/socket.h>

#include "../../tools/esxmtu/rounds.h"
#include "../../tools/esxmtu/packet.h"
#include "bytes.h"

const char tool_name[] = "esxmtu";

struct path {
    uint32_t local_mtu;     /* this host's interface */
    uint32_t hop_mtu;       /* the narrowest link on the way */
    int toobig;             /* 1: that router says frag-needed; 0: black hole */
    unsigned loss_pct;      /* random loss per copy */
    uint32_t rng;
    int dead;               /* the peer never answers */
};

static unsigned rnd(struct path *p)
{
    p->rng = p->rng * 1103515245u + 12345u;
    return (p->rng >> 16) % 100;
}

/* the router that says too-big (the same for every peer) */
static union sockaddr_any router(void)
{
    union sockaddr_any a;
    memset(&a, 0, sizeof a);
    a.in4.sin_family = AF_INET;
    a.in4.sin_addr.s_addr = htonl(0xc6120001);   /* 198.18.0.1 */
    return a;
}

static void answer(struct path *p, struct probe *pr)
{
    if (pr->mtu > p->local_mtu) {
        pr->res = PR_LOCAL_MTU;
        pr->info = p->local_mtu;
    } else if (pr->mtu > p->hop_mtu && p->toobig) {
        pr->res = PR_TOO_BIG;
        pr->info = p->hop_mtu;
        pr->from = router();
        pr->from_set = 1;
    } else if (p->dead || pr->mtu > p->hop_mtu || rnd(p) < p->loss_pct) {
        pr->res = PR_LOST;
    } else {
        pr->res = PR_REPLY;
    }
}

struct net {
    size_t n;
    union sockaddr_any *addr;   /* peer k is addr[k] */
    struct path *path;
    struct disc_report *rep;
    struct disc_target *t;
    /* what the run did */
    unsigned rounds, batches;
    size_t most;                /* probes in the biggest batch */
};

static struct net *net_new(size_t n)
{
    struct net *net = calloc(1, sizeof *net);
    net->n = n;
    net->addr = calloc(n ? n : 1, sizeof *net->addr);
    net->path = calloc(n ? n : 1, sizeof *net->path);
    net->rep = calloc(n ? n : 1, sizeof *net->rep);
    net->t = calloc(n ? n : 1, sizeof *net->t);
    for (size_t k = 0; k < n; k++) {
        net->addr[k].in4.sin_family = AF_INET;
        net->addr[k].in4.sin_addr.s_addr = htonl(0xc6120100u + (uint32_t)k);
        net->path[k] = (struct path){ 9000, 9000, 0, 0, (uint32_t)k + 1, 0 };
        net->t[k] = (struct disc_target){ &net->addr[k], &net->rep[k] };
    }
    return net;
}

static void net_free(struct net *net)
{
    free(net->addr);
    free(net->path);
    free(net->rep);
    free(net->t);
    free(net);
}

/* what probe_batch needs of a batch: sends in time order, 0.1 ms apart, and the copies
 * of one size (a group) adjacent; groups numbered from 0 in order */
static void check_layout(const struct probe *v, size_t m)
{
    for (size_t j = 0; j < m; j++) {
        assert_int_equal(v[j].at_ns, (uint64_t)j * ROUNDS_GAP_NS);
        assert_non_null(v[j].dst);
        if (j == 0)
            assert_int_equal(v[j].group, 0);
        else
            assert_true(v[j].group == v[j - 1].group || v[j].group == v[j - 1].group + 1);
    }
}

/* a batch's tries as the socket transport sends them, every probe answered by its own
 * peer's path, the answers read back into the tries; returns the probes sent */
static size_t send_batch(struct net *net, struct round_try *t, size_t n, struct probe *pv)
{
    size_t m = rounds_fill(pv, 0, t, n);
    check_layout(pv, m);
    for (size_t j = 0; j < m; j++) {
        size_t k = (size_t)((const union sockaddr_any *)pv[j].dst - net->addr);
        assert_true(k < net->n);
        answer(&net->path[k], &pv[j]);
    }
    rounds_read(pv, m, t, n);
    return m;
}

/* the whole run, every probe answered by its own peer's path; "time" is one unit
 * a batch */
static void run(struct net *net, size_t cap)
{
    struct rounds r;
    rounds_init(&r, net->t, net->n, cap, 0);
    struct round_try *v = calloc(r.room, sizeof *v);
    struct probe *pv = calloc(cap > DISC_MAX_PLAN * DISC_CONFIRM_MAX ? cap : DISC_MAX_PLAN * DISC_CONFIRM_MAX,
                              sizeof *pv);
    unsigned *seen = calloc(net->n ? net->n : 1, sizeof *seen);   /* last round a peer went out */
    size_t m;
    net->batches = 0;
    net->most = 0;
    while ((m = rounds_next(&r, v)) > 0) {
        assert_true(++net->batches < 100000);
        assert_true(m <= r.room);
        size_t probes = send_batch(net, v, m, pv);
        assert_true(probes <= cap);
        /* a batch ends before the round does only when the next peer would not fit */
        if (r.to < r.nactive)
            assert_true(probes + r.peer[r.active[r.to]].nprobes > cap);
        for (size_t a = r.from; a < r.to; a++) {
            assert_true(seen[r.active[a]] < r.rounds);    /* one batch a round a peer */
            seen[r.active[a]] = r.rounds;
        }
        if (probes > net->most)
            net->most = probes;
        rounds_take(&r, v, m, (double)net->batches);
    }
    net->rounds = r.rounds;
    free(seen);
    free(pv);
    free(v);
    rounds_free(&r);
}

/* peer k of `net` alone: its report, from a fresh copy of its path */
static struct disc_report alone(const struct net *net, size_t k, const struct path *fresh)
{
    struct net *one = net_new(1);
    one->addr[0] = net->addr[k];
    one->path[0] = *fresh;
    run(one, ROUNDS_MAX_BATCH);
    struct disc_report rep = one->rep[0];
    net_free(one);
    return rep;
}

/* 300 peers, each its own path: black holes at many sizes, routers that say too-big,
 * smaller local links, lossy paths, IPv6 ones. Each finds its own MTU, exactly as when
 * it runs alone, and the run has as many rounds as its slowest search. */
static void many_peers_each_find_their_own_mtu(void **state)
{
    (void)state;
    const size_t n = 300;
    struct net *net = net_new(n);
    struct path *fresh = calloc(n, sizeof *fresh);
    uint32_t *want = calloc(n, sizeof *want);
    for (size_t k = 0; k < n; k++) {
        struct path *p = &net->path[k];
        p->hop_mtu = 1280 + (uint32_t)((k * 2654435761u) % 7721);    /* 1280..9000 */
        p->toobig = k % 5 == 1;
        if (k % 7 == 2)
            p->local_mtu = 1500;
        if (k % 11 == 3)
            p->loss_pct = 10;
        if (k % 13 == 4) {
            net->addr[k].in6.sin6_family = AF_INET6;
            net->addr[k].in6.sin6_addr.s6_addr[0] = 0x20;
            net->addr[k].in6.sin6_addr.s6_addr[15] = (uint8_t)k;
        }
        want[k] = p->hop_mtu < p->local_mtu ? p->hop_mtu : p->local_mtu;
        fresh[k] = *p;
    }
    run(net, ROUNDS_MAX_BATCH);
    unsigned slowest = 0, sum = 0;
    for (size_t k = 0; k < n; k++) {
        const struct disc_report *r = &net->rep[k];
        assert_int_equal(r->state, DS_FOUND);
        assert_int_equal(r->mtu, want[k]);
        struct disc_report a = alone(net, k, &fresh[k]);
        assert_int_equal(r->state, a.state);
        assert_int_equal(r->proof, a.proof);
        assert_int_equal(r->mtu, a.mtu);
        assert_int_equal(r->smallest_failed, a.smallest_failed);
        assert_int_equal(r->rounds, a.rounds);
        assert_int_equal(r->timeouts, a.timeouts);
        assert_int_equal(r->probes, a.probes);
        assert_int_equal(r->router_set, a.router_set);
        assert_int_equal(r->router_set, net->path[k].toobig && want[k] == net->path[k].hop_mtu);
        if (r->rounds > slowest)
            slowest = r->rounds;
        sum += r->rounds;
    }
    assert_int_equal(net->rounds, slowest);
    assert_true(slowest <= DISC_MAX_ROUNDS);
    assert_true(sum > 100 * slowest);
    assert_true(net->most <= ROUNDS_MAX_BATCH);
    free(want);
    free(fresh);
    net_free(net);
}

/* the fleet's case: four black holes of different sizes; one round each at a time, and
 * each search's report is what it was when the peers were searched one after another */
static void four_black_holes_take_the_rounds_of_one(void **state)
{
    (void)state;
    static const uint32_t holes[] = { 1499, 4000, 7777, 8166 };
    struct net *net = net_new(ARRAY_SIZE(holes));
    for (size_t k = 0; k < ARRAY_SIZE(holes); k++)
        net->path[k].hop_mtu = holes[k];
    run(net, ROUNDS_MAX_BATCH);
    unsigned timeouts = 0, slowest = 0;
    for (size_t k = 0; k < ARRAY_SIZE(holes); k++) {
        assert_int_equal(net->rep[k].mtu, holes[k]);
        assert_int_equal(net->rep[k].proof, DP_LOSS);
        assert_int_equal(net->rep[k].smallest_failed, holes[k] + 1);
        timeouts += net->rep[k].timeouts;
        if (net->rep[k].timeouts > slowest)
            slowest = net->rep[k].timeouts;
    }
    /* every round was one batch, which waited once for all four: the run waits as
     * often as its slowest peer, where one peer after another waits the sum */
    assert_int_equal(net->batches, net->rounds);
    assert_int_equal(net->rounds, slowest);
    assert_int_equal(timeouts, ARRAY_SIZE(holes) * slowest);
    net_free(net);
}

/* a small cap: rounds go out as several batches of whole peers, none over the cap
 * (run() checks every batch), and the answers still reach the right searches */
static void a_small_cap_splits_rounds_into_whole_peers(void **state)
{
    (void)state;
    const size_t n = 120;
    struct net *net = net_new(n);
    for (size_t k = 0; k < n; k++)
        net->path[k].hop_mtu = 1300 + (uint32_t)k * 61;
    run(net, DISC_MAX_PLAN * DISC_CONFIRM_MAX);
    for (size_t k = 0; k < n; k++)
        assert_int_equal(net->rep[k].mtu, 1300 + k * 61);
    assert_true(net->batches > net->rounds);
    assert_true(net->most <= DISC_MAX_PLAN * DISC_CONFIRM_MAX);
    net_free(net);
}

/* PEERS_MAX silent peers (they answered small probes, then nothing): every search
 * ends, within DISC_MAX_ROUNDS rounds, and every batch holds at most the cap */
static void a_thousand_silent_peers_stay_bounded(void **state)
{
    (void)state;
    const size_t n = 1024;
    struct net *net = net_new(n);
    for (size_t k = 0; k < n; k++)
        net->path[k].dead = 1;
    run(net, ROUNDS_MAX_BATCH);
    for (size_t k = 0; k < n; k++) {
        assert_true(net->rep[k].state == DS_NONE || net->rep[k].state == DS_GAVE_UP);
        assert_int_equal(net->rep[k].mtu, 0);
    }
    assert_true(net->rounds <= DISC_MAX_ROUNDS);
    assert_true(net->most <= ROUNDS_MAX_BATCH);
    net_free(net);
}

/* seconds: when that peer's own search ended, not when the run did */
static void seconds_is_when_each_search_ended(void **state)
{
    (void)state;
    struct net *net = net_new(2);
    net->path[0].hop_mtu = 1500;     /* too-big: no timeout, ends early */
    net->path[0].toobig = 1;
    net->path[1].hop_mtu = 8166;     /* black hole: three timed-out rounds */
    run(net, ROUNDS_MAX_BATCH);
    assert_int_equal(net->rep[0].mtu, 1500);
    assert_int_equal(net->rep[1].mtu, 8166);
    assert_true(net->rep[0].seconds < net->rep[1].seconds);
    assert_int_equal(net->rep[0].seconds, net->rep[0].rounds);    /* one batch a round here */
    assert_int_equal(net->rep[1].seconds, net->batches);
    net_free(net);
}

static void no_peer_no_batch(void **state)
{
    (void)state;
    struct net *net = net_new(0);
    run(net, ROUNDS_MAX_BATCH);
    assert_int_equal(net->batches, 0);
    assert_int_equal(net->rounds, 0);
    net_free(net);
}

/* a plan's probes: copies capped; laid out copies adjacent, 0.1 ms apart from the
 * batch's start, a size's group its index in the batch */
static void fill_lays_out_a_plan(void **state)
{
    (void)state;
    union sockaddr_any dst;
    memset(&dst, 0, sizeof dst);
    struct disc_try plan[] = { { 1500, 2 }, { 4000, 1 }, { 9000, 12 } };
    assert_int_equal(rounds_probes(plan, ARRAY_SIZE(plan)), 2 + 1 + DISC_CONFIRM_MAX);
    struct round_try t[] = { { .dst = &dst, .mtu = 1500, .copies = 2 }, { .dst = &dst, .mtu = 4000, .copies = 1 },
                             { .dst = &dst, .mtu = 9000, .copies = DISC_CONFIRM_MAX } };
    struct probe v[32];
    memset(v, 0x5a, sizeof v);
    size_t end = rounds_fill(v, 5, t, ARRAY_SIZE(t));
    assert_int_equal(end, 5 + 3 + DISC_CONFIRM_MAX);
    static const uint32_t mtu[] = { 1500, 1500, 4000, 9000 };
    static const int group[] = { 0, 0, 1, 2 };
    for (size_t j = 5; j < end; j++) {
        size_t w = j - 5 < 3 ? j - 5 : 3;
        assert_int_equal(v[j].mtu, mtu[w]);
        assert_int_equal(v[j].group, group[w]);
        assert_ptr_equal(v[j].dst, &dst);
        assert_int_equal(v[j].at_ns, j * ROUNDS_GAP_NS);
        assert_int_equal(v[j].res, PR_PENDING);
        assert_int_equal(v[j].ttl, 0);
    }
}

/* one round's answers, size by size: a reply beats any error, a too-big gives a hint
 * and its router, an ICMP error is a failure with proof, all copies lost is a timeout */
static void fold_reads_each_size(void **state)
{
    (void)state;
    struct disc d;
    struct disc_report out;
    memset(&out, 0, sizeof out);
    disc_init(&d, AF_INET, PKT_MAX_MTU);
    union sockaddr_any dst;
    memset(&dst, 0, sizeof dst);
    struct round_try t[] = { { .dst = &dst, .mtu = 1500, .copies = 2 }, { .dst = &dst, .mtu = 4000, .copies = 2 },
                             { .dst = &dst, .mtu = 8000, .copies = 2 }, { .dst = &dst, .mtu = 9000, .copies = 2 } };
    struct probe v[8];
    memset(v, 0, sizeof v);
    static const enum probe_res res[8] = { PR_LOST, PR_REPLY, PR_REPLY, PR_LOST,
                                           PR_TOO_BIG, PR_LOST, PR_LOST, PR_LOST };
    for (size_t j = 0; j < 8; j++) {
        v[j].mtu = t[j / 2].mtu;
        v[j].group = (int)(j / 2);
        v[j].res = res[j];
    }
    v[4].info = 6000;
    v[4].from = router();
    v[4].from_set = 1;
    rounds_read(v, 8, t, ARRAY_SIZE(t));
    assert_int_equal(t[2].got, DO_TOO_BIG);
    assert_int_equal(t[2].info, 6000);
    assert_int_equal(t[3].sent, 2);
    assert_int_equal(t[3].lost, 2);
    rounds_fold(&d, t, ARRAY_SIZE(t), &out);
    assert_int_equal(d.lo, 4000);
    assert_int_equal(d.cap, 6001);            /* the too-big's hint */
    assert_int_equal(d.cap_proof, DP_TOO_BIG);
    assert_int_equal(d.nhint, 1);
    assert_int_equal(d.hint[0], 6000);
    assert_true(out.router_set);
    assert_int_equal(d.pass_sent, 4);         /* 1500 and 4000 passed, one copy lost */
    assert_int_equal(d.pass_lost, 2);
    assert_int_equal(d.rounds, 1);
    assert_int_equal(d.timeouts, 1);          /* 9000: both copies lost */
    assert_int_equal(d.probes, 8);
    /* an unreachable (and no reply) is a failure with proof; no timeout this round */
    struct disc e;
    disc_init(&e, AF_INET, PKT_MAX_MTU);
    v[0].res = PR_REPLY;
    v[1].res = PR_REPLY;
    v[2].res = PR_UNREACH;
    v[3].res = PR_LOST;
    rounds_read(v, 4, t, 2);
    rounds_fold(&e, t, 2, &out);
    assert_int_equal(e.lo, 1500);
    assert_int_equal(e.cap, 4000);
    assert_int_equal(e.cap_proof, DP_ERROR);
    assert_int_equal(e.timeouts, 0);
}

/* a transport of the simulated network, which a stop signal meets at batch stop_at */
struct sim {
    struct net *net;
    struct probe *pv;
    unsigned batches, stop_at;
    unsigned budget;                 /* 0, or the most probes a peer's round after the first may put out */
};

static int sim_batch(void *ctx, struct round_try *t, size_t n, char *why, size_t len)
{
    (void)why;
    (void)len;
    struct sim *s = ctx;
    if (++s->batches == s->stop_at)
        return 1;
    size_t probes = 0;
    for (size_t i = 0; i < n; i++) {
        probes += t[i].copies;
        if (i + 1 == n || t[i + 1].dst != t[i].dst) {      /* one peer's round ends here */
            if (s->budget && s->batches > 1)
                assert_true(probes <= s->budget);
            probes = 0;
        }
    }
    (void)send_batch(s->net, t, n, s->pv);
    return 0;
}

/* the one driver over a transport: the searches end as the scheduler's own run ends
 * them, a transport's budget bounds each later round, and a stop signal reports each
 * search still running as far as it went (rounds and probes so far, not nothing) */
static void the_driver_runs_any_transport_and_reports_a_stop(void **state)
{
    (void)state;
    static const uint32_t holes[] = { 1499, 8166 };
    struct net *net = net_new(ARRAY_SIZE(holes));
    for (size_t k = 0; k < ARRAY_SIZE(holes); k++)
        net->path[k].hop_mtu = holes[k];
    struct sim s = { net, calloc(ROUNDS_MAX_BATCH, sizeof(struct probe)), 0, 0, 0 };
    struct rounds_transport tp = { ROUNDS_MAX_BATCH, 0, sim_batch, &s };
    char why[100];
    assert_int_equal(rounds_run(&tp, net->t, net->n, why, sizeof why), 0);
    for (size_t k = 0; k < ARRAY_SIZE(holes); k++) {
        assert_int_equal(net->rep[k].state, DS_FOUND);
        assert_int_equal(net->rep[k].mtu, holes[k]);
    }
    unsigned whole = s.batches;
    /* a small budget: more rounds, none of its later rounds over it */
    memset(net->rep, 0, ARRAY_SIZE(holes) * sizeof *net->rep);
    s.batches = 0;
    s.budget = 16;
    tp = (struct rounds_transport){ SIZE_MAX, 16, sim_batch, &s };
    assert_int_equal(rounds_run(&tp, net->t, net->n, why, sizeof why), 0);
    assert_true(s.batches > whole);
    for (size_t k = 0; k < ARRAY_SIZE(holes); k++)
        assert_int_equal(net->rep[k].mtu, holes[k]);
    /* a stop at the third batch: two rounds were taken, each search says so */
    tp = (struct rounds_transport){ ROUNDS_MAX_BATCH, 0, sim_batch, &s };
    s.batches = 0;
    s.budget = 0;
    s.stop_at = 3;
    assert_int_equal(rounds_run(&tp, net->t, net->n, why, sizeof why), 1);
    for (size_t k = 0; k < ARRAY_SIZE(holes); k++) {
        assert_int_equal(net->rep[k].state, DS_RUN);
        assert_int_equal(net->rep[k].rounds, 2);
        assert_true(net->rep[k].probes > 0);
        assert_in_range(net->rep[k].mtu, 1280, holes[k]);    /* the largest answered so far */
    }
    free(s.pv);
    net_free(net);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fill_lays_out_a_plan),
        cmocka_unit_test(fold_reads_each_size),
        cmocka_unit_test(the_driver_runs_any_transport_and_reports_a_stop),
        cmocka_unit_test(no_peer_no_batch),
        cmocka_unit_test(four_black_holes_take_the_rounds_of_one),
        cmocka_unit_test(seconds_is_when_each_search_ended),
        cmocka_unit_test(a_small_cap_splits_rounds_into_whole_peers),
        cmocka_unit_test(many_peers_each_find_their_own_mtu),
        cmocka_unit_test(a_thousand_silent_peers_stay_bounded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
