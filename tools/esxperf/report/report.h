/* Output in iperf3's layout: the text lines (start lines, interval rows, SUM rows,
 * summary rows with sender/receiver tags, CPU and efficiency lines, -f units) in
 * report.c, and the -J document in iperf3's structure in report_json.c. Both read
 * only what the session measured (figures.h) and what the start of a test shows
 * (struct start_info); text can be captured for --get-server-output. */
#ifndef ESXPERF_REPORT_H
#define ESXPERF_REPORT_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "figures.h"
#include "jsonw.h"
#include "net.h"
#include "proto.h"

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
    const char *timestamps;  /* --timestamps: strftime format before each line, or NULL */
    int json_stream;     /* --json-stream: each part also as one event line (report_json.c) */
    int json_full;       /* --json-stream-full-output: the whole document at the end too */
    const char *extra_data;  /* --extra-data: top-level "extra_data" of the document */
    int extras_done;     /* JSON: extra_data is written */
    char *stream_end;    /* --json-stream: the "end" event's data, kept for the last line */
    int mid_line;        /* the last text written did not end with a newline */
    int verbose;         /* -V: the engine line of each stream */
    int intervals_open;  /* JSON: the "intervals" array is open */
    int json_done;       /* JSON: the document is complete */
    int end_done;        /* JSON: "end" is written (a summary came before an error) */
    char *json_title;    /* JSON: the test's title (-T, or the client's), until written */
};
void rep_init(struct report *r, FILE *out, int json, char format, int capture);
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

/* report.c, the text: start of a test (the "connected" lines, the server's
 * "Accepted connection", the client's reverse and -V lines); one interval's rows
 * and sums; the end (summary rows, CPU, efficiency). The JSON twins are
 * report_json_start, _interval and _summary; the session calls one or the other. */
void report_text_start(struct report *r, const struct start_info *si);
void report_text_interval(struct report *r, const struct interval *iv);
void report_text_summary(struct report *r, const struct totals *t);
/* column header of the interval rows */
void rep_header(struct report *r, int udp, int sender, int summary, int bidir);

enum row_kind {
    ROW_INTERVAL,        /* interval rows: layout depends on udp/sender */
    ROW_SUMMARY,         /* end rows with "sender" / "receiver" */
};
void rep_row(struct report *r, const struct row *row, enum row_kind kind);
void rep_separator(struct report *r);

/* report_json.c: the parts of the -J document ("start" with "intervals" opened,
 * one element of "intervals", the "end" object) */
void report_json_start(struct report *r, const struct start_info *si);
void report_json_interval(struct report *r, const struct interval *iv);
void report_json_summary(struct report *r, const struct totals *t);
/* opens the row's object (key NULL inside an array) with socket, start, end,
 * seconds, bytes and bits_per_second; the caller adds fields and jw_end()s it */
void rep_row_json_open(struct jsonw *w, const char *key, const struct row *row);
/* JSON object for a row (key NULL inside arrays) */
void rep_row_json(struct jsonw *w, const char *key, const struct row *row, int interval);
/* closes the document (and "intervals" if open), with "error" when given */
void report_json_finish(struct report *r, const char *error);
/* the one place a failure becomes JSON: the document so far closed with "error",
 * or, when no test had started, iperf3's empty start/intervals/end with "error";
 * a document already complete stays as it is (the error is the log's) */
void report_json_error(struct report *r, const char *msg);
/* the -J document on out, unless --json-stream without --json-stream-full-output
 * (the events were the output then) */
void report_json_print(struct report *r, FILE *out);
/* --get-server-output: the server's report under server_output_json (its JSON) or
 * server_output_text; nothing when rem is NULL or has neither */
void report_json_server_output(struct report *r, const struct test_results *rem);

#endif
