/* Output: iperf3-layout text lines (interval rows, SUM rows, summary rows with
 * sender/receiver tags, -f units) and the -J document in iperf3's structure.
 * Text can be captured for --get-server-output. */
#ifndef ESXPERF_REPORT_H
#define ESXPERF_REPORT_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "jsonw.h"
#include "net.h"

struct report {
    FILE *out;           /* NULL = print nothing (sweep runs) */
    int json;            /* text lines are not printed; the JSON is built instead */
    int forceflush;
    char format;         /* -f */
    int capture;         /* keep a copy of the text (server output for the client) */
    char *cap;
    size_t caplen, capcap;
    struct jsonw jw;     /* the -J document */
    int last_sep;        /* the last line was a separator */
    const char *title;   /* -T: prefix of every text line ("TITLE:  "), NULL = none */
    int mid_line;        /* the last text written did not end with a newline */
};
void rep_init(struct report *r, FILE *out, int json, char format, int capture);
void rep_free(struct report *r);
void rep_printf(struct report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* one row of a table */
struct row {
    int sock;            /* [  5]; -1 prints [SUM] */
    const char *role;    /* "TX-C" ... with --bidir, else NULL */
    double start, end;   /* seconds */
    uint64_t bytes;
    int udp, sender;
    int64_t retrans;     /* -1 = n/a */
    int64_t cwnd;        /* bytes, -1 = n/a */
    int64_t rtt, rttvar, pmtu;
    double jitter_ms;
    int64_t lost, packets, ooo;
    int omitted;
};
enum row_kind {
    ROW_INTERVAL,        /* interval rows: layout depends on udp/sender */
    ROW_SUMMARY,         /* end rows with "sender" / "receiver" */
};
void rep_header(struct report *r, int udp, int sender, int summary, int bidir);
void rep_row(struct report *r, const struct row *row, enum row_kind kind);
void rep_separator(struct report *r);
/* opens the row's object (key NULL inside an array) with socket, start, end,
 * seconds, bytes and bits_per_second; the caller adds fields and jw_end()s it */
void rep_row_json_open(struct jsonw *w, const char *key, const struct row *row);
/* JSON object for a row (key NULL inside arrays) */
void rep_row_json(struct jsonw *w, const char *key, const struct row *row, int interval);

double row_bps(const struct row *row);
/* address text as iperf3 prints it: IPv4-mapped IPv6 shown as plain IPv4 */
void rep_addr(const union sockaddr_any *a, char *buf, size_t len);
/* both ends of a connected socket, as rep_addr prints them ("?" port 0 if unknown) */
struct rep_ends {
    char lhost[64], rhost[64];
    unsigned lport, rport;
};
void rep_ends(int fd, struct rep_ends *e);

#endif
