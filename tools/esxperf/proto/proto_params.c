/* The parameter JSON the client sends (iperf3's keys): the encoder and the strict
 * decoder, both walking params_table.h's rows (a key, its kind, when it is sent,
 * its range or field size), and the server's read of the framed message. */
#include "proto.h"
#include "bytes.h"
#include "fail.h"
#include "jsonr.h"
#include "jsonw.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the rows as data: refusals name the key, and the range for a number */
#define WIRE_FLAG(key, field, json, send, copy, otype, oname) \
    { key, PARAM_FLAG_##json, PARAM_##send, offsetof(struct test_params, field), 0, 0, 0, 0, \
      NULL, 0, FLAG_WHY_##json(key), NULL },
#define FLAG_WHY_BOOL(key) "parameter " key " is no flag (true, false, 0 or 1)"
#define FLAG_WHY_INT(key) "parameter " key " is no flag (a whole number, true or false)"
#define WIRE_NUM(key, field, send, copy, otype, oname, dflt, min, max, range) \
    { key, PARAM_NUM, PARAM_##send, offsetof(struct test_params, field), 0, dflt, min, max, \
      NULL, 0, "parameter " key " is out of range (" range ")", \
      "parameter " key " is no whole number" },
#define WIRE_STR(key, field, size, send, copy, otype, oname, dflt, fit) \
    { key, PARAM_STR, PARAM_##send, offsetof(struct test_params, field), size, 0, 0, 0, \
      dflt, STR_CUT_##fit, "parameter " key " is no string, or longer than esxperf takes", \
      NULL },
#define STR_CUT_REFUSE 0
#define STR_CUT_CUT 1
const struct param_row params_rows[PARAMS_NROWS] = {
#include "params_table.h"
};

static int *flag_at(const struct test_params *p, const struct param_row *k)
{
    return (int *)((char *)p + k->off);
}
static int64_t *num_at(const struct test_params *p, const struct param_row *k)
{
    return (int64_t *)((char *)p + k->off);
}
static char *str_at(const struct test_params *p, const struct param_row *k)
{
    return (char *)p + k->off;
}

void params_defaults(struct test_params *p)
{
    memset(p, 0, sizeof *p);
    for (size_t i = 0; i < PARAMS_NROWS; i++) {
        const struct param_row *k = &params_rows[i];
        if (k->kind == PARAM_NUM)
            *num_at(p, k) = k->dflt;
        else if (k->kind == PARAM_STR)
            snprintf(str_at(p, k), k->size, "%s", k->sdflt);
    }
}

/* whether the client writes row k's key (params_table.h's SEND) */
static int param_sent(const struct test_params *p, const struct param_row *k)
{
    switch (k->send) {
    case PARAM_ALWAYS:
    case PARAM_PROTO:
        return 1;
    case PARAM_SET:
        return k->kind == PARAM_NUM ? *num_at(p, k) != 0
             : k->kind == PARAM_STR ? str_at(p, k)[0] != '\0' : *flag_at(p, k) != 0;
    case PARAM_ASKED:
        return *num_at(p, k) >= 0;
    case PARAM_GSRO:            /* 3.22 --gsro: what its client sends */
        return p->udp && (p->gso || p->gro);
    }
    return 0;
}

char *params_encode(const struct test_params *p, size_t *len)
{
    struct jsonw w;
    jw_init(&w, 0);
    jw_obj(&w, NULL);
    for (size_t i = 0; i < PARAMS_NROWS; i++) {
        const struct param_row *k = &params_rows[i];
        if (!param_sent(p, k))
            continue;
        if (k->send == PARAM_PROTO)
            jw_bool(&w, *flag_at(p, k) ? k->key : "tcp", 1);
        else if (k->kind == PARAM_FLAG_BOOL)
            jw_bool(&w, k->key, 1);
        else if (k->kind == PARAM_FLAG_INT)
            jw_int(&w, k->key, *flag_at(p, k) != 0);
        else if (k->kind == PARAM_NUM)
            jw_int(&w, k->key, *num_at(p, k));
        else
            jw_str(&w, k->key, str_at(p, k));
    }
    jw_end(&w);
    return jw_take(&w, PARAMS_MAX, len);
}

/* iperf3 keeps pacing_timer in an int: beyond that no pacing step is longer */
#define PACING_TIMER_MAX INT32_MAX

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

/* the flags, then the numbers, then the strings, each in the rows' order: the
 * first bad value refuses the message */
static int decode_flags(const struct jsonr *r, struct test_params *p, const char **why)
{
    int v;
    for (size_t i = 0; i < PARAMS_NROWS; i++) {
        const struct param_row *k = &params_rows[i];
        if (k->kind == PARAM_NUM || k->kind == PARAM_STR || (v = jr_find(r, 0, k->key)) < 0)
            continue;
        if (get_flag(r, v, k->kind == PARAM_FLAG_BOOL, flag_at(p, k)) < 0) {
            *why = k->why;
            return -1;
        }
    }
    return 0;
}

static int decode_numbers(const struct jsonr *r, struct test_params *p, const char **why)
{
    int v;
    for (size_t i = 0; i < PARAMS_NROWS; i++) {
        const struct param_row *k = &params_rows[i];
        if (k->kind != PARAM_NUM || (v = jr_find(r, 0, k->key)) < 0)
            continue;
        int64_t n;
        if (jr_int(r, v, &n) < 0) {
            *why = k->type_why;
            return -1;
        }
        if (n < k->min || n > k->max) {
            *why = k->why;
            return -1;
        }
        *num_at(p, k) = n;
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
    for (size_t i = 0; i < PARAMS_NROWS; i++) {
        const struct param_row *k = &params_rows[i];
        if (k->kind != PARAM_STR || (v = jr_find(r, 0, k->key)) < 0)
            continue;
        char *field = str_at(p, k);
        int rc = k->cut ? jr_str(r, v, scratch, cap) : jr_str(r, v, field, k->size);
        if (rc < 0) {
            *why = k->why;
            return -1;
        }
        if (k->cut)
            snprintf(field, k->size, "%s", scratch);
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
