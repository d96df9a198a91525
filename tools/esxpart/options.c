/* esxpart settings: the option table's rows (options_table.h) as data, what each
 * row sets, the views derived from them (getopt's, --help) and the check across
 * options. */
#include "options.h"

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* -s: the two logical sector sizes ESXi disks have */
static int set_sector(struct part_opts *o, const char *v, char *why, size_t len)
{
    if (strcmp(v, "512") && strcmp(v, "4096")) {
        snprintf(why, len, "--sector-size %s: must be 512 or 4096", v);
        return -1;
    }
    o->sector = v[0] == '5' ? 512 : 4096;
    return 0;
}

static int refuse_V(struct part_opts *o, const char *v, char *why, size_t len)
{
    (void)o, (void)v;
    snprintf(why, len, "-V is not an option: -v (--verify) checks the tables, "
             "--version prints the version");
    return -1;
}

/* the offset of field f, which must be an int (else the array size is -1) */
#define FIELD(f) (offsetof(struct part_opts, f) + \
                  0 * sizeof(char[_Generic(((struct part_opts *)0)->f, int: 1, default: -1)]))
/* options_table.h's SET column: kind, off, fn */
#define MAIN SET_MAIN, 0, NULL
#define FLAG(f) SET_FLAG, FIELD(f), NULL
#define FN(fn) SET_FN, 0, fn

const struct opt_row part_rows[PART_OPT_ROWS] = {
#define OPT(letter, name, arg, set, help) { letter, letter, name, OPT_ARG_##arg, help },
#define LONG(code, name, arg, set, help) { code, 0, name, OPT_ARG_##arg, help },
#define TEXT(help) { 0, 0, NULL, OPT_ARG_NONE, help },
#include "options_table.h"
};

const struct part_set part_sets[PART_OPT_ROWS] = {
#define OPT(letter, name, arg, set, help) { set },
#define LONG(code, name, arg, set, help) { set },
#define TEXT(help) { MAIN },
#include "options_table.h"
};

const char part_usage[] =
#define OPT(letter, name, arg, set, help) help
#define LONG(code, name, arg, set, help) help
#define TEXT(help) help
#include "options_table.h"
    ;

void opts_getopt(const char **shorts, const struct option **longs)
{
    static char s[2 + 2 * PART_OPT_ROWS];
    static struct option l[PART_OPT_ROWS + 1];
    if (!s[0])
        args_getopt(part_rows, PART_OPT_ROWS, s, l);
    *shorts = s;
    *longs = l;
}

int opts_set(struct part_opts *o, int code, const char *v, char *why, size_t len)
{
    for (size_t i = 0; i < PART_OPT_ROWS; i++) {
        if (!code || part_rows[i].code != code)
            continue;
        const struct part_set *e = &part_sets[i];
        switch (e->kind) {
        case SET_MAIN: return 1;
        case SET_FLAG: *(int *)((char *)o + e->off) = 1; return 0;
        case SET_FN: return e->fn(o, v, why, len);
        }
    }
    return 1;
}

int opts_validate(const struct part_opts *o, char *why, size_t len)
{
    if (o->partedutil + o->usable > 1) {
        snprintf(why, len, "--partedutil and --usable do not go together");
        return -1;
    }
    return 0;
}
