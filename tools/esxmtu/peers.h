/* The peer list: names from the command line and from -f files (one peer a line),
 * and which addresses can be a path-MTU target at all.
 *
 * Every refusal is one line in `why` (the caller prints it and exits 2):
 *   -f FILE   a regular file or a pipe; a directory, a device or a socket is refused
 *             by what it is, before anything blocks. One line is one peer; '#' starts
 *             a comment; other words on a line are a warning naming the line. A line
 *             over PEERS_LINE_MAX bytes, a NUL byte, more than PEERS_LINES_MAX lines,
 *             a read error or a file cut short while read: an error naming the line.
 *   addresses a peer must be unicast: the unspecified address (0.0.0.0, ::), multicast
 *             and broadcast (255.255.255.255, or a subnet broadcast the routing table
 *             knows) are refused, as is a multicast or broadcast -B. An IPv4-mapped
 *             IPv6 address (::ffff:a.b.c.d) is IPv4. An address or name of the other
 *             family than -4/-6 asks for says so. */
#ifndef ESXMTU_PEERS_H
#define ESXMTU_PEERS_H
#include <stddef.h>
#include "net.h"

#define PEERS_MAX 1024               /* peers in one run */
#define PEERS_LINE_MAX 1024          /* bytes in one -f line, comment included */
#define PEERS_LINES_MAX 100000       /* lines in one -f file, comments and blanks included */

struct peer_list {
    char *name[PEERS_MAX];
    size_t n;
};

/* 0, or -1 when the list is full (why: "too many peers ...") */
int peers_add(struct peer_list *l, const char *name, char *why, size_t len);
/* read the peers of an open -f file; `path` names it in messages. 0 or -1 (why) */
int peers_read_fd(struct peer_list *l, int fd, const char *path, char *why, size_t len);
/* open (never blocking: a FIFO without a writer reads as empty), check what it is,
 * read it. 0 or -1 (why) */
int peers_read_file(struct peer_list *l, const char *path, char *why, size_t len);
void peers_free(struct peer_list *l);

enum addr_class { AC_UNICAST = 0, AC_UNSPECIFIED, AC_MULTICAST, AC_BROADCAST };
#define AC_LAST AC_BROADCAST
/* what kind of address this is, by its bytes alone; an IPv4-mapped IPv6 address is
 * rewritten in place as the IPv4 address it is */
enum addr_class peers_classify(union sockaddr_any *a);
const char *peers_class_name(enum addr_class c);    /* "a multicast address"... */

/* Resolve a peer (what = NULL) or the -B source (what = "-B") for `family`
 * (AF_UNSPEC, AF_INET for -4, AF_INET6 for -6) and check that it can be one.
 * 0, or -1 with why: unknown name, wrong family, not unicast. */
int peers_resolve(const char *name, int family, const char *what, union sockaddr_any *out,
                  char *why, size_t len);

#endif
