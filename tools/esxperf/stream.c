/* Data streams: one thread per stream, blocking sockets with short timeouts so
 * each loop checks the shared stop flags; counters are atomics read by the main
 * thread at interval ticks. */
#include "stream.h"
#include "clock.h"
#include "fail.h"
#include "pace.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#define LOOP_TIMEOUT_MS 100
#define DRAIN_MAX_NS (1000 * NS_PER_MS)   /* bound on reading what is queued after stop */
#define TCP_READ_MIN (128 * 1024)      /* receive reads at least this much per call */
#define TCP_LOWAT 98304                 /* wake the receiver for 96 KiB, not per segment */
#define UDP_RCVBUF (4 * 1024 * 1024)    /* asked for; the kernel caps it at rmem_max */
#define SLEEP_MAX_NS (50 * 1000000ull)  /* pacing sleeps in slices so stop is seen */

unsigned stream_engine_off(const char *list)
{
    static const struct { const char *name; unsigned bit; } names[] = {
        { "mmsg", ENG_MMSG }, { "gso", ENG_GSO }, { "gro", ENG_GRO }, { "lowat", ENG_LOWAT },
        { "trunc", ENG_TRUNC }, { "sendfile", ENG_SENDFILE }, { "rcvbuf", ENG_RCVBUF },
    };
    unsigned off = 0;
    if (!list)
        return 0;
    while (*list) {
        size_t n = strcspn(list, ",");
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
            if (strlen(names[i].name) == n && !strncmp(list, names[i].name, n))
                off |= names[i].bit;
        if (!strncmp(list, "all", n) && n == 3)
            off = ~0u;
        list += n;
        if (*list == ',')
            list++;
    }
    return off;
}

int stream_sockopts(int fd, const struct test_params *p, int family, const char **why)
{
    int one = 1;
    if (p->window) {
        int w = (int)p->window;
        if (setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &w, sizeof w) < 0 ||
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &w, sizeof w) < 0) {
            *why = "cannot set the socket buffer size (-w)";
            return -1;
        }
    }
    if (!p->udp) {
        if (p->mss) {
            int m = (int)p->mss;
            if (setsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, &m, sizeof m) < 0) {
                *why = "cannot set the TCP MSS (-M)";
                return -1;
            }
        }
        if (p->nodelay && setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) < 0) {
            *why = "cannot set TCP_NODELAY (-N)";
            return -1;
        }
        if (p->congestion[0] &&
            setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, p->congestion,
                       (socklen_t)strlen(p->congestion)) < 0) {
            *why = "cannot set the congestion control (-C; is the module loaded?)";
            return -1;
        }
    }
    if (p->tos) {
        int t = (int)p->tos;
        int rc = family == AF_INET6
                     ? setsockopt(fd, IPPROTO_IPV6, IPV6_TCLASS, &t, sizeof t)
                     : setsockopt(fd, IPPROTO_IP, IP_TOS, &t, sizeof t);
        if (rc < 0) {
            *why = "cannot set the TOS (-S)";
            return -1;
        }
    }
    if (p->dont_fragment && p->udp && family == AF_INET) {
        int v = IP_PMTUDISC_DO;
        if (setsockopt(fd, IPPROTO_IP, IP_MTU_DISCOVER, &v, sizeof v) < 0) {
            *why = "cannot set the don't-fragment bit";
            return -1;
        }
    }
    if (p->fqrate) {
        unsigned int r = p->fqrate / 8 > 0xffffffffLL ? 0xffffffffu : (unsigned int)(p->fqrate / 8);
        setsockopt(fd, SOL_SOCKET, SO_MAX_PACING_RATE, &r, sizeof r);   /* best effort */
    }
    return 0;
}

void stream_set_timeouts(int fd, int ms)
{
    struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
}

/* append to the path text */
static void path_add(struct stream *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void path_add(struct stream *s, const char *fmt, ...)
{
    size_t used = strlen(s->path);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->path + used, sizeof s->path - used, fmt, ap);
    va_end(ap);
}

