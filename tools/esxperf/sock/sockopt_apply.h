/* Every socket option esxperf sets before a socket is used, in one module. This
 * side's own from its command line (iperf3 3.22's): --bind-dev (SO_BINDTODEVICE),
 * --snd-timeout (TCP_USER_TIMEOUT), --cntl-ka (the control connection's
 * keepalive), -m (IPPROTO_MPTCP data streams) and -L (the IPv6 flow label of a
 * TCP data stream the client connects); what the test parameters both sides
 * agreed set on a data socket (-w -M -N -C -S --dont-fragment --fq-rate); and a
 * data socket's loop timeouts. Their values are parsed in cli/ (options.c,
 * sockopt_parse.c); what the I/O techniques of a running stream set or fall
 * back from (SO_RCVLOWAT, a held SO_SNDBUF, UDP_SEGMENT, UDP_GRO, ...) stays
 * with the step that uses it (stream/). */
#ifndef ESXPERF_SOCKOPT_APPLY_H
#define ESXPERF_SOCKOPT_APPLY_H
#include <stddef.h>

#include "net.h"
#include "linux_opts.h"
#include "options.h"
#include "proto.h"

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

/* the test parameters' options on a data socket; family is the IP version on the
 * wire (net_wire_family: IPv4 for a v4-mapped peer), which picks IP_TOS or
 * IPV6_TCLASS; returns 0 or -1 with a static reason */
int sockopt_data(int fd, const struct test_params *p, int family, const char **why);
/* SO_SNDTIMEO/SO_RCVTIMEO of ms on a data socket, so a blocked send or receive
 * returns and its stream sees the stop flags; 0, or -1 (refused: noted with
 * fallback_note, the caller makes the socket non-blocking and polls) */
int sockopt_loop_timeouts(int fd, int ms);

#endif
