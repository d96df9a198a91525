/* esxperf's netstack (see perf_netstack.h): the name, the re-exec, the bind check, and
 * the one line when it cannot be entered. */
#include "perf_netstack.h"
#include "fail.h"
#include "jsonw.h"
#include "net.h"
#include "options.h"

#include <errno.h>
#include <string.h>

static struct perf_netstack ns = { "", "", "current", "this process's own netstack (none named)" };

const struct perf_netstack *perf_netstack(void)
{
    return &ns;
}

/* can this process use -B's address, else --bind-dev's? 1 yes, 0 no (ns.note says) */
static int usable_here(const struct perf_opts *o)
{
    if (o->bind) {
        union sockaddr_any a;
        socklen_t len;
        int rc = net_resolve(o->bind, o->family, 0, 1, &a, &len);
        if (rc != 0)
            die_usage("-B %s: cannot resolve: %s", o->bind, net_gai_strerror(rc));
        if (netstack_bind_test(&a) == 0) {
            snprintf(ns.note, sizeof ns.note, "-B %s can be bound here", o->bind);
            return 1;
        }
        snprintf(ns.note, sizeof ns.note, "-B %s cannot be bound here: %s", o->bind, errtext(errno));
        return 0;
    }
    return netstack_iface_usable(o->bind_dev, o->family, ns.note, sizeof ns.note);
}

void perf_netstack_settle(const struct perf_opts *o, int argc, char **argv)
{
    const char *other, *word = netstack_word(argc, argv, &other);
    if (other)
        die_usage("++netstack=%s and ++netstack=%s: two netstacks named; give one", word, other);
    char guard[NETSTACK_NAME_MAX] = "", first_from[sizeof ns.from] = "";
    if (netstack_guard())
        snprintf(guard, sizeof guard, "%s", netstack_guard());
    if (netstack_guard_from())
        snprintf(first_from, sizeof first_from, "%s", netstack_guard_from());
    netstack_guard_clear();
    int reexeced = guard[0] || word;
    /* re-executed by ourselves: the word is ours, the name and its source the first run's */
    int ours = guard[0] && (!word || strcmp(guard, word) == 0) && first_from[0];
    if (o->netstack && !netstack_name_ok(o->netstack))
        die_usage("--netstack '%s': not a netstack name (letters, digits, _ - . ; at most %d)", o->netstack,
                  NETSTACK_NAME_MAX - 1);
    if (word && !netstack_name_ok(word))
        die_usage("++netstack=%s: not a netstack name", word);
    if (o->netstack && word && strcmp(o->netstack, word) != 0)
        die_usage("--netstack %s contradicts the launch word ++netstack=%s: give one", o->netstack, word);
    const char *name = o->netstack ? o->netstack : word ? word : guard[0] && netstack_name_ok(guard) ? guard : NULL;
    if (!name)
        return;                    /* nothing named: this process's netstack, as always */
    snprintf(ns.name, sizeof ns.name, "%s", name);
    snprintf(ns.from, sizeof ns.from, "%s",
             ours ? first_from : o->netstack ? "--netstack" : "++netstack= launch word");
    if (strcmp(ns.name, NETSTACK_DEFAULT) == 0) {
        snprintf(ns.note, sizeof ns.note, "this process's own netstack");
        return;
    }
    if (!o->bind && !o->bind_dev)
        die_usage("--netstack %s needs -B ADDR or --bind-dev vmkN (the address or interface that shows "
                  "the netstack was entered)", ns.name);
    char why[200] = "";
    if (!reexeced)
        netstack_reexec(argc, argv, ns.name, ns.from, why, sizeof why);   /* returns only when it cannot */
    int ok = usable_here(o);
    if (ok && reexeced) {
        ns.method = "launch-word";
        return;
    }
    if (ok) {                      /* it could not re-execute, but the address is here */
        size_t l = strlen(ns.note);
        snprintf(ns.note + l, sizeof ns.note - l, "; %s", why);
        return;
    }
    char mtu[300];               /* the MTU check that reaches that netstack anyway */
    snprintf(mtu, sizeof mtu, "esxmtu -S %s %s %s", ns.name, o->bind ? "-B" : "-I",
             o->bind ? o->bind : o->bind_dev);
    if (why[0])
        die(EXIT_USAGE, "could not enter netstack %s: %s; %s (run esxperf from a host where that address "
            "is on the default netstack; for the MTU, %s probes through esxcli)", ns.name, ns.note, why, mtu);
    die(EXIT_USAGE, "could not enter netstack %s with the ++netstack=%s launch word: %s (run esxperf from a "
        "host where that address is on the default netstack; for the MTU, %s probes through esxcli)",
        ns.name, ns.name, ns.note, mtu);
}

void perf_netstack_print(FILE *f)
{
    if (!ns.name[0])
        fprintf(f, "netstack: this process's own (none named)\n");
    else if (strcmp(ns.method, "launch-word") == 0)
        fprintf(f, "netstack %s (%s): entered with the ++netstack=%s launch word (%s)\n", ns.name, ns.from,
                ns.name, ns.note);
    else
        fprintf(f, "netstack %s (%s): %s\n", ns.name, ns.from, ns.note);
}

void perf_netstack_json(struct jsonw *w)
{
    jw_obj(w, "netstack");
    /* as esxmtu's -J: name, from and note null when none was named */
    jw_str(w, "name", ns.name[0] ? ns.name : NULL);
    jw_str(w, "from", ns.name[0] ? ns.from : NULL);
    jw_str(w, "method", ns.method);
    jw_str(w, "note", ns.name[0] ? ns.note : NULL);
    jw_end(w);
}
