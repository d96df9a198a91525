/* Cross-option checks on a whole command line (pure: no socket, no file): what
 * is refused together (opts_validate, a usage error), and what is accepted but
 * does nothing here (opts_warning, one line each). */
#include "options.h"
#include "netstack_enter.h"
#include "bytes.h"
#include "fail.h"
#include "proto.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

/* the first option given whose row's role is role (options_table.h: CLIENT
 * options shape a test, which the client sets up, so a server refuses them, as
 * iperf3 does; SERVER options only a server acts on), in the table's order;
 * its name into buf, NULL when none */
static const char *first_given(const struct perf_opts *o, enum perf_opt_role role, char *buf,
                               size_t len)
{
    const struct opt_row *r = args_first_given(&perf_table, role, o->given);
    return r ? opts_name(r->code, buf, len) : NULL;
}

static int check_role(const struct perf_opts *o, char *why, size_t len)
{
    if (o->server == !!o->host)
        return why_fmt(why, len, "give exactly one of -s (server) or -c HOST (client)");
    char buf[80];
    const char *name;
    if (o->server && (name = first_given(o, PERF_ROLE_CLIENT, buf, sizeof buf)))
        return why_fmt(why, len, "%s is a client option (the client sets up each test): "
                      "drop it from esxperf -s", name);
    if (!o->server && (name = first_given(o, PERF_ROLE_SERVER, buf, sizeof buf)))
        return why_fmt(why, len, "%s is a server option (use it with esxperf -s)", name);
    if (o->server && o->server_affinity >= 0)
        return why_fmt(why, len, "-A N,S: the ,S part asks the server for a CPU from the client; "
                      "on a server give -A N");
    return 0;
}

static int check_test_shape(const struct perf_opts *o, char *why, size_t len)
{
    if (o->reverse && o->bidir)
        return why_fmt(why, len, "-R and --bidir exclude each other");
    if ((o->num || o->blockcount) && o->given['t'])
        return why_fmt(why, len, "give only one of -t, -n, -k");
    if (o->num && o->blockcount)
        return why_fmt(why, len, "give only one of -n and -k");
    if (o->udp && o->len && (o->len < UDP_LEN_MIN || o->len > UDP_LEN_MAX))
        return why_fmt(why, len, "UDP block size (-l) must be %d..%d", UDP_LEN_MIN, UDP_LEN_MAX);
    if (o->given['P'] && o->sweep_np)
        return why_fmt(why, len, "-P and --sweep-parallel both set the stream count: give one");
    if (o->given['w'] && o->sweep_nw)
        return why_fmt(why, len, "-w and --sweep-window both set the window: give one");
    if (o->file && o->udp)
        return why_fmt(why, len, "-F moves a file over TCP only (UDP datagrams carry "
                       "iperf3's counters): drop -u or -F");
    size_t xcap = sizeof(((struct test_params *)0)->extra_data);
    if (o->extra_data && strlen(o->extra_data) >= xcap)
        return why_fmt(why, len, "--extra-data is %zu bytes: at most %zu fit in the test's "
                       "parameters (shorten it)", strlen(o->extra_data), xcap - 1);
    if (o->file && (o->sweep_np || o->sweep_nw))
        return why_fmt(why, len, "-F with a sweep would send the file once per run: give "
                       "one or the other");
    return 0;
}

/* --rr (rr/rr_io.h): the client asks, the server answers; what has no meaning in
 * that exchange is refused rather than ignored */
static int check_rr(const struct perf_opts *o, char *why, size_t len)
{
    if (!o->rr && (o->given[O_RR_RESPONSE] || o->given[O_RR_TIMEOUT] || o->given[O_RR_LIMIT] ||
                   o->given[O_RR_ROLE] || o->rr_load))
        return why_fmt(why, len, "--rr-response, --rr-timeout, --rr-limit, --rr-role and "
                       "--rr-load belong to --rr: add --rr");
    if (o->rr_load && o->udp)
        return why_fmt(why, len, "--rr-load: the bulk streams are TCP (vMotion's, vSAN's): drop -u");
    if (o->rr_load && (o->num || o->blockcount))
        return why_fmt(why, len, "--rr-load runs its idle phase, then -t seconds loaded: "
                       "give -t, not -n or -k");
    if (o->rr_load && o->parallel >= MAX_STREAMS)
        return why_fmt(why, len, "--rr-load adds its request stream to the -P bulk ones: "
                       "at most -P %d", MAX_STREAMS - 1);
    if (o->given[O_RR_LIMIT] && o->given[O_RR_ROLE])
        return why_fmt(why, len, "--rr-limit and --rr-role both set the verdict's limit: give one");
    if (!o->rr)
        return 0;
    if ((o->reverse || o->bidir) && !o->rr_load)
        return why_fmt(why, len, "--rr: the client always sends the requests (-R and --bidir "
                       "do not apply; with --rr-load they set the bulk streams' direction): "
                       "to measure from the other end, run the client there");
    if (o->file || o->zerocopy || o->sweep_np || o->sweep_nw)
        return why_fmt(why, len, "--rr sends small requests: -F, -Z and sweeps do not apply "
                       "(drop them)");
    if (o->omit || o->cooldown)
        return why_fmt(why, len, "--rr measures from the first request: -O and --cooldown "
                       "do not apply (drop them)");
    if (o->udp && o->rr_response && (o->rr_response < UDP_LEN_MIN || o->rr_response > UDP_LEN_MAX))
        return why_fmt(why, len, "UDP response size (--rr-response) must be %d..%d",
                       UDP_LEN_MIN, UDP_LEN_MAX);
    return 0;
}

