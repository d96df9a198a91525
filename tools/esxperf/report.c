/* iperf3-layout text and JSON rows. Column layout follows iperf3 3.12's output
 * so people and scripts that read it find the same columns. */
#include "report.h"
#include "fail.h"
#include "units.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

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
    jw_free(&r->jw);
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
        if (r->title) {
            /* as iperf3 -T: every line starts with the title */
            for (const char *p = line; *p;) {
                const char *nl = strchr(p, '\n');
                size_t seg = nl ? (size_t)(nl - p) + 1 : strlen(p);
                if (!r->mid_line)
                    fprintf(r->out, "%s:  ", r->title);
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

double row_bps(const struct row *row)
{
    double sec = row->end - row->start;
    return sec > 0 ? (double)row->bytes * 8.0 / sec : 0.0;
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
        double pct = row->packets > 0 ? 100.0 * (double)row->lost / (double)row->packets : 0.0;
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

void rep_row_json_open(struct jsonw *w, const char *key, const struct row *row)
{
    jw_obj(w, key);
    if (row->sock >= 0)
        jw_int(w, "socket", row->sock);
    jw_double(w, "start", row->start);
    jw_double(w, "end", row->end);
    jw_double(w, "seconds", row->end - row->start);
    jw_uint(w, "bytes", row->bytes);
    jw_double(w, "bits_per_second", row_bps(row));
}

void rep_row_json(struct jsonw *w, const char *key, const struct row *row, int interval)
{
    rep_row_json_open(w, key, row);
    if (row->udp) {
        if (!(interval && row->sender)) {
            jw_double(w, "jitter_ms", row->jitter_ms);
            jw_int(w, "lost_packets", row->lost);
        }
        jw_int(w, "packets", row->packets);
        if (!(interval && row->sender)) {
            jw_double(w, "lost_percent",
                      row->packets > 0 ? 100.0 * (double)row->lost / (double)row->packets : 0.0);
            if (row->sock >= 0)
                jw_int(w, "out_of_order", row->ooo);
        }
    } else if (row->sender) {
        jw_int(w, "retransmits", row->retrans);
        if (interval && row->sock >= 0) {
            jw_int(w, "snd_cwnd", row->cwnd);
            jw_int(w, "rtt", row->rtt);
            jw_int(w, "rttvar", row->rttvar);
            jw_int(w, "pmtu", row->pmtu);
        }
    }
    if (interval)
        jw_bool(w, "omitted", row->omitted);
    jw_bool(w, "sender", row->sender);
    jw_end(w);
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
    rep_addr(&la, e->lhost, sizeof e->lhost);
    rep_addr(&ra, e->rhost, sizeof e->rhost);
    e->lport = net_port(&la);
    e->rport = net_port(&ra);
}
