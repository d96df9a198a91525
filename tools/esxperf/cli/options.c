/* esxperf's settings: the defaults, what each option sets (opt_sets[], one line
 * an option, read by opts_set) and the value parsers (iperf3 suffixes). What is
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
#include <stdio.h>
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
static int each_item(const char *s, int (*fn)(const char *, void *), void *ctx, const char **why)
{
    char buf[256];
    size_t len = strlen(s);
    if (len == 0 || len >= sizeof buf) {
        *why = "empty or too long list";
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

static int set_sweep_parallel(struct perf_opts *o, const char *v, char *why, size_t len)
{
    const char *w = NULL;
    if (opt_parse_counts(v, o->sweep_parallel, &o->sweep_np, &w) < 0)
        return why_fmt(why, len, "bad --sweep-parallel '%s': %s (e.g. 1-8 or 1,2,4)", v, w);
    return 0;
}

static int set_sweep_window(struct perf_opts *o, const char *v, char *why, size_t len)
{
    const char *w = NULL;
    if (opt_parse_sizes(v, o->sweep_window, &o->sweep_nw, &w) < 0)
        return why_fmt(why, len, "bad --sweep-window '%s': %s (e.g. 64K,256K,1M)", v, w);
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

enum set_kind {
    SET_FLAG,       /* int field = 1 */
    SET_STR,        /* const char * field = the value */
    SET_NUM,        /* int64_t field: a decimal number in [min, max] (iperf3: atoi) */
    SET_CNUM,       /* int64_t field: a number as C writes it, in [min, max] (strtol base 0) */
    SET_PORT,       /* uint16_t field: a number in [min, max] */
    SET_SIZE,       /* int64_t field: a number with K/M/G in [min, max] of unit (unit_atoi) */
    SET_FN,         /* its own parser */
};
struct opt_set {
    int code;               /* getopt's: the letter, or enum perf_opt_code */
    enum set_kind kind;
    size_t off;             /* the field in struct perf_opts */
    int64_t min, max;
    const char *name;       /* what the messages call it */
    const char *unit;       /* SET_SIZE: what the number counts */
    int (*fn)(struct perf_opts *o, const char *v, char *why, size_t len);
};
/* the offset of field f, which must be of type T (else the array size is -1) */
#define FIELD(f, T) (offsetof(struct perf_opts, f) + \
                     0 * sizeof(char[_Generic(((struct perf_opts *)0)->f, T: 1, default: -1)]))
#define FLAG(c, f) { c, SET_FLAG, FIELD(f, int), 0, 0, NULL, NULL, NULL }
#define STR(c, f) { c, SET_STR, FIELD(f, const char *), 0, 0, NULL, NULL, NULL }
#define NUM(c, f, lo, hi, name) { c, SET_NUM, FIELD(f, int64_t), lo, hi, name, NULL, NULL }
#define CNUM(c, f, lo, hi, name) { c, SET_CNUM, FIELD(f, int64_t), lo, hi, name, NULL, NULL }
#define PORT(c, f, name) { c, SET_PORT, FIELD(f, uint16_t), 1, 65535, name, NULL, NULL }
#define SIZE(c, f, lo, hi, name, unit) { c, SET_SIZE, FIELD(f, int64_t), lo, hi, name, unit, NULL }
#define FN(c, fn) { c, SET_FN, 0, 0, 0, NULL, NULL, fn }

