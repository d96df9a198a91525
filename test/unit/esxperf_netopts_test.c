/* iperf3 3.22's socket and wire options: the values as iperf3 reads
 * them (tools/esxperf/sockopt_parse.c: the DSCP names table, flow labels,
 * --cntl-ka's forms, ADDR%DEV), what opts_set makes of them, the role and
 * cross-option checks, the --rcv-timeout clock, and the parameters they put on
 * the wire (mptcp, fqrate, flowlabel, 3.22's gso/gro keys) both ways. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <sys/socket.h>

#include "client.h"
#include "options.h"
#include "proto.h"
#include "rcv_timeout.h"
#include "bytes.h"

const char tool_name[] = "esxperf_test";

static int dscp(const char *s)
{
    int tos = -1;
    return opt_parse_dscp(s, &tos) == 0 ? tos : -1;
}

/* every name against the code point arithmetic of its RFC (AFxy = 8x + 2y,
 * CSx = 8x, EF 46, VA 44; the TOS byte is the code point << 2), in any case */
static void dscp_names_table(void **state)
{
    (void)state;
    char name[32];
    for (int x = 1; x <= 4; x++)
        for (int y = 1; y <= 3; y++) {
            snprintf(name, sizeof name, "af%d%d", x, y);
            assert_int_equal(dscp(name), (8 * x + 2 * y) << 2);
            snprintf(name, sizeof name, "AF%d%d", x, y);
            assert_int_equal(dscp(name), (8 * x + 2 * y) << 2);
        }
    for (int x = 0; x <= 7; x++) {
        snprintf(name, sizeof name, "cs%d", x);
        assert_int_equal(dscp(name), (8 * x) << 2);
        snprintf(name, sizeof name, "Cs%d", x);
        assert_int_equal(dscp(name), (8 * x) << 2);
    }
    assert_int_equal(dscp("ef"), 184);
    assert_int_equal(dscp("EF"), 184);
    assert_int_equal(dscp("va"), 176);
    assert_int_equal(dscp("lowdelay"), 0x10);      /* RFC 1349 TOS bits, as iperf3 */
    assert_int_equal(dscp("THROUGHPUT"), 0x08);
    assert_int_equal(dscp("reliability"), 0x04);
    /* numbers are code points 0..63 in C notation: 46, 0x2e and 056 are all EF */
    assert_int_equal(dscp("46"), 184);
    assert_int_equal(dscp("0x2e"), 184);
    assert_int_equal(dscp("056"), 184);
    assert_int_equal(dscp("0"), 0);
    assert_int_equal(dscp("63"), 252);
    static const char *const bad[] = { "64", "-1", "+1", "cs8", "af14", "af51", "", " 1",
                                       "1 ", "ef ", "4x", "0x", "08", "expedited", "99999999999999999999" };
    for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
        if (dscp(bad[i]) != -1)
            fail_msg("--dscp '%s' taken as %d", bad[i], dscp(bad[i]));
}

static void flow_labels(void **state)
{
    (void)state;
    int64_t l = 0;
    assert_int_equal(opt_parse_flowlabel("1", &l), 0);
    assert_int_equal(l, 1);
    assert_int_equal(opt_parse_flowlabel("0xfffff", &l), 0);
    assert_int_equal(l, 0xfffff);
    assert_int_equal(opt_parse_flowlabel("017", &l), 0);
    assert_int_equal(l, 15);
    assert_int_equal(opt_parse_flowlabel("1048575", &l), 0);
    static const char *const bad[] = { "0", "0x100000", "1048576", "-5", "x", "", "12k" };
    for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
        assert_int_equal(opt_parse_flowlabel(bad[i], &l), -1);
}

static void cntl_ka_forms(void **state)
{
    (void)state;
    static const struct { const char *arg; int idle, intv, cnt; } good[] = {
        { NULL, 0, 0, 0 },  { "", 0, 0, 0 },       { "30", 30, 0, 0 },
        { "30/5", 30, 5, 0 }, { "30/5/3", 30, 5, 3 }, { "/5/3", 0, 5, 3 },
        { "//3", 0, 0, 3 }, { "30//", 30, 0, 0 },  { "0/0/0", 0, 0, 0 },
        { "16/5/3", 16, 5, 3 }, { "0x10/5/3", 16, 5, 3 },
    };
    for (size_t i = 0; i < ARRAY_SIZE(good); i++) {
        int a = -1, b = -1, c = -1;
        const char *why = NULL;
        if (opt_parse_cntl_ka(good[i].arg, &a, &b, &c, &why) != 0)
            fail_msg("--cntl-ka=%s refused: %s", good[i].arg, why);
        assert_int_equal(a, good[i].idle);
        assert_int_equal(b, good[i].intv);
        assert_int_equal(c, good[i].cnt);
    }
    static const char *const bad[] = { "15/5/3", "5/2/3", "a/1/1", "1/2/3/4", "30/5/3/",
                                       "-1", "30/5/128", "32768", "1 /2" };
    for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
        int a, b, c;
        const char *why = NULL;
        if (opt_parse_cntl_ka(bad[i], &a, &b, &c, &why) != -1)
            fail_msg("--cntl-ka=%s taken", bad[i]);
        assert_non_null(why);
    }
}

