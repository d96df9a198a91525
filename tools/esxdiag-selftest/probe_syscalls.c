/* The system call probes: each makes the call the tools make, straight to the kernel
 * (syscall() where musl would hide a refusal behind its own fallback). */
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
#include <spawn.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* ---- syscall probes */

void try_accept4(const struct probe *p, struct probe_result *r)
{
    (void)p;
    struct tcp_pair t;
    const char *what;
    if (tcp_pair_open(AF_INET, &t, 0, &what) < 0) {
        not_tried(r, what, errno);
    } else {
        long fd = syscall(SYS_accept4, t.lfd, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0) {
            refused(r, errno);
        } else {
            int fl = fcntl((int)fd, F_GETFD);
            close((int)fd);
            if (fl >= 0 && (fl & FD_CLOEXEC))
                works(r);
            else
                refused_why(r, "accepted without close-on-exec");
        }
    }
    tcp_pair_close(&t);
}

void try_pipe2(const struct probe *p, struct probe_result *r)
{
    (void)p;
    int fd[2];
    if (syscall(SYS_pipe2, fd, O_CLOEXEC) < 0)
        return refused(r, errno);
    int fl = fcntl(fd[0], F_GETFD);
    close(fd[0]);
    close(fd[1]);
    if (fl >= 0 && (fl & FD_CLOEXEC))
        works(r);
    else
        refused_why(r, "made without close-on-exec");
}

void try_dup3(const struct probe *p, struct probe_result *r)
{
    (void)p;
    int fd[2];
    if (pipe(fd) < 0)
        return not_tried(r, "no pipe to copy", errno);
    /* a free number above both ends: dup3 onto it, as dup2 does on aarch64; past the
     * descriptor limit the kernel answers EBADF, which is no refusal of dup3 */
    int to = fd[1] + 1;
    while (fcntl(to, F_GETFD) >= 0)
        to++;
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && (rlim_t)to >= rl.rlim_cur)
        not_tried(r, "no free number to copy onto", EMFILE);
    else if (syscall(SYS_dup3, fd[0], to, O_CLOEXEC) < 0)
        refused(r, errno);
    else {
        works(r);
        close(to);
    }
    close(fd[0]);
    close(fd[1]);
}

