/* One esxperf client as its files share it: client.c the flow (connect, one test
 * phase by phase), client_streams.c the data streams of a test, client_abort.c
 * the failure line and the signals that stop it in any phase. Internal to the
 * client; the rest of esxperf uses client.h. */
#ifndef ESXPERF_CLIENT_CONN_H
#define ESXPERF_CLIENT_CONN_H
#include <stddef.h>
#include <stdint.h>

#include "auth.h"
#include "client.h"
#include "net.h"
#include "proto.h"
#include "rcv_timeout.h"
#include "report.h"
#include "session.h"

/* Every wait for the server is bounded: a server that stops answering at any step
 * (a state byte, the UDP reply, the results, an -n/-k test whose data it stops
 * taking) ends the test after CTL_WAIT_S, with a line that says which step; the
 * results body gets 1 s more per RESULTS_BODY_BPS announced (docs/esxperf.md: a client that survives hostile servers) */
#define CTL_WAIT_S 10
#define CTL_WAIT_NS ((uint64_t)CTL_WAIT_S * NS_PER_SEC)

struct client {
    const struct perf_opts *o;
    struct client_stop *stop;       /* the stop signals (client_abort.c) */
    struct report rep;
    struct session s;
    int have_session;
    int summarized;                 /* the summary is on the report */
    int ctl;
    char cookie[COOKIE_SIZE];
    char authtoken[AUTHTOKEN_MAX];
    union sockaddr_any dst, src;
    int have_src;
    char host[64];
    struct progress tx;             /* -n/-k: the bytes sent while some stay queued */
    struct rcv_idle idle;           /* --rcv-timeout: the bytes received */
    int here_rc;                    /* a one-thread run: how the test ended */
    uint64_t end_told;              /* a one-thread run that receives: TEST_END sent
                                     * (mono ns), the stream reads on until the answer */
    char *err;                      /* the failure line, for a sweep's table (or NULL) */
    size_t errlen;
};

/* ---- client.c */
/* the state the protocol has next, or the test's failure naming what came */
int wait_state(struct client *c, enum ctl_state want, uint64_t deadline);

/* ---- client_streams.c */
/* socket + options + bind + connect with a timeout; p NULL for the control
 * connection. fd, or -1 with errno and *why (NULL: the connect failed) */
int client_dial(struct client *c, int type, const struct test_params *p, uint16_t cport,
                const char **why);
/* the test's data streams, each into the session: 0, or the exit code after cfail */
int client_create_streams(struct client *c, const struct test_params *p);

/* ---- client_abort.c */
/* the test's failure: the line on stderr (and in -J), code returned; a stop
 * signal taken meanwhile makes it the interruption instead (client_interrupted) */
int cfail(struct client *c, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* msg as the test's failure as it stands: -J's "error" (the document printed),
 * the line on stderr, a sweep's err; returns code */
int client_fail_line(struct client *c, int code, const char *msg);
/* a stop signal came: CLIENT_TERMINATE to the server (when connected), the summary
 * of what this side measured, the line, exit 1 (as iperf3's client does) */
int client_interrupted(struct client *c);

#endif
