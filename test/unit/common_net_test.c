/* common/net.c on loopback: resolve, format, listen/connect, full reads with deadlines. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <errno.h>
#include <sys/socket.h>
#include <unistd.h>

#include "clock.h"
#include "net.h"

const char tool_name[] = "test";

static void resolves_and_formats_numeric_addresses(void **state)
{
    (void)state;
    union sockaddr_any a;
    socklen_t len;
    char b[64];
    assert_int_equal(net_resolve("198.18.0.2", AF_UNSPEC, 5201, 0, &a, &len), 0);
    assert_int_equal(a.sa.sa_family, AF_INET);
    assert_int_equal(len, sizeof(struct sockaddr_in));
    net_ntop_port(&a, b, sizeof b);
    assert_string_equal(b, "198.18.0.2:5201");
    assert_int_equal(net_resolve("2001:db8::2", AF_UNSPEC, 80, 0, &a, &len), 0);
    net_ntop_port(&a, b, sizeof b);
    assert_string_equal(b, "[2001:db8::2]:80");
    net_set_port(&a, 443);
    assert_int_equal(net_port(&a), 443);
    net_ntop(&a, b, sizeof b);
    assert_string_equal(b, "2001:db8::2");
    /* family forced */
    assert_true(net_resolve("198.18.0.2", AF_INET6, 1, 0, &a, &len) != 0);
    assert_int_equal(net_resolve(NULL, AF_INET6, 1, 1, &a, &len), 0);
    assert_int_equal(a.sa.sa_family, AF_INET6);
}

static void connects_and_transfers_on_loopback(void **state)
{
    (void)state;
    union sockaddr_any a;
    socklen_t len = sizeof a;
    assert_int_equal(net_resolve("127.0.0.1", AF_INET, 0, 0, &a, NULL), 0);
    int l = net_listen(SOCK_STREAM, &a, 4);
    assert_true(l >= 0);
    assert_int_equal(getsockname(l, &a.sa, &len), 0);
    int c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    assert_true(c >= 0);
    assert_int_equal(net_connect_fd(c, &a, 1000), 0);
    int s = accept(l, NULL, NULL);
    assert_true(s >= 0);
    assert_int_equal(net_write_full(c, "hello", 5, mono_ns() + 1000000000ull), 0);
    char b[8] = {0};
    assert_int_equal(net_read_full(s, b, 5, mono_ns() + 1000000000ull), 0);
    assert_string_equal(b, "hello");
    /* nothing more arrives: the deadline ends the wait */
    uint64_t t0 = mono_ns();
    assert_int_equal(net_read_full(s, b, 1, mono_ns() + 100000000ull), -1);
    assert_int_equal(errno, ETIMEDOUT);
    assert_true(mono_ns() - t0 >= 90000000ull);
    /* the peer closes: a short read is an error, not a hang */
    assert_int_equal(net_write_full(c, "x", 1, 0), 0);
    close(c);
    assert_int_equal(net_read_full(s, b, 4, mono_ns() + 1000000000ull), -1);
    assert_int_equal(errno, ECONNRESET);
    close(s);
    close(l);
}

static void refused_connection_reports_errno(void **state)
{
    (void)state;
    union sockaddr_any a;
    socklen_t len = sizeof a;
    assert_int_equal(net_resolve("127.0.0.1", AF_INET, 0, 0, &a, NULL), 0);
    int l = net_listen(SOCK_STREAM, &a, 1);
    assert_int_equal(getsockname(l, &a.sa, &len), 0);
    close(l);                   /* the port is now closed */
    int c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    assert_true(c >= 0);
    assert_int_equal(net_connect_fd(c, &a, 1000), -1);
    assert_int_equal(errno, ECONNREFUSED);
    close(c);
    assert_int_equal(net_bind_device(0, ""), -1);
    assert_int_equal(errno, EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(resolves_and_formats_numeric_addresses),
        cmocka_unit_test(connects_and_transfers_on_loopback),
        cmocka_unit_test(refused_connection_reports_errno),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
