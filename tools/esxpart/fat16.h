/* One file of a FAT16 volume's root directory, read by its 8.3 name: the boot
 * sector's geometry checked against the partition, the cluster chain followed
 * entry by entry and refused when it leaves the FAT, leaves the data area or comes
 * back on itself. Reads at most the caller's buffer; never allocates. */
#ifndef ESXPART_FAT16_H
#define ESXPART_FAT16_H
#include <stddef.h>
#include <stdint.h>

struct disk;

enum fat16_rc {
    FAT16_OK,          /* the file's first n bytes are in the buffer */
    FAT16_NOT_FAT16,   /* the boot sector does not describe a FAT16 volume that fits */
    FAT16_NO_FILE,     /* no such name in the root directory */
    FAT16_LOOP,        /* the chain comes back to a cluster it has visited */
    FAT16_PAST_FAT,    /* a cluster number beyond the FAT or the data area */
    FAT16_SHORT,       /* the chain ends before the file's size */
    FAT16_IO,          /* a read failed */
};

/* the most a read follows of a chain with its loop check whole: the cap a caller
 * may give, in bytes (clusters are 512 bytes or more) */
#define FAT16_CAP_MAX (1024u * 1024u)

/* read the file name83 ("BOOT    CFG", 11 bytes) of the FAT16 volume of len bytes
 * at byte base into buf (up to cap bytes, at most FAT16_CAP_MAX); *n its length
 * read, *size its size in the directory (more than *n when cap cut it); *bad the
 * cluster number at fault for LOOP/PAST_FAT */
enum fat16_rc fat16_read_file(struct disk *d, uint64_t base, uint64_t len,
                              const char name83[11], char *buf, size_t cap, size_t *n,
                              uint32_t *size, uint32_t *bad);
const char *fat16_rc_text(enum fat16_rc rc);

#endif
