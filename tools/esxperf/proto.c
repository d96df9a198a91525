/* iperf3 control protocol: cookie, state bytes, framing, params and results JSON. */
#include "proto.h"
#include "bytes.h"
#include "clock.h"
#include "jsonr.h"
#include "jsonw.h"
#include "net.h"
#include "fail.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

static const char cookie_alphabet[] = "abcdefghijklmnopqrstuvwxyz234567";

const char *ctl_state_name(int st)
{
    switch (st) {
    case ST_TEST_START: return "TEST_START";
    case ST_TEST_RUNNING: return "TEST_RUNNING";
    case ST_TEST_END: return "TEST_END";
    case ST_PARAM_EXCHANGE: return "PARAM_EXCHANGE";
    case ST_CREATE_STREAMS: return "CREATE_STREAMS";
    case ST_SERVER_TERMINATE: return "SERVER_TERMINATE";
    case ST_CLIENT_TERMINATE: return "CLIENT_TERMINATE";
    case ST_EXCHANGE_RESULTS: return "EXCHANGE_RESULTS";
    case ST_DISPLAY_RESULTS: return "DISPLAY_RESULTS";
    case ST_IPERF_DONE: return "IPERF_DONE";
    case ST_ACCESS_DENIED: return "ACCESS_DENIED";
    case ST_SERVER_ERROR: return "SERVER_ERROR";
    default: return "unknown state";
    }
}

/* random bytes: getrandom (Linux 3.17+), else /dev/urandom (older ESXi) */
static void random_bytes(unsigned char *buf, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = getrandom(buf + got, n - got, 0);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        got += (size_t)r;
    }
    if (got == n)
        return;
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        die(EXIT_USAGE, "cannot read /dev/urandom: %s (check the device node)", errtext(errno));
    while (got < n) {
        ssize_t r = read(fd, buf + got, n - got);
        if (r <= 0) {
            if (r < 0 && errno == EINTR)
                continue;
            die(EXIT_USAGE, "cannot read /dev/urandom: short read");
        }
        got += (size_t)r;
    }
    close(fd);
}

void proto_make_cookie(char cookie[COOKIE_SIZE])
{
    unsigned char rnd[COOKIE_SIZE - 1];
    random_bytes(rnd, sizeof rnd);
    for (size_t i = 0; i < sizeof rnd; i++)
        cookie[i] = cookie_alphabet[rnd[i] & 31];
    cookie[COOKIE_SIZE - 1] = '\0';
}

int proto_cookie_valid(const char *buf, size_t n)
{
    if (n != COOKIE_SIZE || buf[COOKIE_SIZE - 1] != '\0')
        return 0;
    for (size_t i = 0; i < COOKIE_SIZE - 1; i++)
        if (!buf[i] || !strchr(cookie_alphabet, buf[i]))
            return 0;
    return 1;
}

void proto_frame_header(unsigned char hdr[4], uint32_t len)
{
    store_be32(hdr, len);
}

int proto_frame_len(const unsigned char hdr[4], uint32_t max, uint32_t *len)
{
    uint32_t v = load_be32(hdr);
    if (v == 0 || v > max)
        return -1;
    *len = v;
    return 0;
}

/* ---- params */

void params_defaults(struct test_params *p)
{
    memset(p, 0, sizeof *p);
    p->time = 10;
    p->parallel = 1;
    p->pacing_timer = 1000;
    p->server_affinity = -1;
}

