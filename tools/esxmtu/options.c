/* esxmtu settings: defaults and the cross-option checks. */
#include "options.h"
#include "clock.h"
#include "fail.h"

#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

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
    if (o->have_mtu && o->have_size) {
        snprintf(why, len, "-m and -s both set the probe size: give one");
        return -1;
    }
    if (o->saw4 && o->saw6) {
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
    if (o->have_max_hops && !o->trace)
        warnmsg("--max-hops does nothing without --trace");
    return 0;
}
