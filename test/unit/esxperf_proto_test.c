/* tools/esxperf/proto.c: cookie, framing, params and results JSON. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../tools/esxperf/proto.h"

const char tool_name[] = "esxperf_test";

/* the parameters a real iperf3 3.12 UDP client sends */
static const char real_udp_params[] =
    "{\"udp\":true,\"omit\":0,\"time\":0,\"num\":1,\"blockcount\":0,\"parallel\":1,"
    "\"len\":1428,\"bandwidth\":1048576,\"pacing_timer\":1000,\"client_version\":\"3.12\"}";
/* results a real iperf3 3.12 server sent (captured on loopback) */
static const char real_results[] =
    "{\"cpu_util_total\":38.848194409267236,\"cpu_util_user\":0,\"cpu_util_system\":"
    "38.848194409267236,\"sender_has_retransmits\":18446744073709551615,\"congestion_used\":"
    "\"bbr\",\"streams\":[{\"id\":1,\"bytes\":491519894,\"retransmits\":18446744073709551615,"
    "\"jitter\":0,\"errors\":0,\"packets\":0,\"start_time\":0,\"end_time\":0.300051}]}";

static void cookies_are_36_alphabet_chars_and_nul(void **state)
{
    (void)state;
    char a[COOKIE_SIZE], b[COOKIE_SIZE];
    proto_make_cookie(a);
    proto_make_cookie(b);
    assert_int_equal(strlen(a), 36);
    assert_true(proto_cookie_valid(a, COOKIE_SIZE));
    assert_memory_not_equal(a, b, COOKIE_SIZE);
    for (int i = 0; i < 36; i++)
        assert_non_null(strchr("abcdefghijklmnopqrstuvwxyz234567", a[i]));
    a[5] = '1';                     /* not in the alphabet */
    assert_false(proto_cookie_valid(a, COOKIE_SIZE));
    proto_make_cookie(a);
    assert_false(proto_cookie_valid(a, COOKIE_SIZE - 1));
    a[36] = 'x';                    /* no NUL */
    assert_false(proto_cookie_valid(a, COOKIE_SIZE));
}

static void frames_are_big_endian_and_bounded(void **state)
{
    (void)state;
    unsigned char h[4];
    uint32_t n;
    proto_frame_header(h, 0x01020304);
    assert_int_equal(h[0], 1);
    assert_int_equal(h[3], 4);
    assert_int_equal(proto_frame_len(h, UINT32_MAX, &n), 0);
    assert_int_equal(n, 0x01020304);
    proto_frame_header(h, PARAMS_MAX);
    assert_int_equal(proto_frame_len(h, PARAMS_MAX, &n), 0);
    proto_frame_header(h, PARAMS_MAX + 1);
    assert_int_equal(proto_frame_len(h, PARAMS_MAX, &n), -1);
    proto_frame_header(h, 0);
    assert_int_equal(proto_frame_len(h, PARAMS_MAX, &n), -1);
}

static void decodes_real_iperf3_params(void **state)
{
    (void)state;
    struct test_params p;
    const char *why = NULL;
    assert_int_equal(params_decode(real_udp_params, strlen(real_udp_params), &p, &why), 0);
    assert_true(p.udp);
    assert_int_equal(p.len, 1428);
    assert_int_equal(p.num, 1);
    assert_int_equal(p.bandwidth, 1048576);
    assert_int_equal(p.parallel, 1);
    assert_string_equal(p.client_version, "3.12");
    assert_false(p.reverse);
}

static void params_round_trip(void **state)
{
    (void)state;
    struct test_params p, q;
    const char *why = NULL;
    params_defaults(&p);
    p.reverse = 1;
    p.parallel = 8;
    p.len = 65536;
    p.window = 1 << 20;
    p.mss = 1400;
    p.nodelay = 1;
    p.get_server_output = 1;
    p.udp_counters_64bit = 1;
    p.server_affinity = 1;
    snprintf(p.title, sizeof p.title, "a \"quoted\" title");
    snprintf(p.authtoken, sizeof p.authtoken, "QUJD");
    size_t n;
    char *js = params_encode(&p, &n);
    assert_non_null(js);
    assert_non_null(strstr(js, "\"tcp\":true"));
    assert_non_null(strstr(js, "\"get_server_output\":1"));
    assert_non_null(strstr(js, "\"server_affinity\":1"));
    assert_int_equal(params_decode(js, n, &q, &why), 0);
    free(js);
    assert_int_equal(q.parallel, 8);
    assert_int_equal(q.window, 1 << 20);
    assert_int_equal(q.mss, 1400);
    assert_true(q.reverse && q.nodelay && q.get_server_output && q.udp_counters_64bit);
    assert_string_equal(q.title, p.title);
    assert_string_equal(q.authtoken, "QUJD");
    assert_int_equal(q.server_affinity, 1);
    /* absent means none, and nothing is sent for none */
    params_defaults(&p);
    js = params_encode(&p, &n);
    assert_null(strstr(js, "server_affinity"));
    assert_int_equal(params_decode(js, n, &q, &why), 0);
    free(js);
    assert_int_equal(q.server_affinity, -1);
}

