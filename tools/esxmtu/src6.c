/* The route's source address per IPv6 destination, looked up once (see src6.h). */
#include "src6.h"
#include "fail.h"
#include "net.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* FNV-1a over the address and the scope */
static size_t slot_of(const struct src6_cache *c, const uint8_t dst[16], uint32_t scope)
{
    uint32_t h = 2166136261u;
    for (int i = 0; i < 16; i++)
        h = (h ^ dst[i]) * 16777619u;
    for (int i = 0; i < 4; i++)
        h = (h ^ (uint8_t)(scope >> (8 * i))) * 16777619u;
    return h & (c->cap - 1);
}

static struct src6_entry *find(const struct src6_cache *c, const uint8_t dst[16], uint32_t scope)
{
    if (!c->cap)
        return NULL;
    for (size_t i = slot_of(c, dst, scope), k = 0; k < c->cap; i = (i + 1) & (c->cap - 1), k++) {
        struct src6_entry *e = &c->slot[i];
        if (!e->used || (e->scope == scope && memcmp(e->dst, dst, 16) == 0))
            return e;               /* the entry, or the free slot where it would go */
    }
    return NULL;
}

/* room for one more entry at half load at most; 0 when the table is at its bound */
static int make_room(struct src6_cache *c)
{
    if (c->cap && (c->n + 1) * 2 <= c->cap)
        return 1;
    size_t cap = c->cap ? c->cap * 2 : 64;
    if (cap > SRC6_SLOTS_MAX)
        return 0;
    struct src6_cache bigger = { xcalloc(cap, sizeof *bigger.slot), 0, cap };
    for (size_t i = 0; i < c->cap; i++)
        if (c->slot[i].used) {
            *find(&bigger, c->slot[i].dst, c->slot[i].scope) = c->slot[i];
            bigger.n++;
        }
    free(c->slot);
    *c = bigger;
    return 1;
}

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

int src6_lookup(struct src6_cache *c, const struct sockaddr_in6 *dst, const char *iface, uint8_t src[16])
{
    const uint8_t *d = dst->sin6_addr.s6_addr;
    struct src6_entry *e = find(c, d, dst->sin6_scope_id);
    if (e && e->used) {
        memcpy(src, e->src, 16);
        return 0;
    }
    if (route_source(dst, iface, src) != 0)
        return -1;                   /* not kept: the next probe asks the routing again */
    if (!make_room(c))
        return 0;                    /* at the bound: found again next time */
    e = find(c, d, dst->sin6_scope_id);
    memcpy(e->dst, d, 16);
    memcpy(e->src, src, 16);
    e->scope = dst->sin6_scope_id;
    e->used = 1;
    c->n++;
    return 0;
}

void src6_free(struct src6_cache *c)
{
    free(c->slot);
    memset(c, 0, sizeof *c);
}
