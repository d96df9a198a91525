/* iperf3-layout text: the start lines, interval rows, SUM rows and the end
 * summary. Column layout follows iperf3 3.12's output so people and scripts that
 * read it find the same columns. -J goes to report_json.c instead; which of the
 * two a run gets is decided here, once (report_sink_for). */
#include "report.h"
#include "rr_report.h"
#include "fallback.h"
#include "fail.h"
#include "udp.h"
#include "iperf_units.h"
#include "options.h"
#include "perf_netstack.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

void rep_init(struct report *r, FILE *out, const struct report_sink *sink, char format,
              int capture)
{
    memset(r, 0, sizeof *r);
    r->sink = sink;
    r->out = out;
    r->format = format ? format : 'a';
    r->capture = capture;
    jw_init(&r->jw, 1);
}

void rep_free(struct report *r)
{
    free(r->cap);
    r->cap = NULL;
    r->caplen = r->capcap = 0;
    free(r->stream_end);
    r->stream_end = NULL;
    free(r->json_title);
    r->json_title = NULL;
    jw_free(&r->jw);
}

void rep_line_prefix(FILE *out, const char *timestamps, const char *title)
{
    if (timestamps) {
        char t[256];
        time_t now = time(NULL);
        struct tm tm;
        localtime_r(&now, &tm);
        /* the format is the user's own --timestamps text, as iperf3 takes it */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
        size_t n = strftime(t, sizeof t, timestamps, &tm);
#pragma GCC diagnostic pop
        if (n > 0)
            fputs(t, out);
    }
    if (title)
        fprintf(out, "%s:  ", title);
}

void rep_printf(struct report *r, const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    size_t len = (size_t)n < sizeof line ? (size_t)n : sizeof line - 1;
    r->last_sep = 0;
    r->sink->line(r, line, len);
}

/* a text line on the output (with its --timestamps and -T prefixes) and into the
 * capture */
static void text_line(struct report *r, const char *line, size_t len)
{
    if (r->out) {
        if (r->title || r->timestamps) {
            /* as iperf3 --timestamps and -T: every line starts with the time, then
             * the title */
            for (const char *p = line; *p;) {
                const char *nl = strchr(p, '\n');
                size_t seg = nl ? (size_t)(nl - p) + 1 : strlen(p);
                if (!r->mid_line)
                    rep_line_prefix(r->out, r->timestamps, r->title);
                fwrite(p, 1, seg, r->out);
                r->mid_line = !nl;
                p += seg;
            }
        } else {
            fputs(line, r->out);
        }
        if (r->forceflush)
            fflush(r->out);
    }
    if (r->capture) {
        if (r->caplen + len + 1 > r->capcap) {
            if (r->caplen + len + 1 > (4u << 20))
                return;   /* captured server output is bounded */
            r->capcap = (r->caplen + len + 1) * 2;
            r->cap = xrealloc(r->cap, r->capcap);
        }
        memcpy(r->cap + r->caplen, line, len);
        r->caplen += len;
        r->cap[r->caplen] = '\0';
    }
}

static void id_text(char *buf, size_t len, const struct row *row)
{
    if (row->sock < 0)
        snprintf(buf, len, "[SUM]");
    else
        snprintf(buf, len, "[%3d]", row->sock);
    if (row->role) {
        size_t n = strlen(buf);
        snprintf(buf + n, len - n, "[%s]", row->role);
    }
}

void rep_header(struct report *r, int udp, int sender, int summary, int bidir)
{
    const char *id = bidir ? "[ ID][Role]" : "[ ID]";
    const char *cols;
    if (udp)
        cols = sender && !summary ? "Total Datagrams" : "Jitter    Lost/Total Datagrams";
    else if (sender)
        cols = summary ? "Retr" : "Retr  Cwnd";
    else
        cols = "";
    rep_printf(r, "%s Interval           Transfer     Bitrate         %s\n", id, cols);
}

void rep_separator(struct report *r)
{
    if (r->last_sep)
        return;
    rep_printf(r, "- - - - - - - - - - - - - - - - - - - - - - - - -\n");
    r->last_sep = 1;
}

