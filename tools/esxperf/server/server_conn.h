/* One esxperf server as its files share it: server.c the flow (listen, one test
 * phase by phase), server_wait.c the wait for the next test's cookie,
 * server_accept.c the data streams of a test, server_guard.c
 * what keeps the server from being held (refused connections drained in the
 * linger table, other clients denied during a test, the RSA token, the end
 * guard). Internal to the server; the rest of esxperf uses server.h. */
#ifndef ESXPERF_SERVER_CONN_H
#define ESXPERF_SERVER_CONN_H
#include <stdint.h>

#include "auth.h"
#include "clock.h"
#include "daemon.h"
#include "net.h"
#include "options.h"
#include "proto.h"
#include "report.h"
#include "session.h"

#define LINGER_MAX 128              /* refused connections drained at once */
#define PENDING_MAX 32              /* connections waited on for their cookie at once */

struct lingerer {
    int fd;
    uint64_t until;
};

/* a connection between tests that has not sent its whole cookie yet */
struct pending {
    int fd;
    size_t got;                     /* cookie bytes so far */
    char cookie[COOKIE_SIZE];
    uint64_t until;                 /* its --control-timeout */
    union sockaddr_any peer;
};

struct server {
    const struct perf_opts *o;
    int lfd;                        /* TCP listener (control and TCP data) */
    int lfd_mptcp;                  /* lfd is MPTCP (-m, or a test whose client asked) */
    int ufd;                        /* UDP listener during stream setup */
    union sockaddr_any laddr;
    int ctl;
    char cookie[COOKIE_SIZE];       /* the test's (after it: the last test's) */
    int have_cookie;                /* cookie holds a valid one */
    const struct report_sink *sink; /* text or JSON, for the whole run (report.h) */
    struct report rep;
    struct session s;
    int have_session;
    struct crypto_key *priv;        /* --rsa-private-key-path, or NULL */
    struct auth_replay replay;      /* tokens accepted recently (no replay) */
    uint64_t quiet_until;           /* no accept before this (after a refused token) */
    uint64_t deny_pause_until;      /* out of descriptors: leave the listener alone */
    struct lingerer lg[LINGER_MAX];
    int nlg;
    struct pending pend[PENDING_MAX];
    int npend;
    int accept_told;                /* out of descriptors at accept: said once */
    char why[320];                  /* a test's end reason that needs figures */
    struct stop_guard stop;         /* SIGTERM, SIGINT, SIGHUP (daemon.c) */
};

/* the deadline of a read on the control connection outside the running test */
static inline uint64_t ctl_deadline(const struct server *sv)
{
    return mono_ns() + (uint64_t)sv->o->control_timeout_ms * NS_PER_MS;
}

/* ---- server_guard.c */
/* the refused connections: fd's answer is written; FIN now, closed after the
 * peer's FIN or a second, whichever is first */
void linger_add(struct server *sv, int fd);
void linger_close(struct server *sv, int i);
/* never blocks: reads what is there, closes the finished */
void linger_service(struct server *sv);
/* ACCESS_DENIED (one byte, never blocking) on fd, then into the linger table */
void server_deny(struct server *sv, int fd);
/* connections while a test runs: each denied at once */
void deny_pending(struct server *sv);
/* the RSA token of p from peer; 0 to accept (what failed is logged) */
int server_check_authtoken(struct server *sv, const struct test_params *p,
                           const union sockaddr_any *peer);

/* ---- server_wait.c */
/* the next test's control connection into sv->ctl (its cookie read into
 * sv->cookie, peer its address), the connections without a cookie waited on side
 * by side, refused ones drained, -1's --idle-timeout; 0, or -1 when the server
 * was stopped (a signal) */
int server_next_client(struct server *sv, union sockaddr_any *peer);
/* the connections still without a cookie closed (stopped: told SERVER_TERMINATE) */
void server_pending_end(struct server *sv, int stopped);

/* ---- server_accept.c */
/* the UDP listener of the stream setup, on the control listener's address */
int server_open_udp_listener(struct server *sv);
/* the test's n data streams (TCP with our cookie, or UDP hellos) into the session;
 * 0, or -1 with *why */
int server_accept_streams(struct server *sv, int n, const char **why);

#endif
