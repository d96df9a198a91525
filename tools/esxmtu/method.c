/* Opening the sockets of a probing method (see probe.h): raw IPv4 with our own
 * header, raw ICMPv6, raw with the error queue, or unprivileged ping sockets, and the
 * order --method auto tries them in. Every socket sets DF without the path-MTU cache
 * (PMTUDISC_PROBE), never blocks, and has room for a round's answers. Where the raw
 * socket refuses the options for DF, probes leave by an IPPROTO_RAW socket that
 * carries the header we write, which needs no option (the refusals are fallback
 * notes; without PMTUDISC_PROBE there the path-MTU cache applies, as they say). */
#include "probe.h"
#include "linux_opts.h"
#include "bytes.h"
#include "clock.h"
#include "fail.h"
#include "fallback.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

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
    if (m == METHOD_RAW && family == AF_INET && p->sfd[0] >= 0)
        return "raw socket, own IPv4 header with DF sent by an IPPROTO_RAW socket (IP_HDRINCL refused)";
    if (m == METHOD_RAW && family == AF_INET6 && p->sfd[1] >= 0)
        return "raw socket, own IPv6 header sent by an IPPROTO_RAW socket (IPV6_DONTFRAG and "
               "IPV6_MTU_DISCOVER refused)";
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
/* -B and -I on a probing socket; 0, or -1 with errno and *why */
static int bind_src(int fd, int family, const struct prober_opts *o, const char **why)
{
    if (o->iface && net_bind_device(fd, o->iface) != 0) {
        *why = errno == ENODEV ? "no such interface (-I)"
                             : "cannot bind to the interface (-I: SO_BINDTODEVICE; give its address with -B instead)";
        return -1;
    }
    const union sockaddr_any *src = family == AF_INET6 ? &o->src6 : &o->src4;
    if (src->sa.sa_family == family && bind(fd, &src->sa, net_len(src)) != 0) {
        *why = "cannot use the source address (-B)";
        return -1;
    }
    return 0;
}

/* room for a round's probes and answers (see below); refusals only shrink it */
static void set_buffers(int fd)
{
    /* 9000-byte replies of a whole round must fit while we are still sending */
    if (prober_setopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, 4 << 20) != 0 &&
        prober_setopt(fd, SOL_SOCKET, SO_RCVBUF, 4 << 20) != 0)
        fallback_note("SO_RCVBUF", errno, "the system's receive buffer: a big round may lose answers");
    /* A probe to a silent on-link peer waits in the kernel's ARP/ND queue for seconds,
     * charged to this socket: room for a round to hundreds of such peers, so that the
     * others' probes still leave (sends never block; see probe.c for what is retried) */
    if (prober_setopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, PROBE_SNDBUF) != 0 &&
        prober_setopt(fd, SOL_SOCKET, SO_SNDBUF, PROBE_SNDBUF) != 0)
        fallback_note("SO_SNDBUF", errno, "the system's send buffer: probes wait and are retried");
}

/* Raw without the options for DF: an IPPROTO_RAW socket sends the IP header we
 * write with no option at all (Linux gives both families' IPPROTO_RAW sockets the
 * header-included mode). IPv4's header carries DF; an IPv6 packet is never
 * fragmented on its way (routers do not, and the kernel refuses a header-included
 * one bigger than the interface or a cached path MTU: EMSGSIZE). Answers still come
 * on the ICMP socket. -1 if there is no such socket; -2 when -B or -I cannot be
 * applied to it (errno, *why) */
static int open_hdr_sender(int family, const struct prober_opts *o, const char **why)
{
    int fd = socket(family, SOCK_RAW, IPPROTO_RAW);
    if (fd < 0)
        return -1;
    set_buffers(fd);
    (void)net_set_nonblock(fd, 1);
    if (bind_src(fd, family, o, why) != 0) {
        net_close_fail(fd);
        return -2;
    }
    return fd;
}

/* IPv6 raw whose ICMPv6 socket refused IPV6_MTU_DISCOVER and IPV6_DONTFRAG (errno
 * de): the IPPROTO_RAW sender and its notes in *sfd; 0, or open_hdr_sender's -1/-2 */
