/* --each-uplink's scratch objects as data (scratch.h): names, calls, checks, leftovers.
 * Pure: nothing here runs a command. */
#include "scratch.h"
#include "team.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const step_names[SS_MAKE_STEPS] = {
    "portgroup add", "portgroup VLAN", "failover policy", "vmk add", "vmk address",
};

const char *scratch_step_name(enum scratch_step s)
{
    return (unsigned)s < SS_MAKE_STEPS ? step_names[s] : "?";
}

void scratch_pg_name(const char *uplink, char *out, size_t len)
{
    snprintf(out, len, "%s%s", SCRATCH_PREFIX, uplink);
}

static void words(struct scratch_argv *a, const char *const *w)
{
    size_t i = 0;
    for (; w[i] && i + 1 < SCRATCH_ARGS; i++)
        a->argv[i] = w[i];
    a->argv[i] = NULL;
}

void scratch_make_argv(enum scratch_step s, const struct scratch_ctx *c, struct scratch_argv *a)
{
    snprintf(a->num[0], sizeof a->num[0], "%d", c->vlan < 0 ? 0 : c->vlan);
    snprintf(a->num[1], sizeof a->num[1], "%u", c->mtu);
    const char *e = c->esxcli;
    switch (s) {
    case SS_PG_ADD: {
        const char *w[] = { e, "network", "vswitch", "standard", "portgroup", "add", "-p", c->pg, "-v", c->vswitch,
                            NULL };
        words(a, w);
        return;
    }
    case SS_PG_VLAN: {
        const char *w[] = { e, "network", "vswitch", "standard", "portgroup", "set", "-p", c->pg, "--vlan-id",
                            a->num[0], NULL };
        words(a, w);
        return;
    }
    case SS_PG_FAILOVER: {
        const char *w[] = { e, "network", "vswitch", "standard", "portgroup", "policy", "failover", "set", "-p",
                            c->pg, "--active-uplinks", c->uplink, "--load-balancing", "explicit", NULL };
        words(a, w);
        return;
    }
    case SS_IF_ADD: {
        const char *w[] = { e, "network", "ip", "interface", "add", "-i", c->vmk, "-p", c->pg, "-m", a->num[1],
                            "-N", c->netstack, NULL };
        words(a, w);
        return;
    }
    default: {
        const char *w[] = { e, "network", "ip", "interface", "ipv4", "set", "-i", c->vmk, "-I", c->addr, "-N",
                            c->mask, "-t", "static", NULL };
        words(a, w);
        return;
    }
    }
}

int scratch_parse_test_ip(const char *s, struct in_addr *a, int *prefix, char *why, size_t len)
{
    char buf[64];
    const char *slash = strchr(s, '/');
    if (!slash || (size_t)(slash - s) >= sizeof buf) {
        snprintf(why, len, "--test-ip %.60s: not ADDRESS/PREFIX (an unused IPv4 address in the vmk's subnet, "
                 "such as 198.18.4.50/24)", s);
        return -1;
    }
    memcpy(buf, s, (size_t)(slash - s));
    buf[slash - s] = 0;
    char *end;
    long p = strtol(slash + 1, &end, 10);
    if (inet_pton(AF_INET, buf, a) != 1 || end == slash + 1 || *end || p < 1 || p > 30) {
        snprintf(why, len, "--test-ip %.60s: not an IPv4 ADDRESS/PREFIX with a prefix of 1-30 (IPv6 vmks are not "
                 "tested per uplink)", s);
        return -1;
    }
    *prefix = (int)p;
    return 0;
}

static uint32_t mask_of(int prefix)
{
    return prefix <= 0 ? 0 : prefix >= 32 ? 0xffffffffu : ~((1u << (32 - prefix)) - 1);
}

static int prefix_of(struct in_addr m)
{
    uint32_t v = ntohl(m.s_addr);
    int n = 0;
    while (v & 0x80000000u) {
        n++;
        v <<= 1;
    }
    return v ? -1 : n;                  /* a mask with holes is no mask */
}

struct ipv4_find {
    const char *vmk;
    struct in_addr addr, want;
    int prefix, found;
    char *who;
    size_t wlen;
};

static void ipv4_row(void *ctx, char cells[][128])
{
    struct ipv4_find *f = ctx;
    struct in_addr a, m;
    if (inet_pton(AF_INET, cells[1], &a) != 1)
        return;
    if (f->vmk && strcmp(cells[0], f->vmk) == 0 && inet_pton(AF_INET, cells[2], &m) == 1 && prefix_of(m) > 0) {
        f->addr = a;
        f->prefix = prefix_of(m);
        f->found = 1;
    } else if (!f->vmk && a.s_addr == f->want.s_addr && !f->found) {
        snprintf(f->who, f->wlen, "%s", cells[0]);
        f->found = 1;
    }
}

static const char *const ipv4_cols[] = { "Name", "IPv4 Address", "IPv4 Netmask" };

