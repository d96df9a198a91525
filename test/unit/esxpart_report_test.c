/* tools/esxpart report.c: partedUtil lines (an NVMe disk's table as partedUtil shows it,
 * built in memory), usable sectors, the table and JSON. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "esxpart_image.h"
#include "../../tools/esxpart/report.h"

const char tool_name[] = "esxpart";

struct cap { char *buf; size_t len; FILE *f; };
static FILE *cap_open(struct cap *c) { c->buf = NULL; c->len = 0; return c->f = open_memstream(&c->buf, &c->len); }
static const char *cap_text(struct cap *c) { fclose(c->f); return c->buf; }

/* partedUtil getptbl and getUsableSectors output of t are exactly these
 * (usable NULL: not checked) */
static void assert_parted(const struct ptable *t, const char *getptbl, const char *usable)
{
    struct cap c;
    report_partedutil(cap_open(&c), t);
    assert_string_equal(cap_text(&c), getptbl);
    free(c.buf);
    if (!usable)
        return;
    uint64_t need = 0;
    assert_int_equal(report_usable(cap_open(&c), t, &need), 0);
    assert_string_equal(cap_text(&c), usable);
    free(c.buf);
}

static struct ptable *nvme(struct img **imp)
{
    static const struct tpart p[] = {
        { 7, 2048, 268435455, "4EB2EA3978554790A79EFAE495E21F8D" },
        { 8, 268435456, 1000212480, "AA31E02A400F11DB9590000C2911D1B8" },
    };
    struct img *im = img_new(1000215216ull * 512, 512);
    img_gpt(im, p, 2, 128, 128);
    *imp = im;
    return img_probe(im, 0);
}

static void prints_the_nvme_example_exactly(void **state)
{
    (void)state;
    struct img *im;
    struct ptable *t = nvme(&im);
    assert_parted(t,
        "gpt\n"
        "62260 255 63 1000215216\n"
        "7 2048 268435455 4EB2EA3978554790A79EFAE495E21F8D vmfsl 0\n"
        "8 268435456 1000212480 AA31E02A400F11DB9590000C2911D1B8 vmfs 0\n",
        "34 1000215182\n");
    free(t);
    img_free(im);
}

static void prints_msdos_and_unknown(void **state)
{
    (void)state;
    struct img *im = img_new(20971520ull * 512, 512);
    unsigned char s0[512] = { 0 };
    s0[446] = 0x80;
    s0[446 + 4] = 0xFB;
    store_le32(s0 + 446 + 8, 2048);
    store_le32(s0 + 446 + 12, 20969472);
    s0[510] = 0x55;
    s0[511] = 0xAA;
    img_write(im, 0, s0, 512);
    struct ptable *t = img_probe(im, 0);
    assert_parted(t, "msdos\n1305 255 63 20971520\n1 2048 20971519 251 vmfs 128\n", NULL);
    img_free(im);

    im = img_new(1ull << 30, 512);
    pt_parse(&im->d, t, 0);
    assert_parted(t, "unknown\n130 255 63 2097152\n", "34 2097118\n");
    free(t);
    img_free(im);
}

static void prints_an_aligned_table(void **state)
{
    (void)state;
    struct img *im;
    struct ptable *t = nvme(&im);
    struct cap c;
    report_table(cap_open(&c), "/dev/nvme0n1", t);
    const char *s = cap_text(&c);
    assert_non_null(strstr(s, "/dev/nvme0n1: 476.9 GiB, 1000215216 sectors of 512 bytes, gpt, health: ok\n"));
    assert_non_null(strstr(s, "  #      start         end       size  type   role             content  flags\n"));
    assert_non_null(strstr(s, "  7       2048   268435455  128.0 GiB  vmfsl  OSDATA (VMFS-L)\n"));
    assert_non_null(strstr(s, "  8  268435456  1000212480  348.9 GiB  vmfs   VMFS datastore\n"));
    assert_null(strstr(s, " \n"));   /* no trailing blanks */
    free(c.buf);
    free(t);
    img_free(im);
}

static void writes_json_with_stable_keys(void **state)
{
    (void)state;
    struct img *im;
    struct ptable *t = nvme(&im);
    struct jsonw w;
    jw_init(&w, 0);
    jw_arr(&w, NULL);
    report_json_disk(&w, "/dev/nvme0n1", t);
    report_json_error(&w, "/dev/sdz", "cannot open: No such file or directory");
    jw_end(&w);
    const char *j = jw_text(&w);
    assert_non_null(strstr(j, "{\"path\":\"/dev/nvme0n1\",\"error\":null,\"size_bytes\":512110190592,"
                              "\"sector_size\":512,\"sector_size_source\":\"gpt\",\"sectors\":1000215216,"
                              "\"cylinders\":62260,\"table\":\"gpt\",\"health\":\"ok\","));
    assert_non_null(strstr(j, "{\"number\":7,\"start\":2048,\"end\":268435455,\"size_bytes\":137437904896,"
                              "\"type_guid\":\"4EB2EA39-7855-4790-A79E-FAE495E21F8D\",\"mbr_type\":null,"
                              "\"type_name\":\"vmfsl\",\"role\":\"OSDATA (VMFS-L)\",\"partedutil_name\":\"vmfsl\","
                              "\"partedutil_attr\":0,"));
    assert_non_null(strstr(j, "{\"path\":\"/dev/sdz\",\"error\":\"cannot open: No such file or directory\"}"));
    assert_non_null(strstr(j, "\"findings\":[{\"level\":\"info\",\"text\":\"partition 7: type vmfsl but no VMFS-L"));
    jw_free(&w);
    free(t);
    img_free(im);
}

