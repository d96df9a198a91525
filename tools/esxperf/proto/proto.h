/* iperf3 control protocol: cookie, state bytes, length-prefixed JSON messages
 * (proto.c), the parameter JSON client -> server (proto_params.c) and the results
 * JSON both ways (proto_results.c). Encoders and decoders are pure functions over
 * buffers (unit-tested, fuzzed); the ctl_* functions do the socket I/O with
 * deadlines. The states in the order of a test: docs/iperf3-protocol.md
 * and client.c / server.c, which follow it phase by phase. */
#ifndef ESXPERF_PROTO_H
#define ESXPERF_PROTO_H
#include <stddef.h>
#include <stdint.h>

#include "clock.h"
#include "side_evidence.h"

/* state bytes (signed char on the wire) */
enum ctl_state {
    ST_TEST_START = 1, ST_TEST_RUNNING = 2, ST_TEST_END = 4, ST_PARAM_EXCHANGE = 9,
    ST_CREATE_STREAMS = 10, ST_SERVER_TERMINATE = 11, ST_CLIENT_TERMINATE = 12,
    ST_EXCHANGE_RESULTS = 13, ST_DISPLAY_RESULTS = 14, ST_IPERF_DONE = 16,
    ST_ACCESS_DENIED = -1, ST_SERVER_ERROR = -2,
    ST_FIRST = ST_SERVER_ERROR, ST_LAST = ST_IPERF_DONE,    /* the range of the names */
};
/* "TEST_START" ...; "unknown state" for a byte that is no state */
const char *ctl_state_name(int st);
/* errtext, with the words administrators search for when descriptors run out
 * ("Too many open files", as glibc and ESXi say; musl: "No file descriptors
 * available") */
const char *perf_errtext(int err);

/* iperf3's error codes (its i_errno, with its names) that esxperf sends or reads
 * after SERVER_ERROR; iperf3 numbers them 1..~400 (1xx test, 2xx stream, 3xx timer) */
enum iperf3_error {
    IE_LISTEN = 102,            /* cannot listen (our UDP data listener) */
    IE_RECVCOOKIE = 106,        /* cannot receive the cookie */
    IE_RECVPARAMS = 114,        /* cannot receive (or refuses) the parameters */
    IE_AUTHTEST = 142,          /* test authorization failed */
    IE_INITSTREAM = 201,        /* cannot set up a data stream (threads, memory) */
    IE_STREAMACCEPT = 204,      /* cannot accept a data stream (none came: ETIMEDOUT) */
    /* the server's limits and -F */
    IE_FILE = 14,               /* -F: cannot open the file */
    IE_TOTALRATE = 27,          /* --server-bitrate-limit passed */
    IE_UDPFILETRANSFER = 34,    /* -F with a UDP test */
    IE_MAXSERVERTESTDURATIONEXCEEDED = 37,  /* more time than --server-max-duration */
};
#define IE_MAX 999              /* above: no iperf3 error number */

/* Every error code iperf3 3.22 defines (its i_errno enum, iperf_api.h: 0..40
 * options, 100..160 the test, 200..208 streams, 300..301 timers), with iperf3's
 * name and a one-line description in our words, sorted by code (proto.c; the unit
 * test checks order and count). The client's message for SERVER_ERROR and -J's
 * "error" use it. */
struct iperf3_error_info {
    int code;
    const char *name;            /* iperf3's: "IEMAXSERVERTESTDURATIONEXCEEDED" */
    const char *text;            /* what went wrong, lower case, no full stop */
};
#define IPERF3_NERRORS 112
extern const struct iperf3_error_info iperf3_errors[IPERF3_NERRORS];
/* the entry for code, NULL for a number iperf3 3.22 does not define */
const struct iperf3_error_info *iperf3_error_find(int64_t code);

#define COOKIE_SIZE 37              /* 36 characters + NUL, on the wire as is */
#define PARAMS_MAX 8192             /* params JSON limit (as iperf3 3.18+) */
#define RESULTS_MAX (8u << 20)      /* our bound for results JSON (iperf3 has none) */
#define RESULTS_TOKENS_MAX (1 << 20) /* JSON tokens in one results message (20 MiB of them);
                                        iperf3's own results for 256 streams need ~6000 */
#define RESULTS_COUNT_MAX (1ll << 53) /* bytes, packets, errors, retransmits of one stream:
                                        exact in a double; 512 of them sum within int64 */
