/* esxmtu netstack.c: a vmknic's netstack read from esxcli network ip interface list
 * by field name, and which -I names are vmknics. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "../../tools/esxmtu/netstack.h"

const char tool_name[] = "esxmtu";

/* the layout of public samples (Name, MAC Address, ..., Netstack Instance, ...) */
static const char list[] =
    "vmk0\n   Name: vmk0\n   MAC Address: 00:50:56:00:00:01\n   Enabled: true\n   Portset: vSwitch0\n"
    "   Portgroup: Management Network\n   Netstack Instance: defaultTcpipStack\n   VDS Name: N/A\n   MTU: 1500\n\n"
    "vmk1\n   Name: vmk1\n   MAC Address: 00:50:56:6a:1b:2c\n   Enabled: true\n   Portset: vSwitch1\n"
    "   Portgroup: vMotion\n   Netstack Instance: vmotion\n   VDS Name: N/A\n   MTU: 9000\n   TSO MSS: 65535\n"
    "   Port ID: 33554442\n";

static void finds_each_vmk_s_netstack(void **state)
{
    (void)state;
    char stack[64], have[128];
    assert_int_equal(netstack_of_vmk(list, strlen(list), "vmk1", stack, sizeof stack, have, sizeof have), 0);
    assert_string_equal(stack, "vmotion");
    assert_string_equal(have, "vmk0, vmk1");
    assert_int_equal(netstack_of_vmk(list, strlen(list), "vmk0", stack, sizeof stack, have, sizeof have), 0);
    assert_string_equal(stack, "defaultTcpipStack");
    assert_int_equal(netstack_of_vmk(list, strlen(list), "vmk7", stack, sizeof stack, have, sizeof have), -1);
    assert_string_equal(have, "vmk0, vmk1");
    assert_int_equal(netstack_of_vmk("", 0, "vmk1", stack, sizeof stack, have, sizeof have), -1);
    assert_string_equal(have, "none");
}

static void any_spacing(void **state)
{
    (void)state;
    static const char odd[] = "vmk2\r\n\tName :vmk2\r\n  netstack instance  :   vxlan  \r\n";
    char stack[64], have[64];
    assert_int_equal(netstack_of_vmk(odd, strlen(odd), "vmk2", stack, sizeof stack, have, sizeof have), 0);
    assert_string_equal(stack, "vxlan");
    /* a Netstack Instance before any Name belongs to no vmk */
    static const char orphan[] = "   Netstack Instance: vmotion\n   Name: vmk3\n";
    assert_int_equal(netstack_of_vmk(orphan, strlen(orphan), "vmk3", stack, sizeof stack, have, sizeof have), -1);
}

static void vmk_names(void **state)
{
    (void)state;
    assert_true(netstack_is_vmk("vmk0"));
    assert_true(netstack_is_vmk("vmk1234"));
    assert_false(netstack_is_vmk("vmk"));
    assert_false(netstack_is_vmk("vmk12345"));
    assert_false(netstack_is_vmk("vmk1a"));
    assert_false(netstack_is_vmk("eth0"));
    assert_false(netstack_is_vmk(NULL));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(finds_each_vmk_s_netstack),
        cmocka_unit_test(any_spacing),
        cmocka_unit_test(vmk_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
