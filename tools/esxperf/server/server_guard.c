/* What keeps the server from being held: connections refused or denied
 * are answered at once, half-closed and kept in a small "linger" table that
 * drains what they still send, so that the answer is not lost to a reset and the
 * main loop never blocks on them; other clients are denied while a test runs; the
 * RSA token is checked before any stream is opened; the end guard says when the
 * server ends a test itself. */
#include "server.h"
#include "server_conn.h"
#include "fail.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define LINGER_NS NS_PER_SEC        /* how long a refused connection is drained */
#define DENY_BATCH 64               /* connections denied per pass of the test loop */

/* ---- refused connections: answered, half-closed, drained, then closed */

void linger_close(struct server *sv, int i)
{
    close(sv->lg[i].fd);
    sv->lg[i] = sv->lg[--sv->nlg];
}

/* take over fd (the answer is already written): FIN now, close after the peer's
 * FIN or LINGER_NS, whichever is first */
void linger_add(struct server *sv, int fd)
{
    shutdown(fd, SHUT_WR);
    if (sv->nlg == LINGER_MAX) {
        int old = 0;
        for (int i = 1; i < sv->nlg; i++)
            if (sv->lg[i].until < sv->lg[old].until)
                old = i;
        linger_close(sv, old);
    }
    sv->lg[sv->nlg].fd = fd;
    sv->lg[sv->nlg].until = mono_ns() + LINGER_NS;
    sv->nlg++;
}

