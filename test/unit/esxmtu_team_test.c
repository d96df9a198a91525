/* esxmtu team.c: a vmk's team read from recorded answers of esxcli, vsish and vim-cmd
 * (in the layouts public captures show), and the finding rule: which uplink's path is
 * smaller than the vmk, said as when it bites and with failback's part. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "../../tools/esxmtu/team.h"

const char tool_name[] = "esxmtu";

static const char iflist[] =
    "vmk0\n"
    "   Name: vmk0\n"
    "   MAC Address: 00:50:56:00:00:01\n"
    "   Enabled: true\n"
    "   Portset: vSwitch0\n"
    "   Portgroup: Management Network\n"
    "   Netstack Instance: defaultTcpipStack\n"
    "   VDS Name: N/A\n"
    "   MTU: 1500\n"
    "   Port ID: 33554436\n"
    "\n"
    "vmk1\n"
    "   Name: vmk1\n"
    "   MAC Address: 00:50:56:6a:1b:2c\n"
    "   Enabled: true\n"
    "   Portset: vSwitch1\n"
    "   Portgroup: vMotion\n"
    "   Netstack Instance: vmotion\n"
    "   VDS Name: N/A\n"
    "   VDS UUID: N/A\n"
    "   MTU: 9000\n"
    "   TSO MSS: 65535\n"
    "   Port ID: 33554442\n";

/* the fields a VDNet-style esxcli test greps, then the override lines */
static const char failover[] =
    "   Load Balancing: srcport\n"
    "   Network Failure Detection: link\n"
    "   Notify Switches: true\n"
    "   Failback: true\n"
    "   Active Adapters: vmnic1\n"
    "   Standby Adapters: vmnic2\n"
    "   Unused Adapters: vmnic3\n"
    "   Override Vswitch Load Balancing: false\n"
    "   Override Vswitch Uplinks: true\n";

static const char nics[] =
    "Name    PCI Device    Driver  Admin Status  Link Status  Speed  Duplex  MAC Address        MTU   Description\n"
    "------  ------------  ------  ------------  -----------  -----  ------  -----------------  ----  -----------\n"
    "vmnic1  0000:02:00.0  ixgben  Up            Up           10000  Full    00:50:56:01:00:02  9000  Intel X550\n"
    "vmnic2  0000:03:00.0  ixgben  Up            Up           10000  Full    00:50:56:01:00:03  9000  Intel X550\n"
    "vmnic3  0000:04:00.0  ixgben  Up            Down         0      Half    00:50:56:01:00:04  1500  Intel X550\n";

static const char pgs[] =
    "Name                Virtual Switch  Active Clients  VLAN ID\n"
    "------------------  --------------  --------------  -------\n"
    "Management Network  vSwitch0        1               0\n"
    "vMotion             vSwitch0        0               7\n"
    "vMotion             vSwitch1        1               20\n";

/* vim-cmd hostsvc/net/query_networkhint: the block layout of a virtuallyhyper.com capture */
static const char cdp_two[] =
    "(vim.host.PhysicalNic.NetworkHint) [\n"
    "   (vim.host.PhysicalNic.NetworkHint) {\n"
    "      dynamicType = <unset>,\n"
    "      device = \"vmnic1\",\n"
    "      connectedSwitchPort = (vim.host.PhysicalNic.CdpInfo) {\n"
    "         devId = \"switch01\",\n"
    "         portId = \"Gi1/0/1\",\n"
    "         deviceCapability = (vim.host.PhysicalNic.CdpDeviceCapability) {\n"
    "            mtu = 42,\n"
    "         },\n"
    "         mtu = 9216,\n"
    "      },\n"
    "      lldpInfo = (vim.host.PhysicalNic.LldpInfo) {\n"
    "         portId = \"lldp-port\",\n"
    "      },\n"
    "   },\n"
    "   (vim.host.PhysicalNic.NetworkHint) {\n"
    "      device = \"vmnic2\",\n"
    "      connectedSwitchPort = (vim.host.PhysicalNic.CdpInfo) {\n"
    "         devId = \"switch01\",\n"
    "         portId = \"Gi1/0/2\",\n"
    "         mtu = 1500,\n"
    "      },\n"
    "   },\n"
    "   (vim.host.PhysicalNic.NetworkHint) {\n"
    "      device = \"vmnic3\",\n"
    "      connectedSwitchPort = (vim.host.PhysicalNic.CdpInfo) <unset>,\n"
    "      lldpInfo = (vim.host.PhysicalNic.LldpInfo) {\n"
    "         portId = \"x\",\n"
    "         mtu = 1500,\n"
    "      },\n"
    "   },\n"
    "]\n";

static void read_all(struct team *t)
{
    memset(t, 0, sizeof *t);
    assert_int_equal(team_parse_vmk(iflist, sizeof iflist - 1, "vmk1", t), 0);
    assert_int_equal(team_parse_failover(failover, sizeof failover - 1, t), 0);
    assert_int_equal(team_parse_nics(nics, sizeof nics - 1, t), 0);
    assert_int_equal(team_parse_portgroups(pgs, sizeof pgs - 1, t), 0);
    for (size_t i = 0; i < t->n; i++)
        (void)team_parse_cdp(cdp_two, sizeof cdp_two - 1, &t->up[i]);
}

