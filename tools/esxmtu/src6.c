/* The route's source address for an IPv6 destination (see src6.h). */
#include "src6.h"
#include "net.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* what a UDP socket connected to dst would send from; 0 or -1 with errno */
static int route_source(const struct sockaddr_in6 *dst, const char *iface, uint8_t src[16])
{
    int fd = socket(AF_INET6, SOCK_DGRAM, 0);
    if (fd < 0)
        return -1;
    if (iface && net_bind_device(fd, iface) != 0)
        return net_close_fail(fd);
    struct sockaddr_in6 to = *dst;
    to.sin6_port = htons(9);        /* any port: connect only looks the route up */
    struct sockaddr_in6 me;
    socklen_t ml = sizeof me;
    if (connect(fd, (const struct sockaddr *)&to, sizeof to) != 0 ||
        getsockname(fd, (struct sockaddr *)&me, &ml) != 0)
        return net_close_fail(fd);
    close(fd);
    if (ml < sizeof me || me.sin6_family != AF_INET6) {
        errno = EAFNOSUPPORT;
        return -1;
    }
    memcpy(src, &me.sin6_addr, 16);
    return 0;
}

int src6_lookup(struct src6_last *c, const struct sockaddr_in6 *dst, const char *iface, uint8_t src[16])
{
    const uint8_t *d = dst->sin6_addr.s6_addr;
    if (c->set && c->scope == dst->sin6_scope_id && memcmp(c->dst, d, 16) == 0) {
        memcpy(src, c->src, 16);
        return 0;
    }
    c->set = 0;
    if (route_source(dst, iface, src) != 0)
        return -1;                   /* not kept: the next probe asks the routing again */
    memcpy(c->dst, d, 16);
    memcpy(c->src, src, 16);
    c->scope = dst->sin6_scope_id;
    c->set = 1;
    return 0;
}
