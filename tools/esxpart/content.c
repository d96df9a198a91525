/* Content signatures at fixed offsets inside a partition, as a table (name, offset,
 * magic, probe). Offsets and layouts: VMFS volume header at +1 MiB, VMFS FS info at
 * +0x1300000 (also +2 MiB, where libblkid's sample has it), FAT boot sector at +0. */
#include "content.h"

#include <stdio.h>
#include <string.h>

#define SIG_READ 512

struct sig {
    const char *name;
    uint64_t offset;               /* inside the partition */
    unsigned magic_at;             /* inside the SIG_READ bytes read there */
    const char *magic;
    size_t magic_len;
    void (*probe)(const unsigned char *b, struct content *c, const struct sig *s);
};

void content_field(const unsigned char *src, size_t n, char *out, size_t outlen)
{
    size_t o = 0;
    for (size_t i = 0; i < n && src[i] && o + 1 < outlen; i++)
        out[o++] = (char)src[i];
    while (o > 0 && out[o - 1] == ' ')
        o--;
    out[o] = 0;
}

static void probe_fat(const unsigned char *b, struct content *c, const struct sig *s)
{
    unsigned bps = load_le16(b + 11), spc = b[13];
    if ((bps != 512 && bps != 1024 && bps != 2048 && bps != 4096) || spc == 0 ||
        (spc & (spc - 1)) || load_le16(b + 14) == 0 || b[16] == 0)
        return;
    const unsigned char *label = NULL, *serial = NULL;
    const char *fs = "FAT";
    if (load_le16(b + 22) == 0 && memcmp(b + 82, "FAT32", 5) == 0) {
        fs = "FAT32";
        if (b[66] == 0x29) {
            label = b + 71;
            serial = b + 67;
        }
    } else if (b[38] == 0x29) {
        label = b + 43;
        serial = b + 39;
        if (memcmp(b + 54, "FAT12", 5) == 0)
            fs = "FAT12";
        else if (memcmp(b + 54, "FAT16", 5) == 0)
            fs = "FAT16";
    }
    c->fam = CF_FAT;   /* first in sigs[]: nothing was found before it */
    c->offset = s->offset;
    snprintf(c->fs, sizeof c->fs, "%s", fs);
    if (label) {
        content_field(label, 11, c->label, sizeof c->label);
        if (strcmp(c->label, "NO NAME") == 0)
            c->label[0] = 0;
    }
    if (serial) {
        memcpy(c->uuid, serial, 4);
        c->has_uuid = 4;
    }
}

static void probe_volume(const unsigned char *b, struct content *c, const struct sig *s)
{
    uint32_t v = load_le32(b + 4);
    c->vmfs_version = v >= 1 && v <= 9 ? (int)v : -1;
    if (c->fam == CF_NONE || c->fam == CF_FAT) {   /* VMFS wins over a stale boot sector */
        c->fam = CF_VMFS;
        c->offset = s->offset;
        c->label[0] = 0;
        memcpy(c->uuid, b + 0x82, 16);
        c->has_uuid = 16;
    }
}

static void probe_fsinfo(const unsigned char *b, struct content *c, const struct sig *s)
{
    if (c->fam == CF_VMFSL || (c->fam == CF_VMFS && c->offset != 1024 * 1024))
        return;   /* first FS info found wins */
    c->fam = b[0] == 0x5F ? CF_VMFSL : CF_VMFS;
    c->offset = s->offset;
    memcpy(c->uuid, b + 9, 16);
    c->has_uuid = 16;
    content_field(b + 29, 128, c->label, sizeof c->label);
    uint64_t bs = load_le64(b + 161);
    c->block_size = bs >= 512 && bs <= (1u << 30) && !(bs & (bs - 1)) ? bs : 0;
}

/* in offset order: each probe sees what the ones before it found */
static const struct sig sigs[] = {
    { "FAT boot sector",    0,          510, "\x55\xAA",         2, probe_fat },
    { "VMFS volume header", 0x100000,   0,   "\x0d\xd0\x01\xc0", 4, probe_volume },
    { "VMFS FS info",       0x1300000,  0,   "\x5e\xf1\xab\x2f", 4, probe_fsinfo },
    { "VMFS-L FS info",     0x1300000,  0,   "\x5f\xf1\xab\x2f", 4, probe_fsinfo },
    { "VMFS FS info",       0x200000,   0,   "\x5e\xf1\xab\x2f", 4, probe_fsinfo },
    { "VMFS-L FS info",     0x200000,   0,   "\x5f\xf1\xab\x2f", 4, probe_fsinfo },
};

void content_probe(struct disk *d, const struct ptable *t, struct part *p)
{
    struct content *c = &p->content;
    unsigned char b[SIG_READ];
    uint64_t last_off = UINT64_MAX;
    memset(c, 0, sizeof *c);
    c->fam = CF_NONE;
    if (p->extended || p->start > p->end || p->end >= t->sectors)
        return;
    uint64_t base = p->start * t->sector;
    uint64_t len = (p->end - p->start + 1) * t->sector;
    for (size_t i = 0; i < ARRAY_SIZE(sigs); i++) {
        const struct sig *s = &sigs[i];
        if (s->offset + SIG_READ > len)
            continue;
        if (s->offset != last_off) {
            if (disk_read(d, base + s->offset, b, sizeof b) < 0)
                continue;
            last_off = s->offset;
        }
        if (memcmp(b + s->magic_at, s->magic, s->magic_len) == 0)
            s->probe(b, c, s);
    }
    if (c->fam == CF_VMFS && c->vmfs_version > 0)
        snprintf(c->fs, sizeof c->fs, "VMFS%d", c->vmfs_version);
    else if (c->fam == CF_VMFS)
        snprintf(c->fs, sizeof c->fs, "VMFS");
    else if (c->fam == CF_VMFSL)
        snprintf(c->fs, sizeof c->fs, "VMFS-L");
}

void content_text(const struct content *c, char *out, size_t len)
{
    if (c->fam == CF_NONE)
        snprintf(out, len, "%s", "");
    else if (c->label[0])
        snprintf(out, len, "%s %s", c->fs, c->label);
    else
        snprintf(out, len, "%s", c->fs);
}

void content_uuid(const struct content *c, char *out, size_t len)
{
    const unsigned char *u = c->uuid;
    if (c->has_uuid == 4)   /* FAT volume serial, as blkid prints it */
        snprintf(out, len, "%02X%02X-%02X%02X", u[3], u[2], u[1], u[0]);
    else if (c->has_uuid == 16)   /* VMware's form: u32, u32, u16 little-endian, 6 bytes */
        snprintf(out, len, "%08x-%08x-%04x-%02x%02x%02x%02x%02x%02x", load_le32(u), load_le32(u + 4),
                 load_le16(u + 8), u[10], u[11], u[12], u[13], u[14], u[15]);
    else
        snprintf(out, len, "%s", "");
}
