/* --sweep-parallel / --sweep-window: a series of client runs, one table row each
 * (text, CSV with --csv, JSON with -J). */
#ifndef ESXPERF_SWEEP_H
#define ESXPERF_SWEEP_H
#include <stdio.h>

#include "options.h"
#include "session.h"

struct sweep_row {
    int64_t streams, window;
    int rc;
    struct run_result r;
};
int sweep_run(const struct perf_opts *o);
/* output of a finished table (pure: unit-testable) */
void sweep_print(FILE *f, const struct sweep_row *rows, int n, int csv, int json);

#endif
