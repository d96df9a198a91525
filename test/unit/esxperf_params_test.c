/* params_table.h, the test parameters one row each: every row goes from its option
 * (or its field) through the client's copy, the encoder and the decoder and comes
 * back the same; and the JSON the client sends for fixed option sets is, byte for
 * byte and key by key, what esxperf sent before the table (iperf3 peers read it as
 * sent). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "client.h"
#include "options.h"
#include "proto.h"

const char tool_name[] = "esxperf_test";

/* every field of a and b, by the rows */
static void same_params(const struct test_params *a, const struct test_params *b)
{
#define WIRE_FLAG(key, field, json, send, copy, otype, oname) \
    assert_int_equal(a->field, b->field);
#define WIRE_NUM(key, field, send, copy, otype, oname, dflt, min, max, range) \
    assert_int_equal(a->field, b->field);
#define WIRE_STR(key, field, size, send, copy, otype, oname, dflt, fit) \
    assert_string_equal(a->field, b->field);
#include "params_table.h"
}

/* p as JSON, decoded again into q, which must be p; the JSON into js (malloc'd) */
static char *round_trip(const struct test_params *p, struct test_params *q)
{
    size_t n;
    const char *why = NULL;
    char *js = params_encode(p, &n);
    assert_non_null(js);
    assert_int_equal(strlen(js), n);
    if (params_decode(js, n, q, &why) != 0)
        fail_msg("%s refused: %s", js, why);
    same_params(p, q);
    return js;
}

/* "key": exactly once in js */
static void sent_once(const char *js, const char *key)
{
    char quoted[64];
    snprintf(quoted, sizeof quoted, "\"%s\":", key);
    const char *at = strstr(js, quoted);
    if (!at || strstr(at + 1, quoted))
        fail_msg("%s: key %s not there once", js, quoted);
}

static void client_opts(struct perf_opts *o)
{
    opts_defaults(o);
    o->host = "198.18.0.2";
}

/* each row with an option: the option set (a flag on, a number one above its
 * default, a string), copied, sent, read back; the option's default is its row's */
static void every_option_row_from_the_option(void **state)
{
    (void)state;
    struct perf_opts o;
    struct test_params p, q;
    int rows = 0;
    client_opts(&o);
    client_params(&o, 1448, &p);
    params_defaults(&q);
    q.len = p.len;          /* the two the client computes from no option */
    q.time = p.time;
    same_params(&p, &q);
#define ROW_OPT(field, oname, value, key) \
    do { \
        client_opts(&o); \
        o.oname = value; \
        client_params(&o, 1448, &p); \
        assert_true((int64_t)p.field == (int64_t)o.oname); \
        char *js = round_trip(&p, &q); \
        sent_once(js, key); \
        free(js); \
        rows++; \
    } while (0);
#define ROW_STR_OPT(field, oname, key) \
    do { \
        client_opts(&o); \
        o.oname = "row " key; \
        client_params(&o, 1448, &p); \
        assert_string_equal(p.field, o.oname); \
        char *js = round_trip(&p, &q); \
        sent_once(js, key); \
        free(js); \
        rows++; \
    } while (0);
#define ROW_OWN(field, oname, value, key)
#define ROW_NONE(field, oname, value, key)
#define ROW_STR_OWN(field, oname, key)
#define ROW_STR_NONE(field, oname, key)
#define DEFAULT_OPT(oname, dflt) assert_true(o.oname == dflt);
#define DEFAULT_OWN(oname, dflt) assert_true(o.oname == dflt);
#define DEFAULT_NONE(oname, dflt)
#define WIRE_FLAG(key, field, json, send, copy, otype, oname) \
    ROW_##copy(field, oname, 1, key)
#define WIRE_NUM(key, field, send, copy, otype, oname, dflt, min, max, range) \
    client_opts(&o); \
    DEFAULT_##copy(oname, dflt) \
    ROW_##copy(field, oname, dflt + 1, key)
#define WIRE_STR(key, field, size, send, copy, otype, oname, dflt, fit) \
    ROW_STR_##copy(field, oname, key)
#include "params_table.h"
    assert_true(rows >= 20);
}

/* each row by its field, options or not: set (a flag on, a number one above its
 * default, a string), sent as its key once, read back the same */
static void every_row_by_its_field(void **state)
{
    (void)state;
    for (size_t i = 0; i < PARAMS_NROWS; i++) {
        const struct param_row *k = &params_rows[i];
        struct test_params p, q;
        params_defaults(&p);
        p.len = 1400;
        char *at = (char *)&p + k->off;
        if (k->kind == PARAM_NUM) {
            int64_t v = k->dflt + 1;
            assert_true(v >= k->min && v <= k->max);
            memcpy(at, &v, sizeof v);
        } else if (k->kind == PARAM_STR) {
            snprintf(at, k->size, "row %s", k->key);
        } else {
            int one = 1;
            memcpy(at, &one, sizeof one);
        }
        if (k->send == PARAM_GSRO)      /* the --gsro keys go with UDP and gso */
            p.udp = p.gso = 1;
        char *js = round_trip(&p, &q);
        sent_once(js, k->key);
        free(js);
    }
}

