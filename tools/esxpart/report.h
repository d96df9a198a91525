/* Output: the per-disk table, partedUtil getptbl lines, getUsableSectors, the GUID
 * table, and JSON. Each writes to the FILE it is given. */
#ifndef ESXPART_REPORT_H
#define ESXPART_REPORT_H
#include <stdint.h>
#include <stdio.h>
#include "jsonw.h"
#include "ptable.h"

void report_table(FILE *out, const char *path, const struct ptable *t);
void report_partedutil(FILE *out, const struct ptable *t);
/* "FIRST LAST": the GPT's usable range, or what a new GPT with 128 entries would
 * leave; -1 (nothing printed, *need = the fewest sectors that hold a GPT) when
 * the disk is too small for one */
int report_usable(FILE *out, const struct ptable *t, uint64_t *need);
void report_types(FILE *out);
void report_types_json(struct jsonw *w);
/* one element of the "disks" array */
void report_json_disk(struct jsonw *w, const char *path, const struct ptable *t);
void report_json_error(struct jsonw *w, const char *path, const char *why);

#endif
