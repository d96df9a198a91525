/* -I FILE, for the server and the client alike: the pid (decimal, no newline, mode
 * 600: iperf3's format), refused while the pid in it is a live process and when the
 * file holds anything but a pid, is a symbolic link or no regular file (nothing of
 * the user's is overwritten or removed), and removed at exit only while it still
 * holds our pid. */
#include "pidfile.h"
#include "fail.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* What an existing pid file may hold: only a pid (decimal, a newline allowed), so
 * that nothing else is overwritten or removed. pid_open: the file, never through a
 * symbolic link and never blocking (a FIFO opens at once, and fstat refuses it);
 * -1 with errno (ENOENT: none there, ELOOP: a symbolic link, EINVAL: not a regular
 * file) */
static int pid_open(const char *path)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    struct stat st;
    if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
        close(fd);
        errno = EINVAL;
        return -1;
    }
    return fd;
}

/* the pid fd holds; -1 for an empty file (nothing to lose: `-I "$(mktemp)"` is taken
 * as stale), 0 when it holds anything else (text, a longer file, a read error) */
static long pid_read(int fd)
{
    char buf[24];
    ssize_t n = read(fd, buf, sizeof buf - 1);
    if (n == 0)
        return -1;
    if (n < 0)
        return 0;
    buf[n] = '\0';
    char *end;
    long pid = buf[0] >= '0' && buf[0] <= '9' ? strtol(buf, &end, 10) : 0;
    return pid > 0 && (*end == '\0' || (end[0] == '\n' && end[1] == '\0')) ? pid : 0;
}

/* the pid in path, 0 when there is none (no file, or not a pid file) */
static long pid_in(const char *path)
{
    int fd = pid_open(path);
    if (fd < 0)
        return 0;
    long pid = pid_read(fd);
    close(fd);
    return pid;
}

int pidfile_check(const char *path, char *why, size_t len)
{
    int fd = pid_open(path);
    if (fd < 0 && errno == ENOENT)
        return 0;
    if (fd < 0 && errno == ELOOP)
        return why_fmt(why, len, "pid file %s is a symbolic link: not followed (give the "
                       "path of the file itself, or one that does not exist yet)", path);
    if (fd < 0 && errno == EINVAL)
        return why_fmt(why, len, "pid file %s is not a regular file (give a path that does "
                       "not exist yet)", path);
    if (fd < 0)
        return why_fmt(why, len, "cannot read pid file %s: %s", path, errtext(errno));
    long old = pid_read(fd);
    close(fd);
    if (old == 0)
        return why_fmt(why, len, "pid file %s holds something other than a pid: left as it "
                       "is (remove it if it is stale, or give another -I)", path);
    if (old > 0 && old != (long)getpid() && (kill((pid_t)old, 0) == 0 || errno == EPERM))
        return why_fmt(why, len, "pid file %s: process %ld runs (another esxperf server?): "
                       "stop it (kill %ld) or give another -I", path, old, old);
    return 0;
}

int pidfile_create(const char *path, char *why, size_t len)
{
    if (pidfile_check(path, why, len) < 0)
        return -1;
    /* a stale one (its process gone) is replaced by a file of our own, mode 600
     * whatever the old one had; O_EXCL never follows a symbolic link */
    if (unlink(path) < 0 && errno != ENOENT)
        return why_fmt(why, len, "cannot replace stale pid file %s: %s", path, errtext(errno));
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, S_IRUSR | S_IWUSR);
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
