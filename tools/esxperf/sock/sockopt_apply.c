/* The socket options esxperf sets (sockopt_apply.h): what iperf3 3.22 sets from
 * its command line on the control and data sockets, the same way (iperf_tcp.c,
 * net.c, iperf_api.c's iperf_set_control_keepalive), what the test parameters set
 * on a data socket, and its loop timeouts. musl has no linux/in6.h:
 * the flow label lease request is declared here in the kernel's layout. */
#include "sockopt_apply.h"
#include "linux_opts.h"
#include "fail.h"
#include "fallback.h"
#include "fallback_texts.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#define FLOWLABEL_MASK 0x000fffffu
#define FL_A_GET 0          /* lease a label (with FL_F_CREATE: make it) */
#define FL_F_CREATE 1
#define FL_S_ANY 255        /* any socket may share it */

struct flowlabel_req {      /* the kernel's struct in6_flowlabel_req */
    struct in6_addr dst;
    uint32_t label;         /* network order */
    uint8_t action, share;
    uint16_t flags, expires, linger;
    uint32_t pad;
};

int sockopt_tcp_proto(const struct perf_opts *o)
{
    return o->mptcp ? IPPROTO_MPTCP : 0;
}

int sockopt_mptcp_check(char *why, size_t len)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, IPPROTO_MPTCP);
    if (fd < 0)
        fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, IPPROTO_MPTCP);
    if (fd >= 0) {
        close(fd);
        return 0;
    }
    int e = errno;
    return why_fmt(why, len, "--mptcp: this kernel makes no MPTCP sockets (%s%s): drop -m "
                   "(ESXi has no MPTCP)", errtext(e),
                   e == ENOPROTOOPT ? "; on Linux, sysctl net.mptcp.enabled=1" : "");
}

int sockopt_bind_dev(int fd, const struct perf_opts *o, const char **why)
{
    if (!o->bind_dev || net_bind_device(fd, o->bind_dev) == 0)
        return 0;
    *why = errno == ENODEV ? "no such interface (--bind-dev / %DEV)"
         : errno == EPERM ? "binding to an interface needs root (--bind-dev / %DEV)"
                          : "cannot bind to the interface (--bind-dev / %DEV: SO_BINDTODEVICE; give its address with -B instead)";
    return -1;
}

int sockopt_snd_timeout(int fd, const struct perf_opts *o, const char **why)
{
    unsigned int ms = (unsigned int)o->snd_timeout_ms;
    if (!ms || setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &ms, sizeof ms) == 0)
        return 0;
    *why = o->mptcp && errno == ENOPROTOOPT
               ? "this kernel's MPTCP sockets take no TCP_USER_TIMEOUT (drop --snd-timeout or -m)"
               : "cannot set TCP_USER_TIMEOUT (--snd-timeout)";
    return -1;
}

int sockopt_control(int fd, const struct perf_opts *o, const char **why)
{
    if (sockopt_snd_timeout(fd, o, why) < 0)
        return -1;
    if (!o->cntl_ka)
        return 0;
    int one = 1;
    const struct { int opt, v; } ka[] = {
        { TCP_KEEPIDLE, o->cntl_ka_idle }, { TCP_KEEPINTVL, o->cntl_ka_intv },
        { TCP_KEEPCNT, o->cntl_ka_cnt },
    };
    if (setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one) < 0) {
        *why = "cannot turn on TCP keepalive (--cntl-ka: SO_KEEPALIVE)";
        return -1;
    }
    for (size_t i = 0; i < sizeof ka / sizeof ka[0]; i++)
        if (ka[i].v && setsockopt(fd, IPPROTO_TCP, ka[i].opt, &ka[i].v, sizeof ka[i].v) < 0) {
            *why = "cannot set the keepalive idle/interval/count (--cntl-ka: TCP_KEEPIDLE, TCP_KEEPINTVL, TCP_KEEPCNT)";
            return -1;
        }
    return 0;
}

int sockopt_flowlabel(int fd, long long label, union sockaddr_any *dst, const char **why)
{
    if (!label)
        return 0;
    if (dst->sa.sa_family != AF_INET6 || net_wire_family(dst) != AF_INET6) {
        *why = "-L needs an IPv6 server address (this one is IPv4)";
        return -1;
    }
    struct flowlabel_req fr;
    memset(&fr, 0, sizeof fr);
    fr.dst = dst->in6.sin6_addr;
    fr.label = htonl((uint32_t)label & FLOWLABEL_MASK);
    fr.action = FL_A_GET;
    fr.flags = FL_F_CREATE;
    fr.share = FL_S_ANY;
    int one = 1;
    if (setsockopt(fd, IPPROTO_IPV6, IPV6_FLOWLABEL_MGR, &fr, sizeof fr) < 0 ||
        setsockopt(fd, IPPROTO_IPV6, IPV6_FLOWINFO_SEND, &one, sizeof one) < 0) {
        *why = "cannot set the IPv6 flow label (-L: IPV6_FLOWLABEL_MGR)";
        return -1;
    }
    dst->in6.sin6_flowinfo = fr.label;
    return 0;
}

