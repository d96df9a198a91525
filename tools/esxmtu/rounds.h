/* --discover for every peer at once: the rounds of all the peers' searches, side by side.
 *
 * Each peer's search is its own state machine (discover.c). A round: every peer still
 * searching plans its sizes, all their probes go out in one batch, 0.1 ms apart (the
 * send rate of a single peer's search), and the batch waits once: until every size
 * has an answer, or the per-probe timeout (-W) after the last send. Then each peer's
 * answers go to its own search, which plans its next round. So a run takes about as
 * long as its slowest peer's search, not the sum of them, and each peer's search sees
 * the same sizes, copies and spacing as when it runs alone.
 *
 * Bounds. One peer's round is at most DISC_MAX_PLAN sizes x DISC_CONFIRM_MAX copies
 * (2048 probes; in practice under 250: the search spends 192 a round, plus its lost
 * edge and hints). A batch holds at most ROUNDS_MAX_BATCH probes (whole peers: a round
 * of more goes out as several batches, one after another), so that many probes at most
 * are in flight, whatever the number of peers; memory is one batch of probes plus one
 * search (about 3 KiB) a peer. A search ends after DISC_MAX_ROUNDS rounds, so a run has
 * at most that many rounds, each of ceil(probes / ROUNDS_MAX_BATCH) batches, and a batch
 * takes its sends (0.41 s at most) + the send retries (127 ms at most) + -W.
 *
 * The scheduler (rounds_init/next/take) is pure, so unit tests run it against a
 * simulated network; rounds_run() is the thin loop that sends the batches. */
#ifndef ESXMTU_ROUNDS_H
#define ESXMTU_ROUNDS_H
#include <stddef.h>
#include <stdint.h>
#include "clock.h"
#include "discover.h"
#include "net.h"
#include "probe.h"

#define ROUNDS_MAX_BATCH 4096        /* probes in one batch, all peers: the most in flight */
#define ROUNDS_GAP_NS (100 * NS_PER_US)   /* between two sends of a batch */
_Static_assert(ROUNDS_MAX_BATCH >= DISC_MAX_PLAN * DISC_CONFIRM_MAX, "one peer's round fits a batch");

struct disc_target {
    const union sockaddr_any *dst;   /* kept: the batch's probes point at it */
    struct disc_report *out;         /* filled when its search ends */
};

struct rounds_peer {                 /* one peer's search and its current round */
    struct disc d;
    struct disc_try plan[DISC_MAX_PLAN];
    size_t nplan;                    /* 0: its search is over */
    size_t nprobes;                  /* what the plan puts on the wire */
};

struct rounds {
    const struct disc_target *t;
    struct rounds_peer *peer;
    size_t n;
    size_t *active, nactive;         /* peers searching this round, in the order given */
    size_t next;                     /* first of them whose round has not gone out yet */
    size_t from, to;                 /* the batch out now: active[from..to) */
    size_t cap;                      /* probes in one batch at most */
    unsigned rounds, batches;        /* of the whole run */
};

/* probes a plan puts on the wire (copies capped at DISC_CONFIRM_MAX) */
size_t rounds_probes(const struct disc_try *plan, size_t n);
/* a plan's probes into v[at..]: each size's copies adjacent, group group0 + its index,
 * sent ROUNDS_GAP_NS apart counting from the batch's start; returns the new end */
size_t rounds_fill(struct probe *v, size_t at, const union sockaddr_any *dst,
                   const struct disc_try *plan, size_t n, int group0);
/* one peer's answers to its round (its probes v[0..n), groups group0 + plan index)
 * into its search, and the round done; a too-big's router goes to out */
void rounds_fold(struct disc *d, const struct disc_try *plan, size_t nplan, const struct probe *v,
                 size_t n, int group0, struct disc_report *out);

/* every target's search, its first round planned (cap: probes a batch, at least one
 * peer's round); a search that ends is reported at once, with elapsed_s */
void rounds_init(struct rounds *r, const struct disc_target *t, size_t n, size_t cap);
/* the next batch into v (room for r->cap probes); 0 when every search is over */
size_t rounds_next(struct rounds *r, struct probe *v);
/* the answers to the batch rounds_next made: each peer's to its search, which plans
 * its next round; one that ends is reported, its seconds = elapsed_s */
void rounds_take(struct rounds *r, const struct probe *v, size_t n, double elapsed_s);
void rounds_free(struct rounds *r);

/* Run every target's search with real probes. Returns 0, or -1 on a system error (errno). */
int rounds_run(struct prober *p, const struct disc_target *t, size_t n, uint64_t timeout_ns);

#endif
