/* The thin driver of --each-uplink (each_uplink.h): the refusals, then per uplink the
 * making steps (scratch.c's calls), the probes through the scratch vmk (esxcli_ping.c,
 * rounds.c), and the listing-driven removal; every call through common/runcmd.c. */
#include "each_uplink.h"
#include "esxcli_ping.h"
#include "fail.h"
#include "options.h"
#include "rounds.h"
#include "runcmd.h"
#include "stop.h"

#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EU_OUT_MAX (256u << 10)
#define EU_REMOVE_TRIES 3

static double cli_secs(void)
{
    const char *v = getenv("ESXDIAG_ESXCLI_SECS");
    char *end;
    long s = v ? strtol(v, &end, 10) : 0;
    return v && end != v && !*end && s >= 1 && s <= 3600 ? (double)s : 30.0;
}

/* one esxcli call: 0 when it exited 0 (its output in *out when out is not NULL, to
 * free), else -1 with why; stoppable: a stop signal kills it (never for removals) */
static int cli(const char *const *argv, int stoppable, char **out, size_t *len, char *why, size_t wlen)
{
    struct runcmd c = { .argv = argv };
    int rc = runcmd_one(&c, cli_secs(), EU_OUT_MAX, stoppable ? stop_requested : NULL);
    int good = rc == 0 && !c.why[0] && c.code == 0;
    if (!good) {
        char first[160] = "";
        if (c.out)
            sscanf(c.out, "%159[^\n]", first);
        if (c.why[0])
            snprintf(why, wlen, "%s", c.why);
        else if (rc != 0)
            snprintf(why, wlen, "cannot run %s", argv[0]);
        else
            snprintf(why, wlen, "esxcli exited %d%s%s", c.code, first[0] ? ": " : "", first);
    }
    if (good && out) {
        *out = c.out;
        *len = c.len;
    } else {
        free(c.out);
    }
    return good ? 0 : -1;
}

static int list(const char *esxcli, int which, char **out, size_t *len, char *why, size_t wlen)
{
    const char *ifl[] = { esxcli, "network", "ip", "interface", "list", NULL };
    const char *pgl[] = { esxcli, "network", "vswitch", "standard", "portgroup", "list", NULL };
    const char *v4[] = { esxcli, "network", "ip", "interface", "ipv4", "get", NULL };
    const char *const *argv = which == 0 ? ifl : which == 1 ? pgl : v4;
    return cli(argv, 0, out, len, why, wlen);
}

static int policy(const char *esxcli, const char *pg, char **out, size_t *len, char *why, size_t wlen)
{
    const char *argv[] = { esxcli, "network", "vswitch", "standard", "portgroup", "policy", "failover", "get",
                           "-p", pg, NULL };
    return cli(argv, 0, out, len, why, wlen);
}

/* what is scratch on the host now: -1 when it cannot be listed */
static int leftovers(const char *esxcli, struct scratch_left *l, char *why, size_t wlen)
{
    char *ifl = NULL, *pgl = NULL;
    size_t il = 0, pl = 0;
    int rc = -1;
    if (list(esxcli, 0, &ifl, &il, why, wlen) == 0 && list(esxcli, 1, &pgl, &pl, why, wlen) == 0) {
        scratch_leftovers(ifl, il, pgl, pl, l);
        rc = 0;
    }
    free(ifl);
    free(pgl);
    return rc;
}

static int refuse(struct eu_run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int refuse(struct eu_run *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->refused, sizeof r->refused, fmt, ap);
    va_end(ap);
    return -1;
}

/* does anything answer the test address? the vmk's own small ping, two tries */
static int answers(const struct mtu_opts *o, const struct team *t, const char *addr)
{
    struct ecp_ask a = { o->ns.esxcli, t->netstack, t->vmk, 2, 1, NULL, 0 };
    struct ecp_call c;
    ecp_build(&c, &a, addr, AF_INET, CHECK_SMALL_DATA);
    if (ecp_run_all(&c, 1, cli_secs()) != 0 || c.exit_code != 0)
        return 0;
    return c.res.received > 0;
}

