/* The source address of the IPv6 header esxmtu writes itself (probes sent by an
 * IPPROTO_RAW socket). The ICMPv6 checksum covers it and the answers come back to
 * it, so it must be the address this host's routing gives the destination: -B's
 * when given; else a UDP socket connected to the destination names it
 * (getsockname after connect: a route lookup, no packet leaves), once per
 * destination and interface scope, kept for the run. The table is bounded
 * (SRC6_SLOTS_MAX); past it a destination is looked up at every probe. */
#ifndef ESXMTU_SRC6_H
#define ESXMTU_SRC6_H
#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>

#define SRC6_SLOTS_MAX 4096          /* 2048 destinations kept: twice PEERS_MAX */

struct src6_entry {
    uint8_t dst[16], src[16];
    uint32_t scope;                  /* the destination's sin6_scope_id */
    int used;
};

struct src6_cache {
    struct src6_entry *slot;         /* open addressing, `cap` slots (0 or a power of two) */
    size_t n, cap;
};

/* the source for dst into src (16 bytes): 0, or -1 with errno (the destination's
 * route fails: ENETUNREACH...; or -I's interface cannot be bound). iface: -I or NULL */
int src6_lookup(struct src6_cache *c, const struct sockaddr_in6 *dst, const char *iface, uint8_t src[16]);
void src6_free(struct src6_cache *c);

#endif
