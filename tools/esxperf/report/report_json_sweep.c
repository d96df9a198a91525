/* A sweep's table as one JSON document (-J with --sweep-*): a row per run, its
 * figures, or null for each and the run's error when it failed; and the helper for
 * figures that are -1 when unknown, which the -J document shares. */
#include "report.h"

#include <stdio.h>

void rep_json_known(struct jsonw *w, const char *key, double v, int decimals)
{
    if (v >= 0)
        jw_double_prec(w, key, v, decimals);
    else
        jw_null(w, key);
}

/* a sweep's table: a run's figures, or (failed) null for each and the run's error,
 * as CSV leaves them empty: a failed run measured nothing */
static void sweep_json_figures(struct jsonw *w, const struct sweep_row *r)
{
    static const char *const keys[] = {
        "seconds", "gbit_per_second", "client_cpu_percent", "server_cpu_percent",
        "retransmits", "gbit_per_cpu_second", "client_thread_cpu_percent_max",
        "client_thread_wait_percent_max",
    };
    if (r->rc) {
        for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
            jw_null(w, keys[i]);
        jw_null(w, "bottleneck");
        jw_str(w, "error", r->error[0] ? r->error : "the run failed");
        return;
    }
    jw_double(w, keys[0], r->r.seconds);
    jw_double(w, keys[1], r->r.gbps);
    jw_double(w, keys[2], r->r.cpu_local);
    jw_double(w, keys[3], r->r.cpu_remote);
    jw_int(w, keys[4], r->r.retrans);
    jw_double(w, keys[5], r->r.gbit_per_cpu_s);
    rep_json_known(w, keys[6], r->r.thread_cpu_max, 1);
    rep_json_known(w, keys[7], r->r.thread_wait_max, 1);
    jw_str(w, "bottleneck", r->r.bottleneck);     /* the run's verdict (diagnose.h) */
    jw_null(w, "error");
}

void rep_json_sweep_table(FILE *f, const struct sweep_row *rows, int n)
{
    struct jsonw w;
    jw_init(&w, 1);
    jw_obj(&w, NULL);
    jw_arr(&w, "sweep");
    for (int i = 0; i < n; i++) {
        const struct sweep_row *r = &rows[i];
        jw_obj(&w, NULL);
        jw_int(&w, "streams", r->streams);
        if (r->window > 0)
            jw_int(&w, "window", r->window);
        else
            jw_null(&w, "window");          /* the kernel's default */
        jw_bool(&w, "ok", r->rc == 0);
        sweep_json_figures(&w, r);
        jw_end(&w);
    }
    jw_end(&w);
    jw_end(&w);
    fprintf(f, "%s\n", jw_text(&w));
    jw_free(&w);
}
