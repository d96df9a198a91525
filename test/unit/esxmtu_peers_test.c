/* esxmtu peers.c and options.c: -f lines (one peer a line, warnings and errors that
 * name the line), the address rules (unicast only, IPv4-mapped is IPv4, the family
 * -4/-6 asks for) and the checks across options. Files are real pipes and temporary
 * files; only address literals are resolved (no name lookup leaves the machine). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../tools/esxmtu/options.h"
#include "../../tools/esxmtu/peers.h"
#include "bytes.h"

const char tool_name[] = "esxmtu";

/* the peers that `text` (n bytes) gives through a pipe; returns peers_read_fd's code */
static int read_text(struct peer_list *l, const char *text, size_t n, char *why, size_t len)
{
    FILE *f = tmpfile();
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, n, f), n);
    fflush(f);
    rewind(f);
    memset(l, 0, sizeof *l);
    int rc = peers_read_fd(l, fileno(f), "peers.txt", why, len);
    fclose(f);
    return rc;
}

static void one_peer_a_line(void **state)
{
    (void)state;
    struct peer_list l;
    char why[256] = "";
    static const char t[] = "# vMotion peers\n198.18.1.2\n\n  2001:db8:1::2\t# B, IPv6\r\n"
                            "198.18.1.3 extra words\nlast-without-newline";
    assert_int_equal(read_text(&l, t, sizeof t - 1, why, sizeof why), 0);
    assert_int_equal(l.n, 4);
    assert_string_equal(l.name[0], "198.18.1.2");
    assert_string_equal(l.name[1], "2001:db8:1::2");
    assert_string_equal(l.name[2], "198.18.1.3");      /* the extra words: a warning, not a peer */
    assert_string_equal(l.name[3], "last-without-newline");
    peers_free(&l);
}

static void line_errors_name_the_line(void **state)
{
    (void)state;
    struct peer_list l;
    char why[256];
    /* a line over the limit is an error on that line, never two peers */
    char *big = malloc(PEERS_LINE_MAX + 64);
    assert_non_null(big);
    int k = snprintf(big, 64, "198.18.1.2\n");
    memset(big + k, 'x', PEERS_LINE_MAX + 1);
    big[k + PEERS_LINE_MAX + 1] = '\n';
    assert_int_equal(read_text(&l, big, (size_t)k + PEERS_LINE_MAX + 2, why, sizeof why), -1);
    assert_string_equal(why, "peers.txt line 2: longer than 1024 bytes (one peer a line)");
    peers_free(&l);
    /* exactly the limit is fine */
    memset(big, 'a', PEERS_LINE_MAX);
    big[PEERS_LINE_MAX] = '\n';
    assert_int_equal(read_text(&l, big, PEERS_LINE_MAX + 1, why, sizeof why), 0);
    assert_int_equal(l.n, 1);
    peers_free(&l);
    free(big);
    /* a NUL byte */
    static const char nul[] = "198.18.1.2\n# fine\n198.18\0.1.3\n";
    assert_int_equal(read_text(&l, nul, sizeof nul - 1, why, sizeof why), -1);
    assert_string_equal(why, "peers.txt line 3: a NUL byte (is it a text file? one peer a line)");
    peers_free(&l);
}

static void bounded_lines_and_peers(void **state)
{
    (void)state;
    struct peer_list l;
    char why[256];
    /* PEERS_LINES_MAX lines are read (comments count); one more is an error */
    size_t n = (size_t)(PEERS_LINES_MAX + 1) * 2;
    char *t = malloc(n);
    assert_non_null(t);
    for (size_t i = 0; i < n; i += 2) {
        t[i] = '#';
        t[i + 1] = '\n';
    }
    assert_int_equal(read_text(&l, t, n - 2, why, sizeof why), 0);
    assert_int_equal(l.n, 0);
    assert_int_equal(read_text(&l, t, n, why, sizeof why), -1);
    assert_string_equal(why, "peers.txt: more than 100000 lines (at most 100000, comments included; split the file)");
    free(t);
    /* PEERS_MAX peers, then one more names its line */
    n = (PEERS_MAX + 1) * 2;
    t = malloc(n);
    assert_non_null(t);
    for (size_t i = 0; i < n; i += 2) {
        t[i] = 'h';
        t[i + 1] = '\n';
    }
    assert_int_equal(read_text(&l, t, n - 2, why, sizeof why), 0);
    assert_int_equal(l.n, PEERS_MAX);
    peers_free(&l);
    assert_int_equal(read_text(&l, t, n, why, sizeof why), -1);
    assert_string_equal(why, "peers.txt line 1025: too many peers (at most 1024 in one run; split the list)");
    peers_free(&l);
    free(t);
}