static void percent_dev(void **state)
{
    (void)state;
    char host[64];
    const char *dev = "x";
    assert_int_equal(opt_split_dev("198.18.0.1%vmk1", host, sizeof host, &dev), 0);
    assert_string_equal(host, "198.18.0.1");
    assert_string_equal(dev, "vmk1");
    assert_int_equal(opt_split_dev("2001:db8::1%vmk0", host, sizeof host, &dev), 0);
    assert_string_equal(host, "2001:db8::1");
    assert_string_equal(dev, "vmk0");
    assert_int_equal(opt_split_dev("esx1.example%eth0", host, sizeof host, &dev), 0);
    assert_string_equal(host, "esx1.example");
    /* a link-local address's %zone is the address's, not --bind-dev */
    assert_int_equal(opt_split_dev("fe80::1%eth0", host, sizeof host, &dev), 0);
    assert_string_equal(host, "fe80::1%eth0");
    assert_null(dev);
    assert_int_equal(opt_split_dev("198.18.0.1", host, sizeof host, &dev), 0);
    assert_string_equal(host, "198.18.0.1");
    assert_null(dev);
    static const char *const bad[] = { "198.18.0.1%", "%vmk1", "a%b%c", "h%0123456789abcdef" };
    for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
        assert_int_equal(opt_split_dev(bad[i], host, sizeof host, &dev), -1);
    char small[4];
    assert_int_equal(opt_split_dev("198.18.0.1%vmk1", small, sizeof small, &dev), -1);
}

static struct perf_opts o;

static void set(int code, const char *v)
{
    char why[512] = "";
    if (opts_set(&o, code, v, why, sizeof why) != 0)
        fail_msg("option %d '%s': %s", code, v ? v : "", why);
}

static void set_refused(int code, const char *v, const char *needle)
{
    char why[512] = "";
    assert_int_equal(opts_set(&o, code, v, why, sizeof why), -1);
    if (!strstr(why, needle))
        fail_msg("refusal '%s' lacks '%s'", why, needle);
}

static void what_opts_set_makes(void **state)
{
    (void)state;
    opts_defaults(&o);
    assert_int_equal(o.rcv_timeout_ms, 120000);    /* iperf3's default */
    set('c', "198.18.0.2%vmk1");
    assert_string_equal(o.host, "198.18.0.2");
    assert_string_equal(o.bind_dev, "vmk1");
    set('B', "198.18.0.1%vmk2");
    assert_string_equal(o.bind, "198.18.0.1");
    assert_string_equal(o.bind_dev, "vmk2");
    set(O_BIND_DEV, "vmk3");
    assert_string_equal(o.bind_dev, "vmk3");
    set_refused('B', "%vmk1", "ADDR or ADDR%DEV");
    /* --dscp and -S set the same byte: the later wins, as in iperf3 */
    set(O_DSCP, "af41");
    assert_int_equal(o.tos, 136);
    set('S', "16");
    assert_int_equal(o.tos, 16);
    set(O_DSCP, "EF");
    assert_int_equal(o.tos, 184);
    set_refused(O_DSCP, "cs8", "bad --dscp 'cs8'");
    set('L', "0x12345");
    assert_int_equal(o.flowlabel, 0x12345);
    /* --no-fq-socket-pacing is 3.22's "--fq-rate 0": a later --fq-rate wins */
    set(O_FQ_RATE, "1G");
    assert_int_equal(o.fqrate, 1000000000);
    set(O_NO_FQ_PACING, NULL);
    assert_int_equal(o.fqrate, 0);
    set(O_FQ_RATE, "5m");
    assert_int_equal(o.fqrate, 5000000);
    set_refused(O_FQ_RATE, "10Q", "bad --fq-rate '10Q'");
    set(O_CNTL_KA, NULL);
    assert_int_equal(o.cntl_ka, 1);
    set(O_CNTL_KA, "20/4/2");
    assert_int_equal(o.cntl_ka_idle, 20);
    assert_int_equal(o.cntl_ka_cnt, 2);
    set_refused(O_CNTL_KA, "5/2/3", "IDLE must be more than INTV x CNT");
    set(O_RCV_TIMEOUT, "100");
    set_refused(O_RCV_TIMEOUT, "99", "allowed 100..86400000");
    set(O_SND_TIMEOUT, "0");
    set_refused(O_SND_TIMEOUT, "-1", "send timeout");
    set('m', NULL);
    assert_int_equal(o.mptcp, 1);
    set(O_GSRO, NULL);
    assert_int_equal(o.gsro, 1);
    set_refused(O_SCTP, NULL, "ESXi has no SCTP");
}

