/* The verdict of an --rr test: the round trip against a limit the user names
 * (--rr-limit) or the one VMware documents for a role (--rr-role; vSAN by
 * default), and what dominates it (the server host's turnaround or the network;
 * the queueing a bulk stream adds, with --rr-load; UDP requests lost). Pure:
 * figures in, a class and one sentence out; rr_verdict.c, unit-tested. */
#ifndef ESXPERF_RR_VERDICT_H
#define ESXPERF_RR_VERDICT_H
#include <stddef.h>
#include <stdint.h>

/* VMware's round-trip limits by role (rr_verdict.c cites each) */
enum { RR_ROLE_VSAN, RR_ROLE_STRETCHED, RR_ROLE_WITNESS, RR_ROLE_VMOTION, RR_ROLES };
struct rr_role_info {
    const char *name;            /* --rr-role's word, and JSON "role" */
    const char *what;            /* "a standard vSAN cluster, between its hosts" */
    uint64_t limit_ns;
};
extern const struct rr_role_info rr_roles[RR_ROLES];
/* the role named (any case), or -1 */
int rr_role_find(const char *name);
/* "1ms", "500us", "0.2s", "1.5" (ms) -> ns, 1 us..60 s; 0 or -1 */
int rr_limit_parse(const char *text, uint64_t *ns);

#define RR_LOSS_PCT 1.0          /* UDP: requests lost from this share on: "loss" */
#define RR_HOST_PCT 50.0         /* the server's turnaround from this share of the
                                  * mean round trip on: the host dominates */
#define RR_QUEUE_FACTOR 2.0      /* --rr-load: loaded p50 this many times the idle
                                  * one: queueing behind the bulk stream dominates */

/* what the verdict is drawn from */
struct rr_judged {
    uint64_t p50, p99;           /* ns, of the phase judged (the loaded one with --rr-load) */
    double mean;                 /* ns */
    uint64_t n, lost;            /* transactions, UDP requests lost */
    int udp;
    double turn_mean;            /* the server's mean turnaround, ns; < 0 unknown */
    uint64_t idle_p50;           /* --rr-load: the idle phase's p50, 0 none */
    int role;                    /* RR_ROLE_*, or -1 with a limit of the user's */
    uint64_t limit_ns;           /* the user's --rr-limit, 0 none */
};

struct rr_verdict {
    const char *verdict;         /* "within", "tail", "over", "loss" */
    const char *dominant;        /* "network", "host", "queueing", "loss", "unknown" */
    const char *role;            /* rr_roles' name, or "custom" */
    uint64_t limit_ns;
    double loss_pct;
    double host_pct;             /* turnaround / mean round trip, %; -1 unknown */
    double queue_factor;         /* loaded p50 / idle p50; 0 none */
    char sentence[640];          /* "latency: over (...); what dominates: ..." */
};

void rr_verdict_make(const struct rr_judged *j, struct rr_verdict *v);

#endif