static int refusals(const struct mtu_opts *o, const struct team *t, struct eu_run *r)
{
    struct in_addr test, vaddr;
    int vprefix;
    char why[400], *out = NULL, who[64] = "";
    size_t len = 0;
    if (t->vds[0])
        return refuse(r, "%s is on the distributed switch %s: --each-uplink makes scratch objects on standard "
                      "vSwitches only; vCenter's VLAN and MTU health check of the vDS answers per uplink", t->vmk, t->vds);
    if (!t->have_policy || !t->n)
        return refuse(r, "%s's team was not read (%.300s): nothing to pin", t->vmk, t->note);
    if (t->vlan < 0)
        return refuse(r, "the VLAN of portgroup %s on %s was not read (esxcli network vswitch standard portgroup "
                      "list): the scratch portgroup needs it", t->portgroup, t->vswitch);
    if (strcmp(t->lb, "iphash") == 0)
        return refuse(r, "%s's team balances by IP hash (%s): its traffic is hashed over every uplink, which a "
                      "pinned scratch portgroup does not reproduce (the switch side is an EtherChannel)", t->vmk, t->lb);
    if (scratch_parse_test_ip(o->test_ip, &test, &r->prefix, why, sizeof why) != 0)
        return refuse(r, "%s", why);
    inet_ntop(AF_INET, &test, r->test_ip, sizeof r->test_ip);
    if (list(o->ns.esxcli, 2, &out, &len, why, sizeof why) != 0)
        return refuse(r, "esxcli network ip interface ipv4 get: %.300s", why);
    int rc = 0;
    if (scratch_parse_ipv4(out, len, t->vmk, &vaddr, &vprefix) != 0)
        rc = refuse(r, "%s has no IPv4 address in esxcli network ip interface ipv4 get", t->vmk);
    else if (scratch_subnet_ok(test, r->prefix, vaddr, vprefix, t->vmk, why, sizeof why) != 0)
        rc = refuse(r, "%s", why);
    else if (scratch_addr_taken(out, len, test, who, sizeof who))
        rc = refuse(r, "--test-ip %s is in use: %s holds it", r->test_ip, who);
    free(out);
    if (rc == 0 && answers(o, t, r->test_ip))
        rc = refuse(r, "--test-ip %s is in use: it answers a ping from %s (give an unused address)", r->test_ip,
                    t->vmk);
    return rc;
}

/* the making steps for one uplink; -1 with u->error at the first that fails */
static int make(const struct mtu_opts *o, const struct team *t, struct eu_run *r, struct eu_uplink *u)
{
    struct scratch_ctx c = { o->ns.esxcli, t->vswitch, u->name, t->netstack, r->vmk, t->vlan, t->vmk_mtu, "", "",
                             "" };
    snprintf(c.pg, sizeof c.pg, "%s", u->pg);
    snprintf(c.addr, sizeof c.addr, "%s", r->test_ip);
    struct in_addr m = { htonl(r->prefix >= 32 ? 0xffffffffu : ~((1u << (32 - r->prefix)) - 1)) };
    inet_ntop(AF_INET, &m, c.mask, sizeof c.mask);
    for (int s = 0; s < SS_MAKE_STEPS; s++) {
        struct scratch_argv a;
        char why[240];
        scratch_make_argv((enum scratch_step)s, &c, &a);
        if (stop_requested()) {
            snprintf(u->error, sizeof u->error, "stopped (%s) before %s", signal_name(stop_requested()),
                     scratch_step_name((enum scratch_step)s));
            return -1;
        }
        if (cli(a.argv, 1, NULL, NULL, why, sizeof why) != 0) {
            snprintf(u->error, sizeof u->error, "%s failed: %s", scratch_step_name((enum scratch_step)s), why);
            return -1;
        }
    }
    return 0;
}

/* the run's check through the scratch vmk, then the largest size for each peer */
static void probe(const struct mtu_opts *o, const struct team *t, struct eu_run *r, struct eu_uplink *u,
                  const struct peer *peers)
{
    size_t n = r->npeers;
    struct ecp_ask a;
    netstack_esxcli_ask(o, &a);
    a.netstack = t->netstack;
    a.iface = r->vmk;
    for (size_t i = 0; i < n; i++) {
        u->peers[i] = peers[i];
        memset(&u->peers[i].st, 0, sizeof u->peers[i].st);
        u->peers[i].trace = NULL;
        u->peers[i].did_discover = 0;
    }
    char why[400];
    if (ecp_check(u->peers, n, &a, why, sizeof why) < 0) {
        snprintf(u->error, sizeof u->error, "the probes failed: %.280s", why);
        return;
    }
    struct disc_target *tg = xcalloc(n ? n : 1, sizeof *tg);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        check_decide(&u->peers[i]);
        if (verdict_ok(u->peers[i].verdict))
            u->largest[i] = u->peers[i].mtu;
        else if (verdict_answered(u->peers[i].verdict)) {
            tg[k++] = (struct disc_target){ &u->peers[i].addr, &u->peers[i].disc };
            u->peers[i].did_discover = 1;
        }
    }
    struct rounds_transport tp;
    ecp_transport(&tp, &a);
    if (k && !stop_requested() && rounds_run(&tp, tg, k, why, sizeof why) < 0)
        snprintf(u->error, sizeof u->error, "the size search failed: %.280s", why);
    for (size_t i = 0; i < n; i++)
        if (u->peers[i].did_discover && u->peers[i].disc.state == DS_FOUND)
            u->largest[i] = u->peers[i].disc.mtu;
    free(tg);
    u->tested = !stop_requested() && !u->error[0];
}

/* remove every scratch object the host lists, up to EU_REMOVE_TRIES rounds; then the
 * listing that proves it: 0 clean, -1 not (r->left, r->cleanup_note) */
