/* tools/esxpart mbr.c: protective/hybrid detection, msdos tables, the EBR chain. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "esxpart_image.h"
#include "../../tools/esxpart/mbr.h"

const char tool_name[] = "esxpart";

static void set_entry(unsigned char *sec, int slot, unsigned boot, unsigned type,
                      uint32_t start, uint32_t count)
{
    unsigned char *e = sec + 446 + 16 * slot;
    e[0] = (unsigned char)boot;
    e[4] = (unsigned char)type;
    store_le32(e + 8, start);
    store_le32(e + 12, count);
    sec[510] = 0x55;
    sec[511] = 0xAA;
}

/* 1 VMFS (boot), 2 extended with logicals 5 (Linux) and 6 (vmkcore) */
static struct img *msdos_image(void)
{
    struct img *im = img_new(4ull << 30, 512);
    unsigned char s0[512] = { 0 }, e1[512] = { 0 }, e2[512] = { 0 };
    set_entry(s0, 0, 0x80, 0xFB, 2048, 4194304);
    set_entry(s0, 1, 0, 0x05, 4196352, 2097152);
    set_entry(e1, 0, 0, 0x83, 2048, 1048576);
    set_entry(e1, 1, 0, 0x05, 1052672, 1044480);
    set_entry(e2, 0, 0, 0xFC, 2048, 1042432);
    img_write(im, 0, s0, 512);
    img_write(im, 4196352ull * 512, e1, 512);
    img_write(im, (4196352ull + 1052672) * 512, e2, 512);
    return im;
}

static void reads_extended_chain(void **state)
{
    (void)state;
    struct img *im = msdos_image();
    struct ptable *t = img_probe(im, 0);
    assert_int_equal(t->kind, PT_MSDOS);
    assert_int_equal(t->nparts, 4);
    assert_int_equal(t->parts[0].num, 1);
    assert_true(t->parts[0].boot);
    assert_string_equal(t->parts[0].ptype->name, "vmfs");
    assert_int_equal(t->parts[1].num, 2);
    assert_true(t->parts[1].extended);
    assert_int_equal(t->parts[2].num, 5);
    assert_int_equal(t->parts[2].start, 4196352 + 2048);
    assert_true(t->parts[2].logical);
    assert_int_equal(t->parts[3].num, 6);
    assert_int_equal(t->parts[3].start, 4196352 + 1052672 + 2048);
    assert_string_equal(t->parts[3].role, "coredump");
    assert_int_not_equal(pt_worst(t), SEV_ERROR);
    free(t);
    img_free(im);
}

static void stops_an_ebr_loop(void **state)
{
    (void)state;
    struct img *im = msdos_image();
    unsigned char e2[512] = { 0 };
    set_entry(e2, 0, 0, 0xFC, 2048, 1042432);
    set_entry(e2, 1, 0, 0x05, 0, 2048);   /* links back to the first EBR */
    img_write(im, (4196352ull + 1052672) * 512, e2, 512);
    struct ptable *t = img_probe(im, 0);
    assert_true(has_finding(t, SEV_ERROR, "EBR loop: the extended chain returns to LBA 4196352"));
    assert_int_equal(t->nparts, 4);
    free(t);
    img_free(im);
}

static void stops_a_long_chain(void **state)
{
    (void)state;
    struct img *im = img_new(4ull << 30, 512);
    unsigned char s0[512] = { 0 };
    set_entry(s0, 0, 0, 0x05, 2048, 4000000);
    img_write(im, 0, s0, 512);
    /* 60 EBRs, each linking to the next; the last links to an EBR region that
       repeats the same sector contents: chain of 200 distinct EBRs */
    for (uint32_t k = 0; k < 60; k++) {
        unsigned char e[512] = { 0 };
        set_entry(e, 0, 0, 0x83, 1, 1);
        set_entry(e, 1, 0, 0x05, (k + 1) * 16, 16);
        img_write(im, (2048ull + k * 16) * 512, e, 512);
    }
    struct ptable *t = img_probe(im, 0);
    /* chain ends at EBR 61, which has no signature */
    assert_int_equal(t->nparts, 61);
    assert_true(has_finding(t, SEV_ERROR, "has no 0x55AA signature"));
    free(t);
    img_free(im);
}

