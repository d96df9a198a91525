/* The result of inspecting one disk: table kind, GPT header facts, partitions with
 * type and content, and findings (info / warning / error). Fixed-size arrays: the
 * memory used does not depend on anything read from the disk. */
#ifndef ESXPART_PTABLE_H
#define ESXPART_PTABLE_H
#include <stddef.h>
#include <stdint.h>
#include "bytes.h"   /* load_le16/32/64 for every reader of on-disk fields */
#include "disk.h"
#include "types.h"
#include "bootbank.h"
#include "vmfs.h"

#define PT_MAX_PARTS 256
#define PT_MAX_FINDINGS 48
#define PT_MAX_LOGICAL 128

enum pt_kind { PT_UNKNOWN, PT_GPT, PT_MSDOS };
enum sev { SEV_INFO, SEV_WARN, SEV_ERROR };

struct finding {
    enum sev sev;
    char text[200];
};

struct content {
    enum cfam fam;        /* CF_NONE when nothing was recognised */
    char fs[24];          /* "VMFS6", "VMFS-L", "FAT16", ... */
    char label[129];      /* bytes as on disk (not always UTF-8): outputs escape */
    unsigned char uuid[16];
    int has_uuid;
    int vmfs_version;     /* from the volume header, 0 if none */
    uint64_t block_size;  /* VMFS file block size, 0 if unknown */
    uint64_t offset;      /* byte offset of the signature inside the partition */
};

struct part {
    unsigned num;
    uint64_t start, end;          /* LBA, end inclusive */
    unsigned char type[16];       /* GPT type GUID (on-disk bytes) */
    unsigned char uuid[16];       /* GPT unique partition GUID */
    uint64_t attrs;               /* GPT attribute bits */
    unsigned mbr_type;            /* msdos type byte */
    int boot;                     /* msdos boot flag 0x80 */
    int logical, extended;
    int mismatch;                 /* content is not what the type promises */
    int past_end;                 /* ends past the disk's end (a cut copy): not read */
    char name[112];               /* GPT name as UTF-8 (controls kept: outputs escape) */
    const struct ptype *ptype;
    const char *role;
    struct content content;
    struct bank_info bank;        /* a bootbank's mark and boot.cfg (esxi_parts.c) */
    struct vmfs_info vmfs;        /* a VMFS / VMFS-L volume's headers */
};

struct ptable {
    /* why nothing of the disk could be read (its first sectors); "" when they were:
     * such a disk is counted and reported as unreadable, not as a table */
    char unreadable[200];
    enum pt_kind kind;
    uint64_t size_bytes;
    unsigned sector;
    const char *sector_source;    /* "gpt", "device", "forced", "default" */
    uint64_t sectors;
    /* MBR */
    int mbr_valid, protective, hybrid;
    uint32_t mbr_id;
    /* GPT */
    int gpt_backup_used, primary_ok, backup_ok;
    int gpt_header;               /* a header was read: the fields below are its */
    int gpt_cut;                  /* the primary describes a larger disk: a cut copy */
    uint64_t gpt_sectors;         /* the disk size the header was written for, 0 none */
    unsigned char disk_guid[16];
    uint64_t first_usable, last_usable, primary_lba, backup_lba, entries_lba;
    uint32_t entry_count, entry_size;

    struct part parts[PT_MAX_PARTS];
    size_t nparts;
    int parts_full;
    int parts_bad;                /* an entry contradicts the table or another entry */
    struct finding findings[PT_MAX_FINDINGS];
    size_t nfind, dropped;
};

/* "s" after a count that is not 1: "1 sector", "0 sectors", "2 bytes" */
static inline const char *plural_s(uint64_t n) { return n == 1 ? "" : "s"; }

void pt_add(struct ptable *t, enum sev sev, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* room for one more partition? adds an error finding the first time it is full */
struct part *pt_new_part(struct ptable *t);
int pt_worst(const struct ptable *t);   /* highest severity, -1 when no finding */
/* 1 when a GPT was read whole from a copy whose header and entries are intact, its
 * disk not cut short, and its entries are consistent: what partedUtil shows even while the other copy is damaged */
int pt_read_whole(const struct ptable *t);
const char *pt_health(const struct ptable *t);   /* "ok", "warning", "error" */
const char *pt_kind_name(enum pt_kind k);
const char *sev_name(enum sev s);

#endif