static int check_auth(const struct perf_opts *o, char *why, size_t len)
{
    if (!o->username != !o->rsa_public_key)
        return why_fmt(why, len, "authentication needs both --username and --rsa-public-key-path");
    if (!o->rsa_private_key != !o->authorized_users)
        return why_fmt(why, len, "authentication needs both --rsa-private-key-path and "
                      "--authorized-users-path");
    return 0;
}

/* the most streams one run of this command opens (a sweep: its largest -P) */
static int64_t max_streams(const struct perf_opts *o)
{
    int64_t n = o->parallel;
    for (int i = 0; i < o->sweep_np; i++)
        if (o->sweep_parallel[i] > n)
            n = o->sweep_parallel[i];
    return o->bidir ? 2 * n : n;
}

/* --cport: data stream i (from 1) binds port cport + i - 1, as iperf3 does */
static int check_cport(const struct perf_opts *o, char *why, size_t len)
{
    if (o->server || !o->cport)
        return 0;
    int64_t n = max_streams(o), last = (int64_t)o->cport + n - 1;
    if (last > 65535)
        return why_fmt(why, len, "--cport %u with %lld data streams needs ports %u..%lld, past "
                      "65535 (each stream takes the next port: use --cport %lld or lower)",
                      (unsigned)o->cport, (long long)n, (unsigned)o->cport, (long long)last,
                      (long long)(65536 - n));
    return 0;
}

/* AF_INET or AF_INET6 for a numeric address, AF_UNSPEC for a name */
static int literal_family(const char *s)
{
    unsigned char a[16];
    if (!s)
        return AF_UNSPEC;
    if (inet_pton(AF_INET, s, a) == 1)
        return AF_INET;
    if (inet_pton(AF_INET6, s, a) == 1)
        return AF_INET6;
    return AF_UNSPEC;
}

static const char *family_name(int f)
{
    return f == AF_INET ? "IPv4" : "IPv6";
}

static int check_family(const struct perf_opts *o, char *why, size_t len)
{
    int host = literal_family(o->host), bind = literal_family(o->bind);
    const char *flag = o->family == AF_INET ? "-4" : "-6";
    if (o->family != AF_UNSPEC && host != AF_UNSPEC && host != o->family)
        return why_fmt(why, len, "-c %s is an %s address but %s asks for %s (drop %s or give "
                      "an %s address)", o->host, family_name(host), flag,
                      family_name(o->family), flag, family_name(o->family));
    if (o->family != AF_UNSPEC && bind != AF_UNSPEC && bind != o->family)
        return why_fmt(why, len, "-B %s is an %s address but %s asks for %s (drop %s or give "
                      "an %s address)", o->bind, family_name(bind), flag,
                      family_name(o->family), flag, family_name(o->family));
    if (host != AF_UNSPEC && bind != AF_UNSPEC && host != bind)
        return why_fmt(why, len, "-B %s is an %s address but -c %s is %s: the address "
                      "families do not match (bind an address of the server's family)",
                      o->bind, family_name(bind), o->host, family_name(host));
    return 0;
}

/* iperf3 3.22's socket and wire options with the rest of the command line */
static int check_net(const struct perf_opts *o, char *why, size_t len)
{
    if (!o->server && o->given[O_RCV_TIMEOUT] && !o->reverse && !o->bidir)
        return why_fmt(why, len, "--rcv-timeout on a client times its receiving: give -R or "
                      "--bidir, or drop it (the server times what it receives)");
    if (o->mptcp && o->udp)
        return why_fmt(why, len, "--mptcp is a TCP transport: drop -u or --mptcp");
    if (o->flowlabel && (o->family == AF_INET || literal_family(o->host) == AF_INET))
        return why_fmt(why, len, "-L sets the IPv6 flow label: the server %s is IPv4 (give an "
                      "IPv6 address, or drop -L)", o->host);
    return 0;
}

