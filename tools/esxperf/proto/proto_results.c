/* The results JSON both sides send at EXCHANGE_RESULTS: the encoder, the decoder
 * with its bounds (so what the report adds up and prints is sane), and the
 * client's read of a server's results message, which may be hostile. */
#include "proto.h"
#include "bytes.h"
#include "clock.h"
#include "fail.h"
#include "jsonr.h"
#include "jsonw.h"
#include "net.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* esxperf_evidence: evidence_table.h's rows that this side knows (iperf3 ignores
 * the key: it reads its own keys by name) */
static void evidence_encode(struct jsonw *w, const struct side_evidence *v)
{
    jw_obj(w, "esxperf_evidence");
    for (size_t i = 0; i < side_evidence_nrows; i++) {
        double x = *side_evidence_at((struct side_evidence *)v, &side_evidence_rows[i]);
        if (x >= 0)
            jw_double_prec(w, side_evidence_rows[i].name, x, 1);
    }
    jw_end(w);
}

/* the peer's esxperf_evidence, row by row: a member absent, not a number or out of
 * its row's range stays unknown; anything else in the object is ignored */
static void evidence_decode(const struct jsonr *r, struct side_evidence *v)
{
    side_evidence_init(v);
    int o = jr_find(r, 0, "esxperf_evidence");
    if (o < 0 || r->tok[o].type != JSMN_OBJECT)
        return;
    for (size_t i = 0; i < side_evidence_nrows; i++) {
        const struct side_evidence_row *row = &side_evidence_rows[i];
        int m = jr_find(r, o, row->name);
        double x;
        if (m >= 0 && jr_double(r, m, &x) == 0 && x >= 0 && x <= row->max)
            *side_evidence_at(v, row) = x;
    }
}

/* esxperf --rr: the server's turnaround, an object iperf3 ignores; one row per member
 * makes both the encoder and the decoder, which takes it whole and in range or leaves
 * it out (n 0) */
#define RR_TURN_KEY "esxperf_rr_turnaround"
#define RR_TURN_NS_MAX 1e15      /* 11 days */
static const struct rr_turn_row {
    const char *name;
    size_t off;
    int is_double;               /* else a uint64_t */
} rr_turn_rows[] = {
    { "transactions", offsetof(struct rr_turnaround, n), 0 },
    { "mean_ns", offsetof(struct rr_turnaround, mean_ns), 1 },
    { "p50_ns", offsetof(struct rr_turnaround, p50_ns), 0 },
    { "p99_ns", offsetof(struct rr_turnaround, p99_ns), 0 },
    { "max_ns", offsetof(struct rr_turnaround, max_ns), 0 },
};
#define RR_TURN_ROWS (sizeof rr_turn_rows / sizeof rr_turn_rows[0])

static void rr_turn_encode(struct jsonw *w, const struct rr_turnaround *t)
{
    jw_obj(w, RR_TURN_KEY);
    for (size_t i = 0; i < RR_TURN_ROWS; i++) {
        const void *f = (const char *)t + rr_turn_rows[i].off;
        if (rr_turn_rows[i].is_double)
            jw_double_prec(w, rr_turn_rows[i].name, *(const double *)f, 1);
        else
            jw_uint(w, rr_turn_rows[i].name, *(const uint64_t *)f);
    }
    jw_end(w);
}

static void rr_turn_decode(const struct jsonr *r, struct rr_turnaround *t)
{
    double v[RR_TURN_ROWS];
    memset(t, 0, sizeof *t);
    int o = jr_find(r, 0, RR_TURN_KEY);
    if (o < 0 || r->tok[o].type != JSMN_OBJECT)
        return;
    for (size_t i = 0; i < RR_TURN_ROWS; i++) {
        int k = jr_find(r, o, rr_turn_rows[i].name);
        if (k < 0 || jr_double(r, k, &v[i]) < 0 || v[i] < 0 || v[i] > RR_TURN_NS_MAX)
            return;
    }
    for (size_t i = 0; i < RR_TURN_ROWS; i++) {
        void *f = (char *)t + rr_turn_rows[i].off;
        if (rr_turn_rows[i].is_double)
            *(double *)f = v[i];
        else
            *(uint64_t *)f = (uint64_t)v[i];
    }
}

