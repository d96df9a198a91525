/* report.h's sink: the one choice of text or JSON (report_sink_for), and the JSON
 * document closed the same way from wherever a test fails: before it started
 * (iperf3's empty parts), inside its intervals, or after it was complete (left as
 * it is, printed again). Output into a memory file. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "options.h"
#include "proto.h"
#include "report.h"

const char tool_name[] = "esxperf_test";

struct fixture {
    struct perf_opts o;
    struct test_params p;
    struct start_info si;
    struct report r;
    char *buf;
    size_t len;
    FILE *out;
};

static void open_report(struct fixture *f, int json)
{
    memset(f, 0, sizeof *f);
    opts_defaults(&f->o);
    f->o.json = json;
    params_defaults(&f->p);
    f->out = open_memstream(&f->buf, &f->len);
    assert_non_null(f->out);
    rep_init(&f->r, f->out, report_sink_for(&f->o), 'a', 0);
}

/* what the report wrote, once its memory file is closed */
static const char *written(struct fixture *f)
{
    fclose(f->out);
    f->out = NULL;
    return f->buf;
}

static void close_report(struct fixture *f)
{
    if (f->out)
        fclose(f->out);
    rep_free(&f->r);
    free(f->buf);
}

static void start_test(struct fixture *f, const char *title)
{
    snprintf(f->p.title, sizeof f->p.title, "%s", title);
    f->si.is_client = 1;
    f->si.p = &f->p;
    f->si.host = "198.18.0.2";
    f->si.port = 5201;
    f->si.cookie = "cookie";
    f->si.mss = f->si.sndbuf = f->si.rcvbuf = -1;
    f->r.sink->start(&f->r, &f->si);
}

static int count(const char *s, const char *what)
{
    int n = 0;
    for (const char *p = s; (p = strstr(p, what)); p += strlen(what))
        n++;
    return n;
}

static void json_failure_before_a_test(void **state)
{
    (void)state;
    struct fixture f;
    open_report(&f, 1);
    f.r.extra_data = "rack 4";
    rep_printf(&f.r, "Connecting to host x, port 5201\n");   /* text only */
    f.r.sink->failure(&f.r, "cannot connect");
    assert_string_equal(written(&f), "{\n"
                                     "  \"start\": {},\n"
                                     "  \"intervals\": [],\n"
                                     "  \"end\": {},\n"
                                     "  \"error\": \"cannot connect\",\n"
                                     "  \"extra_data\": \"rack 4\"\n"
                                     "}\n\n");
    close_report(&f);
}

static void json_failure_inside_intervals(void **state)
{
    (void)state;
    struct fixture f;
    open_report(&f, 1);
    start_test(&f, "T1");
    f.r.sink->failure(&f.r, "lost the server");
    const char *doc = written(&f);
    /* intervals closed, no "end", the error before the title */
    const char *iv = strstr(doc, "\n  \"intervals\": []");
    const char *err = strstr(doc, "\n  \"error\": \"lost the server\"");
    const char *title = strstr(doc, "\n  \"title\": \"T1\"\n}\n");
    assert_non_null(iv);
    assert_non_null(err);
    assert_non_null(title);
    assert_true(iv < err && err < title);
    assert_int_equal(count(doc, "\"end\""), 0);
    close_report(&f);
}

static void json_failure_after_the_end_keeps_the_document(void **state)
{
    (void)state;
    struct fixture f;
    open_report(&f, 1);
    start_test(&f, "");
    f.r.sink->close(&f.r);
    f.r.sink->failure(&f.r, "cannot send our results");
    f.r.sink->failure(&f.r, "again");
    const char *doc = written(&f);
    /* the complete document, printed at each failure, never with an error in it */
    assert_int_equal(count(doc, "\"start\""), 2);
    assert_int_equal(count(doc, "\"error\""), 0);
    close_report(&f);
}

static void text_sink_lines_and_no_document(void **state)
{
    (void)state;
    struct fixture f;
    open_report(&f, 0);
    rep_printf(&f.r, "Connecting to host x, port 5201\n");
    f.r.sink->failure(&f.r, "cannot connect");     /* the log's line, not the report's */
    f.r.sink->done(&f.r, "\niperf Done.\n");
    assert_string_equal(written(&f), "Connecting to host x, port 5201\n\niperf Done.\n");
    close_report(&f);
}

static void one_choice(void **state)
{
    (void)state;
    struct perf_opts o;
    opts_defaults(&o);
    const struct report_sink *text = report_sink_for(&o);
    o.csv = 1;
    const struct report_sink *csv = report_sink_for(&o);
    o.json = 1;
    assert_ptr_equal(report_sink_for(&o), &report_json_sink);   /* -J over --csv */
    assert_ptr_not_equal(text, &report_json_sink);
    assert_ptr_not_equal(csv, &report_json_sink);
    assert_ptr_not_equal(text, csv);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(json_failure_before_a_test),
        cmocka_unit_test(json_failure_inside_intervals),
        cmocka_unit_test(json_failure_after_the_end_keeps_the_document),
        cmocka_unit_test(text_sink_lines_and_no_document),
        cmocka_unit_test(one_choice),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
