/* esxperf's settings: the defaults, the option table (options_table.h's rows
 * as data for the option engine, common/args.c, which derives --help, getopt's
 * tables and what each row sets), the setters that are esxperf's own and the
 * value parsers (iperf3 suffixes). What is refused together and what is
 * ignored with a warning is options_check.c's. */
#include "options.h"
#include "rr_verdict.h"
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
    o->rr_timeout_ms = 1000;
    o->rr_role = -1;
    o->rr_idle = 2;
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
static int set_format(void *p, const char *v, char *why, size_t len)
{
    struct perf_opts *o = p;
    if (strlen(v) != 1 || !strchr("kmgtKMGTaA", v[0]))
        return why_fmt(why, len, "bad format '%s': use one of k m g t K M G T", v);
    o->format = v[0];
    return 0;
}

static int set_interval(void *p, const char *v, char *why, size_t len)
{
    struct perf_opts *o = p;
    const char *w = NULL;
    double d;
    if (parse_double(v, 0, 60, &d, &w) < 0 || (d > 0 && d < 0.1))
        return why_fmt(why, len, "bad interval '%s': 0 or 0.1..60 seconds", v);
    o->interval = d;
    return 0;
}

static int set_rate(void *p, const char *v, char *why, size_t len)
{
    struct perf_opts *o = p;
    const char *w = NULL;
    if (opt_parse_rate(v, &o->bandwidth, &o->burst, &w) < 0)
        return why_fmt(why, len, "bad bitrate '%s': %s (e.g. 100M, 1G, 10M/32)", v, w);
    o->bandwidth_set = 1;
    return 0;
}

static int set_affinity(void *p, const char *v, char *why, size_t len)
{
    struct perf_opts *o = p;
    const char *w = NULL;
    if (opt_parse_affinity(v, o->affinity, &o->naffinity, &o->server_affinity, &w) < 0)
        return why_fmt(why, len, "bad -A '%s': %s (e.g. -A 1, -A 0-3, -A 0,1)", v, w);
    return 0;
}

static int set_ipv4(void *p, const char *v, char *why, size_t len)
{
    struct perf_opts *o = p;
    (void)v, (void)why, (void)len;
    o->family = AF_INET;
    return 0;
}