static int dec(const char *js)
{
    struct test_params p;
    const char *why = NULL;
    return params_decode(js, strlen(js), &p, &why);
}

static void params_ignore_unknown_keys(void **state)
{
    (void)state;
    assert_int_equal(dec("{\"tcp\":true,\"time\":1,\"parallel\":1,\"len\":1024,"
                         "\"future_key\":{\"x\":[1,2,3]},\"another\":\"s\"}"), 0);
}

static void params_refuse_wrong_types(void **state)
{
    (void)state;
    assert_int_equal(dec("{\"tcp\":true,\"time\":\"10\"}"), -1);
    assert_int_equal(dec("{\"tcp\":true,\"parallel\":1.5}"), -1);
    assert_int_equal(dec("{\"tcp\":\"yes\"}"), -1);
    assert_int_equal(dec("{\"udp\":true,\"reverse\":2}"), -1);
    assert_int_equal(dec("{\"tcp\":true,\"title\":5}"), -1);
    assert_int_equal(dec("{\"tcp\":true,\"authtoken\":{}}"), -1);
    assert_int_equal(dec("[1,2]"), -1);
    assert_int_equal(dec("{\"tcp\":tru}"), -1);
    assert_int_equal(dec("{\"sctp\":true}"), -1);
    assert_int_equal(dec("{\"tcp\":true,\"udp\":true}"), -1);
}

static void params_refuse_out_of_range(void **state)
{
    (void)state;
    assert_int_equal(dec("{\"tcp\":true,\"parallel\":0}"), -1);
    assert_int_equal(dec("{\"tcp\":true,\"parallel\":129}"), -1);
    assert_int_equal(dec("{\"tcp\":true,\"parallel\":128}"), 0);
    assert_int_equal(dec("{\"tcp\":true,\"time\":-1}"), -1);
    assert_int_equal(dec("{\"tcp\":true,\"len\":99999999999}"), -1);
    assert_int_equal(dec("{\"udp\":true,\"len\":65508}"), -1);
    assert_int_equal(dec("{\"udp\":true,\"len\":8}"), -1);
    assert_int_equal(dec("{\"tcp\":true,\"TOS\":256}"), -1);
    assert_int_equal(dec("{\"tcp\":true,\"MSS\":70000}"), -1);
    assert_int_equal(dec("{\"tcp\":true,\"num\":-5}"), -1);
    assert_int_equal(dec("{\"tcp\":true,\"server_affinity\":1024}"), -1);
    assert_int_equal(dec("{\"tcp\":true,\"server_affinity\":\"1\"}"), -1);
}

/* the hostile client's deep-json: 3000 nested arrays under one key */
static void params_refuse_deep_nesting(void **state)
{
    (void)state;
    struct test_params p;
    const char *why = NULL;
    enum { DEPTH = 3000 };
    char *js = malloc(2 * DEPTH + 32);
    int k = snprintf(js, 32, "{\"tcp\":true,\"x\":");
    memset(js + k, '[', DEPTH);
    memset(js + k + DEPTH, ']', DEPTH);
    memcpy(js + k + 2 * DEPTH, "}", 2);
    assert_int_equal(params_decode(js, strlen(js), &p, &why), -1);
    assert_string_equal(why, "parameters are JSON nested too deeply");
    free(js);
    /* nesting inside the limit, in an unknown key, is fine */
    assert_int_equal(dec("{\"tcp\":true,\"x\":[[[{\"a\":[1]}]]]}"), 0);
}

static void params_over_8k_refused(void **state)
{
    (void)state;
    struct test_params p;
    const char *why = NULL;
    size_t n = PARAMS_MAX + 100;
    char *big = malloc(n + 1);
    int k = snprintf(big, n + 1, "{\"tcp\":true,\"title\":\"");
    memset(big + k, 'x', n - (size_t)k - 2);
    memcpy(big + n - 2, "\"}", 3);
    assert_int_equal(params_decode(big, n, &p, &why), -1);
    assert_non_null(strstr(why, "8 KiB"));
    free(big);
    /* the framed message is refused from its header already */
    unsigned char msg[8] = { 0, 0, 0x20, 0x01, '{', '}', 0, 0 };
    assert_int_equal(proto_parse_params_message(msg, sizeof msg, &p, &why), -1);
    /* a title longer than our field is refused, not cut */
    char t[600];
    k = snprintf(t, sizeof t, "{\"tcp\":true,\"title\":\"");
    memset(t + k, 'y', 400);
    snprintf(t + k + 400, sizeof t - (size_t)k - 400, "\"}");
    assert_int_equal(dec(t), -1);
}

static void framed_params_message(void **state)
{
    (void)state;
    unsigned char buf[512];
    size_t n = strlen(real_udp_params);
    proto_frame_header(buf, (uint32_t)n);
    memcpy(buf + 4, real_udp_params, n);
    struct test_params p;
    const char *why = NULL;
    assert_int_equal(proto_parse_params_message(buf, n + 4, &p, &why), 0);
    assert_int_equal(p.len, 1428);
    assert_int_equal(proto_parse_params_message(buf, n + 3, &p, &why), -1);   /* truncated */
    assert_int_equal(proto_parse_params_message(buf, 3, &p, &why), -1);
}