static void fill_payload(unsigned char *buf, size_t n, int repeating)
{
    if (repeating) {
        for (size_t i = 0; i < n; i++)
            buf[i] = (unsigned char)('0' + i % 10);
        return;
    }
    uint64_t x = mono_ns() | 1;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        buf[i] = (unsigned char)x;
    }
}

/* -Z: sendfile() from an unlinked temporary file holding one block */
static int zerocopy_file(const unsigned char *buf, size_t blk, size_t n)
{
    char path[] = "/tmp/esxperf-zc-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return -1;
    unlink(path);
    size_t off = 0;
    while (off < n) {
        size_t at = off % blk;
        ssize_t w = write(fd, buf + at, blk - at < n - off ? blk - at : n - off);
        if (w <= 0) {
            close(fd);
            return -1;
        }
        off += (size_t)w;
    }
    return fd;
}

int stream_init(struct stream *s, int id, int fd, int sender, const struct test_params *p,
                struct stream_shared *sh)
{
    memset(s, 0, sizeof *s);
    s->id = id;
    s->fd = fd;
    s->zfd = -1;
    s->udp = p->udp;
    s->sender = sender;
    s->counters64 = p->udp_counters_64bit;
    s->skip_rx_copy = p->skip_rx_copy;
    s->blksize = (size_t)p->len;
    s->bufsize = s->udp && !sender ? 65536 : s->blksize;
    s->window = p->window;
    /* one block per call: 2, 4 or 8 blocks per send()/sendfile() measured no
     * faster on loopback (sendfile slower), so the plumbing stays at 1 */
    s->wsize = s->blksize;
    if (s->bufsize < s->wsize)
        s->bufsize = s->wsize;
    s->eng_off = stream_engine_off(getenv("ESXPERF_ENGINE_OFF"));
    s->cpu = -1;
    /* TCP receive: bigger reads than the block size cost nothing (a byte stream
     * has no blocks) and mean fewer calls */
    if (!s->udp && !sender && s->bufsize < TCP_READ_MIN)
        s->bufsize = TCP_READ_MIN;
    if (s->bufsize < s->blksize)
        s->bufsize = s->blksize;
    s->buf = xmalloc(s->bufsize);
    fill_payload(s->buf, s->bufsize, p->repeating_payload);
    s->rate_bps = p->bandwidth > 0 ? (uint64_t)p->bandwidth : 0;
    s->burst = p->burst;
    s->pacing_ns = p->pacing_timer > 0 ? (uint64_t)p->pacing_timer * 1000u : 1000000u;
    s->sh = sh;
    udp_rx_init(&s->rx);
    pthread_mutex_init(&s->lock, NULL);
    if (p->zerocopy && sender && !s->udp && !(s->eng_off & ENG_SENDFILE))
        s->zfd = zerocopy_file(s->buf, s->blksize, s->wsize);   /* -1: send() copies */
    if (p->zerocopy && sender && !s->udp && s->zfd < 0)
        path_add(s, "-Z without sendfile (%s); ",
                 s->eng_off & ENG_SENDFILE ? "turned off" : "no temporary file");
    stream_set_timeouts(fd, LOOP_TIMEOUT_MS);
    return 0;
}

/* -A: pin the calling thread; says so in the path text */
static void pin_thread(struct stream *s)
{
    if (s->cpu < 0)
        return;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(s->cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) == 0)
        path_add(s, "pinned to CPU %d; ", s->cpu);
    else
        path_add(s, "not pinned (CPU %d: %s); ", s->cpu, errtext(errno));
}

static void *stream_main(void *arg)
{
    struct stream *s = arg;
    pin_thread(s);
    if (s->sender) {
        if (s->udp)
            stream_udp_send(s);
        else
            stream_tcp_send(s);
        atomic_fetch_sub(&s->sh->senders_running, 1);
    } else {
        if (s->udp)
            stream_udp_recv(s);
        else
            stream_tcp_recv(s);
    }
    atomic_store(&s->done, 1);
    return NULL;
}