static void refused(const char *needle)
{
    char why[400] = "";
    assert_int_equal(opts_validate(&o, why, sizeof why), -1);
    if (!strstr(why, needle))
        fail_msg("refusal '%s' lacks '%s'", why, needle);
}

static void valid(void)
{
    char why[400] = "";
    if (opts_validate(&o, why, sizeof why) != 0)
        fail_msg("refused: %s", why);
}

static void client(const char *host)
{
    opts_defaults(&o);
    o.host = host;
}

static void roles_and_combinations(void **state)
{
    (void)state;
    /* iperf3 3.22: these are client options; --rcv-timeout, --snd-timeout,
     * --cntl-ka, --bind-dev and -m serve both roles */
    static const int client_only[] = { O_DSCP, 'L', O_FQ_RATE, O_NO_FQ_PACING, O_GSRO };
    for (size_t i = 0; i < ARRAY_SIZE(client_only); i++) {
        opts_defaults(&o);
        o.server = 1;
        o.given[client_only[i]] = 1;
        refused("is a client option");
    }
    static const int both[] = { O_RCV_TIMEOUT, O_SND_TIMEOUT, O_CNTL_KA, O_BIND_DEV, 'm' };
    for (size_t i = 0; i < ARRAY_SIZE(both); i++) {
        opts_defaults(&o);
        o.server = 1;
        o.given[both[i]] = 1;
        valid();
    }
    client("198.18.0.2");
    o.given[O_RCV_TIMEOUT] = 1;
    refused("--rcv-timeout on a client times its receiving");
    o.reverse = 1;
    valid();
    o.reverse = 0;
    o.bidir = 1;
    valid();
    client("198.18.0.2");
    o.mptcp = o.udp = 1;
    refused("--mptcp is a TCP transport");
    client("198.18.0.2");
    o.flowlabel = 5;
    refused("-L sets the IPv6 flow label");
    client("2001:db8::2");
    o.flowlabel = 5;
    valid();
    client("esx1.example");
    o.flowlabel = 5;
    o.family = AF_INET;
    refused("-L sets the IPv6 flow label");
}

static void warnings_joined(char *out, size_t len)
{
    char why[400];
    out[0] = '\0';
    for (int k = 0; (k = opts_warning(&o, k, why, sizeof why)) >= 0; k++) {
        size_t used = strlen(out);
        snprintf(out + used, len - used, "%s|", why);
    }
}

static void advisory_warnings(void **state)
{
    (void)state;
    char w[2048];
    client("2001:db8::2");
    o.flowlabel = 5;
    o.gsro = 1;
    warnings_joined(w, sizeof w);
    assert_non_null(strstr(w, "--gsro is about UDP"));
    assert_null(strstr(w, "-L labels TCP"));
    o.udp = 1;
    warnings_joined(w, sizeof w);
    assert_null(strstr(w, "--gsro"));
    assert_non_null(strstr(w, "-L labels TCP data streams"));
    client("198.18.0.2");
    o.given[O_NO_FQ_PACING] = 1;
    warnings_joined(w, sizeof w);
    assert_non_null(strstr(w, "--no-fq-socket-pacing is deprecated"));
}

static void rcv_timeout_clock(void **state)
{
    (void)state;
    struct rcv_idle r;
    const uint64_t T0 = 1000 * NS_PER_SEC, MS = NS_PER_MS;
    rcv_idle_init(&r, 1, 1500, T0);
    assert_int_equal(rcv_idle_check(&r, T0 + 1499 * MS, 0), 0);
    assert_int_equal(rcv_idle_check(&r, T0 + 1500 * MS, 0), 1);
    /* bytes that come restart the clock */
    rcv_idle_init(&r, 1, 1500, T0);
    assert_int_equal(rcv_idle_check(&r, T0 + 1000 * MS, 10), 0);
    assert_int_equal(rcv_idle_check(&r, T0 + 2400 * MS, 10), 0);
    assert_int_equal(rcv_idle_check(&r, T0 + 2500 * MS, 10), 1);
    /* a side that only sends is never idle */
    rcv_idle_init(&r, 0, 1500, T0);
    assert_int_equal(rcv_idle_check(&r, T0 + 3600 * NS_PER_SEC, 0), 0);
}

