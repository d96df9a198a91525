/* esxmtu esxcli_ping.c: esxcli network diag ping's plain output, read by field name
 * whatever the spacing, into the evidence verdict.c decides from. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <sys/socket.h>

#include "../../tools/esxmtu/esxcli_ping.h"
#include "../../tools/esxmtu/verdict.h"

const char tool_name[] = "esxmtu";

/* the layout the VCF 9.0 vSAN troubleshooting documentation shows, ESXi's "Recieved" */
static const char jumbo_ok[] =
    "   Trace:\n"
    "         Received Bytes: 8980\n"
    "         Host: 198.18.3.2\n"
    "         ICMP Seq: 0\n"
    "         TTL: 64\n"
    "         Round-trip Time: 770 us\n"
    "         Dup: false\n"
    "         Detail:\n"
    "\n"
    "         Received Bytes: 8980\n"
    "         Host: 198.18.3.2\n"
    "         ICMP Seq: 1\n"
    "         TTL: 64\n"
    "         Round-trip Time: 701 us\n"
    "         Dup: false\n"
    "         Detail:\n"
    "   Summary:\n"
    "         Host Addr: 198.18.3.2\n"
    "         Transmitted: 2\n"
    "         Recieved: 2\n"
    "         Duplicated: 0\n"
    "         Packet Lost: 0\n"
    "         Round-trip Min: 701 us\n"
    "         Round-trip Avg: 735 us\n"
    "         Round-trip Max: 770 us\n";

static const char none_back[] =
    "   Trace:\n"
    "   Summary:\n"
    "         Host Addr: 198.18.3.2\n"
    "         Transmitted: 3\n"
    "         Recieved: 0\n"
    "         Duplicated: 0\n"
    "         Packet Lost: 100\n"
    "         Round-trip Min: 999999000 us\n"
    "         Round-trip Avg: -2147483648 us\n"
    "         Round-trip Max: 0 us\n";

static void reads_the_documented_layout(void **state)
{
    (void)state;
    struct ecp_result r;
    assert_int_equal(ecp_parse(jumbo_ok, strlen(jumbo_ok), 8972, &r), 0);
    assert_int_equal(r.transmitted, 2);
    assert_int_equal(r.received, 2);
    assert_int_equal(r.replies, 2);
    assert_int_equal(r.short_replies, 0);
    assert_true(r.have_rtt);
    assert_true(r.rtt_min_ms > 0.700 && r.rtt_min_ms < 0.702);
    assert_true(r.rtt_max_ms > 0.769 && r.rtt_max_ms < 0.771);
    assert_int_equal(r.too_long, 0);
}

static void any_spacing_either_spelling(void **state)
{
    (void)state;
    static const char odd[] = "Trace:\r\n  Received   Bytes :8980\r\nSUMMARY:\n\tTransmitted:3\n"
                              "  Received :  1 \n round-trip  min: 0.5 ms\nRound-trip Avg:1 ms\nRound-trip Max:2 ms";
    struct ecp_result r;
    assert_int_equal(ecp_parse(odd, strlen(odd), 8972, &r), 0);
    assert_int_equal(r.transmitted, 3);
    assert_int_equal(r.received, 1);
    assert_int_equal(r.replies, 1);
    assert_true(r.rtt_min_ms > 0.49 && r.rtt_min_ms < 0.51);
    /* a reply shorter than data + 8 is a short one */
    assert_int_equal(ecp_parse(odd, strlen(odd), 9000, &r), 0);
    assert_int_equal(r.short_replies, 1);
}

static void refusals_and_garbage(void **state)
{
    (void)state;
    struct ecp_result r;
    static const char refused[] = "Error: sendto() failed (Message too long)\n";
    assert_int_equal(ecp_parse(refused, strlen(refused), 8973, &r), -1);
    assert_int_equal(r.too_long, 1);
    assert_string_equal(r.error, "Error: sendto() failed (Message too long)");
    static const char junk[] = "Summary:\nRecieved: 5\nTransmitted: lots\n\0\0\0";
    assert_int_equal(ecp_parse(junk, sizeof junk, 100, &r), -1);
    assert_int_equal(ecp_parse("", 0, 100, &r), -1);
    /* more received than sent is read as said: ecp_untrusted refuses it before any fold */
    static const char lie[] = "Summary:\nTransmitted: 1\nRecieved: 9\n";
    assert_int_equal(ecp_parse(lie, strlen(lie), 100, &r), 0);
    assert_int_equal(r.received, 9);
}

