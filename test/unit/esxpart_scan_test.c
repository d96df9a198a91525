/* tools/esxpart scan.c: which whole disks a scan without arguments picks, on a
 * Linux-like and an ESXi-like directory tree made in a temporary root. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../../tools/esxpart/scan.h"

const char tool_name[] = "esxpart";

static void put_file(const char *root, const char *rel, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    for (char *p = path + strlen(root) + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            mkdir(path, 0755);
            *p = '/';
        }
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void rm_tree(const char *root)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    assert_int_equal(system(cmd), 0);
}

static void linux_whole_disks_with_a_size(void **state)
{
    (void)state;
    char root[] = "/tmp/esxpart-scan.XXXXXX";
    assert_non_null(mkdtemp(root));
    put_file(root, "sys/block/sdb/size", "1000215216\n");
    put_file(root, "sys/block/sda/size", "2048\n");
    put_file(root, "sys/block/loop0/size", "0\n");
    put_file(root, "sys/block/cciss!c0d0/size", "99\n");
    put_file(root, "sys/block/sr0/size", "garbage\n");
    struct scan_list l;
    assert_int_equal(scan_disks(root, &l), 3);
    char want[3][600];
    snprintf(want[0], sizeof want[0], "%s/dev/cciss/c0d0", root);
    snprintf(want[1], sizeof want[1], "%s/dev/sda", root);
    snprintf(want[2], sizeof want[2], "%s/dev/sdb", root);
    for (int i = 0; i < 3; i++)
        assert_string_equal(l.paths[i], want[i]);
    scan_free(&l);
    rm_tree(root);
}

static void esxi_disks_not_partitions_or_vml_links(void **state)
{
    (void)state;
    char root[] = "/tmp/esxpart-scan.XXXXXX";
    assert_non_null(mkdtemp(root));
    put_file(root, "vmfs/devices/disks/naa.5000c500a1b2c3d4", "");
    put_file(root, "vmfs/devices/disks/naa.5000c500a1b2c3d4:1", "");
    put_file(root, "vmfs/devices/disks/naa.5000c500a1b2c3d4:7", "");
    put_file(root, "vmfs/devices/disks/vml.0200000000", "");
    put_file(root, "vmfs/devices/disks/t10.NVMe____Samsung", "");
    put_file(root, "sys/block/sda/size", "2048\n");   /* ignored on ESXi */
    struct scan_list l;
    assert_int_equal(scan_disks(root, &l), 2);
    char want[600];
    snprintf(want, sizeof want, "%s/vmfs/devices/disks/naa.5000c500a1b2c3d4", root);
    assert_string_equal(l.paths[0], want);
    snprintf(want, sizeof want, "%s/vmfs/devices/disks/t10.NVMe____Samsung", root);
    assert_string_equal(l.paths[1], want);
    scan_free(&l);
    rm_tree(root);
    assert_true(scan_esxi_whole_disk("eui.0123"));
    assert_false(scan_esxi_whole_disk("eui.0123:3"));
    assert_false(scan_esxi_whole_disk("vml.01"));
}

static void nothing_to_scan(void **state)
{
    (void)state;
    char root[] = "/tmp/esxpart-scan.XXXXXX";
    assert_non_null(mkdtemp(root));
    struct scan_list l;
    assert_int_equal(scan_disks(root, &l), 0);
    scan_free(&l);
    rm_tree(root);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(linux_whole_disks_with_a_size),
        cmocka_unit_test(esxi_disks_not_partitions_or_vml_links),
        cmocka_unit_test(nothing_to_scan),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
