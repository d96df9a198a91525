/* Output: the per-disk table, partedUtil getptbl lines, getUsableSectors, the GUID
 * table, and JSON. Each writes to the FILE it is given. */
#ifndef ESXPART_REPORT_H
#define ESXPART_REPORT_H
#include <stdio.h>
#include "jsonw.h"
#include "ptable.h"

void report_table(FILE *out, const char *path, const struct ptable *t);
void report_partedutil(FILE *out, const struct ptable *t);
void report_usable(FILE *out, const struct ptable *t);
void report_showguids(FILE *out);
void report_showguids_json(struct jsonw *w);
/* one element of the "disks" array */
void report_json_disk(struct jsonw *w, const char *path, const struct ptable *t);
void report_json_error(struct jsonw *w, const char *path, const char *why);

#endif
