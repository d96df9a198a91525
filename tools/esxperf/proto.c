/* The control connection of iperf3's protocol: the cookie, the state bytes, the
 * length-prefixed frames, and what the client reads when a server answers with
 * something else than the state it waits for. The JSON it carries is
 * proto_params.c's and proto_results.c's. */
#include "proto.h"
#include "bytes.h"
#include "clock.h"
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
