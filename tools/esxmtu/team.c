/* The team behind a vmk, read from the host's answers, and the finding rule (team.h).
 * Pure: text in, struct team out; every length bounded by the struct's fields. */
#include "team.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const role_names[] = { "active", "standby", "unused" };

const char *team_role_name(enum uplink_role r)
{
    return (unsigned)r < 3 ? role_names[r] : "?";
}

/* the next line of text[*at..len) into line (NULs dropped, cut at size - 1); 0 at the end */
static int next_line(const char *text, size_t len, size_t *at, char *line, size_t size)
{
    if (*at >= len)
        return 0;
    size_t l = 0;
    while (*at < len && text[*at] != '\n') {
        char ch = text[(*at)++];
        if (ch != 0 && ch != '\r' && l + 1 < size)
            line[l++] = ch;
    }
    (*at)++;
    line[l] = 0;
    return 1;
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t l = strlen(s);
    while (l && (s[l - 1] == ' ' || s[l - 1] == '\t'))
        s[--l] = 0;
    return s;
}

/* "Key: value" (leading spaces, any letter case of the key): the value trimmed, or NULL */
static char *kv(char *line, const char *key)
{
    char *p = trim(line);
    size_t k = strlen(key);
    if (strncasecmp(p, key, k) != 0 || p[k] != ':')
        return NULL;
    return trim(p + k + 1);
}

static void put(char *dst, size_t size, const char *src)
{
    snprintf(dst, size, "%s", src);
}

/* a name as the host's tools print vmnics, vSwitches and switches: printable, no
 * quote, no comma, and not empty */
static int name_ok(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (!isprint((unsigned char)*s) || *s == '"' || *s == ',')
            return 0;
    return 1;
}

static uint32_t mtu_of(const char *s)
{
    char *end;
    unsigned long v = strtoul(s, &end, 10);
    return end != s && !*trim(end) && v >= 68 && v <= 65535 ? (uint32_t)v : 0;
}

void team_each_vmk(const char *text, size_t len, void (*fn)(void *ctx, const char *vmk, const char *pg),
                   void *ctx)
{
    char line[512], name[TEAM_NAME] = "", *v;
    size_t at = 0;
    while (next_line(text, len, &at, line, sizeof line)) {
        if ((v = kv(line, "Name")))
            put(name, sizeof name, v);
        else if ((v = kv(line, "Portgroup")) && name[0])
            fn(ctx, name, v);
    }
}

int team_parse_vmk(const char *text, size_t len, const char *vmk, struct team *t)
{
    char line[512], *v;
    size_t at = 0;
    int in = 0;
    t->have_vmk = 0;
    while (next_line(text, len, &at, line, sizeof line)) {
        if ((v = kv(line, "Name")))
            in = strcmp(v, vmk) == 0;
        if (!in)
            continue;
        t->have_vmk = 1;
        if ((v = kv(line, "Portset")))
            put(t->vswitch, sizeof t->vswitch, v);
        else if ((v = kv(line, "Portgroup")))
            put(t->portgroup, sizeof t->portgroup, v);
        else if ((v = kv(line, "Netstack Instance")))
            put(t->netstack, sizeof t->netstack, v);
        else if ((v = kv(line, "VDS Name")))
            put(t->vds, sizeof t->vds, strcmp(v, "N/A") == 0 ? "" : v);
        else if ((v = kv(line, "MTU")))
            t->vmk_mtu = mtu_of(v);
        else if ((v = kv(line, "Port ID")))
            put(t->port_id, sizeof t->port_id, v);
    }
    put(t->vmk, sizeof t->vmk, vmk);
    return t->have_vmk ? 0 : -1;
}

