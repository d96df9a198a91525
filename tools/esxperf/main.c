/* esxperf: iperf3-compatible network throughput tester for ESXi hosts.
 *
 * usage: esxperf -s [options] | -c HOST [options]
 *
 * Speaks iperf3's wire protocol both ways (client against any iperf3 -s, server
 * for any iperf3 -c). Options keep iperf3's letters and meanings.
 *
 * The command line first (usage text, short options, long options, side by side;
 * what each option sets is opt_sets in options.c), then one straight flow: parse,
 * check, log file, then the server, a sweep, or one client run.
 */
#include "client.h"
#include "daemon.h"
#include "fail.h"
#include "args.h"
#include "sockopt_apply.h"
#include "options.h"
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

static const char usage_text[] =
"usage: esxperf -s [-p PORT] [-1] [-J] [-B ADDR]\n"
"       esxperf -c HOST [-p PORT] [-t SEC | -n BYTES | -k BLOCKS] [-u] [-P N] [-R | --bidir] ...\n"
"\n"
"iperf3-compatible throughput test: works against any iperf3 server or client.\n"
"\n"
"Server or client:\n"
"  -s, --server             run as server (one test at a time, others get ACCESS_DENIED)\n"
"  -c, --client HOST        run as client against HOST\n"
"  -p, --port PORT          server port (default 5201)\n"
"  -f, --format [kmgtKMGT]  units of the rate column (default adaptive bits)\n"
"  -i, --interval SEC       seconds between interval rows (default 1, 0 = none)\n"
"  -B, --bind ADDR[%DEV]    bind to this local address (%DEV: as --bind-dev DEV)\n"
"  -4 / -6                  IPv4 / IPv6 only (also --version4 / --version6)\n"
"  -J, --json               iperf3's JSON structure plus an \"esxperf\" object\n"
"  -V, --verbose            more detail\n"
"      --logfile FILE       write output to FILE\n"
"      --forceflush         flush output after every line\n"
"      --json-stream        -J as one JSON event a line: start, interval..., end\n"
"                           (error on failure), as iperf3 3.17+\n"
"      --json-stream-full-output  with --json-stream: the whole -J document too\n"
"      --timestamps[=FMT]   start every output line with the local time, strftime\n"
"                           FMT (default \"%c \")\n"
"  -F, --file NAME          client: send NAME (without -t/-n/-k: its size is -n); with\n"
"                           -R (or on a server) write what arrives to NAME; TCP only\n"
"  -I, --pidfile FILE       write our pid to FILE, remove it at exit (refused while\n"
"                           the pid in FILE runs)\n"
"  -d, --debug[=LEVEL]      iperf3's debug output: esxperf prints what -V prints\n"
"      --idle-timeout SEC   server with -1: exit 1 when no client comes within SEC\n"
"  -1, --one-off            server: handle one test, then exit\n"
"      --use-pkcs1-padding  client: RSA token with PKCS#1 v1.5 instead of OAEP, for\n"
"                           iperf3 <= 3.16 servers (Debian 12's 3.12); our server takes both\n"
"Sockets (iperf3 3.22's; client and server alike):\n"
"      --bind-dev DEV       SO_BINDTODEVICE: control and data sockets use interface DEV\n"
"                           only (also -c HOST%DEV; root or CAP_NET_RAW)\n"
"      --rcv-timeout MS     a receiving side that gets no data for MS ms ends the test\n"
"                           (100..86400000, default 120000; client only with -R/--bidir)\n"
"      --snd-timeout MS     TCP_USER_TIMEOUT on the control and TCP data connections:\n"
"                           data unacknowledged for MS ms drops the connection (0 = system)\n"
"      --cntl-ka[=I/N/C]    TCP keepalive on the control connection: idle I s,\n"
"                           interval N s, C probes (each optional: the system's; I > N x C)\n"
"  -m, --mptcp              data streams over MPTCP (the control connection stays TCP;\n"
"                           a server listens MPTCP); refused (exit 2) where the kernel\n"
"                           has no MPTCP, as on ESXi\n"
"      --sctp               refused (exit 2): ESXi has no SCTP\n"
"Server protection:\n"
"      --rsa-private-key-path FILE  require an authtoken; FILE: unencrypted PEM, mode 600\n"
"      --authorized-users-path FILE lines user,sha256hex(\"{user}password\"), reread per test\n"
"      --time-skew-threshold SEC    token age/skew allowed (default 10)\n"
"      --allow-readable-key         accept a private key file group/others may read\n"
"      --control-timeout SEC  drop a client whose control connection is silent this\n"
"                           long before or after the test (cookie, parameters,\n"
"                           results; default 10); -n/-k tests in which no data moves\n"
"                           for 3x this long are ended (and those still running as\n"
"                           long again + 60 s after their count moved)\n"
"      --server-max-duration SEC  (or --max-duration) refuse a test asking for\n"
"                           more than SEC (-t plus -O; -n/-k tests: no time, refused),\n"
"                           iperf3's error 37, and end one still running 10 s past\n"
"                           SEC (SERVER_TERMINATE); 0 = no cap (default)\n"
"      --server-bitrate-limit R[/SEC]  refuse a test asking more than R bit/s in all\n"
"                           (iperf3's error 27), and end one whose average over SEC\n"
"                           (0.1..60, default 5) passes R, with the same error\n"
"  -D, --daemon             server: detach from the terminal (output: --logfile, else\n"
"                           none); with -I its pid is findable: kill $(cat FILE)\n"
"Client:\n"
"  -t, --time SEC           test length (default 10)\n"
"  -n, --bytes N[KMG]       send N bytes instead of a time\n"
"  -k, --blockcount N[KMG]  send N blocks instead of a time\n"
"  -u, --udp                UDP instead of TCP\n"
"  -b, --bitrate R[kmg][/B] target rate per stream, bits/s (UDP default 1M); /B = burst\n"
"                           (also --bandwidth)\n"
"  -l, --length N[KMG]      block size (TCP 128K; UDP the path MSS, 16..65507)\n"
"  -w, --window N[KMG]      socket buffer size\n"
"  -P, --parallel N         parallel streams, 1..128\n"
"  -R, --reverse            the server sends\n"
"      --bidir              both send at once\n"
"  -O, --omit SEC           leave out the first SEC seconds (warm-up)\n"
"      --cooldown SEC       run SEC more seconds after -t, not counted\n"
"  -M, --set-mss N          TCP maximum segment size\n"
"  -N, --no-delay           TCP_NODELAY\n"
"  -C, --congestion ALGO    TCP congestion control\n"
"  -S, --tos N              IP type of service (TOS byte / IPv6 traffic class;\n"
"                           as iperf3: 16, 0x10 or 020)\n"
"      --dscp VAL           DSCP 0..63 or ef, va, af11..af43, cs0..cs7 (any case; also\n"
"                           lowdelay, throughput, reliability): TOS = DSCP x 4\n"
"  -L, --flowlabel N        IPv6 flow label 1..0xfffff on the TCP data streams (sent)\n"
"      --fq-rate R[kmg]     SO_MAX_PACING_RATE R bits/s on every data stream of both ends\n"
"                           (kernel pacing, fq qdisc or TCP internal; sent as fqrate)\n"
"      --no-fq-socket-pacing  deprecated in iperf3: --fq-rate 0 (a later --fq-rate wins)\n"
"      --gsro               ask an iperf3 3.22 server for UDP GSO/GRO; esxperf uses them\n"
"                           anyway where the kernel has them (see -V)\n"
"  -Z, --zerocopy           send with sendfile(): no copy from user memory\n"
"      --skip-rx-copy       receivers count bytes without copying them (MSG_TRUNC)\n"
"  -A, --affinity N[-M][,S] pin this side's stream threads to CPU N (or round-robin\n"
"                           over N..M); ,S pins the server's threads to CPU S\n"
"                           (sent as iperf3's server_affinity); CPUs 0..1024,\n"
"                           N and M also in hex (0x10) or octal (020), as iperf3\n"
"  -T, --title STR          prefix every output line with STR (and send it to the server)\n"
"      --username USER      authenticate (password from IPERF3_PASSWORD, else a prompt)\n"
"      --rsa-public-key-path FILE  the server's RSA public key (PEM), with --username\n"
"      --connect-timeout MS control connection timeout\n"
"      --get-server-output  show the server's report too\n"
"      --cport PORT         local port of data stream 1 (stream N: PORT+N-1)\n"
"      --dont-fragment      UDP: set the don't-fragment bit (IPv4)\n"
"      --udp-counters-64bit 64-bit UDP packet counters\n"
"      --pacing-timer US    pacing granularity sent to the peer (default 1000)\n"
"      --repeating-payload  payload \"0123456789\" repeated (iperf2's) instead of random\n"
"      --extra-data STR     sent to the server; both sides' -J show it as extra_data\n"
"  -X, --xbind / --nstreams  refused: iperf3's SCTP options (ESXi has no SCTP)\n"
"Sweeps (client; one table row per run):\n"
"      --sweep-parallel LIST   e.g. 1-8 or 1,2,4,8\n"
"      --sweep-window LIST     e.g. 64K,256K,1M,4M\n"
"      --csv                   the table as CSV (-J: as JSON)\n"
"  -h, --help / -v, --version\n"
"\n"
"Leading ++key=value words (ESXi launch arguments) are skipped.\n"
"-V names the I/O path each stream took (sendmmsg/GSO, recvmmsg/GRO, SO_RCVLOWAT,\n"
"MSG_TRUNC, sendfile, a held send buffer, pinning) and any fallback;\n"
"ESXPERF_ENGINE_OFF=LIST turns techniques off:\n"
"mmsg,gso,gro,lowat,trunc,sendfile,rcvbuf,pktinfo,sndbuf or all.\n"
"Exit codes: 0 test done; 1 the test failed (server busy, peer error, stream failure,\n"
"bad peer data, no data arrived); 2 usage or system error (bad option, options that\n"
"contradict, cannot resolve, connection refused or timed out, port in use). Options\n"
"that do nothing here are run with a warning. A sweep exits with its worst run's code.\n"
"\n"
"Examples:\n"
"  esxperf -s                                  # server on port 5201\n"
"  esxperf -c 198.18.0.2 -t 10 -P 4            # 4 TCP streams, 10 s\n"
"  esxperf -c 198.18.0.2 -u -b 1G -l 8972      # UDP at 1 Gbit/s, jumbo datagrams\n"
"  esxperf -c 198.18.0.2 -R -J                 # server sends, JSON output\n"
"  esxperf -c 198.18.0.2 -t 5 --sweep-parallel 1-8 --sweep-window 256K,1M,4M\n"
"  esxperf -s --rsa-private-key-path priv.pem --authorized-users-path users.csv\n"
"  IPERF3_PASSWORD=... esxperf -c 198.18.0.2 --username alice --rsa-public-key-path pub.pem\n";