/* a GPT entry ending at LBA 2^64-1 is sized UINT64_MAX bytes, not a wrapped
 * product, and is still found outside the disk; the largest exact size stays exact */
static void size_of_an_entry_at_the_top_of_the_lba_range(void **state)
{
    (void)state;
    static const struct tpart p[] = {
        { 1, 2048, UINT64_MAX, "A19D880F05FC4D3BA006743F0F84911E" },
        { 2, 0, UINT64_MAX, "A19D880F05FC4D3BA006743F0F84911E" },
        { 3, 0, UINT64_MAX / 512 - 1, "A19D880F05FC4D3BA006743F0F84911E" },
    };
    struct img *im = img_new(1ull << 30, 512);
    img_gpt(im, p, 3, 128, 128);
    struct ptable *t = img_probe(im, 0);
    assert_int_equal(t->nparts, 3);
    struct jsonw w;
    jw_init(&w, 0);
    report_json_disk(&w, "big", t);
    const char *j = jw_text(&w);
    assert_non_null(strstr(j, "{\"number\":1,\"start\":2048,\"end\":18446744073709551615,"
                              "\"size_bytes\":18446744073709551615,"));
    assert_non_null(strstr(j, "{\"number\":2,\"start\":0,\"end\":18446744073709551615,"
                              "\"size_bytes\":18446744073709551615,"));
    assert_non_null(strstr(j, "{\"number\":3,\"start\":0,\"end\":36028797018963966,"
                              "\"size_bytes\":18446744073709551104,"));
    assert_true(has_finding(t, SEV_ERROR, "partition 1 (2048-18446744073709551615) lies "
                                          "outside the usable range 34-2097118"));
    jw_free(&w);
    free(t);
    img_free(im);
}

/* an image of 67 sectors or fewer has no usable range (first
 * usable 34 would come after last usable 33); 68 sectors has exactly one sector */
static void usable_on_tiny_disks(void **state)
{
    (void)state;
    static const struct { uint64_t bytes; unsigned sector; int rc; uint64_t need; const char *out; } cases[] = {
        { 67 * 512, 512, -1, 68, "" },
        { 34 * 512, 512, -1, 68, "" },
        { 68 * 512, 512, 0, 68, "34 34\n" },
        { 11 * 4096ull, 4096, -1, 12, "" },
        { 12 * 4096ull, 4096, 0, 12, "6 6\n" },
    };
    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        struct img *im = img_new(cases[i].bytes, cases[i].sector);
        struct ptable *t = img_probe(im, cases[i].sector);
        struct cap c;
        uint64_t need = 0;
        assert_int_equal(report_usable(cap_open(&c), t, &need), cases[i].rc);
        assert_string_equal(cap_text(&c), cases[i].out);
        if (cases[i].rc < 0)
            assert_int_equal(need, cases[i].need);
        free(c.buf);
        free(t);
        img_free(im);
    }
}

static void escapes_labels_and_paths_in_the_table(void **state)
{
    (void)state;
    struct img *im;
    struct ptable *t = nvme(&im);
    struct cap c;
    t->parts[0].content.fam = CF_FAT;
    snprintf(t->parts[0].content.fs, sizeof t->parts[0].content.fs, "FAT16");
    snprintf(t->parts[0].content.label, sizeof t->parts[0].content.label, "\x1b[2J\xff");
    t->parts[1].content.fam = CF_VMFS;
    snprintf(t->parts[1].content.fs, sizeof t->parts[1].content.fs, "VMFS6");
    snprintf(t->parts[1].content.label, sizeof t->parts[1].content.label, "D\xc3\xa9p\xc3\xb4t");
    report_table(cap_open(&c), "/tmp/\x1b]0;x\x07.img", t);
    const char *s = cap_text(&c);
    assert_null(strchr(s, '\x1b'));
    assert_null(strchr(s, '\x07'));
    assert_null(strchr(s, '\xff'));
    assert_non_null(strstr(s, "/tmp/\\x1b]0;x\\x07.img: 476.9 GiB"));
    /* the UTF-8 label is kept and padded by characters, not bytes */
    assert_non_null(strstr(s, "  vmfsl  OSDATA (VMFS-L)  FAT16 \\x1b[2J\\xff\n"));
    assert_non_null(strstr(s, "  vmfs   VMFS datastore   VMFS6 D\xc3\xa9p\xc3\xb4t\n"));
    assert_non_null(strstr(s, "  type   role             content" "            flags\n"));
    free(c.buf);
    free(t);
    img_free(im);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(prints_the_nvme_example_exactly),
        cmocka_unit_test(prints_msdos_and_unknown),
        cmocka_unit_test(prints_an_aligned_table),
        cmocka_unit_test(writes_json_with_stable_keys),
        cmocka_unit_test(usable_on_tiny_disks),
        cmocka_unit_test(size_of_an_entry_at_the_top_of_the_lba_range),
        cmocka_unit_test(escapes_labels_and_paths_in_the_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
