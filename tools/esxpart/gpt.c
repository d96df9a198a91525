/* GPT: both headers and entry arrays are checked; entries are streamed through a
 * fixed buffer, so memory does not grow with what the header claims. A primary
 * header that is intact but describes a larger disk (its backup and last usable
 * sector lie past the end) is a cut copy, as support staff get from `dd count=`:
 * its entries are listed, those that end past the end are marked, and the cut is
 * one finding, not a damaged table. */
#include "gpt.h"
#include "crc32.h"
#include "fail.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

struct gpt_hdr {
    int present;            /* "EFI PART" found */
    int ok;                 /* header checks passed */
    int entries_ok;         /* entry array readable and its CRC matches */
    int beyond;             /* intact, but written for a disk larger than this one */
    uint32_t in_image;      /* entries the image holds (count unless the cut is inside) */
    char why[160];          /* first reason it is not ok */
    uint64_t lba, my_lba, alt_lba, first_usable, last_usable, entries_lba;
    uint32_t revision, hdr_size, hdr_crc, count, esize, entries_crc;
    unsigned char disk_guid[16];
};

static void hdr_fail(struct gpt_hdr *h, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void hdr_fail(struct gpt_hdr *h, const char *fmt, ...)
{
    if (!h->why[0]) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(h->why, sizeof h->why, fmt, ap);
        va_end(ap);
    }
    h->ok = 0;
}

static uint64_t array_sectors(const struct gpt_hdr *h, unsigned sector)
{
    uint64_t bytes = (uint64_t)h->count * h->esize;
    return (bytes + sector - 1) / sector;
}

/* read and check the header at lba; is_primary selects the location rules */
static void read_header(struct disk *d, const struct ptable *t, uint64_t lba,
                        int is_primary, struct gpt_hdr *h)
{
    unsigned char buf[4096];
    memset(h, 0, sizeof *h);
    h->lba = lba;
    if (lba >= t->sectors || disk_read(d, lba * t->sector, buf, t->sector) < 0) {
        snprintf(h->why, sizeof h->why, "cannot read LBA %llu", (unsigned long long)lba);
        return;
    }
    if (memcmp(buf, "EFI PART", 8) != 0) {
        snprintf(h->why, sizeof h->why, "no \"EFI PART\" signature at LBA %llu",
                 (unsigned long long)lba);
        return;
    }
    h->present = 1;
    h->ok = 1;
    h->revision = load_le32(buf + 8);
    h->hdr_size = load_le32(buf + 12);
    h->hdr_crc = load_le32(buf + 16);
    h->my_lba = load_le64(buf + 24);
    h->alt_lba = load_le64(buf + 32);
    h->first_usable = load_le64(buf + 40);
    h->last_usable = load_le64(buf + 48);
    memcpy(h->disk_guid, buf + 56, 16);
    h->entries_lba = load_le64(buf + 72);
    h->count = load_le32(buf + 80);
    h->esize = load_le32(buf + 84);
    h->entries_crc = load_le32(buf + 88);

    if (h->hdr_size < 92 || h->hdr_size > t->sector) {
        hdr_fail(h, "header size %u out of range (92..%u)", h->hdr_size, t->sector);
        return;   /* no CRC can be computed over a size we do not trust */
    }
    memset(buf + 16, 0, 4);
    uint32_t crc = crc32_ieee(0, buf, h->hdr_size);
    if (crc != h->hdr_crc)
        hdr_fail(h, "header CRC32 mismatch (stored 0x%08x, computed 0x%08x)",
                 h->hdr_crc, crc);
    if (h->my_lba != lba)
        hdr_fail(h, "header says it lives at LBA %llu but was read from LBA %llu",
                 (unsigned long long)h->my_lba, (unsigned long long)lba);
    if (h->esize < 128 || h->esize % 8 || h->esize > GPT_MAX_ENTRY_SIZE)
        hdr_fail(h, "entry size %u invalid (128 or a larger multiple of 8, at most %u)",
                 h->esize, GPT_MAX_ENTRY_SIZE);
    else if (h->count > GPT_MAX_ENTRIES || (uint64_t)h->count * h->esize > GPT_MAX_ARRAY)
        hdr_fail(h, "entry count %u is absurd (limit %u entries, 4 MiB)",
                 h->count, GPT_MAX_ENTRIES);
    /* a primary whose usable range and backup lie past the end, in that order, was
     * written for a larger disk: this one is a cut copy (or a shrunk disk) */
    if (is_primary && h->ok && h->first_usable <= h->last_usable &&
        h->last_usable < h->alt_lba && h->alt_lba >= t->sectors && h->alt_lba < UINT64_MAX)
        h->beyond = 1;
    else if (h->first_usable > h->last_usable || h->last_usable >= t->sectors)
        hdr_fail(h, "usable range %llu-%llu does not fit the disk",
                 (unsigned long long)h->first_usable, (unsigned long long)h->last_usable);
    if (!h->ok)
        return;
    uint64_t n = array_sectors(h, t->sector);
    h->in_image = h->count;
    if (h->beyond && h->entries_lba >= 2 && n > t->sectors - (h->entries_lba < t->sectors ?
                                                              h->entries_lba : t->sectors)) {
        /* the cut is before the entry array's end: the entries before it can be read */
        uint64_t room = h->entries_lba < t->sectors
                      ? (t->sectors - h->entries_lba) * t->sector / h->esize : 0;
        h->in_image = (uint32_t)room;
    }
    if (h->entries_lba < 2)
        hdr_fail(h, "entry array at LBA %llu overlaps the %s (it starts at LBA 2 or later)",
                 (unsigned long long)h->entries_lba, h->entries_lba == 0 ? "MBR" : "GPT header");
    else if (!h->beyond && (h->entries_lba >= t->sectors || n > t->sectors - h->entries_lba))
        hdr_fail(h, "entry array at LBA %llu (%llu sector%s) lies outside the disk",
                 (unsigned long long)h->entries_lba, (unsigned long long)n, plural_s(n));
    else if (is_primary ? h->entries_lba + n > h->first_usable
                        : h->entries_lba <= h->last_usable)
        hdr_fail(h, "entry array at LBA %llu overlaps the usable range (first usable %llu)",
                 (unsigned long long)h->entries_lba, (unsigned long long)h->first_usable);
}

