/* Value parsers for the command line (iperf3 suffixes), and defaults. */
#include "options.h"
#include "args.h"

#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

void opts_defaults(struct perf_opts *o)
{
    memset(o, 0, sizeof *o);
    o->port = 5201;
    o->family = AF_UNSPEC;
    o->time = 10;
    o->interval = 1.0;
    o->parallel = 1;
    o->connect_timeout_ms = -1;
    o->pacing_timer = 1000;
    o->server_affinity = -1;
    o->format = 'a';
    o->time_skew = 10;
    o->control_timeout_ms = 10000;
}

int opt_parse_size(const char *s, int64_t min, int64_t max, int64_t *out, const char **why)
{
    uint64_t v;
    if (parse_bytes(s, (uint64_t)max, &v, why) < 0)
        return -1;
    if ((int64_t)v < min) {
        *why = "out of range";
        return -1;
    }
    *out = (int64_t)v;
    return 0;
}

int opt_parse_rate(const char *s, uint64_t *bps, int64_t *burst, const char **why)
{
    char buf[64];
    const char *slash = strchr(s, '/');
    size_t n = slash ? (size_t)(slash - s) : strlen(s);
    if (n == 0 || n >= sizeof buf) {
        *why = "not a rate";
        return -1;
    }
    memcpy(buf, s, n);
    buf[n] = '\0';
    if (parse_rate(buf, bps, why) < 0)
        return -1;
    *burst = 0;
    if (slash) {
        uint64_t b;
        if (parse_u64(slash + 1, 1, 1000, &b, why) < 0)
            return -1;
        *burst = (int64_t)b;
    }
    return 0;
}

/* split a comma list; each item goes to fn */
static int each_item(const char *s, int (*fn)(const char *, void *), void *ctx, const char **why)
{
    char buf[256];
    size_t len = strlen(s);
    if (len == 0 || len >= sizeof buf) {
        *why = "empty or too long list";
        return -1;
    }
    memcpy(buf, s, len + 1);
    char *save = NULL;
    int count = 0;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (fn(t, ctx) < 0)
            return -1;
        count++;
    }
    if (!count) {
        *why = "empty list";
        return -1;
    }
    return 0;
}

struct list_ctx { int64_t *out; int *n; const char **why; };

static int push(struct list_ctx *c, int64_t v)
{
    if (*c->n >= SWEEP_MAX) {
        *c->why = "more than 32 values";
        return -1;
    }
    c->out[(*c->n)++] = v;
    return 0;
}

static int count_item(const char *t, void *p)
{
    struct list_ctx *c = p;
    uint64_t a, b;
    const char *dash = strchr(t, '-');
    if (!dash) {
        if (parse_u64(t, 1, 128, &a, c->why) < 0)
            return -1;
        return push(c, (int64_t)a);
    }
    char lo[32];
    size_t n = (size_t)(dash - t);
    if (n == 0 || n >= sizeof lo) {
        *c->why = "not a range";
        return -1;
    }
    memcpy(lo, t, n);
    lo[n] = '\0';
    if (parse_u64(lo, 1, 128, &a, c->why) < 0 || parse_u64(dash + 1, 1, 128, &b, c->why) < 0)
        return -1;
    if (b < a) {
        *c->why = "range end below its start";
        return -1;
    }
    for (uint64_t v = a; v <= b; v++)
        if (push(c, (int64_t)v) < 0)
            return -1;
    return 0;
}

static int size_item(const char *t, void *p)
{
    struct list_ctx *c = p;
    int64_t v;
    if (opt_parse_size(t, 1024, 1 << 30, &v, c->why) < 0)
        return -1;
    return push(c, v);
}

int opt_parse_counts(const char *s, int64_t *out, int *n, const char **why)
{
    struct list_ctx c = { out, n, why };
    *n = 0;
    return each_item(s, count_item, &c, why);
}

int opt_parse_sizes(const char *s, int64_t *out, int *n, const char **why)
{
    struct list_ctx c = { out, n, why };
    *n = 0;
    return each_item(s, size_item, &c, why);
}

static int cpu_num(const char *s, size_t n, int *out)
{
    char buf[8];
    int64_t v;
    const char *why = NULL;
    if (n == 0 || n >= sizeof buf)
        return -1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    if (parse_i64(buf, 0, 1023, &v, &why) < 0)
        return -1;
    *out = (int)v;
    return 0;
}

int opt_parse_affinity(const char *s, int *cpus, int *n, int *server_cpu, const char **why)
{
    const char *comma = strchr(s, ',');
    size_t len = comma ? (size_t)(comma - s) : strlen(s);
    const char *dash = memchr(s, '-', len);
    int a, b;
    *n = 0;
    *server_cpu = -1;
    if (dash) {
        if (cpu_num(s, (size_t)(dash - s), &a) < 0 || cpu_num(dash + 1, len - (size_t)(dash - s) - 1, &b) < 0) {
            *why = "not a CPU number 0..1023";
            return -1;
        }
    } else {
        if (cpu_num(s, len, &a) < 0) {
            *why = "not a CPU number 0..1023";
            return -1;
        }
        b = a;
    }
    if (b < a || b - a >= AFFINITY_MAX) {
        *why = "range must go up and hold at most 64 CPUs";
        return -1;
    }
    for (int c = a; c <= b; c++)
        cpus[(*n)++] = c;
    if (comma && cpu_num(comma + 1, strlen(comma + 1), server_cpu) < 0) {
        *why = "the server CPU after the comma is not a number 0..1023";
        return -1;
    }
    return 0;
}