int sockopt_zone_missing(const union sockaddr_any *a)
{
    return a->sa.sa_family == AF_INET6 && IN6_IS_ADDR_LINKLOCAL(&a->in6.sin6_addr) &&
           a->in6.sin6_scope_id == 0;
}

int sockopt_listen_proto(const struct perf_opts *o, int type, int proto,
                          const union sockaddr_any *addr, int backlog)
{
    if (o->family != AF_INET6 || addr->sa.sa_family != AF_INET6)
        return net_listen_dev(type, proto, o->bind_dev, addr, backlog);
    /* -6: IPv6 only, as iperf3 sets IPV6_V6ONLY (net_listen_dev's wildcard
     * listener takes IPv4 clients too); a host that refuses it is told, not held */
    int fd = socket(AF_INET6, type | SOCK_CLOEXEC, proto);
    if (fd < 0)
        return -1;
    int one = 1;
    if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0)
        fallback_refused("SO_REUSEADDR", errno);
    if (setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one) < 0)
        warnmsg("warning: -6: cannot make the listener IPv6-only (IPV6_V6ONLY: %s): it "
                "takes IPv4 clients too", errtext(errno));
    if ((o->bind_dev && net_bind_device(fd, o->bind_dev) < 0) ||
        bind(fd, &addr->sa, net_len(addr)) < 0 ||
        (type == SOCK_STREAM && listen(fd, backlog) < 0))
        return net_close_fail(fd);
    return fd;
}

int sockopt_listen(const struct perf_opts *o, int type, const union sockaddr_any *addr,
                    int backlog)
{
    return sockopt_listen_proto(o, type, type == SOCK_STREAM ? sockopt_tcp_proto(o) : 0,
                                 addr, backlog);
}

int sockopt_data(int fd, const struct test_params *p, int family, const char **why)
{
    int one = 1;
    if (p->window) {
        int w = (int)p->window;
        if (setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &w, sizeof w) < 0 ||
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &w, sizeof w) < 0) {
            *why = "cannot set the socket buffer size (-w: SO_SNDBUF/SO_RCVBUF refused; drop -w)";
            return -1;
        }
    }
    if (!p->udp) {
        if (p->mss) {
            int m = (int)p->mss;
            if (setsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, &m, sizeof m) < 0) {
                *why = "cannot set the TCP MSS (-M: TCP_MAXSEG)";
                return -1;
            }
        }
        if (p->nodelay && setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) < 0) {
            *why = "cannot set TCP_NODELAY (-N)";
            return -1;
        }
        if (p->congestion[0] &&
            setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, p->congestion,
                       (socklen_t)strlen(p->congestion)) < 0) {
            *why = "cannot set the congestion control (-C; is the module loaded?)";
            return -1;
        }
    }
    if (p->tos) {
        int t = (int)p->tos;
        int rc = family == AF_INET6
                     ? setsockopt(fd, IPPROTO_IPV6, IPV6_TCLASS, &t, sizeof t)
                     : setsockopt(fd, IPPROTO_IP, IP_TOS, &t, sizeof t);
        if (rc < 0) {
            *why = "cannot set the TOS (-S: IP_TOS / IPV6_TCLASS)";
            return -1;
        }
    }
    if (p->dont_fragment && p->udp && family == AF_INET) {
        int v = IP_PMTUDISC_DO;
        if (setsockopt(fd, IPPROTO_IP, IP_MTU_DISCOVER, &v, sizeof v) < 0) {
            *why = "cannot set the don't-fragment bit (--dont-fragment: IP_MTU_DISCOVER)";
            return -1;
        }
    }
    if (p->fqrate / 8) {
        /* bytes/s, 64 bits as iperf3 gives it; a kernel before 4.20 takes 32 (capped) */
        uint64_t r = (uint64_t)p->fqrate / 8;
        unsigned int r32 = r > 0xffffffffu ? 0xffffffffu : (unsigned int)r;
        if (setsockopt(fd, SOL_SOCKET, SO_MAX_PACING_RATE, &r, sizeof r) < 0 &&
            setsockopt(fd, SOL_SOCKET, SO_MAX_PACING_RATE, &r32, sizeof r32) < 0) {
            *why = "cannot set the pacing rate (--fq-rate, SO_MAX_PACING_RATE)";
            return -1;
        }
    }
    return 0;
}

int sockopt_loop_timeouts(int fd, int ms)
{
    struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };
    const char *opt = "SO_SNDTIMEO";
    if (setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv) == 0) {
        opt = "SO_RCVTIMEO";
        if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) == 0)
            return 0;
    }
    fallback_refused(opt, errno);
    return -1;
}
