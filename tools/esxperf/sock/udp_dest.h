/* The address a UDP datagram was sent to, and a socket that answers from it.
 * On a multi-homed host (an ESXi host with several vmknics) a wildcard UDP socket
 * that connect()s to a client takes as its source the address of the interface the
 * routing table sends the client's packets out of, which need not be the address
 * the client sent to; a client whose socket is connected to that address drops
 * every datagram from the other. Asking the kernel for each datagram's destination
 * (IP_PKTINFO, IPV6_RECVPKTINFO) and binding the answering socket there keeps the
 * server's replies on the address the client talks to. */
#ifndef ESXPERF_UDP_DEST_H
#define ESXPERF_UDP_DEST_H
#include <stddef.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "net.h"

/* ask the kernel to say each datagram's destination on UDP socket fd (of
 * family AF_INET or AF_INET6; an AF_INET6 one also for its IPv4-mapped peers);
 * 0, or -1 with errno when the host has no such option */
int udp_dest_enable(int fd, int family);

/* the destination in the control messages of m, as an address of family (the
 * receiving socket's: AF_INET6 gives an IPv4 destination IPv4-mapped) with port 0;
 * 0, or -1 when m says none or one no socket can send from (multicast, broadcast) */
int udp_dest_from_cmsg(const struct msghdr *m, int family, union sockaddr_any *to);

/* recvfrom() that also says the destination: *to gets it, or AF_UNSPEC when
 * the kernel did not say (udp_dest_enable failed, or an old kernel) */
ssize_t udp_recv_dest(int fd, void *buf, size_t len, int flags, union sockaddr_any *from,
                      socklen_t *fromlen, union sockaddr_any *to);

/* a new UDP socket bound to to (with port) beside the listener there (SO_REUSEADDR,
 * the listener has it too), on interface dev when not NULL, connected to peer; fd,
 * or -1 with errno */
int udp_dest_socket(const union sockaddr_any *to, unsigned short port, const char *dev,
                    const union sockaddr_any *peer, socklen_t peerlen);

#endif