int stream_start(struct stream *s)
{
    if (s->sender)
        atomic_fetch_add(&s->sh->senders_running, 1);
    int rc = pthread_create(&s->thr, NULL, stream_main, s);
    if (rc) {
        if (s->sender)
            atomic_fetch_sub(&s->sh->senders_running, 1);
        errno = rc;
        return -1;
    }
    s->started = 1;
    return 0;
}

void stream_join(struct stream *s)
{
    if (s->started) {
        pthread_join(s->thr, NULL);
        s->started = 0;
    }
}

void stream_free(struct stream *s)
{
    stream_join(s);
    if (s->fd >= 0)
        close(s->fd);
    if (s->zfd >= 0)
        close(s->zfd);
    s->fd = s->zfd = -1;
    free(s->buf);
    s->buf = NULL;
    pthread_mutex_destroy(&s->lock);
}

/* take n bytes (and one block) from the -n/-k budgets; returns how many bytes
 * may be sent (0 = budget used up) */
static size_t budget_take(struct stream *s, size_t n)
{
    struct stream_shared *sh = s->sh;
    if (sh->has_budget_blocks && atomic_fetch_sub(&sh->budget_blocks, 1) <= 0)
        return 0;
    if (sh->has_budget_bytes) {
        long long left = atomic_fetch_sub(&sh->budget_bytes, (long long)n);
        if (left <= 0)
            return 0;
        if ((unsigned long long)left < n) {
            atomic_fetch_add(&sh->budget_bytes, (long long)n - left);
            return (size_t)left;
        }
    }
    return n;
}

static void budget_return(struct stream *s, size_t unsent, int whole_block)
{
    if (s->sh->has_budget_bytes && unsent)
        atomic_fetch_add(&s->sh->budget_bytes, (long long)unsent);
    if (s->sh->has_budget_blocks && whole_block)
        atomic_fetch_add(&s->sh->budget_blocks, 1);
}

/* UDP: take up to n whole datagrams from the budgets (a partial last block
 * still goes out whole, as iperf3 does); 0 = used up */
static int budget_take_datagrams(struct stream *s, int n)
{
    struct stream_shared *sh = s->sh;
    if (sh->has_budget_blocks) {
        long long left = atomic_fetch_sub(&sh->budget_blocks, n);
        if (left <= 0)
            return 0;
        if (left < n) {
            atomic_fetch_add(&sh->budget_blocks, n - left);
            n = (int)left;
        }
    }
    if (sh->has_budget_bytes) {
        long long want = (long long)n * (long long)s->blksize;
        long long left = atomic_fetch_sub(&sh->budget_bytes, want);
        if (left <= 0)
            return 0;
        if (left < want) {
            int m = (int)((left + (long long)s->blksize - 1) / (long long)s->blksize);
            atomic_fetch_add(&sh->budget_bytes, (long long)(n - m) * (long long)s->blksize);
            n = m;
        }
    }
    return n;
}

static void budget_return_datagrams(struct stream *s, int n)
{
    if (n <= 0)
        return;
    if (s->sh->has_budget_bytes)
        atomic_fetch_add(&s->sh->budget_bytes, (long long)n * (long long)s->blksize);
    if (s->sh->has_budget_blocks)
        atomic_fetch_add(&s->sh->budget_blocks, n);
}

static uint64_t burst_bytes(const struct stream *s)
{
    return s->burst > 1 ? (uint64_t)(s->burst - 1) * s->blksize : 0;
}

/* a sender's place in the token bucket: bytes sent since the pacing reference;
 * when the session moves the reference (end of -O), the count starts again */
struct pace_clock {
    uint64_t from_ns, sent;
};

static void pace_sync(struct stream *s, struct pace_clock *pc)
{
    uint64_t from = atomic_load_explicit(&s->sh->pace_from_ns, memory_order_relaxed);
    if (from != pc->from_ns) {
        pc->from_ns = from;
        pc->sent = 0;
    }
}

/* -b: sleep until due_ns after the pacing reference (pace_due_ns, pace_step), to
 * an absolute time, in slices so a stop is seen. Returns 0, or -1 on stop. */