static int set_ipv6(void *p, const char *v, char *why, size_t len)
{
    struct perf_opts *o = p;
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
static int set_sweep_parallel(void *p, const char *v, char *why, size_t len)
{
    struct perf_opts *o = p;
    const char *w = NULL;
    char cut[48];
    if (opt_parse_counts(v, o->sweep_parallel, &o->sweep_np, &w) < 0)
        return why_fmt(why, len, "bad --sweep-parallel '%s': %s (allowed 1..128 each, at most %d "
                       "values in %d characters: 1-8 or 1,2,4)", shown_list(v, cut, sizeof cut), w,
                       SWEEP_MAX, LIST_CHARS_MAX);
    return 0;
}

static int set_sweep_window(void *p, const char *v, char *why, size_t len)
{
    struct perf_opts *o = p;
    const char *w = NULL;
    char cut[48];
    if (opt_parse_sizes(v, o->sweep_window, &o->sweep_nw, &w) < 0)
        return why_fmt(why, len, "bad --sweep-window '%s': %s (each a number with K, M or G, "
                       "1024..1073741824 bytes, at most %d values in %d characters: 64K,256K,1M)",
                       shown_list(v, cut, sizeof cut), w, SWEEP_MAX, LIST_CHARS_MAX);
    return 0;
}

static int set_control_timeout(void *p, const char *v, char *why, size_t len)
{
    struct perf_opts *o = p;
    const char *w = NULL;
    double d;
    if (parse_double(v, 0.1, 3600, &d, &w) < 0)
        return why_fmt(why, len, "bad control timeout '%s': 0.1..3600 seconds", v);
    o->control_timeout_ms = (int64_t)(d * 1000);
    return 0;
}

/* --rr-limit TIME and --rr-role ROLE: what the --rr verdict judges against */
static int set_rr_limit(void *p, const char *v, char *why, size_t len)
{
    struct perf_opts *o = p;
    uint64_t ns;
    if (rr_limit_parse(v, &ns) < 0)
        return why_fmt(why, len, "bad --rr-limit '%s': a time of 1us..60s, e.g. 1ms, 500us, 0.2s "
                       "(a plain number is ms)", v);
    o->rr_limit_ns = (int64_t)ns;
    return 0;
}

/* --rr-load[=SEC]: a bulk transfer beside the requests, after SEC idle seconds */
static int set_rr_load(void *p, const char *v, char *why, size_t len)
{
    struct perf_opts *o = p;
    o->rr_load = 1;
    if (!v)
        return 0;
    const char *w = NULL;
    double d;
    if (parse_double(v, 1, 600, &d, &w) < 0 || d != (double)(int64_t)d)
        return why_fmt(why, len, "bad --rr-load=SEC '%s': the idle phase, 1..600 whole seconds", v);
    o->rr_idle = (int64_t)d;
    return 0;
}

static int set_rr_role(void *p, const char *v, char *why, size_t len)
{
    struct perf_opts *o = p;
    o->rr_role = rr_role_find(v);
    if (o->rr_role < 0)
        return why_fmt(why, len, "bad --rr-role '%s': one of vsan, stretched, witness, vmotion", v);
    return 0;
}

/* --json-stream: -J's document as events, one line each */
static int set_json_stream(void *p, const char *v, char *why, size_t len)
{
    struct perf_opts *o = p;
    (void)v, (void)why, (void)len;
    o->json_stream = o->json = 1;
    return 0;
}

/* --timestamps[=FMT]: iperf3's default is "%c " (the locale's date and time, a space) */
static int set_timestamps(void *p, const char *v, char *why, size_t len)
{
    struct perf_opts *o = p;
    if (v && strlen(v) > TIMESTAMP_FMT_MAX)
        return why_fmt(why, len, "bad --timestamps format: longer than %d characters",
                       TIMESTAMP_FMT_MAX);
    o->timestamps = v ? v : TIMESTAMP_FMT_DEFAULT;
    return 0;
}

/* --server-bitrate-limit RATE[/SECONDS]: rate as -b (k/m/g/t, 1000-based), averaged
 * over SECONDS (0.1..60, default 5), as iperf3 */
static int set_bitrate_limit(void *p, const char *v, char *why, size_t len)
{
    struct perf_opts *o = p;
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
static int set_debug(void *p, const char *v, char *why, size_t len)
{
    struct perf_opts *o = p;
    int64_t lvl = 4;
    const char *w = NULL;
    if (v && parse_i64(v, INT32_MIN, INT32_MAX, &lvl, &w) < 0)
        return why_fmt(why, len, "bad --debug level '%s': %s (1..4)", v, w);
    o->debug = lvl < 0 || lvl > 4 ? 4 : lvl;
    o->verbose = 1;
    return 0;
}

/* -X/--xbind and --nstreams: iperf3's SCTP options, refused by name */
static int set_sctp_only(void *p, const char *v, char *why, size_t len)
{
    (void)p, (void)v;
    return why_fmt(why, len, "-X/--xbind and --nstreams are SCTP options, and ESXi has no "
                   "SCTP: esxperf runs TCP or UDP (-u)");
}

/* ---- iperf3 3.22's socket and wire options (the values: sockopt_parse.c) */

static int set_client(void *p, const char *v, char *why, size_t len)
{
    struct perf_opts *o = p;
    const char *dev = NULL;
    if (opt_split_dev(v, o->host_part, sizeof o->host_part, &dev) < 0)
        return why_fmt(why, len, "bad -c '%s': HOST or HOST%%DEV (an interface name)", v);
    o->host = o->host_part;
    if (dev)
        o->bind_dev = dev;
    return 0;
}

static int set_bind(void *p, const char *v, char *why, size_t len)
{
    struct perf_opts *o = p;
    const char *dev = NULL;
    if (opt_split_dev(v, o->bind_part, sizeof o->bind_part, &dev) < 0)
        return why_fmt(why, len, "bad -B '%s': ADDR or ADDR%%DEV (an interface name)", v);
    o->bind = o->bind_part;
    if (dev)
        o->bind_dev = dev;
    return 0;
}

static int set_dscp(void *p, const char *v, char *why, size_t len)
{
    struct perf_opts *o = p;
    int tos;
    if (opt_parse_dscp(v, &tos) < 0)
        return why_fmt(why, len, "bad --dscp '%s': a number 0..63 (decimal, 0octal or 0xhex) "
                       "or a name: af11..af43, cs0..cs7, ef, va, lowdelay, throughput, "
                       "reliability", v);
    o->tos = tos;
    return 0;
}

static int set_flowlabel(void *p, const char *v, char *why, size_t len)
{
    struct perf_opts *o = p;
    if (opt_parse_flowlabel(v, &o->flowlabel) < 0)
        return why_fmt(why, len, "bad flow label -L '%s': 1..1048575 (0xfffff), decimal, "
                       "0octal or 0xhex", v);
    return 0;
}

static int set_cntl_ka(void *p, const char *v, char *why, size_t len)
{
    struct perf_opts *o = p;
    const char *w = NULL;
    if (opt_parse_cntl_ka(v, &o->cntl_ka_idle, &o->cntl_ka_intv, &o->cntl_ka_cnt, &w) < 0)
        return why_fmt(why, len, "bad --cntl-ka '%s': %s (e.g. --cntl-ka, --cntl-ka=30/5/3)",
                       v, w);
    o->cntl_ka = 1;
    return 0;
}

static int set_fq_rate(void *p, const char *v, char *why, size_t len)
{
    struct perf_opts *o = p;
    const char *w = NULL;
    if (parse_rate(v, &o->fqrate, &w) < 0)
        return why_fmt(why, len, "bad --fq-rate '%s': %s (bits/s with k, m, g: e.g. 500M)", v, w);
    return 0;
}

/* iperf3 3.22: deprecated, sets the fq rate back to 0 (a later --fq-rate wins) */
static int set_no_fq_pacing(void *p, const char *v, char *why, size_t len)
{
    struct perf_opts *o = p;
    (void)v, (void)why, (void)len;
    o->fqrate = 0;
    return 0;
}

static int set_sctp(void *p, const char *v, char *why, size_t len)
{
    (void)p, (void)v;
    return why_fmt(why, len, "--sctp: ESXi has no SCTP, so esxperf has none (test with TCP, "
                   "the default, or -u)");
}

/* the offset of field f, which must be of type T (else the array size is -1) */
#define FIELD(f, T) (offsetof(struct perf_opts, f) + \
                     0 * sizeof(char[_Generic(((struct perf_opts *)0)->f, T: 1, default: -1)]))
/* options_table.h's SET column. A number is refused as "bad WHAT 'V': why
 * (allowed MIN..MAX)", a size as "bad WHAT 'V': why (a number with K, M or G,
 * MIN..MAX UNIT)" */
#define MAIN .kind = OPT_MAIN
#define FLAG(f) .kind = OPT_FLAG, .off = FIELD(f, int)
#define STR(f) .kind = OPT_STR, .off = FIELD(f, const char *)
#define NUMBER(f, T, p, lo, hi, w, in, u) .kind = OPT_NUM, .off = FIELD(f, T), .size = sizeof(T), \
    .parse = p, .min = lo, .max = hi, .what = "bad " w, .intro = in, .unit = u
#define NUM(f, lo, hi, w) NUMBER(f, int64_t, parse_i64, lo, hi, w, "allowed ", NULL)
#define CNUM(f, lo, hi, w) NUMBER(f, int64_t, parse_cnum, lo, hi, w, "allowed ", NULL)
#define PORT(f, w) NUMBER(f, uint16_t, parse_i64, 1, 65535, w, "allowed ", NULL)
#define SIZE(f, lo, hi, w, u) \
    NUMBER(f, int64_t, opt_parse_size, lo, hi, w, "a number with K, M or G, ", " " u)
#define FN(f) .kind = OPT_FN, .fn = f

const struct opt_row perf_options[PERF_OPT_ROWS] = {
#define OPT(l, n, a, r, set, h) { .code = l, .letter = l, .name = n, .arg = OPT_ARG_##a, \
                                  .role = PERF_ROLE_##r, .help = h, set },
#define LONG(c, n, a, r, set, h) \
    { .code = c, .name = n, .arg = OPT_ARG_##a, .role = PERF_ROLE_##r, .help = h, set },
#define ALIAS(c, n, a, named) \
    { .code = c, .name = n, .arg = OPT_ARG_##a, .help = "", .alias = OPT_ALIAS_##named },
#define TEXT(h) { .help = h },
#include "options_table.h"
};

const char perf_usage[] =
#define OPT(letter, name, arg, role, set, help) help
#define LONG(code, name, arg, role, set, help) help
#define TEXT(help) help
#include "options_table.h"
    ;

/* how esxperf words getopt's refusals: an option as typed, and what to drop
 * from a flag given a value */
static const struct bad_option_words refusals = { 0, "", " (drop the '=...')" };
static char shorts[ARGS_SHORTS(PERF_OPT_ROWS)];
static struct option longs[PERF_OPT_ROWS + 1];
const struct args_table perf_table = {
    perf_options, PERF_OPT_ROWS, &refusals, 2048, shorts, longs,
};

const char *opts_name(int code, char *buf, size_t len)
{
    return args_name(&perf_table, code, buf, len);
}

int opts_set(struct perf_opts *o, int code, const char *value, char *why, size_t len)
{
    return args_set(&perf_table, o, o->given, code, value, why, len);
}
