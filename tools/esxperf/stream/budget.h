/* What a sender may send now: the -n/-k budgets that all senders of a test take
 * from (atomics, given back when a send moves less), and the glue between a
 * sender's step and the pacer (pace.h): its clock and burst. The waits to a
 * due time are the driver's (drive.h). */
#ifndef ESXPERF_BUDGET_H
#define ESXPERF_BUDGET_H
#include <stddef.h>
#include <stdint.h>

#include "pace.h"
#include "stream.h"

/* take n bytes (and one block) from the -n/-k budgets; returns how many bytes
 * may be sent (0 = budget used up) */
size_t budget_take(struct stream *s, size_t n);
/* give back what was not sent (and the block, when none of it went) */
void budget_return(struct stream *s, size_t unsent, int whole_block);
/* UDP: take up to n whole datagrams from the budgets (a partial last block
 * still goes out whole, as iperf3 does); 0 = used up */
int budget_take_datagrams(struct stream *s, int n);
void budget_return_datagrams(struct stream *s, int n);

/* -b RATE/BURST: the burst allowance in bytes beyond the first block */
uint64_t budget_burst_bytes(const struct stream *s);
/* the sender's pace clock follows the session's pacing reference */
void budget_pace_sync(struct stream *s, struct pace_clock *pc);

#endif
