/* One running test: the streams (each on a thread of its own, or a lone stream
 * on the session's thread where the host gives none), the clock (omit / measure /
 * cooldown), the books of each stream's counters read at interval ticks and at
 * the end, and the end of the test (when, stopping the streams). The figures at
 * the end are totals.c's; what is printed, and how, is report.c's and
 * report_json.c's. */
#include "session.h"
#include "drive.h"
#include "rr_session.h"
#include "clock.h"
#include "fail.h"
#include "fallback.h"
#include "net.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <sys/utsname.h>
#include <time.h>


void session_init(struct session *s, const struct perf_opts *o, const struct test_params *p,
                  int is_client, struct report *rep)
{
    memset(s, 0, sizeof *s);
    s->o = o;
    s->p = *p;
    s->is_client = is_client;
    s->rep = rep;
    s->st = xcalloc(2 * MAX_STREAMS, sizeof *s->st);
    s->bk = xcalloc(2 * MAX_STREAMS, sizeof *s->bk);
    s->iv = xcalloc(1, sizeof *s->iv);
    s->cooldown = is_client && o->cooldown > 0;
    if (p->rr)
        s->rr = xcalloc(1, sizeof *s->rr);
    /* -n/-k bound every TCP sender and the client's UDP senders. The client
     * decides the end of a counted test from what it sent or RECEIVED (counted_end);
     * a UDP receiver that lost datagrams reaches the count only if the sender goes
     * on, so a sending server's UDP streams send until TEST_END. iperf3's server
     * does so only when paced (iperf_send_mt in iperf_api.c: its "stop at the
     * count" test runs only when multisend > 1, i.e. unpaced or --burst), which
     * strands its own client after one loss with -b 0; TCP loses nothing, and
     * there it stops at the count of whole blocks (tcp_io.c), which is what
     * iperf3 reports against itself unpaced */
    int budgeted = is_client || !p->udp;
    if (p->num && budgeted) {
        s->sh.has_budget_bytes = 1;
        atomic_store(&s->sh.budget_bytes, p->num);
    }
    if (p->blockcount && budgeted) {
        s->sh.has_budget_blocks = 1;
        atomic_store(&s->sh.budget_blocks, p->blockcount);
    }
}

void session_free(struct session *s)
{
    atomic_store(&s->sh.stop_send, 1);
    atomic_store(&s->sh.stop_recv, 1);
    for (int i = 0; i < s->nstreams; i++)
        stream_free(&s->st[i]);
    free(s->st);
    free(s->bk);
    free(s->iv);
    free(s->rr);
    s->rr = NULL;
    results_free(&s->remote);
    s->st = NULL;
    s->bk = NULL;
    s->iv = NULL;
}

int session_stream_id(int index)
{
    return index == 0 ? 1 : index + 2;
}

int session_is_sender(const struct session *s, int index)
{
    int n = (int)s->p.parallel;
    if (s->p.bidir)
        return s->is_client ? index < n : index >= n;
    return s->is_client ? !s->p.reverse : s->p.reverse;
}

int session_group(const struct session *s, int i)
{
    return s->p.bidir && i >= s->p.parallel;
}

const char *session_role(const struct session *s, int i)
{
    if (!s->p.bidir)
        return NULL;
    int snd = s->st[i].sender;
    if (s->is_client)
        return snd ? "TX-C" : "RX-C";
    return snd ? "TX-S" : "RX-S";
}

struct stream *session_add(struct session *s, int fd, int sender)
{
    if (s->nstreams >= 2 * MAX_STREAMS)
        return NULL;
    int i = s->nstreams;
    /* --rr-load: -l is the requests' size; the bulk streams move RR_LOAD_LEN blocks */
    struct test_params *bulk = s->p.rr_load && i > 0 ? xmalloc(sizeof *bulk) : NULL;
    if (bulk) {
        *bulk = s->p;
        bulk->len = RR_LOAD_LEN;
    }
    int rc = stream_init(&s->st[i], session_stream_id(i), fd, sender, bulk ? bulk : &s->p, &s->sh);
    free(bulk);
    if (rc < 0)
        return NULL;
    s->nstreams++;
    /* --rr: the stream's book and buffers (rr_io.h) */
    if (s->p.rr && (!s->p.rr_load || i == 0) &&
        rr_stream_init(&s->st[i], &s->p, s->o->rr_timeout_ms, s->is_client) < 0) {
        s->st[i].fd = -1;        /* the caller closes it */
        stream_free(&s->st[i]);
        s->nstreams--;
        errno = ENOMEM;
        return NULL;
    }
    if (s->o->file && stream_file_open(&s->st[i], s->o->file) < 0) {
        int e = errno;
        s->st[i].fd = -1;        /* the caller closes it */
        stream_free(&s->st[i]);
        s->nstreams--;
        errno = e;
        return NULL;
    }
    s->bk[i].min_rtt = -1;
    s->bk[i].max_snd_wnd = s->bk[i].reorder = -1;
    return &s->st[i];
}