static int pace_wait(struct stream *s, const struct pace_clock *pc, uint64_t due_ns)
{
    uint64_t due = pc->from_ns + due_ns;
    for (;;) {
        if (atomic_load_explicit(&s->sh->stop_send, memory_order_relaxed))
            return -1;
        uint64_t now = mono_ns();
        if (now >= due)
            return 0;
        pace_sleep_until(due - now > SLEEP_MAX_NS ? now + SLEEP_MAX_NS : due);
    }
}

/* MSG_ZEROCOPY completions: read and drop them (the payload never changes, so
 * the buffer may be reused at once); returns the calls made */
static uint64_t zc_reap(int fd)
{
    uint64_t calls = 0;
    for (int i = 0; i < 64; i++) {
        unsigned char ctl[128];
        struct msghdr m;
        memset(&m, 0, sizeof m);
        m.msg_control = ctl;
        m.msg_controllen = sizeof ctl;
        calls++;
        if (recvmsg(fd, &m, MSG_ERRQUEUE | MSG_DONTWAIT) < 0)
            break;
    }
    return calls;
}

void stream_tcp_send(struct stream *s)
{
    uint64_t calls = 0;
    struct pace_clock pc = { 0, 0 };
    int budget = s->sh->has_budget_bytes || s->sh->has_budget_blocks;
    int msgzc = 0;
    const char *zc = getenv("ESXPERF_ZEROCOPY");
    if (s->zfd >= 0 && zc && !strcmp(zc, "msg")) {
        /* the alternative -Z (measured slower on loopback, where the kernel copies
         * MSG_ZEROCOPY pages anyway): falls back to sendfile without SO_ZEROCOPY */
        int one = 1;
        if (setsockopt(s->fd, SOL_SOCKET, SO_ZEROCOPY, &one, sizeof one) == 0) {
            msgzc = 1;
            close(s->zfd);
            s->zfd = -1;
            path_add(s, "TCP send: send(MSG_ZEROCOPY) %zu bytes per call (-Z)", s->blksize);
        }
    }
    if (!msgzc && s->zfd >= 0)
        path_add(s, "TCP send: sendfile() %zu bytes per call (-Z, no copy)", s->blksize);
    else if (!msgzc)
        path_add(s, "TCP send: send() %zu-byte writes", s->blksize);
    /* paced: smaller writes at low rates, so no rate overshoots by a whole
     * block (-k counts whole blocks, so it keeps them) */
    size_t want = s->rate_bps && !s->sh->has_budget_blocks ? pace_chunk(s->rate_bps, s->wsize)
                                                           : s->wsize;
    if (want < s->wsize)
        path_add(s, ", paced in %zu-byte writes", want);
    const uint64_t burst = burst_bytes(s);
    while (!atomic_load_explicit(&s->sh->stop_send, memory_order_relaxed)) {
        size_t chunk = budget ? budget_take(s, want) : want;
        if (!chunk)
            break;
        /* one write at a time: waits only while the bucket is negative */
        uint64_t due = 0;
        if (s->rate_bps)
            pace_sync(s, &pc);
        if (s->rate_bps && !pace_step(s->rate_bps, mono_ns() - pc.from_ns, pc.sent, burst,
                                      chunk, 1, 1, &due) && pace_wait(s, &pc, due) < 0) {
            if (budget)
                budget_return(s, chunk, 1);
            break;
        }
        ssize_t n;
        if (s->zfd >= 0) {
            off_t off = 0;
            n = sendfile(s->fd, s->zfd, &off, chunk);
            if (n < 0 && (errno == EINVAL || errno == ENOSYS || errno == EOPNOTSUPP)) {
                /* no sendfile to a socket here: copy from now on */
                int e = errno;
                close(s->zfd);
                s->zfd = -1;
                path_add(s, "; sendfile failed (%s): send() copies", errtext(e));
                n = send(s->fd, s->buf, chunk, MSG_NOSIGNAL);
                calls++;
            }
        } else if (msgzc) {
            n = send(s->fd, s->buf, chunk, MSG_NOSIGNAL | MSG_ZEROCOPY);
            if ((n < 0 && errno == ENOBUFS) || (calls & 15) == 0)
                calls += zc_reap(s->fd);
            if (n < 0 && errno == ENOBUFS)
                errno = EAGAIN;
        } else {
            n = send(s->fd, s->buf, chunk, MSG_NOSIGNAL);
        }
        calls++;
        if (n < 0) {
            if (budget)
                budget_return(s, chunk, 1);
            if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
                continue;
            atomic_store(&s->err, errno);
            break;
        }
        if (budget)
            budget_return(s, chunk - (size_t)n, 0);
        pc.sent += (uint64_t)n;
        /* one relaxed add each: the main thread reads them at interval ticks */
        atomic_fetch_add_explicit(&s->bytes, (unsigned long long)n, memory_order_relaxed);
        atomic_fetch_add_explicit(&s->blocks, n > (ssize_t)s->blksize ? (size_t)n / s->blksize : 1,
                                  memory_order_relaxed);
        atomic_store_explicit(&s->calls, calls, memory_order_relaxed);
    }
    atomic_store(&s->calls, calls);
}

