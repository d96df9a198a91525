/* The esxcli method: when this process cannot use the vmk's netstack, the check runs
 * through `esxcli network diag ping --netstack NAME --interface vmkN --df --size N
 * --count C --host PEER`, a full-size call and a small one per peer, and their plain
 * output is folded into the same struct vstats the prober's answers fill, so
 * verdict_decide() reaches the same verdicts: PASS, BLACK-HOLE (small sizes answered,
 * full size not), NO-REPLY, SHORT-REPLY, LOCAL-MTU (esxcli says the send was refused:
 * Message too long).
 *
 * What this method cannot see: a router's frag-needed / Packet Too Big (esxcli's
 * output has no field for it, so a path that says too-big reads as a BLACK-HOLE with
 * no router address), this host's interface MTU, and per-probe timing beyond the
 * summary's round-trip figures.
 *
 * The plain layout (the VCF 9.0 vSAN troubleshooting documentation shows it; its exact
 * spacing is not public): a `Trace:` list, one block per reply (Received Bytes, Host,
 * ICMP Seq, TTL, Round-trip Time: N us, Dup, Detail), then `Summary:` (Host Addr,
 * Transmitted, Recieved [ESXi's spelling], Duplicated, Packet Lost, Round-trip
 * Min/Avg/Max: N us). It is read by field name, any spacing and letter case, either
 * spelling of Received. --discover runs rounds.c's rounds over such calls (ecp_transport),
 * in smaller rounds. Parsing (ecp_parse, ecp_fold) is pure; ecp_run_all spawns
 * the calls (posix_spawn, at most ECP_PARALLEL at once), each bounded in time and in
 * bytes read. */
#ifndef ESXMTU_ESXCLI_PING_H
#define ESXMTU_ESXCLI_PING_H
#include <stddef.h>
#include <stdint.h>
#include "verdict.h"

#define ECP_OUT_MAX (256u << 10)     /* bytes read from one call at most */
#define ECP_PARALLEL 16              /* calls running at once at most */
#define ECP_ARGS_MAX 32
#define ECP_DISC_BUDGET 16           /* probes (and sizes) of one peer's --discover round at most */

struct ecp_result {
    int have_summary;                /* a Summary: with Transmitted was read */
    unsigned transmitted, received;  /* Summary */
    unsigned replies;                /* Trace blocks (Received Bytes lines) */
    unsigned short_replies;          /* of those, fewer bytes than data + 8 sent */
    int have_rtt;
    double rtt_min_ms, rtt_avg_ms, rtt_max_ms;
    int too_long;                    /* "Message too long": the send was refused here */
    char error[200];                 /* the first "Error..." line, "" if none */
};

/* one call: what to ask and what came back */
struct ecp_call {
    const char *argv[ECP_ARGS_MAX];  /* NULL-terminated; argv[0] is the esxcli path */
    char store[8][64];               /* room for the numbers in argv */
    uint32_t data_len;               /* --size */
    unsigned count, wait_s;          /* --count, --wait: the bounds of a true answer */
    struct ecp_result res;
    int exit_code;                   /* of esxcli; -1 when it did not run or finish */
    int stopped;                     /* not run, or killed, on a stop signal (stop.h) */
    char why[200];                   /* why it did not run or finish */
};

struct ecp_ask {                     /* what every call of a run shares */
    const char *esxcli, *netstack, *iface;   /* iface NULL: no --interface */
    unsigned count;
    unsigned wait_s;                 /* --wait, whole seconds (from -W, rounded up) */
    const char *interval;            /* --interval as given to -i, NULL: esxcli's default */
    int ttl;                         /* --ttl, 0: not given */
};

/* Parse one call's output (len bytes, need not end in NUL). data_len is the --size
 * asked, to tell short replies. Returns 0 when a Summary was read, else -1. */
int ecp_parse(const char *text, size_t len, uint32_t data_len, struct ecp_result *r);
/* -1 with why when a call's figures cannot be true: more transmitted than --count,
 * more received than transmitted, a round-trip time past --wait (or not min <= avg
 * <= max); 0 when they can. Pure (unit-tested). */
int ecp_untrusted(const struct ecp_call *c, char *why, size_t len);
/* the full-size call's results (and the small one's, NULL when there is none) into s;
 * its figures checked first (ecp_untrusted) */
void ecp_fold(const struct ecp_result *big, const struct ecp_result *small, struct vstats *s);
/* argv for one call to host (an address text), family AF_INET / AF_INET6 */
void ecp_build(struct ecp_call *c, const struct ecp_ask *a, const char *host, int family, uint32_t data_len);
/* Run the calls (at most ECP_PARALLEL at once, common/runcmd.h): each is killed, with
 * what it started, after deadline_s, or at once on a stop signal (stop.h). Fills each
 * call's res, exit_code, stopped, why. Returns 0; 1 when a stop signal ended the
 * calls; -1 when the runner failed (errno). */
int ecp_run_all(struct ecp_call *calls, size_t n, double deadline_s);
/* Run argv (stdout and stderr together, at most ECP_OUT_MAX bytes kept into *out,
 * which the caller frees), killed with what it started after deadline_s or on a stop
 * signal. Returns its exit code, or -1 with why when it could not run or finish. */
int ecp_capture(const char *const *argv, double deadline_s, char **out, size_t *len, char *why, size_t wlen);
/* the words of the human header for this method */
const char *ecp_method_desc(void);

struct peer;
/* The check for every peer through esxcli: a full-size call and (when the peer has
 * one) a small call each, folded into the peer's evidence (check_decide decides). Returns 0, or -1 with why when esxcli
 * did not answer in its layout (an esxcli error, a call that did not finish). */
int ecp_check(struct peer *peers, size_t n, const struct ecp_ask *a, char *why, size_t len);
struct rounds_transport;
/* --discover through esxcli: rounds.c's transport, each size one call with --count
 * its copies, a peer's round at most ECP_DISC_BUDGET probes (esxcli is one process a
 * size); a batch fails with why as ecp_check does. a is kept. */
void ecp_transport(struct rounds_transport *tp, const struct ecp_ask *a);

#endif
