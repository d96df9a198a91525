/* The figures of one test, as the session measures them and the report prints
 * them: a row per stream and interval, the sums of each direction, the end totals
 * (bytes, CPU, efficiency) and the headline of a run for the sweeps. Plain data:
 * the session fills these (session_interval, session_totals), report.c and
 * report_json.c only read them. */
#ifndef ESXPERF_FIGURES_H
#define ESXPERF_FIGURES_H
#include <stdint.h>

#include "diagnose.h"
#include "link_speed.h"
#include "proto.h"
#include "rr_figures.h"

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
    int64_t snd_wnd, reorder;   /* TCP_INFO (a sender's interval row), -1 = n/a */
    double jitter_ms;
    int64_t lost, packets, ooo;
    int omitted;
};

/* bits per second of a row, 0 for a row without time */
static inline double row_bps(const struct row *row)
{
    double sec = row->end - row->start;
    return sec > 0 ? (double)row->bytes * 8.0 / sec : 0.0;
}

/* direction groups: 0 = the test's direction (the client's sending one, or -R's),
 * 1 = --bidir's reverse direction */
#define GROUPS 2

/* one interval: a row per stream (in creation order) and each group's sum */
struct interval {
    int n;
    struct row rows[2 * MAX_STREAMS];
    struct row sum[GROUPS];
    int nin[GROUPS];             /* streams in each group */
    int bidir;
    int64_t parallel;
    struct rr_interval rr;       /* --rr: its figures (rr.on), else zero */
};

/* headline figures of a finished run (for --sweep tables) */
struct run_result {
    double seconds;
    double gbps;               /* receiver side, the test's main direction */
    double cpu_local, cpu_remote;   /* total %, -1 remote unknown */
    int64_t retrans;           /* -1 = n/a */
    double gbit_per_cpu_s;     /* bits moved / (local + remote CPU seconds) */
    uint64_t bytes_sent, bytes_received;
    const char *bottleneck;    /* the verdict's class key, NULL when none */
    double thread_cpu_max;     /* the busiest stream thread here: CPU, % of a core, -1 */
    double thread_wait_max;    /* the longest runnable wait of a stream thread, % of
                                * its time, -1 */
};

/* one run of a sweep: what it was, how it ended, its headline (the report's sweep
 * table prints these) */
struct sweep_row {
    int64_t streams, window;
    int rc;
    struct run_result r;
    char error[400];            /* a failed run's line ("" when it passed) */
};

/* the thread that ran one stream, from its loop's start to its leaving (the same
 * reads the bottleneck verdict takes: stream_evidence.h): CPU used and time waited
 * runnable, in seconds and as % of its own wall time; -1 where the host does not
 * tell (no /proc schedstat, ESXi) or the evidence is off */
struct thread_figs {
    double wall_s, cpu_s, wait_s, cpu_pct, wait_pct;
};

/* one stream at the end: its sender and receiver rows (this side's and, when the
 * peer's results name the stream, the peer's) */
struct stream_totals {
    struct row snd, rcv;
    int have_snd, have_rcv;
    int group;
    int sender;                  /* this side sends on it */
    int tcpinfo_ok;              /* TCP_INFO worked on it (a sender) */
    int64_t max_cwnd, max_rtt, min_rtt, mean_rtt;   /* -1 unknown */
    int64_t max_snd_wnd, reorder;                   /* -1 unknown */
    const char *engine;          /* the I/O path it took (-V, JSON) */
    struct thread_figs thr;      /* the thread that ran it (-V, JSON, sweep rows) */
};

/* one direction group at the end: its SUM rows */
struct group_totals {
    struct row snd, rcv;
    int nsnd, nrcv, n;           /* streams with a sender row, a receiver row, in all */
    int first_sends;             /* this side sends on the group's first stream */
};

struct totals {
    int is_client, udp, bidir, reverse;
    int64_t parallel;
    int64_t cooldown;            /* --cooldown seconds (client), 0 on a server */
    int local_sender;            /* this side sends (for the CPU line's names) */
    int tcp_info;                /* TCP_INFO worked on some sender */
    int n;
    struct stream_totals st[2 * MAX_STREAMS];
    struct group_totals grp[GROUPS];
    double seconds;              /* the measured period */
    double cpu_user, cpu_system, cpu_total;             /* this side, % */
    int have_remote;
    double remote_user, remote_system, remote_total;    /* the peer's, % */
    double cpu_seconds_local, cpu_seconds_remote;       /* remote -1 = unknown */
    double gbit_per_cpu_local, gbit_per_cpu_remote;     /* 0 when no CPU time */
    double io_calls_per_second;
    double threads_cpu_s;        /* the stream threads' CPU seconds, summed; -1 none known */
    char congestion_local[32], congestion_remote[32];
    struct run_result fig;
    const struct rr_end *rr;     /* --rr: its end figures (rr_figures.h), else NULL */
    int have_diag;               /* the client's verdict (session_diagnose) */
    struct diagnosis diag;
    struct link_info link;
};

#endif
