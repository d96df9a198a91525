/* What the probes share (probes.c's table, probe_syscalls.c, probe_sockopts.c,
 * probe_fixtures.c): a probe's row, how a result is set, and the loopback sockets
 * a probe may need first. Internal to the self-test; the rest uses probes.h. */
#ifndef ESXDIAG_SELFTEST_PROBE_KIT_H
#define ESXDIAG_SELFTEST_PROBE_KIT_H
#include "probes.h"

#include <netinet/in.h>
#include <sys/socket.h>

/* numbers of Linux's uapi headers that musl's may lack */
#define GRND_NONBLOCK_FLAG 1
#define TCP_INFO_NEED 104        /* struct tcp_info up to tcpi_total_retrans, as esxperf reads it */

struct probe;
typedef void probe_fn(const struct probe *p, struct probe_result *r);

struct probe {
    struct probe_row row;
    probe_fn *run;
    int family, type, proto;     /* the socket a socket or option probe opens */
    int level, opt, val;         /* the option and its int value */
    int root;                    /* needs privilege (CAP_NET_RAW / CAP_NET_ADMIN) */
};

/* ---- results (probe_fixtures.c) */
void works(struct probe_result *r);
void refused(struct probe_result *r, int err);
void refused_why(struct probe_result *r, const char *why);
void not_tried(struct probe_result *r, const char *what, int err);

/* ---- fixtures: loopback sockets made with the plain calls only (probe_fixtures.c) */
typedef union { struct sockaddr sa; struct sockaddr_in in4; struct sockaddr_in6 in6; } lo_sockaddr;
struct tcp_pair { int lfd, cli, srv; };
int wait_fd(int fd, short ev);
int tcp_pair_open(int family, struct tcp_pair *t, int accept_it, const char **what);
void tcp_pair_close(struct tcp_pair *t);
int udp_self_open(int family, const char **what);

/* ---- the probes (probe_syscalls.c, probe_sockopts.c) */
void try_accept4(const struct probe *p, struct probe_result *r);
void try_pipe2(const struct probe *p, struct probe_result *r);
void try_dup3(const struct probe *p, struct probe_result *r);
void try_openat(const struct probe *p, struct probe_result *r);
void try_socket_flag(const struct probe *p, struct probe_result *r);
void try_getrandom(const struct probe *p, struct probe_result *r);
void try_mmsg(const struct probe *p, struct probe_result *r);
void try_pthread(const struct probe *p, struct probe_result *r);
void try_clock(const struct probe *p, struct probe_result *r);
void try_affinity(const struct probe *p, struct probe_result *r);
void try_prlimit(const struct probe *p, struct probe_result *r);
void try_membarrier(const struct probe *p, struct probe_result *r);
void try_statx(const struct probe *p, struct probe_result *r);
void try_fork(const struct probe *p, struct probe_result *r);
void try_setpgid(const struct probe *p, struct probe_result *r);
void try_sendfile(const struct probe *p, struct probe_result *r);
void try_socket(const struct probe *p, struct probe_result *r);
void try_setopt(const struct probe *p, struct probe_result *r);
void try_getopt(const struct probe *p, struct probe_result *r);
void try_getopt_connected(const struct probe *p, struct probe_result *r);
void try_timeo(const struct probe *p, struct probe_result *r);
void try_pacing(const struct probe *p, struct probe_result *r);
void try_bindtodevice(const struct probe *p, struct probe_result *r);
void try_congestion(const struct probe *p, struct probe_result *r);
void try_tcp_info(const struct probe *p, struct probe_result *r);
void try_msg_zerocopy(const struct probe *p, struct probe_result *r);
void try_flowlabel(const struct probe *p, struct probe_result *r);

#endif
