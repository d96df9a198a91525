/* The run's netstack and how it is reached (see netstack.h): -S, the launch word,
 * esxcli's view of the vmknic, the re-exec, the check that the address can be used. */
#include "netstack.h"
#include "esxcli_ping.h"
#include "check.h"
#include "clock.h"
#include "fail.h"
#include "net.h"
#include "options.h"
#include "peers.h"

#include <ctype.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* set in the environment of the re-executed run: it never re-executes again, even on
 * a host whose VMkernel takes the ++netstack= word out of argv */
#define NETSTACK_GUARD_ENV "ESXMTU_NETSTACK_REEXEC"
#define NETSTACK_FROM_ENV "ESXMTU_NETSTACK_FROM"     /* where the first run found the name */
#define NETSTACK_WORD "++netstack="
#define ESXCLI_LIST_SECONDS 60.0     /* esxcli is slow to start on a busy host */

static const char *const method_names[] = { "current", "launch-word", "esxcli" };

const char *netstack_method_name(enum ns_method m)
{
    return (unsigned)m < sizeof method_names / sizeof method_names[0] ? method_names[m] : "?";
}

void netstack_note(struct netstack *ns, int argc, char **argv)
{
    ns->argc = argc;
    ns->argv = argv;
    for (int i = 1; i < argc && strncmp(argv[i], "++", 2) == 0; i++)
        if (strncmp(argv[i], NETSTACK_WORD, strlen(NETSTACK_WORD)) == 0)
            ns->word = argv[i] + strlen(NETSTACK_WORD);
}

int netstack_is_vmk(const char *iface)
{
    if (!iface || strncmp(iface, "vmk", 3) != 0 || !iface[3])
        return 0;
    size_t n = 0;
    for (const char *p = iface + 3; *p; p++, n++)
        if (!isdigit((unsigned char)*p) || n >= 4)
            return 0;
    return 1;
}

static int name_ok(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n >= NETSTACK_NAME_MAX)
        return 0;
    for (const char *p = s; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '_' && *p != '-' && *p != '.')
            return 0;
    return 1;
}

static int executable(const char *path)
{
    return access(path, X_OK) == 0;
}

int netstack_find_esxcli(char *out, size_t len)
{
    const char *path = getenv("PATH");
    if (path) {
        const char *p = path;
        while (*p) {
            const char *colon = strchr(p, ':');
            size_t n = colon ? (size_t)(colon - p) : strlen(p);
            if (n > 0 && n + 8 < len) {
                snprintf(out, len, "%.*s/esxcli", (int)n, p);
                if (executable(out))
                    return 0;
            }
            p += n + (colon != NULL);
        }
    }
    static const char *const fixed[] = { "/bin/esxcli", "/sbin/esxcli" };
    for (size_t i = 0; i < 2; i++)
        if (executable(fixed[i])) {
            snprintf(out, len, "%s", fixed[i]);
            return 0;
        }
    out[0] = 0;
    return -1;
}

/* one line of the list: leading spaces dropped, "Key: value" split (value trimmed) */
static int kv(const char *line, const char *key, char *val, size_t vlen)
{
    while (*line == ' ' || *line == '\t')
        line++;
    size_t k = strlen(key);
    if (strncasecmp(line, key, k) != 0)
        return 0;
    line += k;
    while (*line == ' ' || *line == '\t')
        line++;
    if (*line != ':')
        return 0;
    line++;
    while (*line == ' ' || *line == '\t')
        line++;
    size_t n = strlen(line);
    while (n > 0 && (line[n - 1] == ' ' || line[n - 1] == '\t' || line[n - 1] == '\r'))
        n--;
    snprintf(val, vlen, "%.*s", (int)(n < vlen ? n : vlen - 1), line);
    return 1;
}

int netstack_of_vmk(const char *text, size_t len, const char *iface, char *stack, size_t slen,
                    char *have, size_t hlen)
{
    char line[512], name[128] = "", val[128];
    size_t at = 0, hl = 0;
    unsigned vmks = 0;
    int found = 0;
    have[0] = 0;
    stack[0] = 0;
    while (at < len) {
        size_t l = 0;
        while (at < len && text[at] != '\n') {
            char ch = text[at++];
            if (ch != 0 && l + 1 < sizeof line)
                line[l++] = ch;
        }
        at++;
        line[l] = 0;
        if (kv(line, "Name", val, sizeof val)) {
            snprintf(name, sizeof name, "%s", val);
            if (vmks++ < NETSTACK_VMKS_MAX && hl + strlen(name) + 3 < hlen)
                hl += (size_t)snprintf(have + hl, hlen - hl, "%s%s", hl ? ", " : "", name);
        } else if (kv(line, "Netstack Instance", val, sizeof val) && strcmp(name, iface) == 0 && !found) {
            snprintf(stack, slen, "%s", val);
            found = 1;
        }
    }
    if (!hl)
        snprintf(have, hlen, "none");
    return found && stack[0] ? 0 : -1;
}

