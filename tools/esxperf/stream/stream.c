/* A data stream's life (stream.h): buffers, -Z file, -F file, the loop
 * timeouts, the I/O path text, ESXPERF_ENGINE_OFF, the receive statistics, its
 * thread joined and its resources freed. Blocking sockets with short timeouts,
 * so each step sees the shared stop flags; counters are atomics the session's
 * thread reads at interval ticks. */
#include "stream.h"
#include "file_opt.h"
#include "sockopt_apply.h"
#include "tcp_lowat.h"
#include "bytes.h"
#include "fail.h"
#include "fallback.h"
#include "net.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TCP_READ_MIN (128 * 1024)      /* receive reads at least this much per call */
#define TCP_BULK_BLOCK (64 * 1024)     /* a lone stream with blocks this big or more */
#define TCP_BULK_WRITE (512 * 1024)    /* writes whole blocks up to this per call */

unsigned stream_engine_off(const char *list)
{
    static const struct { const char *name; unsigned bit; } names[] = {
        { "mmsg", ENG_MMSG }, { "gso", ENG_GSO }, { "gro", ENG_GRO }, { "lowat", ENG_LOWAT },
        { "trunc", ENG_TRUNC }, { "sendfile", ENG_SENDFILE }, { "rcvbuf", ENG_RCVBUF },
        { "pktinfo", ENG_PKTINFO }, { "sndbuf", ENG_SNDBUF }, { "threads", ENG_THREADS },
        { "evidence", ENG_EVIDENCE }, { "msgzc", ENG_MSGZC },
    };
    unsigned off = 0;
    if (!list)
        return 0;
    while (*list) {
        size_t n = strcspn(list, ",");
        for (size_t i = 0; i < ARRAY_SIZE(names); i++)
            if (strlen(names[i].name) == n && !strncmp(list, names[i].name, n))
                off |= names[i].bit;
        if (!strncmp(list, "all", n) && n == 3)
            off |= ~(ENG_THREADS | ENG_EVIDENCE);   /* every I/O technique; threads and
                                                      * evidence only by name */
        list += n;
        if (*list == ',')
            list++;
    }
    return off;
}

void stream_path_add(struct stream *s, const char *fmt, ...)
{
    size_t used = strlen(s->path);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->path + used, sizeof s->path - used, fmt, ap);
    va_end(ap);
}

/* the payload: random bytes, or --repeating-payload's 0123456789 pattern started
 * again at every block (iperf3 fills one block; a write of several whole blocks
 * must put the same bytes on the wire) */
static void fill_payload(unsigned char *buf, size_t n, size_t blk, int repeating)
{
    if (repeating) {
        for (size_t i = 0; i < n; i++)
            buf[i] = (unsigned char)('0' + i % blk % 10);
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
    s->file_fd = -1;
    s->udp = p->udp;
    s->sender = sender;
    s->counters64 = p->udp_counters_64bit;
    s->skip_rx_copy = p->skip_rx_copy;
    s->blksize = (size_t)p->len;
    s->bufsize = s->udp && !sender ? 65536 : s->blksize;
    s->window = p->window;
    /* TCP send: one block per call, except a lone stream of big blocks, which
     * writes whole blocks up to 512 KiB per send() (the byte stream is the same;
     * -k still takes one block per call). Measured on loopback in alternating
     * pairs with the receiver's 512 KiB wake-up (tcp_lowat.h): 1.5x less time for
     * one stream and for -R; at -P 2, 4 and 8 1.13-1.25x more, and sendfile (-Z)
     * slower, so those keep one block. */
    s->wsize = s->blksize;
    if (!s->udp && sender && p->parallel <= 1 && !p->bidir && !p->zerocopy &&
        s->blksize >= TCP_BULK_BLOCK && s->blksize < TCP_BULK_WRITE)
        s->wsize = TCP_BULK_WRITE / s->blksize * s->blksize;
    if (s->bufsize < s->wsize)
        s->bufsize = s->wsize;
    s->eng_off = stream_engine_off(getenv("ESXPERF_ENGINE_OFF"));
    s->cpu = -1;
    /* TCP send: several streams may hold their buffers (tcp_sndbuf.h); not with
     * -w, which sets the buffer itself */
    if (!s->udp && sender && p->window <= 0 && !(s->eng_off & ENG_SNDBUF))
        s->hold_streams = p->parallel;
    /* TCP receive: bigger reads than the block size cost nothing (a byte stream
     * has no blocks) and mean fewer calls; as big as the largest wake-up
     * (tcp_lowat.h) */
    if (!s->udp && !sender) {
        s->lowat_max = tcp_lowat_cap(p->parallel);
        size_t want = (size_t)s->lowat_max;
        if (want < TCP_READ_MIN)
            want = TCP_READ_MIN;
        if (s->bufsize < want)
            s->bufsize = want;
    }
    if (s->bufsize < s->blksize)
        s->bufsize = s->blksize;
    s->buf = xmalloc(s->bufsize);
    fill_payload(s->buf, s->bufsize, s->blksize ? s->blksize : 1, p->repeating_payload);
    s->rate_bps = p->bandwidth > 0 ? (uint64_t)p->bandwidth : 0;
    s->burst = p->burst;
    s->pacing_ns = p->pacing_timer > 0 ? (uint64_t)p->pacing_timer * NS_PER_US : NS_PER_MS;
    s->sh = sh;
    udp_rx_init(&s->rx);
    pthread_mutex_init(&s->lock, NULL);
    if (p->zerocopy && sender && !s->udp && !(s->eng_off & ENG_SENDFILE))
        s->zfd = zerocopy_file(s->buf, s->blksize, s->wsize);   /* -1: send() copies */
    if (p->zerocopy && sender && !s->udp && s->zfd < 0)
        stream_path_add(s, "-Z without sendfile (%s); ",
                 s->eng_off & ENG_SENDFILE ? "turned off" : "no temporary file");
    /* SO_SNDTIMEO/SO_RCVTIMEO so the steps notice the stop flags; where refused,
     * a non-blocking socket that the driver poll()s (fcntl on our own socket:
     * cannot fail) */
    if (sockopt_loop_timeouts(fd, LOOP_TIMEOUT_MS) < 0) {
        s->poll_wait = 1;
        (void)net_set_nonblock(fd, 1);
    }
    return 0;
}

int stream_file_open(struct stream *s, const char *path)
{
    s->file_fd = file_opt_open(path, s->sender);
    if (s->file_fd < 0)
        return -1;
    if (s->zfd >= 0) {           /* the file's bytes, not -Z's block */
        close(s->zfd);
        s->zfd = -1;
    }
    return 0;
}

void stream_rx_snapshot(struct stream *s, struct udp_rx *out)
{
    pthread_mutex_lock(&s->lock);
    *out = s->rx;
    pthread_mutex_unlock(&s->lock);
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
    if (s->file_fd >= 0)
        close(s->file_fd);
    s->fd = s->zfd = s->file_fd = -1;
    free(s->buf);
    s->buf = NULL;
    if (s->rrb)
        rr_stream_free(s);
    pthread_mutex_destroy(&s->lock);
}
