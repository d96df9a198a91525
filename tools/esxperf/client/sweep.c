/* Sweeps: the manual series of runs (-P 1..8, window sizes) as one command. */
#include "sweep.h"
#include "client.h"
#include "clock.h"
#include "fail.h"
#include "jsonw.h"

#include <stdlib.h>
#include <string.h>

static void window_text(char *buf, size_t len, int64_t w)
{
    if (w <= 0)
        snprintf(buf, len, "default");
    else if (w % (1 << 20) == 0)
        snprintf(buf, len, "%lldM", (long long)(w >> 20));
    else if (w % 1024 == 0)
        snprintf(buf, len, "%lldK", (long long)(w >> 10));
    else
        snprintf(buf, len, "%lld", (long long)w);
}

/* a run's figures, or (failed) null for each and the run's error, as CSV leaves
 * them empty: a failed run measured nothing */
static void sweep_json_figures(struct jsonw *w, const struct sweep_row *r)
{
    static const char *const keys[] = {
        "seconds", "gbit_per_second", "client_cpu_percent", "server_cpu_percent",
        "retransmits", "gbit_per_cpu_second",
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
    jw_str(w, "bottleneck", r->r.bottleneck);     /* the run's verdict (diagnose.h) */
    jw_null(w, "error");
}

void sweep_print(FILE *f, const struct sweep_row *rows, int n, int csv, int json)
{
    if (json) {
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
        return;
    }
    if (csv)
        fprintf(f, "streams,window,gbit_per_second,client_cpu_percent,server_cpu_percent,"
                   "retransmits,gbit_per_cpu_second,bottleneck\n");
    else
        fprintf(f, "%7s %8s %8s %11s %11s %11s %10s  %s\n", "streams", "window", "Gbit/s",
                "client CPU%", "server CPU%", "retransmits", "Gbit/CPU-s", "bottleneck");
    for (int i = 0; i < n; i++) {
        const struct sweep_row *r = &rows[i];
        char win[32], retr[32], scpu[32];
        window_text(win, sizeof win, r->window);
        if (r->r.retrans < 0)
            snprintf(retr, sizeof retr, "n/a");
        else
            snprintf(retr, sizeof retr, "%lld", (long long)r->r.retrans);
        if (r->r.cpu_remote < 0)
            snprintf(scpu, sizeof scpu, "n/a");
        else
            snprintf(scpu, sizeof scpu, "%.1f", r->r.cpu_remote);
        if (csv) {
            /* the kernel's default window is an empty field, as the table's "default" */
            char cwin[24] = "";
            if (r->window > 0)
                snprintf(cwin, sizeof cwin, "%lld", (long long)r->window);
            if (r->rc)
                fprintf(f, "%lld,%s,,,,,,\n", (long long)r->streams, cwin);
            else
                fprintf(f, "%lld,%s,%.3f,%.1f,%s,%s,%.2f,%s\n", (long long)r->streams,
                        cwin, r->r.gbps, r->r.cpu_local,
                        r->r.cpu_remote < 0 ? "" : scpu, r->r.retrans < 0 ? "" : retr,
                        r->r.gbit_per_cpu_s, r->r.bottleneck ? r->r.bottleneck : "");
        } else if (r->rc) {
            fprintf(f, "%7lld %8s   failed (exit %d)\n", (long long)r->streams, win, r->rc);
        } else {
            fprintf(f, "%7lld %8s %8.2f %11.1f %11s %11s %10.2f  %s\n", (long long)r->streams, win,
                    r->r.gbps, r->r.cpu_local, scpu, retr, r->r.gbit_per_cpu_s,
                    r->r.bottleneck ? r->r.bottleneck : "unknown");
        }
    }
}

void sweep_progress(FILE *f, int done, int total, const struct perf_opts *one, int rc)
{
    char win[32];
    window_text(win, sizeof win, one->window);
    if (rc)
        fprintf(f, "%s: run %d/%d failed (exit %d; -P %lld, window %s)\n", tool_name, done,
                total, rc, (long long)one->parallel, win);
    else
        fprintf(f, "%s: run %d/%d done (-P %lld, window %s)\n", tool_name, done, total,
                (long long)one->parallel, win);
}

int sweep_run(const struct perf_opts *o, struct client_stop *stop)
{
    int np = o->sweep_np ? o->sweep_np : 1, nw = o->sweep_nw ? o->sweep_nw : 1;
    struct sweep_row *rows = xcalloc((size_t)(np * nw), sizeof *rows);
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
            if (!o->json && !o->csv)
                sweep_progress(stderr, n, np * nw, &one, r->rc);
            if (client_stop_signal(stop))
                break;               /* stopped: the table of the runs so far */
            sleep_ns(200 * NS_PER_MS);   /* let the server return to listening */
        }
        if (client_stop_signal(stop))
            break;
    }
    sweep_print(stdout, rows, n, o->csv, o->json);
    free(rows);
    return worst;
}
