/* esxmtu scratch.c: --each-uplink's calls, the test address's checks, the free vmk
 * name and the leftovers a host's listing shows. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <arpa/inet.h>

#include "../../tools/esxmtu/scratch.h"

const char tool_name[] = "esxmtu";

static const char iflist[] =
    "vmk0\n   Name: vmk0\n   Portgroup: Management Network\n\n"
    "vmk1\n   Name: vmk1\n   Portgroup: vMotion\n\n"
    "vmk90\n   Name: vmk90\n   Portgroup: esxmtu-scratch-vmnic1\n\n"
    "vmk91\n   Name: vmk91\n   Portgroup: VM esxmtu-scratch-not\n";

static const char pglist[] =
    "Name                   Virtual Switch  Active Clients  VLAN ID\n"
    "---------------------  --------------  --------------  -------\n"
    "Management Network     vSwitch0        1               0\n"
    "esxmtu-scratch-vmnic1  vSwitch1        1               20\n"
    "esxmtu-scratch-vmnic0  vSwitch1        0               20\n";

static const char ipv4[] =
    "Name   IPv4 Address  IPv4 Netmask   IPv4 Broadcast  Address Type  Gateway  DHCP DNS\n"
    "-----  ------------  -------------  --------------  ------------  -------  --------\n"
    "vmk0   198.18.0.11   255.255.255.0  198.18.0.255    STATIC        0.0.0.0  false\n"
    "vmk1   198.18.4.1    255.255.255.0  198.18.4.255    STATIC        0.0.0.0  false\n";

static void the_calls(void **state)
{
    (void)state;
    struct scratch_ctx c = { "/bin/esxcli", "vSwitch1", "vmnic1", "vmotion", "vmk90", 20, 9000, "", "", "" };
    scratch_pg_name("vmnic1", c.pg, sizeof c.pg);
    snprintf(c.addr, sizeof c.addr, "198.18.4.50");
    snprintf(c.mask, sizeof c.mask, "255.255.255.0");
    static const char *const want[SS_MAKE_STEPS] = {
        "/bin/esxcli network vswitch standard portgroup add -p esxmtu-scratch-vmnic1 -v vSwitch1",
        "/bin/esxcli network vswitch standard portgroup set -p esxmtu-scratch-vmnic1 --vlan-id 20",
        "/bin/esxcli network vswitch standard portgroup policy failover set -p esxmtu-scratch-vmnic1 "
        "--active-uplinks vmnic1 --load-balancing explicit",
        "/bin/esxcli network ip interface add -i vmk90 -p esxmtu-scratch-vmnic1 -m 9000 -N vmotion",
        "/bin/esxcli network ip interface ipv4 set -i vmk90 -I 198.18.4.50 -N 255.255.255.0 -t static",
    };
    for (int s = 0; s < SS_MAKE_STEPS; s++) {
        struct scratch_argv a;
        char line[400] = "";
        scratch_make_argv((enum scratch_step)s, &c, &a);
        for (size_t i = 0; a.argv[i]; i++)
            snprintf(line + strlen(line), sizeof line - strlen(line), "%s%s", i ? " " : "", a.argv[i]);
        assert_string_equal(line, want[s]);
    }
}

static void the_test_address(void **state)
{
    (void)state;
    struct in_addr t, v;
    int p, vp;
    char why[300];
    assert_int_equal(scratch_parse_test_ip("198.18.4.50/24", &t, &p, why, sizeof why), 0);
    assert_int_equal(p, 24);
    assert_int_equal(scratch_parse_test_ip("198.18.4.50", &t, &p, why, sizeof why), -1);
    assert_int_equal(scratch_parse_test_ip("198.18.4.50/31", &t, &p, why, sizeof why), -1);
    assert_int_equal(scratch_parse_test_ip("2001:db8::5/64", &t, &p, why, sizeof why), -1);
    assert_int_equal(scratch_parse_test_ip("198.18.4.50/24x", &t, &p, why, sizeof why), -1);
    assert_int_equal(scratch_parse_ipv4(ipv4, sizeof ipv4 - 1, "vmk1", &v, &vp), 0);
    assert_int_equal(vp, 24);
    assert_int_equal(scratch_parse_ipv4(ipv4, sizeof ipv4 - 1, "vmk7", &v, &vp), -1);
    assert_int_equal(scratch_subnet_ok(t, 24, v, 24, "vmk1", why, sizeof why), 0);
    inet_pton(AF_INET, "198.18.5.50", &t);
    assert_int_equal(scratch_subnet_ok(t, 24, v, 24, "vmk1", why, sizeof why), -1);
    assert_non_null(strstr(why, "lies outside vmk1's subnet (198.18.4.1/24)"));
    inet_pton(AF_INET, "198.18.4.255", &t);
    assert_int_equal(scratch_subnet_ok(t, 24, v, 24, "vmk1", why, sizeof why), -1);
    assert_non_null(strstr(why, "network or broadcast"));
    inet_pton(AF_INET, "198.18.4.1", &t);
    assert_int_equal(scratch_subnet_ok(t, 24, v, 24, "vmk1", why, sizeof why), -1);
    char who[32] = "";
    inet_pton(AF_INET, "198.18.0.11", &t);
    assert_int_equal(scratch_addr_taken(ipv4, sizeof ipv4 - 1, t, who, sizeof who), 1);
    assert_string_equal(who, "vmk0");
    inet_pton(AF_INET, "198.18.4.50", &t);
    assert_int_equal(scratch_addr_taken(ipv4, sizeof ipv4 - 1, t, who, sizeof who), 0);
}

static void names_and_leftovers(void **state)
{
    (void)state;
    char vmk[16];
    assert_int_equal(scratch_free_vmk(iflist, sizeof iflist - 1, vmk, sizeof vmk), 0);
    assert_string_equal(vmk, "vmk92");
    struct scratch_left l;
    assert_int_equal(scratch_leftovers(iflist, sizeof iflist - 1, pglist, sizeof pglist - 1, &l), 3);
    char text[200];
    scratch_left_text(&l, text, sizeof text);
    assert_string_equal(text, "vmk90, esxmtu-scratch-vmnic1 (vSwitch1), esxmtu-scratch-vmnic0 (vSwitch1)");
    assert_int_equal(scratch_leftovers(NULL, 0, "garbage\n", 8, &l), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_calls),
        cmocka_unit_test(the_test_address),
        cmocka_unit_test(names_and_leftovers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
