/* udp_dest.c: a datagram's destination from its control messages
 * (IPv4, IPv6, IPv4-mapped on a dual-stack socket; none for multicast, broadcast,
 * or a family the socket cannot have), and on loopback, where every 127/8 address
 * is this host's: a hello sent to 127.0.0.3 is answered from 127.0.0.3 (the
 * routing table would pick 127.0.0.1, whose datagrams the client's connected
 * socket drops). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <unistd.h>

#include "udp_dest.h"

const char tool_name[] = "esxperf_test";

/* control messages: an IP_PKTINFO with spec_dst v4 (unless NULL), then an
 * IPV6_PKTINFO with v6 on ifindex 7 (unless NULL) */
struct cm {
    union {
        struct cmsghdr align;
        unsigned char b[CMSG_SPACE(sizeof(struct in_pktinfo)) +
                        CMSG_SPACE(sizeof(struct in6_pktinfo))];
    } u;
    struct msghdr m;
};

static void cm_build(struct cm *c, const char *v4, const char *v6)
{
    memset(c, 0, sizeof *c);
    c->m.msg_control = c->u.b;
    c->m.msg_controllen = (v4 ? CMSG_SPACE(sizeof(struct in_pktinfo)) : 0) +
                          (v6 ? CMSG_SPACE(sizeof(struct in6_pktinfo)) : 0);
    struct cmsghdr *h = CMSG_FIRSTHDR(&c->m);
    if (v4) {
        struct in_pktinfo pi = { .ipi_ifindex = 7 };
        assert_int_equal(inet_pton(AF_INET, v4, &pi.ipi_spec_dst), 1);
        pi.ipi_addr = pi.ipi_spec_dst;
        h->cmsg_level = IPPROTO_IP;
        h->cmsg_type = IP_PKTINFO;
        h->cmsg_len = CMSG_LEN(sizeof pi);
        memcpy(CMSG_DATA(h), &pi, sizeof pi);
        h = CMSG_NXTHDR(&c->m, h);
    }
    if (v6) {
        struct in6_pktinfo pi = { .ipi6_ifindex = 7 };
        assert_int_equal(inet_pton(AF_INET6, v6, &pi.ipi6_addr), 1);
        h->cmsg_level = IPPROTO_IPV6;
        h->cmsg_type = IPV6_PKTINFO;
        h->cmsg_len = CMSG_LEN(sizeof pi);
        memcpy(CMSG_DATA(h), &pi, sizeof pi);
    }
}

/* the address in *a as text (no port) */
static const char *text(const union sockaddr_any *a, char *buf, size_t len)
{
    net_ntop(a, buf, len);
    return buf;
}

static void from_cmsg(void **state)
{
    (void)state;
    struct cm c;
    union sockaddr_any to;
    char t[64];
    cm_build(&c, "198.18.61.1", NULL);
    assert_int_equal(udp_dest_from_cmsg(&c.m, AF_INET, &to), 0);
    assert_string_equal(text(&to, t, sizeof t), "198.18.61.1");
    assert_int_equal(net_port(&to), 0);
    assert_int_equal(udp_dest_from_cmsg(&c.m, AF_INET6, &to), 0);   /* dual-stack */
    assert_string_equal(text(&to, t, sizeof t), "::ffff:198.18.61.1");
    /* both, as a dual-stack socket gets for IPv4: the IPv4 one is taken */
    cm_build(&c, "198.18.61.1", "::ffff:198.18.61.255");
    assert_int_equal(udp_dest_from_cmsg(&c.m, AF_INET6, &to), 0);
    assert_string_equal(text(&to, t, sizeof t), "::ffff:198.18.61.1");
    cm_build(&c, NULL, "::ffff:198.18.61.1");
    assert_int_equal(udp_dest_from_cmsg(&c.m, AF_INET6, &to), 0);
    assert_string_equal(text(&to, t, sizeof t), "::ffff:198.18.61.1");
    cm_build(&c, NULL, "2001:db8:61::1");
    assert_int_equal(udp_dest_from_cmsg(&c.m, AF_INET6, &to), 0);
    assert_string_equal(text(&to, t, sizeof t), "2001:db8:61::1");
    assert_int_equal(to.in6.sin6_scope_id, 0);
    cm_build(&c, NULL, "fe80::1");   /* link-local: on the interface it came by */
    assert_int_equal(udp_dest_from_cmsg(&c.m, AF_INET6, &to), 0);
    assert_int_equal(to.in6.sin6_scope_id, 7);
}

static void from_cmsg_none(void **state)
{
    (void)state;
    struct cm c;
    union sockaddr_any to;
    cm_build(&c, NULL, NULL);
    assert_int_equal(udp_dest_from_cmsg(&c.m, AF_INET6, &to), -1);
    cm_build(&c, "0.0.0.0", NULL);
    assert_int_equal(udp_dest_from_cmsg(&c.m, AF_INET, &to), -1);
    cm_build(&c, NULL, "ff02::1");
    assert_int_equal(udp_dest_from_cmsg(&c.m, AF_INET6, &to), -1);
    cm_build(&c, NULL, "::ffff:255.255.255.255");
    assert_int_equal(udp_dest_from_cmsg(&c.m, AF_INET6, &to), -1);
    cm_build(&c, NULL, "::ffff:239.1.1.1");
    assert_int_equal(udp_dest_from_cmsg(&c.m, AF_INET6, &to), -1);
    cm_build(&c, NULL, "2001:db8::1");   /* an AF_INET socket has no IPv6 address */
    assert_int_equal(udp_dest_from_cmsg(&c.m, AF_INET, &to), -1);
}