/* Stream the entry array: CRC over all of it; when collect, add used entries. */
static int walk_entries(struct disk *d, struct ptable *t, struct gpt_hdr *h, int collect)
{
    unsigned char buf[65536];
    uint32_t per = (uint32_t)(sizeof buf / h->esize);
    uint32_t crc = 0;
    uint64_t off = h->entries_lba * t->sector;
    for (uint32_t i = 0; i < h->in_image; ) {
        uint32_t k = h->in_image - i < per ? h->in_image - i : per;
        size_t len = (size_t)k * h->esize;
        if (disk_read(d, off, buf, len) < 0) {
            snprintf(h->why, sizeof h->why, "entry array truncated: cannot read entries "
                     "%u-%u at LBA %llu", i + 1, i + k,
                     (unsigned long long)(off / t->sector));
            return -1;
        }
        crc = crc32_ieee(crc, buf, len);
        for (uint32_t j = 0; collect && j < k; j++) {
            const unsigned char *e = buf + (size_t)j * h->esize;
            if (guid_is_zero(e))
                continue;
            struct part *p = pt_new_part(t);
            if (!p)
                break;
            p->num = i + j + 1;
            memcpy(p->type, e, 16);
            memcpy(p->uuid, e + 16, 16);
            p->start = load_le64(e + 32);
            p->end = load_le64(e + 40);
            p->attrs = load_le64(e + 48);
            gpt_name(e + 56, 36, p->name, sizeof p->name);
            p->ptype = type_by_guid(p->type);
            p->past_end = p->end >= t->sectors;
            if (p->start > p->end || p->start < h->first_usable || p->end > h->last_usable)
                t->parts_bad = 1;
            if (p->start > p->end)
                pt_add(t, SEV_ERROR, "partition %u: start %llu is after end %llu", p->num,
                       (unsigned long long)p->start, (unsigned long long)p->end);
            else if (p->start < h->first_usable || p->end > h->last_usable)
                pt_add(t, SEV_ERROR, "partition %u (%llu-%llu) lies outside the usable "
                       "range %llu-%llu", p->num, (unsigned long long)p->start,
                       (unsigned long long)p->end, (unsigned long long)h->first_usable,
                       (unsigned long long)h->last_usable);
        }
        off += len;
        i += k;
    }
    if (h->in_image < h->count)
        return 0;   /* no CRC over a part: the caller says the array is cut */
    if (crc != h->entries_crc) {
        snprintf(h->why, sizeof h->why, "entry array CRC32 mismatch (stored 0x%08x, "
                 "computed 0x%08x)", h->entries_crc, crc);
        return -1;
    }
    return 0;
}

