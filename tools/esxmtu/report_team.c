/* The vmk's team in the report: its block under -V, a `finding:` line for each
 * uplink whose path is smaller than the vmk (always, -q too), and the `team` object of
 * -J. Keys and their order are part of the interface. */
#include "report_team.h"
#include "escape.h"
#include "jsonw.h"

#include <string.h>

/* "9000" or "unknown" */
static const char *mtu_text(uint32_t v, char *buf, size_t len)
{
    if (v)
        snprintf(buf, len, "%u", v);
    else
        snprintf(buf, len, "unknown");
    return buf;
}

static void human_block(FILE *f, const struct team *t)
{
    char a[24], b[24], vlan[16] = "unknown", sw[2 * TEAM_NAME + 4];
    if (t->vlan >= 0)
        snprintf(vlan, sizeof vlan, "%d", t->vlan);
    fprintf(f, "team of %s: %s%s, portgroup %s (VLAN %s), netstack %s, MTU %s\n", t->vmk,
            t->vds[0] ? "distributed switch " : "", t->vds[0] ? t->vds : t->vswitch, t->portgroup, vlan,
            t->netstack, mtu_text(t->vmk_mtu, a, sizeof a));
    if (t->have_policy)
        fprintf(f, "  load balancing %s, failback %s\n", t->lb[0] ? t->lb : "unknown",
                t->failback == 1 ? "yes" : t->failback == 0 ? "no" : "unknown");
    if (t->current[0])
        fprintf(f, "  leaves by %s now (vsish %s)\n", t->current, t->current_from);
    else
        fprintf(f, "  leaves by: unknown\n");
    if (t->n)
        fprintf(f, "  %-10s %-10s %-8s %-32s %s\n", "uplink", "role", "NIC MTU", "switch port (CDP)", "port MTU");
    for (size_t i = 0; i < t->n; i++) {
        const struct team_uplink *u = &t->up[i];
        char role[24];
        snprintf(role, sizeof role, "%s %u", team_role_name(u->role), u->order);
        if (u->cdp)
            snprintf(sw, sizeof sw, "%s %s", u->sw[0] ? u->sw : "?", u->port[0] ? u->port : "?");
        else
            snprintf(sw, sizeof sw, "not announced");
        fprintf(f, "  %-10s %-10s %-8s %-32s %s\n", u->name, role, mtu_text(u->nic_mtu, a, sizeof a), sw,
                mtu_text(u->sw_mtu, b, sizeof b));
    }
    if (t->note[0])
        fprintf(f, "  not read: %s\n", t->note);
}

size_t report_team_human(FILE *f, const struct team *t, int verbose)
{
    if (!t)
        return 0;
    if (verbose)
        human_block(f, t);
    char fnd[TEAM_FINDINGS_MAX][TEAM_FINDING_LEN], shown[4 * TEAM_FINDING_LEN];
    size_t n = team_findings(t, fnd, TEAM_FINDINGS_MAX);
    for (size_t i = 0; i < n; i++) {
        esc_text(fnd[i], shown, sizeof shown);     /* names came from the host: terminal-safe */
        fprintf(f, "finding: %s\n", shown);
    }
    return n;
}

static void juint0(struct jsonw *w, const char *key, uint32_t v)
{
    if (v)
        jw_uint(w, key, v);
    else
        jw_null(w, key);
}

static void jstr0(struct jsonw *w, const char *key, const char *v)
{
    jw_str(w, key, v && v[0] ? v : NULL);
}

/* the finding lines of the team and of --each-uplink, in that order */
static void json_findings(struct jsonw *w, const struct team *t, const struct eu_run *r)
{
    char fnd[TEAM_FINDINGS_MAX][TEAM_FINDING_LEN];
    size_t n = t ? team_findings(t, fnd, TEAM_FINDINGS_MAX) : 0;
    jw_arr(w, "findings");
    for (size_t i = 0; i < n; i++)
        jw_str(w, NULL, fnd[i]);
    n = r && r->ran ? each_uplink_findings(r, fnd, TEAM_FINDINGS_MAX) : 0;
    for (size_t i = 0; i < n; i++)
        jw_str(w, NULL, fnd[i]);
    jw_end(w);
}

