/* The default check: one round of probes to all peers; each peer's verdict decided once. */
#include "check.h"
#include "clock.h"
#include "fail.h"
#include "fallback.h"
#include "packet.h"
#include "stop.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void check_sizes(struct peer *pe, uint32_t mtu)
{
    pe->mtu = mtu;
    uint32_t small = CHECK_SMALL_DATA + pkt_hdr_len(pe->family);
    pe->small_mtu = mtu > small ? small : 0;
    memset(&pe->st, 0, sizeof pe->st);
    pe->st.mtu = mtu;
    pe->st.small_mtu = pe->small_mtu;
}

/* the largest size that came back for peer `peer`: a next-hop MTU below it is contradicted */
static uint32_t largest_passed(const struct probe *v, size_t n, int peer)
{
    uint32_t passed = 0;
    for (size_t i = 0; i < n; i++)
        if (v[i].group / 2 == peer && v[i].res == PR_REPLY && v[i].mtu > passed)
            passed = v[i].mtu;
    return passed;
}

static void note_bogus(struct vstats *s, uint32_t mtu, const union sockaddr_any *from, int from_set)
{
    if (s->bogus++ == 0) {
        s->bogus_mtu = mtu;
        s->bogus_from = *from;
        s->bogus_from_set = from_set;
    }
}

static void note_send_fail(struct vstats *s, const struct probe *pr, unsigned *count)
{
    if (s->send_fail + s->small_send_fail == 0) {
        s->send_fail_err = pr->err;
        s->send_fail_tries = pr->tries;
    }
    (*count)++;
}

static void collect_error(struct vstats *s, const struct probe *pr)
{
    if (pr->res == PR_TTL ? s->ttl++ == 0 : s->unreach++ == 0) {
        s->icmp_type = pr->type;
        s->icmp_code = pr->code;
        s->send_err = pr->err;
        if (!s->router_set && pr->from_set) {
            s->router = pr->from;
            s->router_set = 1;
        }
    }
}

static void collect_reply(struct vstats *s, const struct probe *pr)
{
    double ms = (double)pr->rtt_ns / (double)NS_PER_MS;
    if (s->big_recv == 0 || ms < s->rtt_min)
        s->rtt_min = ms;
    if (s->big_recv == 0 || ms > s->rtt_max)
        s->rtt_max = ms;
    s->rtt_sum += ms;
    s->big_recv++;
}

void check_collect(const struct probe *v, size_t n, int peer, struct vstats *s)
{
    uint32_t passed = largest_passed(v, n, peer);
    for (size_t i = 0; i < n; i++) {
        const struct probe *pr = &v[i];
        if (pr->group / 2 != peer)
            continue;
        if (pr->res == PR_PENDING) {      /* a stop signal came first: no outcome */
            s->pending++;
            continue;
        }
        if (pr->group % 2) {              /* small probe */
            s->small_sent++;
            if (pr->res == PR_REPLY)
                s->small_recv++;
            else if (pr->res == PR_SEND_FAIL)
                note_send_fail(s, pr, &s->small_send_fail);
            continue;
        }
        s->big_sent++;
        enum probe_res res = pr->res;
        if (res == PR_TOO_BIG && pr->info < passed) {   /* contradicted by a reply: a lie */
            note_bogus(s, pr->info, &pr->from, pr->from_set);
            res = PR_LOST;
        } else if (res == PR_LOST && pr->bogus) {
            note_bogus(s, pr->bogus_mtu, &pr->bogus_from, pr->bogus_from.sa.sa_family != 0);
        }
        switch (res) {
        case PR_REPLY:
            collect_reply(s, pr);
            break;
        case PR_SHORT:
            s->big_short++;
            break;
        case PR_LOCAL_MTU:
            if (s->local++ == 0)
                s->local_mtu = pr->info;
            s->pmtu_cache = fallback_has(pr->dst->sa.sa_family == AF_INET6 ? "IPV6_MTU_DISCOVER"
                                                                           : "IP_MTU_DISCOVER");
            break;
        case PR_SEND_FAIL:
            note_send_fail(s, pr, &s->send_fail);
            break;
        case PR_TOO_BIG:
            if (s->too_big++ == 0) {
                s->next_hop_mtu = pr->info;
                s->router = pr->from;
                s->router_set = pr->from_set;
            }
            break;
        case PR_UNREACH:
        case PR_TTL:
            collect_error(s, pr);
            break;
        default:
            s->big_lost++;
            break;
        }
    }
}

