/* The --rr verdict (rr_verdict.h): the limits by role, and the class and its
 * sentence from the figures. */
#include "rr_verdict.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MS 1000000ull

/* VMware's documented round-trip limits:
 * - vsan: 1 ms between the hosts of a standard vSAN cluster (vSAN Network Design
 *   guide, "Network latency": under 1 ms RTT between all hosts);
 * - stretched: 5 ms between the two data sites of a stretched cluster (vSAN
 *   Stretched Cluster guide: 5 ms RTT between data sites);
 * - witness: 200 ms to the witness host (same guide: up to 200 ms RTT for up to 10
 *   hosts per site; 100 ms above that);
 * - vmotion: 150 ms for long-distance vMotion (vSphere vMotion networking
 *   requirements: 150 ms RTT between hosts). */
const struct rr_role_info rr_roles[RR_ROLES] = {
    [RR_ROLE_VSAN] = { "vsan", "a standard vSAN cluster, between its hosts", 1 * MS },
    [RR_ROLE_STRETCHED] = { "stretched", "a stretched vSAN cluster, between its data sites", 5 * MS },
    [RR_ROLE_WITNESS] = { "witness", "a stretched vSAN cluster, to its witness host", 200 * MS },
    [RR_ROLE_VMOTION] = { "vmotion", "long-distance vMotion, between the hosts", 150 * MS },
};

int rr_role_find(const char *name)
{
    for (int i = 0; i < RR_ROLES; i++)
        if (!strcasecmp(name, rr_roles[i].name))
            return i;
    return -1;
}

int rr_limit_parse(const char *text, uint64_t *ns)
{
    char *end;
    double v = strtod(text, &end);
    double unit = 1e6;           /* ms by default */
    if (end == text || v != v)
        return -1;
    if (!strcasecmp(end, "us"))
        unit = 1e3;
    else if (!strcasecmp(end, "s"))
        unit = 1e9;
    else if (*end && strcasecmp(end, "ms"))
        return -1;
    double n = v * unit;
    if (!(n >= 1e3 && n <= 60e9))
        return -1;
    *ns = (uint64_t)(n + 0.5);
    return 0;
}

static double ms(double ns)
{
    return ns / 1e6;
}

/* what dominates, with its clause for the sentence */
static void dominant(const struct rr_judged *j, struct rr_verdict *v, char *why, size_t len)
{
    v->host_pct = j->turn_mean >= 0 && j->mean > 0 ? 100.0 * j->turn_mean / j->mean : -1;
    v->queue_factor = j->idle_p50 ? (double)j->p50 / (double)j->idle_p50 : 0;
    if (!strcmp(v->verdict, "loss")) {
        v->dominant = "loss";
        snprintf(why, len, "%.1f %% of the UDP requests got no answer (a lossy path, or a "
                 "server that drops them)", v->loss_pct);
    } else if (v->queue_factor >= RR_QUEUE_FACTOR) {
        v->dominant = "queueing";
        snprintf(why, len, "queueing behind the bulk stream: p50 %.3f ms loaded against %.3f "
                 "ms idle (x%.1f; separate the traffic: NIOC shares, another uplink or VLAN)",
                 ms((double)j->p50), ms((double)j->idle_p50), v->queue_factor);
    } else if (v->host_pct >= RR_HOST_PCT) {
        v->dominant = "host";
        snprintf(why, len, "the server host's turnaround: %.3f of the %.3f ms mean round trip "
                 "(check its CPU load)", ms(j->turn_mean), ms(j->mean));
    } else if (v->host_pct >= 0) {
        v->dominant = "network";
        snprintf(why, len, "the network and the hosts' stacks: %.3f of the %.3f ms mean round "
                 "trip (server turnaround %.3f ms)", ms(j->mean - j->turn_mean), ms(j->mean),
                 ms(j->turn_mean));
    } else {
        v->dominant = "unknown";
        snprintf(why, len, "the server's turnaround is unknown");
    }
}

void rr_verdict_make(const struct rr_judged *j, struct rr_verdict *v)
{
    memset(v, 0, sizeof *v);
    int role = j->limit_ns ? -1 : (j->role >= 0 && j->role < RR_ROLES ? j->role : RR_ROLE_VSAN);
    v->role = role >= 0 ? rr_roles[role].name : "custom";
    v->limit_ns = role >= 0 ? rr_roles[role].limit_ns : j->limit_ns;
    uint64_t asked = j->n + j->lost;
    v->loss_pct = j->udp && asked ? 100.0 * (double)j->lost / (double)asked : 0;
    if (j->udp && v->loss_pct >= RR_LOSS_PCT)
        v->verdict = "loss";
    else if (j->p50 > v->limit_ns)
        v->verdict = "over";
    else if (j->p99 > v->limit_ns)
        v->verdict = "tail";
    else
        v->verdict = "within";
    char limit[160], why[260];
    if (role >= 0)
        snprintf(limit, sizeof limit, "VMware's %g ms for %s", ms((double)v->limit_ns),
                 rr_roles[role].what);
    else
        snprintf(limit, sizeof limit, "--rr-limit %g ms", ms((double)v->limit_ns));
    dominant(j, v, why, sizeof why);
    snprintf(v->sentence, sizeof v->sentence,
             "latency: %s (p50 %.3f ms, p99 %.3f ms against %s); what dominates: %s",
             v->verdict, ms((double)j->p50), ms((double)j->p99), limit, why);
}