static void what_the_file_is(void **state)
{
    (void)state;
    struct peer_list l;
    char why[256];
    memset(&l, 0, sizeof l);
    assert_int_equal(peers_read_file(&l, "/", why, sizeof why), -1);
    assert_string_equal(why, "/ is a directory (-f takes a file with one peer a line)");
    assert_int_equal(peers_read_file(&l, "/dev/null", why, sizeof why), -1);
    assert_string_equal(why, "/dev/null is a character device (-f takes a file with one peer a line)");
    assert_int_equal(peers_read_file(&l, "/nonexistent/peers", why, sizeof why), -1);
    assert_string_equal(why, "cannot open /nonexistent/peers: No such file or directory (check the -f path)");
    /* a FIFO without a writer does not block: it reads as empty */
    char dir[] = "/tmp/esxmtu-peers-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char fifo[64];
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    assert_int_equal(peers_read_file(&l, fifo, why, sizeof why), 0);
    assert_int_equal(l.n, 0);
    unlink(fifo);
    rmdir(dir);
}

static union sockaddr_any lit(const char *s)
{
    union sockaddr_any a;
    memset(&a, 0, sizeof a);
    if (inet_pton(AF_INET, s, &a.in4.sin_addr) == 1)
        a.in4.sin_family = AF_INET;
    else if (inet_pton(AF_INET6, s, &a.in6.sin6_addr) == 1)
        a.in6.sin6_family = AF_INET6;
    return a;
}

static void address_classes(void **state)
{
    (void)state;
    static const struct { const char *a; enum addr_class c; int family; } t[] = {
        { "198.18.1.2", AC_UNICAST, AF_INET },          { "127.0.0.1", AC_UNICAST, AF_INET },
        { "0.0.0.0", AC_UNSPECIFIED, AF_INET },         { "255.255.255.255", AC_BROADCAST, AF_INET },
        { "224.0.0.1", AC_MULTICAST, AF_INET },         { "239.255.255.255", AC_MULTICAST, AF_INET },
        { "223.255.255.255", AC_UNICAST, AF_INET },     { "240.0.0.1", AC_UNICAST, AF_INET },
        { "2001:db8:1::2", AC_UNICAST, AF_INET6 },      { "::1", AC_UNICAST, AF_INET6 },
        { "::", AC_UNSPECIFIED, AF_INET6 },             { "ff02::1", AC_MULTICAST, AF_INET6 },
        { "::ffff:198.18.1.2", AC_UNICAST, AF_INET },   { "::ffff:224.0.0.1", AC_MULTICAST, AF_INET },
        { "::ffff:255.255.255.255", AC_BROADCAST, AF_INET },
    };
    for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
        union sockaddr_any a = lit(t[i].a);
        assert_int_equal(peers_classify(&a), t[i].c);
        assert_int_equal(a.sa.sa_family, t[i].family);
    }
    union sockaddr_any m = lit("::ffff:198.18.1.2");
    peers_classify(&m);
    char b[64];
    net_ntop(&m, b, sizeof b);
    assert_string_equal(b, "198.18.1.2");
    assert_string_equal(peers_class_name(AC_MULTICAST), "a multicast address");
}