/* after stop_recv: read what is already queued, bounded in time */
static void drain_tcp(struct stream *s, int flags)
{
    uint64_t until = mono_ns() + DRAIN_MAX_NS;
    while (mono_ns() < until) {
        ssize_t n = recv(s->fd, s->buf, s->bufsize, flags | MSG_DONTWAIT);
        atomic_fetch_add(&s->calls, 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n == 0)
                atomic_store(&s->eof, 1);
            return;
        }
        atomic_fetch_add(&s->bytes, (unsigned long long)n);
        atomic_fetch_add(&s->blocks, 1);
    }
}

void stream_tcp_recv(struct stream *s)
{
    int flags = 0;
    if (s->skip_rx_copy && !(s->eng_off & ENG_TRUNC))
        flags = MSG_TRUNC;
    /* wake for TCP_LOWAT bytes, not for every segment: fewer wake-ups and bigger
     * copies (the kernel still wakes early under memory pressure, at FIN, and
     * SO_RCVTIMEO returns what has come) */
    int lowat = 0;
    if (!(s->eng_off & ENG_LOWAT)) {
        lowat = TCP_LOWAT;
        if (s->window > 0 && lowat > s->window / 4)
            lowat = (int)(s->window / 4);
        if (lowat > (int)s->bufsize)
            lowat = (int)s->bufsize;
        if (lowat > 1 && setsockopt(s->fd, SOL_SOCKET, SO_RCVLOWAT, &lowat, sizeof lowat) < 0)
            lowat = 0;
    }
    path_add(s, "TCP receive: recv(%s) %zu-byte reads, %s", flags ? "MSG_TRUNC, no copy" : "copy",
             s->bufsize, lowat > 1 ? "SO_RCVLOWAT " : "no SO_RCVLOWAT");
    if (lowat > 1)
        path_add(s, "%d", lowat);
    uint64_t calls = 0;
    for (;;) {
        if (atomic_load_explicit(&s->sh->stop_recv, memory_order_relaxed)) {
            atomic_store(&s->calls, calls);
            drain_tcp(s, flags);
            return;
        }
        ssize_t n = recv(s->fd, s->buf, s->bufsize, flags);
        calls++;
        if (n < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
                continue;
            if (flags && (errno == EINVAL || errno == EOPNOTSUPP)) {
                flags = 0;    /* no MSG_TRUNC on this stack: copy */
                path_add(s, "; MSG_TRUNC refused: copy");
                continue;
            }
            atomic_store(&s->calls, calls);
            atomic_store(&s->err, errno);
            return;
        }
        if (n == 0) {
            atomic_store(&s->calls, calls);
            atomic_store(&s->eof, 1);
            return;
        }
        atomic_fetch_add_explicit(&s->bytes, (unsigned long long)n, memory_order_relaxed);
        atomic_fetch_add_explicit(&s->blocks, 1, memory_order_relaxed);
        atomic_store_explicit(&s->calls, calls, memory_order_relaxed);
    }
}