void rep_row(struct report *r, const struct row *row, enum row_kind kind)
{
    char id[32], xfer[32], rate[32], cw[32], retr[24];
    id_text(id, sizeof id, row);
    fmt_unit(xfer, sizeof xfer, (double)row->bytes, 'A', 0);
    fmt_unit(rate, sizeof rate, row_bps(row), r->format, 1);
    const char *tag = kind == ROW_SUMMARY ? (row->sender ? "sender" : "receiver")
                                         : (row->omitted ? "(omitted)" : "");
    if (row->retrans < 0)
        snprintf(retr, sizeof retr, "n/a");
    else
        snprintf(retr, sizeof retr, "%lld", (long long)row->retrans);

    if (row->udp) {
        if (row->sender && kind == ROW_INTERVAL) {
            rep_printf(r, "%s %6.2f-%-6.2f sec  %s  %s/sec  %lld  %s\n", id, row->start,
                       row->end, xfer, rate, (long long)row->packets, tag);
            return;
        }
        double pct = udp_loss_percent(row->lost, row->packets);
        rep_printf(r, "%s %6.2f-%-6.2f sec  %s  %s/sec  %5.3f ms  %lld/%lld (%.2g%%)  %s\n", id,
                   row->start, row->end, xfer, rate, row->jitter_ms, (long long)row->lost,
                   (long long)row->packets, pct, tag);
        if (kind == ROW_SUMMARY && row->ooo > 0)
            rep_printf(r, "%s %4.1f-%4.1f sec  %lld datagrams received out-of-order\n", id,
                       row->start, row->end, (long long)row->ooo);
        return;
    }
    if (row->sender && kind == ROW_INTERVAL && row->sock >= 0) {
        if (row->cwnd < 0)
            snprintf(cw, sizeof cw, "n/a");
        else
            fmt_unit(cw, sizeof cw, (double)row->cwnd, 'A', 0);
        rep_printf(r, "%s %6.2f-%-6.2f sec  %s  %s/sec  %3s   %s       %s\n", id, row->start,
                   row->end, xfer, rate, retr, cw, tag);
    } else if (row->sender) {
        rep_printf(r, "%s %6.2f-%-6.2f sec  %s  %s/sec  %3s             %s\n", id, row->start,
                   row->end, xfer, rate, retr, tag);
    } else {
        rep_printf(r, "%s %6.2f-%-6.2f sec  %s  %s/sec                  %s\n", id, row->start,
                   row->end, xfer, rate, tag);
    }
}

void rep_addr(const union sockaddr_any *a, char *buf, size_t len)
{
    net_ntop(a, buf, len);
    if (!strncmp(buf, "::ffff:", 7) && strchr(buf + 7, '.'))
        memmove(buf, buf + 7, strlen(buf + 7) + 1);
}

void rep_ends(int fd, struct rep_ends *e)
{
    union sockaddr_any la, ra;
    socklen_t ll = sizeof la, rl = sizeof ra;
    memset(&la, 0, sizeof la);
    memset(&ra, 0, sizeof ra);
    getsockname(fd, &la.sa, &ll);
    getpeername(fd, &ra.sa, &rl);
    e->sock = fd;
    rep_addr(&la, e->lhost, sizeof e->lhost);
    rep_addr(&ra, e->rhost, sizeof e->rhost);
    e->lport = net_port(&la);
    e->rport = net_port(&ra);
}

/* ---- the parts of a test, as text */

static void text_start(struct report *r, const struct start_info *si)
{
    const struct test_params *p = si->p;
    if (!si->is_client)
        rep_printf(r, "Accepted connection from %s, port %u\n", si->peer, si->port);
    for (int i = 0; i < si->n; i++) {
        const struct rep_ends *e = &si->ends[i];
        rep_printf(r, "[%3d] local %s port %u connected to %s port %u\n", e->sock, e->lhost,
                   e->lport, e->rhost, e->rport);
    }
    if (!si->is_client)
        return;
    if (p->reverse)
        rep_printf(r, "Reverse mode, remote host %s is sending\n", si->peer);
    if (!r->verbose)
        return;
    if (p->num || p->blockcount)
        rep_printf(r, "Starting Test: protocol: %s, %lld streams, %lld byte blocks, "
                   "omitting %lld seconds, %lld %s to send, tos %lld\n", p->udp ? "UDP" : "TCP",
                   (long long)p->parallel, (long long)p->len, (long long)p->omit,
                   (long long)(p->num ? p->num : p->blockcount), p->num ? "bytes" : "blocks",
                   (long long)p->tos);
    else
        rep_printf(r, "Starting Test: protocol: %s, %lld streams, %lld byte blocks, "
                   "omitting %lld seconds, %lld second test, tos %lld\n", p->udp ? "UDP" : "TCP",
                   (long long)p->parallel, (long long)p->len, (long long)p->omit,
                   (long long)p->time, (long long)p->tos);
}

