/* Whether the results reached their reader. A tool's results are its reason to
 * run: when they cannot be written (a full disk, a closed pipe, /dev/full), the
 * run is a system error, not a success. Each main calls output_done() last. */
#ifndef ESXDIAG_OUTPUT_H
#define ESXDIAG_OUTPUT_H
#include <stdio.h>

/* Flush out and check that everything written to it got out. Returns rc when it
 * did; otherwise writes one line, "tool: cannot write the results to WHERE: why",
 * to errfd and returns EXIT_USAGE (2, a system error). WHERE names what out is
 * ("stdout", or the --logfile path); errfd is where the message can still be read
 * (STDERR_FILENO, or a copy of it kept before stderr went into a log file). */
int output_done(FILE *out, const char *where, int errfd, int rc);

#endif
