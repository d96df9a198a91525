/* esxmtu settings (filled by main.c from the command line) and the checks that span
 * several options, pure so that unit tests reach them. */
#ifndef ESXMTU_OPTIONS_H
#define ESXMTU_OPTIONS_H
#include <stddef.h>
#include <stdint.h>
#include "check.h"
#include "netstack.h"
#include "peers.h"
#include "probe.h"

/* probes in one check round at most (full-size and small, all peers) */
#define OPTS_MAX_PROBES 30000u

struct mtu_opts {
    uint32_t mtu, size;          /* -m, -s */
    int have_mtu, have_size;
    struct check_opts chk;       /* -c, -i, -W */
    int family;                  /* AF_UNSPEC, AF_INET (-4) or AF_INET6 (-6) */
    int saw4, saw6;              /* -4 / -6 given */
    int discover, trace, json, quiet;
    int max_hops, have_max_hops; /* --max-hops */
    struct prober_opts po;       /* --method, -I, -t (and -B, once resolved) */
    const char *src;             /* -B */
    const char *interval;        /* -i as given (esxcli's --interval), NULL: not given */
    const char *file;            /* -f */
    struct peer_list peers;      /* operands, then the -f file's lines */
    struct netstack ns;          /* -S, the launch word, and how the run reaches it */
};

void opts_defaults(struct mtu_opts *o);
/* Checks across options, once the peer list is complete. Returns 0, or -1 with a
 * one-line reason in why (a usage error); warnings (an option that does nothing)
 * are printed on stderr. */
int opts_validate(const struct mtu_opts *o, char *why, size_t len);

#endif
