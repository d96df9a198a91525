/* GUID partition table: primary and backup headers, entry arrays, checks. */
#ifndef ESXPART_GPT_H
#define ESXPART_GPT_H
#include "ptable.h"

#define GPT_MAX_ENTRIES 16384u
#define GPT_MAX_ENTRY_SIZE 4096u
#define GPT_MAX_ARRAY (4u * 1024u * 1024u)

/* Returns 1 when the disk carries a GPT (even a damaged one, then with findings),
 * 0 when there is no sign of one. Fills t's GPT fields and partitions. */
int gpt_parse(struct disk *d, struct ptable *t);

/* UTF-16LE name (up to 36 units, stops at NUL or 0xFFFF) -> well-formed UTF-8;
 * an unpaired surrogate becomes U+FFFD, control characters are kept */
void gpt_name(const unsigned char *raw, size_t units, char *out, size_t outlen);

#endif
