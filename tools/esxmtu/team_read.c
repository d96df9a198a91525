/* The thin driver of team.h: runs the host's read-only commands (common/runcmd.c: a
 * process group each, a deadline, ended at once on a stop signal), several at once,
 * and hands their answers to team.c's parsers. Nothing here changes the host. What
 * could not be read is said in t->note; nothing is guessed. */
#include "team_read.h"
#include "fail.h"
#include "runcmd.h"
#include "stop.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TEAM_OUT_MAX (256u << 10)     /* bytes kept of one answer */

int team_find_program(const char *name, char *out, size_t len)
{
    struct stat st;
    const char *path = getenv("PATH");
    for (const char *p = path ? path : ""; *p;) {
        const char *colon = strchr(p, ':');
        size_t n = colon ? (size_t)(colon - p) : strlen(p);
        if (n > 0 && n + strlen(name) + 2 < len) {
            snprintf(out, len, "%.*s/%s", (int)n, p, name);
            if (stat(out, &st) == 0 && S_ISREG(st.st_mode) && access(out, X_OK) == 0)
                return 0;
        }
        p += n + (colon != NULL);
    }
    static const char *const dirs[] = { "/bin", "/sbin" };
    for (size_t i = 0; i < 2; i++) {
        snprintf(out, len, "%s/%s", dirs[i], name);
        if (stat(out, &st) == 0 && S_ISREG(st.st_mode) && access(out, X_OK) == 0)
            return 0;
    }
    out[0] = 0;
    return -1;
}

static void note(struct team *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct team *t, const char *fmt, ...)
{
    size_t l = strlen(t->note);
    if (l + 3 >= sizeof t->note)
        return;
    if (l)
        l += (size_t)snprintf(t->note + l, sizeof t->note - l, "; ");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->note + l, sizeof t->note - l, fmt, ap);
    va_end(ap);
}

/* one command's failure for the note: "exited 1: Error: ..." or why it did not finish */
static const char *failed(const struct runcmd *c, char *buf, size_t len)
{
    if (c->why[0])
        snprintf(buf, len, "%s", c->why);
    else {
        char first[100] = "";
        if (c->out)
            sscanf(c->out, "%99[^\n]", first);
        snprintf(buf, len, "exited %d%s%s", c->code, first[0] ? ": " : "", first);
    }
    return buf;
}

static int ok(const struct runcmd *c)
{
    return !c->why[0] && c->code == 0 && c->out;
}

static void run(struct runcmd *c, size_t n, double secs)
{
    if (runcmd_all(c, n, n, secs, TEAM_OUT_MAX, stop_requested) < 0)
        for (size_t i = 0; i < n; i++)
            if (!c[i].why[0])
                snprintf(c[i].why, sizeof c[i].why, "cannot run %s", c[i].argv[0]);
}

static void done(struct runcmd *c, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(c[i].out);
}

/* the vmk, the vmnics' MTUs (read again once the uplinks are known) and the VLAN */
static int read_vmk(const char *esxcli, const char *vmk, struct team *t, double secs)
{
    const char *list[] = { esxcli, "network", "ip", "interface", "list", NULL };
    struct runcmd c[1] = { { .argv = list } };
    char why[200];
    run(c, 1, secs);
    int rc = -1;
    if (!ok(c))
        note(t, "esxcli network ip interface list %s", failed(&c[0], why, sizeof why));
    else if (team_parse_vmk(c[0].out, c[0].len, vmk, t) != 0)
        note(t, "esxcli network ip interface list has no %s", vmk);
    else
        rc = 0;
    done(c, 1);
    return rc;
}

/* the uplink used now: teamUplink, else schedTeamUplink (the node's name differs
 * between builds); unknown when neither answers a name */
static void read_current(const char *vsish, struct team *t, double secs)
{
    static const char *const nodes[] = { "teamUplink", "schedTeamUplink" };
    char path[200], why[200];
    for (size_t i = 0; i < 2 && !stop_requested(); i++) {
        snprintf(path, sizeof path, "/net/portsets/%s/ports/%s/%s", t->vswitch, t->port_id, nodes[i]);
        const char *argv[] = { vsish, "-e", "get", path, NULL };
        struct runcmd c[1] = { { .argv = argv } };
        run(c, 1, secs);
        int good = ok(c) && team_parse_uplink(c[0].out, c[0].len, t->current, sizeof t->current) == 0;
        if (good)
            snprintf(t->current_from, sizeof t->current_from, "%s", nodes[i]);
        else if (i == 1)
            note(t, "the uplink used now is unknown (vsish -e get .../teamUplink and schedTeamUplink: %s)",
                 failed(&c[0], why, sizeof why));
        done(c, 1);
        if (good)
            return;
    }
}

