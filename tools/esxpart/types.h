/* Partition types: GPT type GUIDs and MBR type bytes mapped to esxpart's name,
 * partedUtil's getptbl name and a role an administrator understands. Tables, not
 * if-chains. */
#ifndef ESXPART_TYPES_H
#define ESXPART_TYPES_H
#include <stddef.h>
#include <stdint.h>

/* what a partition of this type should contain, for the type/content check */
enum cfam { CF_ANY, CF_NONE, CF_VMFS, CF_VMFSL, CF_FAT };

struct ptype {
    const char *hex;      /* partedUtil order, upper case, no dashes; NULL for MBR */
    unsigned mbr;         /* MBR type byte, 0 for GPT rows */
    const char *name;     /* esxpart's name (its table, -J type_name) */
    const char *parted;   /* what partedUtil getptbl prints: only names seen there */
    const char *show;     /* partedUtil showGuids label (NULL: not listed there) */
    const char *role;     /* what it is for */
    enum cfam expect;
    unsigned attr;        /* getptbl attribute column: 128 for systemPartition */
};

/* on-disk (mixed-endian) GUID -> "AA31E02A400F11DB9590000C2911D1B8" (33 bytes) */
void guid_hex(const unsigned char g[16], char out[33]);
/* -> "AA31E02A-400F-11DB-9590-000C2911D1B8" (37 bytes) */
void guid_canon(const unsigned char g[16], char out[37]);
/* "AA31E02A400F11DB9590000C2911D1B8" (dashes allowed) -> on-disk bytes; -1 if bad */
int guid_parse(const char *s, unsigned char g[16]);
int guid_is_zero(const unsigned char g[16]);

/* look-ups never fail: an unknown GUID or byte gets the "unknown" row */
const struct ptype *type_by_guid(const unsigned char g[16]);
const struct ptype *type_by_mbr(unsigned byte);
/* the GPT table, for --types */
const struct ptype *type_gpt_table(size_t *n);

int mbr_is_extended(unsigned byte);

#endif
