/* Addresses and sockets (IPv4 and IPv6). */
#ifndef ESXDIAG_NET_H
#define ESXDIAG_NET_H
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <netinet/in.h>

union sockaddr_any {
    struct sockaddr sa;
    struct sockaddr_in in4;
    struct sockaddr_in6 in6;
    struct sockaddr_storage ss;
};

/* Resolve a numeric address or a name. family AF_UNSPEC, AF_INET or AF_INET6.
 * host NULL = wildcard (passive). Returns 0 or a getaddrinfo error code. */
int net_resolve(const char *host, int family, uint16_t port, int passive,
                union sockaddr_any *out, socklen_t *outlen);
const char *net_gai_strerror(int err);
/* "198.18.0.2" or "2001:db8::2" (no port) */
void net_ntop(const union sockaddr_any *a, char *buf, size_t len);
/* "198.18.0.2:5201" or "[2001:db8::2]:5201" */
void net_ntop_port(const union sockaddr_any *a, char *buf, size_t len);
uint16_t net_port(const union sockaddr_any *a);
void net_set_port(union sockaddr_any *a, uint16_t port);
socklen_t net_len(const union sockaddr_any *a);
/* the IP version packets to/from this address carry: AF_INET for an IPv4 address
 * and for an IPv4-mapped IPv6 one (::ffff:a.b.c.d, as a dual-stack listener sees
 * IPv4 peers), else the address family */
int net_wire_family(const union sockaddr_any *a);

int net_set_nonblock(int fd, int on);
/* close fd on a failure path without losing errno; returns -1 for `return net_close_fail(fd);` */
int net_close_fail(int fd);
/* SO_BINDTODEVICE; returns 0 or -1 with errno */
int net_bind_device(int fd, const char *ifname);
/* connect an already configured socket with a timeout (ms, <0 = blocking connect);
 * the socket is left blocking. Returns 0, or -1 with errno (ETIMEDOUT on timeout);
 * the caller closes fd on failure. */
int net_connect_fd(int fd, const union sockaddr_any *dst, int timeout_ms);
/* socket + SO_REUSEADDR + bind + listen (backlog) for TCP or bind for UDP;
 * IPv6 wildcard sockets accept IPv4 too. Returns fd or -1 with errno. */
int net_listen(int type, const union sockaddr_any *addr, int backlog);
/* net_listen with a protocol (0, or IPPROTO_MPTCP) and, when dev is not NULL, bound
 * to that interface first (SO_BINDTODEVICE) */
int net_listen_dev(int type, int proto, const char *dev, const union sockaddr_any *addr,
                   int backlog);

/* read/write exactly n bytes with a deadline (monotonic ns, 0 = none) using poll();
 * return 0, or -1 with errno (ETIMEDOUT, ECONNRESET, EPIPE; 0 bytes at EOF -> ECONNRESET) */
int net_read_full(int fd, void *buf, size_t n, uint64_t deadline_ns);
int net_write_full(int fd, const void *buf, size_t n, uint64_t deadline_ns);
/* net_read_full that also says how many bytes came (*got), also when it fails */
int net_read_count(int fd, void *buf, size_t n, uint64_t deadline_ns, size_t *got);

#endif
