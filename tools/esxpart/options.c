/* esxpart settings: the option table's rows (options_table.h) as data for the
 * option engine (common/args.c: getopt's views, --help, what each row sets), the
 * setters that are esxpart's own and the check across options. */
#include "options.h"

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* -s: the two logical sector sizes ESXi disks have */
static int set_sector(void *p, const char *v, char *why, size_t len)
{
    struct part_opts *o = p;
    if (strcmp(v, "512") && strcmp(v, "4096")) {
        snprintf(why, len, "--sector-size %s: must be 512 or 4096", v);
        return -1;
    }
    o->sector = v[0] == '5' ? 512 : 4096;
    return 0;
}

static int refuse_V(void *o, const char *v, char *why, size_t len)
{
    (void)o, (void)v;
    snprintf(why, len, "-V is not an option: -v (--verify) checks the tables, "
             "--version prints the version");
    return -1;
}

/* the offset of field f, which must be an int (else the array size is -1) */
#define FIELD(f) (offsetof(struct part_opts, f) + \
                  0 * sizeof(char[_Generic(((struct part_opts *)0)->f, int: 1, default: -1)]))
/* options_table.h's SET column */
#define MAIN .kind = OPT_MAIN
#define FLAG(f) .kind = OPT_FLAG, .off = FIELD(f)
#define FN(f) .kind = OPT_FN, .fn = f

const struct opt_row part_rows[PART_OPT_ROWS] = {
#define OPT(l, n, a, set, h) \
    { .code = l, .letter = l, .name = n, .arg = OPT_ARG_##a, .help = h, set },
#define LONG(c, n, a, set, h) \
    { .code = c, .name = n, .arg = OPT_ARG_##a, .help = h, set },
#define TEXT(h) { .help = h },
#include "options_table.h"
};

const char part_usage[] =
#define OPT(letter, name, arg, set, help) help
#define LONG(code, name, arg, set, help) help
#define TEXT(help) help
#include "options_table.h"
    ;

/* how esxpart words getopt's refusals: -s, the one option with a value, is
 * named with the values it takes; a flag given a value as typed */
static const struct bad_option_words refusals = {
    BADOPT_NEEDS_FULL_NAME, ": 512 or 4096", "",
};
static char shorts[ARGS_SHORTS(PART_OPT_ROWS)];
static struct option longs[PART_OPT_ROWS + 1];
const struct args_table part_table = {
    part_rows, PART_OPT_ROWS, &refusals, 160, shorts, longs,
};

int opts_set(struct part_opts *o, int code, const char *v, char *why, size_t len)
{
    return args_set(&part_table, o, NULL, code, v, why, len);
}

int opts_validate(const struct part_opts *o, char *why, size_t len)
{
    if (o->partedutil + o->usable > 1) {
        snprintf(why, len, "--partedutil and --usable do not go together");
        return -1;
    }
    return 0;
}
