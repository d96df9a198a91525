/* esxperf settings (filled from the command line by the option engine,
 * common/args.c; every option is one row of options_table.h), the value
 * parsers behind -b/-l/-w/-n and the sweep lists, and the cross-option checks
 * (options_check.c). Pure, unit-tested. */
#ifndef ESXPERF_OPTIONS_H
#define ESXPERF_OPTIONS_H
#include <stddef.h>
#include <stdint.h>
#include "args.h"

#define SWEEP_MAX 32
#define AFFINITY_MAX 64
#define TIMESTAMP_FMT_DEFAULT "%c "   /* --timestamps without =FMT, as iperf3 */
#define TIMESTAMP_FMT_MAX 64

/* getopt_long's codes for the long-only options, one per LONG row of
 * options_table.h (short ones are their letter); perf_opts.given[] is indexed by
 * these codes */
enum perf_opt_code {
    O_LONG_BEFORE = 255,
#define LONG(code, name, arg, role, set, help) code,
#include "options_table.h"
    O_CODE_END
};

/* the rows of options_table.h as data for the option engine (common/args.h's
 * struct opt_row): what --help, getopt_long, opts_set and the role checks are
 * made of. A row's role: */
enum perf_opt_role { PERF_ROLE_ANY, PERF_ROLE_CLIENT, PERF_ROLE_SERVER };
/* rows in the table, TEXT rows included: the bound of every table derived from it */
enum {
    PERF_OPT_ROWS = 0
#define OPT(letter, name, arg, role, set, help) + 1
#define LONG(code, name, arg, role, set, help) + 1
#define ALIAS(code, name, arg, named) + 1
#define TEXT(help) + 1
#include "options_table.h"
};
extern const struct opt_row perf_options[PERF_OPT_ROWS];
/* the rows and how esxperf words getopt's refusals (common/args.h) */
extern const struct args_table perf_table;
/* --help: every row's help in order (built at compile time) */
extern const char perf_usage[];
/* how messages name an option: "-t", "--bidir", or a long-only option with its
 * other long names, "--server-max-duration (--max-duration)" */
const char *opts_name(int code, char *buf, size_t len);

struct perf_opts {
    char **argv_started;        /* the command line as started (-D's restart) */
    int server;                 /* -s */
    const char *host;           /* -c HOST */
    uint16_t port;              /* -p, default 5201 */
    int family;                 /* AF_UNSPEC, -4, -6 */
    const char *bind;           /* -B */
    uint16_t cport;             /* --cport */
    /* the options the client sends as test parameters: one field for each row of
     * params_table.h with an option (its otype and oname there, beside the key) */
#define WIRE_FLAG(key, field, json, send, copy, otype, oname) OPTION_FIELD_##copy(otype, oname)
#define WIRE_NUM(key, field, send, copy, otype, oname, dflt, min, max, range) \
    OPTION_FIELD_##copy(otype, oname)
#define WIRE_STR(key, field, size, send, copy, otype, oname, dflt, fit) \
    OPTION_FIELD_##copy(otype, oname)
#define OPTION_FIELD_OPT(otype, oname) otype oname;
#define OPTION_FIELD_OWN(otype, oname) otype oname;
#define OPTION_FIELD_NONE(otype, oname)
#include "params_table.h"
#undef OPTION_FIELD_OPT
#undef OPTION_FIELD_OWN
#undef OPTION_FIELD_NONE
    double interval;            /* -i, 0 = none */
    int bandwidth_set;          /* -b given (the rate: bandwidth, params_table.h) */
    int64_t cooldown;           /* --cooldown seconds */
    int64_t rr_timeout_ms;      /* --rr-timeout: a request's answer waited for (rr_io.h) */
    int64_t rr_limit_ns;        /* --rr-limit, 0 none (rr_verdict.h) */
    int rr_role;                /* --rr-role: RR_ROLE_*, -1 none (vSAN's limit) */
    int64_t rr_idle;            /* --rr-load=SEC: the idle phase, seconds */
    int naffinity;              /* -A: CPUs for this side's stream threads, round-robin */
    int affinity[AFFINITY_MAX];
    int json;                   /* -J */
    int one_off;                /* -1 */
    int verbose;                /* -V */
    const char *logfile;
    int forceflush;
    int64_t connect_timeout_ms; /* --connect-timeout, -1 = none */
    int64_t idle_timeout;       /* --idle-timeout seconds, 0 = none */
    char format;                /* -f */
    /* sweeps */
    int sweep_np, sweep_nw;
    int64_t sweep_parallel[SWEEP_MAX];
    int64_t sweep_window[SWEEP_MAX];
    int csv;
    int quiet;                  /* internal: sweep runs print nothing per test */
    int log_fd;                 /* internal: -s -D --logfile, opened; the server moves
                                   its output there once it listens (-1: none) */
    /* RSA authentication, iperf3-compatible (auth.h) */
    const char *username;       /* client --username */
    const char *rsa_public_key; /* client --rsa-public-key-path */
    int use_pkcs1;              /* --use-pkcs1-padding (both roles; default OAEP) */
    const char *rsa_private_key;    /* server --rsa-private-key-path */
    const char *authorized_users;   /* server --authorized-users-path */
    int64_t time_skew;          /* server --time-skew-threshold s, default 10 */
    int allow_readable_key;     /* server --allow-readable-key */
    /* server hardening */
    int64_t control_timeout_ms; /* --control-timeout: a silent control connection
                                   is dropped after this, default 10000 */
    int64_t max_duration;       /* --server-max-duration / --max-duration SEC: the server
                                   refuses longer tests and ends any still running
                                   then; 0 = no cap */
    /* output, run and server options of iperf3 3.17..3.22 */
    int json_stream;            /* --json-stream: one JSON event a line (sets -J) */
    int json_stream_full;       /* --json-stream-full-output: the whole document too */
    const char *timestamps;     /* --timestamps[=FMT]: strftime prefix, NULL = none */
    const char *file;           /* -F NAME: send from / write what arrives to NAME */
    int daemon;                 /* -D: the server detaches */
    const char *pidfile;        /* -I FILE: our pid in FILE while we run */
    uint64_t bitrate_limit;     /* --server-bitrate-limit bits/s, 0 = none */
    double bitrate_limit_secs;  /* its averaging window, seconds (default 5) */
    int64_t debug;              /* -d/--debug[=LEVEL] 1..4 (4 without one): sets -V */
    /* socket and wire options of iperf3 3.22 (sockopt_parse.c) */
    int64_t rcv_timeout_ms;     /* --rcv-timeout: a receiver that gets nothing this long
                                   ends the test (default 120000, as iperf3) */
    int64_t snd_timeout_ms;     /* --snd-timeout: TCP_USER_TIMEOUT, 0 = the system's */
    int cntl_ka;                /* --cntl-ka[=IDLE/INTV/CNT]: control keepalive */
    int cntl_ka_idle, cntl_ka_intv, cntl_ka_cnt;    /* seconds, seconds, probes; 0 = system */
    const char *bind_dev;       /* --bind-dev, -B ADDR%DEV, -c HOST%DEV: SO_BINDTODEVICE */
    int gsro;                   /* --gsro: asks an iperf3 3.22 server for UDP GSO/GRO */
    const char *netstack;       /* --netstack NAME: the ESXi netstack to run in (perf_netstack.h) */
    char bind_part[256], host_part[256];    /* -B / -c without their %DEV */
    /* which options the command line gave (getopt code -> 1), for opts_validate
     * and opts_warning: a default and an explicit value look alike otherwise */
    unsigned char given[O_CODE_END];
};
void opts_defaults(struct perf_opts *o);
/* one option from getopt_long (code: its letter or enum perf_opt_code, value: its
 * argument or NULL): marks it given and sets its field. Returns 0; -1 with one
 * line in why for a bad value (a usage error); 1 for a code it does not set
 * (-h, -v, getopt's '?' and ':': main's business). Adding an option: its field
 * here (for one the client sends to the server: its row in params_table.h
 * instead) and its row in options_table.h. */