#define RESULTS_SECONDS_MAX 1e7      /* jitter, start and end times of a stream (s) */
#define RESULTS_CPU_MAX 1e5          /* percent: a thousand busy CPUs */
#define RESULTS_BODY_BPS (128u << 10) /* the results body gets 1 s more per 128 KiB announced */
#define MAX_STREAMS 128             /* -P limit; bidir doubles the stream count */
#define UDP_LEN_MIN 16
#define UDP_LEN_MAX 65507
#define TCP_LEN_MAX (16u << 20)
#define AUTHTOKEN_MAX 4096

/* 36 random characters from iperf3's alphabet, then NUL */
void proto_make_cookie(char cookie[COOKIE_SIZE]);
/* 1 when buf holds 36 alphabet characters followed by NUL */
int proto_cookie_valid(const char *buf, size_t n);

/* framing: 4-byte big-endian length then the JSON text */
void proto_frame_header(unsigned char hdr[4], uint32_t len);
/* length from a header; -1 when 0 or above max */
int proto_frame_len(const unsigned char hdr[4], uint32_t max, uint32_t *len);

/* The parameters of a test, one field per row of params_table.h: what the client
 * asks for and the server runs; after the exchange both sides' sessions and
 * streams read only this. */
struct test_params {
#define WIRE_FLAG(key, field, json, send, copy, otype, oname) int field;
#define WIRE_NUM(key, field, send, copy, otype, oname, dflt, min, max, range) int64_t field;
#define WIRE_STR(key, field, size, send, copy, otype, oname, dflt, fit) char field[size];
#include "params_table.h"
};
/* every field its row's default */
void params_defaults(struct test_params *p);
/* JSON text (compact) into a malloc'd string; NULL if it would exceed PARAMS_MAX */
char *params_encode(const struct test_params *p, size_t *len);
/* strict decode: unknown keys ignored, wrong types and out-of-range values refused,
 * above PARAMS_MAX refused. Returns 0 or -1 with a static reason in *why. */
int params_decode(const char *js, size_t len, struct test_params *p, const char **why);

/* params_table.h's rows as data, in its order (what the encoder and the decoder
 * walk; the unit test round-trips each) */
enum param_kind { PARAM_FLAG_BOOL, PARAM_FLAG_INT, PARAM_NUM, PARAM_STR };
enum param_send { PARAM_ALWAYS, PARAM_SET, PARAM_ASKED, PARAM_PROTO, PARAM_GSRO };
struct param_row {
    const char *key;
    enum param_kind kind;
    enum param_send send;
    size_t off;                 /* the field in struct test_params */
    size_t size;                /* STR: the field's size */
    int64_t dflt, min, max;     /* NUM */
    const char *sdflt;          /* STR: its default */
    int cut;                    /* STR: a longer string is cut (else refused) */
    const char *why;            /* the decoder's refusal: a bad value */
    const char *type_why;       /* NUM: not a whole number */
};
enum {
    PARAMS_NROWS = 0
#define WIRE_FLAG(key, field, json, send, copy, otype, oname) + 1
#define WIRE_NUM(key, field, send, copy, otype, oname, dflt, min, max, range) + 1
#define WIRE_STR(key, field, size, send, copy, otype, oname, dflt, fit) + 1
#include "params_table.h"
};
extern const struct param_row params_rows[PARAMS_NROWS];

struct stream_result {
    int id;
    int64_t bytes, retransmits, errors, packets, omitted_errors, omitted_packets;
    double jitter, start_time, end_time;
};
struct test_results {
    double cpu_total, cpu_user, cpu_system;
    int sender_has_retransmits;          /* 1, 0, or -1 (this side only received) */
    char congestion_used[32];
    /* esxperf's own addition, which iperf3 ignores: the busiest stream thread's CPU
     * used or waited for (runnable), % of one core; -1 unknown (an iperf3 peer) */
    double thread_cpu_demand;
    /* esxperf's evidence for the verdict (`esxperf_evidence`, one member per row of
     * evidence_table.h): every figure -1 from an iperf3 peer */
    struct side_evidence ev;
    int nstreams;
    struct stream_result streams[2 * MAX_STREAMS];
    char *server_output_text;            /* malloc'd or NULL */
    char *server_output_json;            /* malloc'd raw JSON text or NULL */
};
char *results_encode(const struct test_results *r, size_t *len);
/* decode into r (owned strings malloc'd; free with results_free). Refuses more than
 * RESULTS_TOKENS_MAX tokens, nesting deeper than JR_MAX_DEPTH, more than 2 x
 * MAX_STREAMS streams and values out of range (counts 0..RESULTS_COUNT_MAX, CPU
 * 0..100000 %, times 0..1e7 s), so what the report adds up and prints is sane.
 * esxperf's own keys are optional: a figure out of its row's range or of the wrong
 * type is unknown (-1), never an error, so a peer's bad evidence costs the verdict
 * that figure, not the test. */
