/* In-memory sparse disk images for the esxpart unit tests: a list of written
 * extents over zeros, served through the disk layer's read callback, and a GPT /
 * MBR writer that computes the CRCs. Header-only (static inline) so each test
 * file can use what it needs. */
#ifndef ESXPART_TEST_IMAGE_H
#define ESXPART_TEST_IMAGE_H
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "crc32.h"
#include "../../tools/esxpart/disk.h"
#include "../../tools/esxpart/parse.h"
#include "../../tools/esxpart/types.h"

#define IMG_MAX_EXT 64

struct img {
    uint64_t size;
    unsigned sector;
    size_t n;
    struct { uint64_t off; size_t len; unsigned char *data; } ext[IMG_MAX_EXT];
    struct disk d;
};

static inline int img_read(void *ctx, uint64_t off, void *buf, size_t len)
{
    struct img *im = ctx;
    memset(buf, 0, len);
    for (size_t i = 0; i < im->n; i++) {
        uint64_t a = im->ext[i].off, b = a + im->ext[i].len;
        uint64_t lo = off > a ? off : a, hi = off + len < b ? off + len : b;
        if (lo < hi)
            memcpy((unsigned char *)buf + (lo - off), im->ext[i].data + (lo - a), hi - lo);
    }
    return 0;
}

static inline struct img *img_new(uint64_t size, unsigned sector)
{
    struct img *im = calloc(1, sizeof *im);
    im->size = size;
    im->sector = sector;
    disk_from_callback(&im->d, "mem", size, img_read, im);
    return im;
}

static inline void img_free(struct img *im)
{
    for (size_t i = 0; i < im->n; i++)
        free(im->ext[i].data);
    disk_close(&im->d);
    free(im);
}

/* later writes win (read applies extents in order) */
static inline void img_write(struct img *im, uint64_t off, const void *data, size_t len)
{
    if (im->n >= IMG_MAX_EXT)
        abort();
    im->ext[im->n].off = off;
    im->ext[im->n].len = len;
    im->ext[im->n].data = malloc(len);
    memcpy(im->ext[im->n].data, data, len);
    im->n++;
}

/* read back a region (for patch-and-rewrite helpers) */
static inline void img_get(struct img *im, uint64_t off, void *buf, size_t len)
{
    img_read(im, off, buf, len);
}

struct tpart { unsigned num; uint64_t start, end; const char *guid; };

/* protective MBR, primary and backup GPT with count entries of esize bytes */
static inline void img_gpt(struct img *im, const struct tpart *parts, size_t n,
                           uint32_t count, uint32_t esize)
{
    unsigned s = im->sector;
    uint64_t sectors = im->size / s, last = sectors - 1;
    size_t alen = (size_t)count * esize;
    uint64_t asec = (alen + s - 1) / s;
    unsigned char *arr = calloc(1, asec * s);
    for (size_t i = 0; i < n; i++) {
        unsigned char *e = arr + (size_t)(parts[i].num - 1) * esize;
        guid_parse(parts[i].guid, e);
        for (int k = 0; k < 16; k++)
            e[16 + k] = (unsigned char)(0x10 + parts[i].num + k);
        store_le64(e + 32, parts[i].start);
        store_le64(e + 40, parts[i].end);
    }
    uint32_t acrc = crc32_ieee(0, arr, alen);
    unsigned char mbr[512] = { 0 };
    mbr[446 + 4] = 0xEE;
    store_le32(mbr + 446 + 8, 1);
    store_le32(mbr + 446 + 12, sectors - 1 > 0xFFFFFFFFu ? 0xFFFFFFFFu : (uint32_t)(sectors - 1));
    mbr[510] = 0x55;
    mbr[511] = 0xAA;
    img_write(im, 0, mbr, sizeof mbr);
    for (int backup = 0; backup < 2; backup++) {
        unsigned char *h = calloc(1, s);
        memcpy(h, "EFI PART", 8);
        store_le32(h + 8, 0x00010000);
        store_le32(h + 12, 92);
        store_le64(h + 24, backup ? last : 1);
        store_le64(h + 32, backup ? 1 : last);
        store_le64(h + 40, 2 + asec);
        store_le64(h + 48, last - 1 - asec);
        for (int k = 0; k < 16; k++)
            h[56 + k] = (unsigned char)(0xA0 + k);
        uint64_t alba = backup ? last - asec : 2;
        store_le64(h + 72, alba);
        store_le32(h + 80, count);
        store_le32(h + 84, esize);
        store_le32(h + 88, acrc);
        store_le32(h + 16, crc32_ieee(0, h, 92));
        img_write(im, (backup ? last : 1) * s, h, s);
        img_write(im, alba * s, arr, asec * s);
        free(h);
    }
    free(arr);
}

/* change a u32/u64 field of the GPT header at lba and fix its CRC */
static inline void img_gpt_set(struct img *im, uint64_t lba, unsigned field, uint64_t v,
                               int width)
{
    unsigned char h[4096];
    img_get(im, lba * im->sector, h, im->sector);
    if (width == 4)
        store_le32(h + field, (uint32_t)v);
    else
        store_le64(h + field, v);
    store_le32(h + 16, 0);
    store_le32(h + 16, crc32_ieee(0, h, 92));
    img_write(im, lba * im->sector, h, im->sector);
}

/* a fresh ptable for im (free() it); force: 0 detect, or 512/4096 */
static inline struct ptable *img_probe(struct img *im, unsigned force)
{
    struct ptable *t = calloc(1, sizeof *t);
    if (!t)
        abort();
    pt_parse(&im->d, t, force);
    return t;
}

static inline int has_finding(const struct ptable *t, enum sev sev, const char *needle)
{
    for (size_t i = 0; i < t->nfind; i++)
        if (t->findings[i].sev == sev && strstr(t->findings[i].text, needle))
            return 1;
    return 0;
}

#endif