char *params_encode(const struct test_params *p, size_t *len)
{
    struct jsonw w;
    jw_init(&w, 0);
    jw_obj(&w, NULL);
    jw_bool(&w, p->udp ? "udp" : "tcp", 1);
    if (p->reverse)
        jw_bool(&w, "reverse", 1);
    if (p->bidir)
        jw_bool(&w, "bidirectional", 1);
    if (p->nodelay)
        jw_bool(&w, "nodelay", 1);
    jw_int(&w, "omit", p->omit);
    jw_int(&w, "time", p->time);
    jw_int(&w, "num", p->num);
    jw_int(&w, "blockcount", p->blockcount);
    if (p->mss)
        jw_int(&w, "MSS", p->mss);
    jw_int(&w, "parallel", p->parallel);
    jw_int(&w, "len", p->len);
    if (p->window)
        jw_int(&w, "window", p->window);
    if (p->bandwidth)
        jw_int(&w, "bandwidth", p->bandwidth);
    if (p->fqrate)
        jw_int(&w, "fqrate", p->fqrate);
    jw_int(&w, "pacing_timer", p->pacing_timer);
    if (p->burst)
        jw_int(&w, "burst", p->burst);
    if (p->tos)
        jw_int(&w, "TOS", p->tos);
    if (p->flowlabel)
        jw_int(&w, "flowlabel", p->flowlabel);
    if (p->server_affinity >= 0)
        jw_int(&w, "server_affinity", p->server_affinity);
    if (p->title[0])
        jw_str(&w, "title", p->title);
    if (p->extra_data[0])
        jw_str(&w, "extra_data", p->extra_data);
    if (p->congestion[0])
        jw_str(&w, "congestion", p->congestion);
    if (p->get_server_output)
        jw_int(&w, "get_server_output", 1);
    if (p->udp_counters_64bit)
        jw_int(&w, "udp_counters_64bit", 1);
    if (p->repeating_payload)
        jw_int(&w, "repeating_payload", 1);
    if (p->zerocopy)
        jw_int(&w, "zerocopy", 1);
    if (p->dont_fragment)
        jw_int(&w, "dont_fragment", 1);
    if (p->skip_rx_copy)
        jw_int(&w, "skip_rx_copy", 1);
    if (p->authtoken[0])
        jw_str(&w, "authtoken", p->authtoken);
    jw_str(&w, "client_version", p->client_version[0] ? p->client_version : "3.12");
    jw_end(&w);
    return jw_take(&w, PARAMS_MAX, len);
}

struct num_key { const char *key; size_t off; int64_t min, max; };
#define PK(k, field, lo, hi) { k, offsetof(struct test_params, field), lo, hi }
static const struct num_key num_keys[] = {
    PK("omit", omit, 0, 86400),
    PK("time", time, 0, 86400 * 7),
    PK("num", num, 0, INT64_MAX),
    PK("blockcount", blockcount, 0, INT64_MAX),
    PK("parallel", parallel, 1, MAX_STREAMS),
    PK("len", len, 0, TCP_LEN_MAX),
    PK("window", window, 0, 1 << 30),
    PK("MSS", mss, 0, 65535),
    PK("bandwidth", bandwidth, 0, INT64_MAX),
    PK("fqrate", fqrate, 0, INT64_MAX),
    PK("pacing_timer", pacing_timer, 0, 10000000),
    PK("burst", burst, 0, 1000),
    PK("TOS", tos, 0, 255),
    PK("flowlabel", flowlabel, 0, 0xfffff),
    PK("server_affinity", server_affinity, -1, 1023),
};
struct flag_key { const char *key; size_t off; int is_bool; };
#define FK(k, field, b) { k, offsetof(struct test_params, field), b }
static const struct flag_key flag_keys[] = {
    FK("udp", udp, 1), FK("reverse", reverse, 1), FK("bidirectional", bidir, 1),
    FK("nodelay", nodelay, 1),
    FK("get_server_output", get_server_output, 0),
    FK("udp_counters_64bit", udp_counters_64bit, 0),
    FK("repeating_payload", repeating_payload, 0), FK("zerocopy", zerocopy, 0),
    FK("dont_fragment", dont_fragment, 0), FK("skip_rx_copy", skip_rx_copy, 0),
};
struct str_key { const char *key; size_t off, cap; };
#define SK(k, field) { k, offsetof(struct test_params, field), sizeof(((struct test_params *)0)->field) }
static const struct str_key str_keys[] = {
    SK("title", title), SK("extra_data", extra_data), SK("congestion", congestion),
    SK("client_version", client_version), SK("authtoken", authtoken),
};

/* flags: iperf3 sends true for some and 1 for others; accept a bool or 0/1 */
static int get_flag(const struct jsonr *r, int v, int *out)
{
    int64_t n;
    if (jr_bool(r, v, out) == 0)
        return 0;
    if (jr_int(r, v, &n) == 0 && (n == 0 || n == 1)) {
        *out = (int)n;
        return 0;
    }
    return -1;
}

