/* The peer list: -f files read line by line with strict bounds, and the address
 * rules (unicast only, IPv4-mapped is IPv4, the family -4/-6 asks for). */
#include "peers.h"
#include "bytes.h"
#include "fail.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int fail(char *why, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *why, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, len, fmt, ap);
    va_end(ap);
    return -1;
}

int peers_add(struct peer_list *l, const char *name, char *why, size_t len)
{
    if (l->n == PEERS_MAX)
        return fail(why, len, "too many peers (at most %d in one run; split the list)", PEERS_MAX);
    l->name[l->n++] = xstrdup(name);
    return 0;
}

void peers_free(struct peer_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->name[i]);
    l->n = 0;
}

/* ---- -f files */
struct reader {
    struct peer_list *l;
    const char *path;
    char line[PEERS_LINE_MAX + 1];
    size_t len;
    unsigned long no;             /* number of the line being read, from 1 */
    size_t bom;                   /* bytes of a leading byte-order mark matched; 3: past it */
};

/* A list saved by a Windows editor starts with EF BB BF, invisible on screen: read as
 * part of the first peer's name it would make that peer unresolvable for no reason the
 * admin can see. Only at the very start of the file is it a mark. */
static const char bom_mark[3] = { '\xef', '\xbb', '\xbf' };

/* one whole line (NUL-terminated, no newline): its first word is a peer */
static int take_line(struct reader *r, char *why, size_t len)
{
    char *s = r->line;
    char *hash = strchr(s, '#');
    if (hash)
        *hash = 0;
    s += strspn(s, " \t\r\v\f");
    size_t w = strcspn(s, " \t\r\v\f");
    if (w == 0)
        return 0;                 /* blank or comment only */
    char *rest = s + w;
    if (*rest) {
        *rest++ = 0;
        rest += strspn(rest, " \t\r\v\f");
        size_t k = strlen(rest);
        while (k > 0 && strchr(" \t\r\v\f", rest[k - 1]))
            rest[--k] = 0;
        if (*rest)
            warnmsg("%s line %lu: '%.40s%s' after the peer ignored (one peer a line; start comments with #)",
                    r->path, r->no, rest, k > 40 ? "..." : "");
    }
    if (peers_add(r->l, s, why, len) != 0) {
        char t[160];
        snprintf(t, sizeof t, "%s", why);
        return fail(why, len, "%s line %lu: %s", r->path, r->no, t);
    }
    return 0;
}

/* feed bytes; 0 or -1 (why) */
static int feed(struct reader *r, const char *b, size_t n, char *why, size_t len)
{
    size_t i = 0;
    while (r->bom < 3 && i < n && b[i] == bom_mark[r->bom]) {   /* the start of the file */
        r->bom++;
        i++;
    }
    if (r->bom < 3 && i < n) {        /* no mark after all: what matched of it is text */
        size_t had = r->bom;
        r->bom = 3;
        if (had && feed(r, bom_mark, had, why, len) != 0)
            return -1;
    }
    for (; i < n; i++) {
        if (r->len == 0 && r->no++ == PEERS_LINES_MAX)
            return fail(why, len, "%s: more than %d lines (at most %d, comments included; split the file)",
                        r->path, PEERS_LINES_MAX, PEERS_LINES_MAX);
        if (b[i] == '\n') {
            r->line[r->len] = 0;
            r->len = 0;
            if (take_line(r, why, len) != 0)
                return -1;
            continue;
        }
        if (b[i] == 0)
            return fail(why, len, "%s line %lu: a NUL byte (is it a text file? one peer a line)", r->path, r->no);
        if (r->len == PEERS_LINE_MAX)
            return fail(why, len, "%s line %lu: longer than %d bytes (one peer a line)", r->path, r->no,
                        PEERS_LINE_MAX);
        r->line[r->len++] = b[i];
    }
    return 0;
}

int peers_read_fd(struct peer_list *l, int fd, const char *path, char *why, size_t len)
{
    struct stat st;
    int regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    struct reader *r = xcalloc(1, sizeof *r);
    r->l = l;
    r->path = path;
    char buf[8192];
    unsigned long long total = 0;
    int rc = 0;
    for (;;) {
        ssize_t got = read(fd, buf, sizeof buf);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            rc = fail(why, len, "cannot read %s: %s (at line %lu)", path, errtext(errno), r->no ? r->no : 1);
            break;
        }
        if (got == 0) {
            if (regular && total < (unsigned long long)st.st_size)
                rc = fail(why, len, "%s: cut short while read (%llu of %llu bytes; is it being written?)",
                          path, total, (unsigned long long)st.st_size);
            else if (r->len > 0) {             /* a last line without a newline */
                r->line[r->len] = 0;
                rc = take_line(r, why, len);
            }
            break;
        }
        total += (unsigned long long)got;
        if ((rc = feed(r, buf, (size_t)got, why, len)) != 0)
            break;
    }
    free(r);
    return rc;
}

static const char *file_kind(mode_t m)
{
    return S_ISDIR(m) ? "a directory" : S_ISCHR(m) ? "a character device" : S_ISBLK(m) ? "a block device"
         : S_ISSOCK(m) ? "a socket" : "not a regular file";
}

int peers_read_file(struct peer_list *l, const char *path, char *why, size_t len)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return fail(why, len, "cannot open %s: %s (check the -f path)", path, errtext(errno));
    /* what it is before open(): a FIFO would block there, a device is not a list */
    if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode))
        return fail(why, len, "%s is %s (-f takes a file with one peer a line)", path, file_kind(st.st_mode));
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return fail(why, len, "cannot open %s: %s (check the -f path)", path, errtext(errno));
    if (fstat(fd, &st) != 0 || (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode))) {
        close(fd);
        return fail(why, len, "%s changed while opened (-f takes a file with one peer a line)", path);
    }
    /* a pipe with a writer: wait for its lines; one without reads as end of file */
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    int rc = peers_read_fd(l, fd, path, why, len);
    close(fd);
    return rc;
}

