/* The default check: one round of probes to all peers, then verdicts. */
#include "check.h"
#include "clock.h"
#include "fail.h"
#include "packet.h"

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

void check_collect(const struct probe *v, size_t n, int peer, struct vstats *s)
{
    for (size_t i = 0; i < n; i++) {
        const struct probe *pr = &v[i];
        if (pr->group / 2 != peer)
            continue;
        if (pr->group % 2) {              /* small probe */
            s->small_sent++;
            if (pr->res == PR_REPLY)
                s->small_recv++;
            continue;
        }
        s->big_sent++;
        switch (pr->res) {
        case PR_REPLY: {
            double ms = (double)pr->rtt_ns / (double)NS_PER_MS;
            if (s->big_recv == 0 || ms < s->rtt_min)
                s->rtt_min = ms;
            if (s->big_recv == 0 || ms > s->rtt_max)
                s->rtt_max = ms;
            s->rtt_sum += ms;
            s->big_recv++;
            break;
        }
        case PR_SHORT:
            s->big_short++;
            break;
        case PR_LOCAL_MTU:
            if (s->local++ == 0)
                s->local_mtu = pr->info;
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
            if (pr->res == PR_TTL ? s->ttl++ == 0 : s->unreach++ == 0) {
                s->icmp_type = pr->type;
                s->icmp_code = pr->code;
                s->send_err = pr->err;
                if (!s->router_set && pr->from_set) {
                    s->router = pr->from;
                    s->router_set = 1;
                }
            }
            break;
        default:
            s->big_lost++;
            break;
        }
    }
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
    int rc = probe_batch(p, v, n, o->timeout_ns, 0);
    if (rc == 0)
        for (size_t i = 0; i < npeers; i++) {
            check_sizes(&peers[i], peers[i].mtu);
            check_collect(v, n, (int)i, &peers[i].st);
            peers[i].verdict = verdict_decide(&peers[i].st);
        }
    free(v);
    return rc;
}
