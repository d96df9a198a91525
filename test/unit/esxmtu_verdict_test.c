/* esxmtu verdict.c / check.c / trace.c: from probe outcomes to verdicts and the
 * limiting hop, without sockets. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <errno.h>
#include <string.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <sys/socket.h>

#include "../../tools/esxmtu/check.h"
#include "../../tools/esxmtu/trace.h"
#include "../../tools/esxmtu/verdict.h"
#include "../../tools/esxmtu/discover.h"
#include "clock.h"

const char tool_name[] = "esxmtu";

static union sockaddr_any a4(const char *s)
{
    union sockaddr_any a;
    memset(&a, 0, sizeof a);
    a.in4.sin_family = AF_INET;
    inet_pton(AF_INET, s, &a.in4.sin_addr);
    return a;
}

static void decides_in_order_of_evidence(void **state)
{
    (void)state;
    struct vstats s;
    memset(&s, 0, sizeof s);
    s.big_sent = 3;
    s.small_sent = 3;
    assert_int_equal(verdict_decide(&s), V_NO_REPLY);
    s.small_recv = 3;
    assert_int_equal(verdict_decide(&s), V_BLACK_HOLE);
    s.ttl = 1;
    assert_int_equal(verdict_decide(&s), V_TTL_EXCEEDED);
    s.unreach = 1;
    assert_int_equal(verdict_decide(&s), V_UNREACHABLE);
    s.big_short = 1;
    assert_int_equal(verdict_decide(&s), V_SHORT_REPLY);
    s.too_big = 1;
    assert_int_equal(verdict_decide(&s), V_TOO_BIG);
    s.local = 1;
    assert_int_equal(verdict_decide(&s), V_LOCAL_MTU);
    /* without PMTUDISC_PROBE the local refusal after a router's too-big is the
     * path-MTU cache holding that router's MTU: the router's evidence decides */
    s.pmtu_cache = 1;
    assert_int_equal(verdict_decide(&s), V_TOO_BIG);
    s.too_big = 0;
    assert_int_equal(verdict_decide(&s), V_LOCAL_MTU);
    s.too_big = 1;
    s.pmtu_cache = 0;
    s.big_recv = 1;                   /* one full-size reply is proof: PASS with loss */
    assert_int_equal(verdict_decide(&s), V_PASS);
    assert_string_equal(verdict_name(V_BLACK_HOLE), "BLACK-HOLE");
    assert_string_equal(verdict_name(V_LOCAL_MTU), "LOCAL-MTU");
    assert_string_equal(verdict_name(99), "?");
    assert_true(verdict_ok(V_PASS));
    assert_false(verdict_ok(V_TOO_BIG));
    assert_string_equal(verdict_icmp_name(AF_INET, 3, 4), "frag needed and DF set");
    assert_string_equal(verdict_icmp_name(AF_INET, 3, 200), "destination unreachable");
    assert_string_equal(verdict_icmp_name(AF_INET6, 1, 1), "administratively prohibited");
}

