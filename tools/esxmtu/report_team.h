/* The vmk's team in esxmtu's report (text and -J): see report_team.c. */
#ifndef ESXMTU_REPORT_TEAM_H
#define ESXMTU_REPORT_TEAM_H
#include <stddef.h>
#include <stdio.h>
#include "each_uplink.h"
#include "team.h"

struct jsonw;
/* -V: the team's block; always: one `finding:` line per finding. Returns how many
 * findings were printed (t NULL: none, nothing printed). */
size_t report_team_human(FILE *f, const struct team *t, int verbose);
/* the keys `team` (null when no vmk's team was read) and `findings` (the team's and
 * --each-uplink's lines, [] when none) */
void report_team_json(struct jsonw *w, const struct team *t, const struct eu_run *r);

/* --each-uplink: per uplink and peer the verdict and the largest MTU that passed, and
 * what the cleanup proved */
void report_each_human(FILE *f, const struct eu_run *r);
/* its `finding:` lines (one per uplink and peer that failed): how many */
size_t report_each_findings(FILE *f, const struct eu_run *r);
/* the key `each_uplink` (null when not asked) */
void report_each_json(struct jsonw *w, const struct eu_run *r);

#endif