/* every option of the table at once, -u and not */
static void every_option(struct perf_opts *o, int udp)
{
    client_opts(o);
    o->udp = udp;
    o->reverse = 1;
    o->bidir = 1;
    o->nodelay = 1;
    o->omit = 3;
    o->time = 7;
    o->parallel = 4;
    o->len = 1400;
    o->window = 262144;
    o->mss = 1300;
    o->bandwidth = 123456789;
    o->bandwidth_set = 1;
    o->burst = 9;
    o->pacing_timer = 2500;
    o->tos = 0x88;
    o->get_server_output = 1;
    o->udp64 = 1;
    o->zerocopy = 1;
    o->skip_rx_copy = 1;
    o->server_affinity = 3;
    o->dont_fragment = 1;
    o->repeating_payload = 1;
    o->extra_data = "extra \"data\"";
    o->fqrate = 50000000;
    o->flowlabel = 0x12345;
    o->mptcp = 1;
    o->gsro = 1;
    o->title = "a title\twith\\escapes";
    o->congestion = "cubic";
}

/* what esxperf's hand-written encoder sent for these option sets before the table
 * (captured from it, then kept): the keys, their order and their values */
static const char every_tcp[] =
    "{\"tcp\":true,\"reverse\":true,\"bidirectional\":true,\"nodelay\":true,\"omit\":3,"
    "\"time\":7,\"num\":0,\"blockcount\":0,\"MSS\":1300,\"parallel\":4,\"len\":1400,"
    "\"window\":262144,\"bandwidth\":123456789,\"fqrate\":50000000,\"pacing_timer\":2500,"
    "\"burst\":9,\"TOS\":136,\"flowlabel\":74565,\"server_affinity\":3,"
    "\"title\":\"a title\\twith\\\\escapes\",\"extra_data\":\"extra \\\"data\\\"\","
    "\"congestion\":\"cubic\",\"get_server_output\":1,\"udp_counters_64bit\":1,"
    "\"repeating_payload\":1,\"zerocopy\":1,\"dont_fragment\":1,\"skip_rx_copy\":1,"
    "\"mptcp\":true,\"authtoken\":\"dG9rZW4=\",\"client_version\":\"3.12\"}";
static const char every_udp[] =
    "{\"udp\":true,\"reverse\":true,\"bidirectional\":true,\"nodelay\":true,\"omit\":3,"
    "\"time\":7,\"num\":0,\"blockcount\":0,\"MSS\":1300,\"parallel\":4,\"len\":1400,"
    "\"window\":262144,\"bandwidth\":123456789,\"fqrate\":50000000,\"pacing_timer\":2500,"
    "\"burst\":9,\"TOS\":136,\"flowlabel\":74565,\"server_affinity\":3,"
    "\"title\":\"a title\\twith\\\\escapes\",\"extra_data\":\"extra \\\"data\\\"\","
    "\"congestion\":\"cubic\",\"get_server_output\":1,\"udp_counters_64bit\":1,"
    "\"repeating_payload\":1,\"zerocopy\":1,\"dont_fragment\":1,\"skip_rx_copy\":1,"
    "\"mptcp\":true,\"gso\":1,\"gso_dg_size\":1400,\"gso_bf_size\":64400,\"gro\":1,"
    "\"gro_bf_size\":65507,\"authtoken\":\"dG9rZW4=\",\"client_version\":\"3.12\"}";
static const char default_tcp[] =
    "{\"tcp\":true,\"omit\":0,\"time\":10,\"num\":0,\"blockcount\":0,\"parallel\":1,"
    "\"len\":131072,\"pacing_timer\":1000,\"client_version\":\"3.12\"}";
static const char udp_bytes[] =
    "{\"udp\":true,\"omit\":0,\"time\":0,\"num\":5000,\"blockcount\":0,\"parallel\":1,"
    "\"len\":1448,\"bandwidth\":1048576,\"pacing_timer\":1000,\"client_version\":\"3.12\"}";

static void sent_as_before(const struct perf_opts *o, const char *token, const char *want)
{
    struct test_params p;
    size_t n;
    client_params(o, 1448, &p);
    snprintf(p.authtoken, sizeof p.authtoken, "%s", token);
    char *js = params_encode(&p, &n);
    assert_non_null(js);
    assert_string_equal(js, want);
    assert_int_equal(n, strlen(want));
    free(js);
}

static void client_json_byte_for_byte(void **state)
{
    (void)state;
    struct perf_opts o;
    every_option(&o, 0);
    sent_as_before(&o, "dG9rZW4=", every_tcp);
    every_option(&o, 1);
    sent_as_before(&o, "dG9rZW4=", every_udp);
    client_opts(&o);
    sent_as_before(&o, "", default_tcp);
    o.udp = 1;
    o.num = 5000;
    sent_as_before(&o, "", udp_bytes);
}

/* the whole set read back by a server (not both -R and --bidir: it refuses those) */
static void every_option_at_once_round_trips(void **state)
{
    (void)state;
    struct perf_opts o;
    struct test_params p, q;
    for (int udp = 0; udp <= 1; udp++) {
        every_option(&o, udp);
        o.bidir = 0;
        client_params(&o, 1448, &p);
        snprintf(p.authtoken, sizeof p.authtoken, "dG9rZW4=");
        free(round_trip(&p, &q));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_option_row_from_the_option),
        cmocka_unit_test(every_row_by_its_field),
        cmocka_unit_test(client_json_byte_for_byte),
        cmocka_unit_test(every_option_at_once_round_trips),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
