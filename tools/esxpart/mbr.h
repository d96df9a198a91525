/* MBR: protective / hybrid detection and classic msdos tables with extended and
 * logical partitions (bounded chain walk). */
#ifndef ESXPART_MBR_H
#define ESXPART_MBR_H
#include "ptable.h"

/* look at sector 0 (512 bytes): sets mbr_valid, protective, hybrid, mbr_id */
void mbr_inspect(const unsigned char *s0, struct ptable *t);
/* list the msdos partitions (primary, extended, logical) into t */
void mbr_parse(struct disk *d, const unsigned char *s0, struct ptable *t);

#endif
