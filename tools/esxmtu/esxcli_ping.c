/* The esxcli method (see esxcli_ping.h): esxcli network diag ping's plain output read
 * by field name into the prober's evidence, so the verdicts are verdict.c's own. */
#include "esxcli_ping.h"
#include "check.h"
#include "clock.h"
#include "discover.h"
#include "fail.h"
#include "packet.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

const char *ecp_method_desc(void)
{
    return "esxcli network diag ping --df in the vmk's netstack (it cannot show a router's "
           "frag-needed: a TOO-BIG path reads as BLACK-HOLE, without the router's address)";
}

/* a key with its spaces collapsed and trimmed, compared without letter case */
static int key_is(const char *key, const char *want)
{
    return strcasecmp(key, want) == 0;
}

/* "701 us", "0.770 ms", "701": milliseconds; -1 when it is not a number */
static double rtt_ms(const char *v)
{
    char *end;
    double x = strtod(v, &end);
    if (end == v || !isfinite(x) || x < 0)
        return -1;
    while (*end == ' ')
        end++;
    if (strncasecmp(end, "ms", 2) == 0)
        return x;
    if (strncasecmp(end, "s", 1) == 0 && end[1] == 0)
        return x * 1000;
    return x / 1000;              /* "us", and esxcli's default unit */
}

static int count_of(const char *v, unsigned *out)
{
    char *end;
    unsigned long x = strtoul(v, &end, 10);
    if (end == v || x > 1000000)
        return -1;
    *out = (unsigned)x;
    return 0;
}

static int has_too_long(const char *line)
{
    for (const char *p = line; *p; p++)
        if (strncasecmp(p, "message too long", 16) == 0)
            return 1;
    return 0;
}

/* one line: "   Key Words:   value" into key (spaces collapsed) and value (trimmed) */
static int split_line(const char *line, char *key, size_t klen, const char **value)
{
    const char *colon = strchr(line, ':');
    if (!colon)
        return -1;
    size_t k = 0;
    int space = 0;
    for (const char *p = line; p < colon; p++) {
        if (*p == ' ' || *p == '\t') {
            space = k > 0;
            continue;
        }
        if (space && k + 1 < klen)
            key[k++] = ' ';
        space = 0;
        if (k + 1 < klen)
            key[k++] = *p;
    }
    key[k] = 0;
    const char *v = colon + 1;
    while (*v == ' ' || *v == '\t')
        v++;
    *value = v;
    return 0;
}

int ecp_parse(const char *text, size_t len, uint32_t data_len, struct ecp_result *r)
{
    memset(r, 0, sizeof *r);
    enum { NONE, TRACE, SUMMARY } sec = NONE;
    size_t at = 0;
    char line[512], key[64];
    while (at < len) {
        size_t l = 0;
        while (at < len && text[at] != '\n') {
            char ch = text[at++];
            if (ch == '\r' || ch == 0)
                continue;
            if (l + 1 < sizeof line)
                line[l++] = ch;
        }
        at++;
        line[l] = 0;
        while (l > 0 && (line[l - 1] == ' ' || line[l - 1] == '\t'))
            line[--l] = 0;
        if (has_too_long(line))
            r->too_long = 1;
        const char *s = line;
        while (*s == ' ' || *s == '\t')
            s++;
        if (strncasecmp(s, "error", 5) == 0 && !r->error[0])
            snprintf(r->error, sizeof r->error, "%.199s", s);
        const char *v;
        if (split_line(s, key, sizeof key, &v) != 0)
            continue;
        if (key_is(key, "Trace") && !*v) {
            sec = TRACE;
        } else if (key_is(key, "Summary") && !*v) {
            sec = SUMMARY;
        } else if (sec == TRACE && key_is(key, "Received Bytes")) {
            unsigned b;
            if (count_of(v, &b) == 0) {
                r->replies++;
                if (b < data_len + 8)
                    r->short_replies++;
            }
        } else if (sec == SUMMARY && key_is(key, "Transmitted")) {
            if (count_of(v, &r->transmitted) == 0)
                r->have_summary = 1;
        } else if (sec == SUMMARY && (key_is(key, "Recieved") || key_is(key, "Received"))) {
            (void)count_of(v, &r->received);
        } else if (sec == SUMMARY && key_is(key, "Round-trip Min")) {
            r->rtt_min_ms = rtt_ms(v);
        } else if (sec == SUMMARY && key_is(key, "Round-trip Avg")) {
            r->rtt_avg_ms = rtt_ms(v);
        } else if (sec == SUMMARY && key_is(key, "Round-trip Max")) {
            r->rtt_max_ms = rtt_ms(v);
            r->have_rtt = 1;
        }
    }
    if (r->received > r->transmitted)
        r->received = r->transmitted;
    if (r->short_replies > r->received)
        r->short_replies = r->received;
    if (r->have_rtt && (r->rtt_min_ms < 0 || r->rtt_avg_ms < 0 || r->rtt_max_ms < 0))
        r->have_rtt = 0;
    return r->have_summary ? 0 : -1;
}