static void resolve_says_what_is_wrong(void **state)
{
    (void)state;
    union sockaddr_any a;
    char why[400];
    assert_int_equal(peers_resolve("::1", AF_INET, NULL, &a, why, sizeof why), -1);
    assert_string_equal(why, "::1 is an IPv6 address, but -4 asks for IPv4 (drop -4, or give an IPv4 address)");
    assert_int_equal(peers_resolve("127.0.0.1", AF_INET6, NULL, &a, why, sizeof why), -1);
    assert_string_equal(why, "127.0.0.1 is an IPv4 address, but -6 asks for IPv6 (drop -6, or give an IPv6 address)");
    assert_int_equal(peers_resolve("::ffff:127.0.0.1", AF_INET6, NULL, &a, why, sizeof why), -1);
    assert_string_equal(why, "::ffff:127.0.0.1 is an IPv4 address (IPv4-mapped), but -6 asks for IPv6 "
                             "(drop -6, or give an IPv6 address)");
    assert_int_equal(peers_resolve("::1", AF_INET, "-B", &a, why, sizeof why), -1);
    assert_string_equal(why, "-B ::1 is an IPv6 address, but -4 asks for IPv4 (drop -4, or give an IPv4 address)");
    /* v4-mapped is IPv4, with -4 or with no family */
    assert_int_equal(peers_resolve("::ffff:127.0.0.1", AF_INET, NULL, &a, why, sizeof why), 0);
    assert_int_equal(a.sa.sa_family, AF_INET);
    assert_int_equal(peers_resolve("::ffff:127.0.0.1", AF_UNSPEC, NULL, &a, why, sizeof why), 0);
    assert_int_equal(a.sa.sa_family, AF_INET);
    assert_int_equal(a.in4.sin_port, 0);
    /* not unicast */
    assert_int_equal(peers_resolve("255.255.255.255", AF_UNSPEC, NULL, &a, why, sizeof why), -1);
    assert_string_equal(why, "255.255.255.255 is the broadcast address, not a path-MTU target "
                             "(give the peer's unicast address)");
    assert_int_equal(peers_resolve("0.0.0.0", AF_INET, NULL, &a, why, sizeof why), -1);
    assert_int_equal(peers_resolve("::", AF_UNSPEC, NULL, &a, why, sizeof why), -1);
    assert_string_equal(why, ":: is the unspecified address, not a path-MTU target (give the peer's unicast address)");
    assert_int_equal(peers_resolve("ff02::1", AF_INET6, NULL, &a, why, sizeof why), -1);
    assert_int_equal(peers_resolve("224.0.0.5", AF_UNSPEC, "-B", &a, why, sizeof why), -1);
    assert_string_equal(why, "-B 224.0.0.5 is a multicast address (give one of this host's unicast addresses)");
    assert_int_equal(peers_resolve("::1", AF_UNSPEC, NULL, &a, why, sizeof why), 0);
    assert_int_equal(a.sa.sa_family, AF_INET6);
}

static void checks_across_options(void **state)
{
    (void)state;
    struct mtu_opts o;
    char why[256];
    opts_defaults(&o);
    assert_int_equal(o.chk.count, 3);
    assert_int_equal(opts_validate(&o, why, sizeof why), -1);
    assert_string_equal(why, "no peer given");
    o.file = "empty.txt";
    assert_int_equal(opts_validate(&o, why, sizeof why), -1);
    assert_string_equal(why, "empty.txt: no peer in it (one address or name a line, # comments)");
    o.file = NULL;
    assert_int_equal(peers_add(&o.peers, "198.18.1.2", why, sizeof why), 0);
    assert_int_equal(opts_validate(&o, why, sizeof why), 0);
    assert_int_equal(opts_set(&o, 'm', "1500", why, sizeof why), 0);
    assert_int_equal(opts_set(&o, 's', "1472", why, sizeof why), 0);
    assert_int_equal(opts_validate(&o, why, sizeof why), -1);
    assert_string_equal(why, "-m and -s both set the probe size: give one");
    o.given['s'] = 0;
    assert_int_equal(opts_set(&o, '4', NULL, why, sizeof why), 0);
    assert_int_equal(opts_set(&o, '6', NULL, why, sizeof why), 0);
    assert_int_equal(opts_validate(&o, why, sizeof why), -1);
    assert_string_equal(why, "-4 and -6 contradict: give one, or neither for both families");
    o.given['6'] = 0;
    /* 1024 peers x 100 probes x 2 sizes is over one round's probes */
    while (o.peers.n < PEERS_MAX)
        assert_int_equal(peers_add(&o.peers, "h", why, sizeof why), 0);
    assert_int_equal(peers_add(&o.peers, "h", why, sizeof why), -1);
    o.chk.count = 14;
    assert_int_equal(opts_validate(&o, why, sizeof why), 0);
    o.chk.count = 15;
    assert_int_equal(opts_validate(&o, why, sizeof why), -1);
    assert_string_equal(why, "1024 peers x 15 probes is too many for one run (at most 15000; lower -c or split the list)");
    peers_free(&o.peers);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(one_peer_a_line),
        cmocka_unit_test(line_errors_name_the_line),
        cmocka_unit_test(bounded_lines_and_peers),
        cmocka_unit_test(what_the_file_is),
        cmocka_unit_test(address_classes),
        cmocka_unit_test(resolve_says_what_is_wrong),
        cmocka_unit_test(checks_across_options),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
