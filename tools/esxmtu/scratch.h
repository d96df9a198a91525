/* --each-uplink's scratch objects, as pure functions: their names, the esxcli calls
 * that make and remove them, the test address's checks, and what a host's listing
 * holds of them (leftovers).
 *
 * For each uplink U of a vmk's team (a standard vSwitch VS, the vmk's portgroup on
 * VLAN V, netstack NS, MTU M), in turn:
 *   esxcli network vswitch standard portgroup add -p esxmtu-scratch-U -v VS
 *   esxcli network vswitch standard portgroup set -p esxmtu-scratch-U --vlan-id V
 *   esxcli network vswitch standard portgroup policy failover set -p esxmtu-scratch-U
 *          --active-uplinks U --load-balancing explicit   (every other uplink unused)
 *   esxcli network ip interface add -i vmkS -p esxmtu-scratch-U -m M -N NS
 *   esxcli network ip interface ipv4 set -i vmkS -I TESTADDR -N MASK -t static
 * then the probes through vmkS, then
 *   esxcli network ip interface remove -i vmkS
 *   esxcli network vswitch standard portgroup remove -p esxmtu-scratch-U -v VS
 * Everything made carries the fixed prefix (the vmk by the portgroup it is on), so a
 * listing tells what is scratch whatever happened to the run that made it. */
#ifndef ESXMTU_SCRATCH_H
#define ESXMTU_SCRATCH_H
#include <stddef.h>
#include <stdint.h>
#include <netinet/in.h>

#define SCRATCH_PREFIX "esxmtu-scratch-"
#define SCRATCH_ARGS 20
#define SCRATCH_LEFT_MAX 32

enum scratch_step {
    SS_PG_ADD = 0, SS_PG_VLAN, SS_PG_FAILOVER, SS_IF_ADD, SS_IF_IPV4, SS_MAKE_STEPS,
};

struct scratch_ctx {
    const char *esxcli, *vswitch, *uplink, *netstack, *vmk;   /* vmk: the scratch vmk */
    int vlan;
    uint32_t mtu;
    char pg[80];                      /* SCRATCH_PREFIX + uplink */
    char addr[INET_ADDRSTRLEN], mask[INET_ADDRSTRLEN];
};

struct scratch_argv {
    const char *argv[SCRATCH_ARGS];
    char num[2][16];
};

/* "portgroup add", "VLAN", "failover policy", "vmk add", "vmk address": the step's name */
const char *scratch_step_name(enum scratch_step s);
/* the esxcli call of a making step into a (pointing into c and a) */
void scratch_make_argv(enum scratch_step s, const struct scratch_ctx *c, struct scratch_argv *a);
/* the portgroup's name for uplink: SCRATCH_PREFIX + uplink */
void scratch_pg_name(const char *uplink, char *out, size_t len);

/* --test-ip ADDR/PREFIX (IPv4): 0, or -1 with why */
int scratch_parse_test_ip(const char *s, struct in_addr *a, int *prefix, char *why, size_t len);
/* `esxcli network ip interface ipv4 get` (columns Name, IPv4 Address, IPv4 Netmask):
 * vmk's address and netmask (the mask's length in *prefix); 0, or -1 when not there */
int scratch_parse_ipv4(const char *text, size_t len, const char *vmk, struct in_addr *addr, int *prefix);
/* every address in that table's IPv4 Address column equal to a: 1 when one is there */
int scratch_addr_taken(const char *text, size_t len, struct in_addr a, char *who, size_t wlen);
/* the test address inside the vmk's subnet, same prefix, neither the subnet's network
 * nor its broadcast address nor the vmk's own: 0, or -1 with why */
int scratch_subnet_ok(struct in_addr test, int prefix, struct in_addr vmk, int vprefix, const char *vmkname,
                      char *why, size_t len);
/* the lowest free vmk name from vmk90 on (not among the Name: lines of `interface
 * list`) into out: 0, or -1 when none is free below vmk9999 */
int scratch_free_vmk(const char *iflist, size_t len, char *out, size_t olen);

struct scratch_left {
    size_t nvmk, npg;
    char vmk[SCRATCH_LEFT_MAX][32];
    char pg[SCRATCH_LEFT_MAX][80], pg_vs[SCRATCH_LEFT_MAX][64];
};
/* the scratch objects a host holds: the vmks on a portgroup with the prefix (from
 * `interface list`) and those portgroups with their vSwitch (from `portgroup list`);
 * either text may be NULL. Returns how many in all. */
size_t scratch_leftovers(const char *iflist, size_t ilen, const char *pglist, size_t plen, struct scratch_left *l);
/* "vmk90, esxmtu-scratch-vmnic1 (vSwitch1)" */
void scratch_left_text(const struct scratch_left *l, char *out, size_t len);

#endif
