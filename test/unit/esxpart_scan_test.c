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

/* each test gets a fresh empty root in *state; teardown removes it */
static int make_root(void **state)
{
    char *root = strdup("/tmp/esxpart-scan.XXXXXX");
    if (!root || !mkdtemp(root)) {
        free(root);
        return -1;
    }
    *state = root;
    return 0;
}

static int rm_root(void **state)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", (const char *)*state);
    free(*state);
    return system(cmd) == 0 ? 0 : -1;
}

/* scan_disks(root) finds exactly root/want[0..n-1], in that order */
static void assert_scan(const char *root, size_t n, const char *const want[])
{
    struct scan_list l;
    assert_int_equal(scan_disks(root, &l), n);
    for (size_t i = 0; i < n; i++) {
        char path[600];
        snprintf(path, sizeof path, "%s/%s", root, want[i]);
        assert_string_equal(l.paths[i], path);
    }
    scan_free(&l);
}

static void linux_whole_disks_with_a_size(void **state)
{
    const char *root = *state;
    put_file(root, "sys/block/sdb/size", "1000215216\n");
    put_file(root, "sys/block/sda/size", "2048\n");
    put_file(root, "sys/block/loop0/size", "0\n");
    put_file(root, "sys/block/cciss!c0d0/size", "99\n");
    put_file(root, "sys/block/sr0/size", "garbage\n");
    static const char *const want[] = { "dev/cciss/c0d0", "dev/sda", "dev/sdb" };
    assert_scan(root, 3, want);
}

static void esxi_disks_not_partitions_or_vml_links(void **state)
{
    const char *root = *state;
    put_file(root, "vmfs/devices/disks/naa.5000c500a1b2c3d4", "");
    put_file(root, "vmfs/devices/disks/naa.5000c500a1b2c3d4:1", "");
    put_file(root, "vmfs/devices/disks/naa.5000c500a1b2c3d4:7", "");
    put_file(root, "vmfs/devices/disks/vml.0200000000", "");
    put_file(root, "vmfs/devices/disks/t10.NVMe____Samsung", "");
    put_file(root, "sys/block/sda/size", "2048\n");   /* ignored on ESXi */
    static const char *const want[] = {
        "vmfs/devices/disks/naa.5000c500a1b2c3d4", "vmfs/devices/disks/t10.NVMe____Samsung",
    };
    assert_scan(root, 2, want);
    assert_true(scan_esxi_whole_disk("eui.0123"));
    assert_false(scan_esxi_whole_disk("eui.0123:3"));
    assert_false(scan_esxi_whole_disk("vml.01"));
}

static void nothing_to_scan(void **state)
{
    assert_scan(*state, 0, NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(linux_whole_disks_with_a_size, make_root, rm_root),
        cmocka_unit_test_setup_teardown(esxi_disks_not_partitions_or_vml_links, make_root, rm_root),
        cmocka_unit_test_setup_teardown(nothing_to_scan, make_root, rm_root),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