/* the options above, in getopt's words; a leading ':' lets bad_option name a
 * missing value. What each one sets: opt_sets in options.c */
static const char shortopts[] = ":sc:p:f:i:B:JV1t:n:k:ub:l:w:P:RO:M:NC:S:ZT:A:46hvF:DI:d::X:L:m";
static const struct option longopts[] = {
    { "server", no_argument, NULL, 's' }, { "client", required_argument, NULL, 'c' },
    { "port", required_argument, NULL, 'p' }, { "format", required_argument, NULL, 'f' },
    { "interval", required_argument, NULL, 'i' }, { "bind", required_argument, NULL, 'B' },
    { "json", no_argument, NULL, 'J' }, { "verbose", no_argument, NULL, 'V' },
    { "one-off", no_argument, NULL, '1' }, { "time", required_argument, NULL, 't' },
    { "bytes", required_argument, NULL, 'n' }, { "blockcount", required_argument, NULL, 'k' },
    { "udp", no_argument, NULL, 'u' }, { "bitrate", required_argument, NULL, 'b' },
    { "bandwidth", required_argument, NULL, 'b' }, { "length", required_argument, NULL, 'l' },
    { "window", required_argument, NULL, 'w' }, { "parallel", required_argument, NULL, 'P' },
    { "reverse", no_argument, NULL, 'R' }, { "bidir", no_argument, NULL, O_BIDIR },
    { "omit", required_argument, NULL, 'O' }, { "set-mss", required_argument, NULL, 'M' },
    { "no-delay", no_argument, NULL, 'N' }, { "congestion", required_argument, NULL, 'C' },
    { "linux-congestion", required_argument, NULL, 'C' }, { "tos", required_argument, NULL, 'S' },
    { "zerocopy", no_argument, NULL, 'Z' }, { "title", required_argument, NULL, 'T' },
    { "logfile", required_argument, NULL, O_LOGFILE },
    { "forceflush", no_argument, NULL, O_FORCEFLUSH },
    { "connect-timeout", required_argument, NULL, O_CONNECT_TIMEOUT },
    { "idle-timeout", required_argument, NULL, O_IDLE_TIMEOUT },
    { "get-server-output", no_argument, NULL, O_GSO },
    { "cport", required_argument, NULL, O_CPORT },
    { "dont-fragment", no_argument, NULL, O_DF },
    { "cooldown", required_argument, NULL, O_COOLDOWN },
    { "sweep-parallel", required_argument, NULL, O_SWEEP_P },
    { "sweep-window", required_argument, NULL, O_SWEEP_W },
    { "csv", no_argument, NULL, O_CSV },
    { "udp-counters-64bit", no_argument, NULL, O_UDP64 },
    { "pacing-timer", required_argument, NULL, O_PACING },
    { "skip-rx-copy", no_argument, NULL, O_SKIP_RX_COPY },
    { "affinity", required_argument, NULL, 'A' },
    { "username", required_argument, NULL, O_USERNAME },
    { "rsa-public-key-path", required_argument, NULL, O_RSA_PUB },
    { "use-pkcs1-padding", no_argument, NULL, O_PKCS1 },
    { "rsa-private-key-path", required_argument, NULL, O_RSA_PRIV },
    { "authorized-users-path", required_argument, NULL, O_USERS },
    { "time-skew-threshold", required_argument, NULL, O_SKEW },
    { "allow-readable-key", no_argument, NULL, O_READABLE_KEY },
    { "control-timeout", required_argument, NULL, O_CONTROL_TIMEOUT },
    { "max-duration", required_argument, NULL, O_MAX_DURATION },
    /* output, run and server options of iperf3 3.17..3.22 */
    { "server-max-duration", required_argument, NULL, O_MAX_DURATION },
    { "json-stream", no_argument, NULL, O_JSON_STREAM },
    { "json-stream-full-output", no_argument, NULL, O_JSON_STREAM_FULL },
    { "timestamps", optional_argument, NULL, O_TIMESTAMPS },
    { "repeating-payload", no_argument, NULL, O_REPEATING_PAYLOAD },
    { "extra-data", required_argument, NULL, O_EXTRA_DATA },
    { "file", required_argument, NULL, 'F' }, { "daemon", no_argument, NULL, 'D' },
    { "pidfile", required_argument, NULL, 'I' },
    { "server-bitrate-limit", required_argument, NULL, O_BITRATE_LIMIT },
    { "debug", optional_argument, NULL, 'd' },
    { "xbind", required_argument, NULL, 'X' },
    { "nstreams", required_argument, NULL, O_NSTREAMS },
    /* iperf3 3.22's socket and wire options */
    { "rcv-timeout", required_argument, NULL, O_RCV_TIMEOUT },
    { "snd-timeout", required_argument, NULL, O_SND_TIMEOUT },
    { "cntl-ka", optional_argument, NULL, O_CNTL_KA },
    { "fq-rate", required_argument, NULL, O_FQ_RATE },
    { "no-fq-socket-pacing", no_argument, NULL, O_NO_FQ_PACING },
    { "dscp", required_argument, NULL, O_DSCP }, { "flowlabel", required_argument, NULL, 'L' },
    { "bind-dev", required_argument, NULL, O_BIND_DEV }, { "mptcp", no_argument, NULL, 'm' },
    { "gsro", no_argument, NULL, O_GSRO }, { "sctp", no_argument, NULL, O_SCTP },
    { "version4", no_argument, NULL, '4' }, { "version6", no_argument, NULL, '6' },
    { "help", no_argument, NULL, 'h' }, { "version", no_argument, NULL, 'v' },
    { NULL, 0, NULL, 0 },
};

