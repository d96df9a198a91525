/* Output in iperf3's layout: the text lines (start lines, interval rows, SUM rows,
 * summary rows with sender/receiver tags, CPU and efficiency lines, -f units) in
 * report.c, and the -J document in iperf3's structure in report_json.c. Both read
 * only what the session measured (figures.h) and what the start of a test shows
 * (struct start_info); text can be captured for --get-server-output.
 *
 * Text or JSON is decided once, by report_sink_for(), from the options: the sink it
 * returns is what every part of the output goes through (the figures, the lines
 * around them, the end of a test and its failure, the server's banner), and each
 * sink prints its form of that part or nothing. No other code asks which form is
 * wanted. One more part of the output is one more member of struct report_sink,
 * its text form in report.c and its JSON form in report_json.c, called where the
 * part happens; a part of a test's end (say its verdict: a "bottleneck:" line after
 * the summary and an "end.diagnosis" object) is simplest as a field of struct
 * totals that report.c's text_summary and report_json.c's json_end_obj both write. */
#ifndef ESXPERF_REPORT_H
#define ESXPERF_REPORT_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "figures.h"
#include "jsonw.h"
#include "net.h"
#include "proto.h"

struct report_sink;
struct report {
    const struct report_sink *sink;   /* text or JSON (report_sink_for) */
    FILE *out;           /* NULL = print nothing (sweep runs) */
    int forceflush;
    char format;         /* -f */
    int capture;         /* keep a copy of the text (server output for the client) */
    char *cap;
    size_t caplen, capcap;
    struct jsonw jw;     /* the -J document */
    int last_sep;        /* the last line was a separator */
    const char *title;   /* -T: prefix of every text line ("TITLE:  "), NULL = none */
    const char *timestamps;  /* --timestamps: strftime format before each line, or NULL */
    int json_stream;     /* --json-stream: each part also as one event line (report_json.c) */
    int json_full;       /* --json-stream-full-output: the whole document at the end too */
    const char *extra_data;  /* --extra-data: top-level "extra_data" of the document */
    char *stream_end;    /* --json-stream: the "end" event's data, kept for the last line */
    int mid_line;        /* the last text written did not end with a newline */
    int verbose;         /* -V: the engine line of each stream */
    int doc_pos;         /* JSON: how far the document is written (report_json.c) */
    char *json_title;    /* JSON: the test's title (-T, or the client's), until written */
};
void rep_init(struct report *r, FILE *out, const struct report_sink *sink, char format,
              int capture);
void rep_free(struct report *r);
void rep_printf(struct report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* what starts a text line: the local time in the --timestamps format (if any), then
 * "TITLE:  " (if any) */
void rep_line_prefix(FILE *out, const char *timestamps, const char *title);

/* both ends of a connected socket, as rep_addr prints them ("?" port 0 if unknown) */
struct rep_ends {
    int sock;
    char lhost[64], rhost[64];
    unsigned lport, rport;
};
void rep_ends(int fd, struct rep_ends *e);
/* address text as iperf3 prints it: IPv4-mapped IPv6 shown as plain IPv4 */
void rep_addr(const union sockaddr_any *a, char *buf, size_t len);

/* what the start of a test shows (filled by session_start_info) */
struct start_info {
    int is_client;
    const struct test_params *p;
    const char *host;            /* JSON connecting_to (client) / accepted_connection */
    unsigned port;
    const char *peer;            /* text: the peer's address */
    const char *cookie;
    int n;
    struct rep_ends ends[2 * MAX_STREAMS];
    int mss, sndbuf, rcvbuf;     /* of the first stream, -1 = unknown or none */
    char system[400];            /* uname: "Linux host 6.1.0 #1 ... x86_64" */
    int64_t now;                 /* Unix seconds */
    int64_t now_ms;              /* the same in milliseconds (iperf3 3.22's timemillisecs) */
    double interval;             /* this side's -i (test_start.interval, iperf3 3.18+) */
    int gso, gro;                /* UDP GSO sends / GRO receives on this side (3.22) */
};

/* column header of the interval rows */
void rep_header(struct report *r, int udp, int sender, int summary, int bidir);

enum row_kind {
    ROW_INTERVAL,        /* interval rows: layout depends on udp/sender */
    ROW_SUMMARY,         /* end rows with "sender" / "receiver" */
};
void rep_row(struct report *r, const struct row *row, enum row_kind kind);
void rep_separator(struct report *r);

/* opens the row's object (key NULL inside an array) with socket, start, end,
 * seconds, bytes and bits_per_second; the caller adds fields and jw_end()s it */
void rep_row_json_open(struct jsonw *w, const char *key, const struct row *row);
/* JSON object for a row (key NULL inside arrays) */
void rep_row_json(struct jsonw *w, const char *key, const struct row *row, int interval);
/* key: v with decimals, or null when v < 0 (a figure the host did not give) */
void rep_json_known(struct jsonw *w, const char *key, double v, int decimals);
/* the JSON sink's sweep table (report_json_sweep.c) */
void rep_json_sweep_table(FILE *f, const struct sweep_row *rows, int n);

struct perf_opts;

/* Every part of the output, in the order a run makes them. A member a sink has no
 * form for does nothing there (the JSON has no "Connecting to" line; text has no
 * document to close). */
struct report_sink {
    /* a line that is not a figure ("Connecting to host ..."); rep_printf's output */
    void (*line)(struct report *r, const char *text, size_t len);
    /* the start of a test, the interval rows' column header, an interval, the end */
    void (*start)(struct report *r, const struct start_info *si);
    void (*interval_header)(struct report *r, int udp, int sender, int bidir);
    void (*interval)(struct report *r, const struct interval *iv);
    void (*summary)(struct report *r, const struct totals *t);
    /* the client's copy of the server's report (--get-server-output; rem NULL when
     * it was not asked for) */
    void (*peer_output)(struct report *r, const struct test_results *rem);
    /* this side's report as the server sends it to the client: *text or *json */
    void (*own_output)(struct report *r, const char **text, const char **json);
    /* the figures are all in: the JSON document is complete (a later failure is
     * the log's, not the document's) */
    void (*close)(struct report *r);
    /* a test that completed: text's last line (NULL: none), the JSON document */
    void (*done)(struct report *r, const char *last_line);
    /* a test that failed with msg: the JSON document so far, with "error" */
    void (*failure)(struct report *r, const char *msg);
    /* outside a test: the server's "Server listening" banner, an authenticated
     * user, -V's netstack line */
    void (*banner)(FILE *out, const char *timestamps, unsigned port, int test);
    void (*authenticated)(FILE *out, const char *user, const char *peer);
    void (*netstack)(FILE *out);
    /* a sweep: the line on stderr after each run (f), the table of the runs */
    void (*sweep_progress)(FILE *f, int done, int total, const struct perf_opts *one, int rc);
    void (*sweep_table)(FILE *f, const struct sweep_row *rows, int n);
};
/* the sink the options ask for: -J (and --json-stream) JSON, --csv a sweep's table
 * as CSV, else text. The one place the choice is made. */
const struct report_sink *report_sink_for(const struct perf_opts *o);
extern const struct report_sink report_json_sink;   /* report_json.c */

#endif
