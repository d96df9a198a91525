/* The source address of the IPv6 header esxmtu writes itself (probes sent by an
 * IPPROTO_RAW socket). The ICMPv6 checksum covers it and the answers come back to
 * it, so it must be the address this host's routing gives the destination: -B's
 * when given; else a UDP socket connected to the destination names it
 * (getsockname after connect: a route lookup, no packet leaves, about 3 us).
 * The last destination's answer is kept: a round sends a peer's probes together. */
#ifndef ESXMTU_SRC6_H
#define ESXMTU_SRC6_H
#include <netinet/in.h>
#include <stdint.h>

struct src6_last {
    uint8_t dst[16], src[16];
    uint32_t scope;                  /* the destination's sin6_scope_id */
    int set;
};

/* the source for dst into src (16 bytes): 0, or -1 with errno (the destination's
 * route fails: ENETUNREACH...; or -I's interface cannot be bound). iface: -I or NULL */
int src6_lookup(struct src6_last *c, const struct sockaddr_in6 *dst, const char *iface, uint8_t src[16]);

#endif
