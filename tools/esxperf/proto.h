/* iperf3 control protocol: cookie, state bytes, length-prefixed JSON messages,
 * the parameter JSON (client -> server) and the results JSON (both ways).
 * Encoders and decoders are pure functions over buffers (unit-tested, fuzzed);
 * the ctl_* functions do the socket I/O with deadlines. */
#ifndef ESXPERF_PROTO_H
#define ESXPERF_PROTO_H
#include <stddef.h>
#include <stdint.h>

/* state bytes (signed char on the wire) */
enum ctl_state {
    ST_TEST_START = 1, ST_TEST_RUNNING = 2, ST_TEST_END = 4, ST_PARAM_EXCHANGE = 9,
    ST_CREATE_STREAMS = 10, ST_SERVER_TERMINATE = 11, ST_CLIENT_TERMINATE = 12,
    ST_EXCHANGE_RESULTS = 13, ST_DISPLAY_RESULTS = 14, ST_IPERF_DONE = 16,
    ST_ACCESS_DENIED = -1, ST_SERVER_ERROR = -2,
};
const char *ctl_state_name(int st);

#define COOKIE_SIZE 37              /* 36 characters + NUL, on the wire as is */
#define PARAMS_MAX 8192             /* params JSON limit (as iperf3 3.18+) */
#define RESULTS_MAX (8u << 20)      /* our bound for results JSON (iperf3 has none) */
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

struct test_params {
    int udp;                 /* 0 TCP, 1 UDP */
    int reverse, bidir, nodelay;
    int64_t omit, time, num, blockcount, parallel, len, window, mss, bandwidth;
    int64_t fqrate, pacing_timer, burst, tos, flowlabel;
    int64_t server_affinity;  /* -A n,m: the CPU the client asks the server to use, -1 none */
    int get_server_output, udp_counters_64bit, repeating_payload, zerocopy;
    int dont_fragment, skip_rx_copy;
    char title[256];
    char extra_data[256];
    char congestion[32];
    char client_version[32];
    char authtoken[AUTHTOKEN_MAX];   /* produced by the auth hook, "" = none */
};
void params_defaults(struct test_params *p);
/* JSON text (compact) into a malloc'd string; NULL if it would exceed PARAMS_MAX */
char *params_encode(const struct test_params *p, size_t *len);
/* strict decode: unknown keys ignored, wrong types and out-of-range values refused,
 * above PARAMS_MAX refused. Returns 0 or -1 with a static reason in *why. */
int params_decode(const char *js, size_t len, struct test_params *p, const char **why);

struct stream_result {
    int id;
    int64_t bytes, retransmits, errors, packets, omitted_errors, omitted_packets;
    double jitter, start_time, end_time;
};
struct test_results {
    double cpu_total, cpu_user, cpu_system;
    int sender_has_retransmits;          /* 1, 0, or -1 (this side only received) */
    char congestion_used[32];
    int nstreams;
    struct stream_result streams[2 * MAX_STREAMS];
    char *server_output_text;            /* malloc'd or NULL */
    char *server_output_json;            /* malloc'd raw JSON text or NULL */
};
char *results_encode(const struct test_results *r, size_t *len);
/* decode into r (owned strings malloc'd; free with results_free) */
int results_decode(const char *js, size_t len, struct test_results *r, const char **why);
void results_free(struct test_results *r);
const struct stream_result *results_find(const struct test_results *r, int id);

/* socket I/O: return 0 or -1 with errno (ETIMEDOUT, ECONNRESET, EMSGSIZE, EPROTO) */
int ctl_send_state(int fd, int st, uint64_t deadline_ns);
int ctl_recv_state(int fd, int *st, uint64_t deadline_ns);
int ctl_send_json(int fd, const char *js, size_t len, uint64_t deadline_ns);
/* malloc'd NUL-terminated text; refuses (EMSGSIZE) lengths above max */
int ctl_recv_json(int fd, uint32_t max, char **js, size_t *len, uint64_t deadline_ns);

/* Handle one control byte stream as a server would after the cookie: a
 * length-prefixed params message. Used by the fuzz target and by server.c.
 * Returns 0 with *p filled, or -1 with *why. */
int proto_parse_params_message(const unsigned char *buf, size_t n, struct test_params *p,
                               const char **why);

#endif