static void compare(struct ptable *t, const struct gpt_hdr *p, const struct gpt_hdr *b)
{
    const char *what = NULL;
    if (memcmp(p->disk_guid, b->disk_guid, 16))
        what = "disk GUID";
    else if (p->first_usable != b->first_usable || p->last_usable != b->last_usable)
        what = "usable range";
    else if (p->count != b->count || p->esize != b->esize)
        what = "entry count or size";
    else if (p->entries_crc != b->entries_crc)
        what = "partition entries";
    else if (p->alt_lba != b->my_lba || b->alt_lba != p->my_lba)
        what = "header locations";
    if (what)
        pt_add(t, SEV_ERROR, "backup GPT does not match the primary: %s differ "
               "(repair with sgdisk -e or partedUtil fix)", what);
}

static void use_header(struct ptable *t, const struct gpt_hdr *h)
{
    t->gpt_header = 1;
    memcpy(t->disk_guid, h->disk_guid, 16);
    t->first_usable = h->first_usable;
    t->last_usable = h->last_usable;
    t->entries_lba = h->entries_lba;
    t->entry_count = h->count;
    t->entry_size = h->esize;
    /* the disk this header was written for ends at the backup header (0: a header
     * naming LBA 2^64-1 names no size) */
    uint64_t end = h->lba == 1 ? h->alt_lba : h->my_lba;
    t->gpt_sectors = end < UINT64_MAX ? end + 1 : 0;
}

/* a primary written for a larger disk: one line for the cut, one when it falls
 * inside the entry array; the entries the image holds are listed */
static void cut_copy(struct disk *d, struct ptable *t, struct gpt_hdr *p)
{
    t->gpt_cut = 1;
    t->primary_ok = p->entries_ok;
    pt_add(t, SEV_WARN, "the image is smaller than its GPT says: %llu sectors expected, "
           "%llu present: a cut copy (the backup GPT and everything from sector %llu on "
           "are not in it)", (unsigned long long)(p->alt_lba + 1),
           (unsigned long long)t->sectors, (unsigned long long)t->sectors);
    if (p->in_image == p->count && !p->entries_ok)   /* whole, but damaged */
        pt_add(t, SEV_ERROR, "primary GPT: %s (no backup in the image to read instead)",
               p->why);
    if (p->in_image == 0)
        pt_add(t, SEV_WARN, "the cut is before the entry array (LBA %llu): no partition "
               "can be listed", (unsigned long long)p->entries_lba);
    else if (p->in_image < p->count)
        pt_add(t, SEV_WARN, "the cut is inside the entry array: entries 1-%u of %u are in "
               "the image (its CRC cannot be checked)", p->in_image, p->count);
    use_header(t, p);
    walk_entries(d, t, p, 1);
}