/* "vmnic0, vmnic1" (or "vmnic0,vmnic1"): each name into the team with role r */
static void add_list(struct team *t, char *list, enum uplink_role r)
{
    unsigned order = 0;
    for (char *tok = strtok(list, ", "); tok; tok = strtok(NULL, ", ")) {
        if (!name_ok(tok) || team_find(t, tok) || t->n >= TEAM_UPLINKS_MAX)
            continue;
        struct team_uplink *u = &t->up[t->n++];
        memset(u, 0, sizeof *u);
        put(u->name, sizeof u->name, tok);
        u->role = r;
        u->order = ++order;
    }
}

static int bool_of(const char *v)
{
    if (strcasecmp(v, "true") == 0 || strcasecmp(v, "yes") == 0)
        return 1;
    if (strcasecmp(v, "false") == 0 || strcasecmp(v, "no") == 0)
        return 0;
    return -1;
}

int team_parse_failover(const char *text, size_t len, struct team *t)
{
    static const char *const keys[] = { "Active Adapters", "Standby Adapters", "Unused Adapters" };
    char line[1024], *v;
    size_t at = 0;
    int lists = 0;
    t->n = 0;
    t->failback = -1;
    t->lb[0] = 0;
    while (next_line(text, len, &at, line, sizeof line)) {
        char copy[sizeof line];
        put(copy, sizeof copy, line);
        if ((v = kv(copy, "Load Balancing"))) {
            put(t->lb, sizeof t->lb, v);
            continue;
        }
        put(copy, sizeof copy, line);
        if ((v = kv(copy, "Failback"))) {
            t->failback = bool_of(v);
            continue;
        }
        for (int r = 0; r < 3; r++) {
            put(copy, sizeof copy, line);
            if ((v = kv(copy, keys[r]))) {
                add_list(t, v, (enum uplink_role)r);
                lists++;
            }
        }
    }
    t->have_policy = lists > 0;
    return lists ? 0 : -1;
}

/* the start of each column of a header line (two spaces or more between columns) */
static size_t columns(const char *hdr, size_t start[], char names[][32], size_t max)
{
    size_t n = 0, i = 0, l = strlen(hdr);
    while (i < l && n < max) {
        while (i < l && hdr[i] == ' ')
            i++;
        if (i >= l)
            break;
        start[n] = i;
        size_t k = 0;
        while (i < l && !(hdr[i] == ' ' && (i + 1 >= l || hdr[i + 1] == ' '))) {
            if (k + 1 < sizeof names[0])
                names[n][k++] = hdr[i];
            i++;
        }
        names[n][k] = 0;
        n++;
    }
    return n;
}

/* the cell of the column starting at `from` (to the next column's start), trimmed */
static void cell(const char *row, size_t from, size_t to, char *out, size_t olen)
{
    size_t l = strlen(row);
    if (from >= l) {
        out[0] = 0;
        return;
    }
    size_t n = (to > l ? l : to) - from;
    char buf[256];
    if (n >= sizeof buf)
        n = sizeof buf - 1;
    memcpy(buf, row + from, n);
    buf[n] = 0;
    snprintf(out, olen, "%s", trim(buf));
}

int team_table(const char *text, size_t len, const char *const *want, size_t nw,
               void (*fn)(void *ctx, char cells[][128]), void *ctx)
{
    char line[1024], names[16][32], cells[4][128];
    size_t at = 0, start[16], ncol = 0, idx[4];
    int have = 0;
    while (next_line(text, len, &at, line, sizeof line)) {
        if (!have) {
            ncol = columns(line, start, names, 16);
            size_t found = 0;
            for (size_t w = 0; w < nw; w++)
                for (size_t c = 0; c < ncol; c++)
                    if (strcasecmp(names[c], want[w]) == 0) {
                        idx[w] = c;
                        found++;
                        break;
                    }
            have = found == nw;
            continue;
        }
        if (line[0] == '-' || !*trim(line))
            continue;
        for (size_t w = 0; w < nw; w++)
            cell(line, start[idx[w]], idx[w] + 1 < ncol ? start[idx[w] + 1] : (size_t)-1, cells[w],
                 sizeof cells[w]);
        fn(ctx, cells);
    }
    return have ? 0 : -1;
}