static void decodes_real_iperf3_results(void **state)
{
    (void)state;
    struct test_results r;
    const char *why = NULL;
    assert_int_equal(results_decode(real_results, strlen(real_results), &r, &why), 0);
    assert_int_equal(r.sender_has_retransmits, -1);   /* 3.12's unsigned -1 */
    assert_int_equal(r.nstreams, 1);
    assert_int_equal(r.streams[0].id, 1);
    assert_int_equal(r.streams[0].bytes, 491519894);
    assert_int_equal(r.streams[0].retransmits, -1);
    assert_string_equal(r.congestion_used, "bbr");
    assert_true(r.cpu_total > 38.8 && r.cpu_total < 38.9);
    assert_non_null(results_find(&r, 1));
    assert_null(results_find(&r, 3));
    results_free(&r);
}

static void results_round_trip_and_strictness(void **state)
{
    (void)state;
    struct test_results r, q;
    const char *why = NULL;
    memset(&r, 0, sizeof r);
    r.cpu_total = 12.5;
    r.cpu_user = 2.5;
    r.cpu_system = 10;
    r.sender_has_retransmits = 1;
    r.nstreams = 2;
    r.streams[0] = (struct stream_result){ .id = 1, .bytes = 1000, .retransmits = 3,
                                           .end_time = 1.0 };
    r.streams[1] = (struct stream_result){ .id = 3, .bytes = 2000, .retransmits = -1,
                                           .jitter = 0.001, .errors = 4, .packets = 100 };
    r.server_output_text = strdup("line 1\nline \"2\"\n");
    size_t n;
    char *js = results_encode(&r, &n);
    assert_non_null(js);
    assert_int_equal(results_decode(js, n, &q, &why), 0);
    free(js);
    assert_int_equal(q.nstreams, 2);
    assert_int_equal(q.streams[1].id, 3);
    assert_int_equal(q.streams[1].errors, 4);
    assert_int_equal(q.streams[1].retransmits, -1);
    assert_string_equal(q.server_output_text, r.server_output_text);
    results_free(&q);
    results_free(&r);

    /* required keys and types */
    static const char *bad[] = {
        "{\"cpu_util_user\":0,\"cpu_util_system\":0,\"sender_has_retransmits\":0,\"streams\":[]}",
        "{\"cpu_util_total\":0,\"cpu_util_user\":0,\"cpu_util_system\":0,\"sender_has_retransmits\":0}",
        "{\"cpu_util_total\":\"0\",\"cpu_util_user\":0,\"cpu_util_system\":0,\"sender_has_retransmits\":0,\"streams\":[]}",
        "{\"cpu_util_total\":0,\"cpu_util_user\":0,\"cpu_util_system\":0,\"sender_has_retransmits\":0,\"streams\":[{\"id\":1}]}",
        "{\"cpu_util_total\":0,\"cpu_util_user\":0,\"cpu_util_system\":0,\"sender_has_retransmits\":0,\"streams\":[{\"id\":1,\"bytes\":-1,\"retransmits\":0,\"jitter\":0,\"errors\":0,\"packets\":0}]}",
        "{\"cpu_util_total\":0,\"cpu_util_user\":0,\"cpu_util_system\":0,\"sender_has_retransmits\":0,\"streams\":{}}",
        "{\"cpu_util_total\":0,\"cpu_util_user\":0,\"cpu_util_system\":0,\"sender_has_retransmits\":7,\"streams\":[]}",
        "{\"cpu_util_total\":0,\"cpu_util_user\":0,\"cpu_util_system\":0,\"sender_has_retransmits\":0,\"streams\":[],\"server_output_json\":\"x\"}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(results_decode(bad[i], strlen(bad[i]), &q, &why), -1);
    }
    const char *ok = "{\"cpu_util_total\":0,\"cpu_util_user\":0,\"cpu_util_system\":0,"
                     "\"sender_has_retransmits\":-1,\"streams\":[],\"extra\":true,"
                     "\"server_output_json\":{\"end\":{}}}";
    assert_int_equal(results_decode(ok, strlen(ok), &q, &why), 0);
    assert_string_equal(q.server_output_json, "{\"end\":{}}");
    results_free(&q);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cookies_are_36_alphabet_chars_and_nul),
        cmocka_unit_test(frames_are_big_endian_and_bounded),
        cmocka_unit_test(decodes_real_iperf3_params),
        cmocka_unit_test(params_round_trip),
        cmocka_unit_test(params_ignore_unknown_keys),
        cmocka_unit_test(params_refuse_wrong_types),
        cmocka_unit_test(params_refuse_out_of_range),
        cmocka_unit_test(params_refuse_deep_nesting),
        cmocka_unit_test(params_over_8k_refused),
        cmocka_unit_test(framed_params_message),
        cmocka_unit_test(decodes_real_iperf3_results),
        cmocka_unit_test(results_round_trip_and_strictness),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