int opts_validate(const struct perf_opts *o, char *why, size_t len)
{
    static int (*const checks[])(const struct perf_opts *, char *, size_t) = {
        check_role, check_test_shape, check_rr, check_auth, check_cport, check_family, check_net,
    };
    for (size_t i = 0; i < ARRAY_SIZE(checks); i++)
        if (checks[i](o, why, len) < 0)
            return -1;
    return 0;
}

static int idle_without_one_off(const struct perf_opts *o)
{
    return o->given[O_IDLE_TIMEOUT] && o->server && !o->one_off;
}

static int cport_on_server(const struct perf_opts *o)
{
    return o->given[O_CPORT] && o->server;
}

static int zerocopy_udp(const struct perf_opts *o)
{
    return o->zerocopy && o->udp;
}

static int csv_without_sweep(const struct perf_opts *o)
{
    return o->csv && !o->server && !o->sweep_np && !o->sweep_nw;
}

static int csv_with_json(const struct perf_opts *o)
{
    return o->csv && o->json && (o->sweep_np || o->sweep_nw);
}

static int stream_with_sweep(const struct perf_opts *o)
{
    return o->json_stream && (o->sweep_np || o->sweep_nw);
}

static int pkcs1_without_auth(const struct perf_opts *o)
{
    return o->use_pkcs1 && !o->rsa_private_key && !o->rsa_public_key;
}

static int pkcs1_on_server(const struct perf_opts *o)
{
    return o->use_pkcs1 && o->server && o->rsa_private_key;
}

static int full_without_stream(const struct perf_opts *o)
{
    return o->json_stream_full && !o->json_stream;
}

static int file_parallel(const struct perf_opts *o)
{
    return o->file && (o->parallel > 1 || o->bidir);
}

static int flowlabel_udp(const struct perf_opts *o)
{
    return o->flowlabel && o->udp;
}

static int gsro_tcp(const struct perf_opts *o)
{
    return o->gsro && !o->udp;
}

static int no_fq_pacing(const struct perf_opts *o)
{
    return o->given[O_NO_FQ_PACING];
}

/* -I is iperf3's pid file; an ESXi admin who types -I vmk1 means esxmtu's -I */
static int pidfile_like_vmk(const struct perf_opts *o)
{
    return o->pidfile && netstack_is_vmk(o->pidfile);
}

/* accepted (iperf3 accepts them, or they are harmless) but without effect here */
static const struct {
    int (*hit)(const struct perf_opts *o);
    const char *text;
} ignored[] = {
    { idle_without_one_off, "--idle-timeout only acts with -1 (a server that exits when no "
                            "client comes): ignored" },
    { cport_on_server, "--cport is a client option (the client's local data port): ignored "
                       "by the server" },
    { zerocopy_udp, "-Z is for TCP (MSG_ZEROCOPY, sendfile); UDP sends with sendmmsg or sendto: ignored" },
    { csv_without_sweep, "--csv formats a sweep's table (--sweep-parallel, --sweep-window): "
                         "ignored without one" },
    { csv_with_json, "--csv and -J: the sweep's table is written as JSON, --csv is ignored" },
    { stream_with_sweep, "--json-stream and a sweep: the sweep's table is one JSON "
                         "document (as with -J), not one event a line: --json-stream is "
                         "ignored" },
    { pkcs1_without_auth, "--use-pkcs1-padding applies to RSA authentication "
                          "(--rsa-public-key-path or --rsa-private-key-path): ignored" },
    { pkcs1_on_server, "--use-pkcs1-padding: the server accepts tokens in either padding "
                       "(OAEP from iperf3 3.17+, PKCS#1 v1.5 from older), the option only "
                       "changes a client: ignored" },
    { full_without_stream, "--json-stream-full-output only adds to --json-stream: ignored "
                           "without it" },
    { file_parallel, "-F with several streams: each stream reads (or writes) the whole "
                     "file on its own, as iperf3 does; the file written is whole only "
                     "with -P 1 and no --bidir" },
    { flowlabel_udp, "-L labels TCP data streams (as in iperf3); UDP datagrams get the "
                     "kernel's label: ignored with -u" },
    { gsro_tcp, "--gsro is about UDP (GSO/GRO): ignored without -u" },
    { no_fq_pacing, "--no-fq-socket-pacing is deprecated (also in iperf3 3.22): it only "
                    "sets --fq-rate back to 0" },
    { pidfile_like_vmk, "-I writes the process id to a file, as iperf3's -I: a file named "
                        "like a vmknic is written; for the vmknic give --bind-dev vmkN (or -B "
                        "its address)" },
};

int opts_warning(const struct perf_opts *o, int k, char *why, size_t len)
{
    for (int i = k < 0 ? 0 : k; i < (int)ARRAY_SIZE(ignored); i++) {
        if (ignored[i].hit(o)) {
            snprintf(why, len, "%s", ignored[i].text);
            return i;
        }
    }
    return -1;
}