int scratch_parse_ipv4(const char *text, size_t len, const char *vmk, struct in_addr *addr, int *prefix)
{
    struct ipv4_find f = { .vmk = vmk };
    if (team_table(text, len, ipv4_cols, 3, ipv4_row, &f) != 0 || !f.found)
        return -1;
    *addr = f.addr;
    *prefix = f.prefix;
    return 0;
}

int scratch_addr_taken(const char *text, size_t len, struct in_addr a, char *who, size_t wlen)
{
    struct ipv4_find f = { .want = a, .who = who, .wlen = wlen };
    (void)team_table(text, len, ipv4_cols, 3, ipv4_row, &f);
    return f.found;
}

int scratch_subnet_ok(struct in_addr test, int prefix, struct in_addr vmk, int vprefix, const char *vmkname,
                      char *why, size_t len)
{
    char t[INET_ADDRSTRLEN], v[INET_ADDRSTRLEN];
    inet_ntop(AF_INET, &test, t, sizeof t);
    inet_ntop(AF_INET, &vmk, v, sizeof v);
    uint32_t m = mask_of(vprefix), ta = ntohl(test.s_addr), va = ntohl(vmk.s_addr);
    if (prefix != vprefix)
        snprintf(why, len, "--test-ip %s/%d: %s is %s/%d: give the same prefix", t, prefix, vmkname, v, vprefix);
    else if ((ta & m) != (va & m))
        snprintf(why, len, "--test-ip %s/%d lies outside %s's subnet (%s/%d): give an unused address of that subnet",
                 t, prefix, vmkname, v, vprefix);
    else if (ta == va)
        snprintf(why, len, "--test-ip %s is %s's own address: give an unused one of its subnet", t, vmkname);
    else if ((ta & ~m) == 0 || (ta & ~m) == ~m)
        snprintf(why, len, "--test-ip %s/%d is the subnet's network or broadcast address: give a host address", t,
                 prefix);
    else
        return 0;
    return -1;
}

struct vmk_names {
    unsigned char used[10000];
    struct scratch_left *left;
};

static void name_used(void *ctx, const char *vmk, const char *pg)
{
    struct vmk_names *n = ctx;
    char *end;
    long k = strncmp(vmk, "vmk", 3) == 0 ? strtol(vmk + 3, &end, 10) : -1;
    if (k >= 0 && k < 10000 && end != vmk + 3 && !*end)
        n->used[k] = 1;
    struct scratch_left *l = n->left;
    if (l && strncmp(pg, SCRATCH_PREFIX, strlen(SCRATCH_PREFIX)) == 0 && l->nvmk < SCRATCH_LEFT_MAX &&
        strlen(vmk) < sizeof l->vmk[0])
        snprintf(l->vmk[l->nvmk++], sizeof l->vmk[0], "%s", vmk);
}

int scratch_free_vmk(const char *iflist, size_t len, char *out, size_t olen)
{
    struct vmk_names *n = calloc(1, sizeof *n);
    if (!n)
        return -1;
    team_each_vmk(iflist, len, name_used, n);
    int rc = -1;
    for (int k = 90; k < 10000 && rc; k++)
        if (!n->used[k]) {
            snprintf(out, olen, "vmk%d", k);
            rc = 0;
        }
    free(n);
    return rc;
}

static void pg_left(void *ctx, char cells[][128])
{
    struct scratch_left *l = ctx;
    if (strncmp(cells[0], SCRATCH_PREFIX, strlen(SCRATCH_PREFIX)) == 0 && l->npg < SCRATCH_LEFT_MAX &&
        strlen(cells[0]) < sizeof l->pg[0] && strlen(cells[1]) < sizeof l->pg_vs[0]) {
        snprintf(l->pg[l->npg], sizeof l->pg[0], "%s", cells[0]);
        snprintf(l->pg_vs[l->npg++], sizeof l->pg_vs[0], "%s", cells[1]);
    }
}

size_t scratch_leftovers(const char *iflist, size_t ilen, const char *pglist, size_t plen, struct scratch_left *l)
{
    static const char *const cols[] = { "Name", "Virtual Switch" };
    memset(l, 0, sizeof *l);
    if (iflist) {
        struct vmk_names *n = calloc(1, sizeof *n);
        if (n) {
            n->left = l;
            team_each_vmk(iflist, ilen, name_used, n);
            free(n);
        }
    }
    if (pglist)
        (void)team_table(pglist, plen, cols, 2, pg_left, l);
    return l->nvmk + l->npg;
}

void scratch_left_text(const struct scratch_left *l, char *out, size_t len)
{
    size_t k = 0;
    out[0] = 0;
    for (size_t i = 0; i < l->nvmk && k + 1 < len; i++)
        k += (size_t)snprintf(out + k, len - k, "%s%s", k ? ", " : "", l->vmk[i]);
    for (size_t i = 0; i < l->npg && k + 1 < len; i++)
        k += (size_t)snprintf(out + k, len - k, "%s%s (%s)", k ? ", " : "", l->pg[i], l->pg_vs[i]);
    if (k >= len && len > 4)
        snprintf(out + len - 4, 4, "...");
}
