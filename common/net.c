/* Addresses and sockets, IPv4 and IPv6, with poll() (never epoll: ESXi lacks it). */
#include "net.h"
#include "fallback.h"
#include "fallback_texts.h"
#include "clock.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int net_resolve(const char *host, int family, uint16_t port, int passive,
                union sockaddr_any *out, socklen_t *outlen)
{
    struct addrinfo hints, *res = NULL;
    char portstr[8];
    memset(&hints, 0, sizeof hints);
    hints.ai_family = family;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICSERV | (passive ? AI_PASSIVE : 0);
    snprintf(portstr, sizeof portstr, "%u", port);
    int rc = getaddrinfo(host, portstr, &hints, &res);
    if (rc)
        return rc;
    memset(out, 0, sizeof *out);
    memcpy(out, res->ai_addr, res->ai_addrlen);
    if (outlen)
        *outlen = res->ai_addrlen;
    freeaddrinfo(res);
    return 0;
}

const char *net_gai_strerror(int err)
{
    if (err == EAI_NONAME)
        return "unknown host or not an address";
    return gai_strerror(err);
}

void net_ntop(const union sockaddr_any *a, char *buf, size_t len)
{
    if (a->sa.sa_family == AF_INET)
        inet_ntop(AF_INET, &a->in4.sin_addr, buf, (socklen_t)len);
    else if (a->sa.sa_family == AF_INET6)
        inet_ntop(AF_INET6, &a->in6.sin6_addr, buf, (socklen_t)len);
    else
        snprintf(buf, len, "?");
}

void net_ntop_port(const union sockaddr_any *a, char *buf, size_t len)
{
    char host[INET6_ADDRSTRLEN];
    net_ntop(a, host, sizeof host);
    if (a->sa.sa_family == AF_INET6)
        snprintf(buf, len, "[%s]:%u", host, net_port(a));
    else
        snprintf(buf, len, "%s:%u", host, net_port(a));
}

uint16_t net_port(const union sockaddr_any *a)
{
    if (a->sa.sa_family == AF_INET)
        return ntohs(a->in4.sin_port);
    if (a->sa.sa_family == AF_INET6)
        return ntohs(a->in6.sin6_port);
    return 0;
}

void net_set_port(union sockaddr_any *a, uint16_t port)
{
    if (a->sa.sa_family == AF_INET)
        a->in4.sin_port = htons(port);
    else if (a->sa.sa_family == AF_INET6)
        a->in6.sin6_port = htons(port);
}

int net_wire_family(const union sockaddr_any *a)
{
    if (a->sa.sa_family == AF_INET6 && IN6_IS_ADDR_V4MAPPED(&a->in6.sin6_addr))
        return AF_INET;
    return a->sa.sa_family;
}

socklen_t net_len(const union sockaddr_any *a)
{
    return a->sa.sa_family == AF_INET6 ? sizeof(struct sockaddr_in6)
                                        : sizeof(struct sockaddr_in);
}

int net_close_fail(int fd)
{
    int e = errno;
    close(fd);
    errno = e;
    return -1;
}

int net_set_nonblock(int fd, int on)
{
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0)
        return -1;
    fl = on ? (fl | O_NONBLOCK) : (fl & ~O_NONBLOCK);
    return fcntl(fd, F_SETFL, fl);
}

int net_bind_device(int fd, const char *ifname)
{
    size_t n = strlen(ifname);
    if (n == 0 || n >= IF_NAMESIZE) {
        errno = EINVAL;
        return -1;
    }
    return setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, ifname, (socklen_t)n + 1);
}

static int wait_fd(int fd, short ev, uint64_t deadline_ns)
{
    struct pollfd p = { fd, ev, 0 };
    for (;;) {
        int rc = poll(&p, 1, ms_until(deadline_ns));
        if (rc > 0)
            return 0;
        if (rc == 0) {
            errno = ETIMEDOUT;
            return -1;
        }
        if (errno != EINTR)
            return -1;
    }
}

int net_connect_fd(int fd, const union sockaddr_any *dst, int timeout_ms)
{
    if (timeout_ms < 0)
        return connect(fd, &dst->sa, net_len(dst));
    if (net_set_nonblock(fd, 1) < 0)
        return -1;
    if (connect(fd, &dst->sa, net_len(dst)) < 0) {
        if (errno != EINPROGRESS ||
            wait_fd(fd, POLLOUT, mono_ns() + (uint64_t)timeout_ms * NS_PER_MS) < 0)
            return -1;
        int err = 0;
        socklen_t el = sizeof err;
        if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) < 0) {
            /* connect() again tells as well: EISCONN once the first one succeeded,
             * else the error that ended it */
            fallback_note("getsockopt SO_ERROR", errno, "a connect's outcome read by calling connect() again");
            if (connect(fd, &dst->sa, net_len(dst)) < 0 && errno != EISCONN)
                return -1;
        } else if (err) {
            errno = err;
            return -1;
        }
    }
    return net_set_nonblock(fd, 0);
}

int net_listen_dev(int type, int proto, const char *dev, const union sockaddr_any *addr,
                   int backlog)
{
    int fd = socket(addr->sa.sa_family, type | SOCK_CLOEXEC, proto);
    if (fd < 0)
        return -1;
    int one = 1, zero = 0;
    /* without SO_REUSEADDR the port is only taken while no connection of an earlier
     * run is in TIME_WAIT on it; without V6ONLY off the wildcard takes IPv6 alone */
    if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0)
        fallback_refused("SO_REUSEADDR", errno);
    if (addr->sa.sa_family == AF_INET6 && IN6_IS_ADDR_UNSPECIFIED(&addr->in6.sin6_addr) &&
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero) < 0)
        fallback_refused("IPV6_V6ONLY", errno);
    if ((dev && net_bind_device(fd, dev) < 0) || bind(fd, &addr->sa, net_len(addr)) < 0 ||
        (type == SOCK_STREAM && listen(fd, backlog) < 0))
        return net_close_fail(fd);
    return fd;
}

int net_listen(int type, const union sockaddr_any *addr, int backlog)
{
    return net_listen_dev(type, 0, NULL, addr, backlog);
}

/* move exactly n bytes in one direction, waiting with poll() up to the deadline;
 * *moved (if given) counts what moved, also on failure */
static int transfer(int fd, char *p, size_t n, uint64_t deadline_ns, int out, size_t *moved)
{
    if (moved)
        *moved = 0;
    while (n) {
        if (wait_fd(fd, out ? POLLOUT : POLLIN, deadline_ns) < 0)
            return -1;
        ssize_t r = out ? send(fd, p, n, MSG_DONTWAIT | MSG_NOSIGNAL)
                        : recv(fd, p, n, MSG_DONTWAIT);
        if (r < 0) {
            if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)
                continue;
            return -1;
        }
        if (r == 0 && !out) {
            errno = ECONNRESET;
            return -1;
        }
        p += r;
        n -= (size_t)r;
        if (moved)
            *moved += (size_t)r;
    }
    return 0;
}

int net_read_full(int fd, void *buf, size_t n, uint64_t deadline_ns)
{
    return transfer(fd, buf, n, deadline_ns, 0, NULL);
}

int net_read_count(int fd, void *buf, size_t n, uint64_t deadline_ns, size_t *got)
{
    return transfer(fd, buf, n, deadline_ns, 0, got);
}

int net_write_full(int fd, const void *buf, size_t n, uint64_t deadline_ns)
{
    return transfer(fd, (char *)buf, n, deadline_ns, 1, NULL);
}