static void collects_probe_outcomes(void **state)
{
    (void)state;
    union sockaddr_any dst = a4("198.18.1.2"), r = a4("198.18.0.1");
    struct peer pe;
    memset(&pe, 0, sizeof pe);
    pe.family = AF_INET;
    check_sizes(&pe, 9000);
    assert_int_equal(pe.small_mtu, 84);
    struct probe v[6];
    memset(v, 0, sizeof v);
    for (int i = 0; i < 6; i++) {
        v[i].dst = &dst;
        v[i].group = i % 2;           /* peer 0: even = full size, odd = small */
    }
    v[0].res = PR_TOO_BIG; v[0].info = 1500; v[0].from = r; v[0].from_set = 1;
    v[2].res = PR_TOO_BIG; v[2].info = 1500; v[2].from = r; v[2].from_set = 1;
    v[4].res = PR_LOST;
    v[1].res = v[3].res = v[5].res = PR_REPLY;
    check_collect(v, 6, 0, &pe.st);
    assert_int_equal(pe.st.big_sent, 3);
    assert_int_equal(pe.st.small_recv, 3);
    assert_int_equal(pe.st.too_big, 2);
    assert_int_equal(pe.st.next_hop_mtu, 1500);
    assert_true(pe.st.router_set);
    assert_int_equal(verdict_decide(&pe.st), V_TOO_BIG);
    /* probes of another peer are not counted */
    struct vstats other;
    memset(&other, 0, sizeof other);
    check_collect(v, 6, 1, &other);
    assert_int_equal(other.big_sent + other.small_sent, 0);
    /* replies with RTTs: min/avg/max */
    memset(&pe.st, 0, sizeof pe.st);
    v[0].res = v[2].res = v[4].res = PR_REPLY;
    v[0].rtt_ns = 1 * NS_PER_MS; v[2].rtt_ns = 3 * NS_PER_MS; v[4].rtt_ns = 2 * NS_PER_MS;
    check_collect(v, 6, 0, &pe.st);
    assert_int_equal(verdict_decide(&pe.st), V_PASS);
    assert_true(pe.st.rtt_min > 0.99 && pe.st.rtt_min < 1.01);
    assert_true(pe.st.rtt_max > 2.99 && pe.st.rtt_max < 3.01);
    /* a short reply alone is a failure */
    memset(&pe.st, 0, sizeof pe.st);
    v[0].res = v[2].res = v[4].res = PR_SHORT;
    check_collect(v, 6, 0, &pe.st);
    assert_int_equal(verdict_decide(&pe.st), V_SHORT_REPLY);
    /* a small MTU needs no small probe */
    check_sizes(&pe, 84);
    assert_int_equal(pe.small_mtu, 0);
}

static void trace_names_the_limiting_hop(void **state)
{
    (void)state;
    union sockaddr_any dst = a4("198.18.1.2"), r = a4("198.18.0.1");
    struct trace_report t;
    memset(&t, 0, sizeof t);
    t.max_hops = 30;
    for (int h = 1; h <= 30; h++) {
        t.hop[h].small_res = PR_REPLY;
        t.hop[h].small_from = dst;
        t.hop[h].small_from_set = 1;
        t.hop[h].big_res = PR_TOO_BIG;
        t.hop[h].big_from = r;
        t.hop[h].big_from_set = 1;
        t.hop[h].big_info = 1500;
    }
    t.hop[1].small_res = PR_TTL;
    t.hop[1].small_from = r;
    t.hop[1].big_res = PR_TTL;
    trace_analyze(&t, &dst);
    assert_int_equal(t.dest_hop, 2);
    assert_int_equal(t.nhops, 2);
    assert_int_equal(t.kind, TR_TOO_BIG);
    assert_int_equal(t.limit_hop, 1);      /* R refused the TTL-2 probe: hop 1 */
    assert_int_equal(t.limit_mtu, 1500);

    /* black hole after hop 1: full-size lost at hop 2 and beyond */
    for (int h = 2; h <= 30; h++)
        t.hop[h].big_res = PR_LOST;
    trace_analyze(&t, &dst);
    assert_int_equal(t.kind, TR_VANISH);
    assert_int_equal(t.limit_hop, 2);
    /* one lost full-size probe before a passing hop is loss, not a black hole */
    t.hop[2].big_res = PR_REPLY;
    t.hop[1].big_res = PR_LOST;
    trace_analyze(&t, &dst);
    assert_int_equal(t.kind, TR_PASS);
    /* nothing answers */
    memset(&t, 0, sizeof t);
    t.max_hops = 5;
    for (int h = 1; h <= 5; h++)
        t.hop[h].small_res = t.hop[h].big_res = PR_LOST;
    trace_analyze(&t, &dst);
    assert_int_equal(t.kind, TR_NO_REPLY);
}

/* one IPv4 peer at MTU 9000 and the probes of a default check: 3 rounds of a full-size
 * probe (even index) and a small one (odd), no result yet */
static void three_rounds(struct peer *pe, struct probe v[6], const union sockaddr_any *dst)
{
    memset(pe, 0, sizeof *pe);
    pe->family = AF_INET;
    check_sizes(pe, 9000);
    memset(v, 0, 6 * sizeof *v);
    for (int i = 0; i < 6; i++) {
        v[i].dst = dst;
        v[i].group = i % 2;
        v[i].mtu = i % 2 ? 84 : 9000;
    }
}

