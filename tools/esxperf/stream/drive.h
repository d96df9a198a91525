/* The drivers of a data stream's steps (stream.h enum step): all the waiting and
 * the scheduling, so a step never blocks past its socket's timeout. Two drive
 * them: a thread per stream (drive_start), or, where no thread can start, the
 * session's own loop on its thread (session_run_here), which calls drive_enter,
 * drive_step and drive_leave itself, waits on the socket and the control
 * connection together, and takes the session's turns between steps. */
#ifndef ESXPERF_DRIVE_H
#define ESXPERF_DRIVE_H
#include <stdint.h>

#include "stream.h"

/* a thread that runs the stream's steps to STEP_DONE; 0 or -1 with errno */
int drive_start(struct stream *s);
/* the stream's steps to STEP_DONE on the calling thread, as its thread would run
 * them (for tests) */
void drive_run(struct stream *s);

/* a stream about to run on the calling thread: counted among the running
 * senders, pinned to its -A CPU; and its end (no longer running, done set) */
void drive_enter(struct stream *s);
void drive_leave(struct stream *s);
/* one step of the stream's kind: STEP_ON, STEP_WAIT or STEP_DONE */
int drive_step(struct stream *s);
/* STEP_WAIT's sleep: until abs_ns (mono), in one call */
void drive_sleep_until(uint64_t abs_ns);

#endif
