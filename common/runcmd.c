/* Other programs run within a deadline, in a process group of their own (see runcmd.h). */
#include "runcmd.h"
#include "clock.h"
#include "fail.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define WAKE_MS 100                   /* the longest wait between two looks at stop() */

/* spawn c with stdout and stderr into a pipe, in a group of its own where the host
 * allows it; -1 (c->why set) when it cannot run */
static int start(struct runcmd *c, size_t out_max)
{
    int p[2];
    c->pid = 0;
    c->fd = -1;
    if (pipe(p) != 0) {
        snprintf(c->why, sizeof c->why, "cannot make a pipe for %s: %s", c->argv[0], errtext(errno));
        return -1;
    }
    (void)fcntl(p[0], F_SETFD, FD_CLOEXEC);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, p[1], 1);
    posix_spawn_file_actions_adddup2(&fa, p[1], 2);
    posix_spawn_file_actions_addclose(&fa, p[1]);
    posix_spawnattr_t at;
    posix_spawnattr_init(&at);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&at, 0);
    int e = posix_spawn(&c->pid, c->argv[0], &fa, &at, (char *const *)c->argv, environ);
    c->group = e == 0;
    if (e == EPERM || e == ENOSYS || e == EINVAL)   /* setpgid refused: in our own group */
        e = posix_spawn(&c->pid, c->argv[0], &fa, NULL, (char *const *)c->argv, environ);
    posix_spawnattr_destroy(&at);
    posix_spawn_file_actions_destroy(&fa);
    close(p[1]);
    if (e != 0) {
        close(p[0]);
        c->pid = 0;
        snprintf(c->why, sizeof c->why, "cannot run %s: %s", c->argv[0], errtext(e));
        return -1;
    }
    c->fd = p[0];
    c->out = xmalloc(out_max + 1);
    c->started = mono_s();
    return 0;
}

/* read what is there; 1 at the end of the output */
static int take(struct runcmd *c, size_t out_max)
{
    char tmp[4096];
    ssize_t got = read(c->fd, tmp, sizeof tmp);
    if (got < 0)
        return errno == EINTR || errno == EAGAIN ? 0 : 1;
    if (got == 0)
        return 1;
    size_t room = out_max - c->len, k = (size_t)got < room ? (size_t)got : room;
    memcpy(c->out + c->len, tmp, k);
    c->len += k;
    return 0;
}

static void kill_all(struct runcmd *c)
{
    if (c->group)
        kill(-c->pid, SIGKILL);       /* the group outlives its leader: this ends what it left */
    else if (!c->exited)
        kill(c->pid, SIGKILL);
}

/* has it exited? reaped then (status kept) */
static int reaped(struct runcmd *c, int block)
{
    if (c->exited)
        return 1;
    pid_t r;
    while ((r = waitpid(c->pid, &c->status, block ? 0 : WNOHANG)) < 0 && errno == EINTR)
        ;
    if (r == c->pid || (r < 0 && errno == ECHILD)) {
        c->exited = 1;
        c->ended = mono_s();
    }
    return c->exited;
}

/* the end of one command: the group killed, the pipe closed, code and why set */
static void finish(struct runcmd *c, int killed, double deadline_s)
{
    kill_all(c);
    (void)reaped(c, 1);
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
    c->out[c->len] = 0;
    c->code = -1;
    if (c->stopped)
        snprintf(c->why, sizeof c->why, "stopped: this run was interrupted");
    else if (killed)
        snprintf(c->why, sizeof c->why, "did not finish within %.0f s: stopped", deadline_s);
    else if (WIFEXITED(c->status))
        c->code = WEXITSTATUS(c->status);
    else
        snprintf(c->why, sizeof c->why, "ended by signal %d", WIFSIGNALED(c->status) ? WTERMSIG(c->status) : 0);
    c->pid = 0;
}

int runcmd_all(struct runcmd *cmds, size_t n, size_t parallel, double deadline_s, size_t out_max,
               int (*stop)(void))
{
    struct pollfd pf[64];
    size_t who[64];
    size_t next = 0, active = 0;
    if (parallel == 0 || parallel > 64)
        parallel = 64;
    for (size_t i = 0; i < n; i++) {
        cmds[i].out = NULL;
        cmds[i].len = 0;
        cmds[i].code = -1;
        cmds[i].stopped = 0;
        cmds[i].why[0] = 0;
        cmds[i].pid = 0;
        cmds[i].fd = -1;
        cmds[i].exited = 0;
    }
    for (;;) {
        int halt = stop && stop();
        for (; !halt && active < parallel && next < n; next++)
            if (start(&cmds[next], out_max) == 0)
                active++;
        if (halt) {
            for (size_t i = 0; i < next; i++)
                if (cmds[i].pid) {
                    cmds[i].stopped = 1;
                    finish(&cmds[i], 1, deadline_s);
                }
            for (size_t i = next; i < n; i++) {
                cmds[i].stopped = 1;
                snprintf(cmds[i].why, sizeof cmds[i].why, "not run: this run was interrupted");
            }
            return 1;
        }
        if (active == 0 && next >= n)
            return 0;
        double now = mono_s();
        int ms = WAKE_MS;
        size_t m = 0;
        for (size_t i = 0; i < next; i++) {
            struct runcmd *c = &cmds[i];
            if (!c->pid)
                continue;
            double left = c->exited ? c->ended + RUNCMD_GRACE_S - now : c->started + deadline_s - now;
            if (left * 1000 < ms)
                ms = left > 0 ? (int)(left * 1000) + 1 : 0;
            if (c->fd >= 0) {
                pf[m] = (struct pollfd){ c->fd, POLLIN, 0 };
                who[m++] = i;
            }
        }
        if (poll(pf, m, ms) < 0 && errno != EINTR)
            return -1;
        for (size_t k = 0; k < m; k++)
            if ((pf[k].revents & (POLLIN | POLLHUP | POLLERR)) && take(&cmds[who[k]], out_max)) {
                close(cmds[who[k]].fd);
                cmds[who[k]].fd = -1;
            }
        now = mono_s();
        for (size_t i = 0; i < next; i++) {
            struct runcmd *c = &cmds[i];
            if (!c->pid)
                continue;
            int done = reaped(c, 0);
            if (done && (c->fd < 0 || now >= c->ended + RUNCMD_GRACE_S)) {
                finish(c, 0, deadline_s);        /* exited; what it left behind is killed */
                active--;
            } else if (!done && now >= c->started + deadline_s) {
                finish(c, 1, deadline_s);
                active--;
            }
        }
    }
}

int runcmd_one(struct runcmd *c, double deadline_s, size_t out_max, int (*stop)(void))
{
    return runcmd_all(c, 1, 1, deadline_s, out_max, stop);
}