static void nic_row(void *ctx, char cells[][128])
{
    struct team_uplink *u = team_find(ctx, cells[0]);
    if (u)
        u->nic_mtu = mtu_of(cells[1]);
}

int team_parse_nics(const char *text, size_t len, struct team *t)
{
    static const char *const want[] = { "Name", "MTU" };
    return team_table(text, len, want, 2, nic_row, t);
}

static void pg_row(void *ctx, char cells[][128])
{
    struct team *t = ctx;
    char *end;
    long v = strtol(cells[2], &end, 10);
    if (strcmp(cells[0], t->portgroup) == 0 && strcmp(cells[1], t->vswitch) == 0 && end != cells[2] &&
        !*end && v >= 0 && v <= 4095)
        t->vlan = (int)v;
}

int team_parse_portgroups(const char *text, size_t len, struct team *t)
{
    static const char *const want[] = { "Name", "Virtual Switch", "VLAN ID" };
    t->vlan = -1;
    if (team_table(text, len, want, 3, pg_row, t) != 0)
        return -1;
    return t->vlan >= 0 ? 0 : -1;
}

int team_parse_uplink(const char *text, size_t len, char *out, size_t olen)
{
    char line[256];
    size_t at = 0;
    while (next_line(text, len, &at, line, sizeof line)) {
        char *v = trim(line);
        if (!*v)
            continue;
        size_t l = strlen(v);
        if (l >= olen || l >= TEAM_NAME)
            return -1;
        for (size_t i = 0; i < l; i++)
            if (!isalnum((unsigned char)v[i]) && v[i] != '_' && v[i] != '-' && v[i] != '.')
                return -1;
        memcpy(out, v, l + 1);
        return 0;
    }
    return -1;
}

/* `key = "value",` or `key = 1500,`: the value (quotes and comma dropped), or NULL */
static char *vmodl_field(char *line, const char *key)
{
    char *p = trim(line);
    size_t k = strlen(key);
    if (strncmp(p, key, k) != 0)
        return NULL;
    p = trim(p + k);
    if (*p != '=')
        return NULL;
    p = trim(p + 1);
    size_t l = strlen(p);
    if (l && p[l - 1] == ',')
        p[--l] = 0;
    p = trim(p);
    l = strlen(p);
    if (l >= 2 && p[0] == '"' && p[l - 1] == '"') {
        p[l - 1] = 0;
        p++;
    }
    return p;
}

/* braces opened minus closed on a line, outside quotes */
static int depth_change(const char *s)
{
    int d = 0, q = 0;
    for (; *s; s++) {
        if (*s == '"')
            q = !q;
        else if (!q && *s == '{')
            d++;
        else if (!q && *s == '}')
            d--;
    }
    return d;
}

int team_parse_cdp(const char *text, size_t len, struct team_uplink *u)
{
    char line[512], copy[512], *v;
    size_t at = 0;
    int dev = 0, depth = 0, cdp_depth = -1;
    u->cdp = 0;
    u->sw[0] = u->port[0] = 0;
    u->sw_mtu = 0;
    while (next_line(text, len, &at, line, sizeof line)) {
        int d = depth_change(line);
        put(copy, sizeof copy, line);
        if (cdp_depth < 0 && (v = vmodl_field(copy, "device")))
            dev = strcmp(v, u->name) == 0;
        put(copy, sizeof copy, line);
        if (dev && cdp_depth < 0 && (v = vmodl_field(copy, "connectedSwitchPort")) && d > 0)
            cdp_depth = depth + 1;
        else if (dev && cdp_depth == depth) {
            if ((v = vmodl_field(copy, "devId")) && name_ok(v))
                put(u->sw, sizeof u->sw, v);
            else if ((v = vmodl_field(copy, "portId")) && name_ok(v))
                put(u->port, sizeof u->port, v);
            else if ((v = vmodl_field(copy, "mtu")))
                u->sw_mtu = mtu_of(v);
        }
        depth += d;
        if (cdp_depth >= 0 && depth < cdp_depth)
            cdp_depth = -1;
    }
    u->cdp = u->sw_mtu != 0;
    return u->cdp ? 0 : -1;
}

