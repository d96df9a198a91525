/* A VMFS or VMFS-L volume read from its LVM device header and its file-system
 * descriptor: label, UUID, version, file block size, whether the volume is ESXi's
 * own system volume (OSDATA) and whether this partition is the volume's first
 * extent. Every field read from the disk is range-checked before it is used. */
#ifndef ESXPART_VMFS_H
#define ESXPART_VMFS_H
#include <stddef.h>
#include <stdint.h>

#define VMFS_LVM_AT 0x100000u     /* LVM device header: 1 MiB into the partition */
#define VMFS_FSD_AT 0x200000u     /* FS descriptor: 2 MiB into the volume's data */
#define VMFS_SYSTEM_FLAG 0x800u   /* FS config flag of a system volume (OSDATA) */

struct vmfs_info {
    int lvm;                  /* LVM device header found (magic 0xC001D00D) */
    uint32_t lvm_major, lvm_minor, volumes;
    uint64_t data_offset;     /* where the volume's data starts in the partition */
    int bad_offset;           /* data_offset outside the partition: nothing more read */
    unsigned char lvm_uuid[16];
    char vendor[9], model[17];
    int fsd;                  /* FS descriptor found: this is the first extent */
    int vmfsl;                /* magic 0x2FABF15F */
    uint32_t major;           /* FS descriptor version: 24 VMFS6, 14 VMFS5, ... */
    unsigned minor;
    unsigned char uuid[16];
    uint32_t config;
    char label[129];
    uint64_t block_size;      /* 0 when the header's value is not a power of two */
};

struct disk;
/* why this partition's VMFS headers are not what they claim: one line per problem,
 * each a finding of the caller's */
typedef void (*vmfs_note_fn)(void *ctx, int error, const char *text);

/* read the headers of a partition of len bytes at byte base; 0 when no LVM header
 * is there, 1 when one is (v filled, problems sent to note) */
int vmfs_read(struct disk *d, uint64_t base, uint64_t len, struct vmfs_info *v,
              vmfs_note_fn note, void *ctx);
/* the same on the bytes of the two headers (LVM header at lvm, FS descriptor at
 * fsd or NULL): the pure part, for the unit tests and the fuzz target */
void vmfs_parse_lvm(const unsigned char lvm[512], struct vmfs_info *v);
void vmfs_parse_fsd(const unsigned char fsd[512], struct vmfs_info *v);
/* "VMFS-6.82", "VMFS-L-6.82", "VMFS-3.31"; "VMFS (version 99.1)" when unknown */
void vmfs_version_text(const struct vmfs_info *v, char *out, size_t len);
/* ESXi's form: xxxxxxxx-xxxxxxxx-xxxx-xxxxxxxxxxxx */
void vmfs_uuid_text(const unsigned char u[16], char *out, size_t len);
int vmfs_osdata(const struct vmfs_info *v);

#endif