/* getopt returned ':' (a value is missing) or '?' (unknown option, or a value
 * given to an option that takes none): one line that says which. arg is the
 * word getopt stopped at (NULL past the end), code its optopt. */
static _Noreturn void bad_option(int c, int code, const char *arg)
{
    char word[64];
    if (arg && arg[0] == '-' && arg[1] == '-')
        snprintf(word, sizeof word, "%.*s", (int)strcspn(arg, "="), arg);
    else if (code > 0 && code < 128)
        snprintf(word, sizeof word, "-%c", code);
    else
        snprintf(word, sizeof word, "%s", arg ? arg : "?");
    if (c == ':')
        die_usage("option %s needs a value", word);
    if (code && arg && arg[0] == '-' && arg[1] == '-')
        die_usage("option %s takes no value (drop the '=...')", word);
    die_usage("unknown option %s", word);
}

/* the command line into o: every option, then the checks across options; any
 * problem is one line and exit 2 (-h and -v print and exit 0) */
static void parse(struct perf_opts *o, int argc, char **argv)
{
    char line[2048];
    int c;
    opts_defaults(o);
    opterr = 0;     /* bad_option() prints the one line */
    while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
        int rc = opts_set(o, c, optarg, line, sizeof line);
        if (rc < 0)
            die_usage("%s", line);
        if (rc == 0)
            continue;
        if (c == 'h') {
            fputs(usage_text, stdout);
            output_exit("the help text");
        }
        if (c == 'v') {
            version_print();
            output_exit("the version");
        }
        bad_option(c, optopt, optind > 1 && optind <= argc ? argv[optind - 1] : NULL);
    }
    if (optind < argc)
        die_usage("unexpected argument '%s'", argv[optind]);
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
    argc = args_strip_vmk(argc, &argv);
    struct perf_opts o;
    parse(&o, argc, argv);
    int errfd = open_log(&o);
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
    return output_done(stdout, o.logfile ? o.logfile : "stdout", errfd, rc);
}
