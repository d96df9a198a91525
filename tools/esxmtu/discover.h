/* Path-MTU discovery: which sizes to probe each round, and what the answers prove.
 *
 * The search is a pure state machine (disc_*), one per peer, so unit tests run it
 * against a simulated path; rounds.c drives every peer's search at once, over the
 * prober's sockets or esxcli's ping.
 * Round 1 probes a table of common link MTUs; later rounds probe evenly spaced
 * sizes between the largest size answered and the smallest size refused or lost,
 * sized so that the next round can finish the search (each round costs at most one
 * timeout). Explicit errors (frag-needed, Packet Too Big, local EMSGSIZE or ENOBUFS)
 * are proof and add their MTU as a hint; a too-big whose MTU cannot be (below the
 * minimum or a size answered, not below the probe) counts as a loss; a lost size is
 * only called failed after `confirm` lost copies and no answer (loss is not proof),
 * and `confirm` grows with the loss seen on sizes that passed: on a lossy path a size
 * that passes loses four copies in a row too often (1 in 625 at 20% loss, and one
 * search meets several such sizes). */
#ifndef ESXMTU_DISCOVER_H
#define ESXMTU_DISCOVER_H
#include <stddef.h>
#include <stdint.h>
#include "net.h"

#define DISC_MAX_FAIL 64
#define DISC_MAX_HINT 16
#define DISC_MAX_PLAN 256
#define DISC_MAX_ROUNDS 16
#define DISC_CONFIRM_MIN 4
#define DISC_CONFIRM_MAX 8       /* copies of one size in one round (the most rounds.c sends) */

struct disc_try { uint32_t mtu; unsigned copies; };
enum disc_outcome { DO_PASS = 0, DO_LOST, DO_TOO_BIG, DO_LOCAL, DO_ERROR };
enum disc_state { DS_RUN = 0, DS_FOUND, DS_NONE, DS_GAVE_UP };
#define DS_LAST DS_GAVE_UP
enum disc_proof { DP_NONE = 0, DP_TOO_BIG, DP_LOCAL, DP_LOSS, DP_MAX, DP_ERROR };
#define DP_LAST DP_ERROR

struct disc {
    uint32_t min, max;           /* search limits (IP packet sizes) */
    unsigned copies;             /* copies of each size per round */
    unsigned confirm;            /* lost copies (and no answer) that call a size failed:
                                  * DISC_CONFIRM_MIN..MAX, from the loss below */
    unsigned pass_sent, pass_lost;   /* copies of sizes that passed, and how many were lost */
    unsigned budget;             /* probes per round at most */
    uint32_t lo;                 /* largest size answered at full size, 0 = none */
    uint32_t cap;                /* smallest size refused with proof, max + 1 if none */
    enum disc_proof cap_proof;   /* for cap */
    struct { uint32_t mtu; unsigned losses; } fail[DISC_MAX_FAIL];
    size_t nfail;
    uint32_t hint[DISC_MAX_HINT];
    size_t nhint;
    unsigned rounds, timeouts, probes;
    enum disc_state state;
    enum disc_proof proof;       /* why the answer is the answer */
    uint32_t result;             /* path MTU when DS_FOUND */
    uint32_t smallest_failed;
};

void disc_init(struct disc *d, int family, uint32_t max);
/* sizes for the next round; 0 when the search is over (see d->state) */
size_t disc_plan(struct disc *d, struct disc_try *out, size_t max);
/* one size's outcome this round: info = MTU for TOO_BIG / LOCAL; lost = lost copies */
void disc_feed(struct disc *d, uint32_t mtu, enum disc_outcome outcome, uint32_t info, unsigned lost);
void disc_round_done(struct disc *d, int timed_out);
/* copies of a size that passed this round: `lost` of `sent` got no answer (the loss
 * rate of the path, which sets how many losses prove a failure) */
void disc_loss_seen(struct disc *d, unsigned sent, unsigned lost);
const char *disc_proof_name(enum disc_proof proof);   /* "too-big", "loss"... (JSON words) */
const char *disc_state_name(enum disc_state state);   /* "found", "none"... (JSON words) */

struct disc_report {
    enum disc_state state;
    enum disc_proof proof;
    uint32_t mtu, smallest_failed;
    unsigned rounds, timeouts, probes;
    double seconds;
    union sockaddr_any router;   /* the last router that sent a too-big hint */
    int router_set;
};
/* a search's end into its report (router left as it is: the driver sets it); a
 * search cut short (still DS_RUN) reports the largest size answered so far as mtu */
void disc_report_set(struct disc_report *out, const struct disc *d, double seconds);

#endif