/* a group's SUM row shows with two or more streams in it, and in --bidir -P N */
static int sum_shows(int n, int bidir, int64_t parallel)
{
    return n > 1 || (bidir && n && parallel > 1);
}

static void text_interval(struct report *r, const struct interval *iv)
{
    if (iv->rr.on) {             /* --rr: transactions and round trips (rr_report.h) */
        rr_text_interval(r, iv);
        if (!iv->rr.load)        /* --rr-load: the bulk streams' rows too */
            return;
    }
    for (int i = 0; i < iv->n; i++)
        rep_row(r, &iv->rows[i], ROW_INTERVAL);
    for (int g = 0; g < GROUPS; g++)
        if (sum_shows(iv->nin[g], iv->bidir, iv->parallel))
            rep_row(r, &iv->sum[g], ROW_INTERVAL);
    if (iv->n > 1)
        rep_separator(r);
}

static void text_cpu(struct report *r, const struct totals *t)
{
    const char *lname = t->local_sender ? "local/sender" : "local/receiver";
    const char *rname = t->local_sender ? "remote/receiver" : "remote/sender";
    if (t->have_remote)
        rep_printf(r, "CPU Utilization: %s %.1f%% (%.1f%%u/%.1f%%s), %s %.1f%% (%.1f%%u/%.1f%%s)\n",
                   lname, t->cpu_total, t->cpu_user, t->cpu_system, rname, t->remote_total,
                   t->remote_user, t->remote_system);
    else
        rep_printf(r, "CPU Utilization: %s %.1f%% (%.1f%%u/%.1f%%s)\n", lname, t->cpu_total,
                   t->cpu_user, t->cpu_system);
    if (t->have_remote && t->cpu_seconds_remote > 0)
        rep_printf(r, "Efficiency: %.2f Gbit per CPU-second local, %.2f remote; %.0f I/O calls/sec\n",
                   t->gbit_per_cpu_local, t->gbit_per_cpu_remote, t->io_calls_per_second);
    else
        rep_printf(r, "Efficiency: %.2f Gbit per CPU-second local; %.0f I/O calls/sec\n",
                   t->gbit_per_cpu_local, t->io_calls_per_second);
}

/* -V: the thread of each stream (CPU and runnable wait, the verdict's reads), then
 * the whole process's CPU beside the threads' sum (figures.h) */
static void text_threads(struct report *r, const struct totals *t)
{
    for (int i = 0; i < t->n; i++) {
        const struct thread_figs *th = &t->st[i].thr;
        if (th->cpu_s < 0) {
            rep_printf(r, "[%3d] thread: CPU n/a (the host gives no thread clock, or the "
                          "evidence is off)\n", t->st[i].snd.sock);
            continue;
        }
        if (th->wait_s >= 0)
            rep_printf(r, "[%3d] thread: CPU %.1f%% of a core (%.3f s of %.3f s), waited to run "
                          "%.1f%% (%.3f s)\n", t->st[i].snd.sock, th->cpu_pct, th->cpu_s,
                       th->wall_s, th->wait_pct, th->wait_s);
        else
            rep_printf(r, "[%3d] thread: CPU %.1f%% of a core (%.3f s of %.3f s), wait n/a "
                          "(no /proc schedstat)\n", t->st[i].snd.sock, th->cpu_pct, th->cpu_s,
                       th->wall_s);
    }
    if (t->threads_cpu_s >= 0)
        rep_printf(r, "Process CPU: %.3f s in the %.3f s measured (%.1f%% of a core); its "
                      "stream threads %.3f s over their runs\n", t->cpu_seconds_local, t->seconds,
                   t->cpu_total, t->threads_cpu_s);
    else
        rep_printf(r, "Process CPU: %.3f s in the %.3f s measured (%.1f%% of a core)\n",
                   t->cpu_seconds_local, t->seconds, t->cpu_total);
}

/* the throughput rows of the end: a row per stream and side, the sums */
static void text_summary_rows(struct report *r, const struct totals *t)
{
    rep_separator(r);
    rep_header(r, t->udp, 1, 1, t->bidir);
    /* the client shows both rows of each stream; the server only its own side */
    for (int i = 0; i < t->n; i++) {
        const struct stream_totals *st = &t->st[i];
        if (st->have_snd && (t->is_client || st->sender))
            rep_row(r, &st->snd, ROW_SUMMARY);
        if (st->have_rcv && (t->is_client || !st->sender))
            rep_row(r, &st->rcv, ROW_SUMMARY);
    }
    for (int g = 0; g < GROUPS; g++) {
        const struct group_totals *gt = &t->grp[g];
        if (!sum_shows(gt->n, t->bidir, t->parallel))
            continue;
        if (gt->nsnd && (t->is_client || gt->first_sends))
            rep_row(r, &gt->snd, ROW_SUMMARY);
        if (gt->nrcv && (t->is_client || !gt->first_sends))
            rep_row(r, &gt->rcv, ROW_SUMMARY);
    }
}

