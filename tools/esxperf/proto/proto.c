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

const char *perf_errtext(int err)
{
    return err == EMFILE ? "Too many open files"
         : err == ENFILE ? "Too many open files in system" : errtext(err);
}

#define E(code, name, text) { code, #name, text }
const struct iperf3_error_info iperf3_errors[IPERF3_NERRORS] = {
    /* the command line and the parameters */
    E(0, IENONE, "no error"),
    E(1, IESERVCLIENT, "both -s and -c were given"),
    E(2, IENOROLE, "neither -s nor -c was given"),
    E(3, IESERVERONLY, "a client was given an option only a server takes"),
    E(4, IECLIENTONLY, "a server was given an option only a client takes"),
    E(5, IEDURATION, "the test length (-t) is out of range (0..86400 s)"),
    E(6, IENUMSTREAMS, "the stream count (-P) is out of range (1..128)"),
    E(7, IEBLOCKSIZE, "the block length (-l) is out of range (at most 1 MiB)"),
    E(8, IEBUFSIZE, "the socket buffer (-w) is out of range (at most 512 MiB)"),
    E(9, IEINTERVAL, "the report interval (-i) is out of range"),
    E(10, IEMSS, "the MSS (-M) is out of range (at most 32767)"),
    E(11, IENOSENDFILE, "zero-copy sending (-Z, sendfile) is not available there"),
    E(12, IEOMIT, "the omit time (-O) is out of range (0..600 s)"),
    E(13, IEUNIMP, "an option that iperf3 was built without"),
    E(14, IEFILE, "the -F file cannot be opened"),
    E(15, IEBURST, "the burst count (-b RATE/N) is out of range (1..1000)"),
    E(16, IEENDCONDITIONS, "more than one of -t, -n and -k was given"),
    E(17, IELOGFILE, "the --logfile cannot be opened"),
    E(18, IENOSCTP, "SCTP is not available there"),
    E(19, IEBIND, "--cport needs --bind (iperf3 no longer says this)"),
    E(20, IEUDPBLOCKSIZE, "the UDP datagram size (-l) is out of range (16..65507)"),
    E(21, IEBADTOS, "the TOS (-S) is out of range (0..255)"),
    E(22, IESETCLIENTAUTH, "client authentication needs --username, a password and "
                           "--rsa-public-key-path"),
    E(23, IESETSERVERAUTH, "server authentication needs --rsa-private-key-path and "
                           "--authorized-users-path"),
    E(24, IEBADFORMAT, "the report format (-f) is none of k m g t K M G T"),
    E(25, IEREVERSEBIDIR, "-R and --bidir were given together"),
    E(26, IEBADPORT, "the port is out of range (1..65535)"),
    E(27, IETOTALRATE, "the rate asked for is above the server's --server-bitrate-limit"),
    E(28, IETOTALINTERVAL, "the averaging time of --server-bitrate-limit is out of range"),
    E(29, IESKEWTHRESHOLD, "the --time-skew-threshold is not a positive number"),
    E(30, IEIDLETIMEOUT, "the --idle-timeout is out of range"),
    E(31, IERCVTIMEOUT, "the --rcv-timeout is out of range"),
    E(32, IERVRSONLYRCVTIMEOUT, "--rcv-timeout is for the receiving side only"),
    E(33, IESNDTIMEOUT, "the --snd-timeout is out of range"),
    E(34, IEUDPFILETRANSFER, "-F cannot be used with UDP"),
    E(35, IESERVERAUTHUSERS, "the server cannot read its authorized users file"),
    E(36, IECNTLKA, "the --cntl-ka idle time is not longer than interval x count"),
    E(37, IEMAXSERVERTESTDURATIONEXCEEDED, "the test would run longer than the server's "
                                           "--server-max-duration allows"),
    E(38, IEUNITVAL, "a number has an unknown unit suffix"),
    E(39, IERVRSONLYSKIPRXCOPY, "--skip-rx-copy (MSG_TRUNC) is not available there"),
    E(40, IEBADDSCP, "the --dscp value is neither 0..63 nor a known name"),
    /* the test */
    E(100, IENEWTEST, "a new test cannot be set up"),
    E(101, IEINITTEST, "the test cannot be initialized"),
    E(102, IELISTEN, "it cannot listen for connections"),
    E(103, IECONNECT, "it cannot connect to the server"),
    E(104, IEACCEPT, "it cannot accept the client's connection"),
    E(105, IESENDCOOKIE, "it cannot send the cookie"),
    E(106, IERECVCOOKIE, "it cannot read the client's cookie"),
    E(107, IECTRLWRITE, "it cannot write to the control connection"),
    E(108, IECTRLREAD, "it cannot read from the control connection"),
    E(109, IECTRLCLOSE, "the control connection closed unexpectedly"),
    E(110, IEMESSAGE, "a control message it does not know came (is the other side iperf3?)"),
    E(111, IESENDMESSAGE, "it cannot send a control message"),
    E(112, IERECVMESSAGE, "it cannot read a control message"),
    E(113, IESENDPARAMS, "it cannot send the test parameters"),
    E(114, IERECVPARAMS, "it cannot read the client's test parameters, or refuses them"),
    E(115, IEPACKAGERESULTS, "it cannot put its results together"),
    E(116, IESENDRESULTS, "it cannot send its results"),
    E(117, IERECVRESULTS, "it cannot read the other side's results"),
    E(118, IESELECT, "waiting on its sockets (select) failed"),
    E(119, IECLIENTTERM, "the client ended the test"),
    E(120, IESERVERTERM, "the server ended the test"),
    E(121, IEACCESSDENIED, "the server is busy with another test"),
    E(122, IESETNODELAY, "it cannot set TCP_NODELAY (-N)"),
    E(123, IESETMSS, "it cannot set the MSS (-M)"),
    E(124, IESETBUF, "it cannot set the socket buffer size (-w)"),
    E(125, IESETTOS, "it cannot set the IPv4 TOS (-S)"),
    E(126, IESETCOS, "it cannot set the IPv6 traffic class (-S)"),
    E(127, IESETFLOW, "it cannot set the IPv6 flow label (-L)"),
    E(128, IEREUSEADDR, "it cannot set SO_REUSEADDR on a socket"),
    E(129, IENONBLOCKING, "it cannot make a socket non-blocking"),
    E(130, IESETWINDOWSIZE, "it cannot set the window size (-w)"),
    E(131, IEPROTOCOL, "the protocol asked for does not exist"),
    E(132, IEAFFINITY, "it cannot pin itself to the CPU asked for (-A)"),
    E(133, IEDAEMON, "it cannot become a daemon (-D)"),
    E(134, IESETCONGESTION, "it cannot set the congestion control algorithm (-C)"),
    E(135, IEPIDFILE, "it cannot write its pid file (-I)"),
    E(136, IEV6ONLY, "it cannot set or clear IPV6_V6ONLY"),
    E(137, IESETSCTPDISABLEFRAG, "it cannot turn off SCTP fragmentation"),
    E(138, IESETSCTPNSTREAM, "it cannot set the number of SCTP streams"),
    E(139, IESETSCTPBINDX, "the SCTP bind addresses (-X) are wrong"),
    E(140, IESETPACING, "it cannot set socket pacing (--fq-rate)"),
    E(141, IESETBUF2, "the socket buffer size read back is not the one set (-w)"),
    E(142, IEAUTHTEST, "authentication failed"),
    E(143, IEBINDDEV, "it cannot bind to the device (--bind-dev; permissions?)"),
    E(144, IENOMSG, "nothing came within --rcv-timeout"),
    E(145, IESETDONTFRAGMENT, "it cannot set don't-fragment (--dont-fragment)"),
    E(146, IEBINDDEVNOSUPPORT, "binding to a device (ADDR%DEV) is not available there"),
    E(147, IEHOSTDEV, "ADDR%DEV is only for an IPv6 link-local address"),
    E(148, IESETUSERTIMEOUT, "it cannot set TCP_USER_TIMEOUT (--snd-timeout)"),
    E(150, IEPTHREADCREATE, "it cannot start a thread"),
    E(151, IEPTHREADCANCEL, "it cannot cancel a thread"),
    E(152, IEPTHREADJOIN, "it cannot join a thread"),
    E(153, IEPTHREADATTRINIT, "it cannot set up thread attributes"),
    E(154, IEPTHREADATTRDESTROY, "it cannot release thread attributes"),
    E(155, IESETCNTLKA, "it cannot turn on TCP keepalive (--cntl-ka)"),
    E(156, IESETCNTLKAKEEPIDLE, "it cannot set the keepalive idle time (--cntl-ka)"),
    E(157, IESETCNTLKAINTERVAL, "it cannot set the keepalive interval (--cntl-ka)"),
    E(158, IESETCNTLKACOUNT, "it cannot set the keepalive probe count (--cntl-ka)"),
    E(159, IEPTHREADSIGMASK, "it cannot set a thread's signal mask"),
    E(160, IESERVERTESTDURATIONEXPIRED, "the test ran past the server's --server-max-duration"),
    /* the data streams */
    E(200, IECREATESTREAM, "it cannot create a data stream"),
    E(201, IEINITSTREAM, "it cannot initialize a data stream"),
    E(202, IESTREAMLISTEN, "it cannot listen for data streams"),
    E(203, IESTREAMCONNECT, "it cannot connect a data stream"),
    E(204, IESTREAMACCEPT, "it cannot accept a data stream"),
    E(205, IESTREAMWRITE, "it cannot write to a data stream"),
    E(206, IESTREAMREAD, "it cannot read from a data stream"),
    E(207, IESTREAMCLOSE, "a data stream closed unexpectedly"),
    E(208, IESTREAMID, "a data stream came with an id it does not know"),
    /* timers */
    E(300, IENEWTIMER, "it cannot create a timer"),
    E(301, IEUPDATETIMER, "it cannot update a timer"),
};
#undef E

