/* -n/-k: who is bound by the count (session.c: every TCP
 * sender and the client's UDP senders; a sending server's UDP streams go on until
 * TEST_END), and a TCP sender's -k count of whole blocks through short writes
 * (tcp_io.c), over a real loopback TCP connection whose reader is slow. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>

#include "options.h"
#include "proto.h"
#include "session.h"
#include "drive.h"
#include "stream.h"
#include "clock.h"

const char tool_name[] = "esxperf_test";

static void budgets_of(int is_client, int udp, struct session *s)
{
    struct perf_opts o;
    struct test_params p;
    opts_defaults(&o);
    params_defaults(&p);
    p.udp = udp;
    p.time = 0;
    p.blockcount = 1024;
    session_init(s, &o, &p, is_client, NULL);
}

static void count_binds_tcp_senders_and_the_clients_udp_senders(void **state)
{
    (void)state;
    struct session s;
    budgets_of(1, 1, &s);
    assert_true(s.sh.has_budget_blocks);
    session_free(&s);
    budgets_of(1, 0, &s);
    assert_true(s.sh.has_budget_blocks);
    session_free(&s);
    budgets_of(0, 0, &s);
    assert_true(s.sh.has_budget_blocks);
    session_free(&s);
    /* the server's UDP senders make up what the client lost: on until TEST_END */
    budgets_of(0, 1, &s);
    assert_false(s.sh.has_budget_blocks);
    assert_false(s.sh.has_budget_bytes);
    session_free(&s);
}

/* the slow reader: READ_BYTES every READ_PAUSE_NS, so each 64 KiB write waits
 * longer than the sender's 100 ms SO_SNDTIMEO and returns short */
#define BLOCK 65536
#define BLOCKS 4
#define READ_BYTES 8192
#define READ_PAUSE_NS (40 * NS_PER_MS)

struct reader {
    int fd;
    uint64_t got;
};

static void *slow_read(void *arg)
{
    struct reader *r = arg;
    static unsigned char buf[READ_BYTES];
    /* bounded: the whole count arrives in about 1.5 s; 30 s is far past it */
    uint64_t until = mono_ns() + 30 * NS_PER_SEC;
    while (mono_ns() < until) {
        ssize_t n = recv(r->fd, buf, sizeof buf, 0);
        if (n <= 0)
            break;
        r->got += (uint64_t)n;
        sleep_ns(READ_PAUSE_NS);
    }
    return NULL;
}

/* a connected loopback TCP pair with the smallest buffers the kernel gives */
static void tcp_pair(int *tx, int *rx)
{
    int small = 4096;
    int l = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(l >= 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t al = sizeof a;
    assert_int_equal(setsockopt(l, SOL_SOCKET, SO_RCVBUF, &small, sizeof small), 0);
    assert_int_equal(bind(l, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(listen(l, 1), 0);
    assert_int_equal(getsockname(l, (struct sockaddr *)&a, &al), 0);
    *tx = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(*tx >= 0);
    assert_int_equal(setsockopt(*tx, SOL_SOCKET, SO_SNDBUF, &small, sizeof small), 0);
    assert_int_equal(connect(*tx, (struct sockaddr *)&a, sizeof a), 0);
    *rx = accept(l, NULL, NULL);
    assert_true(*rx >= 0);
    close(l);
}

/* a short write must not use up a whole block of -k: the stream puts exactly
 * k x len bytes on the wire, since an iperf3 client reads len-byte blocks and
 * would wait for a missing last one until the stall guard */
static void tcp_k_sends_whole_blocks_through_short_writes(void **state)
{
    (void)state;
    int tx, rx;
    tcp_pair(&tx, &rx);
    struct test_params p;
    params_defaults(&p);
    p.len = BLOCK;
    p.blockcount = BLOCKS;
    struct stream_shared sh;
    memset(&sh, 0, sizeof sh);
    sh.has_budget_blocks = 1;
    atomic_store(&sh.budget_blocks, BLOCKS);
    struct stream s;
    assert_int_equal(stream_init(&s, 1, tx, 1, &p, &sh), 0);
    struct reader r = { rx, 0 };
    pthread_t thr;
    assert_int_equal(pthread_create(&thr, NULL, slow_read, &r), 0);
    drive_run(&s);
    shutdown(tx, SHUT_WR);
    pthread_join(thr, NULL);
    assert_int_equal(atomic_load(&s.err), 0);
    /* short writes happened (more calls than blocks), and yet the count is whole */
    assert_true(atomic_load(&s.calls) > BLOCKS);
    assert_int_equal(atomic_load(&s.bytes), (uint64_t)BLOCKS * BLOCK);
    assert_int_equal(atomic_load(&s.blocks), BLOCKS);
    assert_int_equal(r.got, (uint64_t)BLOCKS * BLOCK);
    stream_free(&s);
    close(rx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(count_binds_tcp_senders_and_the_clients_udp_senders),
        cmocka_unit_test(tcp_k_sends_whole_blocks_through_short_writes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