static void text_summary(struct report *r, const struct totals *t)
{
    /* --rr: its transactions and round trips stand for the bytes (with --rr-load
     * the bulk streams' rows come first) */
    if (!t->rr || t->rr->load)
        text_summary_rows(r, t);
    if (t->rr)
        rr_text_end(r, t->rr);
    text_cpu(r, t);
    if (t->have_diag) {
        char line[900];
        diag_line(&t->diag, line, sizeof line);
        rep_printf(r, "%s\n", line);
        for (int i = 0; i < t->diag.nfind; i++) {
            diag_finding_line(&t->diag, i, line, sizeof line);
            rep_printf(r, "%s\n", line);
        }
    }
    if (!t->udp && !t->tcp_info && t->local_sender)
        rep_printf(r, "Retransmits: n/a (getsockopt TCP_INFO failed on this host)\n");
    if (r->verbose)
        for (int i = 0; i < t->n; i++)
            rep_printf(r, "[%3d] engine: %s\n", t->st[i].snd.sock, t->st[i].engine);
    if (r->verbose)
        text_threads(r, t);
    int nf;
    (void)fallback_list(&nf);
    char line[256];
    for (int i = 0; r->verbose && i < nf; i++)
        rep_printf(r, "fallback: %s\n", fallback_text(i, line, sizeof line));
}

static void text_interval_header(struct report *r, int udp, int sender, int bidir)
{
    rep_header(r, udp, sender, 0, bidir);
}

static void text_peer_output(struct report *r, const struct test_results *rem)
{
    if (!rem)
        return;
    if (rem->server_output_text)
        rep_printf(r, "\nServer output:\n%s", rem->server_output_text);
    else if (rem->server_output_json)
        rep_printf(r, "\nServer JSON output:\n%s\n", rem->server_output_json);
}

static void text_own_output(struct report *r, const char **text, const char **json)
{
    *text = r->cap ? r->cap : "";
    *json = NULL;
}

static void text_done(struct report *r, const char *last_line)
{
    if (last_line)
        rep_printf(r, "%s", last_line);
}

/* "Server listening on PORT (test #N)" between rules, each line with its
 * --timestamps prefix */
static void text_banner(FILE *out, const char *timestamps, unsigned port, int test)
{
    static const char rule[] = "-----------------------------------------------------------\n";
    rep_line_prefix(out, timestamps, NULL);
    fputs(rule, out);
    rep_line_prefix(out, timestamps, NULL);
    fprintf(out, "Server listening on %u (test #%d)\n", port, test);
    rep_line_prefix(out, timestamps, NULL);
    fputs(rule, out);
    fflush(out);
}

static void text_authenticated(FILE *out, const char *user, const char *peer)
{
    fprintf(out, "Authenticated user '%s' from %s\n", user, peer);
    fflush(out);
}

/* ---- a sweep's table: text (the default), CSV (--csv) */

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

/* the stderr line after each run: "run 2/4 done (...)" or "run 2/4 failed (exit 2; ...)" */
static void text_sweep_progress(FILE *f, int done, int total, const struct perf_opts *one, int rc)
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

/* a run's retransmits and the server's CPU as the table shows them ("n/a") */
static void sweep_cells(const struct sweep_row *r, char *retr, size_t rlen, char *scpu,
                        size_t slen)
{
    if (r->r.retrans < 0)
        snprintf(retr, rlen, "n/a");
    else
        snprintf(retr, rlen, "%lld", (long long)r->r.retrans);
    if (r->r.cpu_remote < 0)
        snprintf(scpu, slen, "n/a");
    else
        snprintf(scpu, slen, "%.1f", r->r.cpu_remote);
}

/* a percent that is -1 when unknown, as a cell: the figure or `unknown` */
static void pct_cell(char *out, size_t len, double v, const char *unknown)
{
    if (v < 0)
        snprintf(out, len, "%s", unknown);
    else
        snprintf(out, len, "%.1f", v);
}