char *results_encode(const struct test_results *r, size_t *len)
{
    struct jsonw w;
    jw_init(&w, 0);
    jw_obj(&w, NULL);
    jw_double(&w, "cpu_util_total", r->cpu_total);
    jw_double(&w, "cpu_util_user", r->cpu_user);
    jw_double(&w, "cpu_util_system", r->cpu_system);
    jw_int(&w, "sender_has_retransmits", r->sender_has_retransmits);
    if (r->congestion_used[0])
        jw_str(&w, "congestion_used", r->congestion_used);
    if (r->thread_cpu_demand >= 0)
        jw_double_prec(&w, "esxperf_thread_cpu_demand", r->thread_cpu_demand, 1);
    evidence_encode(&w, &r->ev);
    if (r->rr_turn.n)
        rr_turn_encode(&w, &r->rr_turn);
    jw_arr(&w, "streams");
    for (int i = 0; i < r->nstreams; i++) {
        const struct stream_result *s = &r->streams[i];
        jw_obj(&w, NULL);
        jw_int(&w, "id", s->id);
        jw_int(&w, "bytes", s->bytes);
        jw_int(&w, "retransmits", s->retransmits);
        jw_double(&w, "jitter", s->jitter);
        jw_int(&w, "errors", s->errors);
        jw_int(&w, "omitted_errors", s->omitted_errors);
        jw_int(&w, "packets", s->packets);
        jw_int(&w, "omitted_packets", s->omitted_packets);
        jw_double(&w, "start_time", s->start_time);
        jw_double(&w, "end_time", s->end_time);
        jw_end(&w);
    }
    jw_end(&w);
    if (r->server_output_json)
        jw_raw(&w, "server_output_json", r->server_output_json);
    if (r->server_output_text)
        jw_str(&w, "server_output_text", r->server_output_text);
    jw_end(&w);
    return jw_take(&w, RESULTS_MAX, len);
}

void results_free(struct test_results *r)
{
    free(r->server_output_text);
    free(r->server_output_json);
    r->server_output_text = r->server_output_json = NULL;
}

const struct stream_result *results_find(const struct test_results *r, int id)
{
    for (int i = 0; i < r->nstreams; i++)
        if (r->streams[i].id == id)
            return &r->streams[i];
    return NULL;
}

static int get_num(const struct jsonr *r, int obj, const char *key, int required, double *out)
{
    int v = jr_find(r, obj, key);
    if (v < 0)
        return required ? -1 : 0;
    return jr_double(r, v, out);
}

static int get_i64(const struct jsonr *r, int obj, const char *key, int required, int64_t *out)
{
    int v = jr_find(r, obj, key);
    if (v < 0)
        return required ? -1 : 0;
    return jr_int(r, v, out);
}

/* iperf3 3.12 writes -1 through an unsigned cast: 18446744073709551615 */
static int get_i64_or_m1(const struct jsonr *r, int obj, const char *key, int64_t *out)
{
    double d;
    if (get_i64(r, obj, key, 1, out) == 0)
        return 0;
    int v = jr_find(r, obj, key);
    if (v >= 0 && jr_double(r, v, &d) == 0 && d == 18446744073709551616.0) {
        *out = -1;
        return 0;
    }
    return -1;
}

static const char *parse_why(int rc)
{
    switch (rc) {
    case JR_ENOMEM: return "results have more JSON tokens than our limit (1048576)";
    case JR_EDEPTH: return "results are JSON nested deeper than 16 levels";
    case JR_EPART: return "results are truncated JSON";
    case JR_ETOP: return "results are not a JSON object";
    default: return "results are not valid JSON";
    }
}

static int count_ok(int64_t v)
{
    return v >= 0 && v <= RESULTS_COUNT_MAX;
}

static int seconds_ok(double v)
{
    return v >= 0 && v <= RESULTS_SECONDS_MAX;
}