static int remove_all(const char *esxcli, struct eu_run *r)
{
    struct scratch_left l;
    char why[240] = "";
    for (int k = 0; k < EU_REMOVE_TRIES; k++) {
        if (leftovers(esxcli, &l, why, sizeof why) != 0)
            continue;
        if (l.nvmk + l.npg == 0)
            break;
        for (size_t i = 0; i < l.nvmk; i++) {
            const char *argv[] = { esxcli, "network", "ip", "interface", "remove", "-i", l.vmk[i], NULL };
            if (cli(argv, 0, NULL, NULL, why, sizeof why) != 0)
                snprintf(r->cleanup_note, sizeof r->cleanup_note, "removing %s: %s", l.vmk[i], why);
        }
        for (size_t i = 0; i < l.npg; i++) {
            const char *argv[] = { esxcli, "network", "vswitch", "standard", "portgroup", "remove", "-p", l.pg[i],
                                   "-v", l.pg_vs[i], NULL };
            if (cli(argv, 0, NULL, NULL, why, sizeof why) != 0)
                snprintf(r->cleanup_note, sizeof r->cleanup_note, "removing %s: %s", l.pg[i], why);
        }
    }
    if (leftovers(esxcli, &l, why, sizeof why) != 0) {
        snprintf(r->left, sizeof r->left, "unknown: the host could not be listed again (%s)", why);
        return -1;
    }
    scratch_left_text(&l, r->left, sizeof r->left);
    return l.nvmk + l.npg ? -1 : 0;
}

int each_uplink_run(const struct mtu_opts *o, const struct team *t, const struct peer *peers, size_t npeers,
                    struct eu_run *r)
{
    memset(r, 0, sizeof *r);
    r->ran = 1;
    r->npeers = npeers;
    r->policy_same = -1;
    const char *esxcli = o->ns.esxcli;
    char why[240], *before = NULL, *after = NULL, *ifl = NULL;
    size_t blen = 0, alen = 0, il = 0;
    struct scratch_left l;
    if (refusals(o, t, r) != 0)
        return 1;
    if (leftovers(esxcli, &l, why, sizeof why) != 0 || l.nvmk + l.npg) {
        char left[300];
        scratch_left_text(&l, left, sizeof left);
        return refuse(r, "scratch objects of an earlier run are on the host (%s): remove them with esxi/cleanup.sh "
                      "first", left[0] ? left : why), 1;
    }
    if (policy(esxcli, t->portgroup, &before, &blen, why, sizeof why) != 0 ||
        list(esxcli, 0, &ifl, &il, why, sizeof why) != 0 || scratch_free_vmk(ifl, il, r->vmk, sizeof r->vmk) != 0) {
        free(before);
        free(ifl);
        return refuse(r, "the host could not be read before the test: %s", why), 1;
    }
    free(ifl);
    int rc = 0;
    for (size_t i = 0; i < t->n && !stop_requested(); i++) {
        struct eu_uplink *u = &r->up[r->n++];
        snprintf(u->name, sizeof u->name, "%s", t->up[i].name);
        u->role = t->up[i].role;
        scratch_pg_name(u->name, u->pg, sizeof u->pg);
        u->peers = xcalloc(npeers ? npeers : 1, sizeof *u->peers);
        u->largest = xcalloc(npeers ? npeers : 1, sizeof *u->largest);
        if (make(o, t, r, u) == 0)
            probe(o, t, r, u, peers);
        if (u->error[0])
            rc = 1;
        if (remove_all(esxcli, r) != 0 || u->error[0])
            break;                    /* a host that fails once is not asked to make more */
    }
    if (stop_requested()) {
        r->stopped = signal_name(stop_requested());
        rc = 1;
    }
    r->cleanup_ok = remove_all(esxcli, r) == 0;
    if (policy(esxcli, t->portgroup, &after, &alen, why, sizeof why) == 0)
        r->policy_same = alen == blen && memcmp(after, before, blen) == 0;
    free(before);
    free(after);
    return r->cleanup_ok ? rc : 2;
}

void each_uplink_free(struct eu_run *r)
{
    for (size_t i = 0; i < r->n; i++) {
        free(r->up[i].peers);
        free(r->up[i].largest);
    }
}

size_t each_uplink_findings(const struct eu_run *r, char out[][TEAM_FINDING_LEN], size_t max)
{
    size_t k = 0;
    for (size_t i = 0; i < r->n && k < max; i++) {
        const struct eu_uplink *u = &r->up[i];
        if (!u->tested)
            continue;
        for (size_t p = 0; p < r->npeers && k < max; p++) {
            const struct peer *pe = &u->peers[p];
            if (verdict_ok(pe->verdict))
                continue;
            char lg[48] = "no size passed";
            if (u->largest[p])
                snprintf(lg, sizeof lg, "MTU %u is the largest that passed", u->largest[p]);
            snprintf(out[k++], TEAM_FINDING_LEN, "jumbo frames fail through %s (%s): %s %s, %s", u->name,
                     team_role_name(u->role), pe->name, verdict_name(pe->verdict), lg);
        }
    }
    return k;
}
