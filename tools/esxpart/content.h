/* What a partition holds, from a table of signatures at fixed offsets: the VMFS
 * volume header, VMFS / VMFS-L FS info, FAT boot sectors. */
#ifndef ESXPART_CONTENT_H
#define ESXPART_CONTENT_H
#include "ptable.h"

/* fill p->content; reads only inside the partition */
void content_probe(struct disk *d, const struct ptable *t, struct part *p);
/* "VMFS6 datastore1", "FAT16 BOOTBANK1", "" */
void content_text(const struct content *c, char *out, size_t len);
/* a text field of n bytes on disk (a label, a SCSI vendor) as they are, up to a NUL,
 * trailing blanks cut, into out: the outputs escape what is not printable UTF-8
 * (report.c, jsonw.c) */
void content_field(const unsigned char *src, size_t n, char *out, size_t outlen);
/* UUID in the form blkid prints for VMFS */
void content_uuid(const struct content *c, char *out, size_t len);

#endif
