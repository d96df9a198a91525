/* The self-test's probes: each system call and socket option the kit's tools use,
 * tried once on this host, on loopback sockets only (no packet leaves the host), with
 * the answer the kernel gave and what the tools do when it is refused. The list and
 * its fallback texts are one static table (probes.c); a probe never blocks (every
 * wait is a poll of at most PROBE_WAIT_MS) and the whole run stops trying once
 * PROBE_BUDGET_MS have passed, so a run ends well under five seconds. */
#ifndef ESXDIAG_SELFTEST_PROBES_H
#define ESXDIAG_SELFTEST_PROBES_H
#include <stddef.h>

#define PROBE_WAIT_MS   300
#define PROBE_BUDGET_MS 4000

enum probe_state { PROBE_WORKS, PROBE_REFUSED, PROBE_NOT_TRIED };

struct probe_result {
    enum probe_state state;
    int err;            /* the errno of a refusal (0: refused without one, see why) */
    char why[96];       /* not tried: why; refused without errno: what was wrong */
};

struct probe_row {
    const char *name;       /* "accept4", "TCP_INFO", "IP_MTU_DISCOVER PMTUDISC_PROBE" */
    const char *kind;       /* "syscall" or "sockopt" */
    const char *fallback;   /* what esxperf / esxmtu do when it is refused */
};

size_t probe_count(void);
const struct probe_row *probe_row(size_t i);
/* run probe i; root says whether probes that need privilege are tried */
void probe_run(size_t i, int root, struct probe_result *r);

/* "works", "refused", "not-tried" */
const char *probe_state_name(enum probe_state s);

#endif