static void book_snapshot(struct session *s, int i, uint64_t *bytes, uint64_t *blocks,
                          uint64_t *calls, int64_t *retr, struct udp_rx *rx)
{
    struct stream *st = &s->st[i];
    *bytes = atomic_load(&st->bytes);
    *blocks = atomic_load(&st->blocks);
    *calls = atomic_load(&st->calls);
    *retr = -1;
    if (!st->udp && st->sender) {
        struct tcp_sample t;
        if (stream_tcp_info(st->fd, &t) == 0)
            *retr = t.retrans;
    }
    if (st->udp && !st->sender)
        stream_rx_snapshot(st, rx);
    else
        udp_rx_init(rx);
}

/* a TCP sender's sample into the end figures' extremes */
static void book_tcp_fold(struct session *s, int i, const struct tcp_sample *t)
{
    struct stream_book *b = &s->bk[i];
    if (t->snd_wnd > b->max_snd_wnd)
        b->max_snd_wnd = t->snd_wnd;
    b->reorder = t->reorder;
    s->tcpinfo_ok = 1;
    b->tcpinfo_ok = 1;
    if (t->cwnd > b->max_cwnd)
        b->max_cwnd = t->cwnd;
    if (t->rtt > b->max_rtt)
        b->max_rtt = t->rtt;
    if (b->min_rtt < 0 || t->rtt < b->min_rtt)
        b->min_rtt = t->rtt;
    b->sum_rtt += t->rtt;
    b->n_rtt++;
}

static void book_end(struct session *s, int i)
{
    struct stream_book *b = &s->bk[i];
    if (b->ended)
        return;
    book_snapshot(s, i, &b->bytes_end, &b->blocks_end, &b->calls_end, &b->retr_end, &b->rx_end);
    /* the end's TCP_INFO is a sample too: with -i 0 the only one, so that the
     * retransmits it counted are not called unknown */
    struct tcp_sample t;
    if (!s->st[i].udp && s->st[i].sender && stream_tcp_info(s->st[i].fd, &t) == 0)
        book_tcp_fold(s, i, &t);
    b->ended = 1;
}

/* -i in nanoseconds, 0 = no interval rows */
static uint64_t interval_ns(const struct session *s)
{
    return s->o->interval > 0 ? (uint64_t)(s->o->interval * NS_PER_SEC) : 0;
}

void session_pin(const int *cpus, int ncpus)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int i = 0; i < ncpus; i++)
        CPU_SET(cpus[i], &set);
    if (sched_setaffinity(0, sizeof set, &set) < 0)
        warnmsg("cannot pin to the -A CPUs: %s (is the CPU online?)", errtext(errno));
}