static int open_v6_hdr_sender(const struct prober_opts *o, const char **why, int de, int *sfd)
{
    int fd = open_hdr_sender(AF_INET6, o, why);
    if (fd < 0)
        return fd;
    *sfd = fd;
    fallback_note("IPV6_DONTFRAG", de, "probes leave by an IPPROTO_RAW socket with our own IPv6 header, "
                  "which nothing fragments");
    /* what matters is the socket the probes leave by: there PMTUDISC_PROBE keeps the
     * path-MTU cache out (a refusal on the ICMPv6 socket alone changes nothing) */
    if (prober_setopt(*sfd, IPPROTO_IPV6, IPV6_MTU_DISCOVER, IPV6_PMTUDISC_PROBE) != 0)
        fallback_note("IPV6_MTU_DISCOVER", errno, "our own IPv6 header by an IPPROTO_RAW socket; after a "
                      "Packet Too Big this host may refuse the size itself (LOCAL-MTU) until its path-MTU "
                      "cache expires");
    if (prober_setopt(*sfd, IPPROTO_IPV6, IPV6_RECVERR, 1) != 0)   /* local MTU value */
        fallback_note("IPV6_RECVERR", errno, "a size this host refuses is reported without its MTU");
    return 0;
}

static int open_one(int family, enum probe_method method, const struct prober_opts *o, const char **why,
                    int *sfd)
{
    *sfd = -1;
    int v6 = family == AF_INET6;
    int type = method == METHOD_DGRAM ? SOCK_DGRAM : SOCK_RAW;
    int fd = socket(family, type, v6 ? IPPROTO_ICMPV6 : IPPROTO_ICMP);
    if (fd < 0) {
        *why = method == METHOD_DGRAM ? "cannot open an ICMP ping socket" : "cannot open a raw ICMP socket";
        return -1;
    }
    /* what must work: something that sets DF, and for the error-queue methods the
     * error queue itself; the rest only sharpens the evidence */
    int ok, sender = 0;          /* sender: open_hdr_sender's -1/-2 when it was tried and failed */
    if (!v6 && method == METHOD_RAW) {
        ok = prober_setopt(fd, IPPROTO_IP, IP_HDRINCL, 1) == 0;      /* DF is in our header */
        if (!ok) {
            int e = errno;
            *sfd = open_hdr_sender(AF_INET, o, why);
            ok = *sfd >= 0;
            if (ok)
                fallback_note("IP_HDRINCL", e, "probes leave by an IPPROTO_RAW socket, which carries our own header");
            else
                sender = *sfd;
        }
        /* even with our own header, Linux's output path applies the cached path
         * MTU (EMSGSIZE after one frag-needed) unless the socket says PROBE */
        if (ok && prober_setopt(*sfd >= 0 ? *sfd : fd, IPPROTO_IP, IP_MTU_DISCOVER, IP_PMTUDISC_PROBE) != 0)
            fallback_note("IP_MTU_DISCOVER", errno, "DF from our own header; after a frag-needed this "
                          "host may refuse the size itself (LOCAL-MTU) until its path-MTU cache expires");
        if (ok && prober_setopt(*sfd >= 0 ? *sfd : fd, IPPROTO_IP, IP_RECVERR, 1) != 0)  /* local MTU value */
            fallback_note("IP_RECVERR", errno, "a size this host refuses is reported without its MTU");
    } else if (!v6) {
        ok = prober_setopt(fd, IPPROTO_IP, IP_MTU_DISCOVER, IP_PMTUDISC_PROBE) == 0 &&
             prober_setopt(fd, IPPROTO_IP, IP_RECVERR, 1) == 0;
    } else {
        int probe = prober_setopt(fd, IPPROTO_IPV6, IPV6_MTU_DISCOVER, IPV6_PMTUDISC_PROBE) == 0;
        int pe = errno;
        int dontfrag = prober_setopt(fd, IPPROTO_IPV6, IPV6_DONTFRAG, 1) == 0;
        int de = errno;
        if (!probe && !dontfrag && method == METHOD_RAW) {
            /* the ICMPv6 socket only reads: its errors come as packets, its error
             * queue is not needed; the sender holds the local ones */
            sender = open_v6_hdr_sender(o, why, de, sfd);
            ok = sender == 0;
        } else {
            int recverr = prober_setopt(fd, IPPROTO_IPV6, IPV6_RECVERR, 1) == 0;
            int re = errno;
            ok = (probe || dontfrag) && (recverr || method == METHOD_RAW);
            if (ok && !probe)
                fallback_note("IPV6_MTU_DISCOVER", pe, "DF from IPV6_DONTFRAG; after a Packet Too Big this "
                              "host may refuse the size itself (LOCAL-MTU) until its path-MTU cache expires");
            if (ok && !dontfrag)
                fallback_note("IPV6_DONTFRAG", de, "PMTUDISC_PROBE alone: a size above this host's interface MTU may be fragmented here, not refused");
            if (ok && !recverr)
                fallback_note("IPV6_RECVERR", re, "a size this host refuses is reported without its MTU");
        }
    }
    if (sender == -2) {          /* -B or -I cannot be used: *why says which, no method can */
        *sfd = -1;
        return net_close_fail(fd);
    }
    if (!ok) {
        *why = !v6 ? "cannot set Don't-Fragment / error reporting on the socket (IP_MTU_DISCOVER, IP_RECVERR)"
             : method == METHOD_RAW ? "cannot set Don't-Fragment on the socket (IPV6_DONTFRAG and IPV6_MTU_DISCOVER "
                                      "refused, and no IPPROTO_RAW socket)"
                                    : "cannot set Don't-Fragment / error reporting on the socket (IPV6_DONTFRAG, IPV6_MTU_DISCOVER, IPV6_RECVERR)";
        net_close_fail(fd);
        return -2;
    }
    set_buffers(fd);
    (void)net_set_nonblock(fd, 1);
    if (bind_src(fd, family, o, why) != 0) {
        if (*sfd >= 0)
            close(*sfd);
        *sfd = -1;
        return net_close_fail(fd);
    }
    return fd;
}

