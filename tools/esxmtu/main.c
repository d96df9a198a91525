/* esxmtu: does a full-size Don't-Fragment packet really cross to each peer?
 * The command line first (options_table.h's rows, what each sets in options.c),
 * then one straight flow: parse, settle the netstack, resolve, open, check, discover,
 * decide each verdict once, trace, report. The work is in peers.c, netstack.c, probe.c,
 * check.c (or esxcli_ping.c), discover.c + rounds.c (over sockets or esxcli), trace.c,
 * verdict.c, report.c. */
#include "args.h"
#include "check.h"
#include "clock.h"
#include "discover.h"
#include "esxcli_ping.h"
#include "fail.h"
#include "netstack.h"
#include "net.h"
#include "options.h"
#include "output.h"
#include "packet.h"
#include "peers.h"
#include "probe.h"
#include "report.h"
#include "rounds.h"
#include "stop.h"
#include "team_read.h"
#include "each_uplink.h"
#include "trace.h"
#include "version.h"

#include <errno.h>
#include <limits.h>
#include <getopt.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char tool_name[] = "esxmtu";

/* every -f, in order: read after the operands */
struct file_args {
    const char **files;
    size_t n;
};

/* -f, -h and --version (the rows that say MAIN) */
static void main_opt(void *ctx, int code, const char *value)
{
    struct file_args *fa = ctx;
    switch (code) {
    case 'f': fa->files[fa->n++] = value; return;
    case OPT_VERSION: version_print(); output_exit("the version");
    default: fputs(mtu_usage, stdout); output_exit("the help text");
    }
}

static void parse(struct mtu_opts *o, int argc, char **argv)
{
    char why[320];
    struct file_args fa = { xcalloc((size_t)argc, sizeof *fa.files), 0 };
    int first = args_parse(&mtu_table, o, o->given, argc, argv, main_opt, &fa);
    if (fa.n)
        o->file = fa.files[fa.n - 1];
    const char **files = fa.files;
    size_t nfiles = fa.n;
    for (int i = first; i < argc; i++)
        if (peers_add(&o->peers, argv[i], why, sizeof why) != 0)
            die_usage("%s", why);
    /* every list is read, in order after the operands; with several, each must hold a
     * peer (one list alone that is empty is named by opts_validate, in the same words) */
    for (size_t k = 0; k < nfiles; k++) {
        size_t before = o->peers.n;
        if (peers_read_file(&o->peers, files[k], why, sizeof why) != 0)
            die(EXIT_USAGE, "%s", why);
        if (nfiles > 1 && o->peers.n == before)
            die_usage("%s: no peer in it (one address or name a line, # comments)", files[k]);
    }
    free(files);
    if (opts_validate(o, why, sizeof why) != 0)
        die_usage("%s", why);
}

/* resolve peers, apply sizes; every problem is one line and exit 2 */
static void prepare(struct mtu_opts *o, struct peer *peers, int *need4, int *need6)
{
    char why[400];
    union sockaddr_any src;
    memset(&src, 0, sizeof src);
    if (o->src) {
        if (peers_resolve(o->src, o->family, "-B", &src, why, sizeof why) != 0)
            die(EXIT_USAGE, "%s", why);
        if (src.sa.sa_family == AF_INET)
            o->po.src4 = src;
        else
            o->po.src6 = src;
    }
    if (o->po.iface && o->ns.method != NSM_ESXCLI && if_nametoindex(o->po.iface) == 0)
        die(EXIT_USAGE, "-I %s: no such interface (list them with 'esxcfg-vmknic -l' or 'ip link')",
            o->po.iface);
    for (size_t i = 0; i < o->peers.n; i++) {
        struct peer *pe = &peers[i];
        pe->name = o->peers.name[i];
        if (peers_resolve(pe->name, o->family, NULL, &pe->addr, why, sizeof why) != 0)
            die(EXIT_USAGE, "%s", why);
        pe->family = pe->addr.sa.sa_family;
        *(pe->family == AF_INET6 ? need6 : need4) = 1;
        const char *fam = pe->family == AF_INET6 ? "IPv6" : "IPv4";
        if (o->src && src.sa.sa_family != pe->family)
            die(EXIT_USAGE, "-B %s is %s but peer %s is %s (use a source of the same family)", o->src,
                src.sa.sa_family == AF_INET6 ? "IPv6" : "IPv4", pe->name, fam);
        uint32_t hdr = pkt_hdr_len(pe->family), min = pkt_min_mtu(pe->family);
        uint64_t mtu = o->given['s'] ? (uint64_t)o->size + hdr : o->given['m'] ? o->mtu : 9000;
        if (mtu > PKT_MAX_MTU)
            die(EXIT_USAGE, "-s %u is too big for %s (at most %u data bytes)", o->size, fam, PKT_MAX_MTU - hdr);
        if (mtu < min)
            die(EXIT_USAGE, "MTU %llu is below the %s minimum %u (peer %s)", (unsigned long long)mtu, fam, min,
                pe->name);
        check_sizes(pe, (uint32_t)mtu);
    }
}