int results_decode(const char *js, size_t len, struct test_results *r, const char **why);
void results_free(struct test_results *r);
const struct stream_result *results_find(const struct test_results *r, int id);

/* socket I/O: return 0 or -1 with errno (ETIMEDOUT, ECONNRESET, EMSGSIZE, EPROTO) */
int ctl_send_state(int fd, enum ctl_state st, uint64_t deadline_ns);
int ctl_recv_state(int fd, int *st, uint64_t deadline_ns);
int ctl_send_json(int fd, const char *js, size_t len, uint64_t deadline_ns);
/* malloc'd NUL-terminated text; refuses (EMSGSIZE) lengths above max */
int ctl_recv_json(int fd, uint32_t max, char **js, size_t *len, uint64_t deadline_ns);

/* What the client reads from a server that may be hostile: every read has a
 * deadline, every length is checked before anything is allocated, and each
 * failure comes back as a sentence naming the server's fault. */
struct server_state {
    int st;                  /* the state byte (signed) */
    int ncodes;              /* SERVER_ERROR: codes that came, 0..2 */
    int32_t ierr, err;       /* iperf3's i_errno and errno */
    int code_wait;           /* SERVER_ERROR: 1 = the codes did not come in time, 0 = closed */
    int io_err;              /* ctl_expect: no state came (errno: ETIMEDOUT, ECONNRESET...) */
};
#define SERVER_CODE_WAIT_NS (2 * NS_PER_SEC)  /* for SERVER_ERROR's codes */

/* SERVER_ERROR with its codes, in one write: i_errno and errno as big-endian int32;
 * err PROTO_CODE_ONLY sends i_errno alone, as iperf3 3.12 does after refusing a
 * token (its clients read one int then). Returns 0 or -1 with errno. */
#define PROTO_CODE_ONLY (-1)
int proto_send_error(int fd, enum iperf3_error ie, int err, uint64_t deadline_ns);
/* after a SERVER_ERROR byte: its codes into s (up to SERVER_CODE_WAIT_NS; 3.12
 * sends one after an auth failure) */
void proto_recv_error(int fd, struct server_state *s);
/* one state byte by deadline_ns; for SERVER_ERROR also its two big-endian int32
 * (up to SERVER_CODE_WAIT_NS more; iperf3 3.12 sends one after an auth failure).
 * Returns 0, or -1 with errno (ETIMEDOUT; ECONNRESET also for a closed connection) */
int ctl_recv_server_state(int fd, uint64_t deadline_ns, struct server_state *s);
/* "the server sent ..." for a state that is not `want` (or any state when want is 0):
 * ACCESS_DENIED, SERVER_ERROR with its codes (out-of-range ones named as such),
 * SERVER_TERMINATE, a known state out of turn, or a byte that is no state */
void server_state_text(const struct server_state *s, int want, char *buf, size_t len);
/* one state by deadline_ns (ctl_recv_server_state): 0 when it is want, else -1 with
 * got saying what came instead (another state, or io_err when none did) */
int ctl_expect(int fd, enum ctl_state want, uint64_t deadline_ns, struct server_state *got);
/* ctl_expect's -1 as one line: nothing for waited_s seconds, the connection
 * closed, or the state that came (server_state_text) */
void ctl_expect_text(const struct server_state *got, enum ctl_state want, unsigned waited_s,
                     char *buf, size_t len);
/* the server's results message: its length within timeout_ns, checked against
 * RESULTS_MAX, then the body (1 s more per RESULTS_BODY_BPS bytes announced), decoded
 * into r (free with results_free).
 * Returns 0, or -1 with why (what the server did wrong) and errno */
int ctl_recv_results(int fd, uint64_t timeout_ns, struct test_results *r, char *why,
                     size_t whylen);

/* The server's read of the client's parameters after the cookie: the framed
 * message (length 1..PARAMS_MAX) by deadline_ns, decoded by params_decode. The
 * fuzz target drives it through a socket pair. Returns 0 with *p filled, or -1
 * with *why and in *err the errno the SERVER_ERROR answer carries (EMSGSIZE,
 * ETIMEDOUT, EINVAL for bad parameters, 0 for a connection that failed). */
int ctl_recv_params(int fd, uint64_t deadline_ns, struct test_params *p, const char **why,
                    int *err);

#endif
