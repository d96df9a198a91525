/* This side's own socket options from its command line (iperf3 3.22's):
 * --bind-dev (SO_BINDTODEVICE), --snd-timeout (TCP_USER_TIMEOUT), --cntl-ka (the
 * control connection's keepalive), -m (IPPROTO_MPTCP data streams) and -L (the
 * IPv6 flow label of a TCP data stream the client connects). What the test
 * parameters set on the data sockets (-w -M -N -C -S --fq-rate) is
 * stream_sockopts' (stream_sockopt.c). */
#ifndef ESXPERF_SOCKOPT_APPLY_H
#define ESXPERF_SOCKOPT_APPLY_H
#include <stddef.h>

#include "net.h"
#include "linux_opts.h"
#include "options.h"

/* the protocol of a TCP socket of this test: IPPROTO_MPTCP with -m, else 0 */
int sockopt_tcp_proto(const struct perf_opts *o);
/* -m: 0 when this kernel makes MPTCP sockets, else -1 and one line in why */
int sockopt_mptcp_check(char *why, size_t len);
/* --bind-dev on a new socket (before bind/connect/listen); 0, or -1 with *why */
int sockopt_bind_dev(int fd, const struct perf_opts *o, const char **why);
/* --snd-timeout on a TCP socket (control or data); 0, or -1 with *why */
int sockopt_snd_timeout(int fd, const struct perf_opts *o, const char **why);
/* the control connection: --snd-timeout and --cntl-ka; 0, or -1 with *why */
int sockopt_control(int fd, const struct perf_opts *o, const char **why);
/* -L on a TCP data socket to dst (IPv6): the label leased for dst and sent;
 * *dst gets it in sin6_flowinfo, for connect. 0, or -1 with *why */
int sockopt_flowlabel(int fd, long long label, union sockaddr_any *dst, const char **why);
/* 1 for an IPv6 link-local address without its zone (%vmk1): the kernel cannot
 * tell which interface it is on and refuses it (EINVAL) */
int sockopt_zone_missing(const union sockaddr_any *a);
/* a listener (TCP, -m MPTCP, or UDP) on addr with --bind-dev, IPv6 only with -6;
 * fd or -1 (errno). _proto: with that protocol instead of -m's choice */
int sockopt_listen(const struct perf_opts *o, int type, const union sockaddr_any *addr,
                    int backlog);
int sockopt_listen_proto(const struct perf_opts *o, int type, int proto,
                          const union sockaddr_any *addr, int backlog);

#endif