/* never blocks: reads what is there (at most 4 KiB each), closes the finished */
void linger_service(struct server *sv)
{
    uint64_t now = mono_ns();
    for (int i = 0; i < sv->nlg;) {
        int done = now >= sv->lg[i].until;
        for (int k = 0; !done && k < 8; k++) {
            char buf[512];
            ssize_t r = recv(sv->lg[i].fd, buf, sizeof buf, MSG_DONTWAIT);
            if (r == 0 || (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
                done = 1;
            if (r <= 0)
                break;
        }
        if (done)
            linger_close(sv, i);
        else
            i++;
    }
}

void server_deny(struct server *sv, int fd)
{
    signed char b = (signed char)ST_ACCESS_DENIED;
    (void)!send(fd, &b, 1, MSG_DONTWAIT | MSG_NOSIGNAL);
    linger_add(sv, fd);
}

/* connections while a test runs (other clients, extra streams): ACCESS_DENIED at
 * once, without waiting for their cookie; the linger table drains and closes them */
void deny_pending(struct server *sv)
{
    for (int i = 0; i < DENY_BATCH; i++) {
        int fd = accept4(sv->lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd < 0) {
            if ((errno == EMFILE || errno == ENFILE) && sv->nlg > 0) {
                linger_close(sv, 0);
                continue;
            }
            if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
                sv->deny_pause_until = mono_ns() + 100 * NS_PER_MS;
            return;
        }
        char ck[COOKIE_SIZE];
        (void)!recv(fd, ck, sizeof ck, MSG_DONTWAIT);
        server_deny(sv, fd);
    }
}

/* ---- the RSA token */

/* RSA authentication (--rsa-private-key-path with --authorized-users-path): the
 * users file is read for each test (edits apply without a restart). What failed is
 * logged here; the client only ever learns "authorization failed". Returns 0 to
 * accept. */
int server_check_authtoken(struct server *sv, const struct test_params *p,
                           const union sockaddr_any *peer)
{
    const struct perf_opts *o = sv->o;
    char err[300], ph[64];
    struct auth_users users;
    struct auth_result res;
    if (!sv->priv)
        return 0;
    rep_addr(peer, ph, sizeof ph);
    if (auth_users_load(o->authorized_users, &users, err, sizeof err) < 0) {
        warnmsg("test from %s refused: %s (fix the users file; tests are refused until then)",
                ph, err);
        return -1;
    }
    if (users.malformed)
        warnmsg("users file %s: %zu malformed line%s ignored, the first is line %zu (want "
                "user,<64 lowercase hex digits of sha256(\"{user}password\")>)",
                o->authorized_users, users.malformed, users.malformed == 1 ? "" : "s",
                users.first_bad_line);
    int rc = auth_token_check(sv->priv, &users, p->authtoken, strlen(p->authtoken),
                              (int64_t)time(NULL), o->time_skew, &sv->replay, &res);
    auth_users_free(&users);
    if (rc == 0) {
        sv->sink->authenticated(stdout, res.user, ph);
        return 0;
    }
    if (res.status == AUTH_EXPIRED)
        warnmsg("test from %s refused: authentication failed: %s token (user '%s', token time "
                "%lld, %+lld s from ours; --time-skew-threshold is %lld)", ph,
                auth_status_text(res.status),
                res.user, (long long)res.ts, (long long)(res.ts - (int64_t)time(NULL)),
                (long long)o->time_skew);
    else if (res.user[0])
        warnmsg("test from %s refused: authentication failed: %s (user '%s')", ph,
                auth_status_text(res.status), res.user);
    else if (res.status == AUTH_BAD_TOKEN)
        warnmsg("test from %s refused: authentication failed: bad token: %s", ph,
                auth_bad_text(res.bad));
    else
        warnmsg("test from %s refused: authentication failed: %s", ph,
                auth_status_text(res.status));
    return -1;
}

/* ---- when the server ends a test itself */

void end_guard_init(struct end_guard *g, const struct perf_opts *o,
                    const struct test_params *p, uint64_t now)
{
    memset(g, 0, sizeof *g);
    g->counted = p->num || p->blockcount;
    g->count = p->num ? (uint64_t)p->num : (uint64_t)p->blockcount * (uint64_t)p->len;
    g->start = now;
    if (p->time && !g->counted)
        g->limit = now + (uint64_t)(p->time + p->omit + 60) * NS_PER_SEC;
    /* the parameters asked for at most max_duration (server_params_refusal): a
     * test still running MAX_DURATION_GRACE_S later is held by its client */
    if (o->max_duration > 0)
        g->cap = now + (uint64_t)(o->max_duration + MAX_DURATION_GRACE_S) * NS_PER_SEC;
    g->stall_ns = 3 * (uint64_t)o->control_timeout_ms * NS_PER_MS;
    progress_start(&g->moved, 0, now);
}

const char *end_guard_check(struct end_guard *g, uint64_t now, uint64_t moved)
{
    if (g->cap && now >= g->cap)
        return "the test reached the server's --server-max-duration (--max-duration); "
               "ended with SERVER_TERMINATE";
    if (g->limit && now > g->limit)
        return g->counted ? "the client did not end the -n/-k test: the count moved, and as "
                            "long again + 60 s; ended with SERVER_TERMINATE"
                          : "the client did not end the test 60 s after its time; ended with "
                            "SERVER_TERMINATE";
    if (!g->counted)
        return NULL;
    if (!g->limit && g->count && moved >= g->count)
        g->limit = now + (now - g->start) + 60 * NS_PER_SEC;
    if (progress_stalled(&g->moved, moved, now, g->stall_ns))
        return "no data moved in this -n/-k test for 3 x --control-timeout; ended with "
               "SERVER_TERMINATE";
    return NULL;
}

/* ---- the server's limits: at the parameters, and while a test runs */

int server_params_refusal(const struct perf_opts *o, const struct test_params *p,
                          const char **why)
{
    if (o->max_duration > 0 && (p->time == 0 || p->time + p->omit > o->max_duration)) {
        *why = p->time == 0 ? "refused: an -n/-k test has no time, and --server-max-duration "
                              "allows only time tests within it (iperf3 error 37)"
                            : "refused: the client asked for more time (-t plus -O) than "
                              "--server-max-duration (iperf3 error 37)";
        return IE_MAXSERVERTESTDURATIONEXCEEDED;
    }
    if (o->file && p->udp) {
        *why = "refused: a UDP test, and -F moves a file over TCP only (iperf3 error 34)";
        return IE_UDPFILETRANSFER;
    }
    uint64_t k = (uint64_t)p->parallel * (p->bidir ? 2u : 1u);
    if (o->bitrate_limit && ((uint64_t)p->bandwidth * k > o->bitrate_limit ||
                             (uint64_t)p->fqrate * k > o->bitrate_limit)) {
        *why = "refused: the streams ask for more than --server-bitrate-limit in all "
               "(iperf3 error 27)";
        return IE_TOTALRATE;
    }
    return 0;
}

void rate_guard_init(struct rate_guard *g, const struct perf_opts *o, uint64_t now)
{
    memset(g, 0, sizeof *g);
    g->limit = o->bitrate_limit;
    double step = o->interval > 0 ? o->interval : 1.0;
    g->step_ns = (uint64_t)(step * (double)NS_PER_SEC);
    double n = o->bitrate_limit_secs <= step ? 1 : o->bitrate_limit_secs / step + 0.5;
    g->n = n < 1 ? 1 : n > RATE_WINDOW_MAX ? RATE_WINDOW_MAX : (int)n;
    g->next = now + g->step_ns;
}

int rate_guard_check(struct rate_guard *g, uint64_t now, uint64_t moved)
{
    if (!g->limit)
        return 0;
    int over = 0;
    for (int i = 0; i < RATE_WINDOW_MAX && now >= g->next; i++) {
        g->at = (g->at + 1) % g->n;
        g->win[g->at] = moved - g->last;
        g->last = moved;
        g->next += g->step_ns;
        if (++g->count < g->n)
            continue;
        uint64_t sum = 0;
        for (int k = 0; k < g->n; k++)
            sum += g->win[k];
        g->bps = (uint64_t)((double)sum * 8 * NS_PER_SEC / ((double)g->step_ns * g->n));
        over |= g->bps > g->limit;
    }
    return over;
}