void ecp_fold(const struct ecp_result *big, const struct ecp_result *small, struct vstats *s)
{
    s->big_sent = big->transmitted;
    s->big_short = big->short_replies;
    s->big_recv = big->received - big->short_replies;
    s->big_lost = big->transmitted - big->received;
    if (big->too_long) {          /* refused here: no MTU value in esxcli's words */
        s->local = 1;
        s->local_mtu = 0;
        if (s->big_sent == 0)
            s->big_sent = 1;
    }
    if (s->big_recv > 0 && big->have_rtt) {
        s->rtt_min = big->rtt_min_ms;
        s->rtt_max = big->rtt_max_ms;
        s->rtt_sum = big->rtt_avg_ms * s->big_recv;
    }
    if (small) {
        s->small_sent = small->transmitted;
        s->small_recv = small->received - small->short_replies;
    }
}

void ecp_build(struct ecp_call *c, const struct ecp_ask *a, const char *host, int family, uint32_t data_len)
{
    memset(c, 0, sizeof *c);
    size_t k = 0, st = 0;
    c->data_len = data_len;
    c->exit_code = -1;
    c->argv[k++] = a->esxcli;
    c->argv[k++] = "network";
    c->argv[k++] = "diag";
    c->argv[k++] = "ping";
    if (a->netstack) {
        c->argv[k++] = "--netstack";
        c->argv[k++] = a->netstack;
    }
    if (a->iface) {
        c->argv[k++] = "--interface";
        c->argv[k++] = a->iface;
    }
    c->argv[k++] = family == AF_INET6 ? "--ipv6" : "--ipv4";
    c->argv[k++] = "--df";
    c->argv[k++] = "--size";
    snprintf(c->store[st], sizeof c->store[st], "%u", data_len);
    c->argv[k++] = c->store[st++];
    c->argv[k++] = "--count";
    snprintf(c->store[st], sizeof c->store[st], "%u", a->count);
    c->argv[k++] = c->store[st++];
    c->argv[k++] = "--wait";
    snprintf(c->store[st], sizeof c->store[st], "%u", a->wait_s);
    c->argv[k++] = c->store[st++];
    if (a->interval) {
        c->argv[k++] = "--interval";
        c->argv[k++] = a->interval;
    }
    if (a->ttl) {
        c->argv[k++] = "--ttl";
        snprintf(c->store[st], sizeof c->store[st], "%d", a->ttl);
        c->argv[k++] = c->store[st++];
    }
    c->argv[k++] = "--host";
    c->argv[k++] = host;
    c->argv[k] = NULL;
}

struct running {
    pid_t pid;
    int fd;
    char *buf;
    size_t len;
    double started;
    int killed;
};


