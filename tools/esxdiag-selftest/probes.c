/* The probe table and each probe (probes.h). Rule for every probe: it makes the very
 * call the tools make, with the tools' arguments, straight to the kernel (syscall()
 * where musl would hide a refusal behind its own fallback), on a socket bound to
 * loopback or never connected; what it needs first (a loopback TCP connection, a
 * UDP socket talking to itself) is made with the plain calls of Linux 2.6.32 and no
 * socket option, so that one refused call shows in its own row and no other. */
#include "probes.h"
#include "linux_opts.h"
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

/* option numbers of Linux's uapi headers that musl's may lack */
#define GRND_NONBLOCK_FLAG 1
#define TCP_INFO_NEED 104        /* struct tcp_info up to tcpi_total_retrans, as esxperf reads it */

struct probe;
typedef void probe_fn(const struct probe *p, struct probe_result *r);

struct probe {
    struct probe_row row;
    probe_fn *run;
    int family, type, proto;     /* the socket a socket or option probe opens */
    int level, opt, val;         /* the option and its int value */
    int root;                    /* needs privilege (CAP_NET_RAW / CAP_NET_ADMIN) */
};

/* ---- results */

static void works(struct probe_result *r)
{
    r->state = PROBE_WORKS;
}

static void refused(struct probe_result *r, int err)
{
    r->state = PROBE_REFUSED;
    r->err = err;
}

/* refused without an errno: the call returned but did not do its job */
static void refused_why(struct probe_result *r, const char *why)
{
    r->state = PROBE_REFUSED;
    snprintf(r->why, sizeof r->why, "%s", why);
}

static void not_tried(struct probe_result *r, const char *what, int err)
{
    char name[24];
    r->state = PROBE_NOT_TRIED;
    if (err)
        snprintf(r->why, sizeof r->why, "%s: %s", what, probe_errno_name(err, name, sizeof name));
    else
        snprintf(r->why, sizeof r->why, "%s", what);
}

/* ---- fixtures: loopback sockets made with the plain calls only */

typedef union { struct sockaddr sa; struct sockaddr_in in4; struct sockaddr_in6 in6; } lo_sockaddr;

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

static int wait_fd(int fd, short ev)
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
struct tcp_pair { int lfd, cli, srv; };

static int tcp_pair_open(int family, struct tcp_pair *t, int accept_it, const char **what)
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

static void tcp_pair_close(struct tcp_pair *t)
{
    close_fd(&t->lfd);
    close_fd(&t->cli);
    close_fd(&t->srv);
}

/* a UDP socket on loopback, connected to itself: what it sends it receives */
static int udp_self_open(int family, const char **what)
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

/* ---- syscall probes */

static void try_accept4(const struct probe *p, struct probe_result *r)
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

static void try_pipe2(const struct probe *p, struct probe_result *r)
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

static void try_dup3(const struct probe *p, struct probe_result *r)
{
    (void)p;
    int fd[2];
    if (pipe(fd) < 0)
        return not_tried(r, "no pipe to copy", errno);
    /* a free number above both ends: dup3 onto it, as dup2 does on aarch64 */
    int to = fd[1] + 1;
    while (fcntl(to, F_GETFD) >= 0)
        to++;
    if (syscall(SYS_dup3, fd[0], to, O_CLOEXEC) < 0)
        refused(r, errno);
    else {
        works(r);
        close(to);
    }
    close(fd[0]);
    close(fd[1]);
}

static void try_openat(const struct probe *p, struct probe_result *r)
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
static void try_socket_flag(const struct probe *p, struct probe_result *r)
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

static void try_getrandom(const struct probe *p, struct probe_result *r)
{
    (void)p;
    unsigned char buf[16];
    /* nonblocking: a pool not ready yet (EAGAIN) still shows the call exists */
    if (syscall(SYS_getrandom, buf, sizeof buf, GRND_NONBLOCK_FLAG) < 0 && errno != EAGAIN)
        return refused(r, errno);
    works(r);
}

#define MMSG_N 2
static void try_mmsg(const struct probe *p, struct probe_result *r)
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

static void try_pthread(const struct probe *p, struct probe_result *r)
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

static void try_clock(const struct probe *p, struct probe_result *r)
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
static void try_affinity(const struct probe *p, struct probe_result *r)
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

static void try_prlimit(const struct probe *p, struct probe_result *r)
{
    (void)p;
    struct rlimit rl;
    if (syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, NULL, &rl) < 0)
        return refused(r, errno);
    works(r);
}