int session_start(struct session *s)
{
    uint64_t now = mono_ns();
    s->t_start = s->t_measure = now;
    atomic_store(&s->sh.pace_from_ns, now);
    s->omitting = s->p.omit > 0;
    uint64_t iv = interval_ns(s);
    s->t_next_tick = iv ? now + iv : 0;
    s->t_last_tick = now;
    cpu_sample(&s->cpu_a);
    /* -A: the process is on the listed CPUs from its start (session_pin, called
     * before any thread exists), each stream thread on one of them; a server
     * without its own -A takes the CPU the client asked for (-A n,m sends m) for
     * this thread and the session's stream threads */
    const int *cpus = s->o->affinity;
    int ncpus = s->o->naffinity, asked = (int)s->p.server_affinity;
    /* (musl's CPU_SETSIZE counts bytes: the set's own size in bits is the bound) */
    if (ncpus == 0 && !s->is_client && asked >= (int)(8 * sizeof(cpu_set_t)))
        warnmsg("cannot pin to CPU %d, which the client asked for: above this host's "
                "CPU numbers (the test runs unpinned)", asked);
    else if (ncpus == 0 && !s->is_client && asked >= 0) {
        cpus = &asked;
        ncpus = 1;
        session_pin(cpus, ncpus);
    }
    for (int i = 0; i < s->nstreams; i++) {
        s->st[i].sender = session_is_sender(s, i);
        s->st[i].cpu = ncpus > 0 ? cpus[i % ncpus] : -1;
        /* --rr-load: the bulk streams wait out the idle phase (the omitted seconds) */
        if (s->p.rr_load && !s->st[i].rrb)
            s->st[i].hold_until = now + (uint64_t)s->p.omit * NS_PER_SEC;
    }
    /* a lone stream needs no thread of its own: where none can start, it runs on
     * this one, which the stream's loop gives turns (session_run_here) */
    if (s->nstreams == 1 && (s->st[0].eng_off & ENG_THREADS)) {
        s->here = 1;
        return 0;
    }
    for (int i = 0; i < s->nstreams; i++)
        if (drive_start(&s->st[i]) < 0) {
            if (s->nstreams > 1)
                return -1;
            fallback_note("pthread_create", errno, "the one data stream runs on the session's thread");
            s->here = 1;
        }
    return 0;
}

/* a TCP sender's TCP_INFO for an interval row; the end figures keep the extremes */
static void book_tcp_sample(struct session *s, int i, struct row *row)
{
    struct stream_book *b = &s->bk[i];
    struct tcp_sample t;
    if (stream_tcp_info(s->st[i].fd, &t) < 0)
        return;
    row->retrans = t.retrans - b->retr_prev;
    b->retr_prev = t.retrans;
    row->cwnd = t.cwnd;
    row->rtt = t.rtt;
    row->rttvar = t.rttvar;
    row->pmtu = t.pmtu;
    row->snd_wnd = t.snd_wnd;
    row->reorder = t.reorder;
    book_tcp_fold(s, i, &t);
}

static void omit_end(struct session *s, uint64_t now)
{
    s->omitting = 0;
    s->t_measure = now;
    cpu_sample(&s->cpu_a);
    for (int i = 0; i < s->nstreams; i++) {
        struct stream_book *b = &s->bk[i];
        book_snapshot(s, i, &b->bytes_base, &b->blocks_base, &b->calls_base, &b->retr_base,
                      &b->rx_base);
        b->bytes_prev = b->bytes_base;
        b->blocks_prev = b->blocks_base;
        b->retr_prev = b->retr_base;
        b->rx_prev = b->rx_base;
    }
    /* nor by the pacer: it measures from here, so a sender that fell behind in
     * the omitted seconds does not catch up in a burst inside the measured ones */
    atomic_store(&s->sh.pace_from_ns, now);
    /* the omit period is not counted by the -n/-k budgets either (as iperf3) */
    if (s->sh.has_budget_bytes)
        atomic_store(&s->sh.budget_bytes, s->p.num);
    if (s->sh.has_budget_blocks)
        atomic_store(&s->sh.budget_blocks, s->p.blockcount);
}

void row_add(struct row *sum, const struct row *r)
{
    sum->bytes += r->bytes;
    sum->packets += r->packets;
    sum->lost += r->lost;
    sum->ooo += r->ooo;
    if (r->retrans >= 0)
        sum->retrans = (sum->retrans < 0 ? 0 : sum->retrans) + r->retrans;
    sum->jitter_ms += r->jitter_ms;
}