void stream_udp_send(struct stream *s)
{
    struct udp_tx tx;
    udp_tx_init(&tx, s->fd, s->blksize, s->counters64, s->buf, !(s->eng_off & ENG_MMSG),
                !(s->eng_off & ENG_GSO));
    char how[96];
    udp_tx_describe(&tx, how, sizeof how);
    path_add(s, "UDP send: %s", how);
    uint64_t seq = 0;
    struct pace_clock pc = { 0, 0 };
    const uint64_t burst = burst_bytes(s);   /* fixed for the test: not per batch */
    int wake = 1;
    if (s->rate_bps) {
        /* wake once per pacing period, or per full batch at high rates */
        wake = pace_wake_blocks(s->rate_bps, s->pacing_ns, s->blksize, BATCH_MAX);
        path_add(s, ", paced %d datagrams per wake-up", wake);
    }
    while (!atomic_load_explicit(&s->sh->stop_send, memory_order_relaxed)) {
        int n = tx.max;
        if (s->rate_bps) {
            uint64_t due = 0;
            pace_sync(s, &pc);
            n = pace_step(s->rate_bps, mono_ns() - pc.from_ns, pc.sent, burst,
                          s->blksize, wake, tx.max, &due);
            if (n == 0) {
                if (pace_wait(s, &pc, due) < 0)
                    break;
                continue;
            }
        }
        n = budget_take_datagrams(s, n);
        if (!n)
            break;
        int k = udp_tx_send(&tx, n, seq + 1);
        if (k < 0) {
            int e = errno;
            budget_return_datagrams(s, n);
            atomic_store_explicit(&s->calls, tx.calls, memory_order_relaxed);
            /* a full buffer, or ICMP unreachable reported on a connected socket */
            if (e == EAGAIN || e == EWOULDBLOCK || e == EINTR || e == ENOBUFS || e == ECONNREFUSED)
                continue;
            atomic_store(&s->err, e);
            break;
        }
        budget_return_datagrams(s, n - k);
        seq += (uint64_t)k;
        pc.sent += (uint64_t)k * s->blksize;
        atomic_fetch_add_explicit(&s->bytes, (unsigned long long)k * s->blksize,
                                  memory_order_relaxed);
        atomic_fetch_add_explicit(&s->blocks, (unsigned long long)k, memory_order_relaxed);
        atomic_store_explicit(&s->calls, tx.calls, memory_order_relaxed);
    }
    char now_how[96];
    udp_tx_describe(&tx, now_how, sizeof now_how);
    if (strcmp(how, now_how))
        path_add(s, "; fell back to %s", now_how);
    atomic_store(&s->calls, tx.calls);
    udp_tx_free(&tx);
}

/* count the datagrams of m received messages; GRO ones hold several, each with
 * its own header */
static void udp_consume(struct stream *s, const struct udp_rxb *rb, int m)
{
    double now = (double)wall_us() / 1e6;
    uint64_t bytes = 0, blocks = 0;
    pthread_mutex_lock(&s->lock);
    for (int i = 0; i < m; i++) {
        const unsigned char *d;
        size_t len, seg;
        udp_rxb_msg(rb, i, &d, &len, &seg);
        size_t cnt = gro_count(len, seg);
        for (size_t j = 0; j < cnt; j++) {
            size_t dl = gro_seg_len(len, seg, j);
            uint32_t sec, usec;
            uint64_t seq;
            if (udp_header_get(d + j * seg, dl, s->counters64, &sec, &usec, &seq) < 0)
                continue;   /* not one of ours (too short for the header) */
            udp_rx_update(&s->rx, seq, sec + usec / 1e6, now);
            bytes += dl;
            blocks++;
        }
    }
    pthread_mutex_unlock(&s->lock);
    atomic_fetch_add_explicit(&s->bytes, bytes, memory_order_relaxed);
    atomic_fetch_add_explicit(&s->blocks, blocks, memory_order_relaxed);
}