/* ---- addresses */
static const char *const class_names[] = {
    [AC_UNICAST] = "a unicast address", [AC_UNSPECIFIED] = "the unspecified address",
    [AC_MULTICAST] = "a multicast address", [AC_BROADCAST] = "the broadcast address",
};
_Static_assert(ARRAY_SIZE(class_names) == AC_LAST + 1, "a name for every enum addr_class");

const char *peers_class_name(enum addr_class c)
{
    return (unsigned)c < ARRAY_SIZE(class_names) ? class_names[c] : "?";
}

enum addr_class peers_classify(union sockaddr_any *a)
{
    if (a->sa.sa_family == AF_INET6) {
        const struct in6_addr *x = &a->in6.sin6_addr;
        if (IN6_IS_ADDR_V4MAPPED(x)) {
            struct sockaddr_in in4;
            memset(&in4, 0, sizeof in4);
            in4.sin_family = AF_INET;
            memcpy(&in4.sin_addr, x->s6_addr + 12, 4);
            memset(a, 0, sizeof *a);
            a->in4 = in4;
        } else {
            return IN6_IS_ADDR_UNSPECIFIED(x) ? AC_UNSPECIFIED
                 : IN6_IS_ADDR_MULTICAST(x) ? AC_MULTICAST : AC_UNICAST;
        }
    }
    if (a->sa.sa_family != AF_INET)
        return AC_UNICAST;
    uint32_t v = ntohl(a->in4.sin_addr.s_addr);
    if (v == 0)
        return AC_UNSPECIFIED;
    if (v == 0xffffffffu)
        return AC_BROADCAST;
    return (v >> 28) == 14 ? AC_MULTICAST : AC_UNICAST;
}

/* A subnet broadcast (198.18.0.255 on a /24) is known only to the routing table:
 * connecting a UDP socket to it is refused with EACCES (no SO_BROADCAST), and no
 * packet is sent. Anything else (no socket, no route) is left to the probes. */
static int broadcast_route(const union sockaddr_any *a)
{
    if (a->sa.sa_family != AF_INET)
        return 0;
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    if (fd < 0)
        return 0;
    struct sockaddr_in to = a->in4;
    to.sin_port = htons(9);
    int refused = connect(fd, (const struct sockaddr *)&to, sizeof to) != 0 && errno == EACCES;
    close(fd);
    return refused;
}

static const char *fam_word(int family) { return family == AF_INET6 ? "IPv6" : "IPv4"; }

/* AF_INET or AF_INET6 when s is an address literal of that family, else 0 */
static int literal_family(const char *s)
{
    unsigned char b[16];
    return inet_pton(AF_INET, s, b) == 1 ? AF_INET : inet_pton(AF_INET6, s, b) == 1 ? AF_INET6 : 0;
}

int peers_resolve(const char *name, int family, const char *what, union sockaddr_any *out,
                  char *why, size_t len)
{
    const char *opt = family == AF_INET ? "-4" : "-6";
    char label[300];
    snprintf(label, sizeof label, "%s%s%s", what ? what : "", what ? " " : "", name);
    /* a literal is resolved in its own family (never a name lookup), then compared */
    int lit = literal_family(name);
    int rc = net_resolve(name, lit ? lit : family, 0, 0, out, NULL);
    if (rc && !lit && family != AF_UNSPEC && net_resolve(name, AF_UNSPEC, 0, 0, out, NULL) == 0) {
        peers_classify(out);
        if (out->sa.sa_family != family)
            return fail(why, len, "%s has no %s address, only %s (drop %s, or give an %s address)", label,
                        fam_word(family), fam_word(out->sa.sa_family), opt, fam_word(family));
        rc = 0;
    }
    if (rc) {
        if (what)
            return fail(why, len, "%s: %s (give a local address)", label, net_gai_strerror(rc));
        return fail(why, len, "cannot resolve %s: %s (check the name, or give an address)", name,
                    net_gai_strerror(rc));
    }
    int was6 = out->sa.sa_family == AF_INET6;
    enum addr_class c = peers_classify(out);      /* ::ffff:a.b.c.d becomes IPv4 here */
    if (family != AF_UNSPEC && out->sa.sa_family != family)
        return fail(why, len, "%s is an %s address%s, but %s asks for %s (drop %s, or give an %s address)",
                    label, fam_word(out->sa.sa_family), was6 && out->sa.sa_family == AF_INET ? " (IPv4-mapped)" : "", opt, fam_word(family),
                    opt, fam_word(family));
    if (c == AC_UNICAST && broadcast_route(out))
        c = AC_BROADCAST;
    if (c != AC_UNICAST) {
        const char *kind = c == AC_BROADCAST && out->in4.sin_addr.s_addr != 0xffffffffu
                         ? "a broadcast address (this host's routing table says so)" : peers_class_name(c);
        if (what)
            return fail(why, len, "%s is %s (give one of this host's unicast addresses)", label, kind);
        return fail(why, len, "%s is %s, not a path-MTU target (give the peer's unicast address)", label, kind);
    }
    if (out->sa.sa_family == AF_INET6)
        out->in6.sin6_port = 0;            /* scope kept; raw ICMPv6 needs port 0 */
    else
        out->in4.sin_port = 0;
    return 0;
}
