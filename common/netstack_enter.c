/* Entering an ESXi netstack, the shared parts (see netstack_enter.h): the launch word, the
 * re-exec and its guard, esxcli's view of a vmknic, the bind check. */
#include "netstack_enter.h"
#include "fail.h"

#include <ctype.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

const char *netstack_word(int argc, char **argv, const char **other)
{
    const char *word = NULL;
    *other = NULL;
    for (int i = 1; i < argc && strncmp(argv[i], "++", 2) == 0; i++) {
        if (strncmp(argv[i], NETSTACK_WORD, strlen(NETSTACK_WORD)) != 0)
            continue;
        const char *w = argv[i] + strlen(NETSTACK_WORD);
        if (!word)
            word = w;
        else if (strcmp(word, w) != 0 && !*other)
            *other = w;
    }
    return word;
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

int netstack_name_ok(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n >= NETSTACK_NAME_MAX)
        return 0;
    for (const char *p = s; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '_' && *p != '-' && *p != '.')
            return 0;
    return 1;
}

/* a file that can be run: a directory named esxcli is not one, though access(X_OK)
 * says yes to it */
static int is_program(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
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
                if (is_program(out))
                    return 0;
            }
            p += n + (colon != NULL);
        }
    }
    static const char *const fixed[] = { "/bin/esxcli", "/sbin/esxcli" };
    for (size_t i = 0; i < 2; i++)
        if (is_program(fixed[i])) {
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

/* <TOOL>_NETSTACK_<what>: each tool its own guard, so that esxperf started by a
 * re-executed esxmtu (or the other way) still enters its netstack */
static const char *guard_env(const char *what)
{
    static char names[2][48];
    char *out = names[strcmp(what, "FROM") == 0];
    size_t n = 0;
    for (const char *p = tool_name; *p && n + 1 < 24; p++)
        out[n++] = (char)toupper((unsigned char)*p);
    snprintf(out + n, sizeof names[0] - n, "_NETSTACK_%s", what);
    return out;
}

/* REEXEC is "PID:NAME", PID the process that re-executed itself: exec keeps the pid, so
 * only that process's new image finds its own pid there. A guard left in the
 * environment by anything else (a parent's re-exec, a user's export) names another
 * pid: it is dropped, not believed. */
const char *netstack_guard(void)
{
    const char *v = getenv(guard_env("REEXEC"));
    if (!v)
        return NULL;
    char *end;
    long pid = strtol(v, &end, 10);
    if (end != v && *end == ':' && pid == (long)getpid())
        return end + 1;
    netstack_guard_clear();
    return NULL;
}

const char *netstack_guard_from(void)
{
    return getenv(guard_env("FROM"));
}

void netstack_guard_clear(void)
{
    unsetenv(guard_env("REEXEC"));
    unsetenv(guard_env("FROM"));
}

void netstack_reexec(int argc, char **argv, const char *name, const char *from, char *why, size_t len)
{
    char word[NETSTACK_NAME_MAX + 16];
    snprintf(word, sizeof word, "%s%s", NETSTACK_WORD, name);
    char **av = xcalloc((size_t)argc + 2, sizeof *av);
    av[0] = argv[0];
    av[1] = word;
    for (int i = 1; i < argc; i++)
        av[i + 1] = argv[i];
    av[argc + 1] = NULL;
    char mark[NETSTACK_NAME_MAX + 24];
    snprintf(mark, sizeof mark, "%ld:%s", (long)getpid(), name);
    if (setenv(guard_env("REEXEC"), mark, 1) != 0 || setenv(guard_env("FROM"), from, 1) != 0) {
        snprintf(why, len, "cannot re-execute: %s", errtext(errno));
        free(av);
        return;
    }
    fflush(NULL);
    execv("/proc/self/exe", av);
    int e = errno;
    if (strchr(argv[0], '/'))
        execv(argv[0], av);
    else
        execvp(argv[0], av);
    snprintf(why, len, "cannot re-execute with %s: %s", word, errtext(e));
    netstack_guard_clear();
    free(av);
}

int netstack_bind_test(const union sockaddr_any *a)
{
    int fd = socket(a->sa.sa_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    union sockaddr_any b = *a;
    net_set_port(&b, 0);
    int rc = bind(fd, &b.sa, net_len(&b));
    int e = errno;
    close(fd);
    errno = e;
    return rc;
}

int netstack_iface_usable(const char *iface, int family, char *note, size_t len)
{
    unsigned idx = if_nametoindex(iface);   /* by index: the name may be an altname */
    if (idx == 0) {
        snprintf(note, len, "%s does not exist in this process's netstack", iface);
        return 0;
    }
    struct ifaddrs *ifs = NULL;
    if (getifaddrs(&ifs) != 0) {
        snprintf(note, len, "%s: its addresses cannot be read here: %s", iface, errtext(errno));
        return 0;
    }
    int ok = 0;
    char addr[64] = "";
    for (struct ifaddrs *i = ifs; i && !ok; i = i->ifa_next) {
        if (!i->ifa_addr || (strcmp(i->ifa_name, iface) != 0 && if_nametoindex(i->ifa_name) != idx))
            continue;
        int fam = i->ifa_addr->sa_family;
        if ((fam != AF_INET && fam != AF_INET6) || (family != AF_UNSPEC && fam != family))
            continue;
        union sockaddr_any a;
        memset(&a, 0, sizeof a);
        memcpy(&a, i->ifa_addr, fam == AF_INET ? sizeof a.in4 : sizeof a.in6);
        if (fam == AF_INET6 && IN6_IS_ADDR_LINKLOCAL(&a.in6.sin6_addr))
            continue;
        net_ntop(&a, addr, sizeof addr);
        ok = netstack_bind_test(&a) == 0;
    }
    freeifaddrs(ifs);
    if (ok)
        snprintf(note, len, "%s's address %s can be bound here", iface, addr);
    else if (addr[0])
        snprintf(note, len, "%s's address %s cannot be bound here", iface, addr);
    else
        snprintf(note, len, "%s has no address in this process's netstack", iface);
    return ok;
}
