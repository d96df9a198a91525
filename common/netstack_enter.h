/* The parts of entering an ESXi netstack (TCP/IP stack) that esxmtu and esxperf share.
 *
 * A vmknic such as the vMotion one may live on its own netstack (`vmotion`), while a
 * process started from the ESXi shell runs in the default one (defaultTcpipStack),
 * where that vmk has no address. A tool enters netstack NAME by re-executing itself
 * once with `++netstack=NAME` as its first argument word (the VMkernel's launch
 * convention, as `vmkping ++netstack=vxlan` in VMware's NSX docs; whether a host
 * honours it for a copied binary is not documented). The re-executed run carries
 * <TOOL>_NETSTACK_REEXEC=PID:NAME in its environment (TOOL: tool_name in upper case;
 * PID its own, which exec keeps, so that a mark it did not set is not believed) and
 * never re-executes again, even on a host that takes the word out of argv; it then
 * checks that the address it is to use can be bound: that is the only proof that the
 * netstack was entered (Linux ignores the word).
 * esxcli is looked for on PATH first (so a stand-in can take its place), then /bin and
 * /sbin. Pure parts (names, esxcli's interface list) are unit-tested. */
#ifndef ESXDIAG_NETSTACK_ENTER_H
#define ESXDIAG_NETSTACK_ENTER_H
#include <stddef.h>
#include "net.h"

#define NETSTACK_DEFAULT "defaultTcpipStack"
#define NETSTACK_NAME_MAX 64
#define NETSTACK_VMKS_MAX 64          /* vmknics read from esxcli at most */
#define NETSTACK_WORD "++netstack="

/* NAME of a leading ++netstack=NAME word among the leading ++ words, or NULL; *other
 * a later word naming another netstack (NULL when every one names the same) */
const char *netstack_word(int argc, char **argv, const char **other);

/* 1 when s can name a netstack: letters, digits, _ - . ; 1..NETSTACK_NAME_MAX-1 */
int netstack_name_ok(const char *s);

/* 1 when `iface` looks like an ESXi vmknic name (vmk0..vmk9999) */
int netstack_is_vmk(const char *iface);

/* "/path/to/esxcli" (a regular executable file) found on PATH, then /bin, /sbin,
 * into out; 0 or -1 */
int netstack_find_esxcli(char *out, size_t len);

/* The vmknic `iface` in esxcli's `network ip interface list` output: its netstack
 * into stack. Returns 0; -1 when it is not there, with the vmks that are in `have`
 * ("vmk0, vmk1"; "none" when no block was read). Pure (unit-tested). */
int netstack_of_vmk(const char *text, size_t len, const char *iface, char *stack, size_t slen,
                    char *have, size_t hlen);

/* The guard of the re-executed run: the netstack name the first run re-executed
 * for (NULL in a first run, and where the mark is not this process's own: it is then
 * dropped from the environment), and where the first run found that name (NULL). */
const char *netstack_guard(void);
const char *netstack_guard_from(void);
/* drop the guard from the environment (not for the programs this run starts) */
void netstack_guard_clear(void);

/* Run this program again with ++netstack=NAME before argv[1..] (argv as started),
 * the guard set to NAME and FROM. Returns only when it cannot, with why. */
void netstack_reexec(int argc, char **argv, const char *name, const char *from, char *why, size_t len);

/* one UDP socket bound to a (port 0): 0, or -1 with errno */
int netstack_bind_test(const union sockaddr_any *a);

/* Can this process bind an address of interface `iface` (family AF_UNSPEC, AF_INET
 * or AF_INET6; link-local IPv6 skipped)? 1 yes, 0 no; note says what was seen
 * ("vmk1's address 198.18.3.1 can be bound here", "vmk1 does not exist in this
 * process's netstack", ...). */
int netstack_iface_usable(const char *iface, int family, char *note, size_t len);

#endif
