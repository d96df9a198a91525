/* The team behind a vmk: which uplinks its traffic may leave by, which one it leaves
 * by now, and what each uplink's NIC and switch port allow; then the finding rule.
 *
 * A check through vmkN proves the path of the one uplink the team picks today: no ping
 * on ESXi selects a vmnic (vmkping -I and esxcli network diag ping --interface take a
 * vmk). A standby uplink whose switch port is smaller passes every check until the
 * active one fails, and with Failback on, traffic is pulled back onto a recovered NIC
 * whose path may be the wrong one (Broadcom KB 438509). So the team is read, never
 * guessed, from the host's own tools:
 *   esxcli network ip interface list        the vmk's Portset, Portgroup, Netstack
 *                                           Instance, VDS Name, MTU, Port ID
 *   esxcli network vswitch standard portgroup policy failover get -p PG
 *                                           Load Balancing, Failback, Active / Standby /
 *                                           Unused Adapters
 *   esxcli network vswitch standard portgroup list   each portgroup's VLAN ID
 *   esxcli network nic list                 each vmnic's host-side MTU
 *   vsish -e get /net/portsets/PS/ports/ID/teamUplink (else schedTeamUplink)
 *                                           the uplink used now: a vmnic name alone
 *   vim-cmd hostsvc/net/query_networkhint --pnic-name=vmnicX
 *                                           CDP's connectedSwitchPort: devId, portId, mtu
 * Every parser here is pure (unit-tested over recorded answers); team_read.c runs the
 * commands. */
#ifndef ESXMTU_TEAM_H
#define ESXMTU_TEAM_H
#include <stddef.h>
#include <stdint.h>

#define TEAM_UPLINKS_MAX 16
#define TEAM_NAME 64                  /* names (vmk, vSwitch, portgroup, vmnic, switch port) */
#define TEAM_FINDINGS_MAX (TEAM_UPLINKS_MAX + 1)
#define TEAM_FINDING_LEN 800

enum uplink_role { UR_ACTIVE = 0, UR_STANDBY, UR_UNUSED };

struct team_uplink {
    char name[TEAM_NAME];
    enum uplink_role role;
    unsigned order;                   /* 1-based place in its list (the failover order) */
    uint32_t nic_mtu;                 /* esxcli network nic list; 0 unknown */
    int cdp;                          /* 1: the switch announced itself over CDP */
    char sw[TEAM_NAME], port[TEAM_NAME];
    uint32_t sw_mtu;                  /* the switch port's MTU (CDP); 0 unknown */
};

struct team {
    char vmk[TEAM_NAME];
    /* esxcli network ip interface list */
    int have_vmk;
    char vswitch[TEAM_NAME], portgroup[TEAM_NAME], netstack[TEAM_NAME], vds[TEAM_NAME];
    char port_id[24];
    uint32_t vmk_mtu;
    /* the portgroup's failover policy */
    int have_policy;
    char lb[24];                      /* Load Balancing: srcport, mac, iphash, explicit... */
    int failback;                     /* 1 yes, 0 no, -1 unknown */
    int vlan;                         /* the portgroup's VLAN ID, -1 unknown */
    size_t n;
    struct team_uplink up[TEAM_UPLINKS_MAX];
    /* the uplink used now ("" unknown), and the vsish node that said so */
    char current[TEAM_NAME];
    char current_from[24];
    char note[400];                   /* what could not be read, "; " between */
};

/* "active", "standby", "unused" */
const char *team_role_name(enum uplink_role r);

/* the block of vmk in `esxcli network ip interface list`: 0, or -1 when not there */
int team_parse_vmk(const char *text, size_t len, const char *vmk, struct team *t);
/* `... portgroup policy failover get`: load balancing, failback and the three lists
 * (each uplink once; at most TEAM_UPLINKS_MAX): 0, or -1 when no list was read */
int team_parse_failover(const char *text, size_t len, struct team *t);
/* `... portgroup list` (columns Name, Virtual Switch, Active Clients, VLAN ID): the
 * VLAN of t->portgroup on t->vswitch into t->vlan; 0, or -1 when not found */
int team_parse_portgroups(const char *text, size_t len, struct team *t);
/* `esxcli network nic list`: each uplink's MTU column (by the header's position);
 * 0, or -1 when no header with Name and MTU was read */
int team_parse_nics(const char *text, size_t len, struct team *t);
/* vsish's answer for teamUplink: one name alone on its line (a vmnic name, letters,
 * digits, _ - .); 0 with the name in out, -1 for anything else */
int team_parse_uplink(const char *text, size_t len, char *out, size_t olen);
/* vim-cmd's query_networkhint dump: the CDP block of device `u->name` (devId,
 * portId, mtu) into u; 0 when a CDP block with an MTU was read, -1 otherwise */
int team_parse_cdp(const char *text, size_t len, struct team_uplink *u);
/* a table as esxcli prints one (a header, dashes, rows; columns two spaces apart or
 * more): fn for each row with the cells of the columns named want[0..nw) (at most 4;
 * "" where a row is short); -1 when no header holds them all */
int team_table(const char *text, size_t len, const char *const *want, size_t nw,
               void (*fn)(void *ctx, char cells[][128]), void *ctx);
/* each vmk block of `esxcli network ip interface list`: fn with its Name and Portgroup */
void team_each_vmk(const char *text, size_t len, void (*fn)(void *ctx, const char *vmk, const char *pg),
                   void *ctx);
/* the uplink named `name` in t, NULL when not in the team */
struct team_uplink *team_find(struct team *t, const char *name);

/* The finding rule: one line for each uplink whose NIC or switch port is below the
 * vmk's MTU, said as when it bites (now, after a failover, when failback pulls traffic
 * back, if made active) and with the numbers that show it. Returns how many lines
 * were written into out (at most max). Pure. */
size_t team_findings(const struct team *t, char out[][TEAM_FINDING_LEN], size_t max);

#endif
