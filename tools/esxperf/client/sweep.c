/* Sweeps: the manual series of runs (-P 1..8, window sizes) as one command. */
#include "sweep.h"
#include "client.h"
#include "clock.h"
#include "fail.h"
#include "report.h"

#include <stdlib.h>
#include <string.h>

int sweep_run(const struct perf_opts *o, struct client_stop *stop)
{
    int np = o->sweep_np ? o->sweep_np : 1, nw = o->sweep_nw ? o->sweep_nw : 1;
    struct sweep_row *rows = xcalloc((size_t)(np * nw), sizeof *rows);
    const struct report_sink *sink = report_sink_for(o);
    int n = 0, worst = EXIT_OKAY;
    for (int a = 0; a < np; a++) {
        for (int b = 0; b < nw; b++) {
            struct perf_opts one = *o;
            one.quiet = 1;
            one.json = 0;
            one.parallel = o->sweep_np ? o->sweep_parallel[a] : o->parallel;
            one.window = o->sweep_nw ? o->sweep_window[b] : o->window;
            struct sweep_row *r = &rows[n++];
            r->streams = one.parallel;
            r->window = one.window;
            r->rc = client_run(&one, stop, &r->r, r->error, sizeof r->error);
            if (r->rc > worst)
                worst = r->rc;      /* 2 (usage, system) over 1 (test failed) over 0 */
            sink->sweep_progress(stderr, n, np * nw, &one, r->rc);
            if (client_stop_signal(stop))
                break;               /* stopped: the table of the runs so far */
            sleep_ns(200 * NS_PER_MS);   /* let the server return to listening */
        }
        if (client_stop_signal(stop))
            break;
    }
    sink->sweep_table(stdout, rows, n);
    free(rows);
    return worst;
}
