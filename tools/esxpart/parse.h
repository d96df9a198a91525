/* The parser entry point: one disk in, one filled struct ptable out. */
#ifndef ESXPART_PARSE_H
#define ESXPART_PARSE_H
#include "ptable.h"

/* Inspect d. force_sector is 0 (detect) or 512/4096. Never fails: problems become
 * findings. The parser entry point for the fuzz target. */
void pt_parse(struct disk *d, struct ptable *t, unsigned force_sector);

#endif
