/* Which ESXi netstack (TCP/IP stack) a run probes in, and how it gets there.
 *
 * A vMotion vmk often lives on the `vmotion` netstack; a process started from the
 * ESXi shell runs in the default one (defaultTcpipStack), where that vmk has no
 * address. The netstack of a run comes from -S NAME, else from a leading
 * `++netstack=NAME` launch word, else, for -I vmkN, from `esxcli network ip interface
 * list` (its "Netstack Instance"). Then, in order:
 *   current      the default netstack (or none named): probe here, as always;
 *   launch-word  re-execute this program once with `++netstack=NAME` as its first
 *                argument word (the VMkernel's launch convention, as vmkping
 *                ++netstack=vxlan in VMware's NSX docs; whether it is honoured for a
 *                copied binary is not documented: "where the host supports it"). A run
 *                that already carries the word never re-executes again. Then check that
 *                the -B address or the -I interface's address can be bound here: if so,
 *                probe here;
 *   esxcli       if not (Linux ignores the word, and so may a host), run the check
 *                through `esxcli network diag ping --netstack NAME` (esxcli_ping.h).
 * esxcli is looked for on PATH first (so a stand-in can take its place), then /bin and
 * /sbin. Every refusal is one line and exit 2. */
#ifndef ESXMTU_NETSTACK_H
#define ESXMTU_NETSTACK_H
#include <stddef.h>
#include <limits.h>

#define NETSTACK_DEFAULT "defaultTcpipStack"
#define NETSTACK_NAME_MAX 64
#define NETSTACK_VMKS_MAX 64          /* vmknics read from esxcli at most */

enum ns_method { NSM_CURRENT = 0, NSM_WORD, NSM_ESXCLI };

struct netstack {
    /* as started (netstack_note), for the re-exec and the launch word */
    int argc;
    char **argv;
    const char *word;                 /* NAME of a leading ++netstack=NAME, or NULL */
    const char *want;                 /* -S */
    /* settled (netstack_settle) */
    char name[NETSTACK_NAME_MAX];     /* "" when no netstack was named */
    char from[96];                    /* "-S", "esxcli: vmk1 is on it", "++netstack= launch word" */
    enum ns_method method;
    char note[240];                   /* what the check saw (why the word did or did not do) */
    char esxcli[PATH_MAX];            /* the esxcli found ("" none) */
};

/* keep the command line as started (before the ++ words are stripped) */
void netstack_note(struct netstack *ns, int argc, char **argv);

/* "/path/to/esxcli" found on PATH, then /bin, /sbin, into out; 0 or -1 */
int netstack_find_esxcli(char *out, size_t len);

/* The vmknic `iface` in esxcli's `network ip interface list` output: its netstack
 * into stack. Returns 0; -1 when it is not there, with the vmks that are in `have`
 * ("vmk0, vmk1"; "none" when no block was read). Pure (unit-tested). */
int netstack_of_vmk(const char *text, size_t len, const char *iface, char *stack, size_t slen,
                    char *have, size_t hlen);

/* 1 when `iface` looks like an ESXi vmknic name (vmk0..vmk9999) */
int netstack_is_vmk(const char *iface);

struct mtu_opts;
/* Decide the run's netstack and method (may re-execute the program: does not return
 * then). Exits 2 with one line on a refusal. */
void netstack_settle(struct mtu_opts *o);

struct peer;
/* method esxcli: the check (and --discover) for every peer through esxcli's ping
 * (esxcli_ping.h), verdicts set; exits 2 with one line when esxcli fails */
void netstack_esxcli_check(const struct mtu_opts *o, struct peer *peers);

const char *netstack_method_name(enum ns_method m);   /* "current", "launch-word", "esxcli" */

#endif