int params_decode(const char *js, size_t len, struct test_params *p, const char **why)
{
    params_defaults(p);
    if (len == 0 || len > PARAMS_MAX) {
        *why = "parameters larger than 8 KiB or empty";
        return -1;
    }
    int max = (int)(len / 2 + 8);
    jsmntok_t *tok = xcalloc((size_t)max, sizeof *tok);
    struct jsonr r;
    int rc = jr_parse(&r, js, len, tok, max);
    if (rc != JR_OK) {
        *why = rc == JR_EDEPTH ? "parameters are JSON nested too deeply"
                               : "parameters are not a JSON object";
        goto bad;
    }
    int v, tcp = 0, sctp = 0;
    if ((v = jr_find(&r, 0, "tcp")) >= 0 && get_flag(&r, v, &tcp) < 0) {
        *why = "parameter tcp has the wrong type";
        goto bad;
    }
    if ((v = jr_find(&r, 0, "sctp")) >= 0 && (get_flag(&r, v, &sctp) < 0 || sctp)) {
        *why = "SCTP is not supported";
        goto bad;
    }
    for (size_t i = 0; i < ARRAY_SIZE(flag_keys); i++) {
        if ((v = jr_find(&r, 0, flag_keys[i].key)) < 0)
            continue;
        int f;
        if (get_flag(&r, v, &f) < 0) {
            *why = "a flag parameter has the wrong type";
            goto bad;
        }
        *(int *)((char *)p + flag_keys[i].off) = f;
    }
    for (size_t i = 0; i < ARRAY_SIZE(num_keys); i++) {
        if ((v = jr_find(&r, 0, num_keys[i].key)) < 0)
            continue;
        int64_t n;
        if (jr_int(&r, v, &n) < 0) {
            *why = "a number parameter has the wrong type";
            goto bad;
        }
        if (n < num_keys[i].min || n > num_keys[i].max) {
            *why = "a number parameter is out of range";
            goto bad;
        }
        *(int64_t *)((char *)p + num_keys[i].off) = n;
    }
    for (size_t i = 0; i < ARRAY_SIZE(str_keys); i++) {
        if ((v = jr_find(&r, 0, str_keys[i].key)) < 0)
            continue;
        if (jr_str(&r, v, (char *)p + str_keys[i].off, str_keys[i].cap) < 0) {
            *why = "a string parameter has the wrong type or is too long";
            goto bad;
        }
    }
    if (tcp && p->udp) {
        *why = "parameters ask for both TCP and UDP";
        goto bad;
    }
    if (p->reverse && p->bidir) {
        *why = "parameters ask for both reverse and bidirectional";
        goto bad;
    }
    if (p->udp && p->len && (p->len < UDP_LEN_MIN || p->len > UDP_LEN_MAX)) {
        *why = "UDP block size out of range (16..65507)";
        goto bad;
    }
    free(tok);
    return 0;
bad:
    free(tok);
    return -1;
}

/* ---- results */

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

int results_decode(const char *js, size_t len, struct test_results *res, const char **why)
{
    memset(res, 0, sizeof *res);
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
    if ((v = jr_find(&r, 0, "server_output_text")) >= 0) {
        size_t cap = (size_t)(r.tok[v].end - r.tok[v].start) + 1;
        res->server_output_text = xmalloc(cap);
        if (jr_str(&r, v, res->server_output_text, cap) < 0) {
            *why = "server_output_text is not a string";
            goto bad;
        }
    }
    if ((v = jr_find(&r, 0, "server_output_json")) >= 0) {
        if (r.tok[v].type != JSMN_OBJECT) {
            *why = "server_output_json is not an object";
            goto bad;
        }
        size_t sz = (size_t)(r.tok[v].end - r.tok[v].start);
        res->server_output_json = xmalloc(sz + 1);
        memcpy(res->server_output_json, js + r.tok[v].start, sz);
        res->server_output_json[sz] = '\0';
    }
    free(tok);
    return 0;
bad:
    free(tok);
    results_free(res);
    return -1;
}

/* ---- socket I/O */

int ctl_send_state(int fd, int st, uint64_t deadline_ns)
{
    signed char b = (signed char)st;
    return net_write_full(fd, &b, 1, deadline_ns);
}

int ctl_recv_state(int fd, int *st, uint64_t deadline_ns)
{
    signed char b;
    if (net_read_full(fd, &b, 1, deadline_ns) < 0)
        return -1;
    *st = b;
    return 0;
}

int ctl_send_json(int fd, const char *js, size_t len, uint64_t deadline_ns)
{
    unsigned char hdr[4];
    if (len > UINT32_MAX) {
        errno = EMSGSIZE;
        return -1;
    }
    proto_frame_header(hdr, (uint32_t)len);
    if (net_write_full(fd, hdr, 4, deadline_ns) < 0)
        return -1;
    return net_write_full(fd, js, len, deadline_ns);
}

int ctl_recv_json(int fd, uint32_t max, char **js, size_t *len, uint64_t deadline_ns)
{
    unsigned char hdr[4];
    uint32_t n;
    if (net_read_full(fd, hdr, 4, deadline_ns) < 0)
        return -1;
    if (proto_frame_len(hdr, max, &n) < 0) {
        errno = EMSGSIZE;
        return -1;
    }
    char *buf = xmalloc((size_t)n + 1);
    if (net_read_full(fd, buf, n, deadline_ns) < 0) {
        int e = errno;
        free(buf);
        errno = e;
        return -1;
    }
    buf[n] = '\0';
    *js = buf;
    *len = n;
    return 0;
}