/* one element of the streams array into s; 0, or -1 with *why */
static int stream_decode(const struct jsonr *r, int o, struct stream_result *s, const char **why)
{
    int64_t id;
    if (get_i64(r, o, "id", 1, &id) < 0 || get_i64(r, o, "bytes", 1, &s->bytes) < 0 ||
        get_i64_or_m1(r, o, "retransmits", &s->retransmits) < 0 ||
        get_num(r, o, "jitter", 1, &s->jitter) < 0 ||
        get_i64(r, o, "errors", 1, &s->errors) < 0 ||
        get_i64(r, o, "packets", 1, &s->packets) < 0 ||
        get_i64(r, o, "omitted_errors", 0, &s->omitted_errors) < 0 ||
        get_i64(r, o, "omitted_packets", 0, &s->omitted_packets) < 0 ||
        get_num(r, o, "start_time", 0, &s->start_time) < 0 ||
        get_num(r, o, "end_time", 0, &s->end_time) < 0) {
        *why = "a results stream lacks a field or has a wrong type";
        return -1;
    }
    if (id < 1 || id > 4 * MAX_STREAMS) {
        *why = "a results stream id is out of range (1..512)";
        return -1;
    }
    if (!count_ok(s->bytes) || !count_ok(s->errors) || !count_ok(s->packets) ||
        !count_ok(s->omitted_errors) || !count_ok(s->omitted_packets) ||
        (s->retransmits != -1 && !count_ok(s->retransmits))) {
        *why = "a results stream has a count out of range (0..2^53)";
        return -1;
    }
    /* an end before 1 us is no test: it would make the rate infinite */
    if (!seconds_ok(s->jitter) || !seconds_ok(s->start_time) || !seconds_ok(s->end_time) ||
        (s->end_time > 0 && s->end_time < 1e-6)) {
        *why = "a results stream has a jitter or time out of range (0..1e7 s)";
        return -1;
    }
    s->id = (int)id;
    return 0;
}

/* the keys only an esxperf peer sends: out of range or of the wrong type each is
 * unknown, not an error */
static void esxperf_keys_decode(const struct jsonr *r, struct test_results *res)
{
    double dem;
    res->thread_cpu_demand = -1;
    if (jr_find(r, 0, "esxperf_thread_cpu_demand") >= 0 &&
        get_num(r, 0, "esxperf_thread_cpu_demand", 1, &dem) == 0 && dem >= 0 && dem <= RESULTS_CPU_MAX)
        res->thread_cpu_demand = dem;
    evidence_decode(r, &res->ev);
    rr_turn_decode(r, &res->rr_turn);
}

/* --get-server-output: the server's text (a string) or JSON (an object), copied */
static int server_output_decode(const struct jsonr *r, struct test_results *res, const char **why)
{
    int v;
    if ((v = jr_find(r, 0, "server_output_text")) >= 0) {
        size_t cap = (size_t)(r->tok[v].end - r->tok[v].start) + 1;
        res->server_output_text = xmalloc(cap);
        if (jr_str(r, v, res->server_output_text, cap) < 0) {
            *why = "server_output_text is not a string";
            return -1;
        }
    }
    if ((v = jr_find(r, 0, "server_output_json")) >= 0) {
        if (r->tok[v].type != JSMN_OBJECT) {
            *why = "server_output_json is not an object";
            return -1;
        }
        size_t sz = (size_t)(r->tok[v].end - r->tok[v].start);
        res->server_output_json = xmalloc(sz + 1);
        memcpy(res->server_output_json, r->js + r->tok[v].start, sz);
        res->server_output_json[sz] = '\0';
    }
    return 0;
}