enum verdict check_evidence(const struct peer *pe)
{
    return pe->st.pending ? V_INTERRUPTED : verdict_decide(&pe->st);
}

void check_decide(struct peer *pe)
{
    if (pe->did_discover && pe->disc.state == DS_FOUND)
        verdict_weigh_discovery(&pe->st, pe->disc.mtu);
    pe->verdict = check_evidence(pe);
}

/* A full-size probe queued behind address resolution (ARP/ND) that this host's link
 * then refuses is dropped without an error, so on a cold neighbour the first round
 * can look like a black hole. Once small probes have come back the neighbour is
 * known: one more full-size send per such peer (no answer awaited) tells a refusal
 * here (ENOBUFS, EMSGSIZE) from a loss further away, on the first run as on the tenth. */
static int confirm_local(struct prober *p, struct peer *peers, size_t npeers, uint64_t timeout_ns)
{
    struct probe *v = xcalloc(npeers, sizeof *v);
    size_t *who = xcalloc(npeers, sizeof *who), n = 0;
    for (size_t i = 0; i < npeers; i++)
        if (check_evidence(&peers[i]) == V_BLACK_HOLE) {
            v[n].dst = &peers[i].addr;
            v[n].mtu = peers[i].mtu;
            v[n].at_ns = n * 100 * NS_PER_US;
            who[n++] = i;
        }
    int rc = probe_batch(p, v, n, timeout_ns, BATCH_SEND_ONLY);
    for (size_t k = 0; rc == 0 && k < n; k++) {
        struct vstats *s = &peers[who[k]].st;
        if (v[k].res == PR_SEND_FAIL || v[k].res == PR_LOCAL_MTU) {
            s->big_sent++;
            if (v[k].res == PR_SEND_FAIL)
                note_send_fail(s, &v[k], &s->send_fail);
            else if (s->local++ == 0)
                s->local_mtu = v[k].info;
        }
    }
    free(who);
    free(v);
    return rc;
}

int check_run(struct prober *p, struct peer *peers, size_t npeers, const struct check_opts *o)
{
    size_t n = 0, cap = npeers * o->count * 2;
    struct probe *v = xcalloc(cap ? cap : 1, sizeof *v);
    for (unsigned c = 0; c < o->count; c++)
        for (size_t i = 0; i < npeers; i++) {
            struct peer *pe = &peers[i];
            /* the full-size probe, then the small one 0.1 ms later */
            v[n].dst = &pe->addr;
            v[n].mtu = pe->mtu;
            v[n].group = (int)i * 2;
            v[n].at_ns = c * o->interval_ns + i * 200 * NS_PER_US;
            n++;
            if (pe->small_mtu) {
                v[n].dst = &pe->addr;
                v[n].mtu = pe->small_mtu;
                v[n].group = (int)i * 2 + 1;
                v[n].at_ns = c * o->interval_ns + i * 200 * NS_PER_US + 100 * NS_PER_US;
                n++;
            }
        }
    /* keep send times in order (peers x interval may interleave) */
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && v[j - 1].at_ns > v[j].at_ns; j--) {
            struct probe t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    int rc = probe_batch(p, v, n, o->timeout_ns, BATCH_ALL);
    int stopped = rc != 0 && errno == EINTR && stop_requested();
    /* stopped: a peer whose probes all had their outcome has its evidence, the others
     * what they got so far, and their probes without one are pending */
    if (rc == 0 || stopped)
        for (size_t i = 0; i < npeers; i++) {
            check_sizes(&peers[i], peers[i].mtu);
            check_collect(v, n, (int)i, &peers[i].st);
        }
    free(v);
    if (stopped)
        errno = EINTR;
    return rc == 0 ? confirm_local(p, peers, npeers, o->timeout_ns) : rc;
}
