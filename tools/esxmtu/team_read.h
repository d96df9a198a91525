/* Reading a vmk's team from the host (team.h says what is read and why): read-only,
 * every command bounded in time (common/runcmd.c) and ended on a stop signal. */
#ifndef ESXMTU_TEAM_READ_H
#define ESXMTU_TEAM_READ_H
#include <stddef.h>
#include "team.h"

#define TEAM_READ_SECONDS 30.0        /* one command of the host's at most */

/* name found on PATH, then /bin, /sbin (a regular executable) into out: 0, or -1 */
int team_find_program(const char *name, char *out, size_t len);

/* Fill t for vmk: 0 when the vmk was found (the rest as far as the host answers,
 * the gaps said in t->note); -1 when not even the vmk was read (t->note says why). */
int team_read(const char *esxcli, const char *vmk, struct team *t, double secs);

#endif
