/* tools/esxpart types.c and content.c: GUID formatting, table look-ups, signatures. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "esxpart_image.h"
#include "../../tools/esxpart/content.h"

const char tool_name[] = "esxpart";

static void formats_mixed_endian_guids(void **state)
{
    (void)state;
    static const unsigned char vmfs[16] = { 0x2a, 0xe0, 0x31, 0xaa, 0x0f, 0x40, 0xdb, 0x11,
                                            0x95, 0x90, 0x00, 0x0c, 0x29, 0x11, 0xd1, 0xb8 };
    char hex[33], canon[37];
    guid_hex(vmfs, hex);
    assert_string_equal(hex, "AA31E02A400F11DB9590000C2911D1B8");
    guid_canon(vmfs, canon);
    assert_string_equal(canon, "AA31E02A-400F-11DB-9590-000C2911D1B8");
    unsigned char back[16];
    assert_int_equal(guid_parse("aa31e02a-400f-11db-9590-000c2911d1b8", back), 0);
    assert_memory_equal(back, vmfs, 16);
    assert_int_equal(guid_parse("AA31E02A400F11DB9590000C2911D1B", back), -1);
    assert_int_equal(guid_parse("AA31E02A400F11DB9590000C2911D1B8FF", back), -1);
    assert_int_equal(guid_parse("XA31E02A400F11DB9590000C2911D1B8", back), -1);
    assert_true(guid_is_zero((const unsigned char[16]){ 0 }));
    assert_false(guid_is_zero(vmfs));
}

static void every_table_row_round_trips(void **state)
{
    (void)state;
    size_t n;
    const struct ptype *tab = type_gpt_table(&n);
    assert_true(n >= 12);
    for (size_t i = 0; i < n; i++) {
        unsigned char g[16];
        char hex[33];
        assert_int_equal(guid_parse(tab[i].hex, g), 0);
        assert_ptr_equal(type_by_guid(g), &tab[i]);
        guid_hex(g, hex);
        assert_string_equal(hex, tab[i].hex);
    }
}

static void names_and_roles(void **state)
{
    (void)state;
    static const struct { const char *hex, *name, *role; unsigned attr; } want[] = {
        { "AA31E02A400F11DB9590000C2911D1B8", "vmfs", "VMFS datastore", 0 },
        { "4EB2EA3978554790A79EFAE495E21F8D", "vmfsl", "OSDATA (VMFS-L)", 0 },
        { "9D27538040AD11DBBF97000C2911D1B8", "vmkDiagnostic", "coredump", 0 },
        { "381CFCCC728811E092EE000C2911D0B2", "vsan", "vSAN", 0 },
        { "77719A0CA4A011E3A47E000C29745A24", "virsto", "vSAN virsto", 0 },
        { "C12A7328F81F11D2BA4B00A0C93EC93B", "systemPartition", "boot loader (EFI)", 128 },
        { "EBD0A0A2B9E5443387C068B6B72699C7", "linuxNative", "data", 0 },
        { "E3C9E3160B5C4DB8817DF92DF00215AE", "microsoftRsvd", "Microsoft reserved", 0 },
        { "0123456789ABCDEF0123456789ABCDEF", "unknown", "unknown type", 0 },
    };
    for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
        unsigned char g[16];
        guid_parse(want[i].hex, g);
        const struct ptype *p = type_by_guid(g);
        assert_string_equal(p->name, want[i].name);
        assert_string_equal(p->role, want[i].role);
        assert_int_equal(p->attr, want[i].attr);
    }
    assert_string_equal(type_by_mbr(0xFB)->name, "vmfs");
    assert_string_equal(type_by_mbr(0xFC)->role, "coredump");
    assert_string_equal(type_by_mbr(0x42)->name, "unknown");
    assert_true(mbr_is_extended(0x05) && mbr_is_extended(0x0F) && mbr_is_extended(0x85));
    assert_false(mbr_is_extended(0x83));
    assert_false(mbr_is_extended(0x00) || mbr_is_extended(0xEE) || mbr_is_extended(0xFB));
}

/* --partedutil prints only names public getptbl output shows (types.c says where):
 * a new table row with an invented getptbl name fails here */
static void parted_names_are_getptbl_names(void **state)
{
    (void)state;
    static const char *seen[] = { "vmfs", "vmfsl", "vmkDiagnostic", "vsan", "virsto",
                                  "systemPartition", "linuxNative", "microsoftRsvd",
                                  "unknown" };
    size_t n;
    const struct ptype *tab = type_gpt_table(&n);
    for (size_t i = 0; i < n; i++) {
        int ok = 0;
        for (size_t j = 0; j < ARRAY_SIZE(seen); j++)
            ok |= strcmp(tab[i].parted, seen[j]) == 0;
        if (!ok)
            fail_msg("%s: getptbl name %s is not one public captures show", tab[i].hex,
                     tab[i].parted);
    }
    unsigned char g[16];
    guid_parse("A19D880F05FC4D3BA006743F0F84911E", g);   /* Linux Raid */
    assert_string_equal(type_by_guid(g)->name, "linuxRaid");
    assert_string_equal(type_by_guid(g)->parted, "unknown");
}

/* VMFS volume header at +1 MiB and FS info at fsoff inside a partition at LBA 2048 */
static void put_vmfs(struct img *im, uint64_t fsoff, unsigned char kind, unsigned ver,
                     const char *label)
{
    uint64_t base = 2048ull * 512;
    unsigned char vh[512] = { 0x0d, 0xd0, 0x01, 0xc0 };
    store_le32(vh + 4, ver);
    for (int i = 0; i < 16; i++)
        vh[0x82 + i] = (unsigned char)(0x50 + i);
    img_write(im, base + 0x100000, vh, sizeof vh);
    unsigned char fi[512] = { kind, 0xf1, 0xab, 0x2f };
    for (int i = 0; i < 16; i++)
        fi[9 + i] = (unsigned char)(0x50 + i);
    memcpy(fi + 29, label, strlen(label));
    store_le64(fi + 161, 1 << 20);
    img_write(im, base + fsoff, fi, sizeof fi);
}