static void try_membarrier(const struct probe *p, struct probe_result *r)
{
    (void)p;
    /* MEMBARRIER_CMD_QUERY (0): asks what is supported, changes nothing */
    if (syscall(SYS_membarrier, 0, 0) < 0)
        return refused(r, errno);
    works(r);
}

static void try_statx(const struct probe *p, struct probe_result *r)
{
    (void)p;
    uint64_t buf[32];    /* struct statx is 256 bytes */
    if (syscall(SYS_statx, AT_FDCWD, "/", 0, 0x7ffu, buf) < 0)
        return refused(r, errno);
    works(r);
}

/* fork as the kernel call (musl's fork() would be the same call; on aarch64 there is
 * none, fork is clone there); the child ends at once */
static void try_fork(const struct probe *p, struct probe_result *r)
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

/* sendfile() from an unlinked temporary file into a loopback TCP connection, as -Z */
static void try_sendfile(const struct probe *p, struct probe_result *r)
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
static void try_socket(const struct probe *p, struct probe_result *r)
{
    int fd = socket(p->family, p->type, p->proto);
    if (fd < 0)
        return refused(r, errno);
    close(fd);
    works(r);
}

/* ---- socket option probes */

/* the socket an option is set on: that family and type on loopback, unconnected */
static int opt_socket(const struct probe *p, struct probe_result *r)
{
    int fd = socket(p->family, p->type, p->proto);
    if (fd < 0)
        not_tried(r, p->family == AF_INET6 ? "no IPv6 socket" : "no socket", errno);
    return fd;
}

static void set_result(struct probe_result *r, int rc)
{
    if (rc < 0)
        refused(r, errno);
    else
        works(r);
}

/* setsockopt(level, opt, int val): most rows */
static void try_setopt(const struct probe *p, struct probe_result *r)
{
    int fd = opt_socket(p, r);
    if (fd < 0)
        return;
    int v = p->val;
    set_result(r, setsockopt(fd, p->level, p->opt, &v, sizeof v));
    close(fd);
}

/* SO_RCVTIMEO / SO_SNDTIMEO take a struct timeval */
static void try_timeo(const struct probe *p, struct probe_result *r)
{
    int fd = opt_socket(p, r);
    if (fd < 0)
        return;
    struct timeval tv = { 2, 0 };
    set_result(r, setsockopt(fd, p->level, p->opt, &tv, sizeof tv));
    close(fd);
}

/* 64 bits as esxperf sets it first, then 32 as a kernel before 4.20 takes it */
static void try_pacing(const struct probe *p, struct probe_result *r)
{
    int fd = opt_socket(p, r);
    if (fd < 0)
        return;
    uint64_t v = 125000000;
    unsigned int v32 = 125000000;
    int rc = setsockopt(fd, SOL_SOCKET, SO_MAX_PACING_RATE, &v, sizeof v);
    if (rc < 0)
        rc = setsockopt(fd, SOL_SOCKET, SO_MAX_PACING_RATE, &v32, sizeof v32);
    set_result(r, rc);
    close(fd);
}

static void try_bindtodevice(const struct probe *p, struct probe_result *r)
{
    int fd = opt_socket(p, r);
    if (fd < 0)
        return;
    static const char lo[] = "lo";
    set_result(r, setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, lo, sizeof lo));
    close(fd);
}

/* the current algorithm read back and set again, as -C NAME does */
static void try_congestion(const struct probe *p, struct probe_result *r)
{
    int fd = opt_socket(p, r);
    if (fd < 0)
        return;
    char name[32] = "";
    socklen_t n = sizeof name - 1;
    if (getsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, name, &n) < 0) {
        refused(r, errno);
    } else {
        name[n < sizeof name ? n : sizeof name - 1] = '\0';
        set_result(r, setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, name, (socklen_t)strlen(name)));
    }
    close(fd);
}

/* TCP_INFO on a connected loopback socket: refused when it is shorter than the
 * retransmit count esxperf reads */
static void try_tcp_info(const struct probe *p, struct probe_result *r)
{
    struct tcp_pair t;
    const char *what;
    if (tcp_pair_open(p->family, &t, 1, &what) < 0) {
        not_tried(r, what, errno);
    } else {
        unsigned char buf[256];
        socklen_t len = sizeof buf;
        if (getsockopt(t.cli, IPPROTO_TCP, TCP_INFO, buf, &len) < 0) {
            refused(r, errno);
        } else if (len < TCP_INFO_NEED) {
            char why[64];
            snprintf(why, sizeof why, "%u of %d bytes: no retransmit count", (unsigned)len, TCP_INFO_NEED);
            refused_why(r, why);
        } else {
            works(r);
        }
    }
    tcp_pair_close(&t);
}