static void open_prober(struct prober *p, const struct mtu_opts *o, int need4, int need6)
{
    const char *why = "";
    if (prober_open(p, &o->po, need4, need6, &why) == 0)
        return;
    int e = errno;
    if (e == EPERM || e == EACCES)
        die(EXIT_USAGE, "%s: %s (run as root, or allow ping sockets for your group: "
            "sysctl -w net.ipv4.ping_group_range='0 2147483647')", why, errtext(e));
    die(EXIT_USAGE, "%s: %s", why, errtext(e));
}

/* --discover: every peer that answered at all, all at once (rounds.c), over the
 * run's transport: the prober's sockets, or esxcli's ping in another netstack */
static void discover(const struct mtu_opts *o, struct prober *p, struct peer *peers)
{
    size_t n = o->peers.n, k = 0;
    struct disc_target *t = xcalloc(n ? n : 1, sizeof *t);
    for (size_t i = 0; i < n; i++)
        if (verdict_answered(check_evidence(&peers[i]))) {    /* nothing answers: no size will */
            t[k++] = (struct disc_target){ &peers[i].addr, &peers[i].disc };
            peers[i].did_discover = 1;
        }
    struct rounds_transport tp;
    struct rounds_socket sock = { 0 };
    struct ecp_ask ask;
    if (o->ns.method == NSM_ESXCLI) {
        netstack_esxcli_ask(o, &ask);
        ecp_transport(&tp, &ask);
    } else {
        rounds_socket_open(&tp, &sock, p, o->chk.timeout_ns);
    }
    char why[400];
    int rc = rounds_run(&tp, t, k, why, sizeof why);
    rounds_socket_close(&sock);
    free(t);
    if (rc < 0 && o->ns.method == NSM_ESXCLI)
        die(EXIT_USAGE, "netstack %s: %s", o->ns.name, why);
    if (rc < 0)
        die(EXIT_USAGE, "discovery failed: %s", why);
}

/* the -I vmk's team, read-only, before anything is sent: which uplinks the check
 * does not cross (team.h); then --each-uplink through each of them. NULL where the
 * interface is no vmk. */
static struct team *uplink_phase(struct mtu_opts *o, struct peer *peers, struct team *team,
                                 struct eu_run *each, int *each_rc)
{
    memset(each, 0, sizeof *each);
    *each_rc = 0;
    if (!netstack_is_vmk(o->po.iface) || stop_requested())
        return NULL;
    char esxcli[PATH_MAX] = "";
    if (o->ns.esxcli[0])
        snprintf(esxcli, sizeof esxcli, "%s", o->ns.esxcli);
    else
        (void)netstack_find_esxcli(esxcli, sizeof esxcli);
    (void)team_read(esxcli, o->po.iface, team, TEAM_READ_SECONDS);
    if (o->each_uplink && !stop_requested()) {
        if (!o->ns.esxcli[0])
            die(EXIT_USAGE, "--each-uplink: no esxcli on PATH, /bin or /sbin (it runs on an ESXi host)");
        *each_rc = each_uplink_run(o, team, peers, o->peers.n, each);
        if (each->refused[0])
            die(EXIT_USAGE, "--each-uplink: %s", each->refused);
    }
    return team;
}

/* the check, --discover and --trace in turn, each ending early on a stop signal
 * (stop.h); returns the name of the last phase begun, for an interrupted run's line */