/* spawn argv with stdout and stderr into a pipe; r->pid 0 (and why) when it cannot run */
static int start(const char *const *argv, char *why, size_t wlen, struct running *r)
{
    int p[2];
    memset(r, 0, sizeof *r);
    if (pipe(p) != 0)
        return -1;
    (void)fcntl(p[0], F_SETFD, FD_CLOEXEC);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, p[1], 1);
    posix_spawn_file_actions_adddup2(&fa, p[1], 2);
    posix_spawn_file_actions_addclose(&fa, p[1]);
    int e = posix_spawn(&r->pid, argv[0], &fa, NULL, (char *const *)argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(p[1]);
    if (e != 0) {
        close(p[0]);
        snprintf(why, wlen, "cannot run %s: %s", argv[0], errtext(e));
        r->pid = 0;
        return 0;                  /* this call failed; the others may still run */
    }
    r->fd = p[0];
    r->buf = xmalloc(ECP_OUT_MAX);
    r->started = mono_s();
    return 0;
}

/* read what is there; 1 at end of output */
static int take(struct running *r)
{
    char tmp[4096];
    ssize_t got = read(r->fd, tmp, sizeof tmp);
    if (got < 0)
        return errno == EINTR || errno == EAGAIN ? 0 : 1;
    if (got == 0)
        return 1;
    size_t room = ECP_OUT_MAX - r->len, n = (size_t)got < room ? (size_t)got : room;
    memcpy(r->buf + r->len, tmp, n);
    r->len += n;                   /* more than the cap is read and dropped */
    return 0;
}

/* reap it: its exit code, or -1 with why */
static int reap(struct running *r, double deadline_s, char *why, size_t wlen)
{
    close(r->fd);
    int st = 0, code = -1;
    while (waitpid(r->pid, &st, 0) < 0 && errno == EINTR)
        ;
    if (r->killed)
        snprintf(why, wlen, "did not finish within %.0f s: stopped", deadline_s);
    else if (WIFEXITED(st))
        code = WEXITSTATUS(st);
    else
        snprintf(why, wlen, "ended by signal %d", WIFSIGNALED(st) ? WTERMSIG(st) : 0);
    return code;
}

int ecp_capture(const char *const *argv, double deadline_s, char **out, size_t *len, char *why, size_t wlen)
{
    struct running r;
    *out = NULL;
    *len = 0;
    why[0] = 0;
    if (start(argv, why, wlen, &r) != 0 || r.pid == 0) {
        if (!why[0])
            snprintf(why, wlen, "cannot run %s: %s", argv[0], errtext(errno));
        return -1;
    }
    for (;;) {
        double left = r.started + deadline_s - mono_s();
        if (left <= 0 && !r.killed) {
            kill(r.pid, SIGKILL);
            r.killed = 1;
        }
        struct pollfd pf = { r.fd, POLLIN, 0 };
        int ms = left <= 0 ? 100 : (int)(left * 1000) + 1;
        if (poll(&pf, 1, ms) < 0 && errno != EINTR) {
            kill(r.pid, SIGKILL);
            r.killed = 1;
            break;
        }
        if ((pf.revents & (POLLIN | POLLHUP | POLLERR)) && take(&r))
            break;
    }
    int code = reap(&r, deadline_s, why, wlen);
    *out = r.buf;
    *len = r.len;
    return code;
}

static void finish(struct ecp_call *c, struct running *r, double deadline_s)
{
    c->exit_code = reap(r, deadline_s, c->why, sizeof c->why);
    (void)ecp_parse(r->buf, r->len, c->data_len, &c->res);
    free(r->buf);
    memset(r, 0, sizeof *r);
}

