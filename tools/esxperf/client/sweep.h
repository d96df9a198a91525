/* --sweep-parallel / --sweep-window: a series of client runs, one table row each
 * (text, CSV with --csv, JSON with -J: the report's sink prints the table). */
#ifndef ESXPERF_SWEEP_H
#define ESXPERF_SWEEP_H
#include <stdio.h>

#include "options.h"
#include "session.h"

struct client_stop;
/* runs every combination (a stop signal ends the series after that run); exits
 * with the worst run's code (2 over 1 over 0) */
int sweep_run(const struct perf_opts *o, struct client_stop *stop);

#endif