static void text_sweep_table(FILE *f, const struct sweep_row *rows, int n)
{
    fprintf(f, "%7s %8s %8s %11s %11s %11s %10s %11s %11s  %s\n", "streams", "window", "Gbit/s",
            "client CPU%", "server CPU%", "retransmits", "Gbit/CPU-s", "thread CPU%",
            "thread wait%", "bottleneck");
    for (int i = 0; i < n; i++) {
        const struct sweep_row *r = &rows[i];
        char win[32], retr[32], scpu[32], tcpu[32], twait[32];
        window_text(win, sizeof win, r->window);
        sweep_cells(r, retr, sizeof retr, scpu, sizeof scpu);
        pct_cell(tcpu, sizeof tcpu, r->r.thread_cpu_max, "n/a");
        pct_cell(twait, sizeof twait, r->r.thread_wait_max, "n/a");
        if (r->rc)
            fprintf(f, "%7lld %8s   failed (exit %d)\n", (long long)r->streams, win, r->rc);
        else
            fprintf(f, "%7lld %8s %8.2f %11.1f %11s %11s %10.2f %11s %12s  %s\n",
                    (long long)r->streams, win, r->r.gbps, r->r.cpu_local, scpu, retr,
                    r->r.gbit_per_cpu_s, tcpu, twait, r->r.bottleneck ? r->r.bottleneck : "unknown");
    }
}

static void csv_sweep_table(FILE *f, const struct sweep_row *rows, int n)
{
    fprintf(f, "streams,window,gbit_per_second,client_cpu_percent,server_cpu_percent,"
               "retransmits,gbit_per_cpu_second,client_thread_cpu_percent_max,"
               "client_thread_wait_percent_max,bottleneck\n");
    for (int i = 0; i < n; i++) {
        const struct sweep_row *r = &rows[i];
        char retr[32], scpu[32], tcpu[32], twait[32];
        sweep_cells(r, retr, sizeof retr, scpu, sizeof scpu);
        pct_cell(tcpu, sizeof tcpu, r->r.thread_cpu_max, "");
        pct_cell(twait, sizeof twait, r->r.thread_wait_max, "");
        /* the kernel's default window is an empty field, as the table's "default" */
        char cwin[24] = "";
        if (r->window > 0)
            snprintf(cwin, sizeof cwin, "%lld", (long long)r->window);
        if (r->rc)
            fprintf(f, "%lld,%s,,,,,,,,\n", (long long)r->streams, cwin);
        else
            fprintf(f, "%lld,%s,%.3f,%.1f,%s,%s,%.2f,%s,%s,%s\n", (long long)r->streams, cwin,
                    r->r.gbps, r->r.cpu_local, r->r.cpu_remote < 0 ? "" : scpu,
                    r->r.retrans < 0 ? "" : retr, r->r.gbit_per_cpu_s, tcpu, twait,
                    r->r.bottleneck ? r->r.bottleneck : "");
    }
}

/* what text has no form for */
static void no_close(struct report *r) { (void)r; }
static void no_fail(struct report *r, const char *msg) { (void)r; (void)msg; }
static void no_progress(FILE *f, int done, int total, const struct perf_opts *one, int rc)
{
    (void)f; (void)done; (void)total; (void)one; (void)rc;
}

static const struct report_sink text_sink = {
    .line = text_line,
    .start = text_start,
    .interval_header = text_interval_header,
    .interval = text_interval,
    .summary = text_summary,
    .peer_output = text_peer_output,
    .own_output = text_own_output,
    .close = no_close,
    .done = text_done,
    .failure = no_fail,
    .banner = text_banner,
    .authenticated = text_authenticated,
    .netstack = perf_netstack_print,
    .sweep_progress = text_sweep_progress,
    .sweep_table = text_sweep_table,
};

/* --csv shapes only a sweep's table (its runs are quiet); no progress lines, as the
 * output is for a program */
static const struct report_sink csv_sink = {
    .line = text_line,
    .start = text_start,
    .interval_header = text_interval_header,
    .interval = text_interval,
    .summary = text_summary,
    .peer_output = text_peer_output,
    .own_output = text_own_output,
    .close = no_close,
    .done = text_done,
    .failure = no_fail,
    .banner = text_banner,
    .authenticated = text_authenticated,
    .netstack = perf_netstack_print,
    .sweep_progress = no_progress,
    .sweep_table = csv_sweep_table,
};

const struct report_sink *report_sink_for(const struct perf_opts *o)
{
    if (o->json)
        return &report_json_sink;
    return o->csv ? &csv_sink : &text_sink;
}