static struct ptable *gpt_with(struct img *im, const char *guid)
{
    const struct tpart p[] = { { 1, 2048, 2048 + 200000, guid } };
    img_gpt(im, p, 1, 128, 128);
    struct ptable *t = calloc(1, sizeof *t);
    return t;
}

static void finds_vmfs6_and_vmfsl(void **state)
{
    (void)state;
    struct img *im = img_new(1ull << 30, 512);
    struct ptable *t = gpt_with(im, "AA31E02A400F11DB9590000C2911D1B8");
    put_vmfs(im, 0x1300000, 0x5e, 6, "datastore1");
    pt_parse(&im->d, t, 0);
    const struct content *c = &t->parts[0].content;
    char text[200], uuid[48];
    content_text(c, text, sizeof text);
    assert_string_equal(text, "VMFS6 datastore1");
    assert_int_equal(c->vmfs_version, 6);
    assert_int_equal(c->block_size, 1 << 20);
    assert_int_equal(c->offset, 0x1300000);
    content_uuid(c, uuid, sizeof uuid);
    assert_string_equal(uuid, "53525150-57565554-5958-5a5b5c5d5e5f");
    assert_int_not_equal(pt_worst(t), SEV_WARN);
    img_free(im);

    /* VMFS-L in a vmfs-typed partition: content and type disagree */
    im = img_new(1ull << 30, 512);
    free(gpt_with(im, "AA31E02A400F11DB9590000C2911D1B8"));
    put_vmfs(im, 0x1300000, 0x5f, 6, "OSDATA-x");
    pt_parse(&im->d, t, 0);
    content_text(&t->parts[0].content, text, sizeof text);
    assert_string_equal(text, "VMFS-L OSDATA-x");
    assert_true(t->parts[0].mismatch);
    assert_true(has_finding(t, SEV_WARN, "partition 1: type vmfs (VMFS datastore) but it holds VMFS-L"));
    img_free(im);

    /* FS info at +2 MiB (libblkid's sample image) is accepted too */
    im = img_new(1ull << 30, 512);
    free(gpt_with(im, "4EB2EA3978554790A79EFAE495E21F8D"));
    put_vmfs(im, 0x200000, 0x5f, 6, "OSDATA-y");
    pt_parse(&im->d, t, 0);
    assert_int_equal(t->parts[0].content.fam, CF_VMFSL);
    assert_false(t->parts[0].mismatch);
    img_free(im);

    /* a VMFS datastore on a Basic Data (linuxNative) or vmkDiagnostic partition */
    static const char *others[] = { "EBD0A0A2B9E5443387C068B6B72699C7", "9D27538040AD11DBBF97000C2911D1B8" };
    for (int i = 0; i < 2; i++) {
        im = img_new(1ull << 30, 512);
        free(gpt_with(im, others[i]));
        put_vmfs(im, 0x1300000, 0x5e, 5, "ds");
        pt_parse(&im->d, t, 0);
        assert_true(t->parts[0].mismatch);
        assert_true(has_finding(t, SEV_WARN, "but it holds VMFS5"));
        img_free(im);
    }
    free(t);
}

static void finds_fat_labels(void **state)
{
    (void)state;
    struct img *im = img_new(1ull << 30, 512);
    struct ptable *t = gpt_with(im, "EBD0A0A2B9E5443387C068B6B72699C7");
    unsigned char b[512] = { 0xEB, 0x3C, 0x90 };
    b[11] = 0x00; b[12] = 0x02;   /* 512 bytes per sector */
    b[13] = 4;                    /* sectors per cluster */
    b[14] = 1;                    /* reserved */
    b[16] = 2;                    /* FATs */
    b[22] = 200;                  /* sectors per FAT (FAT12/16) */
    b[38] = 0x29;
    store_le32(b + 39, 0x1234ABCD);
    memcpy(b + 43, "BOOTBANK1  ", 11);
    memcpy(b + 54, "FAT16   ", 8);
    b[510] = 0x55;
    b[511] = 0xAA;
    img_write(im, 2048ull * 512, b, sizeof b);
    pt_parse(&im->d, t, 0);
    char text[200], uuid[48];
    content_text(&t->parts[0].content, text, sizeof text);
    assert_string_equal(text, "FAT16 BOOTBANK1");
    assert_string_equal(t->parts[0].role, "bootbank");
    content_uuid(&t->parts[0].content, uuid, sizeof uuid);
    assert_string_equal(uuid, "1234-ABCD");
    /* a garbage label is kept as it is on disk (trailing blanks cut); what reaches
     * a terminal is escaped (esc_text), never the raw bytes */
    memcpy(b + 43, "\x1b[2J\x07\xff     ", 11);
    img_write(im, 2048ull * 512, b, sizeof b);
    pt_parse(&im->d, t, 0);
    assert_string_equal(t->parts[0].content.label, "\x1b[2J\x07\xff");
    free(t);
    img_free(im);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(formats_mixed_endian_guids),
        cmocka_unit_test(every_table_row_round_trips),
        cmocka_unit_test(names_and_roles),
        cmocka_unit_test(parted_names_are_getptbl_names),
        cmocka_unit_test(finds_vmfs6_and_vmfsl),
        cmocka_unit_test(finds_fat_labels),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