static void reads_the_team(void **state)
{
    (void)state;
    struct team t;
    read_all(&t);
    assert_string_equal(t.vswitch, "vSwitch1");
    assert_string_equal(t.portgroup, "vMotion");
    assert_string_equal(t.netstack, "vmotion");
    assert_string_equal(t.port_id, "33554442");
    assert_string_equal(t.vds, "");
    assert_int_equal(t.vmk_mtu, 9000);
    assert_int_equal(t.vlan, 20);             /* the portgroup of that name on the vmk's vSwitch */
    assert_string_equal(t.lb, "srcport");
    assert_int_equal(t.failback, 1);
    assert_int_equal(t.n, 3);
    assert_string_equal(t.up[0].name, "vmnic1");
    assert_int_equal(t.up[0].role, UR_ACTIVE);
    assert_int_equal(t.up[1].role, UR_STANDBY);
    assert_int_equal(t.up[2].role, UR_UNUSED);
    assert_int_equal(t.up[2].nic_mtu, 1500);
    /* CDP's own mtu, not a nested block's; LLDP's portId and mtu are not CDP's */
    assert_int_equal(t.up[0].sw_mtu, 9216);
    assert_string_equal(t.up[0].port, "Gi1/0/1");
    assert_int_equal(t.up[1].sw_mtu, 1500);
    assert_string_equal(t.up[1].sw, "switch01");
    assert_int_equal(t.up[2].cdp, 0);
    assert_int_equal(t.up[2].sw_mtu, 0);
}

static void missing_and_odd_answers(void **state)
{
    (void)state;
    struct team t;
    memset(&t, 0, sizeof t);
    assert_int_equal(team_parse_vmk(iflist, sizeof iflist - 1, "vmk9", &t), -1);
    assert_int_equal(team_parse_failover("Error: Invalid portgroup\n", 25, &t), -1);
    assert_int_equal(t.have_policy, 0);
    assert_int_equal(team_parse_nics("garbage\n", 8, &t), -1);
    char up[TEAM_NAME];
    assert_int_equal(team_parse_uplink("\nvmnic2\n", 8, up, sizeof up), 0);
    assert_string_equal(up, "vmnic2");
    assert_int_equal(team_parse_uplink("vsish: error: Not found\n", 24, up, sizeof up), -1);
    assert_int_equal(team_parse_uplink("", 0, up, sizeof up), -1);
    assert_int_equal(team_parse_uplink("\033[31m\n", 6, up, sizeof up), -1);
    /* lists with and without spaces, duplicates once, junk names skipped */
    const char f[] = "Active Adapters: vmnic0,vmnic1\nStandby Adapters: vmnic1, \"x\", vmnic4\nFailback: false\n";
    assert_int_equal(team_parse_failover(f, sizeof f - 1, &t), 0);
    assert_int_equal(t.n, 3);
    assert_string_equal(t.up[2].name, "vmnic4");
    assert_int_equal(t.up[2].role, UR_STANDBY);
    assert_int_equal(t.failback, 0);
    /* an MTU that no port has is unknown, not believed */
    struct team_uplink u = { .name = "vmnic9" };
    const char bad[] = "device = \"vmnic9\",\nconnectedSwitchPort = (x) {\nmtu = 99999,\n},\n";
    assert_int_equal(team_parse_cdp(bad, sizeof bad - 1, &u), -1);
    assert_int_equal(u.sw_mtu, 0);
}

static size_t findings(const struct team *t, char out[][TEAM_FINDING_LEN])
{
    return team_findings(t, out, TEAM_FINDINGS_MAX);
}

static void the_finding_rule(void **state)
{
    (void)state;
    struct team t;
    char f[TEAM_FINDINGS_MAX][TEAM_FINDING_LEN];
    read_all(&t);
    snprintf(t.current, sizeof t.current, "vmnic1");
    size_t n = findings(&t, f);
    assert_int_equal(n, 2);
    assert_non_null(strstr(f[0], "jumbo frames fail after a failover to vmnic2 (switch01 Gi1/0/2 at MTU 1500"));
    assert_non_null(strstr(f[0], "Failback on"));
    assert_non_null(strstr(f[1], "would fail if vmnic3 were made active (vmnic3's own MTU is 1500"));
    /* Failback off: traffic stays on the bad standby */
    t.failback = 0;
    n = findings(&t, f);
    assert_non_null(strstr(f[0], "Failback off: traffic stays there even after vmnic1 is back"));
    /* the bad one carries traffic now */
    snprintf(t.current, sizeof t.current, "vmnic2");
    n = findings(&t, f);
    assert_non_null(strstr(f[0], "jumbo frames fail now: vmk1 leaves by vmnic2"));
    /* the bad one is the active, traffic is on the standby: failback pulls it back (KB 438509) */
    t.failback = 1;
    t.up[0].sw_mtu = 1500;
    t.up[1].sw_mtu = 9216;
    t.up[2].nic_mtu = 9000;
    n = findings(&t, f);
    assert_int_equal(n, 1);
    assert_non_null(strstr(f[0], "failover to vmnic1"));
    assert_non_null(strstr(f[0], "KB 438509"));
    /* all good, or nothing known: no finding */
    t.up[0].sw_mtu = 9216;
    assert_int_equal(findings(&t, f), 0);
    t.vmk_mtu = 0;
    t.up[0].sw_mtu = 1500;
    assert_int_equal(findings(&t, f), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reads_the_team),
        cmocka_unit_test(missing_and_odd_answers),
        cmocka_unit_test(the_finding_rule),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
