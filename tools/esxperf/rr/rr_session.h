/* What a session does for --rr (rr_io.h) besides its throughput books: the
 * interval's figures at each tick, the end figures, and the server's turnaround
 * for the results exchange. Called by session.c and totals.c in blocks of their
 * own; rr_session.c. */
#ifndef ESXPERF_RR_SESSION_H
#define ESXPERF_RR_SESSION_H

#include "rr_figures.h"

struct session;
struct test_results;

/* the interval that ends now: each stream's figures and the sum's (books moved on) */
void rr_session_interval(struct session *s, struct rr_interval *iv);
/* the end figures into s->rr (after the streams stopped; the client with the
 * server's turnaround when its results came) */
void rr_session_end(const struct session *s);
/* the server's turnaround into its results */
void rr_session_results(const struct session *s, struct test_results *r);

#endif
