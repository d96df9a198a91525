/* Opening the sockets of a probing method (see probe.h): raw IPv4 with our own
 * header, raw ICMPv6, raw with the error queue, or unprivileged ping sockets, and the
 * order --method auto tries them in. Every socket sets DF without the path-MTU cache
 * (PMTUDISC_PROBE), never blocks, and has room for a round's answers. */
#include "probe.h"
#include "bytes.h"
#include "clock.h"
#include "fail.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef IP_RECVERR
#define IP_RECVERR 11
#endif
#ifndef IP_MTU_DISCOVER
#define IP_MTU_DISCOVER 10
#endif
#ifndef IP_PMTUDISC_PROBE
#define IP_PMTUDISC_PROBE 3
#endif
#ifndef IPV6_RECVERR
#define IPV6_RECVERR 25
#endif
#ifndef IPV6_MTU_DISCOVER
#define IPV6_MTU_DISCOVER 23
#endif
#ifndef IPV6_PMTUDISC_PROBE
#define IPV6_PMTUDISC_PROBE 3
#endif
#ifndef IPV6_DONTFRAG
#define IPV6_DONTFRAG 62
#endif
#ifndef SO_RCVBUFFORCE
#define SO_RCVBUFFORCE 33
#endif
#ifndef SO_SNDBUFFORCE
#define SO_SNDBUFFORCE 32
#endif

static const char *const method_names[] = {
    [METHOD_AUTO] = "auto", [METHOD_RAW] = "raw", [METHOD_ERRQUEUE] = "errqueue", [METHOD_DGRAM] = "dgram",
};
_Static_assert(ARRAY_SIZE(method_names) == METHOD_LAST + 1, "a name for every enum probe_method");

const char *probe_method_name(enum probe_method m)
{
    return (unsigned)m < ARRAY_SIZE(method_names) ? method_names[m] : "?";
}

int probe_method_parse(const char *s)
{
    for (size_t m = 0; m < ARRAY_SIZE(method_names); m++)
        if (strcmp(s, method_names[m]) == 0)
            return (int)m;
    return -1;
}

const char *prober_method_desc(const struct prober *p, int family)
{
    enum probe_method m = p->method[family == AF_INET6];
    if (m == METHOD_RAW)
        return family == AF_INET6 ? "raw ICMPv6 socket, IPV6_DONTFRAG + PMTUDISC_PROBE"
                                  : "raw socket, own IPv4 header with DF (IP_HDRINCL) + PMTUDISC_PROBE";
    if (m == METHOD_ERRQUEUE)
        return "raw socket, PMTUDISC_PROBE, errors from the error queue";
    if (m == METHOD_DGRAM)
        return "unprivileged ping socket, PMTUDISC_PROBE, errors from the error queue";
    return "none";
}

int prober_setopt(int fd, int level, int name, int val)
{
    return setsockopt(fd, level, name, &val, sizeof val);
}

