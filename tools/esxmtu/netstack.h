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
#include "netstack_enter.h"           /* the word, the re-exec, esxcli's list, the bind check */

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

/* keep (a copy of) the command line as started, before the ++ words are stripped */
void netstack_note(struct netstack *ns, int argc, char **argv);

struct mtu_opts;
/* Decide the run's netstack and method (may re-execute the program: does not return
 * then). Exits 2 with one line on a refusal. */
void netstack_settle(struct mtu_opts *o);

struct peer;
/* method esxcli: the check for every peer through esxcli's ping (esxcli_ping.h), its
 * evidence collected; exits 2 with one line when esxcli fails */
void netstack_esxcli_check(const struct mtu_opts *o, struct peer *peers);
struct ecp_ask;
/* what every esxcli ping call of the run asks (the check's and --discover's) */
void netstack_esxcli_ask(const struct mtu_opts *o, struct ecp_ask *a);

const char *netstack_method_name(enum ns_method m);   /* "current", "launch-word", "esxcli" */

#endif
