/* tools/esxpart gpt.c + parse.c: GPT parsing, primary/backup choice, bounds. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "esxpart_image.h"
#include "../../tools/esxpart/gpt.h"

const char tool_name[] = "esxpart";

#define G_ESP   "C12A7328F81F11D2BA4B00A0C93EC93B"
#define G_BASIC "EBD0A0A2B9E5443387C068B6B72699C7"
#define G_VMFSL "4EB2EA3978554790A79EFAE495E21F8D"
#define G_VMFS  "AA31E02A400F11DB9590000C2911D1B8"

static const struct tpart esxi7[] = {
    { 1, 64, 204863, G_ESP },
    { 5, 208896, 8595455, G_BASIC },
    { 6, 8597504, 16984063, G_BASIC },
    { 7, 16986112, 285421567, G_VMFSL },
    { 8, 285421568, 335544286, G_VMFS },
};
#define ESXI7_SIZE (160ull << 30)
static const struct tpart small[] = { { 1, 2048, 1050623, G_BASIC }, { 2, 1050624, 2097118, G_VMFS } };
#define SMALL_LAST ((1ull << 30) / 512 - 1)   /* the backup header's LBA */

/* a 1 GiB image with the two-partition "small" GPT, primary and backup intact */
static struct img *small_gpt(void)
{
    struct img *im = img_new(1ull << 30, 512);
    img_gpt(im, small, 2, 128, 128);
    return im;
}

/* set one header field in both the primary (LBA 1) and the backup header */
static void set_both_headers(struct img *im, unsigned field, uint64_t v, int width)
{
    img_gpt_set(im, 1, field, v, width);
    img_gpt_set(im, SMALL_LAST, field, v, width);
}

static void parses_esxi7_layout(void **state)
{
    (void)state;
    struct img *im = img_new(ESXI7_SIZE, 512);
    img_gpt(im, esxi7, 5, 128, 128);
    struct ptable *t = img_probe(im, 0);
    assert_int_equal(t->kind, PT_GPT);
    assert_int_equal(t->sector, 512);
    assert_string_equal(t->sector_source, "gpt");
    assert_int_equal(t->nparts, 5);
    assert_true(t->protective);
    assert_false(t->hybrid);
    assert_int_equal(t->first_usable, 34);
    assert_int_equal(t->last_usable, ESXI7_SIZE / 512 - 34);
    static const char *names[] = { "systemPartition", "linuxNative", "linuxNative", "vmfsl", "vmfs" };
    for (size_t i = 0; i < 5; i++) {
        assert_int_equal(t->parts[i].num, esxi7[i].num);
        assert_int_equal(t->parts[i].start, esxi7[i].start);
        assert_int_equal(t->parts[i].end, esxi7[i].end);
        assert_string_equal(t->parts[i].ptype->name, names[i]);
    }
    assert_int_equal(pt_worst(t), SEV_INFO);   /* only "no VMFS signature" notes */
    assert_string_equal(pt_health(t), "ok");
    free(t);
    img_free(im);
}

static void sorts_esxi6_by_start(void **state)
{
    (void)state;
    static const struct tpart six[] = {
        { 1, 64, 8191, G_ESP }, { 2, 7086080, 15472639, G_BASIC }, { 3, 15472640, 33554398, G_VMFS },
        { 5, 8224, 520191, G_BASIC }, { 9, 1843200, 7086079, "9D27538040AD11DBBF97000C2911D1B8" },
    };
    struct img *im = img_new(16ull << 30, 512);
    img_gpt(im, six, 5, 128, 128);
    struct ptable *t = img_probe(im, 0);
    unsigned want[] = { 1, 5, 9, 2, 3 };
    assert_int_equal(t->nparts, 5);
    for (size_t i = 0; i < 5; i++)
        assert_int_equal(t->parts[i].num, want[i]);
    assert_string_equal(t->parts[2].role, "coredump");
    free(t);
    img_free(im);
}

static void damaged_primary_uses_backup(void **state)
{
    (void)state;
    struct img *im = small_gpt();
    unsigned char zero[512] = { 0 };
    img_write(im, 512, zero, sizeof zero);
    struct ptable *t = img_probe(im, 0);
    assert_int_equal(t->kind, PT_GPT);
    assert_true(t->gpt_backup_used);
    assert_false(t->primary_ok);
    assert_true(t->backup_ok);
    assert_int_equal(t->nparts, 2);
    assert_int_equal(t->parts[1].end, 2097118);
    assert_true(has_finding(t, SEV_ERROR, "primary GPT is damaged"));
    assert_false(has_finding(t, SEV_ERROR, "usable range"));
    assert_string_equal(pt_health(t), "error");
    free(t);
    img_free(im);
}