static void wire_parameters_both_ways(void **state)
{
    (void)state;
    struct test_params p, q;
    client("198.18.0.2");
    o.udp = 1;
    o.len = 1400;
    o.gsro = 1;
    o.fqrate = 160000000;
    client_params(&o, 1448, &p);
    assert_int_equal(p.gso, 1);
    assert_int_equal(p.gro, 1);
    assert_int_equal(p.gso_dg_size, 1400);
    assert_int_equal(p.gso_bf_size, 65507 / 1400 * 1400);
    assert_int_equal(p.gro_bf_size, 65507);
    assert_int_equal(p.fqrate, 160000000);
    size_t n;
    char *js = params_encode(&p, &n);
    assert_non_null(js);
    assert_non_null(strstr(js, "\"fqrate\":160000000"));
    assert_non_null(strstr(js, "\"gso\":1"));
    assert_non_null(strstr(js, "\"gso_bf_size\":64400"));
    assert_non_null(strstr(js, "\"gro_bf_size\":65507"));
    assert_null(strstr(js, "mptcp"));
    const char *why = NULL;
    assert_int_equal(params_decode(js, n, &q, &why), 0);
    assert_int_equal(q.gso, 1);
    assert_int_equal(q.gso_bf_size, 64400);
    assert_int_equal(q.fqrate, 160000000);
    free(js);
    /* TCP: no gso keys; -m and -L on the wire */
    client("2001:db8::2");
    o.mptcp = 1;
    o.flowlabel = 0x12345;
    o.gsro = 1;
    client_params(&o, 1440, &p);
    js = params_encode(&p, &n);
    assert_non_null(strstr(js, "\"mptcp\":true"));
    assert_non_null(strstr(js, "\"flowlabel\":74565"));
    assert_null(strstr(js, "gso"));
    assert_int_equal(params_decode(js, n, &q, &why), 0);
    assert_int_equal(q.mptcp, 1);
    assert_int_equal(q.flowlabel, 0x12345);
    free(js);
    /* what an iperf3 3.22 UDP client sends without --gsro */
    static const char js322[] = "{\"udp\":true,\"omit\":0,\"time\":1,\"num\":0,\"blockcount\":0,"
        "\"parallel\":1,\"len\":1448,\"bandwidth\":1048576,\"pacing_timer\":1000,\"gso\":0,"
        "\"gso_dg_size\":0,\"gso_bf_size\":65507,\"gro\":0,\"gro_bf_size\":65507,"
        "\"client_version\":\"3.22\"}";
    assert_int_equal(params_decode(js322, strlen(js322), &q, &why), 0);
    assert_int_equal(q.gso, 0);
    assert_int_equal(q.gro_bf_size, 65507);
    /* captured from iperf3 3.22 -c ::1 -m -L 0x12345 --dscp af41, and from
     * iperf3 3.22 -c -u -b 100M -l 1400 --gsro --fq-rate 50M: our encoding above
     * gives the same gso sizes */
    static const char mp[] = "{\"tcp\":true,\"omit\":0,\"time\":1,\"num\":0,\"blockcount\":0,"
        "\"parallel\":1,\"mptcp\":true,\"len\":131072,\"pacing_timer\":1000,\"TOS\":136,"
        "\"flowlabel\":74565,\"client_version\":\"3.22\"}";
    assert_int_equal(params_decode(mp, strlen(mp), &q, &why), 0);
    assert_int_equal(q.mptcp, 1);
    assert_int_equal(q.tos, 136);
    assert_int_equal(q.flowlabel, 0x12345);
    static const char gs[] = "{\"udp\":true,\"omit\":0,\"time\":1,\"num\":0,\"blockcount\":0,"
        "\"parallel\":1,\"len\":1400,\"bandwidth\":100000000,\"fqrate\":50000000,"
        "\"pacing_timer\":1000,\"gso\":1,\"gso_dg_size\":1400,\"gso_bf_size\":64400,\"gro\":1,"
        "\"gro_bf_size\":65507,\"client_version\":\"3.22\"}";
    assert_int_equal(params_decode(gs, strlen(gs), &q, &why), 0);
    assert_int_equal(q.fqrate, 50000000);
    assert_int_equal(q.gso_bf_size, 64400);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(dscp_names_table),
        cmocka_unit_test(flow_labels),
        cmocka_unit_test(cntl_ka_forms),
        cmocka_unit_test(percent_dev),
        cmocka_unit_test(what_opts_set_makes),
        cmocka_unit_test(roles_and_combinations),
        cmocka_unit_test(advisory_warnings),
        cmocka_unit_test(rcv_timeout_clock),
        cmocka_unit_test(wire_parameters_both_ways),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
