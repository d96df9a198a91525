/* esxperf's settings: the defaults, the option table (options_table.h's rows
 * as data, with what each option sets, read by opts_set), what is derived from
 * it (--help, getopt_long's tables, the names messages give options) and the
 * value parsers (iperf3 suffixes). What is
 * refused together and what is ignored with a warning is options_check.c's. */
#include "options.h"
#include "args.h"
#include "iperf_units.h"
#include "auth.h"
#include "bytes.h"
#include "fail.h"
#include "proto.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

void opts_defaults(struct perf_opts *o)
{
    memset(o, 0, sizeof *o);
    o->port = 5201;
    o->family = AF_UNSPEC;
    o->interval = 1.0;
    o->connect_timeout_ms = -1;
    /* the options sent as parameters: their rows' defaults */
#define WIRE_NUM(key, field, send, copy, otype, oname, dflt, min, max, range) \
    OPTION_DEFAULT_##copy(oname, dflt)
#define OPTION_DEFAULT_OPT(oname, dflt) o->oname = dflt;
#define OPTION_DEFAULT_OWN(oname, dflt) o->oname = dflt;
#define OPTION_DEFAULT_NONE(oname, dflt)
#include "params_table.h"
#undef OPTION_DEFAULT_OPT
#undef OPTION_DEFAULT_OWN
#undef OPTION_DEFAULT_NONE
    o->log_fd = -1;
    o->format = 'a';
    o->time_skew = AUTH_SKEW_DEFAULT;
    o->control_timeout_ms = 10000;
    o->bitrate_limit_secs = 5;
    o->rcv_timeout_ms = 120000;
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

/* split a comma list; each item goes to fn. An empty item (",1", "1,,2", "1,")
 * is refused: it is a typo, not a value */
#define LIST_CHARS_MAX 255
static int each_item(const char *s, int (*fn)(const char *, void *), void *ctx, const char **why)
{
    char buf[LIST_CHARS_MAX + 1];
    size_t len = strlen(s);
    if (len == 0 || len > LIST_CHARS_MAX) {
        *why = len ? "longer than 255 characters" : "an empty list";
        return -1;
    }
    memcpy(buf, s, len + 1);
    for (char *t = buf, *next; t; t = next) {
        next = strchr(t, ',');
        if (next)
            *next++ = '\0';
        if (!*t) {
            *why = "empty item in the list (a comma at an end, or two in a row)";
            return -1;
        }
        if (fn(t, ctx) < 0)
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

/* a CPU number of -A, 0..1024 as iperf3 takes it: this side's as C writes numbers
 * (iperf3 reads them with strtol base 0), the server's decimal (iperf3: atoi) */
#define CPU_NUM_MAX 1024
static int cpu_num(const char *s, size_t n, int c_style, int *out)
{
    char buf[16];
    int64_t v;
    const char *why = NULL;
    if (n == 0 || n >= sizeof buf)
        return -1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    if ((c_style ? parse_cnum(buf, 0, CPU_NUM_MAX, &v, &why)
                 : parse_i64(buf, 0, CPU_NUM_MAX, &v, &why)) < 0)
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
        if (cpu_num(s, (size_t)(dash - s), 1, &a) < 0 ||
            cpu_num(dash + 1, len - (size_t)(dash - s) - 1, 1, &b) < 0) {
            *why = "not a CPU number 0..1024";
            return -1;
        }
    } else {
        if (cpu_num(s, len, 1, &a) < 0) {
            *why = "not a CPU number 0..1024";
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
    if (comma && cpu_num(comma + 1, strlen(comma + 1), 0, server_cpu) < 0) {
        *why = "the server CPU after the comma is not a decimal number 0..1024";
        return -1;
    }
    return 0;
}

/* ---------------------------------------------------------------- what each option sets */

/* the options whose value needs more than a range: one function each */
static int set_format(struct perf_opts *o, const char *v, char *why, size_t len)
{
    if (strlen(v) != 1 || !strchr("kmgtKMGTaA", v[0]))
        return why_fmt(why, len, "bad format '%s': use one of k m g t K M G T", v);
    o->format = v[0];
    return 0;
}

static int set_interval(struct perf_opts *o, const char *v, char *why, size_t len)
{
    const char *w = NULL;
    double d;
    if (parse_double(v, 0, 60, &d, &w) < 0 || (d > 0 && d < 0.1))
        return why_fmt(why, len, "bad interval '%s': 0 or 0.1..60 seconds", v);
    o->interval = d;
    return 0;
}

static int set_rate(struct perf_opts *o, const char *v, char *why, size_t len)
{
    const char *w = NULL;
    if (opt_parse_rate(v, &o->bandwidth, &o->burst, &w) < 0)
        return why_fmt(why, len, "bad bitrate '%s': %s (e.g. 100M, 1G, 10M/32)", v, w);
    o->bandwidth_set = 1;
    return 0;
}

static int set_affinity(struct perf_opts *o, const char *v, char *why, size_t len)
{
    const char *w = NULL;
    if (opt_parse_affinity(v, o->affinity, &o->naffinity, &o->server_affinity, &w) < 0)
        return why_fmt(why, len, "bad -A '%s': %s (e.g. -A 1, -A 0-3, -A 0,1)", v, w);
    return 0;
}

static int set_ipv4(struct perf_opts *o, const char *v, char *why, size_t len)
{
    (void)v, (void)why, (void)len;
    o->family = AF_INET;
    return 0;
}

static int set_ipv6(struct perf_opts *o, const char *v, char *why, size_t len)
{
    (void)v, (void)why, (void)len;
    o->family = AF_INET6;
    return 0;
}

/* a list as the refusal echoes it: at most 40 characters, then "..." */
static const char *shown_list(const char *v, char *buf, size_t len)
{
    if (strlen(v) <= 40)
        return v;
    snprintf(buf, len, "%.40s...", v);
    return buf;
}

/* the sweeps' refusals name the bounds as -P's and -w's do (set_one), and the list's */
static int set_sweep_parallel(struct perf_opts *o, const char *v, char *why, size_t len)
{
    const char *w = NULL;
    char cut[48];
    if (opt_parse_counts(v, o->sweep_parallel, &o->sweep_np, &w) < 0)
        return why_fmt(why, len, "bad --sweep-parallel '%s': %s (allowed 1..128 each, at most %d "
                       "values in %d characters: 1-8 or 1,2,4)", shown_list(v, cut, sizeof cut), w,
                       SWEEP_MAX, LIST_CHARS_MAX);
    return 0;
}

static int set_sweep_window(struct perf_opts *o, const char *v, char *why, size_t len)
{
    const char *w = NULL;
    char cut[48];
    if (opt_parse_sizes(v, o->sweep_window, &o->sweep_nw, &w) < 0)
        return why_fmt(why, len, "bad --sweep-window '%s': %s (each a number with K, M or G, "
                       "1024..1073741824 bytes, at most %d values in %d characters: 64K,256K,1M)",
                       shown_list(v, cut, sizeof cut), w, SWEEP_MAX, LIST_CHARS_MAX);
    return 0;
}

static int set_control_timeout(struct perf_opts *o, const char *v, char *why, size_t len)
{
    const char *w = NULL;
    double d;
    if (parse_double(v, 0.1, 3600, &d, &w) < 0)
        return why_fmt(why, len, "bad control timeout '%s': 0.1..3600 seconds", v);
    o->control_timeout_ms = (int64_t)(d * 1000);
    return 0;
}

/* --json-stream: -J's document as events, one line each */
static int set_json_stream(struct perf_opts *o, const char *v, char *why, size_t len)
{
    (void)v, (void)why, (void)len;
    o->json_stream = o->json = 1;
    return 0;
}

/* --timestamps[=FMT]: iperf3's default is "%c " (the locale's date and time, a space) */
static int set_timestamps(struct perf_opts *o, const char *v, char *why, size_t len)
{
    if (v && strlen(v) > TIMESTAMP_FMT_MAX)
        return why_fmt(why, len, "bad --timestamps format: longer than %d characters",
                       TIMESTAMP_FMT_MAX);
    o->timestamps = v ? v : TIMESTAMP_FMT_DEFAULT;
    return 0;
}

/* --server-bitrate-limit RATE[/SECONDS]: rate as -b (k/m/g/t, 1000-based), averaged
 * over SECONDS (0.1..60, default 5), as iperf3 */
static int set_bitrate_limit(struct perf_opts *o, const char *v, char *why, size_t len)
{
    char buf[64];
    const char *w = NULL, *slash = strchr(v, '/');
    size_t n = slash ? (size_t)(slash - v) : strlen(v);
    double secs = 5;
    if (n == 0 || n >= sizeof buf)
        return why_fmt(why, len, "bad --server-bitrate-limit '%s': not a rate (e.g. 1G, "
                       "500M/10)", v);
    memcpy(buf, v, n);
    buf[n] = '\0';
    if (parse_rate(buf, &o->bitrate_limit, &w) < 0)
        return why_fmt(why, len, "bad --server-bitrate-limit '%s': %s (e.g. 1G, 500M/10)", v, w);
    if (slash && parse_double(slash + 1, 0.1, 60, &secs, &w) < 0)
        return why_fmt(why, len, "bad --server-bitrate-limit '%s': the averaging time after "
                       "'/' must be 0.1..60 seconds", v);
    o->bitrate_limit_secs = secs;
    return 0;
}

/* -d/--debug[=LEVEL]: iperf3's levels 1..4 (none or a negative one: 4); esxperf
 * has no debug log of its own, so it prints what -V prints */
static int set_debug(struct perf_opts *o, const char *v, char *why, size_t len)
{
    int64_t lvl = 4;
    const char *w = NULL;
    if (v && parse_i64(v, INT32_MIN, INT32_MAX, &lvl, &w) < 0)
        return why_fmt(why, len, "bad --debug level '%s': %s (1..4)", v, w);
    o->debug = lvl < 0 || lvl > 4 ? 4 : lvl;
    o->verbose = 1;
    return 0;
}

/* -X/--xbind and --nstreams: iperf3's SCTP options, refused by name */
static int set_sctp_only(struct perf_opts *o, const char *v, char *why, size_t len)
{
    (void)o, (void)v;
    return why_fmt(why, len, "-X/--xbind and --nstreams are SCTP options, and ESXi has no "
                   "SCTP: esxperf runs TCP or UDP (-u)");
}

/* ---- iperf3 3.22's socket and wire options (the values: sockopt_parse.c) */

static int set_client(struct perf_opts *o, const char *v, char *why, size_t len)
{
    const char *dev = NULL;
    if (opt_split_dev(v, o->host_part, sizeof o->host_part, &dev) < 0)
        return why_fmt(why, len, "bad -c '%s': HOST or HOST%%DEV (an interface name)", v);
    o->host = o->host_part;
    if (dev)
        o->bind_dev = dev;
    return 0;
}

static int set_bind(struct perf_opts *o, const char *v, char *why, size_t len)
{
    const char *dev = NULL;
    if (opt_split_dev(v, o->bind_part, sizeof o->bind_part, &dev) < 0)
        return why_fmt(why, len, "bad -B '%s': ADDR or ADDR%%DEV (an interface name)", v);
    o->bind = o->bind_part;
    if (dev)
        o->bind_dev = dev;
    return 0;
}

static int set_dscp(struct perf_opts *o, const char *v, char *why, size_t len)
{
    int tos;
    if (opt_parse_dscp(v, &tos) < 0)
        return why_fmt(why, len, "bad --dscp '%s': a number 0..63 (decimal, 0octal or 0xhex) "
                       "or a name: af11..af43, cs0..cs7, ef, va, lowdelay, throughput, "
                       "reliability", v);
    o->tos = tos;
    return 0;
}

static int set_flowlabel(struct perf_opts *o, const char *v, char *why, size_t len)
{
    if (opt_parse_flowlabel(v, &o->flowlabel) < 0)
        return why_fmt(why, len, "bad flow label -L '%s': 1..1048575 (0xfffff), decimal, "
                       "0octal or 0xhex", v);
    return 0;
}

static int set_cntl_ka(struct perf_opts *o, const char *v, char *why, size_t len)
{
    const char *w = NULL;
    if (opt_parse_cntl_ka(v, &o->cntl_ka_idle, &o->cntl_ka_intv, &o->cntl_ka_cnt, &w) < 0)
        return why_fmt(why, len, "bad --cntl-ka '%s': %s (e.g. --cntl-ka, --cntl-ka=30/5/3)",
                       v, w);
    o->cntl_ka = 1;
    return 0;
}

static int set_fq_rate(struct perf_opts *o, const char *v, char *why, size_t len)
{
    const char *w = NULL;
    if (parse_rate(v, &o->fqrate, &w) < 0)
        return why_fmt(why, len, "bad --fq-rate '%s': %s (bits/s with k, m, g: e.g. 500M)", v, w);
    return 0;
}

/* iperf3 3.22: deprecated, sets the fq rate back to 0 (a later --fq-rate wins) */
static int set_no_fq_pacing(struct perf_opts *o, const char *v, char *why, size_t len)
{
    (void)v, (void)why, (void)len;
    o->fqrate = 0;
    return 0;
}

static int set_sctp(struct perf_opts *o, const char *v, char *why, size_t len)
{
    (void)o, (void)v;
    return why_fmt(why, len, "--sctp: ESXi has no SCTP, so esxperf has none (test with TCP, "
                   "the default, or -u)");
}

/* the offset of field f, which must be of type T (else the array size is -1) */
#define FIELD(f, T) (offsetof(struct perf_opts, f) + \
                     0 * sizeof(char[_Generic(((struct perf_opts *)0)->f, T: 1, default: -1)]))
/* options_table.h's SET column: kind, off, min, max, what, unit, fn */
#define MAIN SET_MAIN, 0, 0, 0, NULL, NULL, NULL
#define FLAG(f) SET_FLAG, FIELD(f, int), 0, 0, NULL, NULL, NULL
#define STR(f) SET_STR, FIELD(f, const char *), 0, 0, NULL, NULL, NULL
#define NUM(f, lo, hi, what) SET_NUM, FIELD(f, int64_t), lo, hi, what, NULL, NULL
#define CNUM(f, lo, hi, what) SET_CNUM, FIELD(f, int64_t), lo, hi, what, NULL, NULL
#define PORT(f, what) SET_PORT, FIELD(f, uint16_t), 1, 65535, what, NULL, NULL
#define SIZE(f, lo, hi, what, unit) SET_SIZE, FIELD(f, int64_t), lo, hi, what, unit, NULL
#define FN(fn) SET_FN, 0, 0, 0, NULL, NULL, fn

const struct perf_opt perf_options[PERF_OPT_ROWS] = {
#define OPT(letter, name, arg, role, set, help) \
    { PERF_ROW_OPT, letter, letter, name, PERF_ARG_##arg, PERF_ROLE_##role, help, 0, set },
#define LONG(code, name, arg, role, set, help) \
    { PERF_ROW_OPT, code, 0, name, PERF_ARG_##arg, PERF_ROLE_##role, help, 0, set },
#define ALIAS(code, name, arg, named) \
    { PERF_ROW_ALIAS, code, 0, name, PERF_ARG_##arg, PERF_ROLE_ANY, "", ALIAS_##named, MAIN },
#define TEXT(help) \
    { PERF_ROW_TEXT, 0, 0, NULL, PERF_ARG_NONE, PERF_ROLE_ANY, help, 0, MAIN },
#define ALIAS_SHOWN 0
#define ALIAS_HIDDEN 1
#include "options_table.h"
};

const char perf_usage[] =
#define OPT(letter, name, arg, role, set, help) help
#define LONG(code, name, arg, role, set, help) help
#define TEXT(help) help
#include "options_table.h"
    ;

const struct perf_opt *opts_row(int code)
{
    for (size_t i = 0; i < PERF_OPT_ROWS; i++)
        if (perf_options[i].row == PERF_ROW_OPT && perf_options[i].code == code)
            return &perf_options[i];
    return NULL;
}

const char *opts_name(int code, char *buf, size_t len)
{
    const struct perf_opt *r = opts_row(code);
    if (!r) {
        snprintf(buf, len, "?");
        return buf;
    }
    if (r->letter) {
        snprintf(buf, len, "-%c", r->letter);
        return buf;
    }
    size_t n = (size_t)snprintf(buf, len, "--%s", r->name);
    const char *sep = " (--";
    for (size_t i = 0; i < PERF_OPT_ROWS && n < len; i++) {
        if (perf_options[i].row != PERF_ROW_ALIAS || perf_options[i].code != code)
            continue;
        n += (size_t)snprintf(buf + n, len - n, "%s%s", sep, perf_options[i].name);
        sep = ", --";
    }
    if (sep[0] == ',' && n < len)
        snprintf(buf + n, len - n, ")");
    return buf;
}

void opts_getopt(const char **shorts, const struct option **longs)
{
    /* ':' first, then a letter and at most two colons per row, then the NUL */
    static char s[1 + 3 * PERF_OPT_ROWS + 1];
    static struct option l[PERF_OPT_ROWS + 1];
    static const int has_arg[] = {
        [PERF_ARG_NONE] = no_argument, [PERF_ARG_REQ] = required_argument,
        [PERF_ARG_OPTARG] = optional_argument,
    };
    if (!s[0]) {
        size_t k = 0, m = 0;
        s[k++] = ':';
        for (size_t i = 0; i < PERF_OPT_ROWS; i++) {
            const struct perf_opt *r = &perf_options[i];
            if (r->row == PERF_ROW_TEXT)
                continue;
            if (r->letter) {
                s[k++] = r->letter;
                for (int c = 0; c < (int)r->arg; c++)
                    s[k++] = ':';
            }
            l[m++] = (struct option){ r->name, has_arg[r->arg], NULL, r->code };
        }
        s[k] = '\0';
        l[m] = (struct option){ NULL, 0, NULL, 0 };
    }
    *shorts = s;
    *longs = l;
}

static int set_one(struct perf_opts *o, const struct perf_opt *e, const char *v, char *why,
                   size_t len)
{
    char *field = (char *)o + e->off;
    const char *w = NULL;
    int64_t n;
    switch (e->kind) {
    case SET_MAIN: return 1;
    case SET_FLAG: *(int *)field = 1; return 0;
    case SET_STR: *(const char **)field = v; return 0;
    case SET_FN: return e->fn(o, v, why, len);
    case SET_NUM:
    case SET_CNUM:
    case SET_PORT:
        if ((e->kind == SET_CNUM ? parse_cnum(v, e->min, e->max, &n, &w)
                                 : parse_i64(v, e->min, e->max, &n, &w)) < 0)
            return why_fmt(why, len, "bad %s '%s': %s (allowed %lld..%lld)", e->what, v, w,
                       (long long)e->min, (long long)e->max);
        if (e->kind == SET_PORT)
            *(uint16_t *)field = (uint16_t)n;
        else
            *(int64_t *)field = n;
        return 0;
    case SET_SIZE:
        if (opt_parse_size(v, e->min, e->max, &n, &w) < 0)
            return why_fmt(why, len, "bad %s '%s': %s (a number with K, M or G, %lld..%lld %s)",
                       e->what, v, w, (long long)e->min, (long long)e->max, e->unit);
        *(int64_t *)field = n;
        return 0;
    }
    return 1;
}

int opts_set(struct perf_opts *o, int code, const char *value, char *why, size_t len)
{
    if (code > 0 && code < O_CODE_END)
        o->given[code] = 1;
    const struct perf_opt *r = opts_row(code);
    return r ? set_one(o, r, value, why, len) : 1;
}
