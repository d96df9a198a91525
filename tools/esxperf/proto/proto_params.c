/* The parameter JSON the client sends (iperf3's keys, proto.h): the encoder, the
 * strict decoder with one table per kind of key (numbers with their ranges, flags,
 * strings with their field sizes), and the server's read of the framed message. */
#include "proto.h"
#include "bytes.h"
#include "fail.h"
#include "jsonr.h"
#include "jsonw.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    if (p->mptcp)
        jw_bool(&w, "mptcp", 1);
    if (p->udp && (p->gso || p->gro)) {     /* 3.22 --gsro: what its client sends */
        jw_int(&w, "gso", p->gso);
        jw_int(&w, "gso_dg_size", p->gso_dg_size);
        jw_int(&w, "gso_bf_size", p->gso_bf_size);
        jw_int(&w, "gro", p->gro);
        jw_int(&w, "gro_bf_size", p->gro_bf_size);
    }
    if (p->authtoken[0])
        jw_str(&w, "authtoken", p->authtoken);
    jw_str(&w, "client_version", p->client_version[0] ? p->client_version : "3.12");
    jw_end(&w);
    return jw_take(&w, PARAMS_MAX, len);
}

/* The bounds of each number key. iperf3 3.22's get_parameters refuses, per key,
 * what is outside its own limits (MAX_TIME, MAX_OMIT_TIME, MAX_MSS, ...); esxperf
 * takes every value it takes, sometimes more (docs/esxperf.md, "Parameters `esxperf -s` takes
 * from a client", lists both). Where iperf3 has no bound, ours only keeps the arithmetic
 * sane. `why` names the key and the range for the log line. */
struct num_key { const char *key; size_t off; int64_t min, max; const char *why, *type; };
#define PK(k, field, lo, hi, range) { k, offsetof(struct test_params, field), lo, hi, \
                                      "parameter " k " is out of range (" range ")", \
                                      "parameter " k " is no whole number" }
static const struct num_key num_keys[] = {
    PK("omit", omit, 0, 86400, "0..86400 s"),                /* 3.22: 0..600 */
    PK("time", time, 0, 86400 * 7, "0..604800 s"),           /* 3.22: 0..86400 */
    PK("num", num, 0, INT64_MAX, "0 or more bytes"),         /* 3.22: >= 0 */
    PK("blockcount", blockcount, 0, INT64_MAX, "0 or more blocks"),
    PK("parallel", parallel, 1, MAX_STREAMS, "1..128 streams"), /* 3.22: 0..128 */
    PK("len", len, 0, TCP_LEN_MAX, "0..16 MiB"),             /* 3.22: TCP 1..1 MiB */
    PK("window", window, 0, 1 << 30, "0..1 GiB"),            /* 3.22: 0..512 MiB */
    PK("MSS", mss, 0, 65535, "0..65535"),                    /* 3.22: 0..32767 */
    PK("bandwidth", bandwidth, 0, INT64_MAX, "0 or more bit/s"),
    PK("fqrate", fqrate, 0, INT64_MAX, "0 or more bit/s"),
    PK("pacing_timer", pacing_timer, 0, INT64_MAX, "0 or more us"),  /* 3.22: >= 0 */
    PK("burst", burst, 0, 1000, "0..1000"),                  /* 3.22: 1..1000 */
    PK("TOS", tos, 0, 255, "0..255"),
    PK("flowlabel", flowlabel, 0, 0xfffff, "0..0xfffff"),    /* 3.22: 1..0xfffff */
    PK("server_affinity", server_affinity, -1, 1024, "0..1024"), /* 3.22: 0..1024 */
    PK("gso_dg_size", gso_dg_size, 0, 65535, "0..65535"),   /* 3.22: >= 0 */
    PK("gso_bf_size", gso_bf_size, 0, 65535, "0..65535"),
    PK("gro_bf_size", gro_bf_size, 0, 65535, "0..65535"),
};
/* iperf3 keeps pacing_timer in an int: beyond that no pacing step is longer */
#define PACING_TIMER_MAX INT32_MAX

/* Flags. iperf3 3.22 counts tcp, udp, reverse, bidirectional and nodelay only when
 * true (esxperf: true/false or 0/1), and reads the others as numbers, any number
 * but 0 on (esxperf: the same, or true/false). Any other type is refused. */
struct flag_key { const char *key; size_t off; int is_bool; const char *why; };
#define FB(k, field) { k, offsetof(struct test_params, field), 1, \
                       "parameter " k " is no flag (true, false, 0 or 1)" }
#define FN(k, field) { k, offsetof(struct test_params, field), 0, \
                       "parameter " k " is no flag (a whole number, true or false)" }
static const struct flag_key flag_keys[] = {
    FB("udp", udp), FB("reverse", reverse), FB("bidirectional", bidir),
    FB("nodelay", nodelay), FN("get_server_output", get_server_output),
    FN("udp_counters_64bit", udp_counters_64bit), FN("repeating_payload", repeating_payload),
    FN("zerocopy", zerocopy), FN("dont_fragment", dont_fragment),
    FN("skip_rx_copy", skip_rx_copy),
    FB("mptcp", mptcp), FN("gso", gso), FN("gro", gro),
};
/* Strings: the field holds any string the 8 KiB message can carry (title,
 * extra_data: iperf3 has no other bound), or is cut to its size (client_version,
 * only shown), or a longer one is refused (congestion: longer than any algorithm
 * name, which iperf3's setsockopt would refuse too; authtoken: longer than any RSA
 * key makes). */