/* the rows of the interval that ends now (books move on to now) */
static void session_interval(struct session *s, uint64_t now, struct interval *iv)
{
    uint64_t ref = s->omitting ? s->t_start : s->t_measure;
    double t0 = (double)(s->t_last_tick - ref) / NS_PER_SEC, t1 = (double)(now - ref) / NS_PER_SEC;
    if (t0 < 0)
        t0 = 0;
    memset(iv->sum, 0, sizeof iv->sum);
    memset(iv->nin, 0, sizeof iv->nin);
    iv->n = s->nstreams;
    iv->bidir = s->p.bidir;
    iv->parallel = s->p.parallel;
    for (int i = 0; i < s->nstreams; i++) {
        struct stream *st = &s->st[i];
        struct stream_book *b = &s->bk[i];
        struct row *row = &iv->rows[i];
        memset(row, 0, sizeof *row);
        row->sock = st->fd;
        row->role = session_role(s, i);
        row->start = t0;
        row->end = t1;
        row->udp = st->udp;
        row->sender = st->sender;
        row->omitted = s->omitting;
        row->retrans = row->cwnd = row->rtt = row->rttvar = row->pmtu = -1;
        row->snd_wnd = row->reorder = -1;
        uint64_t bytes = atomic_load(&st->bytes), blocks = atomic_load(&st->blocks);
        row->bytes = bytes - b->bytes_prev;
        b->bytes_prev = bytes;
        if (st->udp && st->sender) {
            row->packets = (int64_t)(blocks - b->blocks_prev);
        } else if (st->udp) {
            struct udp_rx rx;
            stream_rx_snapshot(st, &rx);
            row->packets = (int64_t)(rx.last_seq - b->rx_prev.last_seq);
            row->lost = rx.lost - b->rx_prev.lost;
            row->ooo = (int64_t)(rx.out_of_order - b->rx_prev.out_of_order);
            row->jitter_ms = rx.jitter * 1000.0;
            b->rx_prev = rx;
        } else if (st->sender) {
            book_tcp_sample(s, i, row);
        }
        b->blocks_prev = blocks;
        int g = session_group(s, i);
        if (!iv->nin[g]) {
            iv->sum[g] = *row;
            iv->sum[g].sock = -1;
            iv->sum[g].bytes = 0;
            iv->sum[g].packets = iv->sum[g].lost = iv->sum[g].ooo = 0;
            iv->sum[g].retrans = -1;
            iv->sum[g].jitter_ms = 0;
        }
        iv->nin[g]++;
        row_add(&iv->sum[g], row);
    }
    for (int g = 0; g < GROUPS; g++)
        if (iv->nin[g])
            iv->sum[g].jitter_ms /= iv->nin[g];
    iv->rr.on = 0;
    if (s->p.rr)
        rr_session_interval(s, &iv->rr);
}

static void interval_rows(struct session *s, uint64_t now)
{
    session_interval(s, now, s->iv);
    s->rep->sink->interval(s->rep, s->iv);
    s->t_last_tick = now;
}

int session_poll(struct session *s, uint64_t now)
{
    uint64_t iv = interval_ns(s);
    if (s->omitting && now >= s->t_start + (uint64_t)s->p.omit * NS_PER_SEC) {
        if (iv && now > s->t_last_tick + iv / 20)
            interval_rows(s, now);
        omit_end(s, now);
        s->t_last_tick = now;
        if (iv)
            s->t_next_tick = now + iv;
    }
    if (iv && !s->t_measure_end && now >= s->t_next_tick) {
        interval_rows(s, now);
        s->t_next_tick += iv;
        if (s->t_next_tick <= now)
            s->t_next_tick = now + iv;
    }
    int ms = 100;
    if (iv && !s->t_measure_end) {
        int m = ms_until(s->t_next_tick);
        if (m >= 0 && m < ms)
            ms = m;
    }
    return ms;
}

double session_seconds(const struct session *s)
{
    uint64_t end = s->t_measure_end ? s->t_measure_end : mono_ns();
    return end > s->t_measure ? (double)(end - s->t_measure) / NS_PER_SEC : 0.0;
}


uint64_t session_bytes(const struct session *s, int which, int since_omit)
{
    uint64_t n = 0;
    for (int i = 0; i < s->nstreams; i++)
        if (which == BYTES_ALL || (which == BYTES_SENT) == (s->st[i].sender != 0))
            n += atomic_load(&s->st[i].bytes) - (since_omit ? s->bk[i].bytes_base : 0);
    return n;
}

void session_report_init(struct report *r, FILE *out, const struct perf_opts *o, int capture)
{
    rep_init(r, out, report_sink_for(o), o->format, capture);
    r->forceflush = o->forceflush;
    r->verbose = o->verbose;
    r->timestamps = o->timestamps;
    r->json_stream = o->json_stream;
    r->json_full = o->json_stream_full;
}

static void measure_end(struct session *s, uint64_t now)
{
    uint64_t iv = interval_ns(s);
    if (iv && now > s->t_last_tick + iv / 20 && !s->omitting)
        interval_rows(s, now);
    s->t_measure_end = now;
    cpu_sample(&s->cpu_b);
    if (s->cooldown)
        for (int i = 0; i < s->nstreams; i++)
            book_end(s, i);
}

