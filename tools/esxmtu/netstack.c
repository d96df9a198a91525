/* The run's netstack and how it is reached (see netstack.h): -S, the launch word,
 * esxcli's view of the vmknic, the re-exec, the check that the address can be used. */
#include "netstack.h"
#include "esxcli_ping.h"
#include "check.h"
#include "clock.h"
#include "fail.h"
#include "net.h"
#include "options.h"
#include "escape.h"
#include "peers.h"
#include "stop.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ESXCLI_LIST_SECONDS 60.0     /* esxcli is slow to start on a busy host */

static const char *const method_names[] = { "current", "launch-word", "esxcli" };

const char *netstack_method_name(enum ns_method m)
{
    return (unsigned)m < sizeof method_names / sizeof method_names[0] ? method_names[m] : "?";
}

void netstack_note(struct netstack *ns, int argc, char **argv)
{
    /* a copy: args_strip_vmk writes argv[0] over the last ++ word of the vector */
    ns->argc = argc;
    ns->argv = xcalloc((size_t)argc + 1, sizeof *ns->argv);
    memcpy(ns->argv, argv, (size_t)argc * sizeof *argv);
    const char *other;
    ns->word = netstack_word(argc, argv, &other);
    if (other)
        die_usage("++netstack=%s and ++netstack=%s: two netstacks named; give one", ns->word, other);
}

/* ask esxcli which netstack -I's vmknic is on: 0, or -1 with why when esxcli failed or
 * named a netstack this tool cannot use (too long, or characters no netstack name
 * has: taken from esxcli, it is esxcli's answer that is wrong); a vmk it does not
 * list is a usage error at once */
static int vmk_netstack(struct netstack *ns, const char *iface, char *stack, size_t slen, char *why, size_t wlen)
{
    const char *argv[] = { ns->esxcli, "network", "ip", "interface", "list", NULL };
    char *out, run[200], have[400], got[128], shown[4 * sizeof got];
    size_t len;
    int code = ecp_capture(argv, ESXCLI_LIST_SECONDS, &out, &len, run, sizeof run);
    if (stop_requested())
        die(EXIT_CHECK, "interrupted (%s) while esxcli listed the vmknics: nothing was probed",
            signal_name(stop_requested()));
    if (code != 0) {
        free(out);
        return why_fmt(why, wlen, "%s network ip interface list %s%s", ns->esxcli,
                       code < 0 ? "failed: " : "exited non-zero", code < 0 ? run : "");
    }
    int rc = netstack_of_vmk(out, len, iface, got, sizeof got, have, sizeof have);
    free(out);
    if (rc != 0)
        die_usage("-I %s: no such vmknic on this host (esxcli network ip interface list has: %s)", iface, have);
    if (!netstack_name_ok(got)) {
        esc_text(got, shown, sizeof shown);
        return why_fmt(why, wlen, "esxcli network ip interface list puts it on netstack '%s', which is no "
                       "netstack name (letters, digits, _ - . ; at most %d): an answer this tool cannot use",
                       shown, NETSTACK_NAME_MAX - 1);
    }
    memcpy(stack, got, strlen(got) + 1 < slen ? strlen(got) + 1 : slen);   /* name_ok: it fits */
    return 0;
}

/* can this process use the -B address or the -I interface's address? 1 yes, 0 no (note says why) */
static int usable_here(struct netstack *ns, const struct mtu_opts *o)
{
    char why[300];
    if (o->src) {
        union sockaddr_any a;
        if (peers_resolve(o->src, o->family, "-B", &a, why, sizeof why) != 0)
            die(EXIT_USAGE, "%s", why);
        if (netstack_bind_test(&a) == 0) {
            snprintf(ns->note, sizeof ns->note, "-B %s can be bound here", o->src);
            return 1;
        }
        snprintf(ns->note, sizeof ns->note, "-B %s cannot be bound here: %s", o->src, errtext(errno));
        return 0;
    }
    return netstack_iface_usable(o->po.iface, o->family, ns->note, sizeof ns->note);
}