/* ask esxcli which netstack -I's vmknic is on; usage error when it has no such vmk */
static void vmk_netstack(struct netstack *ns, const char *iface, char *stack, size_t slen)
{
    const char *argv[] = { ns->esxcli, "network", "ip", "interface", "list", NULL };
    char *out, why[200], have[400];
    size_t len;
    int code = ecp_capture(argv, ESXCLI_LIST_SECONDS, &out, &len, why, sizeof why);
    if (code != 0) {
        free(out);
        die(EXIT_USAGE, "-I %s: %s network ip interface list %s%s (give the netstack with -S NAME)", iface,
            ns->esxcli, code < 0 ? "failed: " : "exited non-zero", code < 0 ? why : "");
    }
    int rc = netstack_of_vmk(out, len, iface, stack, slen, have, sizeof have);
    free(out);
    if (rc != 0)
        die_usage("-I %s: no such vmknic on this host (esxcli network ip interface list has: %s)", iface, have);
}

/* one UDP socket bound to a; 0, or -1 with errno */
static int bind_test(const union sockaddr_any *a)
{
    int fd = socket(a->sa.sa_family, SOCK_DGRAM, 0);
    if (fd < 0)
        return -1;
    int rc = bind(fd, &a->sa, net_len(a));
    int e = errno;
    close(fd);
    errno = e;
    return rc;
}

/* can this process use the -B address or the -I interface's address? 1 yes, 0 no (note says why) */
static int usable_here(struct netstack *ns, const struct mtu_opts *o)
{
    char why[300];
    if (o->src) {
        union sockaddr_any a;
        if (peers_resolve(o->src, o->family, "-B", &a, why, sizeof why) != 0)
            die(EXIT_USAGE, "%s", why);
        if (bind_test(&a) == 0) {
            snprintf(ns->note, sizeof ns->note, "-B %s can be bound here", o->src);
            return 1;
        }
        snprintf(ns->note, sizeof ns->note, "-B %s cannot be bound here: %s", o->src, errtext(errno));
        return 0;
    }
    const char *iface = o->po.iface;
    unsigned idx = if_nametoindex(iface);   /* by index: the name may be an altname */
    if (idx == 0) {
        snprintf(ns->note, sizeof ns->note, "%s does not exist in this process's netstack", iface);
        return 0;
    }
    struct ifaddrs *ifs = NULL;
    if (getifaddrs(&ifs) != 0) {
        snprintf(ns->note, sizeof ns->note, "%s: its addresses cannot be read here: %s", iface, errtext(errno));
        return 0;
    }
    int ok = 0;
    char addr[64] = "";
    for (struct ifaddrs *i = ifs; i && !ok; i = i->ifa_next) {
        if (!i->ifa_addr || (strcmp(i->ifa_name, iface) != 0 && if_nametoindex(i->ifa_name) != idx))
            continue;
        int fam = i->ifa_addr->sa_family;
        if ((fam != AF_INET && fam != AF_INET6) || (o->family != AF_UNSPEC && fam != o->family))
            continue;
        union sockaddr_any a;
        memset(&a, 0, sizeof a);
        memcpy(&a, i->ifa_addr, fam == AF_INET ? sizeof a.in4 : sizeof a.in6);
        if (fam == AF_INET6 && IN6_IS_ADDR_LINKLOCAL(&a.in6.sin6_addr))
            continue;
        net_ntop(&a, addr, sizeof addr);
        ok = bind_test(&a) == 0;
    }
    freeifaddrs(ifs);
    if (ok)
        snprintf(ns->note, sizeof ns->note, "%s's address %s can be bound here", iface, addr);
    else if (addr[0])
        snprintf(ns->note, sizeof ns->note, "%s's address %s cannot be bound here", iface, addr);
    else
        snprintf(ns->note, sizeof ns->note, "%s has no address in this process's netstack", iface);
    return ok;
}

/* run this program again with ++netstack=NAME first; returns only when it cannot */
static void reexec(struct netstack *ns, char *why, size_t len)
{
    char word[NETSTACK_NAME_MAX + 16];
    snprintf(word, sizeof word, "%s%s", NETSTACK_WORD, ns->name);
    char **av = xcalloc((size_t)ns->argc + 2, sizeof *av);
    av[0] = ns->argv[0];
    av[1] = word;
    for (int i = 1; i < ns->argc; i++)
        av[i + 1] = ns->argv[i];
    av[ns->argc + 1] = NULL;
    if (setenv(NETSTACK_GUARD_ENV, ns->name, 1) != 0 || setenv(NETSTACK_FROM_ENV, ns->from, 1) != 0) {
        snprintf(why, len, "cannot re-execute: %s", errtext(errno));
        free(av);
        return;
    }
    fflush(NULL);
    execv("/proc/self/exe", av);
    int e = errno;
    if (strchr(ns->argv[0], '/'))
        execv(ns->argv[0], av);
    else
        execvp(ns->argv[0], av);
    snprintf(why, len, "cannot re-execute with %s: %s", word, errtext(e));
    unsetenv(NETSTACK_GUARD_ENV);
    unsetenv(NETSTACK_FROM_ENV);
    free(av);
}

