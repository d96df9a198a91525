/* A server left running on a host, as iperf3 -D -I leaves one: -D detaches it
 * from the terminal (a new session, stdin/stdout/stderr on /dev/null, the working
 * directory kept so relative -I and --logfile paths still mean what they said);
 * its -I pid file (proc/pidfile.c) is removed at exit: by the flow's own end.
 * SIGTERM, SIGINT and SIGHUP (with or without -D/-I) are taken by a thread
 * (proc/stop_signals.c) that hands them to the server's loop: as iperf3 3.22 does,
 * a running test's client is told SERVER_TERMINATE, the pid file is removed and
 * the server exits 0. */
#include "daemon.h"
#include "clock.h"
#include "fail.h"
#include "proto.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* the descriptor a server started by spawn_detached tells "listening" on */
#define DAEMON_READY_ENV "ESXPERF_DAEMON_READY"

/* the new session and the terminal left: stdin on /dev/null, stdout and stderr too
 * unless keep_output */
static int leave_terminal(int keep_output, char *why, size_t len)
{
    if (setsid() < 0)
        return why_fmt(why, len, "cannot become a daemon: setsid: %s", errtext(errno));
    int fd = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return why_fmt(why, len, "cannot become a daemon: /dev/null: %s", errtext(errno));
    for (int i = 0; i < (keep_output ? 1 : 3); i++)
        dup2(fd, i);
    if (fd > 2)
        close(fd);
    return 0;
}

/* Where fork is refused (ENOSYS in some VMkernel userworlds), the same command is
 * started again by posix_spawn (clone with CLONE_VFORK underneath, which they do
 * have) and marked so that it detaches without forking. This process gives the port
 * up first, so that the new one can listen on it, and waits for its word: it exits
 * 0 once the new server listens, or with the new server's status (whose message
 * went to this terminal) when it ends first. Does not return on success. */
static int spawn_detached(char **argv, int lfd, char *why, size_t len)
{
    int p[2];
    if (pipe(p) < 0)
        return why_fmt(why, len, "cannot become a daemon: fork: %s; pipe: %s",
                       errtext(ENOSYS), errtext(errno));
    fcntl(p[0], F_SETFD, FD_CLOEXEC);
    char mark[32];
    snprintf(mark, sizeof mark, "%d", p[1]);
    if (setenv(DAEMON_READY_ENV, mark, 1) != 0)
        return why_fmt(why, len, "cannot become a daemon: %s", errtext(errno));
    close(lfd);
    fflush(NULL);
    extern char **environ;
    pid_t pid;
    int rc = posix_spawn(&pid, "/proc/self/exe", NULL, NULL, argv, environ);
    if (rc != 0)
        rc = strchr(argv[0], '/') ? posix_spawn(&pid, argv[0], NULL, NULL, argv, environ)
                                  : posix_spawnp(&pid, argv[0], NULL, NULL, argv, environ);
    unsetenv(DAEMON_READY_ENV);
    close(p[1]);
    if (rc != 0)
        return why_fmt(why, len, "cannot become a daemon: fork: %s, and starting it "
                       "again failed: %s (run it in the background instead: esxperf -s &)",
                       errtext(ENOSYS), errtext(rc));
    char word = 0;
    ssize_t n;
    while ((n = read(p[0], &word, 1)) < 0 && errno == EINTR)
        ;
    if (n == 1 && word == 'L')
        _exit(EXIT_OKAY);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    _exit(WIFEXITED(st) ? WEXITSTATUS(st) : EXIT_USAGE);
}

int daemon_detach(int keep_output, char **argv, int lfd, char *why, size_t len)
{
    const char *ready = getenv(DAEMON_READY_ENV);
    if (ready) {                     /* started again by spawn_detached: no fork */
        int fd = atoi(ready);
        unsetenv(DAEMON_READY_ENV);
        if (leave_terminal(keep_output, why, len) < 0)
            return -1;
        if (fd > 2) {
            (void)!write(fd, "L", 1);
            close(fd);
        }
        return 0;
    }
    pid_t pid = fork();
    if (pid < 0 && errno == ENOSYS && argv)
        return spawn_detached(argv, lfd, why, len);
    if (pid < 0)
        return why_fmt(why, len, "cannot become a daemon: fork: %s", errtext(errno));
    if (pid > 0)
        _exit(EXIT_OKAY);           /* the shell gets its prompt back */
    return leave_terminal(keep_output, why, len);
}

/* the end of the grace: SERVER_TERMINATE on the open control connection, the pid
 * file removed, exit 0 (what iperf3 does at once). Only async-signal-safe calls
 * (musl's dprintf formats on the stack): the handlers below end here too */
static void stop_at_grace_end(struct stop_guard *g, int sig)
{
    int ctl = atomic_load(&g->ctl);
    if (ctl >= 0) {
        signed char st = (signed char)ST_SERVER_TERMINATE;
        (void)!send(ctl, &st, 1, MSG_DONTWAIT | MSG_NOSIGNAL);
    }
    pidfile_remove(g->pidfile);
    /* not exit(): the held loop may hold stdout's lock (a write to a full pipe or
     * log), which exit's flush would wait for forever */
    dprintf(STDERR_FILENO, "%s: interrupted (%s): the server has terminated\n", tool_name,
            signal_name(sig));
    _exit(EXIT_OKAY);
}

/* the waiter: the signal's number to the server's loop, then, if the server has
 * not ended itself STOP_GRACE_NS later (held in a phase that waits on its client),
 * the grace's end */
static void *signal_wait(void *arg)
{
    struct stop_guard *g = arg;
    sigset_t set;
    int sig = 0;
    stop_signals(&set);
    while (sigwait(&set, &sig) != 0)
        ;
    unsigned char b = (unsigned char)sig;
    (void)!write(g->fd[1], &b, 1);
    struct timespec ts = { STOP_GRACE_NS / NS_PER_SEC, STOP_GRACE_NS % NS_PER_SEC };
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
    stop_at_grace_end(g, sig);
    return NULL;
}

/* without a waiter thread (a host that gives no threads): the same from signal
 * handlers, the grace timed by SIGALRM; a handler's guard is the one server's */
static struct stop_guard *handled_guard;
static volatile sig_atomic_t handled_sig;

static void grace_alarm(int signo)
{
    (void)signo;
    stop_at_grace_end(handled_guard, handled_sig);
}

static void signal_handled(int sig)
{
    if (handled_sig)
        return;
    handled_sig = sig;
    unsigned char b = (unsigned char)sig;
    (void)!write(handled_guard->fd[1], &b, 1);
    struct sigaction sa = { .sa_handler = grace_alarm };
    sigfillset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, NULL);
    struct itimerval it = { { 0, 0 }, { STOP_GRACE_NS / NS_PER_SEC, 0 } };
    setitimer(ITIMER_REAL, &it, NULL);
}

int stop_guard_start(struct stop_guard *g, const char *pidfile, char *why, size_t len)
{
    g->pidfile = pidfile;
    atomic_init(&g->ctl, -1);
    g->sig = 0;
    if (pipe2(g->fd, O_CLOEXEC) < 0)
        return why_fmt(why, len, "cannot make the server's signal pipe: %s", errtext(errno));
    fcntl(g->fd[0], F_SETFL, O_NONBLOCK);
    handled_guard = g;
    return stop_waiter_start(signal_wait, signal_handled, g, "server", why, len);
}

int stop_guard_signal(struct stop_guard *g)
{
    unsigned char b;
    if (!g->sig && read(g->fd[0], &b, 1) == 1)
        g->sig = b;
    return g->sig;
}
