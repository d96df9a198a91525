/* The parser entry point: sector size, MBR, GPT or msdos, content, cross-checks. */
#include "parse.h"
#include "content.h"
#include "esxi_parts.h"
#include "gpt.h"
#include "mbr.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fail.h"

static int before(const struct part *x, const struct part *y)
{
    return x->start < y->start || (x->start == y->start && x->num < y->num);
}

/* insertion sort: at most PT_MAX_PARTS entries, usually under ten, and no qsort in
 * the static binary */
static void sort_by_start(struct ptable *t)
{
    for (size_t i = 1; i < t->nparts; i++) {
        struct part tmp = t->parts[i];
        size_t j = i;
        for (; j > 0 && before(&tmp, &t->parts[j - 1]); j--)
            t->parts[j] = t->parts[j - 1];
        t->parts[j] = tmp;
    }
}

/* sorted by start: each partition against the next one that is not its container */
static void check_overlaps(struct ptable *t)
{
    for (size_t i = 0; i < t->nparts; i++) {
        const struct part *a = &t->parts[i];
        if (a->extended)
            continue;
        for (size_t j = i + 1; j < t->nparts; j++) {
            const struct part *b = &t->parts[j];
            if (b->extended)
                continue;
            if (b->start > a->end)
                break;
            t->parts_bad = 1;
            pt_add(t, SEV_ERROR, "partitions %u (%llu-%llu) and %u (%llu-%llu) overlap",
                   a->num, (unsigned long long)a->start, (unsigned long long)a->end,
                   b->num, (unsigned long long)b->start, (unsigned long long)b->end);
            break;
        }
    }
}

static const char *fam_name(enum cfam f)
{
    static const char *names[] = { "anything", "nothing", "VMFS", "VMFS-L", "FAT" };
    return names[f];
}

static void classify(struct disk *d, struct ptable *t, struct part *p)
{
    content_probe(d, t, p);
    p->role = p->ptype->role;
    /* a Basic Data partition holding a FAT volume labelled BOOTBANKn is a bootbank */
    if (p->content.fam == CF_FAT && strncmp(p->content.label, "BOOTBANK", 8) == 0)
        p->role = "bootbank";
    enum cfam want = p->ptype->expect, got = p->content.fam;
    if (p->extended || p->past_end || want == CF_ANY)   /* past the end: nothing was read */
        return;
    if (got != CF_NONE && got != want) {
        p->mismatch = 1;
        pt_add(t, SEV_WARN, "partition %u: type %s (%s) but it holds %s",
               p->num, p->ptype->name, p->ptype->role, p->content.fs);
    } else if (got == CF_NONE && (want == CF_VMFS || want == CF_VMFSL))
        pt_add(t, SEV_INFO, "partition %u: type %s but no %s signature found (unformatted, "
               "or not the first extent)", p->num, p->ptype->name, fam_name(want));
}

/* "EFI PART" at byte 512 and at byte 4096: the sector sizes a GPT header at LBA 1
 * says it was written for (bit 0: 512, bit 1: 4096) */
static unsigned gpt_written_for(const unsigned char *head, size_t n)
{
    unsigned at = 0;
    if (n >= 520 && memcmp(head + 512, "EFI PART", 8) == 0)
        at |= 1;
    if (n >= 4104 && memcmp(head + 4096, "EFI PART", 8) == 0)
        at |= 2;
    return at;
}

/* The UEFI spec puts the GPT header at LBA 1 in the device's logical blocks, so a
 * table written for 512-byte sectors (header at byte 512) is not where a reader of
 * a 4096-byte device looks (byte 4096), and the other way round. That ESXi reads
 * a 4Kn device's GPT in 4096-byte LBAs follows from the spec only: ESXi takes 4Kn
 * disks as local SAS/SATA HDDs, and no public capture of ESXi meeting such a
 * table is at hand (UNVERIFIED). A warning, not an error: the table itself is
 * sound, written with the wrong sector size or copied to the wrong device. */
static void wrong_sector_size(struct ptable *t, unsigned written, unsigned device,
                              int forced)
{
    if (forced)
        pt_add(t, SEV_WARN, "GPT written for %u-byte sectors (header at byte %u), not for "
               "the %u given: on a %u-byte device ESXi looks at byte %u and will not find "
               "it; read it with --sector-size %u", written, written, device, device,
               device, written);
    else
        pt_add(t, SEV_WARN, "GPT written for %u-byte sectors (header at byte %u) but the "
               "device has %u-byte sectors: ESXi looks at byte %u and will not find it; "
               "rewrite the table for %u-byte sectors", written, written, device, device,
               device);
}