static int error_cmp(const void *key, const void *elem)
{
    int64_t k = *(const int64_t *)key;
    int c = ((const struct iperf3_error_info *)elem)->code;
    return k < c ? -1 : k > c;
}

const struct iperf3_error_info *iperf3_error_find(int64_t code)
{
    return bsearch(&code, iperf3_errors, IPERF3_NERRORS, sizeof iperf3_errors[0], error_cmp);
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
    const struct iperf3_error_info *e = iperf3_error_find(s->ierr);
    char ie[200], en[160] = "";
    if (e)
        snprintf(ie, sizeof ie, "%s (iperf3 error %ld)", e->text, (long)s->ierr);
    else
        snprintf(ie, sizeof ie, "unknown iperf3 error %ld%s", (long)s->ierr,
                 s->ierr < 0 || s->ierr > IE_MAX ? " (not an iperf3 error number)" : "");
    if (s->ncodes == 2 && (s->err < 0 || s->err > ERRNO_MAX))
        snprintf(en, sizeof en, ", errno %ld (not an errno value)", (long)s->err);
    else if (s->ncodes == 2 && s->err > 0)
        snprintf(en, sizeof en, ", errno %ld: %s", (long)s->err, perf_errtext((int)s->err));
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
        snprintf(buf, len, "the server has terminated (SERVER_TERMINATE: it was stopped, or "
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