/* figures no true answer has: each refused with what was wrong */
static void untrusted_answers(void **state)
{
    (void)state;
    static const struct { const char *text; const char *why; } cases[] = {
        { "Summary:\nTransmitted: 3\nRecieved: 3\nRound-trip Min: 100 us\nRound-trip Avg: 200 us\n"
          "Round-trip Max: 300 us\n", NULL },
        { "Summary:\nTransmitted: 1000000\nRecieved: 3\n", "Transmitted 1000000, but --count was 3" },
        { "Summary:\nTransmitted: 3\nRecieved: 9\n", "Recieved 9 of 3 transmitted" },
        { "Summary:\nTransmitted: 3\nRecieved: 3\nRound-trip Min: 1 ms\nRound-trip Avg: 1 ms\n"
          "Round-trip Max: 1e308 ms\n", "a round-trip time over 3000 ms" },
        { "Summary:\nTransmitted: 3\nRecieved: 3\nRound-trip Min: 900 us\nRound-trip Avg: 200 us\n"
          "Round-trip Max: 300 us\n", "out of order" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct ecp_call c;
        memset(&c, 0, sizeof c);
        c.count = 3;
        c.wait_s = 2;
        assert_int_equal(ecp_parse(cases[i].text, strlen(cases[i].text), 100, &c.res), 0);
        char why[200] = "";
        int rc = ecp_untrusted(&c, why, sizeof why);
        if (!cases[i].why) {
            assert_int_equal(rc, 0);
        } else {
            assert_int_equal(rc, -1);
            assert_non_null(strstr(why, cases[i].why));
        }
    }
}

static enum verdict decide(const char *big, const char *small)
{
    struct ecp_result b, s;
    struct vstats v;
    memset(&v, 0, sizeof v);
    (void)ecp_parse(big, strlen(big), 8972, &b);
    if (small)
        (void)ecp_parse(small, strlen(small), 56, &s);
    ecp_fold(&b, small ? &s : NULL, &v);
    return verdict_decide(&v);
}

static void the_prober_s_verdicts(void **state)
{
    (void)state;
    static const char small_ok[] = "Trace:\nReceived Bytes: 64\nSummary:\nTransmitted: 3\nRecieved: 3\n";
    assert_int_equal(decide(jumbo_ok, small_ok), V_PASS);
    assert_int_equal(decide(none_back, small_ok), V_BLACK_HOLE);
    assert_int_equal(decide(none_back, none_back), V_NO_REPLY);
    assert_int_equal(decide("Error: sendto() failed (Message too long)\n", small_ok), V_LOCAL_MTU);
    static const char shorter[] = "Trace:\nReceived Bytes: 1480\nSummary:\nTransmitted: 1\nRecieved: 1\n";
    assert_int_equal(decide(shorter, small_ok), V_SHORT_REPLY);
}

static void builds_the_documented_call(void **state)
{
    (void)state;
    struct ecp_ask a = { "/bin/esxcli", "vmotion", "vmk1", 2, 1, NULL, 0 };
    struct ecp_call c;
    ecp_build(&c, &a, "198.18.3.2", AF_INET, 8972);
    const char *want[] = { "/bin/esxcli", "network", "diag", "ping", "--netstack", "vmotion", "--interface", "vmk1",
                           "--ipv4", "--df", "--size", "8972", "--count", "2", "--wait", "1", "--host",
                           "198.18.3.2", NULL };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        if (!want[i]) {
            assert_null(c.argv[i]);
            break;
        }
        assert_string_equal(c.argv[i], want[i]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reads_the_documented_layout),
        cmocka_unit_test(any_spacing_either_spelling),
        cmocka_unit_test(refusals_and_garbage),
        cmocka_unit_test(the_prober_s_verdicts),
        cmocka_unit_test(builds_the_documented_call),
        cmocka_unit_test(untrusted_answers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