/* ---- what the client reads from the server */

int ctl_recv_server_state(int fd, uint64_t deadline_ns, struct server_state *s)
{
    memset(s, 0, sizeof *s);
    if (ctl_recv_state(fd, &s->st, deadline_ns) < 0)
        return -1;
    if (s->st != ST_SERVER_ERROR)
        return 0;
    /* the codes follow at once; 3.12 sends only the first after an auth failure */
    unsigned char b[4];
    uint64_t dl = mono_ns() + SERVER_CODE_WAIT_NS;
    for (; s->ncodes < 2; s->ncodes++) {
        if (net_read_full(fd, b, 4, dl) < 0) {
            s->code_wait = errno == ETIMEDOUT;
            break;
        }
        if (s->ncodes == 0) {
            s->ierr = (int32_t)load_be32(b);
            dl = mono_ns() + SERVER_CODE_WAIT_NS / 4;
        } else {
            s->err = (int32_t)load_be32(b);
        }
    }
    return 0;
}

/* iperf3 numbers its errors 1..~400 (1xx test, 2xx stream, 3xx timer errors) */
#define IPERF3_ERR_MAX 999
#define IPERF3_IEAUTHTEST 142
#define ERRNO_MAX 4095          /* Linux's largest errno */

static void server_error_text(const struct server_state *s, char *buf, size_t len)
{
    if (s->ncodes == 0) {
        snprintf(buf, len, "the server reported an error (SERVER_ERROR) but %s",
                 s->code_wait ? "sent no error code within 2 s"
                              : "closed the connection before its error code");
        return;
    }
    if (s->ierr == IPERF3_IEAUTHTEST) {
        snprintf(buf, len, "the server refused the test: authentication failed");
        return;
    }
    char ie[80], en[160] = "";
    snprintf(ie, sizeof ie, "iperf3 error %ld%s", (long)s->ierr,
             s->ierr < 0 || s->ierr > IPERF3_ERR_MAX ? " (not an iperf3 error number)" : "");
    if (s->ncodes == 2 && (s->err < 0 || s->err > ERRNO_MAX))
        snprintf(en, sizeof en, ", errno %ld (not an errno value)", (long)s->err);
    else if (s->ncodes == 2 && s->err > 0)
        snprintf(en, sizeof en, ", errno %ld: %s", (long)s->err, errtext((int)s->err));
    snprintf(buf, len, "the server reported an error: %s%s", ie, en);
}

void server_state_text(const struct server_state *s, int want, char *buf, size_t len)
{
    char due[64] = " during the test";
    if (want)
        snprintf(due, sizeof due, " when %s was due", ctl_state_name(want));
    switch (s->st) {
    case ST_ACCESS_DENIED:
        snprintf(buf, len, "the server is busy running a test (ACCESS_DENIED; try again later)");
        return;
    case ST_SERVER_ERROR:
        server_error_text(s, buf, len);
        return;
    case ST_SERVER_TERMINATE:
        snprintf(buf, len, "the server ended the test (SERVER_TERMINATE: it was stopped, or "
                 "this test ran past its --max-duration)");
        return;
    }
    if (strcmp(ctl_state_name(s->st), "unknown state"))
        snprintf(buf, len, "the server sent %s (%d) out of turn%s (a protocol error on its "
                 "side)", ctl_state_name(s->st), s->st, due);
    else
        snprintf(buf, len, "the server sent byte %d (0x%02x)%s, which is no iperf3 state (is "
                 "it an iperf3 server?)", s->st, (unsigned)s->st & 0xff, due);
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

/* ---- what the server reads from the client */

int ctl_recv_params(int fd, uint64_t deadline_ns, struct test_params *p, const char **why,
                    int *err)
{
    char *js = NULL;
    size_t len = 0;
    if (ctl_recv_json(fd, PARAMS_MAX, &js, &len, deadline_ns) < 0) {
        int e = errno;
        *why = e == EMSGSIZE ? "the client's parameters are empty or over 8 KiB"
             : e == ETIMEDOUT ? "no parameters from the client within --control-timeout"
                              : "cannot read the client's parameters";
        *err = e == EMSGSIZE || e == ETIMEDOUT ? e : 0;
        return -1;
    }
    int rc = params_decode(js, len, p, why);
    free(js);
    if (rc < 0)
        *err = EINVAL;
    return rc;
}
