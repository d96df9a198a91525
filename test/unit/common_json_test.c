/* common/jsonw.c and common/jsonr.c: writer output, strict reading, types, bounds. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "jsonr.h"
#include "jsonw.h"
#include "utf8.h"

const char tool_name[] = "test";

static void writes_compact_objects_in_call_order(void **state)
{
    (void)state;
    struct jsonw w;
    jw_init(&w, 0);
    jw_obj(&w, NULL);
    jw_str(&w, "b", "x\"y\\\n\x01");
    jw_int(&w, "a", -5);
    jw_uint(&w, "u", UINT64_MAX);
    jw_double(&w, "d", 2.0);
    jw_bool(&w, "t", 1);
    jw_null(&w, "n");
    jw_arr(&w, "e");
    jw_end(&w);
    jw_arr(&w, "l");
    jw_int(&w, NULL, 1);
    jw_obj(&w, NULL);
    jw_end(&w);
    jw_end(&w);
    jw_end(&w);
    assert_string_equal(jw_text(&w),
        "{\"b\":\"x\\\"y\\\\\\n\\u0001\",\"a\":-5,\"u\":18446744073709551615,\"d\":2.0,"
        "\"t\":true,\"n\":null,\"e\":[],\"l\":[1,{}]}");
    jw_free(&w);
}

static void take_hands_over_the_text_within_a_limit(void **state)
{
    (void)state;
    struct jsonw w;
    size_t n = 0;
    jw_init(&w, 0);
    jw_obj(&w, NULL);
    jw_int(&w, "a", 1);
    jw_end(&w);
    char *s = jw_take(&w, 7, &n);
    assert_non_null(s);
    assert_string_equal(s, "{\"a\":1}");
    assert_int_equal(n, 7);
    free(s);
    jw_init(&w, 0);
    jw_obj(&w, NULL);
    jw_int(&w, "a", 1);
    jw_end(&w);
    assert_null(jw_take(&w, 6, &n));      /* one byte over: refused, writer freed */
}

static void writes_pretty_output(void **state)
{
    (void)state;
    struct jsonw w;
    jw_init(&w, 1);
    jw_obj(&w, NULL);
    jw_int(&w, "mtu", 9000);
    jw_arr(&w, "p");
    jw_str(&w, NULL, "a");
    jw_end(&w);
    jw_end(&w);
    assert_string_equal(jw_text(&w), "{\n  \"mtu\": 9000,\n  \"p\": [\n    \"a\"\n  ]\n}\n");
    jw_free(&w);
}

static void non_finite_doubles_become_null(void **state)
{
    (void)state;
    struct jsonw w;
    jw_init(&w, 0);
    jw_obj(&w, NULL);
    jw_double(&w, "x", 1.0 / 0.0);
    jw_double_prec(&w, "y", 1.23456, 2);
    jw_end(&w);
    assert_string_equal(jw_text(&w), "{\"x\":null,\"y\":1.23}");
    jw_free(&w);
}

static int parse(struct jsonr *r, jsmntok_t *t, int max, const char *s)
{
    return jr_parse(r, s, strlen(s), t, max);
}

static void reads_typed_values(void **state)
{
    (void)state;
    jsmntok_t t[64];
    struct jsonr r;
    const char *js = "{\"tcp\":true,\"time\":10,\"len\":1e3,\"rate\":1.5,"
                     "\"title\":\"a\\u00e9\\n\",\"n\":null,\"arr\":[1,[2,3],{\"k\":4}],\"z\":0}";
    assert_int_equal(parse(&r, t, 64, js), JR_OK);
    int b;
    assert_int_equal(jr_bool(&r, jr_find(&r, 0, "tcp"), &b), 0);
    assert_true(b);
    int64_t i;
    assert_int_equal(jr_int(&r, jr_find(&r, 0, "time"), &i), 0);
    assert_int_equal(i, 10);
    assert_int_equal(jr_int(&r, jr_find(&r, 0, "len"), &i), 0);
    assert_int_equal(i, 1000);
    assert_int_equal(jr_int(&r, jr_find(&r, 0, "rate"), &i), -1);   /* not integral */
    double d;
    assert_int_equal(jr_double(&r, jr_find(&r, 0, "rate"), &d), 0);
    assert_true(d == 1.5);
    char s[16];
    assert_int_equal(jr_str(&r, jr_find(&r, 0, "title"), s, sizeof s), 0);
    assert_string_equal(s, "a\xc3\xa9\n");
    assert_int_equal(jr_str(&r, jr_find(&r, 0, "title"), s, 3), -1); /* too small */
    assert_true(jr_is_null(&r, jr_find(&r, 0, "n")));
    /* a surrogate pair is one code point; a lone surrogate becomes U+FFFD */
    jsmntok_t t2[8];
    struct jsonr r2;
    const char *sp = "{\"p\":\"\\ud83d\\ude00\",\"l\":\"\\ud83dx\"}";
    assert_int_equal(jr_parse(&r2, sp, strlen(sp), t2, 8), JR_OK);
    assert_int_equal(jr_str(&r2, jr_find(&r2, 0, "p"), s, sizeof s), 0);
    assert_string_equal(s, "\xf0\x9f\x98\x80");
    assert_int_equal(jr_str(&r2, jr_find(&r2, 0, "l"), s, sizeof s), 0);
    assert_string_equal(s, "\xef\xbf\xbdx");
    /* keys after nested containers are still found */
    assert_int_equal(jr_int(&r, jr_find(&r, 0, "z"), &i), 0);
    assert_int_equal(i, 0);
    int a = jr_find(&r, 0, "arr");
    assert_int_equal(jr_arr_len(&r, a), 3);
    assert_int_equal(jr_int(&r, jr_arr_at(&r, a, 0), &i), 0);
    assert_int_equal(jr_arr_len(&r, jr_arr_at(&r, a, 1)), 2);
    assert_int_equal(jr_int(&r, jr_find(&r, jr_arr_at(&r, a, 2), "k"), &i), 0);
    assert_int_equal(i, 4);
    assert_int_equal(jr_arr_at(&r, a, 3), -1);
    assert_int_equal(jr_find(&r, 0, "missing"), -1);
    /* a nested key is not a top-level key */
    assert_int_equal(jr_find(&r, 0, "k"), -1);
}

