/* esxmtu settings: the option table (options_table.h's rows) and what each row
 * sets, filled by main.c from the command line, and the checks that span several
 * options, pure so that unit tests reach them. */
#ifndef ESXMTU_OPTIONS_H
#define ESXMTU_OPTIONS_H
#include <stddef.h>
#include <stdint.h>
#include "args.h"
#include "check.h"
#include "netstack.h"
#include "peers.h"
#include "probe.h"

/* the codes getopt_long returns for the long-only options, one per LONG row,
 * after every letter's */
enum {
    OPT_LONG_BEFORE = 255,
#define LONG(code, name, arg, set, help) code,
#include "options_table.h"
    OPT_CODE_END
};

/* probes in one check round at most (full-size and small, all peers) */
#define OPTS_MAX_PROBES 30000u

struct mtu_opts {
    unsigned char given[OPT_CODE_END]; /* [code]: that option was given */
    uint32_t mtu, size;          /* -m, -s */
    struct check_opts chk;       /* -c, -i, -W */
    int family;                  /* AF_UNSPEC, AF_INET (-4) or AF_INET6 (-6) */
    int discover, trace, json, quiet, verbose;
    int each_uplink;             /* --each-uplink */
    const char *test_ip;         /* --test-ip ADDR/PREFIX */
    int max_hops;                /* --max-hops */
    struct prober_opts po;       /* --method, -I, -t (and -B, once resolved) */
    const char *src;             /* -B */
    const char *interval;        /* -i as given (esxcli's --interval), NULL: not given */
    const char *file;            /* the last -f (main.c reads every -f in order) */
    struct peer_list peers;      /* operands, then the -f file's lines */
    struct netstack ns;          /* -S, the launch word, and how the run reaches it */
};

enum {
#define OPT(letter, name, arg, set, help) +1
#define LONG(code, name, arg, set, help) +1
#define TEXT(help) +1
    MTU_OPT_ROWS = 0
#include "options_table.h"
};
extern const struct opt_row mtu_rows[MTU_OPT_ROWS];   /* options_table.h's rows */
extern const struct args_table mtu_table;             /* and how refusals are worded */
extern const char mtu_usage[];         /* --help: every row's text, in order */

/* -m for a letter, else --name: how messages name the option of code */
const char *opts_name(int code, char *buf, size_t len);
/* getopt_long's short string and long table, from the rows (built once) */
void opts_getopt(const char **shorts, const struct option **longs);
/* records code as given and does what its row says with value (optarg): 0 done,
 * -1 with a one-line reason in why (a usage error), 1 when main.c acts on it
 * (its row says MAIN) or code is no option's */
int opts_set(struct mtu_opts *o, int code, const char *value, char *why, size_t len);

void opts_defaults(struct mtu_opts *o);
/* Checks across options, once the peer list is complete. Returns 0, or -1 with a
 * one-line reason in why (a usage error); warnings (an option that does nothing)
 * are printed on stderr. */
int opts_validate(const struct mtu_opts *o, char *why, size_t len);

#endif
