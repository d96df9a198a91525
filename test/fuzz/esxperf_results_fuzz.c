/* libFuzzer: what esxperf's client reads from a server at the end of a test, read
 * the way the client reads it. Byte 0 gives the test's shape (bit 0 UDP, bit 1 -R,
 * bit 2 --bidir, bit 3 -J, bits 4-5 parallel - 1); the rest is the server's side of
 * the control connection after the client sent TEST_END (EXCHANGE_RESULTS, the
 * framed results JSON, DISPLAY_RESULTS). It goes into a socketpair whose other end
 * is then shut, and is read with ctl_recv_server_state and ctl_recv_results as
 * client.c does; a refusal must come with a reason, decoded results must keep the
 * bounds results_decode promises, and they are rendered by session_summary (text or
 * JSON, with the server's output spliced in) into a document that must parse.
 * Seeds: real iperf3 servers' bytes, captured by test/lib/capture_results.py, and an
 * esxperf server's with its esxperf_evidence (and a member no row knows). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "clock.h"
#include "jsonr.h"
#include "options.h"
#include "proto.h"
#include "session.h"

const char tool_name[] = "esxperf_results_fuzz";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define SOCKBUF (200u << 10)    /* an AF_UNIX stream pair takes this much unread */

static void check_bounds(const struct test_results *r)
{
    if (r->nstreams < 0 || r->nstreams > 2 * MAX_STREAMS || r->cpu_total < 0 ||
        r->cpu_total > RESULTS_CPU_MAX || r->sender_has_retransmits < -1 ||
        r->sender_has_retransmits > 1)
        abort();
    /* esxperf_evidence: each figure unknown or within its row's range */
    for (size_t i = 0; i < side_evidence_nrows; i++) {
        double v = *side_evidence_at((struct side_evidence *)&r->ev, &side_evidence_rows[i]);
        if (v != -1 && !(v >= 0 && v <= side_evidence_rows[i].max))
            abort();
    }
    for (int i = 0; i < r->nstreams; i++) {
        const struct stream_result *s = &r->streams[i];
        if (s->id < 1 || s->bytes < 0 || s->bytes > RESULTS_COUNT_MAX || s->packets < 0 ||
            s->errors < 0 || s->retransmits < -1 || s->end_time < 0 ||
            s->end_time > RESULTS_SECONDS_MAX || s->jitter < 0)
            abort();
    }
}

/* the client's end of test with these remote results: rows, sums, CPU, JSON */
static void render(unsigned shape, const struct test_results *remote)
{
    struct perf_opts o;
    struct test_params p;
    struct report rep;
    struct session s;
    opts_defaults(&o);
    o.json = (shape >> 3) & 1;
    o.interval = 0;
    params_defaults(&p);
    p.udp = shape & 1;
    p.reverse = (shape >> 1) & 1;
    p.bidir = !p.reverse && ((shape >> 2) & 1);
    p.parallel = 1 + ((shape >> 4) & 3);
    p.len = 1024;
    p.time = 1;
    rep_init(&rep, NULL, report_sink_for(&o), 'a', 0);
    session_init(&s, &o, &p, 1, &rep);
    int n = (int)p.parallel * (p.bidir ? 2 : 1);
    for (int i = 0; i < n; i++)
        if (!session_add(&s, -1, session_is_sender(&s, i)))
            abort();
    s.t_start = s.t_measure = 1;
    s.t_measure_end = 1 + NS_PER_SEC;
    s.remote = *remote;          /* the session frees the strings */
    s.have_remote = 1;
    if (o.json)
        session_report_start(&s, "127.0.0.1", 5201, "127.0.0.1", "cookie");
    session_summary(&s);
    rep.sink->peer_output(&rep, &s.remote);
    rep.sink->close(&rep);
    if (o.json) {
        size_t len = jw_len(&rep.jw);
        jsmntok_t *tok = calloc(len / 2 + 8, sizeof *tok);
        struct jsonr r;
        if (!tok || jr_parse(&r, jw_text(&rep.jw), len, tok, (int)(len / 2 + 8)) != JR_OK)
            abort();
        free(tok);
    }
    session_free(&s);
    rep_free(&rep);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size - 1 > SOCKBUF)
        return 0;
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
        abort();
    int buf = (int)SOCKBUF * 2;
    setsockopt(sv[1], SOL_SOCKET, SO_SNDBUF, &buf, sizeof buf);
    setsockopt(sv[0], SOL_SOCKET, SO_RCVBUF, &buf, sizeof buf);
    if (size > 1 && write(sv[1], data + 1, size - 1) != (ssize_t)(size - 1)) {
        close(sv[0]);
        close(sv[1]);
        return 0;            /* more than this machine's socket buffer */
    }
    close(sv[1]);            /* the server is gone: every read ends at once */

    uint64_t timeout = NS_PER_SEC;
    struct server_state ss;
    char text[400], why[300];
    why[0] = '\0';
    if (ctl_recv_server_state(sv[0], mono_ns() + timeout, &ss) == 0 &&
        ss.st != ST_EXCHANGE_RESULTS) {
        server_state_text(&ss, ST_EXCHANGE_RESULTS, text, sizeof text);
        if (!text[0])
            abort();
    } else if (ss.st == ST_EXCHANGE_RESULTS) {
        struct test_results r;
        if (ctl_recv_results(sv[0], timeout, &r, why, sizeof why) == 0) {
            check_bounds(&r);
            if (ctl_recv_server_state(sv[0], mono_ns() + timeout, &ss) == 0 &&
                ss.st != ST_DISPLAY_RESULTS)
                server_state_text(&ss, ST_DISPLAY_RESULTS, text, sizeof text);
            render(data[0], &r);
        } else if (!why[0]) {
            abort();         /* every refusal names the server's fault */
        }
    }
    close(sv[0]);
    return 0;
}
