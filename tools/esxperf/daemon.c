/* A server left running on a host, as iperf3 -D -I leaves one: -D detaches it
 * from the terminal (a new session, stdin/stdout/stderr on /dev/null, the working
 * directory kept so relative -I and --logfile paths still mean what they said);
 * -I FILE holds its pid (decimal, no newline, mode 600: iperf3's format), is
 * refused while the pid in it is a live process, and is removed at exit: by the
 * flow's own end, and on SIGTERM, SIGINT or SIGHUP by a thread that waits for
 * them (the server then exits 0, as iperf3 does on those signals). */
#include "daemon.h"
#include "fail.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int daemon_detach(int keep_output, char *why, size_t len)
{
    pid_t pid = fork();
    if (pid < 0)
        return why_fmt(why, len, "cannot become a daemon: fork: %s", errtext(errno));
    if (pid > 0)
        _exit(EXIT_OKAY);           /* the shell gets its prompt back */
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

/* the pid in path, 0 when there is none (no file, empty, not a number) */
static long pid_in(const char *path)
{
    char buf[24];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    char *end;
    long pid = strtol(buf, &end, 10);
    return pid > 0 && (*end == '\0' || *end == '\n') ? pid : 0;
}

int pidfile_create(const char *path, char *why, size_t len)
{
    long old = pid_in(path);
    if (old > 0 && old != (long)getpid() && (kill((pid_t)old, 0) == 0 || errno == EPERM))
        return why_fmt(why, len, "pid file %s: process %ld runs (another esxperf server?): "
                       "stop it (kill %ld) or give another -I", path, old, old);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, S_IRUSR | S_IWUSR);
    if (fd < 0)
        return why_fmt(why, len, "cannot write pid file %s: %s", path, errtext(errno));
    char buf[24];
    int n = snprintf(buf, sizeof buf, "%ld", (long)getpid());
    int bad = write(fd, buf, (size_t)n) != n;
    if (close(fd) < 0 || bad) {
        unlink(path);
        return why_fmt(why, len, "cannot write pid file %s: %s", path, errtext(errno));
    }
    return 0;
}

void pidfile_remove(const char *path)
{
    /* only our own: a file another server wrote since stays */
    if (path && pid_in(path) == (long)getpid())
        unlink(path);
}

static void *signal_wait(void *arg)
{
    const char *path = arg;
    sigset_t set;
    int sig = 0;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGHUP);
    while (sigwait(&set, &sig) != 0)
        ;
    pidfile_remove(path);
    warnmsg("interrupted (%s): the server has terminated",
            sig == SIGTERM ? "SIGTERM" : sig == SIGINT ? "SIGINT" : "SIGHUP");
    exit(EXIT_OKAY);
}

int pidfile_guard(const char *path, char *why, size_t len)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGHUP);
    /* held in this thread and every thread started after it: only the waiter takes them */
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    pthread_t t;
    int rc = pthread_create(&t, NULL, signal_wait, (void *)path);
    if (rc)
        return why_fmt(why, len, "cannot start the pid file's signal thread: %s", errtext(rc));
    pthread_detach(t);
    return 0;
}
