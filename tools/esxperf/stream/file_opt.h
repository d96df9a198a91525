/* -F's file is a regular one (a FIFO, device, socket or directory is refused,
 * never waited on). file_opt_check before connecting or listening: sender 1
 * (this side sends: it must exist and open) or 0 (it receives, or a server, which
 * may do either: absent is fine); 0, or -1 with one line in why. file_opt_open:
 * fd (blocking; the receiver's truncated), or -1 with errno (EINVAL: not a
 * regular file). */
#ifndef ESXPERF_FILE_OPT_H
#define ESXPERF_FILE_OPT_H
#include <stddef.h>

int file_opt_check(const char *path, int sender, char *why, size_t len);
int file_opt_open(const char *path, int sender);

#endif