void try_openat(const struct probe *p, struct probe_result *r)
{
    (void)p;
    long fd = syscall(SYS_openat, AT_FDCWD, "/dev/null", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return refused(r, errno);
    close((int)fd);
    works(r);
}

/* socket(2) with a type flag, straight to the kernel (musl's socket() retries
 * without the flags itself); a kernel that ignores the flag is a refusal too */
void try_socket_flag(const struct probe *p, struct probe_result *r)
{
    long fd = syscall(SYS_socket, AF_INET, SOCK_STREAM | p->val, 0);
    if (fd < 0)
        return refused(r, errno);
    int fl = fcntl((int)fd, p->val == SOCK_CLOEXEC ? F_GETFD : F_GETFL);
    int want = p->val == SOCK_CLOEXEC ? FD_CLOEXEC : O_NONBLOCK;
    close((int)fd);
    if (fl >= 0 && (fl & want))
        works(r);
    else
        refused_why(r, "the flag was ignored");
}

void try_getrandom(const struct probe *p, struct probe_result *r)
{
    (void)p;
    unsigned char buf[16];
    /* nonblocking: a pool not ready yet (EAGAIN) still shows the call exists */
    if (syscall(SYS_getrandom, buf, sizeof buf, GRND_NONBLOCK_FLAG) < 0 && errno != EAGAIN)
        return refused(r, errno);
    works(r);
}

#define MMSG_N 2
void try_mmsg(const struct probe *p, struct probe_result *r)
{
    int send_side = p->val;
    const char *what;
    int fd = udp_self_open(AF_INET, &what);
    if (fd < 0)
        return not_tried(r, what, errno);
    char data[MMSG_N][64], in[MMSG_N][64];
    struct iovec iov[MMSG_N], riov[MMSG_N];
    struct mmsghdr m[MMSG_N], rm[MMSG_N];
    memset(m, 0, sizeof m);
    memset(rm, 0, sizeof rm);
    for (int i = 0; i < MMSG_N; i++) {
        memset(data[i], 'a' + i, sizeof data[i]);
        iov[i] = (struct iovec){ data[i], sizeof data[i] };
        riov[i] = (struct iovec){ in[i], sizeof in[i] };
        m[i].msg_hdr.msg_iov = &iov[i];
        m[i].msg_hdr.msg_iovlen = 1;
        rm[i].msg_hdr.msg_iov = &riov[i];
        rm[i].msg_hdr.msg_iovlen = 1;
    }
    if (send_side) {
        long n = syscall(SYS_sendmmsg, fd, m, MMSG_N, 0);
        if (n < 0)
            refused(r, errno);
        else if (n != MMSG_N)
            refused_why(r, "sent fewer messages than asked");
        else
            works(r);
    } else {
        /* the datagrams go out one by one, so that only recvmmsg is tried here */
        for (int i = 0; i < MMSG_N; i++)
            if (send(fd, data[i], sizeof data[i], 0) < 0) {
                not_tried(r, "no datagram to receive", errno);
                close(fd);
                return;
            }
        if (wait_fd(fd, POLLIN) < 0) {
            not_tried(r, "no datagram to receive", errno);
        } else {
            long n = syscall(SYS_recvmmsg, fd, rm, MMSG_N, MSG_DONTWAIT, NULL);
            if (n < 0)
                refused(r, errno);
            else if (n < 1 || memcmp(in[0], data[0], sizeof in[0]) != 0)
                refused_why(r, "received other bytes than were sent");
            else
                works(r);
        }
    }
    close(fd);
}

static void *thread_body(void *arg)
{
    return arg;
}

void try_pthread(const struct probe *p, struct probe_result *r)
{
    (void)p;
    pthread_t t;
    int mark = 7;
    void *back = NULL;
    int e = pthread_create(&t, NULL, thread_body, &mark);
    if (e)
        return refused(r, e);
    e = pthread_join(t, &back);
    if (e)
        refused(r, e);
    else if (back != &mark)
        refused_why(r, "the thread did not run");
    else
        works(r);
}

void try_clock(const struct probe *p, struct probe_result *r)
{
    (void)p;
    struct timespec a, b;
    if (clock_gettime(CLOCK_MONOTONIC, &a) < 0 || clock_gettime(CLOCK_MONOTONIC, &b) < 0)
        return refused(r, errno);
    if (b.tv_sec < a.tv_sec || (b.tv_sec == a.tv_sec && b.tv_nsec < a.tv_nsec))
        return refused_why(r, "CLOCK_MONOTONIC went back");
    works(r);
}

/* pins to the CPUs this process may already use: nothing changes */
void try_affinity(const struct probe *p, struct probe_result *r)
{
    (void)p;
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) < 0)
        return not_tried(r, "sched_getaffinity", errno);
    if (sched_setaffinity(0, sizeof set, &set) < 0)
        return refused(r, errno);
    works(r);
}

void try_prlimit(const struct probe *p, struct probe_result *r)
{
    (void)p;
    struct rlimit rl;
    if (syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, NULL, &rl) < 0)
        return refused(r, errno);
    works(r);
}

void try_membarrier(const struct probe *p, struct probe_result *r)
{
    (void)p;
    /* MEMBARRIER_CMD_QUERY (0): asks what is supported, changes nothing */
    if (syscall(SYS_membarrier, 0, 0) < 0)
        return refused(r, errno);
    works(r);
}

void try_statx(const struct probe *p, struct probe_result *r)
{
    (void)p;
    uint64_t buf[32];    /* struct statx is 256 bytes */
    if (syscall(SYS_statx, AT_FDCWD, "/", 0, 0x7ffu, buf) < 0)
        return refused(r, errno);
    works(r);
}