int prober_open(struct prober *p, const struct prober_opts *o, int need4, int need6,
                const char **why)
{
    memset(p, 0, sizeof *p);
    p->o = o;
    p->fd[0] = p->fd[1] = p->sfd[0] = p->sfd[1] = -1;
    p->nonce = mono_ns() ^ (wall_us() << 17) ^ ((uint64_t)getpid() << 40);
    p->id = (uint16_t)(getpid() ^ (p->nonce >> 7));
    p->next_seq = (uint16_t)(p->nonce >> 29);
    for (int fi = 0; fi < 2; fi++) {
        if (!(fi ? need6 : need4))
            continue;
        int family = fi ? AF_INET6 : AF_INET;
        enum probe_method m = o->method == METHOD_AUTO ? METHOD_RAW : o->method;
        int sfd;
        int fd = open_one(family, m, o, why, &sfd);
        if (fd == -2 && o->method == METHOD_AUTO) {   /* options unsupported: next method */
            m = METHOD_ERRQUEUE;
            fd = open_one(family, m, o, why, &sfd);
        }
        if (fd == -2 && o->method == METHOD_AUTO) {
            int e = errno;
            m = METHOD_DGRAM;
            fd = open_one(family, m, o, why, &sfd);
            if (fd < 0) {     /* say the first reason: raw sockets refused DF */
                *why = fi ? "cannot set Don't-Fragment on raw sockets here (IPV6_DONTFRAG and "
                            "IPV6_MTU_DISCOVER refused, and no IPPROTO_RAW socket), and no ping socket either"
                          : "cannot set Don't-Fragment on raw sockets here (IP_HDRINCL with no "
                            "IPPROTO_RAW socket, IP_MTU_DISCOVER), and no ping socket either";
                errno = e;
            }
        }
        if (fd < 0 && m != METHOD_DGRAM && o->method == METHOD_AUTO &&
            (errno == EPERM || errno == EACCES)) {
            m = METHOD_DGRAM;
            fd = open_one(family, m, o, why, &sfd);
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
        p->sfd[fi] = sfd;
        p->method[fi] = m;
    }
    p->sbuf = xmalloc(PROBE_SBUF_LEN);
    p->rbuf = xmalloc(PROBE_RBUF_LEN);
    return 0;
}

void prober_close(struct prober *p)
{
    for (int fi = 0; fi < 2; fi++) {
        if (p->fd[fi] >= 0)
            close(p->fd[fi]);
        if (p->sfd[fi] >= 0)
            close(p->sfd[fi]);
        p->fd[fi] = p->sfd[fi] = -1;
    }
    free(p->sbuf);
    free(p->rbuf);
    p->sbuf = p->rbuf = NULL;
}

