/* esxmtu settings: the option table's rows (options_table.h) as data, what each
 * row sets, the views derived from them (getopt's, --help), the defaults and the
 * cross-option checks. */
#include "options.h"
#include "clock.h"
#include "fail.h"
#include "packet.h"
#include "trace.h"

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

static int secs_in(const char *opt, const char *v, double min, double max, uint64_t *ns,
                   char *why, size_t len)
{
    double d;
    const char *w;
    if (parse_double(v, min, max, &d, &w) != 0) {
        snprintf(why, len, "%s '%s': %s (%g..%g seconds)", opt, v, w, min, max);
        return -1;
    }
    *ns = (uint64_t)(d * (double)NS_PER_SEC);
    return 0;
}

/* -i: the pause between probes, and its text as given for esxcli's --interval */
static int set_interval(struct mtu_opts *o, const char *v, char *why, size_t len)
{
    if (secs_in("-i", v, 0, 60, &o->chk.interval_ns, why, len) != 0)
        return -1;
    o->interval = v;
    return 0;
}

static int set_ipv4(struct mtu_opts *o, const char *v, char *why, size_t len)
{
    (void)v, (void)why, (void)len;
    o->family = AF_INET;
    return 0;
}

static int set_ipv6(struct mtu_opts *o, const char *v, char *why, size_t len)
{
    (void)v, (void)why, (void)len;
    o->family = AF_INET6;
    return 0;
}

static int set_method(struct mtu_opts *o, const char *v, char *why, size_t len)
{
    int m = probe_method_parse(v);
    if (m < 0) {
        snprintf(why, len, "--method '%s': unknown (auto, raw, errqueue or dgram)", v);
        return -1;
    }
    o->po.method = (enum probe_method)m;
    return 0;
}

/* the offset of field f, which must be of type T (else the array size is -1) */
#define FIELD(f, T) (offsetof(struct mtu_opts, f) + \
                     0 * sizeof(char[_Generic(((struct mtu_opts *)0)->f, T: 1, default: -1)]))
/* options_table.h's SET column: kind, off, min, max, fn */
#define MAIN SET_MAIN, 0, 0, 0, NULL
#define NOTHING SET_NOTHING, 0, 0, 0, NULL
#define FLAG(f) SET_FLAG, FIELD(f, int), 0, 0, NULL
#define STR(f) SET_STR, FIELD(f, const char *), 0, 0, NULL
#define U32(f, lo, hi) SET_U32, FIELD(f, uint32_t), lo, hi, NULL
#define INT(f, lo, hi) SET_INT, FIELD(f, int), lo, hi, NULL
#define SECS(f, lo, hi) SET_SECS, FIELD(f, uint64_t), lo, hi, NULL
#define FN(fn) SET_FN, 0, 0, 0, fn

const struct mtu_set mtu_sets[MTU_OPT_ROWS] = {
#define OPT(letter, name, arg, set, help) { set },
#define LONG(code, name, arg, set, help) { set },
#define TEXT(help) { MAIN },
#include "options_table.h"
};

const struct opt_row mtu_rows[MTU_OPT_ROWS] = {
#define OPT(letter, name, arg, set, help) { letter, letter, name, OPT_ARG_##arg, help },
#define LONG(code, name, arg, set, help) { code, 0, name, OPT_ARG_##arg, help },
#define TEXT(help) { 0, 0, NULL, OPT_ARG_NONE, help },
#include "options_table.h"
};

const char mtu_usage[] =
#define OPT(letter, name, arg, set, help) help
#define LONG(code, name, arg, set, help) help
#define TEXT(help) help
#include "options_table.h"
    ;

/* the index of code's row, -1 when none */
static int row_of(int code)
{
    for (size_t i = 0; i < MTU_OPT_ROWS; i++)
        if (code && mtu_rows[i].code == code)
            return (int)i;
    return -1;
}

const char *opts_name(int code, char *buf, size_t len)
{
    int i = row_of(code);
    if (i < 0)
        snprintf(buf, len, "?");
    else if (mtu_rows[i].letter)
        snprintf(buf, len, "-%c", mtu_rows[i].letter);
    else
        snprintf(buf, len, "--%s", mtu_rows[i].name);
    return buf;
}

void opts_getopt(const char **shorts, const struct option **longs)
{
    static char s[2 + 2 * MTU_OPT_ROWS];
    static struct option l[MTU_OPT_ROWS + 1];
    if (!s[0])
        args_getopt(mtu_rows, MTU_OPT_ROWS, s, l);
    *shorts = s;
    *longs = l;
}

int opts_set(struct mtu_opts *o, int code, const char *v, char *why, size_t len)
{
    int i = row_of(code);
    if (i < 0)
        return 1;
    const struct mtu_set *e = &mtu_sets[i];
    o->given[code] = 1;
    char *field = (char *)o + e->off, name[32];
    uint64_t n;
    const char *w;
    switch (e->kind) {
    case SET_MAIN: return 1;
    case SET_NOTHING: return 0;
    case SET_FLAG: *(int *)field = 1; return 0;
    case SET_STR: *(const char **)field = v; return 0;
    case SET_FN: return e->fn(o, v, why, len);
    case SET_SECS:
        return secs_in(opts_name(code, name, sizeof name), v, e->min, e->max,
                       (uint64_t *)field, why, len);
    case SET_U32:
    case SET_INT:
        if (parse_u64(v, (uint64_t)e->min, (uint64_t)e->max, &n, &w) != 0) {
            snprintf(why, len, "%s '%s': %s (%llu..%llu)", opts_name(code, name, sizeof name),
                     v, w, (unsigned long long)e->min, (unsigned long long)e->max);
            return -1;
        }
        if (e->kind == SET_U32)
            *(uint32_t *)field = (uint32_t)n;
        else
            *(int *)field = (int)n;
        return 0;
    }
    return 1;
}

void opts_defaults(struct mtu_opts *o)
{
    memset(o, 0, sizeof *o);
    o->chk.count = 3;
    o->chk.interval_ns = 200 * NS_PER_MS;
    o->chk.timeout_ns = NS_PER_SEC;
    o->max_hops = 30;
    o->family = AF_UNSPEC;
}

int opts_validate(const struct mtu_opts *o, char *why, size_t len)
{
    if (o->given['m'] && o->given['s']) {
        snprintf(why, len, "-m and -s both set the probe size: give one");
        return -1;
    }
    if (o->given['4'] && o->given['6']) {
        snprintf(why, len, "-4 and -6 contradict: give one, or neither for both families");
        return -1;
    }
    if (o->peers.n == 0) {
        if (o->file)
            snprintf(why, len, "%s: no peer in it (one address or name a line, # comments)", o->file);
        else
            snprintf(why, len, "no peer given");
        return -1;
    }
    if ((uint64_t)o->peers.n * o->chk.count * 2 > OPTS_MAX_PROBES) {
        snprintf(why, len, "%zu peers x %u probes is too many for one run (at most %u; lower -c or split the list)",
                 o->peers.n, o->chk.count, OPTS_MAX_PROBES / 2);
        return -1;
    }
    if (o->given[OPT_HOPS] && !o->trace)
        warnmsg("--max-hops does nothing without --trace");
    return 0;
}