static void bad_entries_crc_in_both_copies(void **state)
{
    (void)state;
    struct img *im = small_gpt();
    unsigned char x = 0x41;
    img_write(im, 2 * 512 + 100 * 128 + 70, &x, 1);
    img_write(im, (SMALL_LAST - 32) * 512 + 100 * 128 + 70, &x, 1);
    struct ptable *t = img_probe(im, 0);
    assert_int_equal(t->kind, PT_GPT);
    assert_true(has_finding(t, SEV_ERROR, "entry array CRC32 mismatch"));
    assert_int_equal(t->nparts, 2);   /* still listed, flagged */
    free(t);
    img_free(im);
}

static void header_crc_mismatch(void **state)
{
    (void)state;
    struct img *im = small_gpt();
    unsigned char x = 0x99;
    img_write(im, 512 + 60, &x, 1);   /* disk GUID byte, CRC not fixed */
    struct ptable *t = img_probe(im, 0);
    assert_true(has_finding(t, SEV_ERROR, "header CRC32 mismatch"));
    assert_true(t->gpt_backup_used);
    free(t);
    img_free(im);
}

static void refuses_entry_count_ffffffff(void **state)
{
    (void)state;
    struct img *im = small_gpt();
    set_both_headers(im, 80, 0xFFFFFFFFu, 4);
    struct ptable *t = img_probe(im, 0);
    assert_int_equal(t->kind, PT_GPT);
    assert_int_equal(t->nparts, 0);
    assert_true(has_finding(t, SEV_ERROR, "entry count 4294967295 is absurd"));
    free(t);
    img_free(im);
}

static void refuses_entry_size_zero(void **state)
{
    (void)state;
    struct img *im = small_gpt();
    set_both_headers(im, 84, 0, 4);
    struct ptable *t = img_probe(im, 0);
    assert_int_equal(t->nparts, 0);
    assert_true(has_finding(t, SEV_ERROR, "entry size 0 invalid"));
    free(t);
    img_free(im);
}

static void accepts_larger_entry_size(void **state)
{
    (void)state;
    struct img *im = img_new(1ull << 30, 512);
    img_gpt(im, small, 2, 64, 256);
    struct ptable *t = img_probe(im, 0);
    assert_int_equal(t->entry_size, 256);
    assert_int_equal(t->nparts, 2);
    assert_int_not_equal(pt_worst(t), SEV_ERROR);
    free(t);
    img_free(im);
}

static void entry_array_outside_disk(void **state)
{
    (void)state;
    struct img *im = small_gpt();
    img_gpt_set(im, 1, 72, SMALL_LAST - 2, 8);
    struct ptable *t = img_probe(im, 0);
    assert_true(has_finding(t, SEV_ERROR, "lies outside the disk"));
    assert_true(t->gpt_backup_used);
    free(t);
    img_free(im);
}

static void finds_overlap_and_out_of_range(void **state)
{
    (void)state;
    static const struct tpart bad[] = {
        { 1, 2048, 10000, G_BASIC }, { 2, 9000, 20000, G_VMFS }, { 3, 30000, 99999999, G_VMFS },
    };
    struct img *im = img_new(1ull << 30, 512);
    img_gpt(im, bad, 3, 128, 128);
    struct ptable *t = img_probe(im, 0);
    assert_int_equal(t->nparts, 3);
    assert_true(has_finding(t, SEV_ERROR, "partitions 1 (2048-10000) and 2 (9000-20000) overlap"));
    assert_true(has_finding(t, SEV_ERROR, "partition 3 (30000-99999999) lies outside the usable range"));
    free(t);
    img_free(im);
}

static void backup_that_differs(void **state)
{
    (void)state;
    struct img *im = small_gpt();
    img_gpt_set(im, SMALL_LAST, 48, SMALL_LAST - 99, 8);   /* other last usable */
    struct ptable *t = img_probe(im, 0);
    assert_false(t->gpt_backup_used);
    assert_true(has_finding(t, SEV_ERROR, "backup GPT does not match the primary: usable range"));
    free(t);
    img_free(im);
}