/* a UDP socket on addr (port 0: any) of the family of addr; *port gets its port */
static int udp_on(const char *addr, int family, int v6only, unsigned short *port)
{
    union sockaddr_any a;
    memset(&a, 0, sizeof a);
    a.sa.sa_family = (sa_family_t)family;
    if (family == AF_INET)
        assert_int_equal(inet_pton(AF_INET, addr, &a.in4.sin_addr), 1);
    else
        assert_int_equal(inet_pton(AF_INET6, addr, &a.in6.sin6_addr), 1);
    int fd = socket(family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (family == AF_INET6)
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &v6only, sizeof v6only);
    if (bind(fd, &a.sa, net_len(&a)) < 0) {
        close(fd);
        return -1;
    }
    socklen_t l = sizeof a;
    getsockname(fd, &a.sa, &l);
    *port = net_port(&a);
    return fd;
}

/* a client on loopback sends a hello to dst on the listener (family lfam); the
 * answer comes from dst (want, as the listener's family spells it) */
static void answer_from(const char *dst, int lfam, const char *want)
{
    unsigned short port;
    int lfd = udp_on(lfam == AF_INET ? "0.0.0.0" : "::", lfam, 0, &port);
    if (lfd < 0)
        skip();   /* no IPv6 on this host */
    assert_int_equal(udp_dest_enable(lfd, lfam), 0);
    union sockaddr_any d;
    memset(&d, 0, sizeof d);
    d.in4.sin_family = AF_INET;
    assert_int_equal(inet_pton(AF_INET, dst, &d.in4.sin_addr), 1);
    net_set_port(&d, port);
    int cfd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    assert_true(cfd >= 0);
    assert_int_equal(connect(cfd, &d.sa, net_len(&d)), 0);
    assert_int_equal(send(cfd, "9876", 4, 0), 4);
    struct pollfd pf = { lfd, POLLIN, 0 };
    assert_int_equal(poll(&pf, 1, 5000), 1);
    unsigned char msg[8];
    union sockaddr_any from, to;
    socklen_t fl = sizeof from;
    assert_int_equal(udp_recv_dest(lfd, msg, sizeof msg, 0, &from, &fl, &to), 4);
    char t[64];
    assert_string_equal(text(&to, t, sizeof t), want);
    int sfd = udp_dest_socket(&to, port, NULL, &from, fl);
    assert_true(sfd >= 0);
    union sockaddr_any la;
    socklen_t ll = sizeof la;
    getsockname(sfd, &la.sa, &ll);
    assert_string_equal(text(&la, t, sizeof t), want);
    assert_int_equal(net_port(&la), port);
    /* the reply reaches the client's connected socket, and so does its next
     * datagram reach the stream's socket, not the listener */
    assert_int_equal(send(sfd, "6789", 4, 0), 4);
    pf.fd = cfd;
    assert_int_equal(poll(&pf, 1, 5000), 1);
    assert_int_equal(recv(cfd, msg, sizeof msg, MSG_DONTWAIT), 4);
    assert_memory_equal(msg, "6789", 4);
    assert_int_equal(send(cfd, "data", 4, 0), 4);
    pf.fd = sfd;
    assert_int_equal(poll(&pf, 1, 5000), 1);
    assert_int_equal(recv(sfd, msg, sizeof msg, MSG_DONTWAIT), 4);
    assert_int_equal(recv(lfd, msg, sizeof msg, MSG_DONTWAIT), -1);
    close(sfd);
    close(cfd);
    close(lfd);
}

static void loopback_v4(void **state)
{
    (void)state;
    answer_from("127.0.0.3", AF_INET, "127.0.0.3");
}

static void loopback_dual_stack(void **state)
{
    (void)state;
    answer_from("127.0.0.3", AF_INET6, "::ffff:127.0.0.3");
}

/* what the fix is for: the listener itself connected to the client would answer
 * from the routing table's source, 127.0.0.1, not 127.0.0.3 */
static void connected_wildcard_picks_route_source(void **state)
{
    (void)state;
    unsigned short port, cport;
    int lfd = udp_on("0.0.0.0", AF_INET, 0, &port);
    int cfd = udp_on("127.0.0.1", AF_INET, 0, &cport);
    assert_true(lfd >= 0 && cfd >= 0);
    union sockaddr_any c;
    memset(&c, 0, sizeof c);
    c.in4.sin_family = AF_INET;
    c.in4.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    net_set_port(&c, cport);
    assert_int_equal(connect(lfd, &c.sa, net_len(&c)), 0);
    union sockaddr_any la;
    socklen_t ll = sizeof la;
    getsockname(lfd, &la.sa, &ll);
    char t[64];
    assert_string_equal(text(&la, t, sizeof t), "127.0.0.1");
    close(cfd);
    close(lfd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(from_cmsg),
        cmocka_unit_test(from_cmsg_none),
        cmocka_unit_test(loopback_v4),
        cmocka_unit_test(loopback_dual_stack),
        cmocka_unit_test(connected_wildcard_picks_route_source),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