int results_decode(const char *js, size_t len, struct test_results *res, const char **why)
{
    memset(res, 0, sizeof *res);
    side_evidence_init(&res->ev);
    res->thread_cpu_demand = -1;
    if (len == 0 || len > RESULTS_MAX) {
        *why = "results empty or larger than our limit";
        return -1;
    }
    /* calloc'd pages that jsmn does not reach are never touched: a small message
     * costs a few tokens of memory, the worst one RESULTS_TOKENS_MAX of them */
    int max = len / 2 + 8 < RESULTS_TOKENS_MAX ? (int)(len / 2 + 8) : RESULTS_TOKENS_MAX;
    jsmntok_t *tok = xcalloc((size_t)max, sizeof *tok);
    struct jsonr r;
    int64_t shr;
    int rc = jr_parse(&r, js, len, tok, max);
    if (rc != JR_OK) {
        *why = parse_why(rc);
        goto bad;
    }
    if (get_num(&r, 0, "cpu_util_total", 1, &res->cpu_total) < 0 ||
        get_num(&r, 0, "cpu_util_user", 1, &res->cpu_user) < 0 ||
        get_num(&r, 0, "cpu_util_system", 1, &res->cpu_system) < 0 ||
        get_i64_or_m1(&r, 0, "sender_has_retransmits", &shr) < 0 || shr < -1 || shr > 1) {
        *why = "results lack CPU figures or sender_has_retransmits, or have wrong types";
        goto bad;
    }
    if (res->cpu_total < 0 || res->cpu_total > RESULTS_CPU_MAX || res->cpu_user < 0 ||
        res->cpu_user > RESULTS_CPU_MAX || res->cpu_system < 0 || res->cpu_system > RESULTS_CPU_MAX) {
        *why = "results have a CPU figure out of range (0..100000 %)";
        goto bad;
    }
    res->sender_has_retransmits = (int)shr;
    esxperf_keys_decode(&r, res);
    int v = jr_find(&r, 0, "congestion_used");
    if (v >= 0 && jr_str(&r, v, res->congestion_used, sizeof res->congestion_used) < 0) {
        *why = "results congestion_used has the wrong type";
        goto bad;
    }
    int arr = jr_find(&r, 0, "streams");
    int n = arr >= 0 ? jr_arr_len(&r, arr) : -1;
    if (n < 0) {
        *why = "results lack a streams array";
        goto bad;
    }
    if (n > 2 * MAX_STREAMS) {
        *why = "results have more streams than a test can have (256)";
        goto bad;
    }
    /* the elements one after the other (jr_arr_at would walk from the start each time) */
    for (int k = 0, o = arr + 1; k < n; k++, o = jr_skip(&r, o)) {
        if (stream_decode(&r, o, &res->streams[k], why) < 0)
            goto bad;
        res->nstreams = k + 1;
    }
    if (server_output_decode(&r, res, why) < 0)
        goto bad;
    free(tok);
    return 0;
bad:
    free(tok);
    results_free(res);
    return -1;
}

int ctl_recv_results(int fd, uint64_t timeout_ns, struct test_results *r, char *why,
                     size_t whylen)
{
    unsigned char hdr[4];
    unsigned secs = (unsigned)(timeout_ns / NS_PER_SEC);
    memset(r, 0, sizeof *r);
    if (net_read_full(fd, hdr, 4, mono_ns() + timeout_ns) < 0) {
        int e = errno;
        if (e == ETIMEDOUT)
            snprintf(why, whylen, "the server sent no results within %u s", secs);
        else if (e == ECONNRESET || e == EPIPE)
            snprintf(why, whylen, "the server closed the control connection instead of "
                     "sending its results");
        else
            snprintf(why, whylen, "cannot read the server's results: %s", errtext(e));
        errno = e;
        return -1;
    }
    uint32_t n = load_be32(hdr);
    if (n == 0 || n > RESULTS_MAX) {
        snprintf(why, whylen, "the server announced a results message of length %lu (%s)",
                 (unsigned long)n, n ? "more than our 8 MiB limit" : "empty");
        errno = EMSGSIZE;
        return -1;
    }
    uint64_t body_ns = timeout_ns + (uint64_t)(n / RESULTS_BODY_BPS) * NS_PER_SEC;
    char *buf = xmalloc((size_t)n + 1);
    size_t got = 0;
    if (net_read_count(fd, buf, n, mono_ns() + body_ns, &got) < 0) {
        int e = errno;
        free(buf);
        if (e == ETIMEDOUT)
            snprintf(why, whylen, "the server sent %zu of the %lu bytes of its results, "
                     "then nothing more within %llu s", got, (unsigned long)n,
                     (unsigned long long)(body_ns / NS_PER_SEC));
        else
            snprintf(why, whylen, "the server sent %zu of the %lu bytes of its results, "
                     "then %s", got, (unsigned long)n,
                     e == ECONNRESET ? "closed the control connection" : errtext(e));
        errno = e;
        return -1;
    }
    buf[n] = '\0';
    const char *rwhy = NULL;
    int rc = results_decode(buf, n, r, &rwhy);
    free(buf);
    if (rc < 0) {
        snprintf(why, whylen, "the server's results are not valid: %s", rwhy);
        errno = EPROTO;
        return -1;
    }
    return 0;
}