/* ENOBUFS for full-size probes while small ones come back is this host refusing the
 * size (LOCAL-MTU); refused sends with nothing answering: SEND-FAILED, not UNREACHABLE */
static void local_send_failures(void **state)
{
    (void)state;
    union sockaddr_any dst = a4("198.18.5.2");
    struct peer pe;
    struct probe v[6];
    three_rounds(&pe, v, &dst);
    v[0].res = PR_LOST;                           /* queued behind ARP, dropped silently */
    v[2].res = v[4].res = PR_SEND_FAIL;
    v[2].err = v[4].err = ENOBUFS;
    v[2].tries = v[4].tries = 8;
    v[1].res = v[3].res = v[5].res = PR_REPLY;
    check_collect(v, 6, 0, &pe.st);
    assert_int_equal(pe.st.send_fail, 2);
    assert_int_equal(pe.st.send_fail_err, ENOBUFS);
    assert_int_equal(pe.st.send_fail_tries, 8);
    assert_int_equal(verdict_decide(&pe.st), V_LOCAL_MTU);
    assert_true(verdict_answered(V_LOCAL_MTU));    /* --discover runs */
    /* small ones refused too and nothing answered */
    memset(&pe.st, 0, sizeof pe.st);
    v[1].res = v[3].res = v[5].res = PR_SEND_FAIL;
    check_collect(v, 6, 0, &pe.st);
    assert_int_equal(pe.st.small_send_fail, 3);
    assert_int_equal(verdict_decide(&pe.st), V_SEND_FAILED);
    assert_false(verdict_answered(V_SEND_FAILED));
    assert_string_equal(verdict_name(V_SEND_FAILED), "SEND-FAILED");
    /* a real error still says more than a refused send */
    v[0].res = PR_UNREACH;
    memset(&pe.st, 0, sizeof pe.st);
    check_collect(v, 6, 0, &pe.st);
    assert_int_equal(verdict_decide(&pe.st), V_UNREACHABLE);
}

/* a too-big whose MTU cannot be is named, and the verdict is what the probes showed */
static void bogus_next_hop_mtu(void **state)
{
    (void)state;
    union sockaddr_any dst = a4("198.18.1.2"), r = a4("198.18.0.1");
    struct peer pe;
    struct probe v[6];
    three_rounds(&pe, v, &dst);
    for (int i = 0; i < 6; i++)
        v[i].res = i % 2 ? PR_REPLY : PR_LOST;
    /* MTU 0 (probe.c keeps an impossible value apart: the probe ends lost) */
    v[0].bogus = 1; v[0].bogus_mtu = 0; v[0].bogus_from = r;
    /* 68 is a legal minimum, but an 84-byte probe came back: contradicted */
    v[2].res = PR_TOO_BIG; v[2].info = 68; v[2].from = r; v[2].from_set = 1;
    check_collect(v, 6, 0, &pe.st);
    assert_int_equal(pe.st.too_big, 0);
    assert_int_equal(pe.st.bogus, 2);
    assert_int_equal(pe.st.bogus_mtu, 0);
    assert_true(pe.st.bogus_from_set);
    assert_int_equal(pe.st.big_lost, 3);
    assert_int_equal(verdict_decide(&pe.st), V_BLACK_HOLE);
    char why[64];
    assert_string_equal(verdict_bogus_why(AF_INET, 0, 9000, 84, why, sizeof why), "below the IPv4 minimum 68");
    assert_string_equal(verdict_bogus_why(AF_INET, 68, 9000, 84, why, sizeof why), "below 84, which was answered");
    assert_string_equal(verdict_bogus_why(AF_INET, 65535, 9000, 84, why, sizeof why), "not below the 9000-byte probe");
    assert_string_equal(verdict_bogus_why(AF_INET6, 1000, 9000, 0, why, sizeof why), "below the IPv6 minimum 1280");
    assert_null(verdict_bogus_why(AF_INET, 1500, 9000, 84, why, sizeof why));
    /* a true next-hop MTU beside a lie: TOO-BIG with the true one */
    v[4].res = PR_TOO_BIG; v[4].info = 1500; v[4].from = r; v[4].from_set = 1;
    memset(&pe.st, 0, sizeof pe.st);
    check_collect(v, 6, 0, &pe.st);
    assert_int_equal(verdict_decide(&pe.st), V_TOO_BIG);
    assert_int_equal(pe.st.next_hop_mtu, 1500);
}