static const char *probe_phases(struct mtu_opts *o, struct prober *p, struct peer *peers, int need4,
                                int need6)
{
    const char *phase = "the check";
    if (o->ns.method == NSM_ESXCLI)
        netstack_esxcli_check(o, peers);
    else {
        open_prober(p, o, need4, need6);
        if (check_run(p, peers, o->peers.n, &o->chk) != 0 && !stop_requested())
            die(EXIT_USAGE, "probing failed: %s", errtext(errno));
    }
    if (o->discover && !stop_requested()) {
        phase = "--discover";
        discover(o, p, peers);
    }
    for (size_t i = 0; i < o->peers.n; i++)
        check_decide(&peers[i]);        /* every phase that weighs on it is over */
    for (size_t i = 0; o->trace && i < o->peers.n && !stop_requested(); i++) {
        phase = "--trace";
        peers[i].trace = xcalloc(1, sizeof *peers[i].trace);
        if (trace_run(p, &peers[i].addr, peers[i].mtu,
                      peers[i].small_mtu ? peers[i].small_mtu : peers[i].mtu, o->max_hops,
                      o->chk.timeout_ns, peers[i].trace) != 0) {
            if (!stop_requested())
                die(EXIT_USAGE, "trace failed: %s", errtext(errno));
            free(peers[i].trace);       /* a trace cut short has no conclusion to show */
            peers[i].trace = NULL;
        }
    }
    return phase;
}

/* 0 every verdict and finding clean, 1 a check failed (or the run was stopped),
 * 2 --each-uplink may have left scratch objects: the loudest exit */
static int exit_code(const struct mtu_opts *o, const struct peer *peers, const struct team *tp,
                     const struct eu_run *each, int each_rc)
{
    int code = EXIT_OKAY;
    for (size_t i = 0; i < o->peers.n; i++)
        if (!verdict_ok(peers[i].verdict))
            code = EXIT_CHECK;
    char fnd[1][TEAM_FINDING_LEN];
    if (tp && team_findings(tp, fnd, 1))    /* a path the check did not cross is too small */
        code = EXIT_CHECK;
    if (each->ran && (each_rc == 1 || each_uplink_findings(each, fnd, 1)))
        code = EXIT_CHECK;
    if (each_rc == 2)
        code = EXIT_USAGE;
    if (stop_requested() && code == EXIT_OKAY)  /* an unfinished run proves nothing more */
        code = EXIT_CHECK;
    return code;
}

int main(int argc, char **argv)
{
    output_start();
    struct mtu_opts o;
    opts_defaults(&o);
    netstack_note(&o.ns, argc, argv);
    argc = args_strip_vmk(argc, &argv);
    parse(&o, argc, argv);
    stop_watch();                   /* before esxcli may run: its calls end on a stop signal */
    netstack_settle(&o);

    struct peer *peers = xcalloc(o.peers.n, sizeof *peers);
    int need4 = 0, need6 = 0;
    prepare(&o, peers, &need4, &need6);
    struct team team;
    struct eu_run each;
    int each_rc;
    struct team *tp = uplink_phase(&o, peers, &team, &each, &each_rc);
    struct prober p;
    memset(&p, 0, sizeof p);
    const char *phase = probe_phases(&o, &p, peers, need4, need6);
    int code = exit_code(&o, peers, tp, &each, each_rc);
    char stopped[80] = "";
    if (stop_requested()) {
        snprintf(stopped, sizeof stopped, "interrupted (%s) during %s", signal_name(stop_requested()), phase);
        warnmsg("%s: what was measured so far is reported", stopped);
    }
    struct report_ctx rc = { &p, o.quiet, o.discover, o.trace, &o.ns,
                             stopped[0] ? stopped : NULL, tp, o.verbose, each.ran ? &each : NULL };
    if (o.json) {
        char *j = report_json(&rc, peers, o.peers.n, code);
        fputs(j, stdout);
        fputc('\n', stdout);
        free(j);
    } else {
        report_human(stdout, &rc, peers, o.peers.n, code);
    }
    if (o.ns.method != NSM_ESXCLI)
        prober_close(&p);
    each_uplink_free(&each);
    for (size_t i = 0; i < o.peers.n; i++)
        free(peers[i].trace);
    free(peers);
    peers_free(&o.peers);
    return output_done(stdout, "stdout", STDERR_FILENO, code);
}
