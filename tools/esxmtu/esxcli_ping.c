/* The esxcli method (see esxcli_ping.h): esxcli network diag ping's plain output read
 * by field name into the prober's evidence, so the verdicts are verdict.c's own. */
#include "esxcli_ping.h"
#include "check.h"
#include "clock.h"
#include "discover.h"
#include "rounds.h"
#include "fail.h"
#include "packet.h"
#include "runcmd.h"
#include "stop.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

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
    c->count = a->count;
    c->wait_s = a->wait_s;
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

/* the calls' runs stop on a stop signal (stop.h): esxcli is killed, not waited out */
int ecp_run_all(struct ecp_call *calls, size_t n, double deadline_s)
{
    struct runcmd *run = xcalloc(n ? n : 1, sizeof *run);
    for (size_t i = 0; i < n; i++)
        run[i].argv = calls[i].argv;
    int rc = runcmd_all(run, n, ECP_PARALLEL, deadline_s, ECP_OUT_MAX, stop_requested);
    for (size_t i = 0; rc >= 0 && i < n; i++) {
        calls[i].exit_code = run[i].code;
        calls[i].stopped = run[i].stopped;
        snprintf(calls[i].why, sizeof calls[i].why, "%s", run[i].why);
        (void)ecp_parse(run[i].out, run[i].len, calls[i].data_len, &calls[i].res);
    }
    for (size_t i = 0; i < n; i++)
        free(run[i].out);
    free(run);
    return rc;
}

int ecp_capture(const char *const *argv, double deadline_s, char **out, size_t *len, char *why, size_t wlen)
{
    struct runcmd c = { .argv = argv };
    int rc = runcmd_one(&c, deadline_s, ECP_OUT_MAX, stop_requested);
    *out = c.out;
    *len = c.len;
    snprintf(why, wlen, "%s", c.why);
    if (rc < 0)
        snprintf(why, wlen, "cannot run %s: %s", argv[0], errtext(errno));
    return rc != 0 ? -1 : c.code;
}

int ecp_untrusted(const struct ecp_call *c, char *why, size_t len)
{
    const struct ecp_result *r = &c->res;
    /* a reply counted after the wait is no reply: a second of slack for esxcli's own rounding */
    double cap_ms = ((double)c->wait_s + 1) * 1000;
    if (r->transmitted > c->count)
        return why_fmt(why, len, "Transmitted %u, but --count was %u", r->transmitted, c->count);
    if (r->received > r->transmitted)
        return why_fmt(why, len, "Recieved %u of %u transmitted", r->received, r->transmitted);
    if (r->have_rtt && !(r->rtt_min_ms <= cap_ms && r->rtt_avg_ms <= cap_ms && r->rtt_max_ms <= cap_ms))
        return why_fmt(why, len, "a round-trip time over %.0f ms (min %.3g, avg %.3g, max %.3g ms), past "
                       "the --wait of %u s", cap_ms, r->rtt_min_ms, r->rtt_avg_ms, r->rtt_max_ms, c->wait_s);
    if (r->have_rtt && !(r->rtt_min_ms <= r->rtt_avg_ms + 1e-6 && r->rtt_avg_ms <= r->rtt_max_ms + 1e-6))
        return why_fmt(why, len, "round-trip min %.3f, avg %.3f, max %.3f ms out of order",
                       r->rtt_min_ms, r->rtt_avg_ms, r->rtt_max_ms);
    return 0;
}

/* one call's failure as one line: esxcli's own error, why it did not finish, or an
 * answer whose figures cannot be true (esxcli named as their source) */
static int call_failed(const struct ecp_call *c, char *why, size_t len)
{
    const char *host = "?";
    for (size_t k = 0; c->argv[k]; k++)
        if (strcmp(c->argv[k], "--host") == 0 && c->argv[k + 1])
            host = c->argv[k + 1];
    char bad[200];
    if (c->res.have_summary && ecp_untrusted(c, bad, sizeof bad))
        return why_fmt(why, len, "esxcli network diag ping --host %s answered %s: an answer this tool "
                       "cannot trust", host, bad);
    if (c->res.have_summary || c->res.too_long)
        return 0;
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
    if (rc < 0) {
        why_fmt(why, len, "cannot run esxcli: %s", errtext(errno));
    } else {
        for (size_t i = 0, k = 0; i < n && rc >= 0; i++) {
            struct ecp_call *big = &calls[k++], *small = peers[i].small_mtu ? &calls[k++] : NULL;
            if (big->stopped || (small && small->stopped)) {
                peers[i].st.pending = a->count;        /* its answer never came */
                continue;
            }
            if (call_failed(big, why, len) || (small && call_failed(small, why, len))) {
                rc = -1;
                break;
            }
            check_sizes(&peers[i], peers[i].mtu);
            ecp_fold(&big->res, small ? &small->res : NULL, &peers[i].st);
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

/* a batch of rounds.c's: each size one call with --count its copies, all at once */
static int esxcli_batch(void *ctx, struct round_try *t, size_t n, char *why, size_t len)
{
    const struct ecp_ask *a = ctx;
    struct ecp_call *calls = xcalloc(n ? n : 1, sizeof *calls);
    char (*host)[64] = xcalloc(n ? n : 1, sizeof *host);
    unsigned most = 1;
    for (size_t k = 0; k < n; k++) {
        struct ecp_ask one = *a;
        int family = t[k].dst->sa.sa_family;
        one.count = t[k].copies < 1 ? 1 : t[k].copies;
        if (one.count > most)
            most = one.count;
        net_ntop(t[k].dst, host[k], sizeof host[k]);
        ecp_build(&calls[k], &one, host[k], family, probe_data_len(family, t[k].mtu));
    }
    int rc = ecp_run_all(calls, n, deadline_of(a, most));
    if (rc < 0)
        rc = why_fmt(why, len, "cannot run esxcli: %s", errtext(errno));
    for (size_t k = 0; rc == 0 && k < n; k++) {
        const struct ecp_call *c = &calls[k];
        if (call_failed(c, why, len)) {
            rc = -1;
            break;
        }
        t[k].got = call_outcome(&c->res, &t[k].lost);
        t[k].info = 0;               /* esxcli's words hold no MTU */
        t[k].sent = c->res.transmitted ? c->res.transmitted : 1;
        t[k].router_set = 0;         /* nor a router's too-big */
    }
    free(host);
    free(calls);
    return rc;
}

void ecp_transport(struct rounds_transport *tp, const struct ecp_ask *a)
{
    /* every peer's round in one batch: the calls' own runner bounds what runs at once */
    *tp = (struct rounds_transport){ SIZE_MAX, ECP_DISC_BUDGET, esxcli_batch, (void *)a };
}