static void finds_4kn_gpt(void **state)
{
    (void)state;
    static const struct tpart k[] = { { 1, 256, 262399, G_VMFSL }, { 2, 262400, 2096895, G_VMFS } };
    struct img *im = img_new(8ull << 30, 4096);
    img_gpt(im, k, 2, 128, 128);
    struct ptable *t = img_probe(im, 0);
    assert_int_equal(t->sector, 4096);
    assert_int_equal(t->sectors, 2097152);
    assert_int_equal(t->first_usable, 6);
    assert_int_equal(t->nparts, 2);
    free(t);
    /* forcing the wrong size finds no header */
    t = img_probe(im, 512);
    assert_int_equal(t->sector, 512);
    assert_int_equal(t->nparts, 0);
    assert_true(has_finding(t, SEV_ERROR, "no \"EFI PART\" signature at LBA 1"));
    free(t);
    img_free(im);
}

/* the device's own sector size (BLKSSZGET) differs from the one the GPT was
 * written for: the table is read at its own size, with a warning */
static void gpt_for_other_device_sector(void **state)
{
    (void)state;
    struct img *im = small_gpt();
    im->d.sector_hint = 4096;
    struct ptable *t = img_probe(im, 0);
    assert_int_equal(t->sector, 512);
    assert_string_equal(t->sector_source, "gpt");
    assert_int_equal(t->nparts, 2);
    assert_true(has_finding(t, SEV_WARN, "GPT written for 512-byte sectors (header at byte "
                            "512) but the device has 4096-byte sectors: ESXi looks at byte "
                            "4096 and will not find it; rewrite the table for 4096-byte sectors"));
    assert_string_equal(pt_health(t), "warning");
    free(t);
    /* the device's size matches: nothing said */
    im->d.sector_hint = 512;
    t = img_probe(im, 0);
    assert_false(has_finding(t, SEV_WARN, "GPT written for"));
    assert_string_equal(pt_health(t), "ok");
    free(t);
    img_free(im);
}

static void tiny_images(void **state)
{
    (void)state;
    struct img *im = img_new(100, 512);
    struct ptable *t = img_probe(im, 0);
    assert_int_equal(t->kind, PT_UNKNOWN);
    assert_true(has_finding(t, SEV_ERROR, "too small"));
    free(t);
    img_free(im);
    /* protective MBR, no room for a GPT */
    im = img_new(1024, 512);
    unsigned char mbr[512] = { 0 };
    mbr[446 + 4] = 0xEE;
    mbr[510] = 0x55;
    mbr[511] = 0xAA;
    img_write(im, 0, mbr, sizeof mbr);
    t = img_probe(im, 0);
    assert_int_equal(t->kind, PT_GPT);
    assert_true(has_finding(t, SEV_ERROR, "protective MBR (0xEE) but no GPT header"));
    free(t);
    img_free(im);
}

static void converts_names(void **state)
{
    (void)state;
    char out[112];
    /* "ESXi" then 0xFFFF padding as ESXi writes it */
    unsigned char raw[72];
    memset(raw, 0xFF, sizeof raw);
    const char *s = "ESXi";
    for (int i = 0; i < 4; i++) {
        raw[2 * i] = (unsigned char)s[i];
        raw[2 * i + 1] = 0;
    }
    gpt_name(raw, 36, out, sizeof out);
    assert_string_equal(out, "ESXi");
    /* U+00E9, a surrogate pair (U+1F600), a control character (kept: the outputs
     * escape it), a lone surrogate (U+FFFD: UTF-8 cannot carry it) */
    unsigned char r2[72] = { 0xE9, 0x00, 0x3D, 0xD8, 0x00, 0xDE, 0x1B, 0x00, 0x00, 0xDC, 'x', 0 };
    gpt_name(r2, 36, out, sizeof out);
    assert_string_equal(out, "\xC3\xA9\xF0\x9F\x98\x80\x1B\xEF\xBF\xBDx");
    /* a small output buffer truncates on a character boundary */
    gpt_name(r2, 36, out, 4);
    assert_string_equal(out, "\xC3\xA9");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parses_esxi7_layout),
        cmocka_unit_test(sorts_esxi6_by_start),
        cmocka_unit_test(damaged_primary_uses_backup),
        cmocka_unit_test(bad_entries_crc_in_both_copies),
        cmocka_unit_test(header_crc_mismatch),
        cmocka_unit_test(refuses_entry_count_ffffffff),
        cmocka_unit_test(refuses_entry_size_zero),
        cmocka_unit_test(accepts_larger_entry_size),
        cmocka_unit_test(entry_array_outside_disk),
        cmocka_unit_test(finds_overlap_and_out_of_range),
        cmocka_unit_test(backup_that_differs),
        cmocka_unit_test(finds_4kn_gpt),
        cmocka_unit_test(gpt_for_other_device_sector),
        cmocka_unit_test(tiny_images),
        cmocka_unit_test(converts_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
