/* The socket option probes: each sets (or reads) the option the tools use, with their
 * value, on a loopback socket of the kind they set it on. */
#include "probe_kit.h"
#include "linux_opts.h"
#include "errname.h"
#include "bytes.h"
#include "clock.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- socket option probes */

/* the socket an option is set on: that family and type on loopback, unconnected */
static int opt_socket(const struct probe *p, struct probe_result *r)
{
    int fd = socket(p->family, p->type, p->proto);
    if (fd < 0)
        not_tried(r, p->family == AF_INET6 ? "no IPv6 socket" : "no socket", errno);
    return fd;
}

static void set_result(struct probe_result *r, int rc)
{
    if (rc < 0)
        refused(r, errno);
    else
        works(r);
}

/* setsockopt(level, opt, int val): most rows */
void try_setopt(const struct probe *p, struct probe_result *r)
{
    int fd = opt_socket(p, r);
    if (fd < 0)
        return;
    int v = p->val;
    set_result(r, setsockopt(fd, p->level, p->opt, &v, sizeof v));
    close(fd);
}

/* getsockopt(level, opt) of an int, as the tools read a connect's outcome, the
 * MSS and the buffer sizes */
void try_getopt(const struct probe *p, struct probe_result *r)
{
    int fd = opt_socket(p, r);
    if (fd < 0)
        return;
    int v = 0;
    socklen_t len = sizeof v;
    set_result(r, getsockopt(fd, p->level, p->opt, &v, &len));
    close(fd);
}

/* getsockopt(level, opt) of an int on a UDP socket connected to loopback: a
 * route's MTU (IP_MTU, IPV6_MTU) is only known once the socket has a peer */
void try_getopt_connected(const struct probe *p, struct probe_result *r)
{
    int fd = opt_socket(p, r);
    if (fd < 0)
        return;
    struct sockaddr_storage ss;
    socklen_t sl;
    memset(&ss, 0, sizeof ss);
    if (p->family == AF_INET6) {
        struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
        a->sin6_family = AF_INET6;
        a->sin6_addr = in6addr_loopback;
        a->sin6_port = htons(9);
        sl = sizeof *a;
    } else {
        struct sockaddr_in *a = (struct sockaddr_in *)&ss;
        a->sin_family = AF_INET;
        a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        a->sin_port = htons(9);
        sl = sizeof *a;
    }
    if (connect(fd, (struct sockaddr *)&ss, sl) < 0) {
        not_tried(r, "connect to loopback failed", errno);
        close(fd);
        return;
    }
    int v = 0;
    socklen_t len = sizeof v;
    set_result(r, getsockopt(fd, p->level, p->opt, &v, &len));
    close(fd);
}

/* SO_RCVTIMEO / SO_SNDTIMEO take a struct timeval */
void try_timeo(const struct probe *p, struct probe_result *r)
{
    int fd = opt_socket(p, r);
    if (fd < 0)
        return;
    struct timeval tv = { 2, 0 };
    set_result(r, setsockopt(fd, p->level, p->opt, &tv, sizeof tv));
    close(fd);
}

/* 64 bits as esxperf sets it first, then 32 as a kernel before 4.20 takes it */
void try_pacing(const struct probe *p, struct probe_result *r)
{
    int fd = opt_socket(p, r);
    if (fd < 0)
        return;
    uint64_t v = 125000000;
    unsigned int v32 = 125000000;
    int rc = setsockopt(fd, SOL_SOCKET, SO_MAX_PACING_RATE, &v, sizeof v);
    if (rc < 0)
        rc = setsockopt(fd, SOL_SOCKET, SO_MAX_PACING_RATE, &v32, sizeof v32);
    set_result(r, rc);
    close(fd);
}

void try_bindtodevice(const struct probe *p, struct probe_result *r)
{
    int fd = opt_socket(p, r);
    if (fd < 0)
        return;
    static const char lo[] = "lo";
    set_result(r, setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, lo, sizeof lo));
    close(fd);
}

/* the current algorithm read back and set again, as -C NAME does */
void try_congestion(const struct probe *p, struct probe_result *r)
{
    int fd = opt_socket(p, r);
    if (fd < 0)
        return;
    char name[32] = "";
    socklen_t n = sizeof name - 1;
    if (getsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, name, &n) < 0) {
        refused(r, errno);
    } else {
        name[n < sizeof name ? n : sizeof name - 1] = '\0';
        set_result(r, setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, name, (socklen_t)strlen(name)));
    }
    close(fd);
}

/* TCP_INFO on a connected loopback socket: refused when it is shorter than the
 * retransmit count esxperf reads */
void try_tcp_info(const struct probe *p, struct probe_result *r)
{
    struct tcp_pair t;
    const char *what;
    if (tcp_pair_open(p->family, &t, 1, &what) < 0) {
        not_tried(r, what, errno);
    } else {
        unsigned char buf[256];
        socklen_t len = sizeof buf;
        if (getsockopt(t.cli, IPPROTO_TCP, TCP_INFO, buf, &len) < 0) {
            refused(r, errno);
        } else if (len < TCP_INFO_NEED) {
            char why[64];
            snprintf(why, sizeof why, "%u of %d bytes: no retransmit count", (unsigned)len, TCP_INFO_NEED);
            refused_why(r, why);
        } else {
            works(r);
        }
    }
    tcp_pair_close(&t);
}

/* SO_ZEROCOPY, then one send(MSG_ZEROCOPY) over a loopback connection */
void try_msg_zerocopy(const struct probe *p, struct probe_result *r)
{
    struct tcp_pair t;
    const char *what;
    int one = 1;
    if (tcp_pair_open(p->family, &t, 1, &what) < 0) {
        not_tried(r, what, errno);
    } else if (setsockopt(t.cli, SOL_SOCKET, SO_ZEROCOPY, &one, sizeof one) < 0) {
        not_tried(r, "SO_ZEROCOPY refused", errno);
    } else {
        static char block[4096];
        ssize_t n = send(t.cli, block, sizeof block, MSG_ZEROCOPY | MSG_DONTWAIT | MSG_NOSIGNAL);
        if (n < 0)
            refused(r, errno);
        else
            works(r);
    }
    tcp_pair_close(&t);
}

/* the flow-label lease -L takes (IPv6 loopback as the destination) */
struct flowlabel_req {
    struct in6_addr dst;
    uint32_t label;
    uint8_t action, share;
    uint16_t flags, expires, linger;
    uint32_t pad;
};

void try_flowlabel(const struct probe *p, struct probe_result *r)
{
    int fd = opt_socket(p, r);
    if (fd < 0)
        return;
    struct flowlabel_req fr;
    memset(&fr, 0, sizeof fr);
    fr.dst = in6addr_loopback;
    fr.label = htonl(0x5e1f7);
    fr.action = 0;      /* IPV6_FL_A_GET */
    fr.flags = 1;       /* IPV6_FL_F_CREATE */
    fr.share = 255;     /* IPV6_FL_S_ANY */
    set_result(r, setsockopt(fd, IPPROTO_IPV6, IPV6_FLOWLABEL_MGR, &fr, sizeof fr));
    close(fd);
}
