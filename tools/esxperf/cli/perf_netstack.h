/* esxperf --netstack NAME: the ESXi netstack (TCP/IP stack) a client or server runs in.
 *
 * The name comes from --netstack, else from a leading `++netstack=NAME` launch word
 * (the fleet's way). For a netstack other than defaultTcpipStack esxperf re-executes
 * itself once with `++netstack=NAME` as its first argument word (common/netstack_enter.h),
 * then checks that the -B address (or the --bind-dev interface's address) can be
 * bound: that is the proof it runs there (method "launch-word"). esxperf cannot fall
 * back as esxmtu does (esxcli has no throughput test): when the check fails it says
 * so in one line, with what to do instead, and exits 2. With no netstack named, or
 * the default one, it runs where it was started (method "current"). -V prints the
 * netstack line, -J has it under "esxperf" as "netstack" (name, from, method, note). */
#ifndef ESXPERF_PERF_NETSTACK_H
#define ESXPERF_PERF_NETSTACK_H
#include <stdio.h>
#include "netstack_enter.h"

struct perf_opts;
struct jsonw;

struct perf_netstack {
    char name[NETSTACK_NAME_MAX];   /* "" when none was named */
    char from[96];                  /* "--netstack", "++netstack= launch word" */
    const char *method;             /* "current" or "launch-word" */
    char note[240];                 /* what the check saw */
};

/* decide the netstack (may re-execute the program: does not return then); argv as
 * started, before the ++ words are skipped. Exits 2 with one line when a named
 * netstack cannot be entered or verified. */
void perf_netstack_settle(const struct perf_opts *o, int argc, char **argv);
const struct perf_netstack *perf_netstack(void);
/* -V: "netstack vmotion (--netstack): entered with ... (vmk1's address ... can be bound here)" */
void perf_netstack_print(FILE *f);
/* -J: the "netstack" object */
void perf_netstack_json(struct jsonw *w);

#endif
