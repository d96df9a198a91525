/* esxpart settings: the option table (options_table.h's rows) and what each row
 * sets, filled by main.c from the command line, and the check across options,
 * pure so that unit tests reach them. */
#ifndef ESXPART_OPTIONS_H
#define ESXPART_OPTIONS_H
#include <stddef.h>
#include "args.h"

/* the codes getopt_long returns for the long-only options, one per LONG row,
 * after every letter's */
enum {
    OPT_LONG_BEFORE = 255,
#define LONG(code, name, arg, set, help) code,
#include "options_table.h"
    OPT_CODE_END
};

struct part_opts {
    int partedutil, usable, types, json, verify;     /* -p, -u, -g, -J, -v */
    unsigned sector;                                   /* -s: 512, 4096, 0 for the disk's */
};

enum {
#define OPT(letter, name, arg, set, help) +1
#define LONG(code, name, arg, set, help) +1
#define TEXT(help) +1
    PART_OPT_ROWS = 0
#include "options_table.h"
};
extern const struct opt_row part_rows[PART_OPT_ROWS];   /* options_table.h's rows */
extern const struct args_table part_table;              /* and how refusals are worded */
extern const char part_usage[];        /* --help: every row's text, in order */

/* does what code's row says with value (optarg): 0 done, -1 with a one-line
 * reason in why (a usage error), 1 when main.c acts on it (its row says MAIN) or
 * code is no option's */
int opts_set(struct part_opts *o, int code, const char *value, char *why, size_t len);
/* the check across options: 0, or -1 with the reason in why (a usage error) */
int opts_validate(const struct part_opts *o, char *why, size_t len);

#endif
