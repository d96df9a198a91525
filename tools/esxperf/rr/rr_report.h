/* --rr's part of the report (report.h's sinks call these where an --rr test has
 * figures): the interval rows and the end table in text, intervals[].rr and
 * end.rr in the JSON. rr_report.c. */
#ifndef ESXPERF_RR_REPORT_H
#define ESXPERF_RR_REPORT_H

#include "jsonw.h"
#include "rr_figures.h"

struct report;
struct interval;

/* text: the interval's rows (with the column header before the first) */
void rr_text_interval(struct report *r, const struct interval *iv);
/* text: a row per stream, the sum, the server's turnaround */
void rr_text_end(struct report *r, const struct rr_end *e);
/* JSON: "rr" in an interval's object, and in "end" */
void rr_json_interval(struct jsonw *w, const struct rr_interval *iv, const struct interval *rows);
void rr_json_end(struct jsonw *w, const struct rr_end *e);

#endif
