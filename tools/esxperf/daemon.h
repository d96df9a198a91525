/* -D and -I: a server left running on a host, findable (its pid in a file) and
 * stoppable (kill $(cat FILE) removes the file too). daemon.c. */
#ifndef ESXPERF_DAEMON_H
#define ESXPERF_DAEMON_H
#include <stddef.h>

/* -D: fork (the parent exits 0), new session, stdin on /dev/null, stdout and
 * stderr too unless keep_output (--logfile has them); 0 in the child, or -1 with
 * one line in why */
int daemon_detach(int keep_output, char *why, size_t len);
/* -I FILE: our pid into FILE; -1 with why when the pid already in FILE is a live
 * process, or the file cannot be written */
int pidfile_create(const char *path, char *why, size_t len);
/* FILE removed if it still holds our pid (NULL: nothing) */
void pidfile_remove(const char *path);
/* SIGTERM, SIGINT and SIGHUP held here and in every thread started later, and taken
 * by one thread that removes FILE and exits 0; call before starting other threads */
int pidfile_guard(const char *path, char *why, size_t len);

#endif
