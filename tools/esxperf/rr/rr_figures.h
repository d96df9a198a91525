/* The figures of an --rr test as the report prints them (the throughput test's
 * figures.h for request/response): each interval's count, loss and p50/p99 per
 * stream and summed, and at the end each stream's and the sum's percentiles with
 * the histogram behind the sum, and the server's turnaround from the results
 * exchange. Filled by rr_session.c, printed by rr_report.c. */
#ifndef ESXPERF_RR_FIGURES_H
#define ESXPERF_RR_FIGURES_H
#include <stdint.h>

#include "proto.h"
#include "rr_hist.h"
#include "rr_io.h"
#include "rr_verdict.h"

/* one interval: a row per stream (in creation order) and their sum */
struct rr_interval {
    int on;                      /* an --rr test */
    int load;                    /* with --rr-load's bulk streams */
    struct rr_figs rows[2 * MAX_STREAMS];
    struct rr_figs sum;
};

/* one stream, or the sum, at the end */
struct rr_stream_end {
    int sock;                    /* -1: the sum */
    uint64_t n, lost, late;
    double per_second;
    double mean, stddev;         /* ns */
    uint64_t min, p50, p90, p99, p999, max;   /* ns */
};

struct rr_end {
    int is_client, udp;
    int64_t request, response;   /* bytes */
    double seconds;
    int n;
    struct rr_stream_end st[2 * MAX_STREAMS];
    struct rr_stream_end sum;
    struct rr_hist hist;         /* the sum's histogram */
    int have_turn;               /* the client has the server's turnaround */
    struct rr_turnaround turn;
    int stalled;                 /* TCP: a stream's answer never came (--rr-timeout) */
    int load;                    /* --rr-load: st and sum are the loaded phase's, */
    double idle_seconds;
    struct rr_stream_end idle;   /* and this the idle phase's */
    int have_verdict;            /* the client's (rr_verdict.h) */
    struct rr_verdict verdict;
};

#endif