static unsigned detect_sector(struct disk *d, unsigned at, struct ptable *t)
{
    if (at == 3) {
        pt_add(t, SEV_WARN, "\"EFI PART\" found at byte 512 and at byte 4096; using %u-byte "
               "sectors (force with --sector-size)", d->sector_hint == 4096 ? 4096 : 512);
        t->sector_source = "gpt";
        return d->sector_hint == 4096 ? 4096 : 512;
    }
    if (at) {
        unsigned written = at == 1 ? 512 : 4096;
        if (d->sector_hint && d->sector_hint != written)
            wrong_sector_size(t, written, d->sector_hint, 0);
        t->sector_source = "gpt";
        return written;
    }
    if (d->sector_hint) {
        t->sector_source = "device";
        return d->sector_hint;
    }
    t->sector_source = "default";
    return 512;
}

void pt_parse(struct disk *d, struct ptable *t, unsigned force_sector)
{
    unsigned char head[8192];
    memset(t, 0, sizeof *t);
    t->size_bytes = d->size;
    t->kind = PT_UNKNOWN;
    t->sector = 512;
    t->sector_source = "default";
    if (d->size < 512) {
        t->sectors = 0;
        pt_add(t, SEV_ERROR, "only %llu byte%s: too small for any partition table",
               (unsigned long long)d->size, plural_s(d->size));
        return;
    }
    size_t n = d->size < sizeof head ? (size_t)d->size : sizeof head;
    memset(head, 0, sizeof head);
    if (disk_read(d, 0, head, n) < 0) {
        int e = errno;
        struct stat now;
        if (d->ends_at >= 0 && fstat(d->fd, &now) == 0 && (uint64_t)now.st_size < d->size)
            snprintf(t->unreadable, sizeof t->unreadable, "short read: it shrank from %llu to "
                     "%lld bytes while it was read (something else is writing it: read it "
                     "again once that is done)", (unsigned long long)d->size,
                     (long long)now.st_size);
        else if (d->ends_at >= 0)   /* a /proc or /sys file gives fewer bytes than its size */
            snprintf(t->unreadable, sizeof t->unreadable, "short read: only the first %lld "
                     "of its %llu bytes can be read (a /proc or /sys file? name a disk or "
                     "an image file)", (long long)d->ends_at, (unsigned long long)d->size);
        else
            snprintf(t->unreadable, sizeof t->unreadable, "cannot read the first %zu bytes: "
                     "%s", n, errtext(e));
        pt_add(t, SEV_ERROR, "%s", t->unreadable);
        return;
    }
    unsigned at = gpt_written_for(head, n);
    if (force_sector) {
        t->sector = force_sector;
        t->sector_source = "forced";
        /* the header only at the other size's LBA 1 */
        unsigned other = force_sector == 512 ? 2 : 1;
        if (at == other)
            wrong_sector_size(t, other == 1 ? 512 : 4096, force_sector, 1);
    } else {
        t->sector = detect_sector(d, at, t);
    }
    t->sectors = d->size / t->sector;
    if (d->size % t->sector)
        pt_add(t, SEV_INFO, "size %llu is not a multiple of the %u-byte sector; the last %u "
               "bytes are ignored", (unsigned long long)d->size, t->sector,
               (unsigned)(d->size % t->sector));

    mbr_inspect(head, t);
    if (t->sectors >= 2 && gpt_parse(d, t)) {
        t->kind = PT_GPT;
        if (t->mbr_valid && !t->protective)
            pt_add(t, SEV_WARN, "the MBR has no 0xEE protective entry (MBR tools may "
                   "overwrite the GPT)");
        else if (!t->mbr_valid)
            pt_add(t, SEV_WARN, "no MBR signature (0x55AA) in front of the GPT");
        if (t->hybrid)
            pt_add(t, SEV_WARN, "hybrid MBR: the 0xEE entry shares the MBR with other "
                   "partition entries (ESXi writes a protective MBR only)");
    } else if (t->protective && t->sectors < 2) {
        t->kind = PT_GPT;
        pt_add(t, SEV_WARN, "protective MBR (0xEE), but the image ends before LBA 1, where "
               "the GPT header is: a cut copy of the MBR alone");
    } else if (t->protective) {
        t->kind = PT_GPT;
        pt_add(t, SEV_ERROR, "protective MBR (0xEE) but no GPT header at LBA 1 or at the "
               "last LBA");
    } else if (t->mbr_valid) {
        t->kind = PT_MSDOS;
        mbr_parse(d, head, t);
    }
    sort_by_start(t);
    check_overlaps(t);
    for (size_t i = 0; i < t->nparts; i++)
        classify(d, t, &t->parts[i]);
    esxi_parts_probe(d, t);
}