struct team_uplink *team_find(struct team *t, const char *name)
{
    for (size_t i = 0; i < t->n; i++)
        if (strcmp(t->up[i].name, name) == 0)
            return &t->up[i];
    return NULL;
}

/* "switch01 Gi1/0/2 at MTU 1500" or "its own MTU 1500" */
static void where(const struct team_uplink *u, int nic, char *buf, size_t len)
{
    if (nic)
        snprintf(buf, len, "%s's own MTU is %u", u->name, u->nic_mtu);
    else
        snprintf(buf, len, "%s %s at MTU %u", u->sw[0] ? u->sw : "its switch", u->port[0] ? u->port : "port",
                 u->sw_mtu);
}

/* the first active uplink other than u (the one failback returns to), or NULL */
static const struct team_uplink *first_active(const struct team *t, const struct team_uplink *u)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->up[i].role == UR_ACTIVE && &t->up[i] != u)
            return &t->up[i];
    return NULL;
}

/* when a bad uplink u bites (head), and failback's part in it (tail, "" for none) */
static void when(const struct team *t, const struct team_uplink *u, char *head, size_t hlen, char *tail,
                 size_t tlen)
{
    int now = t->current[0] && strcmp(t->current, u->name) == 0;
    const struct team_uplink *a = first_active(t, u);
    const char *back = a ? a->name : "the active uplink";
    tail[0] = 0;
    if (now) {
        snprintf(head, hlen, "jumbo frames fail now: %s leaves by %s", t->vmk, u->name);
    } else if (u->role == UR_UNUSED) {
        snprintf(head, hlen, "jumbo frames would fail if %s were made active", u->name);
        snprintf(tail, tlen, "; unused today");
    } else if (u->role == UR_STANDBY) {
        snprintf(head, hlen, "jumbo frames fail after a failover to %s", u->name);
        if (t->failback == 1)
            snprintf(tail, tlen, "; standby, Failback on: traffic returns to %s once its link is back", back);
        else if (t->failback == 0)
            snprintf(tail, tlen, "; standby, Failback off: traffic stays there even after %s is back", back);
        else
            snprintf(tail, tlen, "; standby");
    } else {
        snprintf(head, hlen, "jumbo frames fail after a failover to %s", u->name);
        if (t->failback == 1 && t->current[0])
            snprintf(tail, tlen, "; active, not used now, and Failback on pulls traffic back onto it as soon "
                     "as its link is up, wrong path or not (Broadcom KB 438509)");
        else
            snprintf(tail, tlen, "; active%s", a ? "" : ", the only one");
    }
}

size_t team_findings(const struct team *t, char out[][TEAM_FINDING_LEN], size_t max)
{
    size_t k = 0;
    if (!t->vmk_mtu)
        return 0;
    for (size_t i = 0; i < t->n && k < max; i++) {
        const struct team_uplink *u = &t->up[i];
        int nic = u->nic_mtu && u->nic_mtu < t->vmk_mtu;
        int sw = u->sw_mtu && u->sw_mtu < t->vmk_mtu;
        if (!nic && !sw)
            continue;
        char w[160], w2[160] = "", head[120], tail[240];
        where(u, nic, w, sizeof w);
        if (nic && sw)
            where(u, 0, w2, sizeof w2);
        when(t, u, head, sizeof head, tail, sizeof tail);
        snprintf(out[k++], TEAM_FINDING_LEN, "%s (%s%s%s, below %s's %u)%s", head, w, w2[0] ? "; " : "", w2,
                 t->vmk, t->vmk_mtu, tail);
    }
    return k;
}