static void caps_logical_partitions(void **state)
{
    (void)state;
    /* one EBR that always links 16 sectors further: the read callback serves the same
       sector everywhere in the extended partition, so the chain never ends by itself */
    struct img *im = img_new(4ull << 30, 512);
    unsigned char s0[512] = { 0 };
    set_entry(s0, 0, 0, 0x05, 2048, 4000000);
    img_write(im, 0, s0, 512);
    for (uint32_t k = 0; k < 40; k++) {
        unsigned char e[512] = { 0 };
        set_entry(e, 0, 0, 0x83, 1, 1);
        set_entry(e, 1, 0, 0x05, (k + 1) * 16, 16);
        img_write(im, (2048ull + k * 16) * 512, e, 512);
    }
    /* the remaining EBRs are served from one large extent */
    size_t n = 200 * 16 * 512;
    unsigned char *blk = calloc(1, n);
    for (uint32_t k = 40; k < 240; k++) {
        unsigned char *e = blk + (size_t)(k - 40) * 16 * 512;
        set_entry(e, 0, 0, 0x83, 1, 1);
        set_entry(e, 1, 0, 0x05, (k + 1) * 16, 16);
    }
    img_write(im, (2048ull + 40 * 16) * 512, blk, n);
    free(blk);
    struct ptable *t = img_probe(im, 0);
    assert_true(has_finding(t, SEV_ERROR, "more than 128 logical partitions"));
    assert_int_equal(t->nparts, 1 + 128);
    free(t);
    img_free(im);
}

static void tells_protective_from_hybrid(void **state)
{
    (void)state;
    unsigned char s0[512] = { 0 };
    struct ptable *t = calloc(1, sizeof *t);
    set_entry(s0, 0, 0, 0xEE, 1, 0xFFFFFFFF);
    mbr_inspect(s0, t);
    assert_true(t->mbr_valid);
    assert_true(t->protective);
    assert_false(t->hybrid);
    memset(t, 0, sizeof *t);
    set_entry(s0, 1, 0x80, 0x0C, 2048, 1000);
    mbr_inspect(s0, t);
    assert_true(t->hybrid);
    free(t);
}

static void fat_boot_sector_is_not_a_table(void **state)
{
    (void)state;
    struct img *im = img_new(64 << 20, 512);
    unsigned char b[512] = { 0xEB, 0x3C, 0x90 };
    memset(b + 446, 0x5A, 64);   /* boot code where a table would be */
    b[510] = 0x55;
    b[511] = 0xAA;
    img_write(im, 0, b, 512);
    struct ptable *t = img_probe(im, 0);
    assert_int_equal(t->kind, PT_UNKNOWN);
    assert_false(t->mbr_valid);
    free(t);
    img_free(im);
}

static void partition_beyond_the_end(void **state)
{
    (void)state;
    struct img *im = img_new(64 << 20, 512);
    unsigned char s0[512] = { 0 };
    set_entry(s0, 0, 0, 0x83, 2048, 1000000);
    set_entry(s0, 1, 0, 0x83, 2048, 100);
    img_write(im, 0, s0, 512);
    struct ptable *t = img_probe(im, 0);
    assert_true(has_finding(t, SEV_ERROR, "extends beyond the end of the disk"));
    assert_true(has_finding(t, SEV_ERROR, "overlap"));
    free(t);
    img_free(im);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reads_extended_chain),
        cmocka_unit_test(stops_an_ebr_loop),
        cmocka_unit_test(stops_a_long_chain),
        cmocka_unit_test(caps_logical_partitions),
        cmocka_unit_test(tells_protective_from_hybrid),
        cmocka_unit_test(fat_boot_sector_is_not_a_table),
        cmocka_unit_test(partition_beyond_the_end),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