static void refuses_wrong_types(void **state)
{
    (void)state;
    jsmntok_t t[16];
    struct jsonr r;
    assert_int_equal(parse(&r, t, 16, "{\"tcp\":\"true\",\"time\":\"10\",\"s\":5}"), JR_OK);
    int b;
    int64_t i;
    char s[8];
    assert_int_equal(jr_bool(&r, jr_find(&r, 0, "tcp"), &b), -1);
    assert_int_equal(jr_int(&r, jr_find(&r, 0, "time"), &i), -1);
    assert_int_equal(jr_str(&r, jr_find(&r, 0, "s"), s, sizeof s), -1);
    assert_int_equal(jr_int(&r, -1, &i), -1);
}

static void refuses_bad_documents(void **state)
{
    (void)state;
    jsmntok_t t[64];
    struct jsonr r;
    assert_int_equal(parse(&r, t, 64, "{\"a\":1"), JR_EPART);
    assert_int_equal(parse(&r, t, 64, "{\"a\":tru}"), JR_EINVAL);
    assert_int_equal(parse(&r, t, 64, "{\"a\":01}"), JR_EINVAL);
    assert_int_equal(parse(&r, t, 64, "{\"a\":1.}"), JR_EINVAL);
    assert_int_equal(parse(&r, t, 64, "{\"a\":-}"), JR_EINVAL);
    assert_int_equal(parse(&r, t, 64, "{\"a\":nulls}"), JR_EINVAL);
    assert_int_equal(parse(&r, t, 64, "{\"a\":-1.5e+3}"), JR_OK);
    assert_int_equal(parse(&r, t, 64, "{1:2}"), JR_EINVAL);
    assert_int_equal(parse(&r, t, 64, "{\"a\":\"\\x\"}"), JR_EINVAL);
    assert_int_equal(parse(&r, t, 64, "[1,2]"), JR_ETOP);
    assert_int_equal(parse(&r, t, 64, "{} {}"), JR_EINVAL);
    assert_int_equal(parse(&r, t, 64, ""), JR_EPART);
    assert_int_equal(parse(&r, t, 2, "{\"a\":1,\"b\":2}"), JR_ENOMEM);
    char deep[128];
    size_t n = 0;
    deep[n++] = '{';
    deep[n++] = '"'; deep[n++] = 'a'; deep[n++] = '"'; deep[n++] = ':';
    for (int k = 0; k < 20; k++) deep[n++] = '[';
    for (int k = 0; k < 20; k++) deep[n++] = ']';
    deep[n++] = '}';
    deep[n] = 0;
    assert_int_equal(parse(&r, t, 64, deep), JR_EDEPTH);
    assert_string_equal(jr_strerror(JR_EDEPTH), "JSON nested too deeply");
}

/* a document nested depth deep inside {"a": ... } */
static char *nested(size_t depth, const char *inner)
{
    size_t n = strlen(inner), len = 6 + 2 * depth + n + 1;
    char *s = malloc(len + 1), *p = s;
    assert_non_null(s);
    p += sprintf(p, "{\"a\":");
    memset(p, '[', depth);
    p += depth;
    p += sprintf(p, "%s", inner);
    memset(p, ']', depth);
    p += depth;
    strcpy(p, "}");
    return s;
}

/* Size alone must not make the parser slow: a million nested arrays and an object
 * with half a million keys took minutes to hours (jsmn walked back over earlier
 * tokens at each closing bracket and each comma). Brackets in strings do not nest. */
