/* How a probe records its result, and the loopback sockets probes need first, made
 * with the plain calls of Linux 2.6.32 and no socket option (probe_kit.h). */
#include "probe_kit.h"
#include "linux_opts.h"
#include "errname.h"
#include "bytes.h"
#include "clock.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- results */

void works(struct probe_result *r)
{
    r->state = PROBE_WORKS;
}

/* EMFILE and ENFILE say the process (or the system) has no descriptor left for the
 * call's result, not that the kernel refuses the call: such a probe was not tried */
static int out_of_fds(int err)
{
    return err == EMFILE || err == ENFILE;
}

void refused(struct probe_result *r, int err)
{
    if (out_of_fds(err))
        return not_tried(r, "no descriptor for its result", err);
    r->state = PROBE_REFUSED;
    r->err = err;
}

/* refused without an errno: the call returned but did not do its job */
void refused_why(struct probe_result *r, const char *why)
{
    r->state = PROBE_REFUSED;
    snprintf(r->why, sizeof r->why, "%s", why);
}

void not_tried(struct probe_result *r, const char *what, int err)
{
    char name[24];
    r->state = PROBE_NOT_TRIED;
    if (out_of_fds(err))
        snprintf(r->why, sizeof r->why, "out of descriptors (%s: %s)", what,
                 errno_name(err, name, sizeof name));
    else if (err)
        snprintf(r->why, sizeof r->why, "%s: %s", what, errno_name(err, name, sizeof name));
    else
        snprintf(r->why, sizeof r->why, "%s", what);
}

/* ---- fixtures: loopback sockets made with the plain calls only */


static void lo_addr(int family, lo_sockaddr *a, socklen_t *len)
{
    memset(a, 0, sizeof *a);
    if (family == AF_INET6) {
        a->in6.sin6_family = AF_INET6;
        a->in6.sin6_addr = in6addr_loopback;
        *len = sizeof a->in6;
    } else {
        a->in4.sin_family = AF_INET;
        a->in4.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        *len = sizeof a->in4;
    }
}

int wait_fd(int fd, short ev)
{
    struct pollfd p = { .fd = fd, .events = ev };
    int n;
    do
        n = poll(&p, 1, PROBE_WAIT_MS);
    while (n < 0 && errno == EINTR);
    if (n == 0)
        errno = ETIMEDOUT;
    return n > 0 ? 0 : -1;
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* a listener on loopback port 0 with one connection waiting in its queue, and the
 * connecting end (nonblocking); -1 with errno and *what naming the step */

int tcp_pair_open(int family, struct tcp_pair *t, int accept_it, const char **what)
{
    lo_sockaddr a;
    socklen_t len;
    t->lfd = t->cli = t->srv = -1;
    lo_addr(family, &a, &len);
    *what = "no loopback TCP listener";
    t->lfd = socket(family, SOCK_STREAM, 0);
    if (t->lfd < 0 || bind(t->lfd, &a.sa, len) < 0 || listen(t->lfd, 4) < 0 ||
        getsockname(t->lfd, &a.sa, &len) < 0)
        return -1;
    *what = "no loopback TCP connection";
    t->cli = socket(family, SOCK_STREAM, 0);
    if (t->cli < 0 || fcntl(t->cli, F_SETFL, O_NONBLOCK) < 0)
        return -1;
    if (connect(t->cli, &a.sa, len) < 0 && errno != EINPROGRESS)
        return -1;
    if (wait_fd(t->cli, POLLOUT) < 0 || wait_fd(t->lfd, POLLIN) < 0)
        return -1;
    if (!accept_it)
        return 0;
    t->srv = accept(t->lfd, NULL, NULL);
    return t->srv < 0 ? -1 : 0;
}

void tcp_pair_close(struct tcp_pair *t)
{
    close_fd(&t->lfd);
    close_fd(&t->cli);
    close_fd(&t->srv);
}

/* a UDP socket on loopback, connected to itself: what it sends it receives */
int udp_self_open(int family, const char **what)
{
    lo_sockaddr a;
    socklen_t len;
    lo_addr(family, &a, &len);
    *what = "no loopback UDP socket";
    int fd = socket(family, SOCK_DGRAM, 0);
    if (fd < 0)
        return -1;
    if (bind(fd, &a.sa, len) < 0 || getsockname(fd, &a.sa, &len) < 0 ||
        connect(fd, &a.sa, len) < 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}
