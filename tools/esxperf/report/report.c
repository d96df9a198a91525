/* iperf3-layout text: the start lines, interval rows, SUM rows and the end
 * summary. Column layout follows iperf3 3.12's output so people and scripts that
 * read it find the same columns. -J goes to report_json.c instead. */
#include "report.h"
#include "fallback.h"
#include "fail.h"
#include "udp.h"
#include "iperf_units.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

void rep_init(struct report *r, FILE *out, int json, char format, int capture)
{
    memset(r, 0, sizeof *r);
    r->out = out;
    r->json = json;
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
    if (r->out && !r->json) {
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

void report_text_start(struct report *r, const struct start_info *si)
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

void report_text_interval(struct report *r, const struct interval *iv)
{
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

void report_text_summary(struct report *r, const struct totals *t)
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
    text_cpu(r, t);
    if (t->have_diag) {
        char line[900];
        diag_line(&t->diag, line, sizeof line);
        rep_printf(r, "%s\n", line);
    }
    if (!t->udp && !t->tcp_info && t->local_sender)
        rep_printf(r, "Retransmits: n/a (getsockopt TCP_INFO failed on this host)\n");
    if (r->verbose)
        for (int i = 0; i < t->n; i++)
            rep_printf(r, "[%3d] engine: %s\n", t->st[i].snd.sock, t->st[i].engine);
    int nf;
    (void)fallback_list(&nf);
    char line[256];
    for (int i = 0; r->verbose && i < nf; i++)
        rep_printf(r, "fallback: %s\n", fallback_text(i, line, sizeof line));
}
