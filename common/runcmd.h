/* Other programs (esxcli, localcli) run to their end within a deadline, their output
 * captured: each in a process group of its own, so that at the deadline, once it has
 * exited, or when the caller is asked to stop, the whole group is killed - a slow or
 * wedged esxcli, or a child it leaves behind holding its output open, delays a tool
 * by the deadline at most (and by RUNCMD_GRACE_S past the program's own exit) and
 * leaves nothing running. Where the host refuses the process group (setpgid), the
 * program runs in the tool's group: what it leaves behind is then not killed, but no
 * longer waited for either. */
#ifndef ESXDIAG_RUNCMD_H
#define ESXDIAG_RUNCMD_H
#include <stddef.h>
#include <sys/types.h>

#define RUNCMD_GRACE_S 0.2            /* output still read once the program has exited */

struct runcmd {
    const char *const *argv;          /* argv[0] a path; NULL-terminated */
    /* set by runcmd_all */
    char *out;                        /* stdout and stderr together, NUL-terminated; free() */
    size_t len;                       /* bytes kept (at most out_max; more are read and dropped) */
    int code;                         /* exit status; -1 when it did not exit by itself */
    int stopped;                      /* killed, or never started, because the caller was asked to stop */
    char why[160];                    /* "" when it ran and exited; else why not */
    /* private to runcmd.c */
    pid_t pid;
    int fd, group, exited, status;
    double started, ended;
};

/* Run cmds, at most `parallel` at once, each killed (its group) deadline_s after it
 * started. stop (NULL: none) is asked between waits of at most 100 ms and whenever a
 * signal interrupts the wait: once it answers non-zero every running group is killed,
 * no other command starts, the ones not run say so in why, and 1 is returned. 0 when
 * every command ran (each with its code, or -1 and why); -1 when the runner itself
 * failed (errno). */
int runcmd_all(struct runcmd *cmds, size_t n, size_t parallel, double deadline_s, size_t out_max,
               int (*stop)(void));

/* one command: runcmd_all of one */
int runcmd_one(struct runcmd *c, double deadline_s, size_t out_max, int (*stop)(void));

#endif
