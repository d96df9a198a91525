/* --each-uplink --test-ip ADDR/PREFIX: the check through each uplink of a vmk's team
 * in turn, on a standard vSwitch, through a scratch portgroup pinned to that uplink
 * and a scratch vmk (scratch.h says what is made and how). Production portgroups and
 * vmks are never changed.
 *
 * Refused, before anything is made, with the reason: a vmk on a distributed switch
 * (its per-uplink answer is vCenter's VLAN and MTU health check), an IP-hash
 * team (its traffic is hashed over every uplink), a team whose policy or VLAN was not read, a
 * test address that is not in the vmk's subnet or that answers (or a vmk holds), and
 * scratch objects left by an earlier run (esxi/cleanup.sh removes them).
 *
 * Every way out removes what was made: a failing or hanging esxcli (each call bounded
 * by ESXDIAG_ESXCLI_SECS, default 30 s), a stop signal (SIGINT, SIGTERM, SIGHUP: the
 * running call is killed, then the removal runs, not cut short by the signal), and the
 * end. Removal is driven by the host's own listing, not by memory of what was made:
 * every vmk on a portgroup with the prefix, then every such portgroup, tried up to
 * three times; then the host is listed again to prove that nothing with the prefix is
 * left and that the production portgroup's failover policy reads as before. */
#ifndef ESXMTU_EACH_UPLINK_H
#define ESXMTU_EACH_UPLINK_H
#include <stddef.h>
#include <stdint.h>
#include "check.h"
#include "scratch.h"
#include "team.h"

struct eu_uplink {
    char name[TEAM_NAME];
    enum uplink_role role;
    char pg[80];
    int tested;                       /* its probes ran to their end */
    char error[320];                  /* why it was not (or not fully) tested, "" if it was */
    struct peer *peers;               /* a copy of the run's peers, this uplink's evidence */
    uint32_t *largest;                /* per peer: the largest MTU that passed, 0 none */
};

struct eu_run {
    int ran;                          /* --each-uplink was asked */
    char refused[400];                /* "" unless refused before anything was made */
    char test_ip[INET_ADDRSTRLEN];
    int prefix;
    char vmk[32];                     /* the scratch vmk's name */
    size_t n, npeers;
    struct eu_uplink up[TEAM_UPLINKS_MAX];
    /* the end: what the last listing showed */
    int cleanup_ok;                   /* nothing scratch left, listed again */
    char left[400];                   /* what is left ("" none) */
    int policy_same;                  /* the production portgroup's policy reads as before: 1, 0, -1 unknown */
    char cleanup_note[300];
    const char *stopped;              /* the signal's name when one came */
};

struct mtu_opts;
/* Run it (peers: the run's, sized; they are copied). Fills r; returns 0, 1 when a
 * refusal or a failing step left the test incomplete (r says why), 2 when the
 * cleanup could not prove the host clean (r->left names what is left). */
int each_uplink_run(const struct mtu_opts *o, const struct team *t, const struct peer *peers, size_t npeers,
                    struct eu_run *r);
void each_uplink_free(struct eu_run *r);
/* one finding line per uplink a peer failed through ("" none), for the report: up to max */
size_t each_uplink_findings(const struct eu_run *r, char out[][TEAM_FINDING_LEN], size_t max);

#endif
