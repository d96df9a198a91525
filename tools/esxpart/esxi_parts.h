/* What ESXi keeps on its own partitions, read after the table: each bootbank's mark
 * and boot.cfg with the bank that boots next, each VMFS / VMFS-L volume's headers,
 * and the lines the report prints for them. */
#ifndef ESXPART_ESXI_PARTS_H
#define ESXPART_ESXI_PARTS_H
#include <stdio.h>
#include "ptable.h"

/* fill every partition's bank and vmfs, add findings; reads only inside each
 * partition */
void esxi_parts_probe(struct disk *d, struct ptable *t);
/* one line a bootbank, VMFS volume or coredump partition, each starting "  " */
void esxi_parts_lines(FILE *out, const struct ptable *t);
/* the bank's build after the content text, for the table's content column */
const char *esxi_parts_build(const struct part *p);
/* the bank's UUID as 32 hex digits, the form the loader hands the kernel (bootUUID=) */
void esxi_parts_bank_uuid(const struct bank_info *k, char out[33]);

#endif
