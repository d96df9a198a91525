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

/* the names of the states, by state - ST_FIRST */
static const char *const state_names[] = {
    [ST_SERVER_ERROR - ST_FIRST] = "SERVER_ERROR",
    [ST_ACCESS_DENIED - ST_FIRST] = "ACCESS_DENIED",
    [ST_TEST_START - ST_FIRST] = "TEST_START",
    [ST_TEST_RUNNING - ST_FIRST] = "TEST_RUNNING",
    [ST_TEST_END - ST_FIRST] = "TEST_END",
    [ST_PARAM_EXCHANGE - ST_FIRST] = "PARAM_EXCHANGE",
    [ST_CREATE_STREAMS - ST_FIRST] = "CREATE_STREAMS",
    [ST_SERVER_TERMINATE - ST_FIRST] = "SERVER_TERMINATE",
    [ST_CLIENT_TERMINATE - ST_FIRST] = "CLIENT_TERMINATE",
    [ST_EXCHANGE_RESULTS - ST_FIRST] = "EXCHANGE_RESULTS",
    [ST_DISPLAY_RESULTS - ST_FIRST] = "DISPLAY_RESULTS",
    [ST_IPERF_DONE - ST_FIRST] = "IPERF_DONE",
};
_Static_assert(ARRAY_SIZE(state_names) == ST_LAST - ST_FIRST + 1,
               "a name for every state from ST_FIRST to ST_LAST");

const char *ctl_state_name(int st)
{
    if (st < ST_FIRST || st > ST_LAST || !state_names[st - ST_FIRST])
        return "unknown state";
    return state_names[st - ST_FIRST];
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

int ctl_send_state(int fd, enum ctl_state st, uint64_t deadline_ns)
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
    if (s->st == ST_SERVER_ERROR)
        proto_recv_error(fd, s);
    return 0;
}

int ctl_expect(int fd, enum ctl_state want, uint64_t deadline_ns, struct server_state *got)
{
    if (ctl_recv_server_state(fd, deadline_ns, got) < 0) {
        got->io_err = errno;
        return -1;
    }
    return got->st == want ? 0 : -1;
}

void ctl_expect_text(const struct server_state *got, enum ctl_state want, unsigned waited_s,
                     char *buf, size_t len)
{
    int e = got->io_err;
    if (!e)
        server_state_text(got, want, buf, len);
    else if (e == ETIMEDOUT)
        snprintf(buf, len, "the server sent nothing for %u s when %s was due (it is stuck, "
                 "or is no iperf3 server)", waited_s, ctl_state_name(want));
    else if (e == ECONNRESET || e == EPIPE)
        snprintf(buf, len, "the server closed the control connection when %s was due",
                 ctl_state_name(want));
    else
        snprintf(buf, len, "waiting for %s from the server: %s", ctl_state_name(want),
                 errtext(e));
}

/* ---- SERVER_ERROR and its codes */

int proto_send_error(int fd, enum iperf3_error ie, int err, uint64_t deadline_ns)
{
    unsigned char b[9];
    b[0] = (unsigned char)(signed char)ST_SERVER_ERROR;
    store_be32(b + 1, (uint32_t)ie);
    if (err != PROTO_CODE_ONLY)
        store_be32(b + 5, (uint32_t)err);
    return net_write_full(fd, b, err == PROTO_CODE_ONLY ? 5 : 9, deadline_ns);
}

void proto_recv_error(int fd, struct server_state *s)
{
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
}

#define ERRNO_MAX 4095          /* Linux's largest errno */

static void server_error_text(const struct server_state *s, char *buf, size_t len)
{
    if (s->ncodes == 0) {
        snprintf(buf, len, "the server reported an error (SERVER_ERROR) but %s",
                 s->code_wait ? "sent no error code within 2 s"
                              : "closed the connection before its error code");
        return;
    }
    if (s->ierr == IE_AUTHTEST) {
        snprintf(buf, len, "the server refused the test: authentication failed");
        return;
    }
    char ie[80], en[160] = "";
    snprintf(ie, sizeof ie, "iperf3 error %ld%s", (long)s->ierr,
             s->ierr < 0 || s->ierr > IE_MAX ? " (not an iperf3 error number)" : "");
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
