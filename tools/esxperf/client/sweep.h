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
    char error[400];            /* a failed run's line ("" when it passed) */
};
struct client_stop;
/* runs every combination (a stop signal ends the series after that run); exits
 * with the worst run's code (2 over 1 over 0) */
int sweep_run(const struct perf_opts *o, struct client_stop *stop);
/* the stderr line after each run: "run 2/4 done (...)" or "run 2/4 failed (exit 2; ...)" */
void sweep_progress(FILE *f, int done, int total, const struct perf_opts *one, int rc);
/* output of a finished table (pure: unit-testable); -J gives a failed run null
 * figures and its "error" */
void sweep_print(FILE *f, const struct sweep_row *rows, int n, int csv, int json);

#endif
