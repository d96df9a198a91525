/* Whether the output reached its reader. A tool's results are its reason to run:
 * when they cannot be written (a full disk, a closed pipe, /dev/full), the run is a
 * system error, not a success. The rule is one for every tool and every output,
 * the results as much as --help and --version: exit 2 (EXIT_USAGE) with one line on
 * stderr, "tool: cannot write WHAT to WHERE: why", never a death by SIGPIPE (141)
 * and never a silent 0. Each main calls output_start() first and output_done()
 * last; --help and --version end with output_exit(). */
#ifndef ESXDIAG_OUTPUT_H
#define ESXDIAG_OUTPUT_H
#include <stdio.h>

/* SIGPIPE ignored, so that a write into a closed pipe fails with EPIPE, which
 * output_done() names, instead of killing the tool before it can say so */
void output_start(void);

/* Flush out and check that everything written to it got out. Returns rc when it
 * did; otherwise writes one line, "tool: cannot write the results to WHERE: why",
 * to errfd and returns EXIT_USAGE (2, a system error). WHERE names what out is
 * ("stdout", or the --logfile path); errfd is where the message can still be read
 * (STDERR_FILENO, or a copy of it kept before stderr went into a log file). */
int output_done(FILE *out, const char *where, int errfd, int rc);
/* the same for WHAT other than the results ("the help text", "the version") */
int output_done_what(FILE *out, const char *what, const char *where, int errfd, int rc);

/* the end of --help or --version, once WHAT is written to stdout: exit 0 when it
 * got out, else the line above and exit 2 */
_Noreturn void output_exit(const char *what);

#endif
