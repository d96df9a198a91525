/* A UDP datagram's destination address (udp_dest.h): IP_PKTINFO and
 * IPV6_RECVPKTINFO on the receiving socket, the control messages they bring, and
 * the socket bound to that address that answers the sender. */
#include "udp_dest.h"
#include "fallback.h"
#include "fallback_texts.h"

#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <unistd.h>

int udp_dest_enable(int fd, int family)
{
    int one = 1;
    /* on an AF_INET6 socket IP_PKTINFO covers its IPv4-mapped peers; a kernel that
     * refuses it there still says their destination through IPV6_PKTINFO */
    int v4 = setsockopt(fd, IPPROTO_IP, IP_PKTINFO, &one, sizeof one);
    if (v4 < 0 && family != AF_INET6)
        fallback_refused("IP_PKTINFO", errno);
    if (family != AF_INET6)
        return v4;
    int v6 = setsockopt(fd, IPPROTO_IPV6, IPV6_RECVPKTINFO, &one, sizeof one);
    if (v6 < 0)
        fallback_refused("IPV6_RECVPKTINFO", errno);
    return v6;
}

/* an IPv4 destination as an address of family (IPv4-mapped for AF_INET6) */
static void dest_v4(struct in_addr a, int family, union sockaddr_any *to)
{
    memset(to, 0, sizeof *to);
    if (family == AF_INET) {
        to->in4.sin_family = AF_INET;
        to->in4.sin_addr = a;
        return;
    }
    to->in6.sin6_family = AF_INET6;
    to->in6.sin6_addr.s6_addr[10] = 0xff;
    to->in6.sin6_addr.s6_addr[11] = 0xff;
    memcpy(&to->in6.sin6_addr.s6_addr[12], &a, 4);
}

/* an IPv6 destination (IPv4-mapped when the datagram was IPv4); -1 for one an
 * AF_INET socket cannot have or no socket can send from */
static int dest_v6(const struct in6_pktinfo *pi, int family, union sockaddr_any *to)
{
    const struct in6_addr *a = &pi->ipi6_addr;
    if (IN6_IS_ADDR_V4MAPPED(a)) {
        struct in_addr v4;
        memcpy(&v4, &a->s6_addr[12], 4);
        if (v4.s_addr == INADDR_BROADCAST || IN_MULTICAST(ntohl(v4.s_addr)))
            return -1;
        dest_v4(v4, family, to);
        return 0;
    }
    if (family != AF_INET6 || IN6_IS_ADDR_MULTICAST(a) || IN6_IS_ADDR_UNSPECIFIED(a))
        return -1;
    memset(to, 0, sizeof *to);
    to->in6.sin6_family = AF_INET6;
    to->in6.sin6_addr = *a;
    if (IN6_IS_ADDR_LINKLOCAL(a))   /* a link-local address is one interface's */
        to->in6.sin6_scope_id = (uint32_t)pi->ipi6_ifindex;
    return 0;
}

int udp_dest_from_cmsg(const struct msghdr *m, int family, union sockaddr_any *to)
{
    int have = -1;
    for (struct cmsghdr *c = CMSG_FIRSTHDR((struct msghdr *)m); c;
         c = CMSG_NXTHDR((struct msghdr *)m, c)) {
        if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_PKTINFO &&
            c->cmsg_len >= CMSG_LEN(sizeof(struct in_pktinfo))) {
            struct in_pktinfo pi;
            memcpy(&pi, CMSG_DATA(c), sizeof pi);
            /* ipi_spec_dst: the destination of a unicast datagram, or for a
             * broadcast one the local address the kernel would answer from */
            if (pi.ipi_spec_dst.s_addr == INADDR_ANY)
                continue;
            dest_v4(pi.ipi_spec_dst, family, to);
            return 0;   /* the kernel's own choice: taken over IPV6_PKTINFO's */
        }
        if (c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_PKTINFO &&
            c->cmsg_len >= CMSG_LEN(sizeof(struct in6_pktinfo))) {
            struct in6_pktinfo pi;
            memcpy(&pi, CMSG_DATA(c), sizeof pi);
            if (dest_v6(&pi, family, to) == 0)
                have = 0;
        }
    }
    return have;
}

ssize_t udp_recv_dest(int fd, void *buf, size_t len, int flags, union sockaddr_any *from,
                      socklen_t *fromlen, union sockaddr_any *to)
{
    union {     /* room for both kinds, aligned as a cmsghdr */
        struct cmsghdr align;
        unsigned char b[CMSG_SPACE(sizeof(struct in_pktinfo)) +
                        CMSG_SPACE(sizeof(struct in6_pktinfo))];
    } ctl;
    struct iovec iov = { buf, len };
    struct msghdr m;
    memset(&m, 0, sizeof m);
    m.msg_name = &from->sa;
    m.msg_namelen = *fromlen;
    m.msg_iov = &iov;
    m.msg_iovlen = 1;
    m.msg_control = ctl.b;
    m.msg_controllen = sizeof ctl.b;
    ssize_t r = recvmsg(fd, &m, flags);
    if (r < 0)
        return r;
    *fromlen = m.msg_namelen;
    if ((m.msg_flags & MSG_CTRUNC) || udp_dest_from_cmsg(&m, from->sa.sa_family, to) < 0)
        to->sa.sa_family = AF_UNSPEC;
    return r;
}

int udp_dest_socket(const union sockaddr_any *to, unsigned short port, const char *dev,
                    const union sockaddr_any *peer, socklen_t peerlen)
{
    int fd = socket(to->sa.sa_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    union sockaddr_any at = *to;
    net_set_port(&at, port);
    int one = 1, zero = 0;
    if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0) {
        fallback_refused("SO_REUSEADDR", errno);
        return net_close_fail(fd);
    }
    /* an IPv4-mapped address is bound on a dual-stack socket only */
    if (at.sa.sa_family == AF_INET6 && IN6_IS_ADDR_V4MAPPED(&at.in6.sin6_addr) &&
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero) < 0)
        return net_close_fail(fd);
    if ((dev && net_bind_device(fd, dev) < 0) || bind(fd, &at.sa, net_len(&at)) < 0 ||
        connect(fd, &peer->sa, peerlen) < 0)
        return net_close_fail(fd);
    return fd;
}