int ecp_run_all(struct ecp_call *calls, size_t n, double deadline_s)
{
    struct running run[ECP_PARALLEL];
    size_t slot_call[ECP_PARALLEL], next = 0, active = 0;
    memset(run, 0, sizeof run);
    while (next < n || active > 0) {
        for (size_t k = 0; k < ECP_PARALLEL && next < n; k++)
            if (run[k].pid == 0) {
                if (start(calls[next].argv, calls[next].why, sizeof calls[next].why, &run[k]) != 0)
                    return -1;
                slot_call[k] = next++;
                if (run[k].pid)
                    active++;
            }
        if (active == 0)
            continue;
        struct pollfd pf[ECP_PARALLEL];
        size_t who[ECP_PARALLEL], m = 0;
        double now = mono_s(), soonest = deadline_s;
        for (size_t k = 0; k < ECP_PARALLEL; k++)
            if (run[k].pid) {
                double left = run[k].started + deadline_s - now;
                if (left <= 0 && !run[k].killed) {
                    kill(run[k].pid, SIGKILL);   /* its pipe closes: EOF below */
                    run[k].killed = 1;
                }
                if (left < soonest)
                    soonest = left;
                pf[m] = (struct pollfd){ run[k].fd, POLLIN, 0 };
                who[m++] = k;
            }
        int ms = soonest <= 0 ? 100 : (int)(soonest * 1000) + 1;
        if (poll(pf, m, ms) < 0 && errno != EINTR)
            return -1;
        for (size_t i = 0; i < m; i++) {
            struct running *r = &run[who[i]];
            if (!(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            if (!take(r))
                continue;
            finish(&calls[slot_call[who[i]]], r, deadline_s);
            active--;
        }
    }
    return 0;
}

/* one call's failure as one line: esxcli's own error, or why it did not finish */
static int call_failed(const struct ecp_call *c, char *why, size_t len)
{
    if (c->res.have_summary || c->res.too_long)
        return 0;
    const char *host = "?";
    for (size_t k = 0; c->argv[k]; k++)
        if (strcmp(c->argv[k], "--host") == 0 && c->argv[k + 1])
            host = c->argv[k + 1];
    if (c->why[0])
        return why_fmt(why, len, "esxcli network diag ping --host %s: %s", host, c->why);
    if (c->res.error[0])
        return why_fmt(why, len, "esxcli network diag ping --host %s (exit %d): %s", host, c->exit_code,
                       c->res.error);
    return why_fmt(why, len, "esxcli network diag ping --host %s (exit %d): no Summary in its output "
                   "(an esxcli whose layout this tool does not know?)", host, c->exit_code);
}

/* a call's bound: esxcli's own start (seconds on a busy host), the count's intervals
 * (esxcli's default interval is taken as 1 s), the wait */
static double deadline_of(const struct ecp_ask *a, unsigned count)
{
    double iv = a->interval ? strtod(a->interval, NULL) : 1.0;
    if (!(iv >= 1.0))
        iv = 1.0;
    return 30.0 + (double)count * iv + a->wait_s;
}

int ecp_check(struct peer *peers, size_t n, const struct ecp_ask *a, char *why, size_t len)
{
    struct ecp_call *calls = xcalloc(n > 0 ? n * 2 : 1, sizeof *calls);
    char (*host)[64] = xcalloc(n ? n : 1, sizeof *host);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        net_ntop(&peers[i].addr, host[i], sizeof host[i]);
        ecp_build(&calls[m++], a, host[i], peers[i].family, probe_data_len(peers[i].family, peers[i].mtu));
        if (peers[i].small_mtu)
            ecp_build(&calls[m++], a, host[i], peers[i].family,
                      probe_data_len(peers[i].family, peers[i].small_mtu));
    }
    int rc = ecp_run_all(calls, m, deadline_of(a, a->count));
    if (rc != 0) {
        why_fmt(why, len, "cannot run esxcli: %s", errtext(errno));
    } else {
        for (size_t i = 0, k = 0; i < n && rc == 0; i++) {
            struct ecp_call *big = &calls[k++], *small = peers[i].small_mtu ? &calls[k++] : NULL;
            if (call_failed(big, why, len) || (small && call_failed(small, why, len))) {
                rc = -1;
                break;
            }
            check_sizes(&peers[i], peers[i].mtu);
            ecp_fold(&big->res, small ? &small->res : NULL, &peers[i].st);
            peers[i].verdict = verdict_decide(&peers[i].st);
        }
    }
    free(host);
    free(calls);
    return rc;
}

/* one size's call as discover.c's outcome; rounds.c's outcome_of reads probes alike */
static enum disc_outcome call_outcome(const struct ecp_result *r, unsigned *lost)
{
    unsigned full = r->received - r->short_replies;
    *lost = r->transmitted > r->received ? r->transmitted - r->received : 0;
    if (full > 0)
        return DO_PASS;
    if (r->too_long)
        return DO_LOCAL;
    if (r->short_replies > 0)
        return DO_ERROR;
    return DO_LOST;
}

struct ecp_search {                   /* one peer's search and its round */
    struct disc d;
    struct disc_try plan[DISC_MAX_PLAN];
    size_t nplan, first;              /* its sizes, and its first call in the round's list */
};

static void search_report(struct peer *pe, const struct ecp_search *x, double seconds)
{
    disc_report_set(&pe->disc, &x->d, seconds);
}

int ecp_discover(struct peer *peers, size_t n, const struct ecp_ask *a, char *why, size_t len)
{
    double t0 = mono_s();
    struct ecp_search *x = xcalloc(n ? n : 1, sizeof *x);
    char (*host)[64] = xcalloc(n ? n : 1, sizeof *host);
    struct ecp_call *calls = xcalloc((n ? n : 1) * ECP_DISC_BUDGET, sizeof *calls);
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        net_ntop(&peers[i].addr, host[i], sizeof host[i]);
        disc_init(&x[i].d, peers[i].family, PKT_MAX_MTU);
        x[i].d.budget = ECP_DISC_BUDGET;
        memset(&peers[i].disc, 0, sizeof peers[i].disc);
        peers[i].did_discover = verdict_answered(peers[i].verdict);
    }
    for (;;) {
        size_t m = 0;
        unsigned most = 1;
        for (size_t i = 0; i < n; i++) {
            x[i].nplan = 0;
            if (!peers[i].did_discover || x[i].d.state != DS_RUN)
                continue;
            x[i].nplan = disc_plan(&x[i].d, x[i].plan, ECP_DISC_BUDGET);
            x[i].first = m;
            if (x[i].nplan == 0) {
                search_report(&peers[i], &x[i], mono_s() - t0);
                continue;
            }
            for (size_t k = 0; k < x[i].nplan; k++) {
                struct ecp_ask one = *a;
                one.count = x[i].plan[k].copies < DISC_CONFIRM_MAX ? x[i].plan[k].copies : DISC_CONFIRM_MAX;
                if (one.count < 1)
                    one.count = 1;
                if (one.count > most)
                    most = one.count;
                ecp_build(&calls[m++], &one, host[i], peers[i].family,
                          probe_data_len(peers[i].family, x[i].plan[k].mtu));
            }
        }
        if (m == 0)
            break;
        if (ecp_run_all(calls, m, deadline_of(a, most)) != 0) {
            rc = why_fmt(why, len, "cannot run esxcli: %s", errtext(errno));
            break;
        }
        for (size_t i = 0; i < n && rc == 0; i++) {
            int timed_out = 0;
            for (size_t k = 0; k < x[i].nplan && rc == 0; k++) {
                const struct ecp_call *c = &calls[x[i].first + k];
                if (call_failed(c, why, len)) {
                    rc = -1;
                    break;
                }
                unsigned lost, sent = c->res.transmitted ? c->res.transmitted : 1;
                enum disc_outcome got = call_outcome(&c->res, &lost);
                x[i].d.probes += sent;
                if (got == DO_LOST && lost >= sent)
                    timed_out = 1;
                if (got == DO_PASS)
                    disc_loss_seen(&x[i].d, sent, lost);
                disc_feed(&x[i].d, x[i].plan[k].mtu, got, 0, got == DO_LOST ? lost : 0);
            }
            if (x[i].nplan)
                disc_round_done(&x[i].d, timed_out);
        }
        if (rc != 0)
            break;
    }
    for (size_t i = 0; rc == 0 && i < n; i++)
        check_weigh_discovery(&peers[i]);
    free(calls);
    free(host);
    free(x);
    return rc;
}