void stream_udp_recv(struct stream *s)
{
    int rcvbuf = 0;
    if (!(s->eng_off & ENG_RCVBUF) && s->window <= 0) {
        /* a burst of datagrams must fit while this thread is off the CPU */
        int v = UDP_RCVBUF;
        socklen_t l = sizeof rcvbuf;
        if (setsockopt(s->fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof v) == 0)
            getsockopt(s->fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, &l);
    }
    struct udp_rxb rb;
    udp_rxb_init(&rb, s->fd, s->blksize, !(s->eng_off & ENG_MMSG), !(s->eng_off & ENG_GRO));
    char how[96];
    udp_rxb_describe(&rb, how, sizeof how);
    path_add(s, "UDP receive: %s", how);
    if (rcvbuf)
        path_add(s, ", SO_RCVBUF %d", rcvbuf);
    for (;;) {
        if (atomic_load_explicit(&s->sh->stop_recv, memory_order_relaxed)) {
            uint64_t until = mono_ns() + DRAIN_MAX_NS;
            while (mono_ns() < until) {
                int m = udp_rxb_recv(&rb, MSG_DONTWAIT);
                if (m < 0 && errno == EINTR)
                    continue;
                if (m <= 0)
                    break;
                udp_consume(s, &rb, m);
            }
            break;
        }
        int m = udp_rxb_recv(&rb, 0);
        atomic_store_explicit(&s->calls, rb.calls, memory_order_relaxed);
        if (m < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ||
                errno == ECONNREFUSED)
                continue;
            atomic_store(&s->err, errno);
            break;
        }
        udp_consume(s, &rb, m);
    }
    char now_how[96];
    udp_rxb_describe(&rb, now_how, sizeof now_how);
    if (strcmp(how, now_how))
        path_add(s, "; fell back to %s", now_how);
    atomic_store(&s->calls, rb.calls);
    udp_rxb_free(&rb);
}

void stream_rx_snapshot(struct stream *s, struct udp_rx *out)
{
    pthread_mutex_lock(&s->lock);
    *out = s->rx;
    pthread_mutex_unlock(&s->lock);
}

long long stream_tcp_unacked(int fd)
{
    int n = 0;
    /* TIOCOUTQ on a TCP socket (SIOCOUTQ): bytes written and not yet acknowledged */
    if (ioctl(fd, TIOCOUTQ, &n) < 0)
        return -1;
    return n;
}

int stream_tcp_info(int fd, struct tcp_sample *t)
{
    struct tcp_info ti;
    socklen_t len = sizeof ti;
    memset(&ti, 0, sizeof ti);
    if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) < 0 || len < 104) {
        t->retrans = t->cwnd = t->rtt = t->rttvar = t->pmtu = -1;
        return -1;
    }
    t->retrans = ti.tcpi_total_retrans;
    t->cwnd = (int64_t)ti.tcpi_snd_cwnd * ti.tcpi_snd_mss;
    t->rtt = ti.tcpi_rtt;
    t->rttvar = ti.tcpi_rttvar;
    t->pmtu = ti.tcpi_pmtu;
    return 0;
}

void stream_congestion(int fd, char *buf, size_t len)
{
    char name[32] = "";
    socklen_t n = sizeof name - 1;
    if (getsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, name, &n) < 0)
        name[0] = '\0';
    name[sizeof name - 1] = '\0';
    snprintf(buf, len, "%s", name);
}

int stream_congestion_check(const char *algo, char *why, size_t len)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return 0;       /* no socket to ask: the data streams will say */
    int rc = setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, algo, (socklen_t)strlen(algo));
    int e = errno;
    close(fd);
    if (rc == 0)
        return 0;
    char have[200] = "";
    FILE *f = fopen("/proc/sys/net/ipv4/tcp_available_congestion_control", "r");
    if (f) {
        if (!fgets(have, sizeof have, f))
            have[0] = '\0';
        fclose(f);
        have[strcspn(have, "\n")] = '\0';
    }
    snprintf(why, len, "bad congestion control -C '%s': %s (%s%s)", algo,
             e == ENOENT ? "this host has no such algorithm"
             : e == EPERM ? "not allowed for this user (net.ipv4.tcp_allowed_congestion_control)"
             : e == ENOPROTOOPT ? "this system cannot choose one" : errtext(e),
             have[0] ? "available: " : "drop -C", have);
    return -1;
}