int opts_set(struct perf_opts *o, int code, const char *value, char *why, size_t len);

/* a number as C writes it (decimal, 0x hex, 0 octal), as iperf3 reads -S, -L and
 * -A (strtol base 0), within [min, max]; anything after the number is refused */
/* sizes for -l/-w/-n/-k with K/M/G/T suffixes (1024-based), within [min, max] */
int opt_parse_size(const char *s, int64_t min, int64_t max, int64_t *out, const char **why);
/* -b RATE[/BURST]: k/m/g/t 1000-based bits per second; burst 1..1000 */
int opt_parse_rate(const char *s, uint64_t *bps, int64_t *burst, const char **why);
/* "1-8" or "1,2,4,8" (or mixed) -> list of stream counts 1..128 */
int opt_parse_counts(const char *s, int64_t *out, int *n, const char **why);
/* -A "n", "a-b" (stream threads round-robin over a..b), either with ",m" for the
 * server; CPUs 0..1024 (iperf3's bound), this side's as C writes numbers (0x10),
 * the server's decimal, as iperf3 reads them */
int opt_parse_affinity(const char *s, int *cpus, int *n, int *server_cpu, const char **why);
/* "64K,256K,1M" -> list of window sizes */
int opt_parse_sizes(const char *s, int64_t *out, int *n, const char **why);

/* iperf3 3.22's socket and wire option values (sockopt_parse.c), each 0 or -1:
 * --dscp NAME|N: the TOS byte (names af11..af43, cs0..cs7, ef, va, lowdelay,
 * throughput, reliability in any case; N 0..63 in any base, shifted left 2);
 * -L: a flow label 1..0xfffff in any base; --cntl-ka's IDLE/INTV/CNT (NULL or
 * empty parts = 0, the system's; with *why); ADDR%DEV into host (ADDR) and *dev
 * (NULL without %DEV, or for an IPv6 link-local address, whose %zone stays) */
int opt_parse_dscp(const char *s, int *tos);
int opt_parse_flowlabel(const char *s, int64_t *label);
int opt_parse_cntl_ka(const char *s, int *idle, int *intv, int *cnt, const char **why);
int opt_split_dev(const char *spec, char *host, size_t hostcap, const char **dev);

/* Cross-option checks on a whole command line (pure: no socket, no file).
 * opts_validate: 0 when the options make sense together, else -1 and one line in
 * why saying what contradicts what and what to do (a usage error, exit 2).
 * opts_warning: options that are accepted but do nothing here; returns the
 * index of the first such warning at or after k with its line in why, or -1
 * when there is none left (call with k = 0, then k = returned + 1). */
int opts_validate(const struct perf_opts *o, char *why, size_t len);
int opts_warning(const struct perf_opts *o, int k, char *why, size_t len);

#endif