/* fork as the kernel call (musl's fork() would be the same call; on aarch64 there is
 * none, fork is clone there); the child ends at once */
void try_fork(const struct probe *p, struct probe_result *r)
{
    (void)p;
#ifdef SYS_fork
    long pid = syscall(SYS_fork);
    if (pid < 0)
        return refused(r, errno);
    if (pid == 0)
        _exit(0);
    int st;
    while (waitpid((pid_t)pid, &st, 0) < 0 && errno == EINTR)
        ;
    works(r);
#else
    not_tried(r, "no fork call on this architecture (fork is clone)", 0);
#endif
}

/* setpgid as common/runcmd.c makes it for esxcli: in a child, into a group of its own
 * (this process's own group is left alone: a shell's job control holds it). The child
 * is a plain fork where the kernel has one, so a refused clone (threads) leaves this
 * row as it is; else it is spawned with POSIX_SPAWN_SETPGROUP, this program's
 * --version, and a refusal there may be the spawn's as well as setpgid's. */
void try_setpgid(const struct probe *p, struct probe_result *r)
{
    (void)p;
    int st;
#ifdef SYS_fork
    long pid = syscall(SYS_fork);
    if (pid == 0)
        _exit(syscall(SYS_setpgid, 0, 0) == 0 ? 0 : errno);
    if (pid > 0) {
        while (waitpid((pid_t)pid, &st, 0) < 0 && errno == EINTR)
            ;
        if (!WIFEXITED(st))
            return not_tried(r, "its child ended by a signal", 0);
        return WEXITSTATUS(st) == 0 ? works(r) : refused(r, WEXITSTATUS(st));
    }
#endif
    posix_spawnattr_t at;
    posix_spawn_file_actions_t fa;
    posix_spawnattr_init(&at);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&at, 0);
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    char *const argv[] = { "esxdiag-selftest", "--version", NULL };
    pid_t c;
    int e = posix_spawn(&c, "/proc/self/exe", &fa, &at, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    if (e == ENOENT || e == EACCES || e == ENOEXEC)
        return not_tried(r, "no fork, and no /proc/self/exe to spawn", e);
    if (e != 0)
        return refused(r, e);
    while (waitpid(c, &st, 0) < 0 && errno == EINTR)
        ;
    works(r);
}

/* sendfile() from an unlinked temporary file into a loopback TCP connection, as -Z */
void try_sendfile(const struct probe *p, struct probe_result *r)
{
    (void)p;
    const char *dir = getenv("TMPDIR");
    char path[256];
    snprintf(path, sizeof path, "%s/esxdiag-selftest.XXXXXX", dir && *dir ? dir : "/tmp");
    int f = mkstemp(path);
    if (f < 0)
        return not_tried(r, "no temporary file", errno);
    unlink(path);
    char block[4096];
    memset(block, 'z', sizeof block);
    struct tcp_pair t;
    const char *what;
    if (write(f, block, sizeof block) != (ssize_t)sizeof block) {
        not_tried(r, "no temporary file", errno);
    } else if (tcp_pair_open(AF_INET, &t, 1, &what) < 0) {
        not_tried(r, what, errno);
        tcp_pair_close(&t);
    } else {
        off_t off = 0;
        ssize_t n = sendfile(t.cli, f, &off, sizeof block);
        if (n < 0)
            refused(r, errno);
        else if (n == 0)
            refused_why(r, "sent nothing");
        else
            works(r);
        tcp_pair_close(&t);
    }
    close(f);
}

/* socket(family, type, proto) alone: raw and ping sockets, MPTCP */
void try_socket(const struct probe *p, struct probe_result *r)
{
    int fd = socket(p->family, p->type, p->proto);
    if (fd < 0)
        return refused(r, errno);
    close(fd);
    works(r);
}