void netstack_settle(struct mtu_opts *o)
{
    struct netstack *ns = &o->ns;
    const char *guard = netstack_guard(), *first_from = netstack_guard_from();
    int reexeced = guard != NULL || ns->word != NULL;
    /* re-executed by ourselves: the word is ours, the name and its source the first run's */
    int ours = guard && (!ns->word || strcmp(guard, ns->word) == 0) && first_from;
    if (ns->want && !netstack_name_ok(ns->want))
        die_usage("-S '%s': not a netstack name (letters, digits, _ - . ; at most %d)", ns->want,
                  NETSTACK_NAME_MAX - 1);
    if (ns->word && !netstack_name_ok(ns->word))
        die_usage("++netstack=%s: not a netstack name", ns->word);
    if (ns->want && ns->word && strcmp(ns->want, ns->word) != 0)
        die_usage("-S %s contradicts the launch word ++netstack=%s: give one", ns->want, ns->word);
    const char *name = ns->want ? ns->want : ns->word ? ns->word : guard;
    if (name && !netstack_name_ok(name))
        name = NULL;
    if (name)
        snprintf(ns->from, sizeof ns->from, "%s", ns->want ? "-S" : "++netstack= launch word");
    if (ours && name)
        snprintf(ns->from, sizeof ns->from, "%s", first_from);
    const char *iface = o->po.iface;
    if (ours && name) {
        (void)netstack_find_esxcli(ns->esxcli, sizeof ns->esxcli);   /* the first run checked the vmk */
    } else if (netstack_is_vmk(iface) && netstack_find_esxcli(ns->esxcli, sizeof ns->esxcli) == 0) {
        char stack[NETSTACK_NAME_MAX], why[400];
        if (vmk_netstack(ns, iface, stack, sizeof stack, why, sizeof why) != 0) {
            if (!name)
                die(EXIT_USAGE, "-I %s: %s (give the netstack with -S NAME)", iface, why);
            /* the netstack given is what counts: esxcli's view was only a check of it */
            warnmsg("-I %s: %s: going on with netstack %s (%s)", iface, why, name, ns->from);
        } else if (name && strcmp(name, stack) != 0)
            die_usage("-I %s is on netstack %s (esxcli network ip interface list), not %s: give -S %s or "
                      "another vmknic", iface, stack, name, stack);
        if (!name) {
            name = stack;
            snprintf(ns->from, sizeof ns->from, "esxcli: %s is on it", iface);
        }
    }
    if (!name)
        return;                    /* nothing named: this process's netstack, as always */
    snprintf(ns->name, sizeof ns->name, "%s", name);
    if (strcmp(ns->name, NETSTACK_DEFAULT) == 0) {
        snprintf(ns->note, sizeof ns->note, "this process's own netstack");
        return;
    }
    if (!o->src && !iface)
        die_usage("-S %s needs -I vmkN or -B SRCADDR (the interface or address that shows the netstack "
                  "was entered)", ns->name);
    char why[200] = "";
    if (!reexeced)
        netstack_reexec(ns->argc, ns->argv, ns->name, ns->from, why, sizeof why);   /* returns only when it cannot */
    netstack_guard_clear();              /* not for the esxcli this run may start */
    if (usable_here(ns, o)) {
        /* a re-exec that could not be made left this process where it was: the address
         * is usable here, but nothing was entered */
        ns->method = why[0] ? NSM_CURRENT : NSM_WORD;
        if (why[0]) {
            size_t l = strlen(ns->note);
            snprintf(ns->note + l, sizeof ns->note - l, "; not re-executed: %s", why);
        }
        return;
    }
    if (why[0]) {
        size_t l = strlen(ns->note);
        snprintf(ns->note + l, sizeof ns->note - l, "; %s", why);
    }
    if (!ns->esxcli[0] && netstack_find_esxcli(ns->esxcli, sizeof ns->esxcli) != 0)
        die(EXIT_USAGE, "netstack %s: not entered (%s), and no esxcli on PATH, /bin or /sbin to probe "
            "through (run esxmtu in that netstack, or use a vmk of the default one with -B)", ns->name, ns->note);
    if (o->trace)
        die_usage("netstack %s: not entered (%s): through esxcli --trace cannot run (no TTL answers "
                  "in its output)", ns->name, ns->note);
    if (o->po.method != METHOD_AUTO)
        warnmsg("--method %s does nothing through esxcli (its ping picks its own socket)",
                probe_method_name(o->po.method));
    ns->method = NSM_ESXCLI;
}

void netstack_esxcli_ask(const struct mtu_opts *o, struct ecp_ask *a)
{
    *a = (struct ecp_ask){ o->ns.esxcli, o->ns.name, o->po.iface, o->chk.count,
                           (unsigned)((o->chk.timeout_ns + NS_PER_SEC - 1) / NS_PER_SEC), o->interval,
                           o->po.ttl };
}

void netstack_esxcli_check(const struct mtu_opts *o, struct peer *peers)
{
    char why[400];
    struct ecp_ask a;
    netstack_esxcli_ask(o, &a);
    /* a stop signal (1) ends the calls at once: main reports what came back */
    if (ecp_check(peers, o->peers.n, &a, why, sizeof why) < 0)
        die(EXIT_USAGE, "netstack %s: %s", o->ns.name, why);
}