/* the one decision, when every phase is over: a next-hop MTU below the size --discover
 * saw pass was a lie (its too-bigs join the bogus ones, counted lost, their sender no
 * router); one at or above it stands; a probe without an outcome is INTERRUPTED */
static void decided_once_after_discovery(void **state)
{
    (void)state;
    union sockaddr_any dst = a4("198.18.1.2"), r = a4("198.18.0.1");
    struct peer pe;
    struct probe v[6];
    three_rounds(&pe, v, &dst);
    for (int i = 0; i < 6; i++)
        v[i].res = i % 2 ? PR_REPLY : PR_TOO_BIG;
    for (int i = 0; i < 6; i += 2) {
        v[i].info = 1400;
        v[i].from = r;
        v[i].from_set = 1;
    }
    check_collect(v, 6, 0, &pe.st);
    assert_int_equal(check_evidence(&pe), V_TOO_BIG);
    struct vstats before = pe.st;
    pe.did_discover = 1;
    pe.disc.state = DS_FOUND;
    pe.disc.mtu = 1400;              /* the router's MTU is what passed: it stands */
    check_decide(&pe);
    assert_int_equal(pe.verdict, V_TOO_BIG);
    assert_memory_equal(&pe.st, &before, sizeof before);
    pe.disc.mtu = 1500;              /* 1500 passed: a next-hop MTU of 1400 cannot be */
    check_decide(&pe);
    assert_int_equal(pe.verdict, V_BLACK_HOLE);
    assert_int_equal(pe.st.too_big, 0);
    assert_int_equal(pe.st.bogus, 3);
    assert_int_equal(pe.st.bogus_mtu, 1400);
    assert_true(pe.st.bogus_from_set);
    assert_int_equal(pe.st.big_lost, 3);
    assert_false(pe.st.router_set);
    /* a probe a stop signal left without an outcome: no conclusion, whatever the rest */
    pe.st.pending = 1;
    check_decide(&pe);
    assert_int_equal(pe.verdict, V_INTERRUPTED);
}

/* every enum value has its word (the tables are indexed by the enums; a gap or a
 * missing last entry would print "?" or NULL in the JSON) */
static void every_enum_has_a_name(void **state)
{
    (void)state;
    for (int v = V_PASS; v <= V_LAST; v++)
        assert_string_not_equal(verdict_name((enum verdict)v), "?");
    for (int r = PR_PENDING; r <= PR_LAST; r++)
        assert_string_not_equal(probe_res_name((enum probe_res)r), "?");
    for (int m = METHOD_AUTO; m <= METHOD_LAST; m++) {
        assert_string_not_equal(probe_method_name((enum probe_method)m), "?");
        assert_int_equal(probe_method_parse(probe_method_name((enum probe_method)m)), m);
    }
    for (int k = TR_PASS; k <= TR_LAST; k++)
        assert_string_not_equal(trace_kind_name((enum trace_kind)k), "?");
    for (int s = DS_RUN; s <= DS_LAST; s++)
        assert_string_not_equal(disc_state_name((enum disc_state)s), "?");
    for (int p = DP_NONE; p <= DP_LAST; p++)
        assert_string_not_equal(disc_proof_name((enum disc_proof)p), "?");
    assert_string_equal(probe_res_name(PR_TOO_BIG), "too-big");
    assert_string_equal(disc_state_name(DS_GAVE_UP), "gave-up");
    assert_string_equal(probe_res_name((enum probe_res)99), "?");
    assert_int_equal(probe_method_parse("carrier-pigeon"), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(decides_in_order_of_evidence),
        cmocka_unit_test(collects_probe_outcomes),
        cmocka_unit_test(trace_names_the_limiting_hop),
        cmocka_unit_test(local_send_failures),
        cmocka_unit_test(bogus_next_hop_mtu),
        cmocka_unit_test(decided_once_after_discovery),
        cmocka_unit_test(every_enum_has_a_name),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