struct str_key { const char *key; size_t off, cap; int cut; const char *why; };
#define SK(k, field, cut) { k, offsetof(struct test_params, field), \
                            sizeof(((struct test_params *)0)->field), cut, \
                            "parameter " k " is no string, or longer than esxperf takes" }
static const struct str_key str_keys[] = {
    SK("title", title, 0), SK("extra_data", extra_data, 0), SK("congestion", congestion, 0),
    SK("client_version", client_version, 1), SK("authtoken", authtoken, 0),
};

/* a flag: true or false, or a whole number (0 off; is_bool: only 0 or 1) */
static int get_flag(const struct jsonr *r, int v, int is_bool, int *out)
{
    int64_t n;
    if (jr_bool(r, v, out) == 0)
        return 0;
    if (jr_int(r, v, &n) == 0 && (!is_bool || n == 0 || n == 1)) {
        *out = n != 0;
        return 0;
    }
    return -1;
}

static int decode_flags(const struct jsonr *r, struct test_params *p, const char **why)
{
    int v;
    for (size_t i = 0; i < ARRAY_SIZE(flag_keys); i++) {
        if ((v = jr_find(r, 0, flag_keys[i].key)) < 0)
            continue;
        if (get_flag(r, v, flag_keys[i].is_bool, (int *)((char *)p + flag_keys[i].off)) < 0) {
            *why = flag_keys[i].why;
            return -1;
        }
    }
    return 0;
}

static int decode_numbers(const struct jsonr *r, struct test_params *p, const char **why)
{
    int v;
    for (size_t i = 0; i < ARRAY_SIZE(num_keys); i++) {
        if ((v = jr_find(r, 0, num_keys[i].key)) < 0)
            continue;
        int64_t n;
        if (jr_int(r, v, &n) < 0) {
            *why = num_keys[i].type;
            return -1;
        }
        if (n < num_keys[i].min || n > num_keys[i].max) {
            *why = num_keys[i].why;
            return -1;
        }
        *(int64_t *)((char *)p + num_keys[i].off) = n;
    }
    if (p->pacing_timer > PACING_TIMER_MAX)
        p->pacing_timer = PACING_TIMER_MAX;
    return 0;
}

/* scratch: a buffer as long as the whole message, so any string in it fits */
static int decode_strings(const struct jsonr *r, char *scratch, size_t cap,
                          struct test_params *p, const char **why)
{
    int v;
    for (size_t i = 0; i < ARRAY_SIZE(str_keys); i++) {
        const struct str_key *k = &str_keys[i];
        if ((v = jr_find(r, 0, k->key)) < 0)
            continue;
        char *field = (char *)p + k->off;
        int rc = k->cut ? jr_str(r, v, scratch, cap) : jr_str(r, v, field, k->cap);
        if (rc < 0) {
            *why = k->why;
            return -1;
        }
        if (k->cut)
            snprintf(field, k->cap, "%s", scratch);
    }
    return 0;
}

/* what no test can be: both protocols, both directions, a UDP size no datagram has */
static int check_together(const struct test_params *p, int tcp, const char **why)
{
    if (tcp && p->udp)
        *why = "parameters ask for both TCP and UDP";
    else if (p->reverse && p->bidir)
        *why = "parameters ask for both reverse and bidirectional";
    else if (p->udp && p->len && (p->len < UDP_LEN_MIN || p->len > UDP_LEN_MAX))
        *why = "UDP block size out of range (16..65507)";
    else
        return 0;
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
    char *scratch = xmalloc(len + 1);
    struct jsonr r;
    int v, tcp = 0, sctp = 0, rc = jr_parse(&r, js, len, tok, max);
    if (rc != JR_OK) {
        *why = rc == JR_EDEPTH ? "parameters are JSON nested too deeply"
                               : "parameters are not a JSON object";
        rc = -1;
    } else if ((v = jr_find(&r, 0, "tcp")) >= 0 && get_flag(&r, v, 1, &tcp) < 0) {
        *why = "parameter tcp is no flag (true, false, 0 or 1)";
        rc = -1;
    } else if ((v = jr_find(&r, 0, "sctp")) >= 0 && (get_flag(&r, v, 1, &sctp) < 0 || sctp)) {
        *why = "SCTP is not supported";
        rc = -1;
    } else {
        rc = decode_flags(&r, p, why) < 0 || decode_numbers(&r, p, why) < 0 ||
             decode_strings(&r, scratch, len + 1, p, why) < 0 ||
             check_together(p, tcp, why) < 0 ? -1 : 0;
    }
    free(scratch);
    free(tok);
    return rc;
}

/* ---- what the server reads from the client */

int ctl_recv_params(int fd, uint64_t deadline_ns, struct test_params *p, const char **why,
                    int *err)
{
    char *js = NULL;
    size_t len = 0;
    if (ctl_recv_json(fd, PARAMS_MAX, &js, &len, deadline_ns) < 0) {
        int e = errno;
        *why = e == EMSGSIZE ? "the client's parameter message is empty or over 8 KiB (iperf3 3.18+ "
                                 "refuses those too)"
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