/* SO_ZEROCOPY, then one send(MSG_ZEROCOPY) over a loopback connection */
static void try_msg_zerocopy(const struct probe *p, struct probe_result *r)
{
    struct tcp_pair t;
    const char *what;
    int one = 1;
    if (tcp_pair_open(p->family, &t, 1, &what) < 0) {
        not_tried(r, what, errno);
    } else if (setsockopt(t.cli, SOL_SOCKET, SO_ZEROCOPY, &one, sizeof one) < 0) {
        not_tried(r, "SO_ZEROCOPY refused", errno);
    } else {
        static char block[4096];
        ssize_t n = send(t.cli, block, sizeof block, MSG_ZEROCOPY | MSG_DONTWAIT | MSG_NOSIGNAL);
        if (n < 0)
            refused(r, errno);
        else
            works(r);
    }
    tcp_pair_close(&t);
}

/* the flow-label lease -L takes (IPv6 loopback as the destination) */
struct flowlabel_req {
    struct in6_addr dst;
    uint32_t label;
    uint8_t action, share;
    uint16_t flags, expires, linger;
    uint32_t pad;
};

static void try_flowlabel(const struct probe *p, struct probe_result *r)
{
    int fd = opt_socket(p, r);
    if (fd < 0)
        return;
    struct flowlabel_req fr;
    memset(&fr, 0, sizeof fr);
    fr.dst = in6addr_loopback;
    fr.label = htonl(0x5e1f7);
    fr.action = 0;      /* IPV6_FL_A_GET */
    fr.flags = 1;       /* IPV6_FL_F_CREATE */
    fr.share = 255;     /* IPV6_FL_S_ANY */
    set_result(r, setsockopt(fd, IPPROTO_IPV6, IPV6_FLOWLABEL_MGR, &fr, sizeof fr));
    close(fd);
}

/* ---- the table: one row per call or option, what the tools do without it */

#define SYSCALL(name, fn, v, fb) { { name, "syscall", fb }, fn, 0, 0, 0, 0, 0, v, 0 }
/* SOCKET and OPT take a socket as TCP4, UDP6, ...: expanded into three arguments first */
#define SOCKET(...) SOCKET_(__VA_ARGS__)
#define OPT(...) OPT_(__VA_ARGS__)
#define SOCKET_(name, fam, type, proto, root, fb) \
    { { name, "syscall", fb }, try_socket, fam, type, proto, 0, 0, 0, root }
#define OPT_(name, fn, fam, type, proto, lvl, opt, v, root, fb) \
    { { name, "sockopt", fb }, fn, fam, type, proto, lvl, opt, v, root }
#define TCP4 AF_INET, SOCK_STREAM, 0
#define TCP6 AF_INET6, SOCK_STREAM, 0
#define UDP4 AF_INET, SOCK_DGRAM, 0
#define UDP6 AF_INET6, SOCK_DGRAM, 0
#define RAW4 AF_INET, SOCK_RAW, IPPROTO_ICMP