static void parses_in_linear_time(void **state)
{
    (void)state;
    struct jsonr r;
    jsmntok_t t[64];
    char *deep = nested(1000000, "");
    jsmntok_t *big = calloc(1100000, sizeof *big);
    assert_non_null(big);
    assert_int_equal(parse(&r, big, 1100000, deep), JR_EDEPTH);
    free(deep);
    /* 15 arrays inside the top object: 16 levels, the limit */
    char *at_limit = nested(15, "1");
    assert_int_equal(parse(&r, t, 64, at_limit), JR_OK);
    free(at_limit);
    char *over = nested(16, "1");
    assert_int_equal(parse(&r, t, 64, over), JR_EDEPTH);
    free(over);
    assert_int_equal(parse(&r, t, 64, "{\"a\":\"[[[[[[[[[[[[[[[[[[[[\\\"[[[[[[[[\"}"), JR_OK);

    size_t keys = 500000, len = 6 * keys + 16;
    char *wide = malloc(len), *p = wide;
    assert_non_null(wide);
    *p++ = '{';
    for (size_t k = 0; k < keys; k++)
        p += sprintf(p, "%s\"k\":0", k ? "," : "");
    p += sprintf(p, ",\"z\":7}");
    assert_int_equal(jr_parse(&r, wide, (size_t)(p - wide), big, 1100000), JR_OK);
    int64_t z = 0;
    assert_int_equal(jr_int(&r, jr_find(&r, 0, "z"), &z), 0);
    assert_int_equal(z, 7);
    free(wide);
    free(big);
}

static void writer_output_reads_back(void **state)
{
    (void)state;
    struct jsonw w;
    jw_init(&w, 1);
    jw_obj(&w, NULL);
    jw_str(&w, "k\"ey", "v\t\x7f");
    jw_double(&w, "d", 0.1);
    jw_end(&w);
    jsmntok_t t[8];
    struct jsonr r;
    assert_int_equal(jr_parse(&r, jw_text(&w), jw_len(&w), t, 8), JR_OK);
    char s[8];
    assert_int_equal(jr_str(&r, jr_find(&r, 0, "k\\\"ey"), s, sizeof s), 0);
    assert_string_equal(s, "v\t\x7f");
    double d;
    assert_int_equal(jr_double(&r, jr_find(&r, 0, "d"), &d), 0);
    assert_true(d == 0.1);
    jw_free(&w);
}

/* the writer's policy (jsonw.h): output is valid JSON whatever bytes a string holds */
static void escapes_bytes_that_are_not_utf8(void **state)
{
    (void)state;
    static const struct { const char *in, *out; } cases[] = {
        { "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"" },
        { "a\xff" "b", "\"a\\ufffdb\"" },                       /* never UTF-8 */
        { "\x80x", "\"\\ufffdx\"" },                           /* stray continuation */
        { "\xc0\xaf", "\"\\ufffd\\ufffd\"" },                  /* overlong '/' */
        { "\xe0\x80\xaf", "\"\\ufffd\\ufffd\\ufffd\"" },       /* overlong, 3 bytes */
        { "\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"" },       /* surrogate U+D800 */
        { "\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"" }, /* above U+10FFFF */
        { "\xe2\x82", "\"\\ufffd\\ufffd\"" },                  /* cut short at the end */
        { "\xe2(x", "\"\\ufffd(x\"" },                         /* cut short mid-string */
        { "\x1b[31m\x07", "\"\\u001b[31m\\u0007\"" },          /* C0 controls */
        { "\x7f\xc2\x9b\xc2\xa0", "\"\\u007f\\u009b\xc2\xa0\"" },  /* DEL, C1 CSI; NBSP stays */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct jsonw w;
        jw_init(&w, 0);
        jw_str(&w, NULL, cases[i].in);
        assert_string_equal(jw_text(&w), cases[i].out);
        jw_free(&w);
    }
    /* keys follow the same rule */
    struct jsonw w;
    jw_init(&w, 0);
    jw_obj(&w, NULL);
    jw_str(&w, "k\xfe", "v");
    jw_end(&w);
    assert_string_equal(jw_text(&w), "{\"k\\ufffd\":\"v\"}");
    jw_free(&w);
    assert_int_equal(utf8_len("\xf0\x9f\x98\x80", 4), 4);
    assert_int_equal(utf8_len("\xf0\x9f\x98\x80", 3), 0);
    assert_int_equal(utf8_len("", 0), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(writes_compact_objects_in_call_order),
        cmocka_unit_test(take_hands_over_the_text_within_a_limit),
        cmocka_unit_test(writes_pretty_output),
        cmocka_unit_test(non_finite_doubles_become_null),
        cmocka_unit_test(reads_typed_values),
        cmocka_unit_test(refuses_wrong_types),
        cmocka_unit_test(refuses_bad_documents),
        cmocka_unit_test(parses_in_linear_time),
        cmocka_unit_test(writer_output_reads_back),
        cmocka_unit_test(escapes_bytes_that_are_not_utf8),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