static const struct opt_set opt_sets[] = {
    FLAG('s', server), FN('c', set_client), PORT('p', port, "port"), FN('f', set_format),
    FN('i', set_interval), FN('B', set_bind), FLAG('J', json), FLAG('V', verbose),
    FLAG('1', one_off), NUM('t', time, 1, 86400, "time"),
    SIZE('n', num, 1, INT64_MAX / 2, "byte count (-n)", "bytes"),
    SIZE('k', blockcount, 1, INT64_MAX / 2, "block count (-k)", "blocks"),
    FLAG('u', udp), FN('b', set_rate),
    SIZE('l', len, 1, TCP_LEN_MAX, "block size (-l)", "bytes"),
    SIZE('w', window, 1024, 1 << 30, "window (-w)", "bytes"),
    NUM('P', parallel, 1, MAX_STREAMS, "stream count (-P)"), FLAG('R', reverse),
    FLAG(O_BIDIR, bidir), NUM('O', omit, 0, 600, "omit (-O)"), NUM('M', mss, 88, 9216, "MSS (-M)"),
    FLAG('N', nodelay), STR('C', congestion), CNUM('S', tos, 0, 255, "TOS (-S)"),
    FLAG('Z', zerocopy), FLAG(O_SKIP_RX_COPY, skip_rx_copy), FN('A', set_affinity),
    STR('T', title), FN('4', set_ipv4), FN('6', set_ipv6),
    STR(O_LOGFILE, logfile), FLAG(O_FORCEFLUSH, forceflush),
    SIZE(O_CONNECT_TIMEOUT, connect_timeout_ms, 1, 3600000, "connect timeout", "ms"),
    NUM(O_IDLE_TIMEOUT, idle_timeout, 1, 86400, "idle timeout"),
    FLAG(O_GSO, get_server_output), PORT(O_CPORT, cport, "client port"),
    FLAG(O_DF, dont_fragment), NUM(O_COOLDOWN, cooldown, 0, 600, "cooldown"),
    FN(O_SWEEP_P, set_sweep_parallel), FN(O_SWEEP_W, set_sweep_window), FLAG(O_CSV, csv),
    FLAG(O_UDP64, udp64), SIZE(O_PACING, pacing_timer, 0, INT32_MAX, "pacing timer", "us"),
    STR(O_USERNAME, username), STR(O_RSA_PUB, rsa_public_key), FLAG(O_PKCS1, use_pkcs1),
    STR(O_RSA_PRIV, rsa_private_key), STR(O_USERS, authorized_users),
    NUM(O_SKEW, time_skew, 0, AUTH_SKEW_MAX, "time skew threshold"),
    FLAG(O_READABLE_KEY, allow_readable_key), FN(O_CONTROL_TIMEOUT, set_control_timeout),
    NUM(O_MAX_DURATION, max_duration, 0, 86400 * 7, "max duration"),
    /* output, run and server options of iperf3 3.17..3.22 */
    FN(O_JSON_STREAM, set_json_stream), FLAG(O_JSON_STREAM_FULL, json_stream_full),
    FN(O_TIMESTAMPS, set_timestamps), FLAG(O_REPEATING_PAYLOAD, repeating_payload),
    STR(O_EXTRA_DATA, extra_data), STR('F', file), FLAG('D', daemon), STR('I', pidfile),
    FN(O_BITRATE_LIMIT, set_bitrate_limit), FN('d', set_debug),
    FN('X', set_sctp_only), FN(O_NSTREAMS, set_sctp_only),
    /* iperf3 3.22's socket and wire options */
    NUM(O_RCV_TIMEOUT, rcv_timeout_ms, 100, 86400000, "receive timeout (--rcv-timeout, ms)"),
    NUM(O_SND_TIMEOUT, snd_timeout_ms, 0, 86400000, "send timeout (--snd-timeout, ms)"),
    FN(O_CNTL_KA, set_cntl_ka), FN(O_FQ_RATE, set_fq_rate), FN(O_NO_FQ_PACING, set_no_fq_pacing),
    FN(O_DSCP, set_dscp), FN('L', set_flowlabel), STR(O_BIND_DEV, bind_dev), FLAG('m', mptcp),
    FLAG(O_GSRO, gsro), FN(O_SCTP, set_sctp),
};

static int set_one(struct perf_opts *o, const struct opt_set *e, const char *v, char *why,
                   size_t len)
{
    char *field = (char *)o + e->off;
    const char *w = NULL;
    int64_t n;
    switch (e->kind) {
    case SET_FLAG: *(int *)field = 1; return 0;
    case SET_STR: *(const char **)field = v; return 0;
    case SET_FN: return e->fn(o, v, why, len);
    case SET_NUM:
    case SET_CNUM:
    case SET_PORT:
        if ((e->kind == SET_CNUM ? parse_cnum(v, e->min, e->max, &n, &w)
                                 : parse_i64(v, e->min, e->max, &n, &w)) < 0)
            return why_fmt(why, len, "bad %s '%s': %s (allowed %lld..%lld)", e->name, v, w,
                       (long long)e->min, (long long)e->max);
        if (e->kind == SET_PORT)
            *(uint16_t *)field = (uint16_t)n;
        else
            *(int64_t *)field = n;
        return 0;
    case SET_SIZE:
        if (opt_parse_size(v, e->min, e->max, &n, &w) < 0)
            return why_fmt(why, len, "bad %s '%s': %s (a number with K, M or G, %lld..%lld %s)",
                       e->name, v, w, (long long)e->min, (long long)e->max, e->unit);
        *(int64_t *)field = n;
        return 0;
    }
    return 1;
}

int opts_set(struct perf_opts *o, int code, const char *value, char *why, size_t len)
{
    if (code > 0 && code < O_CODE_END)
        o->given[code] = 1;
    for (size_t i = 0; i < ARRAY_SIZE(opt_sets); i++)
        if (opt_sets[i].code == code)
            return set_one(o, &opt_sets[i], value, why, len);
    return 1;
}