void report_team_json(struct jsonw *w, const struct team *t, const struct eu_run *r)
{
    if (!t) {
        jw_null(w, "team");
        json_findings(w, t, r);
        return;
    }
    jw_obj(w, "team");
    jw_str(w, "vmk", t->vmk);
    jstr0(w, "vswitch", t->vswitch);
    jstr0(w, "vds", t->vds);
    jstr0(w, "portgroup", t->portgroup);
    if (t->vlan >= 0)
        jw_int(w, "vlan", t->vlan);
    else
        jw_null(w, "vlan");
    jstr0(w, "netstack", t->netstack);
    juint0(w, "mtu", t->vmk_mtu);
    jstr0(w, "load_balancing", t->lb);
    if (t->failback >= 0)
        jw_bool(w, "failback", t->failback);
    else
        jw_null(w, "failback");
    jstr0(w, "current_uplink", t->current);
    jstr0(w, "current_from", t->current_from);
    jw_arr(w, "uplinks");
    for (size_t i = 0; i < t->n; i++) {
        const struct team_uplink *u = &t->up[i];
        jw_obj(w, NULL);
        jw_str(w, "name", u->name);
        jw_str(w, "role", team_role_name(u->role));
        jw_uint(w, "order", u->order);
        juint0(w, "nic_mtu", u->nic_mtu);
        jstr0(w, "switch", u->cdp ? u->sw : NULL);
        jstr0(w, "switch_port", u->cdp ? u->port : NULL);
        juint0(w, "switch_mtu", u->sw_mtu);
        jw_end(w);
    }
    jw_end(w);
    jstr0(w, "not_read", t->note);
    jw_end(w);
    json_findings(w, t, r);
}

void report_each_human(FILE *f, const struct eu_run *r)
{
    if (!r || !r->ran)
        return;
    fprintf(f, "each uplink of the team: scratch %s at %s/%d on a portgroup %s<uplink> pinned to it\n", r->vmk,
            r->test_ip, r->prefix, SCRATCH_PREFIX);
    for (size_t i = 0; i < r->n; i++) {
        const struct eu_uplink *u = &r->up[i];
        for (size_t p = 0; p < r->npeers && u->tested; p++) {
            char lg[24] = "none";
            if (u->largest[p])
                snprintf(lg, sizeof lg, "%u", u->largest[p]);
            fprintf(f, "  %-10s %-8s %-18s %-11s largest MTU passed %s\n", u->name, team_role_name(u->role),
                    u->peers[p].name, verdict_name(u->peers[p].verdict), lg);
        }
        if (u->error[0])
            fprintf(f, "  %-10s %-8s not tested: %s\n", u->name, team_role_name(u->role), u->error);
    }
    if (r->stopped)
        fprintf(f, "  stopped by %s: the scratch objects were removed before exiting\n", r->stopped);
    if (r->cleanup_ok)
        fprintf(f, "cleanup: nothing with the prefix %s is left (listed again)%s\n", SCRATCH_PREFIX,
                r->policy_same == 1 ? "; the production portgroup's failover policy reads as before"
                : r->policy_same == 0 ? "; THE PRODUCTION PORTGROUP'S FAILOVER POLICY READS DIFFERENTLY" : "");
    else
        fprintf(f, "cleanup: FAILED, left on the host: %s%s%s (remove them with esxi/cleanup.sh)\n", r->left,
                r->cleanup_note[0] ? "; " : "", r->cleanup_note);
}

size_t report_each_findings(FILE *f, const struct eu_run *r)
{
    if (!r || !r->ran)
        return 0;
    char fnd[16][TEAM_FINDING_LEN], shown[4 * TEAM_FINDING_LEN];
    size_t n = each_uplink_findings(r, fnd, 16);
    for (size_t i = 0; i < n; i++) {
        esc_text(fnd[i], shown, sizeof shown);
        fprintf(f, "finding: %s\n", shown);
    }
    return n;
}

void report_each_json(struct jsonw *w, const struct eu_run *r)
{
    if (!r || !r->ran) {
        jw_null(w, "each_uplink");
        return;
    }
    jw_obj(w, "each_uplink");
    jw_str(w, "test_ip", r->test_ip[0] ? r->test_ip : NULL);
    jstr0(w, "scratch_vmk", r->vmk);
    jw_str(w, "scratch_prefix", SCRATCH_PREFIX);
    jstr0(w, "refused", r->refused);
    jw_arr(w, "uplinks");
    for (size_t i = 0; i < r->n; i++) {
        const struct eu_uplink *u = &r->up[i];
        jw_obj(w, NULL);
        jw_str(w, "name", u->name);
        jw_str(w, "role", team_role_name(u->role));
        jw_str(w, "scratch_portgroup", u->pg);
        jw_bool(w, "tested", u->tested);
        jstr0(w, "error", u->error);
        jw_arr(w, "peers");
        for (size_t p = 0; p < r->npeers && u->tested; p++) {
            jw_obj(w, NULL);
            jw_str(w, "target", u->peers[p].name);
            jw_str(w, "verdict", verdict_name(u->peers[p].verdict));
            juint0(w, "largest_mtu", u->largest[p]);
            jw_end(w);
        }
        jw_end(w);
        jw_end(w);
    }
    jw_end(w);
    jstr0(w, "stopped", r->stopped);
    jw_obj(w, "cleanup");
    jw_bool(w, "clean", r->cleanup_ok);
    jstr0(w, "left", r->left);
    if (r->policy_same >= 0)
        jw_bool(w, "production_policy_unchanged", r->policy_same);
    else
        jw_null(w, "production_policy_unchanged");
    jstr0(w, "note", r->cleanup_note);
    jw_end(w);
    jw_end(w);
}