int gpt_parse(struct disk *d, struct ptable *t)
{
    struct gpt_hdr p, b;
    read_header(d, t, 1, 1, &p);
    if (t->sectors < 3 && !(p.ok && p.beyond))
        return 0;   /* no room for a primary and a backup: only a cut copy has one */
    if (p.ok && walk_entries(d, t, &p, 0) == 0 && p.in_image == p.count)
        p.entries_ok = 1;
    t->primary_lba = 1;
    if (p.ok && p.beyond) {
        t->backup_lba = p.alt_lba;
        cut_copy(d, t, &p);
        return 1;
    }
    uint64_t last = t->sectors - 1;
    uint64_t at = p.ok && p.alt_lba > 1 && p.alt_lba < t->sectors ? p.alt_lba : last;
    read_header(d, t, at, 0, &b);
    if (!b.present && at != last) {
        read_header(d, t, last, 0, &b);
        at = last;
    }
    if (b.ok && walk_entries(d, t, &b, 0) == 0)
        b.entries_ok = 1;
    if (!p.present && !b.present && !t->protective)
        return 0;

    t->backup_lba = at;
    t->primary_ok = p.entries_ok;
    t->backup_ok = b.entries_ok;
    if (p.ok && p.revision != 0x00010000)
        pt_add(t, SEV_WARN, "primary GPT revision 0x%08x (expected 0x00010000)", p.revision);
    if (p.ok && p.alt_lba != last)
        pt_add(t, SEV_WARN, "primary GPT names its backup at LBA %llu, not at the last LBA "
               "%llu (disk grown? sgdisk -e moves it)", (unsigned long long)p.alt_lba,
               (unsigned long long)last);

    struct gpt_hdr *use = NULL;
    if (p.entries_ok) {
        use = &p;
        if (!b.entries_ok)
            pt_add(t, SEV_ERROR, "backup GPT at LBA %llu is damaged: %s (repair with "
                   "sgdisk -e or partedUtil fix)", (unsigned long long)at, b.why);
        else
            compare(t, &p, &b);
    } else if (b.entries_ok) {
        use = &b;
        t->gpt_backup_used = 1;
        pt_add(t, SEV_ERROR, "primary GPT is damaged: %s; using the backup at LBA %llu",
               p.why, (unsigned long long)at);
    } else if (p.ok || b.ok) {
        use = p.ok ? &p : &b;
        t->gpt_backup_used = !p.ok;
        pt_add(t, SEV_ERROR, "%s GPT: %s", p.ok ? "primary" : "backup", use->why);
        if (p.ok)
            pt_add(t, SEV_ERROR, "backup GPT: %s", b.why);
        else
            pt_add(t, SEV_ERROR, "primary GPT: %s", p.why);
    } else {
        pt_add(t, SEV_ERROR, "primary GPT: %s", p.why);
        pt_add(t, SEV_ERROR, "backup GPT: %s", b.why);
        return 1;
    }
    use_header(t, use);
    walk_entries(d, t, use, 1);
    return 1;
}

static size_t put_utf8(char *out, size_t room, unsigned cp)
{
    if (cp < 0x80) {
        if (room < 1)
            return 0;
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        if (room < 2)
            return 0;
        out[0] = (char)(0xC0 | cp >> 6);
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        if (room < 3)
            return 0;
        out[0] = (char)(0xE0 | cp >> 12);
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    if (room < 4)
        return 0;
    out[0] = (char)(0xF0 | cp >> 18);
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

void gpt_name(const unsigned char *raw, size_t units, char *out, size_t outlen)
{
    size_t o = 0;
    if (outlen == 0)
        return;
    for (size_t i = 0; i < units; i++) {
        unsigned cp = load_le16(raw + 2 * i);
        if (cp == 0 || cp == 0xFFFF)
            break;
        if (cp >= 0xD800 && cp <= 0xDBFF && i + 1 < units) {
            unsigned lo = load_le16(raw + 2 * (i + 1));
            if (lo >= 0xDC00 && lo <= 0xDFFF) {
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                i++;
            } else {
                cp = 0xFFFD;
            }
        } else if (cp >= 0xD800 && cp <= 0xDFFF) {
            cp = 0xFFFD;   /* lone surrogate: UTF-8 cannot hold it */
        }
        /* control characters are kept: each output escapes them its own way */
        size_t n = put_utf8(out + o, outlen - 1 - o, cp);
        if (n == 0)
            break;
        o += n;
    }
    out[o] = 0;
}