/* -F on a sending client: once the file is sent the test ends at the next
 * interval tick, as iperf3 3.18+ ends it (3.12 at once); that second lets an
 * iperf3 server read the last bytes before TEST_END, after which it reads no more.
 * 1 while the test is held */
static int file_hold(struct session *s, uint64_t now)
{
    if (!s->o->file || !s->is_client || s->p.reverse || !interval_ns(s))
        return 0;
    if (!s->file_end_ns)
        s->file_end_ns = s->t_next_tick;
    return now < s->file_end_ns;
}

/* -n/-k: a receiver whose sender stopped short of the count ends the test after
 * this long without a byte (UDP from an iperf3 server with -b 0 stops at exactly
 * the count: a lost datagram is never made up, so the receiver never reaches it) */
#define RECV_STALL_NS (5 * NS_PER_SEC)

/* -n/-k, iperf3's rule (iperf_run_client in iperf_client_api.c): the client ends
 * the test once the count is sent OR received, each summed over the streams
 * (bytes_sent >= bytes || bytes_received >= bytes, the same with blocks); with
 * --bidir whichever direction gets there first. Sent: our senders used up the
 * budget and left. Received: the bytes since the omit against num, or blockcount
 * x len (a UDP datagram is one block, a TCP block len bytes). A sending esxperf
 * server keeps its UDP streams going until TEST_END, so lost datagrams are made
 * up by later ones, and sends TCP's count whole (session_init). */
static int counted_end(struct session *s, uint64_t now)
{
    int have_senders = 0, have_receivers = 0;
    for (int i = 0; i < s->nstreams; i++) {
        if (s->st[i].sender)
            have_senders = 1;
        else
            have_receivers = 1;
    }
    if (have_senders && atomic_load(&s->sh.senders_running) == 0)
        return 1;
    if (!have_receivers)
        return 0;
    uint64_t want = s->p.num ? (uint64_t)s->p.num
                             : (uint64_t)s->p.blockcount * (uint64_t)s->p.len;
    uint64_t got = session_bytes(s, BYTES_RECEIVED, 1);
    return got >= want || progress_stalled(&s->rx, got, now, RECV_STALL_NS);
}

int session_should_end(struct session *s, uint64_t now)
{
    if (s->omitting)
        return 0;
    int all_done = 1;
    for (int i = 0; i < s->nstreams; i++)
        if (!atomic_load(&s->st[i].done))
            all_done = 0;
    if (!s->t_measure_end) {
        int end = s->p.num || s->p.blockcount
                      ? counted_end(s, now)
                      : now >= s->t_measure + (uint64_t)s->p.time * NS_PER_SEC;
        if (!(end || all_done) || file_hold(s, now))
            return 0;
        measure_end(s, now);
    }
    if (s->cooldown && !all_done)
        return now >= s->t_measure_end + (uint64_t)s->o->cooldown * NS_PER_SEC;
    return 1;
}

/* The sending side says "the test ended" (TEST_END, or EXCHANGE_RESULTS from a
 * sending server) only after the peer has acknowledged every byte it counted as
 * sent: the receiver then finds them all queued and its count equals ours. The
 * wait ends when nothing is left unacknowledged, when the peer stops taking data
 * (no progress for ACK_STALL_NS: an iperf3 3.12 --bidir client stops reading at
 * TEST_END), after ACK_WAIT_MAX_NS in all, or at once where the host cannot
 * report unacknowledged bytes. */
#define ACK_WAIT_MAX_NS (2 * NS_PER_SEC)
#define ACK_STALL_NS (250 * NS_PER_MS)
#define ACK_POLL_NS (200 * NS_PER_US)

static long long unacked_total(const struct session *s)
{
    long long sum = 0;
    for (int i = 0; i < s->nstreams; i++) {
        const struct stream *st = &s->st[i];
        if (!st->sender || st->udp || atomic_load(&st->err))
            continue;
        long long n = stream_tcp_unacked(st->fd);
        if (n > 0)
            sum += n;
    }
    return sum;
}