/* the policy, the VLAN, the NICs' MTUs; then CDP per uplink, all at once */
static void read_team(const char *esxcli, const char *vimcmd, struct team *t, double secs)
{
    const char *fo[] = { esxcli, "network", "vswitch", "standard", "portgroup", "policy", "failover", "get",
                         "-p", t->portgroup, NULL };
    const char *pgl[] = { esxcli, "network", "vswitch", "standard", "portgroup", "list", NULL };
    const char *nics[] = { esxcli, "network", "nic", "list", NULL };
    struct runcmd c[3] = { { .argv = fo }, { .argv = pgl }, { .argv = nics } };
    char why[200];
    run(c, 3, secs);
    if (!ok(&c[0]) || team_parse_failover(c[0].out, c[0].len, t) != 0)
        note(t, "the failover policy was not read (esxcli ... portgroup policy failover get: %s)",
             ok(&c[0]) ? "no Active/Standby/Unused Adapters lines" : failed(&c[0], why, sizeof why));
    if (!ok(&c[1]) || team_parse_portgroups(c[1].out, c[1].len, t) != 0)
        t->vlan = -1;
    if (!ok(&c[2]) || team_parse_nics(c[2].out, c[2].len, t) != 0)
        note(t, "the NICs' MTUs were not read (esxcli network nic list: %s)",
             ok(&c[2]) ? "no Name and MTU columns" : failed(&c[2], why, sizeof why));
    done(c, 3);
    if (!t->n || stop_requested())
        return;
    if (!vimcmd[0]) {
        note(t, "no vim-cmd: the switch ports' MTUs (CDP) were not read");
        return;
    }
    struct runcmd cdp[TEAM_UPLINKS_MAX];
    const char *argv[TEAM_UPLINKS_MAX][4];
    char pnic[TEAM_UPLINKS_MAX][TEAM_NAME + 16];
    for (size_t i = 0; i < t->n; i++) {
        snprintf(pnic[i], sizeof pnic[i], "--pnic-name=%s", t->up[i].name);
        argv[i][0] = vimcmd;
        argv[i][1] = "hostsvc/net/query_networkhint";
        argv[i][2] = pnic[i];
        argv[i][3] = NULL;
        cdp[i] = (struct runcmd){ .argv = argv[i] };
    }
    run(cdp, t->n, secs);
    for (size_t i = 0; i < t->n; i++)
        if (ok(&cdp[i]))
            (void)team_parse_cdp(cdp[i].out, cdp[i].len, &t->up[i]);
    done(cdp, t->n);
}

int team_read(const char *esxcli, const char *vmk, struct team *t, double secs)
{
    memset(t, 0, sizeof *t);
    t->failback = -1;
    t->vlan = -1;
    snprintf(t->vmk, sizeof t->vmk, "%s", vmk);
    if (!esxcli || !esxcli[0]) {
        note(t, "no esxcli on PATH, /bin or /sbin: the team was not read");
        return -1;
    }
    if (read_vmk(esxcli, vmk, t, secs) != 0 || stop_requested())
        return -1;
    char vsish[256], vimcmd[256];
    (void)team_find_program("vim-cmd", vimcmd, sizeof vimcmd);
    if (t->vds[0])
        note(t, "%s is on the distributed switch %s: its teaming is vCenter's (read it there)", vmk, t->vds);
    else
        read_team(esxcli, vimcmd, t, secs);
    if (stop_requested())
        return 0;
    if (team_find_program("vsish", vsish, sizeof vsish) != 0)
        note(t, "no vsish: the uplink used now is unknown");
    else if (!t->port_id[0])
        note(t, "no Port ID for %s: the uplink used now is unknown", vmk);
    else
        read_current(vsish, t, secs);
    return 0;
}
