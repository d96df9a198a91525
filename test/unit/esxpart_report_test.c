/* tools/esxpart report.c: partedUtil lines (the NVMe example from issue 3, built in
 * memory), usable sectors, the table and JSON. */
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
    report_usable(cap_open(&c), t);
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
    put32(s0 + 446 + 8, 2048);
    put32(s0 + 446 + 12, 20969472);
    s0[510] = 0x55;
    s0[511] = 0xAA;
    img_write(im, 0, s0, 512);
    struct ptable *t = img_probe(im, 0);
    assert_parted(t, "msdos\n1305 255 63 20971520\n1 2048 20971519 251 vmfs 128\n", NULL);
    img_free(im);

    im = img_new(1ull << 30, 512);
    pt_probe(&im->d, t, 0);
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
                              "\"type_name\":\"vmfsl\",\"role\":\"OSDATA (VMFS-L)\",\"partedutil_attr\":0,"));
    assert_non_null(strstr(j, "{\"path\":\"/dev/sdz\",\"error\":\"cannot open: No such file or directory\"}"));
    assert_non_null(strstr(j, "\"findings\":[{\"level\":\"info\",\"text\":\"partition 7: type vmfsl but no VMFS-L"));
    jw_free(&w);
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
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
