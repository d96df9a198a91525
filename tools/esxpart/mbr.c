/* MBR: protective/hybrid detection, msdos primaries, and the extended chain walked
 * with a visited list and a hard limit, so a looping or endless chain stops. */
#include "mbr.h"
#include "fail.h"
#include "units.h"

#include <errno.h>
#include <string.h>

#define MBR_TABLE 446

static int entry_sane(const unsigned char *e)
{
    return e[0] == 0x00 || e[0] == 0x80;
}

void mbr_inspect(const unsigned char *s0, struct ptable *t)
{
    int others = 0, sane = 1;
    if (s0[510] != 0x55 || s0[511] != 0xAA)
        return;
    for (int i = 0; i < 4; i++) {
        const unsigned char *e = s0 + MBR_TABLE + 16 * i;
        if (!entry_sane(e))
            sane = 0;
        if (e[4] == 0xEE)
            t->protective = 1;
        else if (e[4] != 0)
            others++;
    }
    /* a boot sector (a FAT "superfloppy") also ends in 55 AA but has no table */
    if (!sane && !t->protective)
        return;
    t->mbr_valid = 1;
    t->mbr_id = load_le32(s0 + 440);
    t->hybrid = t->protective && others > 0;
}

static struct part *add(struct ptable *t, unsigned num, const unsigned char *e,
                        uint64_t base)
{
    struct part *p = pt_new_part(t);
    if (!p)
        return NULL;
    p->num = num;
    p->mbr_type = e[4];
    p->boot = e[0] == 0x80;
    p->start = base + load_le32(e + 8);
    p->end = p->start + load_le32(e + 12) - 1;
    p->ptype = type_by_mbr(e[4]);
    p->extended = mbr_is_extended(e[4]);
    if (p->start == 0)
        pt_add(t, SEV_ERROR, "partition %u starts at LBA 0, over the MBR", num);
    if (p->end >= t->sectors)
        pt_add(t, SEV_ERROR, "partition %u (%llu-%llu) extends beyond the end of the disk "
               "(%llu sector%s)", num, (unsigned long long)p->start,
               (unsigned long long)p->end, (unsigned long long)t->sectors,
               plural_s(t->sectors));
    return p;
}

static void walk_chain(struct disk *d, struct ptable *t, uint64_t ext_start, uint64_t ext_end)
{
    uint64_t visited[PT_MAX_LOGICAL + 1];
    unsigned char s[4096];
    uint64_t ebr = ext_start;
    unsigned num = 5;
    for (size_t k = 0; ; k++) {
        if (k >= PT_MAX_LOGICAL) {
            pt_add(t, SEV_ERROR, "more than %d logical partitions: stopped reading the "
                   "extended chain", PT_MAX_LOGICAL);
            return;
        }
        for (size_t v = 0; v < k; v++)
            if (visited[v] == ebr) {
                pt_add(t, SEV_ERROR, "EBR loop: the extended chain returns to LBA %llu",
                       (unsigned long long)ebr);
                return;
            }
        visited[k] = ebr;
        if (ebr < ext_start || ebr > ext_end) {
            pt_add(t, SEV_ERROR, "EBR at LBA %llu lies outside the extended partition "
                   "(%llu-%llu)", (unsigned long long)ebr, (unsigned long long)ext_start,
                   (unsigned long long)ext_end);
            return;
        }
        if (ebr >= t->sectors) {
            char size[32];
            fmt_iec(size, sizeof size, t->size_bytes);
            pt_add(t, SEV_ERROR, "EBR at LBA %llu lies beyond the end of the disk (%llu "
                   "sector%s of %u bytes, %s): no logical partitions can be read",
                   (unsigned long long)ebr, (unsigned long long)t->sectors,
                   plural_s(t->sectors), t->sector, size);
            return;
        }
        if (disk_read(d, ebr * t->sector, s, t->sector) < 0) {
            pt_add(t, SEV_ERROR, "cannot read the EBR at LBA %llu: %s",
                   (unsigned long long)ebr, errtext(errno));
            return;
        }
        if (s[510] != 0x55 || s[511] != 0xAA) {
            pt_add(t, SEV_ERROR, "EBR at LBA %llu has no 0x55AA signature",
                   (unsigned long long)ebr);
            return;
        }
        const unsigned char *e0 = s + MBR_TABLE, *e1 = s + MBR_TABLE + 16;
        if (e0[4] != 0 && load_le32(e0 + 12) != 0) {
            struct part *p = add(t, num++, e0, ebr);
            if (!p)
                return;
            p->logical = 1;
            if (p->extended) {
                pt_add(t, SEV_ERROR, "logical partition %u has an extended type 0x%02X",
                       p->num, p->mbr_type);
                p->extended = 0;
            }
            if (p->start <= ebr || p->end > ext_end)
                pt_add(t, SEV_ERROR, "logical partition %u (%llu-%llu) is not inside its "
                       "extended partition", p->num, (unsigned long long)p->start,
                       (unsigned long long)p->end);
        }
        if (e1[4] == 0 || load_le32(e1 + 12) == 0)
            return;
        if (!mbr_is_extended(e1[4]))
            pt_add(t, SEV_WARN, "EBR at LBA %llu links on with type 0x%02X (expected 0x05)",
                   (unsigned long long)ebr, e1[4]);
        ebr = ext_start + load_le32(e1 + 8);
    }
}

void mbr_parse(struct disk *d, const unsigned char *s0, struct ptable *t)
{
    uint64_t ext_start = 0, ext_end = 0;
    int have_ext = 0;
    for (unsigned i = 0; i < 4; i++) {
        const unsigned char *e = s0 + MBR_TABLE + 16 * i;
        if (e[4] == 0)
            continue;
        if (load_le32(e + 12) == 0) {
            pt_add(t, SEV_WARN, "MBR entry %u has type 0x%02X but size 0", i + 1, e[4]);
            continue;
        }
        struct part *p = add(t, i + 1, e, 0);
        if (!p || !p->extended)
            continue;
        if (have_ext) {
            pt_add(t, SEV_WARN, "more than one extended partition; only the first is read");
            continue;
        }
        have_ext = 1;
        ext_start = p->start;
        ext_end = p->end;
    }
    if (have_ext)
        walk_chain(d, t, ext_start, ext_end);
}
