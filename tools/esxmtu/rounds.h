/* --discover for every peer at once: the rounds of all the peers' searches, side by side,
 * over a transport that takes a batch of sizes to the peers and brings back what each
 * size met: the socket prober (probe.c) or esxcli's ping (esxcli_ping.c). The one
 * driver for both.
 *
 * Each peer's search is its own state machine (discover.c). A round: every peer still
 * searching plans its sizes, all of them go out in one batch (on sockets 0.1 ms apart,
 * the send rate of a single peer's search), and the batch waits once: until every size
 * has an answer, or the per-probe timeout (-W) after the last send. Then each peer's
 * answers go to its own search, which plans its next round. So a run takes about as
 * long as its slowest peer's search, not the sum of them, and each peer's search sees
 * the same sizes, copies and spacing as when it runs alone. A stop signal ends the run
 * after the batch out: each search still running is reported as far as it went.
 *
 * Bounds. One peer's round is at most DISC_MAX_PLAN sizes x DISC_CONFIRM_MAX copies
 * (2048 probes; in practice under 250: the search spends 192 a round, plus its lost
 * edge and hints), or the transport's budget. A batch holds at most the transport's
 * cap of probes (whole peers: a round of more goes out as several batches, one after
 * another); on sockets ROUNDS_MAX_BATCH, so that many probes at most are in flight,
 * whatever the number of peers; memory is one batch plus one search (about 3 KiB) a
 * peer. A search ends after DISC_MAX_ROUNDS rounds, so a run has at most that many
 * rounds, each of ceil(probes / cap) batches, and a socket batch takes its sends
 * (0.41 s at most) + the send retries (127 ms at most) + -W.
 *
 * The scheduler (rounds_init/next/take) and the socket batch's layout and reading
 * (rounds_fill, rounds_read) are pure, so unit tests run them against a simulated
 * network; rounds_run() is the thin loop that hands the batches to the transport. */
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

/* one size of one peer's round in a batch: what the transport sends, and what it met */
struct round_try {
    const union sockaddr_any *dst;   /* the peer (kept: a batch's probes point at it) */
    uint32_t mtu;                    /* IP bytes */
    unsigned copies;                 /* 1..DISC_CONFIRM_MAX */
    /* the answer, filled by the transport */
    enum disc_outcome got;           /* the best answer of its copies */
    uint32_t info;                   /* the MTU a TOO_BIG / LOCAL named, 0 none */
    unsigned sent, lost;             /* copies that went out, and those that got no answer */
    union sockaddr_any router;       /* who said too-big, when router_set */
    int router_set;
};

/* how a batch reaches the peers */
struct rounds_transport {
    size_t cap;                      /* probes of one batch at most (at least one peer's round) */
    unsigned budget;                 /* probes of one peer's round at most, 0: the search's own */
    /* send the tries v[0..n), fill each one's answer: 0; 1 when a stop signal (stop.h)
     * came first; -1 with why when it failed */
    int (*batch)(void *ctx, struct round_try *v, size_t n, char *why, size_t len);
    void *ctx;
};

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
    unsigned budget;                 /* probes of one peer's round at most, 0: its own */
    size_t room;                     /* tries one batch may hold: the size rounds_next fills */
    unsigned rounds, batches;        /* of the whole run */
};

/* probes a plan puts on the wire (copies capped at DISC_CONFIRM_MAX) */
size_t rounds_probes(const struct disc_try *plan, size_t n);
/* the socket batch: tries t[0..n) as probes into v[at..], each size's copies adjacent,
 * group its index in t, sent ROUNDS_GAP_NS apart counting from the batch's start;
 * returns the new end */
size_t rounds_fill(struct probe *v, size_t at, const struct round_try *t, size_t n);
/* the prober's answers v[0..m) (groups as rounds_fill laid them) into each try's answer */
void rounds_read(const struct probe *v, size_t m, struct round_try *t, size_t n);
/* one peer's answered round (its tries v[0..n)) into its search, and the round done;
 * a too-big's router goes to out */
void rounds_fold(struct disc *d, const struct round_try *v, size_t n, struct disc_report *out);

/* every target's search, its first round planned (cap: probes a batch, at least one
 * peer's round; budget: probes of a peer's round, 0 the search's own); a search that
 * ends is reported at once, with elapsed_s */
void rounds_init(struct rounds *r, const struct disc_target *t, size_t n, size_t cap, unsigned budget);
/* the next batch into v (room for r->room tries); 0 when every search is over */
size_t rounds_next(struct rounds *r, struct round_try *v);
/* the answers to the batch rounds_next made: each peer's to its search, which plans
 * its next round; one that ends is reported, its seconds = elapsed_s */
void rounds_take(struct rounds *r, const struct round_try *v, size_t n, double elapsed_s);
/* a stop: each search still running reported as far as it went, its seconds = elapsed_s */
void rounds_stopped(struct rounds *r, double elapsed_s);
void rounds_free(struct rounds *r);

/* Run every target's search over the transport. Returns 0; 1 when a stop signal
 * ended it (each search reported as far as it went); -1 with why when the transport
 * failed. */
int rounds_run(const struct rounds_transport *tp, const struct disc_target *t, size_t n, char *why,
               size_t len);

/* the socket transport: the prober's batches, ROUNDS_MAX_BATCH probes at most, each
 * waiting timeout_ns after its last send; rounds_socket_close frees what it holds */
struct rounds_socket {
    struct prober *p;
    uint64_t timeout_ns;
    struct probe *v;                 /* ROUNDS_MAX_BATCH */
};
void rounds_socket_open(struct rounds_transport *tp, struct rounds_socket *s, struct prober *p,
                        uint64_t timeout_ns);
void rounds_socket_close(struct rounds_socket *s);

#endif
