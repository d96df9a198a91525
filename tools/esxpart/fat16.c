/* FAT16 as Microsoft's FAT specification lays it out: the BIOS parameter block at
 * the start of the volume (bytes per sector +11, sectors per cluster +13, reserved
 * sectors +14, FAT count +16, root entries +17, total sectors +19/+32, sectors per
 * FAT +22), the FATs after the reserved sectors, the root directory after the
 * FATs, clusters from number 2 after it. Every number from the disk is checked
 * against the partition before a read; a chain is followed at most as many steps
 * as the file needs clusters, and each step is checked for loops and range. */
#include "fat16.h"
#include "bytes.h"
#include "disk.h"

#include <string.h>

#define DIRENT 32u
#define MAX_CHAIN (FAT16_CAP_MAX / 512u)   /* clusters remembered for the loop check */

static const char *const rc_text[] = {
    [FAT16_OK] = "read",
    [FAT16_NOT_FAT16] = "not a FAT16 volume that fits its partition",
    [FAT16_NO_FILE] = "not in the root directory",
    [FAT16_LOOP] = "its cluster chain loops",
    [FAT16_PAST_FAT] = "its cluster chain runs past the FAT",
    [FAT16_SHORT] = "its cluster chain ends before its size",
    [FAT16_IO] = "cannot be read",
};

const char *fat16_rc_text(enum fat16_rc rc) { return rc_text[rc]; }

struct geom {
    uint32_t bps, spc, fat_at, fat_bytes, root_at, root_entries, data_at, clusters;
};

static int geometry(const unsigned char *b, uint64_t len, struct geom *g)
{
    uint32_t bps = load_le16(b + 11), spc = b[13], rsv = load_le16(b + 14), nfat = b[16];
    uint32_t roots = load_le16(b + 17), tot = load_le16(b + 19), fatsz = load_le16(b + 22);
    if (tot == 0)
        tot = load_le32(b + 32);
    if ((bps != 512 && bps != 1024 && bps != 2048 && bps != 4096) || spc == 0 ||
        (spc & (spc - 1)) || rsv == 0 || nfat == 0 || nfat > 4 || roots == 0 || fatsz == 0)
        return -1;
    uint64_t fat_end = (uint64_t)rsv + (uint64_t)nfat * fatsz;
    uint64_t root_secs = ((uint64_t)roots * DIRENT + bps - 1) / bps;
    uint64_t data = fat_end + root_secs;
    if ((uint64_t)tot * bps > len || data >= tot)
        return -1;
    uint64_t clusters = (tot - data) / spc;
    /* FAT16 by the specification's rule: 4085 to 65524 clusters */
    if (clusters < 4085 || clusters > 65524)
        return -1;
    g->bps = bps;
    g->spc = spc;
    g->fat_at = rsv * bps;
    g->fat_bytes = fatsz * bps;
    g->root_at = (uint32_t)(fat_end * bps);
    g->root_entries = roots;
    g->data_at = (uint32_t)(data * bps);
    g->clusters = (uint32_t)clusters;
    return 0;
}

enum fat16_rc fat16_read_file(struct disk *d, uint64_t base, uint64_t len,
                              const char name83[11], char *buf, size_t cap, size_t *n,
                              uint32_t *size_out, uint32_t *bad)
{
    unsigned char b[512];
    struct geom g;
    *n = 0;
    *bad = 0;
    *size_out = 0;
    if (cap > FAT16_CAP_MAX)
        cap = FAT16_CAP_MAX;
    if (len < sizeof b || disk_read(d, base, b, sizeof b) < 0)
        return FAT16_IO;
    if (geometry(b, len, &g) < 0)
        return FAT16_NOT_FAT16;
    /* the root directory, 16 entries a read, up to its end marker */
    uint32_t first = 0, size = 0;
    int found = 0;
    for (uint32_t e = 0; e < g.root_entries && !found; e += sizeof b / DIRENT) {
        if (disk_read(d, base + g.root_at + (uint64_t)e * DIRENT, b, sizeof b) < 0)
            return FAT16_IO;
        for (uint32_t k = 0; k < sizeof b / DIRENT && e + k < g.root_entries; k++) {
            const unsigned char *ent = b + k * DIRENT;
            if (ent[0] == 0)
                return FAT16_NO_FILE;
            if (ent[0] == 0xE5 || (ent[11] & 0x18))   /* deleted, label, directory */
                continue;
            if (memcmp(ent, name83, 11) == 0) {
                first = load_le16(ent + 26);
                size = load_le32(ent + 28);
                found = 1;
                break;
            }
        }
    }
    if (!found)
        return FAT16_NO_FILE;
    *size_out = size;
    uint32_t csize = g.bps * g.spc;
    size_t want = size < cap ? size : cap;
    uint32_t seen[MAX_CHAIN];
    size_t nseen = 0;
    uint32_t c = first;
    /* FAT entries beyond the FAT's own size, or clusters beyond the data area */
    uint32_t fat_entries = g.fat_bytes / 2, last = g.clusters + 1;
    while (*n < want) {
        if (c >= 0xFFF8)
            return FAT16_SHORT;
        if (c < 2 || c > last || c >= fat_entries) {
            *bad = c;
            return FAT16_PAST_FAT;
        }
        for (size_t i = 0; i < nseen; i++)
            if (seen[i] == c) {
                *bad = c;
                return FAT16_LOOP;
            }
        if (nseen < MAX_CHAIN)
            seen[nseen++] = c;
        size_t take = want - *n < csize ? want - *n : csize;
        if (disk_read(d, base + g.data_at + (uint64_t)(c - 2) * csize, buf + *n, take) < 0)
            return FAT16_IO;
        *n += take;
        if (*n >= want)
            break;
        unsigned char e2[2];
        if (disk_read(d, base + g.fat_at + (uint64_t)c * 2, e2, 2) < 0)
            return FAT16_IO;
        c = load_le16(e2);
    }
    return FAT16_OK;
}
