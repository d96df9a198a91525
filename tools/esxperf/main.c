/* esxperf: iperf3-compatible network throughput tester for ESXi hosts.
 *
 * usage: esxperf -s [options] | -c HOST [options]
 *
 * Speaks iperf3's wire protocol both ways (client against any iperf3 -s, server
 * for any iperf3 -c). Options keep iperf3's letters and meanings.
 *
 * The command line first (every option is one row of cli/options_table.h: its
 * letter, long name, help and what it sets; the option engine, common/args.c,
 * reads the command line by it), then one straight flow: parse, check, log
 * file, then the server, a sweep, or one client run.
 */
#include "client.h"
#include "pidfile.h"
#include "fail.h"
#include "args.h"
#include "sockopt_apply.h"
#include "options.h"
#include "perf_netstack.h"
#include "output.h"
#include "server.h"
#include "session.h"
#include "stream.h"
#include "sweep.h"
#include "version.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char tool_name[] = "esxperf";

/* -h and -v (the rows that say MAIN) */
static void main_opt(void *ctx, int code, const char *value)
{
    (void)ctx, (void)value;
    if (code == 'v') {
        version_print();
        output_exit("the version");
    }
    fputs(perf_usage, stdout);
    output_exit("the help text");
}

/* the command line into o: every option, then the checks across options; any
 * problem is one line and exit 2 (-h and -v print and exit 0) */
static void parse(struct perf_opts *o, int argc, char **argv)
{
    char line[2048];
    opts_defaults(o);
    int first = args_parse(&perf_table, o, o->given, argc, argv, main_opt, NULL);
    if (first < argc)
        die_usage("unexpected argument '%s'", argv[first]);
    if (opts_validate(o, line, sizeof line) < 0)
        die_usage("%s", line);
    for (int k = 0; (k = opts_warning(o, k, line, sizeof line)) >= 0; k++)
        warnmsg("warning: %s", line);
    if (o->congestion && stream_congestion_check(o->congestion, line, sizeof line) < 0)
        die_usage("%s", line);
    if (o->mptcp && sockopt_mptcp_check(line, sizeof line) < 0)
        die_usage("%s", line);
}

/* --logfile: stdout and stderr into it; returns where a failure to write the
 * results is told (the terminal's stderr). A server with -D moves them only once
 * it listens (log_fd), so that what stops it before it detaches (a port in use, a
 * pid file refused) is told on the terminal */
static int open_log(struct perf_opts *o)
{
    if (!o->logfile)
        return STDERR_FILENO;
    int fd = open(o->logfile, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0)
        die(EXIT_USAGE, "cannot open log file %s: %s", o->logfile, errtext(errno));
    int errfd = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
    if (errfd < 0)
        errfd = STDERR_FILENO;
    if (o->server && o->daemon) {
        o->log_fd = fd;
        return errfd;
    }
    dup2(fd, 1);
    dup2(fd, 2);
    close(fd);
    return errfd;
}

int main(int argc, char **argv)
{
    output_start();
    /* the command line as started, ++ words and all, for the netstack's re-exec
     * (args_strip_vmk writes over the last ++ word) */
    int argc0 = argc;
    char **argv0 = xcalloc((size_t)argc + 1, sizeof *argv0);
    memcpy(argv0, argv, (size_t)argc * sizeof *argv0);
    argc = args_strip_vmk(argc, &argv);
    struct perf_opts o;
    parse(&o, argc, argv);
    o.argv_started = argv0;
    perf_netstack_settle(&o, argc0, argv0);
    int errfd = open_log(&o);
    if (o.verbose)
        report_sink_for(&o)->netstack(stdout);
    int rc;
    char why[400];
    /* -A covers every thread: the set is taken before the first one starts */
    if (o.naffinity > 0)
        session_pin(o.affinity, o.naffinity);
    /* the client's stop signals, before any other thread starts */
    struct client_stop *stop = o.server ? NULL : client_stop_start(why, sizeof why);
    if (!o.server && !stop)
        die(EXIT_USAGE, "%s", why);
    /* -I on a client, as iperf3 allows (the server writes its own once it listens) */
    if (o.pidfile && !o.server && pidfile_create(o.pidfile, why, sizeof why) < 0)
        die(EXIT_USAGE, "%s", why);
    if (o.server)
        rc = server_run(&o);
    else if (o.sweep_np || o.sweep_nw)
        rc = sweep_run(&o, stop);
    else
        rc = client_run(&o, stop, NULL, NULL, 0);
    pidfile_remove(o.pidfile);
    rc = output_done(stdout, o.logfile ? o.logfile : "stdout", errfd, rc);
    free(argv0);
    return rc;
}
