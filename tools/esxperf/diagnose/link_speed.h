/* The speed of the link a data socket leaves by, for the verdict's "% of link":
 * ESXPERF_LINK_MBPS when set (a test hook, and a way for a user to state a speed the
 * host cannot tell); an interface named vmkN (a VMkernel NIC: it has no speed of its
 * own) through esxcli: its portset in `network ip interface list`, that standard
 * vSwitch's uplinks in `network vswitch standard list`, their Speed (Mb/s) in
 * `network nic list` (the fastest uplink that is up), its TSO in `network nic tso
 * get` and the host's /Net/UseHwTSO and /Net/TcpipDefLROEnabled (`system settings
 * advanced list -o`); any other interface from /sys/class/net/IF/speed, which is
 * nominal (no bound: `nominal`, and the note says so) unless a physical NIC stands
 * behind it: a device whose driver is not a virtual one (veth, tun, bridges and
 * bonds have no device; vmxnet3, virtio_net, hv_netvsc are a VM's), looked for down
 * the lower devices of a VLAN, macvlan or bond. esxcli runs through
 * common/runcmd.c, each call bounded by LINK_ESXCLI_S; once one is late (killed at
 * its bound) no other is made, so a wedged hostd costs LINK_ESXCLI_S once. Where none answers (loopback,
 * a virtual link without a speed, no esxcli, a sick esxcli) the speed is unknown
 * (-1), never guessed. */
#ifndef ESXPERF_LINK_SPEED_H
#define ESXPERF_LINK_SPEED_H
#include <stddef.h>

#define LINK_ESXCLI_S 5.0
#define LINK_STACK_MAX 4          /* stacked devices followed down (VLAN on a bond ...) */

struct link_info {
    char iface[32];           /* the interface the socket's address is on, "" unknown */
    char uplink[32];          /* vmkN: the uplink whose speed it is */
    char tso[16];             /* vmkN: that uplink's TSO ("on", "off"), "" unknown */
    int hw_tso, lro;          /* vmkN: /Net/UseHwTSO, /Net/TcpipDefLROEnabled; -1 unknown */
    double mbps;              /* -1 unknown */
    int nominal;              /* 1: mbps is a virtual device's, no bound */
    const char *via;          /* "ESXPERF_LINK_MBPS", "sysfs", "esxcli", "none" */
    char note[160];           /* why unknown, when it is */
    int esxcli_late;          /* an esxcli call was killed at its bound: no more calls */
};

void link_speed_of(int fd, struct link_info *li);

/* esxcli's layouts (pure, unit-tested): the value of "Key: value" in the block that
 * starts with a line holding only `block` ("" when absent); the Speed of `nic` in a
 * `network nic list` table, -1 absent or down; the Value of `nic` in `nic tso get` */
void esxcli_block_value(const char *text, const char *block, const char *key, char *out, size_t len);
double esxcli_nic_speed(const char *text, const char *nic);
void esxcli_nic_tso(const char *text, const char *nic, char *out, size_t len);

#endif
