/* The parameter JSON the client sends (iperf3's keys, proto.h): the encoder, the
 * strict decoder with one table per kind of key (numbers with their ranges, flags,
 * strings with their field sizes), and the server's read of the framed message. */
#include "proto.h"
#include "bytes.h"
#include "fail.h"
#include "jsonr.h"
#include "jsonw.h"

#include <errno.h>
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
    PK("gso_dg_size", gso_dg_size, 0, 65535), PK("gso_bf_size", gso_bf_size, 0, 65535),
    PK("gro_bf_size", gro_bf_size, 0, 65535),
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
    FK("mptcp", mptcp, 1), FK("gso", gso, 0), FK("gro", gro, 0),
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
