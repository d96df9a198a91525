/* One running test, shared by client and server: the streams, the clock
 * (omit / measure / cooldown), the counters behind each interval row (session.c),
 * the end totals and the local results for the exchange (totals.c). Printing is
 * the report's (report.h): the session hands it figures (figures.h). */
#ifndef ESXPERF_SESSION_H
#define ESXPERF_SESSION_H
#include <stdint.h>

#include "cpu.h"
#include "figures.h"
#include "options.h"
#include "progress.h"
#include "proto.h"
#include "report.h"
#include "stream.h"
#include "tcp_query.h"

/* main-thread bookkeeping per stream */
struct stream_book {
    uint64_t bytes_prev, bytes_base, bytes_end;
    uint64_t blocks_prev, blocks_base, blocks_end;
    uint64_t calls_base, calls_end;
    int64_t retr_prev, retr_base, retr_end;
    struct udp_rx rx_prev, rx_base, rx_end;
    int64_t max_cwnd, max_rtt, min_rtt, sum_rtt, n_rtt;
    int64_t max_snd_wnd, reorder;    /* -1 until TCP_INFO tells them */
    int tcpinfo_ok;
    int ended;
};

struct session {
    const struct perf_opts *o;
    struct test_params p;
    int is_client;
    int family;
    int nstreams;
    struct stream *st;             /* [2 * MAX_STREAMS] */
    struct stream_book *bk;
    struct stream_shared sh;
    struct report *rep;
    struct interval *iv;           /* the rows of the interval being reported */
    uint64_t t_start;              /* TEST_RUNNING (mono ns) */
    uint64_t t_measure;            /* after omit */
    uint64_t t_measure_end;        /* 0 until the measured period ended */
    uint64_t t_next_tick, t_last_tick;
    int omitting;
    int cooldown;                  /* end snapshot taken at measure end, not at join */
    struct cpu_sample cpu_a, cpu_b;
    struct test_results remote;
    int have_remote;
    int tcpinfo_ok;                /* getsockopt(TCP_INFO) worked on a sender */
    char congestion[32];
    struct run_result fig;         /* filled by session_summary */
    struct progress rx;            /* -n/-k: the bytes received since the omit */
    uint64_t file_end_ns;          /* -F: the interval tick the test ends at, once
                                    * the file is sent (0 = not yet) */
    int here;                      /* no stream thread: the one stream runs on this
                                    * thread (session_run_here) */
    int senders_stopped;           /* session_stop_senders ran */
};

void session_init(struct session *s, const struct perf_opts *o, const struct test_params *p,
                  int is_client, struct report *rep);
void session_free(struct session *s);
/* add a stream in creation order; returns it (id assigned 1, 3, 4, ...) */
struct stream *session_add(struct session *s, int fd, int sender);
int session_stream_id(int index);
/* direction group of stream i: 0 = the test's direction, 1 = --bidir's reverse */
int session_group(const struct session *s, int i);
/* "TX-C", "RX-C", "TX-S", "RX-S" with --bidir, else NULL */
const char *session_role(const struct session *s, int i);
/* seconds of the measured period (so far, until it ended) */
double session_seconds(const struct session *s);
/* adds a row into a SUM row: bytes, packets, losses, known retransmits, jitter */
void row_add(struct row *sum, const struct row *r);
/* role of stream i from this side: 1 sends */
int session_is_sender(const struct session *s, int index);
/* the start of the test on the report: host and port for the JSON (connecting_to,
 * accepted_connection), peer for the text lines */
void session_report_start(const struct session *s, const char *host, unsigned port,
                          const char *peer, const char *cookie);

/* the bytes this side's streams have moved so far, summed over those of one kind;
 * since_omit: from the end of the omit (each stream's base) */
enum { BYTES_ALL, BYTES_SENT, BYTES_RECEIVED };
uint64_t session_bytes(const struct session *s, int which, int since_omit);
/* a test's report as the options ask for it (format, flushing, -V, timestamps, the
 * JSON stream); capture: keep the text for --get-server-output */
void session_report_init(struct report *r, FILE *out, const struct perf_opts *o, int capture);
/* this thread (and every thread it starts later) on the CPUs listed */
void session_pin(const int *cpus, int ncpus);
/* the clock and a thread per stream. Where no thread can start (or
 * ESXPERF_ENGINE_OFF=threads) a test of one stream starts without: here is set,
 * -V and -J say so, and the caller runs it with session_run_here. 0, or -1 with
 * errno: a test of several streams, which needs a thread each */
int session_start(struct session *s);
/* a test whose one stream runs on this thread (here): the session's loop drives
 * the stream's steps (drive.h) and between them gives turn(arg) a turn at least
 * every TURN_MAX_MS, and at once when watch_fd (the control connection, or -1)
 * turns readable while the stream waits. turn returns the milliseconds until it
 * wants the next turn, or -1: the test is over, the stream stops (both stop
 * flags set) and the turns end once its steps are done. */
#define TURN_MAX_MS 10
void session_run_here(struct session *s, int (*turn)(void *), void *arg, int watch_fd);
/* the line for a session_start that failed (errno err): what needs the threads */
void session_no_threads(const struct session *s, int err, char *buf, size_t len);
/* call often: handles omit end and interval ticks; returns ms until next event */
int session_poll(struct session *s, uint64_t now);
/* the end check for the client: time reached, -n/-k done; 1 = end now */
int session_should_end(struct session *s, uint64_t now);
void session_stop_senders(struct session *s);       /* stop + join senders */
void session_stop_all(struct session *s);            /* stop receivers (drain) + join */
void session_local_results(struct session *s, struct test_results *r, const char *server_text,
                           const char *server_json);
/* the end figures of the test (after session_stop_all; with the peer's results
 * when have_remote), without printing */
void session_totals(const struct session *s, struct totals *t);
/* the bottleneck verdict into t (diag_gather.c), on either side: this side's and
 * the peer's evidence (the results exchange), the egress link's speed (may ask
 * esxcli, bounded) */
void session_diagnose(const struct session *s, struct totals *t);
/* this side's evidence for the verdict, as it goes into the results exchange */
void session_side_evidence(const struct session *s, struct side_evidence *v);
/* session_totals on the report (text rows, or the JSON "end"); keeps the run's
 * headline in fig */
void session_summary(struct session *s);
/* a test ended early (SERVER_TERMINATE, CLIENT_TERMINATE, a stop signal): the streams
 * stopped and the summary of what this side measured until then; the peer's figures
 * never come, so its rows are left out (JSON: its side 0, as iperf3 writes) */
void session_summary_so_far(struct session *s);
/* any stream ended with an error: its errno, else 0 */
int session_stream_error(const struct session *s);

#endif
