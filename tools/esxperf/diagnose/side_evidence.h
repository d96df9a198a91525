/* One side's own evidence for the bottleneck verdict (diagnose.h), as the side
 * gathers it from its streams (diag_gather.c) and as it travels to the peer in the
 * results exchange: the fields are evidence_table.h's rows, so a side judges a
 * direction with the sender's figures from whichever side sent and the receiver's
 * from whichever side received (-R and --bidir as a forward run). */
#ifndef ESXPERF_SIDE_EVIDENCE_H
#define ESXPERF_SIDE_EVIDENCE_H
#include <stddef.h>

/* the bounds a peer's figure must keep (evidence_table.h's third column) */
#define EV_CPU_MAX 1e5            /* percent of one core: a thousand busy CPUs */
#define EV_US_MAX 1e13            /* microseconds: 115 days */
#define EV_COUNT_MAX 9007199254740992.0   /* 2^53: exact in a double */
#define EV_MTU_MAX 65536.0        /* bytes: the largest MTU Linux gives a device (lo's) */

struct side_evidence {
#define EV(name, field, max, role, to) double field;
#include "evidence_table.h"
#undef EV
};

enum { EV_SENDER, EV_RECEIVER };

struct side_evidence_row {
    const char *name;             /* the JSON member */
    size_t off;                   /* the field in struct side_evidence */
    double max;
    int role;                     /* EV_SENDER, EV_RECEIVER: whose figure the verdict takes */
    size_t diag_off;              /* the field (a double) in struct diag_evidence */
};
extern const struct side_evidence_row side_evidence_rows[];
extern const size_t side_evidence_nrows;

/* every figure unknown (-1) */
void side_evidence_init(struct side_evidence *v);
/* the row's field in v */
double *side_evidence_at(struct side_evidence *v, const struct side_evidence_row *row);
/* each row's figure into e (struct diag_evidence): the sender's rows from snd, the
 * receiver's from rcv */
struct diag_evidence;
void side_evidence_apply(const struct side_evidence *snd, const struct side_evidence *rcv,
                         struct diag_evidence *e);

#endif