void netstack_settle(struct mtu_opts *o)
{
    struct netstack *ns = &o->ns;
    const char *guard = getenv(NETSTACK_GUARD_ENV), *first_from = getenv(NETSTACK_FROM_ENV);
    int reexeced = guard != NULL || ns->word != NULL;
    /* re-executed by ourselves: the word is ours, the name and its source the first run's */
    int ours = guard && (!ns->word || strcmp(guard, ns->word) == 0) && first_from;
    if (ns->want && !name_ok(ns->want))
        die_usage("-S '%s': not a netstack name (letters, digits, _ - . ; at most %d)", ns->want,
                  NETSTACK_NAME_MAX - 1);
    if (ns->word && !name_ok(ns->word))
        die_usage("++netstack=%s: not a netstack name", ns->word);
    if (ns->want && ns->word && strcmp(ns->want, ns->word) != 0)
        die_usage("-S %s contradicts the launch word ++netstack=%s: give one", ns->want, ns->word);
    const char *name = ns->want ? ns->want : ns->word ? ns->word : guard;
    if (name && !name_ok(name))
        name = NULL;
    if (name)
        snprintf(ns->from, sizeof ns->from, "%s", ns->want ? "-S" : "++netstack= launch word");
    if (ours && name)
        snprintf(ns->from, sizeof ns->from, "%s", first_from);
    const char *iface = o->po.iface;
    if (ours && name) {
        (void)netstack_find_esxcli(ns->esxcli, sizeof ns->esxcli);   /* the first run checked the vmk */
    } else if (netstack_is_vmk(iface) && netstack_find_esxcli(ns->esxcli, sizeof ns->esxcli) == 0) {
        char stack[NETSTACK_NAME_MAX];
        vmk_netstack(ns, iface, stack, sizeof stack);
        if (name && strcmp(name, stack) != 0)
            die_usage("-I %s is on netstack %s (esxcli network ip interface list), not %s: give -S %s or "
                      "another vmknic", iface, stack, name, stack);
        if (!name) {
            name = stack;
            snprintf(ns->from, sizeof ns->from, "esxcli: %s is on it", iface);
        }
    }
    if (!name)
        return;                    /* nothing named: this process's netstack, as always */
    snprintf(ns->name, sizeof ns->name, "%s", name);
    if (strcmp(ns->name, NETSTACK_DEFAULT) == 0) {
        snprintf(ns->note, sizeof ns->note, "this process's own netstack");
        return;
    }
    if (!o->src && !iface)
        die_usage("-S %s needs -I vmkN or -B SRCADDR (the interface or address that shows the netstack "
                  "was entered)", ns->name);
    char why[200] = "";
    if (!reexeced)
        reexec(ns, why, sizeof why);     /* returns only when it cannot */
    unsetenv(NETSTACK_GUARD_ENV);        /* not for the esxcli this run may start */
    unsetenv(NETSTACK_FROM_ENV);
    if (usable_here(ns, o)) {
        ns->method = NSM_WORD;
        return;
    }
    if (why[0]) {
        size_t l = strlen(ns->note);
        snprintf(ns->note + l, sizeof ns->note - l, "; %s", why);
    }
    if (!ns->esxcli[0] && netstack_find_esxcli(ns->esxcli, sizeof ns->esxcli) != 0)
        die(EXIT_USAGE, "netstack %s: not entered (%s), and no esxcli on PATH, /bin or /sbin to probe "
            "through (run esxmtu in that netstack, or use a vmk of the default one with -B)", ns->name, ns->note);
    if (o->trace)
        die_usage("netstack %s: not entered (%s): through esxcli --trace cannot run (no TTL answers "
                  "in its output)", ns->name, ns->note);
    if (o->po.method != METHOD_AUTO)
        warnmsg("--method %s does nothing through esxcli (its ping picks its own socket)",
                probe_method_name(o->po.method));
    ns->method = NSM_ESXCLI;
}

void netstack_esxcli_check(const struct mtu_opts *o, struct peer *peers)
{
    char why[400];
    struct ecp_ask a = { o->ns.esxcli, o->ns.name, o->po.iface, o->chk.count,
                         (unsigned)((o->chk.timeout_ns + NS_PER_SEC - 1) / NS_PER_SEC), o->interval, o->po.ttl };
    if (ecp_check(peers, o->peers.n, &a, why, sizeof why) != 0 ||
        (o->discover && ecp_discover(peers, o->peers.n, &a, why, sizeof why) != 0))
        die(EXIT_USAGE, "netstack %s: %s", o->ns.name, why);
}
