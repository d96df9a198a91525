/* libFuzzer: esxperf's control-message handling. Every input goes through the
 * params decoder, the server's own read of the framed parameters (ctl_recv_params,
 * fed through a socket pair as the control connection would) and the results decoder;
 * whatever decodes must re-encode and decode to the same values. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "jsonw.h"
#include "utf8.h"
#include "proto.h"
#include "clock.h"

const char tool_name[] = "esxperf_fuzz";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The writer turns bytes that are not UTF-8 into U+FFFD (common/jsonw.h): such an
 * input cannot come back byte for byte (and may no longer fit a field), so the
 * round trip is checked on UTF-8 inputs; every encoding must be UTF-8. */
static int is_utf8(const char *s, size_t n)
{
    for (size_t i = 0, k; i < n; i += k)
        if ((k = utf8_len(s + i, n - i)) == 0)
            return 0;
    return 1;
}

/* the bytes as the client's side of the control connection, then its end */
static void server_params(const uint8_t *data, size_t size, struct test_params *p)
{
    int sv[2];
    const char *why = NULL;
    int err = 0;
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
        abort();
    /* what does not fit the socket buffer is left out: a truncated message */
    (void)!send(sv[0], data, size, MSG_DONTWAIT | MSG_NOSIGNAL);
    shutdown(sv[0], SHUT_WR);
    ctl_recv_params(sv[1], mono_ns() + NS_PER_SEC, p, &why, &err);
    close(sv[0]);
    close(sv[1]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int utf8 = is_utf8((const char *)data, size);
    static struct test_params p, q;
    static struct test_results r, r2;
    const char *why = NULL;

    if (params_decode((const char *)data, size, &p, &why) == 0) {
        size_t n;
        char *js = params_encode(&p, &n);
        if (js && !is_utf8(js, n))
            abort();
        if (js && utf8) {
            if (params_decode(js, n, &q, &why) != 0)
                abort();
            if (q.parallel != p.parallel || q.len != p.len || q.udp != p.udp ||
                q.time != p.time || q.num != p.num || strcmp(q.title, p.title) != 0)
                abort();
        }
        free(js);
    }
    server_params(data, size, &p);

    if (results_decode((const char *)data, size, &r, &why) == 0) {
        size_t n;
        char *js = results_encode(&r, &n);
        if (js && !is_utf8(js, n))
            abort();
        if (js && utf8) {
            if (results_decode(js, n, &r2, &why) != 0)
                abort();
            if (r2.nstreams != r.nstreams)
                abort();
            for (int i = 0; i < r.nstreams; i++)
                if (r2.streams[i].id != r.streams[i].id || r2.streams[i].bytes != r.streams[i].bytes)
                    abort();
            results_free(&r2);
        }
        free(js);
        results_free(&r);
    }
    if (size >= COOKIE_SIZE)
        proto_cookie_valid((const char *)data, COOKIE_SIZE);
    return 0;
}