static void wait_sent_acked(const struct session *s)
{
    uint64_t now = mono_ns(), until = now + ACK_WAIT_MAX_NS, moved = now;
    long long last = unacked_total(s);
    while (last > 0 && now < until && now - moved < ACK_STALL_NS) {
        sleep_ns(ACK_POLL_NS);
        long long left = unacked_total(s);
        now = mono_ns();
        if (left < last)
            moved = now;
        last = left;
    }
}

void session_stop_senders(struct session *s)
{
    if (!s->t_measure_end)
        measure_end(s, mono_ns());
    /* its own flag, not stop_send: a one-thread run's sender leaves its loop by
     * stop_send, and its bytes are still to be acknowledged here */
    if (s->senders_stopped)
        return;
    s->senders_stopped = 1;
    atomic_store(&s->sh.stop_send, 1);
    for (int i = 0; i < s->nstreams; i++)
        if (s->st[i].sender) {
            stream_join(&s->st[i]);
            book_end(s, i);
        }
    wait_sent_acked(s);
}

void session_stop_all(struct session *s)
{
    session_stop_senders(s);
    atomic_store(&s->sh.stop_recv, 1);
    for (int i = 0; i < s->nstreams; i++) {
        stream_join(&s->st[i]);
        book_end(s, i);
        /* the server ends the data streams as iperf3 does: a 3.12 client in -R
         * reads them with blocking reads and waits for this FIN */
        if (!s->is_client && !s->st[i].udp)
            shutdown(s->st[i].fd, SHUT_WR);
    }
}

int session_stream_error(const struct session *s)
{
    for (int i = 0; i < s->nstreams; i++)
        if (atomic_load(&s->st[i].err))
            return atomic_load(&s->st[i].err);
    return 0;
}

/* -J start.test_start gso/gro (iperf3 3.22's keys): whether this side's UDP streams
 * will send with GSO / receive with GRO. The stream threads decide when they
 * start, after this block is written; the same test (udp_gso_on, udp_gro_on) is
 * made here on the same sockets, so the value is the one they start with. A GSO
 * send the route refuses later falls back to one datagram per message (-V says) */
static void udp_offloads(const struct session *s, struct start_info *si)
{
    si->gso = si->gro = 0;
    for (int i = 0; s->p.udp && i < s->nstreams; i++) {
        const struct stream *st = &s->st[i];
        if (st->sender && !(st->eng_off & ENG_GSO) && !si->gso)
            si->gso = udp_gso_on(st->fd, st->blksize) > 1;
        if (!st->sender && !(st->eng_off & ENG_GRO) && !udp_io_heads(st) && !si->gro)
            si->gro = udp_gro_on(st->fd);
    }
}

void session_report_start(const struct session *s, const char *host, unsigned port,
                          const char *peer, const char *cookie)
{
    struct start_info *si = xcalloc(1, sizeof *si);
    struct utsname u;
    si->is_client = s->is_client;
    si->p = &s->p;
    si->host = host;
    si->port = port;
    si->peer = peer;
    si->cookie = cookie;
    si->n = s->nstreams;
    for (int i = 0; i < s->nstreams; i++)
        rep_ends(s->st[i].fd, &si->ends[i]);
    if (uname(&u) == 0)
        snprintf(si->system, sizeof si->system, "%s %s %s %s %s", u.sysname, u.nodename,
                 u.release, u.version, u.machine);
    si->now_ms = (int64_t)(wall_us() / 1000);
    si->now = si->now_ms / 1000;
    si->mss = si->sndbuf = si->rcvbuf = -1;
    if (s->nstreams > 0) {
        int v = 0, fd = s->st[0].fd;
        socklen_t vl = sizeof v;
        /* a size that cannot be read is left out of the start report */
        if (!s->p.udp) {
            if (getsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, &v, &vl) == 0)
                si->mss = v;
            else
                fallback_note("getsockopt TCP_MAXSEG", errno, "the MSS is not reported");
        }
        vl = sizeof v;
        if (getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &v, &vl) == 0)
            si->sndbuf = v;
        else
            fallback_note("getsockopt SO_SNDBUF", errno, SNDBUF_UNREAD);
        vl = sizeof v;
        if (getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, &vl) == 0)
            si->rcvbuf = v;
        else
            fallback_note("getsockopt SO_RCVBUF", errno, RCVBUF_UNREAD);
    }
    si->interval = s->o->interval;
    udp_offloads(s, si);
    s->rep->sink->start(s->rep, si);
    free(si);
}