static const struct probe probes[] = {
    SYSCALL("fork", try_fork, 0,
            "esxperf -D: starts the same command again (posix_spawn) to detach"),
    SYSCALL("accept4", try_accept4, 0,
            "esxperf -s: musl's accept4 accepts with accept, then fcntl FD_CLOEXEC"),
    SYSCALL("pipe2", try_pipe2, 0,
            "esxperf -D: musl's pipe2 makes a pipe, then fcntl FD_CLOEXEC"),
    SYSCALL("dup3", try_dup3, 0,
            "esxperf --logfile, -D: x86_64 uses dup2; aarch64 has only dup3: no redirect"),
    SYSCALL("openat", try_openat, 0,
            "x86_64: musl opens with open; aarch64 has no other call: no file can be opened"),
    SYSCALL("socket SOCK_CLOEXEC", try_socket_flag, SOCK_CLOEXEC,
            "all tools: musl's socket retries without the flag, then fcntl FD_CLOEXEC"),
    SYSCALL("socket SOCK_NONBLOCK", try_socket_flag, SOCK_NONBLOCK,
            "all tools: musl's socket retries without the flag, then fcntl O_NONBLOCK"),
    SYSCALL("getrandom", try_getrandom, 0,
            "esxperf: reads /dev/urandom (test cookie, authentication)"),
    SYSCALL("sendmmsg", try_mmsg, 1,
            "esxperf -u: one datagram per sendmsg call (more CPU per datagram)"),
    SYSCALL("recvmmsg", try_mmsg, 0,
            "esxperf -u: one datagram per recvmsg call (more CPU per datagram)"),
    SYSCALL("pthread_create", try_pthread, 0,
            "esxperf: no stream thread: the test cannot run (-P streams need threads)"),
    SYSCALL("clock_gettime", try_clock, 0,
            "none: every tool times with CLOCK_MONOTONIC"),
    SYSCALL("sched_setaffinity", try_affinity, 0,
            "esxperf -A: warns and runs unpinned"),
    SYSCALL("prlimit64", try_prlimit, 0,
            "esxperf (open-file limit after EMFILE): musl's getrlimit asks getrlimit"),
    SYSCALL("membarrier", try_membarrier, 0,
            "none needed: the static tools never ask for it (musl signals each thread)"),
    SYSCALL("statx", try_statx, 0,
            "none needed: musl stats with fstat/newfstatat on x86_64 and aarch64"),
    SYSCALL("sendfile", try_sendfile, 0,
            "esxperf -Z: send() copies from user memory"),
    SOCKET("socket IPPROTO_MPTCP", AF_INET, SOCK_STREAM, IPPROTO_MPTCP, 0,
           "esxperf -m: refused with a message (plain TCP without -m)"),
    SOCKET("socket SOCK_RAW ICMP", RAW4, 1,
           "esxmtu: unprivileged ping sockets (--method dgram)"),
    SOCKET("socket SOCK_RAW ICMPv6", AF_INET6, SOCK_RAW, IPPROTO_ICMPV6, 1,
           "esxmtu -6: unprivileged ping sockets (--method dgram)"),
    SOCKET("socket ICMP ping (dgram)", AF_INET, SOCK_DGRAM, IPPROTO_ICMP, 0,
           "esxmtu: raw sockets (needs root); without root no IPv4 probing"),
    SOCKET("socket ICMPv6 ping (dgram)", AF_INET6, SOCK_DGRAM, IPPROTO_ICMPV6, 0,
           "esxmtu -6: raw sockets (needs root); without root no IPv6 probing"),
    OPT("IP_HDRINCL", try_setopt, RAW4, IPPROTO_IP, IP_HDRINCL, 1, 1,
        "esxmtu: an IPPROTO_RAW socket sends its own header (DF set); else --method errqueue"),
    OPT("IP_MTU_DISCOVER PMTUDISC_DO", try_setopt, UDP4, IPPROTO_IP, IP_MTU_DISCOVER, IP_PMTUDISC_DO, 0,
        "esxperf --dont-fragment: refused with a message"),
    OPT("IP_MTU_DISCOVER PMTUDISC_PROBE", try_setopt, UDP4, IPPROTO_IP, IP_MTU_DISCOVER, IP_PMTUDISC_PROBE, 0,
        "esxmtu: raw method only (own header with DF); the path-MTU cache applies, named in its output"),
    OPT("IP_RECVERR", try_setopt, UDP4, IPPROTO_IP, IP_RECVERR, 1, 0,
        "esxmtu: raw method reads ICMP itself; errqueue and dgram methods unusable"),
    OPT("IPV6_MTU_DISCOVER PMTUDISC_PROBE", try_setopt, UDP6, IPPROTO_IPV6, IPV6_MTU_DISCOVER, IPV6_PMTUDISC_PROBE, 0,
        "esxmtu -6: IPV6_DONTFRAG alone"),
    OPT("IPV6_DONTFRAG", try_setopt, UDP6, IPPROTO_IPV6, IPV6_DONTFRAG, 1, 0,
        "esxmtu -6: PMTUDISC_PROBE alone"),
    OPT("IPV6_RECVERR", try_setopt, UDP6, IPPROTO_IPV6, IPV6_RECVERR, 1, 0,
        "esxmtu -6: raw method only (it reads ICMPv6 itself)"),
    OPT("IP_TTL", try_setopt, UDP4, IPPROTO_IP, IP_TTL, 64, 0,
        "esxmtu --trace, -t: probes with a TTL are not sent (SEND FAILED); IPv4 raw sets it in its header"),
    OPT("IPV6_UNICAST_HOPS", try_setopt, UDP6, IPPROTO_IPV6, IPV6_UNICAST_HOPS, 64, 0,
        "esxmtu --trace -6, -t: probes with a hop limit are not sent (SEND FAILED)"),
    OPT("IP_PKTINFO", try_setopt, UDP4, IPPROTO_IP, IP_PKTINFO, 1, 0,
        "esxperf -s -u (wildcard): answers as iperf3 does, from the address the kernel picks"),
    OPT("IPV6_RECVPKTINFO", try_setopt, UDP6, IPPROTO_IPV6, IPV6_RECVPKTINFO, 1, 0,
        "esxperf -s -u -6 (wildcard): answers as iperf3 does, from the address the kernel picks"),
    OPT("UDP_SEGMENT", try_setopt, UDP4, SOL_UDP, UDP_SEGMENT, 1400, 0,
        "esxperf -u: one datagram per message (no GSO)"),
    OPT("UDP_GRO", try_setopt, UDP4, SOL_UDP, UDP_GRO, 1, 0,
        "esxperf -u receiver: one datagram per message (no GRO)"),
    OPT("SO_REUSEADDR", try_setopt, TCP4, SOL_SOCKET, SO_REUSEADDR, 1, 0,
        "esxperf -s: listens without; a port just used may be refused for a minute, UDP -P 2 ends"),
    OPT("IPV6_V6ONLY", try_setopt, TCP6, IPPROTO_IPV6, IPV6_V6ONLY, 1, 0,
        "esxperf -s -6: warns; the listener takes IPv4 too"),
    OPT("SO_SNDBUF", try_setopt, TCP4, SOL_SOCKET, SO_SNDBUF, 1 << 20, 0,
        "esxperf -w: refused with a message; otherwise the kernel's default size"),
    OPT("SO_RCVBUF", try_setopt, TCP4, SOL_SOCKET, SO_RCVBUF, 1 << 20, 0,
        "esxperf -w: refused with a message; esxmtu: the kernel's default size"),
    OPT("SO_SNDBUFFORCE", try_setopt, UDP4, SOL_SOCKET, SO_SNDBUFFORCE, 1 << 20, 1,
        "esxmtu: SO_SNDBUF (capped by the kernel's wmem_max)"),
    OPT("SO_RCVBUFFORCE", try_setopt, UDP4, SOL_SOCKET, SO_RCVBUFFORCE, 1 << 20, 1,
        "esxmtu: SO_RCVBUF (capped by the kernel's rmem_max)"),
    OPT("SO_RCVLOWAT", try_setopt, TCP4, SOL_SOCKET, SO_RCVLOWAT, 65536, 0,
        "esxperf TCP receiver: wakes for every segment (more CPU)"),
    OPT("SO_RCVTIMEO", try_timeo, TCP4, SOL_SOCKET, SO_RCVTIMEO, 0, 0,
        "esxperf: non-blocking data sockets, poll() for the timeout"),
    OPT("SO_SNDTIMEO", try_timeo, TCP4, SOL_SOCKET, SO_SNDTIMEO, 0, 0,
        "esxperf: non-blocking data sockets, poll() for the timeout"),
    OPT("SO_KEEPALIVE", try_setopt, TCP4, SOL_SOCKET, SO_KEEPALIVE, 1, 0,
        "esxperf --cntl-ka: refused with a message"),
    OPT("TCP_KEEPIDLE", try_setopt, TCP4, IPPROTO_TCP, TCP_KEEPIDLE, 30, 0,
        "esxperf --cntl-ka: refused with a message"),
    OPT("TCP_KEEPINTVL", try_setopt, TCP4, IPPROTO_TCP, TCP_KEEPINTVL, 10, 0,
        "esxperf --cntl-ka: refused with a message"),
    OPT("TCP_KEEPCNT", try_setopt, TCP4, IPPROTO_TCP, TCP_KEEPCNT, 3, 0,
        "esxperf --cntl-ka: refused with a message"),
    OPT("TCP_NODELAY", try_setopt, TCP4, IPPROTO_TCP, TCP_NODELAY, 1, 0,
        "esxperf -N: refused with a message; control messages may wait for Nagle"),
    OPT("TCP_MAXSEG", try_setopt, TCP4, IPPROTO_TCP, TCP_MAXSEG, 1400, 0,
        "esxperf -M: refused with a message"),
    OPT("TCP_CONGESTION", try_congestion, TCP4, 0, 0, 0, 0,
        "esxperf -C: refused with a message"),
    OPT("TCP_USER_TIMEOUT", try_setopt, TCP4, IPPROTO_TCP, TCP_USER_TIMEOUT, 10000, 0,
        "esxperf --snd-timeout: refused with a message"),
    OPT("TCP_INFO", try_tcp_info, TCP4, 0, 0, 0, 0,
        "esxperf: retransmits reported as n/a"),
    OPT("SO_MAX_PACING_RATE", try_pacing, TCP4, 0, 0, 0, 0,
        "esxperf --fq-rate: refused with a message"),
    OPT("SO_ZEROCOPY", try_setopt, TCP4, SOL_SOCKET, SO_ZEROCOPY, 1, 0,
        "esxperf -Z (ESXPERF_ZEROCOPY=msg): sendfile"),
    OPT("MSG_ZEROCOPY", try_msg_zerocopy, TCP4, 0, 0, 0, 0,
        "esxperf -Z (ESXPERF_ZEROCOPY=msg) after SO_ZEROCOPY worked: the stream fails"),
    OPT("IP_TOS", try_setopt, TCP4, IPPROTO_IP, IP_TOS, 0x10, 0,
        "esxperf -S: refused with a message"),
    OPT("IPV6_TCLASS", try_setopt, TCP6, IPPROTO_IPV6, IPV6_TCLASS, 0x10, 0,
        "esxperf -S -6: refused with a message"),
    OPT("IPV6_FLOWLABEL_MGR", try_flowlabel, TCP6, 0, 0, 0, 0,
        "esxperf -L: refused with a message"),
    OPT("IPV6_FLOWINFO_SEND", try_setopt, TCP6, IPPROTO_IPV6, IPV6_FLOWINFO_SEND, 1, 0,
        "esxperf -L: refused with a message"),
    OPT("SO_BINDTODEVICE", try_bindtodevice, UDP4, 0, 0, 0, 1,
        "esxmtu -I, esxperf --bind-dev: refused with a message (give the address with -B)"),
};

