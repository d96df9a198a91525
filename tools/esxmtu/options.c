/* esxmtu settings: the option table's rows (options_table.h) as data for the
 * option engine (common/args.c: getopt's views, --help, what each row sets), the
 * setters that are esxmtu's own, the defaults and the cross-option checks. */
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

/* -i: the pause between probes, and its text as given for esxcli's --interval */
static int set_interval(void *p, const char *v, char *why, size_t len)
{
    struct mtu_opts *o = p;
    if (args_secs("-i", v, 0, 60, &o->chk.interval_ns, why, len) != 0)
        return -1;
    o->interval = v;
    return 0;
}

static int set_ipv4(void *p, const char *v, char *why, size_t len)
{
    (void)v, (void)why, (void)len;
    ((struct mtu_opts *)p)->family = AF_INET;
    return 0;
}

static int set_ipv6(void *p, const char *v, char *why, size_t len)
{
    (void)v, (void)why, (void)len;
    ((struct mtu_opts *)p)->family = AF_INET6;
    return 0;
}

static int set_method(void *p, const char *v, char *why, size_t len)
{
    int m = probe_method_parse(v);
    if (m < 0) {
        snprintf(why, len, "--method '%s': unknown (auto, raw, errqueue or dgram)", v);
        return -1;
    }
    ((struct mtu_opts *)p)->po.method = (enum probe_method)m;
    return 0;
}

/* the offset of field f, which must be of type T (else the array size is -1) */
#define FIELD(f, T) (offsetof(struct mtu_opts, f) + \
                     0 * sizeof(char[_Generic(((struct mtu_opts *)0)->f, T: 1, default: -1)]))
/* options_table.h's SET column; a number is refused as "-m '70000': out of
 * range (68..65535)" */
#define MAIN .kind = OPT_MAIN
#define NOTHING .kind = OPT_NOTHING
#define FLAG(f) .kind = OPT_FLAG, .off = FIELD(f, int)
#define STR(f) .kind = OPT_STR, .off = FIELD(f, const char *)
#define UINT(f, T, lo, hi) .kind = OPT_NUM, .off = FIELD(f, T), \
    .size = sizeof(T), .parse = parse_uint, .min = lo, .max = hi
#define U32(f, lo, hi) UINT(f, uint32_t, lo, hi)
#define INT(f, lo, hi) UINT(f, int, lo, hi)
#define SECS(f, lo, hi) .kind = OPT_SECS, .off = FIELD(f, uint64_t), .smin = lo, .smax = hi
#define FN(f) .kind = OPT_FN, .fn = f

const struct opt_row mtu_rows[MTU_OPT_ROWS] = {
#define OPT(l, n, a, set, h) \
    { .code = l, .letter = l, .name = n, .arg = OPT_ARG_##a, .help = h, set },
#define LONG(c, n, a, set, h) \
    { .code = c, .name = n, .arg = OPT_ARG_##a, .help = h, set },
#define TEXT(h) { .help = h },
#include "options_table.h"
};

const char mtu_usage[] =
#define OPT(letter, name, arg, set, help) help
#define LONG(code, name, arg, set, help) help
#define TEXT(help) help
#include "options_table.h"
    ;

/* how esxmtu words getopt's refusals: a long option by its whole name, an
 * unknown one quoted as given */
static const struct bad_option_words mtu_refusals = {
    BADOPT_NEEDS_FULL_NAME | BADOPT_TAKES_FULL_NAME | BADOPT_QUOTE_UNKNOWN, "", "",
};
static char shorts[ARGS_SHORTS(MTU_OPT_ROWS)];
static struct option longs[MTU_OPT_ROWS + 1];
const struct args_table mtu_table = {
    mtu_rows, MTU_OPT_ROWS, &mtu_refusals, 320, shorts, longs,
};

const char *opts_name(int code, char *buf, size_t len)
{
    return args_name(&mtu_table, code, buf, len);
}

void opts_getopt(const char **s, const struct option **l)
{
    args_views(&mtu_table, s, l);
}

int opts_set(struct mtu_opts *o, int code, const char *v, char *why, size_t len)
{
    return args_set(&mtu_table, o, o->given, code, v, why, len);
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
    if (o->each_uplink && !netstack_is_vmk(o->po.iface)) {
        snprintf(why, len, "--each-uplink needs -I vmkN: the vmk whose team is tested");
        return -1;
    }
    if (o->each_uplink && !o->test_ip) {
        snprintf(why, len, "--each-uplink needs --test-ip ADDR/PREFIX: an unused address of the vmk's subnet for "
                 "the scratch vmk");
        return -1;
    }
    if (o->test_ip && !o->each_uplink) {
        snprintf(why, len, "--test-ip is the scratch vmk's address of --each-uplink: give both, or neither");
        return -1;
    }
    if (o->each_uplink && o->trace) {
        snprintf(why, len, "--each-uplink probes through esxcli, which cannot --trace: give one");
        return -1;
    }
    if (o->given[OPT_HOPS] && !o->trace)
        warnmsg("--max-hops does nothing without --trace");
    return 0;
}