/* one socket for one family and method; -1 with errno and *why */
static int open_one(int family, enum probe_method method, const struct prober_opts *o, const char **why)
{
    int v6 = family == AF_INET6;
    int type = method == METHOD_DGRAM ? SOCK_DGRAM : SOCK_RAW;
    int fd = socket(family, type, v6 ? IPPROTO_ICMPV6 : IPPROTO_ICMP);
    if (fd < 0) {
        *why = method == METHOD_DGRAM ? "cannot open an ICMP ping socket" : "cannot open a raw ICMP socket";
        return -1;
    }
    /* what must work: something that sets DF, and for the error-queue methods the
     * error queue itself; the rest only sharpens the evidence */
    int ok;
    if (!v6 && method == METHOD_RAW) {
        ok = prober_setopt(fd, IPPROTO_IP, IP_HDRINCL, 1) == 0;      /* DF is in our header */
        /* even with our own header, Linux's output path applies the cached path
         * MTU (EMSGSIZE after one frag-needed) unless the socket says PROBE */
        (void)prober_setopt(fd, IPPROTO_IP, IP_MTU_DISCOVER, IP_PMTUDISC_PROBE);
        (void)prober_setopt(fd, IPPROTO_IP, IP_RECVERR, 1);          /* local MTU value */
    } else if (!v6) {
        ok = prober_setopt(fd, IPPROTO_IP, IP_MTU_DISCOVER, IP_PMTUDISC_PROBE) == 0 &&
             prober_setopt(fd, IPPROTO_IP, IP_RECVERR, 1) == 0;
    } else {
        int probe = prober_setopt(fd, IPPROTO_IPV6, IPV6_MTU_DISCOVER, IPV6_PMTUDISC_PROBE) == 0;
        int dontfrag = prober_setopt(fd, IPPROTO_IPV6, IPV6_DONTFRAG, 1) == 0;
        int recverr = prober_setopt(fd, IPPROTO_IPV6, IPV6_RECVERR, 1) == 0;
        ok = (probe || dontfrag) && (recverr || method == METHOD_RAW);
    }
    if (!ok) {
        *why = "cannot set Don't-Fragment / error reporting on the socket";
        net_close_fail(fd);
        return -2;
    }
    /* 9000-byte replies of a whole round must fit while we are still sending */
    if (prober_setopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, 4 << 20) != 0)
        (void)prober_setopt(fd, SOL_SOCKET, SO_RCVBUF, 4 << 20);
    /* A probe to a silent on-link peer waits in the kernel's ARP/ND queue for seconds,
     * charged to this socket: room for a round to hundreds of such peers, so that the
     * others' probes still leave (sends never block; see probe.c for what is retried) */
    if (prober_setopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, PROBE_SNDBUF) != 0)
        (void)prober_setopt(fd, SOL_SOCKET, SO_SNDBUF, PROBE_SNDBUF);
    (void)net_set_nonblock(fd, 1);
    if (o->iface && net_bind_device(fd, o->iface) != 0) {
        *why = errno == ENODEV ? "no such interface (-I)"
                             : "cannot bind to the interface (-I; or give its address with -B instead)";
        goto fail;
    }
    const union sockaddr_any *src = v6 ? &o->src6 : &o->src4;
    if (src->sa.sa_family == family && bind(fd, &src->sa, net_len(src)) != 0) {
        *why = "cannot use the source address (-B)";
        goto fail;
    }
    return fd;
fail:
    return net_close_fail(fd);
}

int prober_open(struct prober *p, const struct prober_opts *o, int need4, int need6,
                const char **why)
{
    memset(p, 0, sizeof *p);
    p->o = o;
    p->fd[0] = p->fd[1] = -1;
    p->nonce = mono_ns() ^ (wall_us() << 17) ^ ((uint64_t)getpid() << 40);
    p->id = (uint16_t)(getpid() ^ (p->nonce >> 7));
    p->next_seq = (uint16_t)(p->nonce >> 29);
    for (int fi = 0; fi < 2; fi++) {
        if (!(fi ? need6 : need4))
            continue;
        int family = fi ? AF_INET6 : AF_INET;
        enum probe_method m = o->method == METHOD_AUTO ? METHOD_RAW : o->method;
        int fd = open_one(family, m, o, why);
        if (fd == -2 && o->method == METHOD_AUTO) {   /* options unsupported: next method */
            m = METHOD_ERRQUEUE;
            fd = open_one(family, m, o, why);
        }
        if (fd == -2 && o->method == METHOD_AUTO) {
            int e = errno;
            m = METHOD_DGRAM;
            fd = open_one(family, m, o, why);
            if (fd < 0) {     /* say the first reason: raw sockets refused DF */
                *why = "cannot set Don't-Fragment on raw sockets here, and no ping socket either";
                errno = e;
            }
        }
        if (fd < 0 && m != METHOD_DGRAM && o->method == METHOD_AUTO &&
            (errno == EPERM || errno == EACCES)) {
            m = METHOD_DGRAM;
            fd = open_one(family, m, o, why);
            if (fd < 0 && (errno == EPERM || errno == EACCES))
                *why = "no permission for raw sockets, and ping sockets are not allowed for this group";
        }
        if (fd < 0) {
            int e = errno;
            prober_close(p);
            errno = e;
            return -1;
        }
        p->fd[fi] = fd;
        p->method[fi] = m;
    }
    p->sbuf = xmalloc(PROBE_SBUF_LEN);
    p->rbuf = xmalloc(PROBE_RBUF_LEN);
    return 0;
}

void prober_close(struct prober *p)
{
    for (int fi = 0; fi < 2; fi++)
        if (p->fd[fi] >= 0) {
            close(p->fd[fi]);
            p->fd[fi] = -1;
        }
    free(p->sbuf);
    free(p->rbuf);
    p->sbuf = p->rbuf = NULL;
}

