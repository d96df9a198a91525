/* -I FILE: the pid file of a server or a client, findable (kill $(cat FILE)) and
 * never overwriting or removing anything of the user's. pidfile.c. */
#ifndef ESXPERF_PIDFILE_H
#define ESXPERF_PIDFILE_H
#include <stddef.h>

/* -I FILE: 0 when FILE may take our pid (absent, or a regular file holding the
 * pid of a process that is gone); -1 with why when it is a symbolic link, no
 * regular file, holds anything but a pid, or the pid of a live process */
int pidfile_check(const char *path, char *why, size_t len);
/* -I FILE: pidfile_check, then our pid into a new FILE (mode 600, the stale one
 * replaced); -1 with why */
int pidfile_create(const char *path, char *why, size_t len);
/* FILE removed if it still holds our pid (NULL: nothing) */
void pidfile_remove(const char *path);

#endif
