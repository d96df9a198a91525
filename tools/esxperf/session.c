/* One running test: clock, interval rows, results for the exchange, summary. */
#include "session.h"
#include "clock.h"
#include "fail.h"
#include "net.h"
#include "version.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <sys/utsname.h>
#include <time.h>

#define NS 1000000000ull

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
    s->cooldown = is_client && o->cooldown > 0;
    if (p->num) {
        s->sh.has_budget_bytes = 1;
        atomic_store(&s->sh.budget_bytes, p->num);
    }
    if (p->blockcount) {
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
    results_free(&s->remote);
    s->st = NULL;
    s->bk = NULL;
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

void session_print_connected(const struct session *s, struct report *rep)
{
    for (int i = 0; i < s->nstreams; i++) {
        struct rep_ends e;
        rep_ends(s->st[i].fd, &e);
        rep_printf(rep, "[%3d] local %s port %u connected to %s port %u\n", s->st[i].fd, e.lhost,
                   e.lport, e.rhost, e.rport);
    }
}

/* direction group: 0 = the client's sending direction (or -R's), 1 = bidir reverse */
static int group_of(const struct session *s, int i)
{
    return s->p.bidir && i >= s->p.parallel;
}

static const char *role_of(const struct session *s, int i)
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
    if (stream_init(&s->st[i], session_stream_id(i), fd, sender, &s->p, &s->sh) < 0)
        return NULL;
    s->nstreams++;
    s->bk[i].min_rtt = -1;
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

static void book_end(struct session *s, int i)
{
    struct stream_book *b = &s->bk[i];
    if (b->ended)
        return;
    book_snapshot(s, i, &b->bytes_end, &b->blocks_end, &b->calls_end, &b->retr_end, &b->rx_end);
    b->ended = 1;
}

int session_start(struct session *s)
{
    uint64_t now = mono_ns();
    s->t_start = s->t_measure = now;
    atomic_store(&s->sh.pace_from_ns, now);
    s->omitting = s->p.omit > 0;
    uint64_t iv = s->o->interval > 0 ? (uint64_t)(s->o->interval * 1e9) : 0;
    s->t_next_tick = iv ? now + iv : 0;
    s->t_last_tick = now;
    cpu_sample(&s->cpu_a);
    /* -A: this thread on the listed CPUs, each stream thread on one of them; a server
     * without its own -A takes the CPU the client asked for (-A n,m sends m) */
    const int *cpus = s->o->affinity;
    int ncpus = s->o->naffinity, asked = (int)s->p.server_affinity;
    if (ncpus == 0 && !s->is_client && asked >= 0 && asked < CPU_SETSIZE) {
        cpus = &asked;
        ncpus = 1;
    }
    if (ncpus > 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        for (int i = 0; i < ncpus; i++)
            CPU_SET(cpus[i], &set);
        if (sched_setaffinity(0, sizeof set, &set) < 0)
            warnmsg("cannot pin to the -A CPUs: %s (is the CPU online?)", errtext(errno));
    }
    for (int i = 0; i < s->nstreams; i++) {
        s->st[i].sender = session_is_sender(s, i);
        s->st[i].cpu = ncpus > 0 ? cpus[i % ncpus] : -1;
        if (stream_start(&s->st[i]) < 0)
            return -1;
    }
    return 0;
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

static void sum_add(struct row *sum, const struct row *r)
{
    sum->bytes += r->bytes;
    sum->packets += r->packets;
    sum->lost += r->lost;
    sum->ooo += r->ooo;
    if (r->retrans >= 0)
        sum->retrans = (sum->retrans < 0 ? 0 : sum->retrans) + r->retrans;
    sum->jitter_ms += r->jitter_ms;
}

static void interval_rows(struct session *s, uint64_t now)
{
    uint64_t ref = s->omitting || s->t_last_tick < s->t_measure ? s->t_start : s->t_measure;
    if (!s->omitting && s->t_last_tick < s->t_measure)
        ref = s->t_measure;
    double t0 = (double)(s->t_last_tick - ref) / 1e9, t1 = (double)(now - ref) / 1e9;
    if (t0 < 0)
        t0 = 0;
    struct report *r = s->rep;
    int json = r->json;
    struct row sum[2];
    int nin[2] = { 0, 0 };
    memset(sum, 0, sizeof sum);
    if (json) {
        jw_obj(&r->jw, NULL);
        jw_arr(&r->jw, "streams");
    }
    for (int i = 0; i < s->nstreams; i++) {
        struct stream *st = &s->st[i];
        struct stream_book *b = &s->bk[i];
        struct row row;
        memset(&row, 0, sizeof row);
        row.sock = st->fd;
        row.role = role_of(s, i);
        row.start = t0;
        row.end = t1;
        row.udp = st->udp;
        row.sender = st->sender;
        row.omitted = s->omitting;
        row.retrans = row.cwnd = row.rtt = row.rttvar = row.pmtu = -1;
        uint64_t bytes = atomic_load(&st->bytes), blocks = atomic_load(&st->blocks);
        row.bytes = bytes - b->bytes_prev;
        b->bytes_prev = bytes;
        if (st->udp && st->sender) {
            row.packets = (int64_t)(blocks - b->blocks_prev);
        } else if (st->udp) {
            struct udp_rx rx;
            stream_rx_snapshot(st, &rx);
            row.packets = (int64_t)(rx.last_seq - b->rx_prev.last_seq);
            row.lost = rx.lost - b->rx_prev.lost;
            row.ooo = (int64_t)(rx.out_of_order - b->rx_prev.out_of_order);
            row.jitter_ms = rx.jitter * 1000.0;
            b->rx_prev = rx;
        } else if (st->sender) {
            struct tcp_sample t;
            if (stream_tcp_info(st->fd, &t) == 0) {
                row.retrans = t.retrans - b->retr_prev;
                b->retr_prev = t.retrans;
                row.cwnd = t.cwnd;
                row.rtt = t.rtt;
                row.rttvar = t.rttvar;
                row.pmtu = t.pmtu;
                s->tcpinfo_ok = 1;
                b->tcpinfo_ok = 1;
                if (t.cwnd > b->max_cwnd)
                    b->max_cwnd = t.cwnd;
                if (t.rtt > b->max_rtt)
                    b->max_rtt = t.rtt;
                if (b->min_rtt < 0 || t.rtt < b->min_rtt)
                    b->min_rtt = t.rtt;
                b->sum_rtt += t.rtt;
                b->n_rtt++;
            }
        }
        b->blocks_prev = blocks;
        int g = group_of(s, i);
        if (!nin[g]) {
            sum[g] = row;
            sum[g].sock = -1;
            sum[g].bytes = 0;
            sum[g].packets = sum[g].lost = sum[g].ooo = 0;
            sum[g].retrans = -1;
            sum[g].jitter_ms = 0;
        }
        nin[g]++;
        sum_add(&sum[g], &row);
        if (json)
            rep_row_json(&r->jw, NULL, &row, 1);
        else
            rep_row(r, &row, ROW_INTERVAL);
    }
    for (int g = 0; g < 2; g++)
        if (nin[g])
            sum[g].jitter_ms /= nin[g];
    if (json) {
        jw_end(&r->jw);
        if (nin[0])
            rep_row_json(&r->jw, "sum", &sum[0], 1);
        if (nin[1])
            rep_row_json(&r->jw, "sum_bidir_reverse", &sum[1], 1);
        jw_end(&r->jw);
    } else {
        for (int g = 0; g < 2; g++)
            if (nin[g] > 1 || (s->p.bidir && nin[g] && s->p.parallel > 1))
                rep_row(r, &sum[g], ROW_INTERVAL);
        if (s->nstreams > 1)
            rep_separator(r);
    }
    s->t_last_tick = now;
}

int session_poll(struct session *s, uint64_t now)
{
    uint64_t iv = s->o->interval > 0 ? (uint64_t)(s->o->interval * 1e9) : 0;
    if (s->omitting && now >= s->t_start + (uint64_t)s->p.omit * NS) {
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

static uint64_t received_bytes(struct session *s)
{
    uint64_t n = 0;
    for (int i = 0; i < s->nstreams; i++)
        if (!s->st[i].sender)
            n += atomic_load(&s->st[i].bytes) - s->bk[i].bytes_base;
    return n;
}

static void measure_end(struct session *s, uint64_t now)
{
    uint64_t iv = s->o->interval > 0 ? (uint64_t)(s->o->interval * 1e9) : 0;
    if (iv && now > s->t_last_tick + iv / 20 && !s->omitting)
        interval_rows(s, now);
    s->t_measure_end = now;
    cpu_sample(&s->cpu_b);
    if (s->cooldown)
        for (int i = 0; i < s->nstreams; i++)
            book_end(s, i);
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
        int end = 0;
        if (s->p.num || s->p.blockcount) {
            int have_senders = 0, have_receivers = 0;
            for (int i = 0; i < s->nstreams; i++) {
                if (s->st[i].sender)
                    have_senders = 1;
                else
                    have_receivers = 1;
            }
            int send_done = !have_senders || atomic_load(&s->sh.senders_running) == 0;
            uint64_t want = s->p.num ? (uint64_t)s->p.num
                                     : (uint64_t)s->p.blockcount * (uint64_t)s->p.len;
            uint64_t got = have_receivers ? received_bytes(s) : 0;
            int recv_done = !have_receivers || got >= want;
            /* UDP loss can keep -n/-k from ever being reached on the receiving
             * side: end after 5 s without a byte */
            if (got != s->rx_seen || !s->rx_seen_ns) {
                s->rx_seen = got;
                s->rx_seen_ns = now;
            } else if (have_receivers && now - s->rx_seen_ns > 5 * NS) {
                recv_done = 1;
            }
            end = send_done && recv_done;
        } else {
            end = now >= s->t_measure + (uint64_t)s->p.time * NS;
        }
        if (end || all_done)
            measure_end(s, now);
        else
            return 0;
    }
    if (s->cooldown && !all_done)
        return now >= s->t_measure_end + (uint64_t)s->o->cooldown * NS;
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
    if (atomic_exchange(&s->sh.stop_send, 1))
        return;    /* stopped (and waited for) already */
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

int session_all_receivers_eof(const struct session *s)
{
    int any = 0;
    for (int i = 0; i < s->nstreams; i++) {
        if (s->st[i].sender)
            continue;
        any = 1;
        if (!atomic_load(&s->st[i].eof))
            return 0;
    }
    return any;
}

static double measured_seconds(const struct session *s)
{
    uint64_t end = s->t_measure_end ? s->t_measure_end : mono_ns();
    return end > s->t_measure ? (double)(end - s->t_measure) / 1e9 : 0.0;
}

void session_local_results(struct session *s, struct test_results *r, const char *server_text,
                           const char *server_json)
{
    memset(r, 0, sizeof *r);
    cpu_util(&s->cpu_a, &s->cpu_b, &r->cpu_user, &r->cpu_system, &r->cpu_total);
    int any_sender = 0, any_receiver = 0;
    double secs = measured_seconds(s);
    for (int i = 0; i < s->nstreams; i++) {
        struct stream *st = &s->st[i];
        struct stream_book *b = &s->bk[i];
        struct stream_result *x = &r->streams[r->nstreams++];
        x->id = st->id;
        x->bytes = (int64_t)(b->bytes_end - b->bytes_base);
        x->retransmits = -1;
        x->start_time = 0;
        x->end_time = secs;
        if (st->sender) {
            any_sender = 1;
            if (!st->udp && b->retr_end >= 0 && b->retr_base >= 0)
                x->retransmits = b->retr_end - b->retr_base;
            if (st->udp)
                x->packets = (int64_t)(b->blocks_end - b->blocks_base);
        } else {
            any_receiver = 1;
            if (st->udp) {
                x->jitter = b->rx_end.jitter;
                x->errors = b->rx_end.lost - b->rx_base.lost;
                x->packets = (int64_t)(b->rx_end.last_seq - b->rx_base.last_seq);
                x->omitted_errors = b->rx_base.lost;
                x->omitted_packets = (int64_t)b->rx_base.last_seq;
            }
        }
    }
    (void)any_receiver;
    if (!any_sender)
        r->sender_has_retransmits = -1;
    else
        r->sender_has_retransmits = !s->p.udp && s->tcpinfo_ok ? 1 : 0;
    if (!s->p.udp && s->nstreams > 0) {
        stream_congestion(s->st[0].fd, s->congestion, sizeof s->congestion);
        snprintf(r->congestion_used, sizeof r->congestion_used, "%s", s->congestion);
    }
    r->server_output_text = server_text ? xstrdup(server_text) : NULL;
    r->server_output_json = server_json ? xstrdup(server_json) : NULL;
}

/* rows for stream i: local and (when known) remote */
static void stream_rows(struct session *s, int i, struct row *snd, struct row *rcv, int *have_snd,
                        int *have_rcv)
{
    struct stream *st = &s->st[i];
    struct stream_book *b = &s->bk[i];
    double secs = measured_seconds(s);
    const struct stream_result *rem = s->have_remote ? results_find(&s->remote, st->id) : NULL;
    struct row base;
    memset(&base, 0, sizeof base);
    base.sock = st->fd;
    base.role = role_of(s, i);
    base.start = 0;
    base.end = secs;
    base.udp = st->udp;
    base.retrans = base.cwnd = -1;
    *snd = base;
    *rcv = base;
    snd->sender = 1;
    rcv->sender = 0;
    *have_snd = *have_rcv = 0;
    if (st->sender) {
        *have_snd = 1;
        snd->bytes = b->bytes_end - b->bytes_base;
        snd->packets = (int64_t)(b->blocks_end - b->blocks_base);
        if (!st->udp && b->retr_end >= 0 && b->retr_base >= 0)
            snd->retrans = b->retr_end - b->retr_base;
        snd->cwnd = b->max_cwnd;
        if (rem) {
            *have_rcv = 1;
            rcv->bytes = (uint64_t)rem->bytes;
            rcv->jitter_ms = rem->jitter * 1000.0;
            rcv->lost = rem->errors;
            rcv->packets = rem->packets;
            if (rem->end_time > 0)
                rcv->end = rem->end_time;
        }
    } else {
        *have_rcv = 1;
        rcv->bytes = b->bytes_end - b->bytes_base;
        rcv->jitter_ms = b->rx_end.jitter * 1000.0;
        rcv->lost = b->rx_end.lost - b->rx_base.lost;
        rcv->packets = (int64_t)(b->rx_end.last_seq - b->rx_base.last_seq);
        rcv->ooo = (int64_t)(b->rx_end.out_of_order - b->rx_base.out_of_order);
        if (rem) {
            *have_snd = 1;
            snd->bytes = (uint64_t)rem->bytes;
            snd->packets = rem->packets;
            snd->retrans = s->remote.sender_has_retransmits == 1 ? rem->retransmits : -1;
            if (rem->end_time > 0)
                snd->end = rem->end_time;
        }
    }
    if (st->udp) {
        /* iperf3 shows the sender row with zero jitter and 0/sent */
        snd->jitter_ms = 0;
        snd->lost = 0;
    }
}

static void json_stream_end(struct jsonw *w, struct session *s, int i, const struct row *snd,
                            const struct row *rcv, int have_snd, int have_rcv)
{
    struct stream_book *b = &s->bk[i];
    jw_obj(w, NULL);
    if (s->p.udp) {
        struct row u = *rcv;
        u.sender = s->st[i].sender;
        if (!have_rcv)
            u = *snd;
        else if (have_snd)
            u.bytes = snd->bytes;
        rep_row_json_open(w, "udp", &u);
        jw_double(w, "jitter_ms", u.jitter_ms);
        jw_int(w, "lost_packets", u.lost);
        jw_int(w, "packets", u.packets);
        jw_double(w, "lost_percent",
                  u.packets > 0 ? 100.0 * (double)u.lost / (double)u.packets : 0.0);
        jw_int(w, "out_of_order", rcv->ooo);
        jw_bool(w, "sender", s->st[i].sender);
        jw_end(w);
    } else {
        if (have_snd) {
            rep_row_json_open(w, "sender", snd);
            jw_int(w, "retransmits", snd->retrans);
            if (s->st[i].sender) {
                jw_int(w, "max_snd_cwnd", b->tcpinfo_ok ? b->max_cwnd : -1);
                jw_int(w, "max_rtt", b->tcpinfo_ok ? b->max_rtt : -1);
                jw_int(w, "min_rtt", b->tcpinfo_ok ? b->min_rtt : -1);
                jw_int(w, "mean_rtt", b->n_rtt ? b->sum_rtt / b->n_rtt : -1);
            }
            jw_bool(w, "sender", s->st[i].sender);
            jw_end(w);
        }
        if (have_rcv) {
            rep_row_json_open(w, "receiver", rcv);
            jw_bool(w, "sender", s->st[i].sender);
            jw_end(w);
        }
    }
    jw_end(w);
}

void session_summary(struct session *s)
{
    struct report *r = s->rep;
    int json = r->json;
    struct row ssum[2], rsum[2];
    int ns[2] = { 0, 0 }, nr[2] = { 0, 0 }, cnt[2] = { 0, 0 };
    double secs = measured_seconds(s);
    memset(ssum, 0, sizeof ssum);
    memset(rsum, 0, sizeof rsum);
    for (int g = 0; g < 2; g++) {
        ssum[g].sock = rsum[g].sock = -1;
        ssum[g].end = rsum[g].end = secs;
        ssum[g].udp = rsum[g].udp = s->p.udp;
        ssum[g].sender = 1;
        ssum[g].retrans = rsum[g].retrans = -1;
    }
    if (json) {
        if (s->intervals_open) {
            jw_end(&r->jw);
            s->intervals_open = 0;
        }
        jw_obj(&r->jw, "end");
        jw_arr(&r->jw, "streams");
    } else {
        rep_separator(r);
        rep_header(r, s->p.udp, 1, 1, s->p.bidir);
    }
    uint64_t bytes_local = 0, calls = 0;
    for (int i = 0; i < s->nstreams; i++) {
        struct row snd, rcv;
        int hs, hr;
        stream_rows(s, i, &snd, &rcv, &hs, &hr);
        int g = group_of(s, i);
        int local_snd = s->st[i].sender;
        bytes_local += local_snd ? snd.bytes : rcv.bytes;
        calls += s->bk[i].calls_end - s->bk[i].calls_base;
        cnt[g]++;
        if (hs) {
            ns[g]++;
            sum_add(&ssum[g], &snd);
            ssum[g].role = snd.role;
            if (snd.end > ssum[g].end)
                ssum[g].end = snd.end;
        }
        if (hr) {
            nr[g]++;
            sum_add(&rsum[g], &rcv);
            rsum[g].role = rcv.role;
            if (rcv.end > rsum[g].end)
                rsum[g].end = rcv.end;
        }
        if (json) {
            json_stream_end(&r->jw, s, i, &snd, &rcv, hs, hr);
            continue;
        }
        /* the client shows both rows; the server only its own side */
        if (hs && (s->is_client || local_snd))
            rep_row(r, &snd, ROW_SUMMARY);
        if (hr && (s->is_client || !local_snd))
            rep_row(r, &rcv, ROW_SUMMARY);
    }
    for (int g = 0; g < 2; g++) {
        if (nr[g])
            rsum[g].jitter_ms /= nr[g];
        ssum[g].jitter_ms = 0;
        ssum[g].lost = 0;
    }
    if (json) {
        jw_end(&r->jw);
        if (s->p.udp && (nr[0] || ns[0])) {
            struct row u = nr[0] ? rsum[0] : ssum[0];
            if (ns[0])
                u.bytes = ssum[0].bytes;
            u.sender = !s->is_client ? s->p.reverse : !s->p.reverse;
            rep_row_json(&r->jw, "sum", &u, 0);
        }
        const char *keys[2][2] = { { "sum_sent", "sum_received" },
                                   { "sum_sent_bidir_reverse", "sum_received_bidir_reverse" } };
        for (int g = 0; g < 2; g++) {
            if (!cnt[g])
                continue;
            int fwd_sender = s->is_client ? (g == 0 ? !s->p.reverse : 0)
                                          : (g == 0 ? s->p.reverse : 1);
            ssum[g].sender = rsum[g].sender = fwd_sender;
            rep_row_json(&r->jw, keys[g][0], &ssum[g], 0);
            rep_row_json(&r->jw, keys[g][1], &rsum[g], 0);
        }
    } else {
        for (int g = 0; g < 2; g++) {
            if (cnt[g] < 2 && !(s->p.bidir && cnt[g] && s->p.parallel > 1))
                continue;
            if (ns[g] && (s->is_client || s->st[g ? s->p.parallel : 0].sender))
                rep_row(r, &ssum[g], ROW_SUMMARY);
            if (nr[g] && (s->is_client || !s->st[g ? s->p.parallel : 0].sender))
                rep_row(r, &rsum[g], ROW_SUMMARY);
        }
    }

    /* CPU for the measured period, and efficiency (ttcp's measures) */
    double lu, ls, lt;
    cpu_util(&s->cpu_a, &s->cpu_b, &lu, &ls, &lt);
    double lcpu_s = cpu_seconds(&s->cpu_a, &s->cpu_b);
    double gbit = (double)bytes_local * 8.0 / 1e9;
    double rcpu_s = s->have_remote ? s->remote.cpu_total / 100.0 * secs : -1;
    double lgpc = lcpu_s > 0 ? gbit / lcpu_s : 0;
    double rgpc = rcpu_s > 0 ? gbit / rcpu_s : 0;
    double cps = secs > 0 ? (double)calls / secs : 0;
    int local_sender = s->is_client ? (!s->p.reverse || s->p.bidir) : s->p.reverse;
    s->fig.seconds = secs;
    s->fig.gbps = secs > 0 ? (double)(nr[0] ? rsum[0].bytes : ssum[0].bytes) * 8.0 / secs / 1e9 : 0;
    s->fig.cpu_local = lt;
    s->fig.cpu_remote = s->have_remote ? s->remote.cpu_total : -1;
    s->fig.retrans = ssum[0].retrans;
    s->fig.bytes_sent = ssum[0].bytes;
    s->fig.bytes_received = rsum[0].bytes;
    {
        double cpu_s = lcpu_s + (rcpu_s > 0 ? rcpu_s : 0);
        double bits = (double)(nr[0] ? rsum[0].bytes : ssum[0].bytes) * 8.0 / 1e9;
        s->fig.gbit_per_cpu_s = cpu_s > 0 ? bits / cpu_s : 0;
    }
    if (json) {
        jw_obj(&r->jw, "cpu_utilization_percent");
        jw_double(&r->jw, "host_total", lt);
        jw_double(&r->jw, "host_user", lu);
        jw_double(&r->jw, "host_system", ls);
        jw_double(&r->jw, "remote_total", s->have_remote ? s->remote.cpu_total : 0);
        jw_double(&r->jw, "remote_user", s->have_remote ? s->remote.cpu_user : 0);
        jw_double(&r->jw, "remote_system", s->have_remote ? s->remote.cpu_system : 0);
        jw_end(&r->jw);
        if (!s->p.udp) {
            const char *lc = s->congestion, *rc = s->have_remote ? s->remote.congestion_used : "";
            jw_str(&r->jw, "sender_tcp_congestion", local_sender ? lc : rc);
            jw_str(&r->jw, "receiver_tcp_congestion", local_sender ? rc : lc);
        }
        jw_obj(&r->jw, "esxperf");
        jw_double(&r->jw, "seconds", secs);
        jw_int(&r->jw, "cooldown", s->is_client ? s->o->cooldown : 0);
        jw_bool(&r->jw, "tcp_info", s->tcpinfo_ok);
        jw_double(&r->jw, "cpu_seconds_local", lcpu_s);
        jw_double(&r->jw, "cpu_seconds_remote", rcpu_s);
        jw_double(&r->jw, "gbit_per_cpu_second_local", lgpc);
        jw_double(&r->jw, "gbit_per_cpu_second_remote", rgpc);
        jw_double(&r->jw, "io_calls_per_second", cps);
        jw_arr(&r->jw, "engine");          /* the I/O path each stream took */
        for (int i = 0; i < s->nstreams; i++)
            jw_str(&r->jw, NULL, s->st[i].path);
        jw_end(&r->jw);
        jw_end(&r->jw);
        jw_end(&r->jw);
    } else {
        const char *lname = local_sender ? "local/sender" : "local/receiver";
        const char *rname = local_sender ? "remote/receiver" : "remote/sender";
        if (s->have_remote)
            rep_printf(r, "CPU Utilization: %s %.1f%% (%.1f%%u/%.1f%%s), %s %.1f%% (%.1f%%u/%.1f%%s)\n",
                       lname, lt, lu, ls, rname, s->remote.cpu_total, s->remote.cpu_user,
                       s->remote.cpu_system);
        else
            rep_printf(r, "CPU Utilization: %s %.1f%% (%.1f%%u/%.1f%%s)\n", lname, lt, lu, ls);
        if (s->have_remote && rcpu_s > 0)
            rep_printf(r, "Efficiency: %.2f Gbit per CPU-second local, %.2f remote; %.0f I/O calls/sec\n",
                       lgpc, rgpc, cps);
        else
            rep_printf(r, "Efficiency: %.2f Gbit per CPU-second local; %.0f I/O calls/sec\n", lgpc, cps);
        if (!s->p.udp && !s->tcpinfo_ok && local_sender)
            rep_printf(r, "Retransmits: n/a (getsockopt TCP_INFO failed on this host)\n");
        if (s->o->verbose)
            for (int i = 0; i < s->nstreams; i++)
                rep_printf(r, "[%3d] engine: %s\n", s->st[i].fd, s->st[i].path);
    }
}

void session_json_start(struct session *s, const char *local, uint16_t lport, const char *remote,
                        uint16_t rport, const char *cookie)
{
    struct jsonw *w = &s->rep->jw;
    struct utsname u;
    char sys[400] = "", tbuf[64];
    if (uname(&u) == 0)
        snprintf(sys, sizeof sys, "%s %s %s %s %s", u.sysname, u.nodename, u.release, u.version,
                 u.machine);
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(tbuf, sizeof tbuf, "%a, %d %b %Y %H:%M:%S GMT", &tm);
    jw_obj(w, NULL);
    jw_obj(w, "start");
    jw_arr(w, "connected");
    for (int i = 0; i < s->nstreams; i++) {
        struct rep_ends e;
        rep_ends(s->st[i].fd, &e);
        jw_obj(w, NULL);
        jw_int(w, "socket", s->st[i].fd);
        jw_str(w, "local_host", e.lhost);
        jw_int(w, "local_port", e.lport);
        jw_str(w, "remote_host", e.rhost);
        jw_int(w, "remote_port", e.rport);
        jw_end(w);
    }
    jw_end(w);
    char ver[64];
    snprintf(ver, sizeof ver, "esxperf %s", version_string());
    jw_str(w, "version", ver);
    jw_str(w, "system_info", sys);
    jw_obj(w, "timestamp");
    jw_str(w, "time", tbuf);
    jw_int(w, "timesecs", (int64_t)now);
    jw_end(w);
    if (s->is_client) {
        jw_obj(w, "connecting_to");
        jw_str(w, "host", remote);
        jw_int(w, "port", rport);
        jw_end(w);
    } else {
        jw_obj(w, "accepted_connection");
        jw_str(w, "host", remote);
        jw_int(w, "port", rport);
        jw_end(w);
    }
    (void)local;
    (void)lport;
    jw_str(w, "cookie", cookie);
    if (s->nstreams > 0) {
        int v = 0;
        socklen_t vl = sizeof v;
        if (!s->p.udp && getsockopt(s->st[0].fd, IPPROTO_TCP, TCP_MAXSEG, &v, &vl) == 0)
            jw_int(w, "tcp_mss_default", v);
        vl = sizeof v;
        if (getsockopt(s->st[0].fd, SOL_SOCKET, SO_SNDBUF, &v, &vl) == 0)
            jw_int(w, "sndbuf_actual", v);
        vl = sizeof v;
        if (getsockopt(s->st[0].fd, SOL_SOCKET, SO_RCVBUF, &v, &vl) == 0)
            jw_int(w, "rcvbuf_actual", v);
    }
    jw_int(w, "target_bitrate", s->p.bandwidth);
    jw_int(w, "sock_bufsize", s->p.window);
    jw_obj(w, "test_start");
    jw_str(w, "protocol", s->p.udp ? "UDP" : "TCP");
    jw_int(w, "num_streams", s->p.parallel);
    jw_int(w, "blksize", s->p.len);
    jw_int(w, "omit", s->p.omit);
    jw_int(w, "duration", s->p.time);
    jw_int(w, "bytes", s->p.num);
    jw_int(w, "blocks", s->p.blockcount);
    jw_int(w, "reverse", s->p.reverse);
    jw_int(w, "tos", s->p.tos);
    jw_int(w, "target_bitrate", s->p.bandwidth);
    jw_int(w, "bidir", s->p.bidir);
    jw_int(w, "fqrate", s->p.fqrate);
    jw_end(w);
    jw_end(w);
    jw_arr(w, "intervals");
    s->intervals_open = 1;
}

void session_json_finish(struct session *s, const char *error)
{
    struct jsonw *w = &s->rep->jw;
    if (s->intervals_open) {
        jw_end(w);
        s->intervals_open = 0;
    }
    if (error)
        jw_str(w, "error", error);
    jw_end(w);
}
