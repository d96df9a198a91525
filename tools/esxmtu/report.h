/* Output: the human report (verdict lines, size arithmetic, summary) and -J JSON. */
#ifndef ESXMTU_REPORT_H
#define ESXMTU_REPORT_H
#include <stddef.h>
#include <stdio.h>
#include "check.h"
#include "netstack.h"
#include "probe.h"
#include "team.h"
#include "each_uplink.h"

struct report_ctx {
    const struct prober *p;
    int quiet;                   /* -q: verdict lines and summary only */
    int discover, trace;
    const struct netstack *ns;   /* the run's netstack and how it was reached */
    const char *interrupted;     /* "interrupted (SIGINT) during the check", NULL when not */
    const struct team *team;     /* the -I vmk's team (team.h), NULL when none was read */
    int verbose;                 /* -V: the team's block too */
    const struct eu_run *each;   /* --each-uplink's results, NULL when not asked */
};

/* "MTU 9000 = 8972 data + 8 ICMP + 20 IPv4" */
void report_arith(char *buf, size_t len, int family, uint32_t mtu);
void report_human(FILE *f, const struct report_ctx *c, const struct peer *peers, size_t n, int exit_code);
/* the JSON document (text owned by the caller: free it) */
char *report_json(const struct report_ctx *c, const struct peer *peers, size_t n, int exit_code);

#endif