size_t probe_count(void)
{
    return ARRAY_SIZE(probes);
}

const struct probe_row *probe_row(size_t i)
{
    return i < ARRAY_SIZE(probes) ? &probes[i].row : NULL;
}

void probe_run(size_t i, int root, struct probe_result *r)
{
    memset(r, 0, sizeof *r);
    if (i >= ARRAY_SIZE(probes)) {
        not_tried(r, "no such probe", 0);
        return;
    }
    const struct probe *p = &probes[i];
    if (p->root && !root) {
        not_tried(r, "needs root", 0);
        return;
    }
    int saved = errno;
    p->run(p, r);
    errno = saved;
}

const char *probe_state_name(enum probe_state s)
{
    return s == PROBE_WORKS ? "works" : s == PROBE_REFUSED ? "refused" : "not-tried";
}

#define E(x) { x, #x }
static const struct { int err; const char *name; } errno_names[] = {
    E(EPERM), E(ENOENT), E(EINTR), E(EIO), E(EBADF), E(EAGAIN), E(ENOMEM), E(EACCES),
    E(EFAULT), E(EBUSY), E(EEXIST), E(ENODEV), E(EINVAL), E(ENFILE), E(EMFILE),
    E(ENOTTY), E(ENOSPC), E(EROFS), E(EPIPE), E(ERANGE), E(ENOSYS), E(ENOTSOCK),
    E(EDESTADDRREQ), E(EMSGSIZE), E(EPROTOTYPE), E(ENOPROTOOPT), E(EPROTONOSUPPORT),
    E(ESOCKTNOSUPPORT), E(EOPNOTSUPP), E(EPFNOSUPPORT), E(EAFNOSUPPORT), E(EADDRINUSE),
    E(EADDRNOTAVAIL), E(ENETDOWN), E(ENETUNREACH), E(ECONNABORTED), E(ECONNRESET),
    E(ENOBUFS), E(EISCONN), E(ENOTCONN), E(ETIMEDOUT), E(ECONNREFUSED), E(EHOSTUNREACH),
    E(EINPROGRESS), E(ENXIO), E(E2BIG), E(ENOEXEC), E(ECHILD), E(ESRCH),
};
#undef E

const char *probe_errno_name(int err, char *buf, size_t len)
{
    for (size_t i = 0; i < ARRAY_SIZE(errno_names); i++)
        if (errno_names[i].err == err)
            return errno_names[i].name;
    snprintf(buf, len, "errno %d", err);
    return buf;
}
