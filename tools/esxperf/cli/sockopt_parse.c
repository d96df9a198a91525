/* The values of iperf3 3.22's socket and wire options, read as iperf3 reads
 * them: --dscp (a name from the table below, or a number 0..63 in decimal, octal
 * or hex, shifted into the TOS byte), -L (a flow label 1..0xfffff, any base),
 * --cntl-ka=IDLE/INTV/CNT (each part optional) and the %DEV tail of -B and -c
 * (SO_BINDTODEVICE; an IPv6 link-local address keeps its %zone). Pure. */
#include "options.h"
#include "args.h"
#include "bytes.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* the TOS byte each name stands for: RFC 2474/2597/3246 code points shifted left
 * by 2 (AFxy = 8x + 2y, CSx = 8x, EF = 46, VA = 44), and the RFC 1349 TOS bits */
static const struct { const char *name; int tos; } dscp_names[] = {
    { "af11", 0x28 }, { "af12", 0x30 }, { "af13", 0x38 },
    { "af21", 0x48 }, { "af22", 0x50 }, { "af23", 0x58 },
    { "af31", 0x68 }, { "af32", 0x70 }, { "af33", 0x78 },
    { "af41", 0x88 }, { "af42", 0x90 }, { "af43", 0x98 },
    { "cs0", 0x00 }, { "cs1", 0x20 }, { "cs2", 0x40 }, { "cs3", 0x60 },
    { "cs4", 0x80 }, { "cs5", 0xa0 }, { "cs6", 0xc0 }, { "cs7", 0xe0 },
    { "ef", 0xb8 }, { "va", 0xb0 },
    { "lowdelay", 0x10 }, { "throughput", 0x08 }, { "reliability", 0x04 },
};

/* a whole number in C notation (12, 014, 0xc), as iperf3's strtol(s, &end, 0) */
static int number_any_base(const char *s, long long min, long long max, long long *out)
{
    int64_t v;
    const char *why = NULL;
    if (parse_cnum(s, min, max, &v, &why) < 0)
        return -1;
    *out = v;
    return 0;
}

int opt_parse_dscp(const char *s, int *tos)
{
    for (size_t i = 0; i < ARRAY_SIZE(dscp_names); i++)
        if (strcasecmp(s, dscp_names[i].name) == 0) {
            *tos = dscp_names[i].tos;
            return 0;
        }
    long long v;
    if (number_any_base(s, 0, 63, &v) < 0)
        return -1;
    *tos = (int)v << 2;
    return 0;
}

int opt_parse_flowlabel(const char *s, int64_t *label)
{
    long long v;
    if (number_any_base(s, 1, 0xfffff, &v) < 0)
        return -1;
    *label = v;
    return 0;
}

/* one part of IDLE/INTV/CNT: empty or 0 (the system's, as iperf3), or 1..max */
static int ka_part(const char *s, size_t n, int max, int *out)
{
    char buf[16];
    long long v;
    *out = 0;
    if (n == 0)
        return 0;
    if (n >= sizeof buf)
        return -1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    if (number_any_base(buf, 0, max, &v) < 0)
        return -1;
    *out = (int)v;
    return 0;
}

int opt_parse_cntl_ka(const char *s, int *idle, int *intv, int *cnt, const char **why)
{
    *idle = *intv = *cnt = 0;
    if (!s)
        return 0;
    const char *a = strchr(s, '/'), *b = a ? strchr(a + 1, '/') : NULL;
    size_t n0 = a ? (size_t)(a - s) : strlen(s);
    size_t n1 = !a ? 0 : b ? (size_t)(b - a - 1) : strlen(a + 1);
    if ((b && strchr(b + 1, '/')) || ka_part(s, n0, 32767, idle) < 0 ||
        (a && ka_part(a + 1, n1, 32767, intv) < 0) ||
        (b && ka_part(b + 1, strlen(b + 1), 127, cnt) < 0)) {
        *why = "IDLE/INTV/CNT: seconds 1..32767, seconds 1..32767, probes 1..127, "
               "each part may be left empty or 0 (the system's)";
        return -1;
    }
    /* iperf3: the probes must fit in the idle time, or only one is sent */
    if (*idle && *intv && *cnt && *idle <= *intv * *cnt) {
        *why = "IDLE must be more than INTV x CNT (the probes must fit in the idle time)";
        return -1;
    }
    return 0;
}

int opt_split_dev(const char *spec, char *host, size_t hostcap, const char **dev)
{
    const char *pct = strchr(spec, '%');
    size_t n = pct ? (size_t)(pct - spec) : strlen(spec);
    *dev = NULL;
    if (n >= hostcap)
        return -1;
    memcpy(host, spec, n);
    host[n] = '\0';
    if (!pct)
        return 0;
    /* fe80::1%eth0 names a link-local address's zone: getaddrinfo's business */
    struct in6_addr a6;
    if (inet_pton(AF_INET6, host, &a6) == 1 && IN6_IS_ADDR_LINKLOCAL(&a6)) {
        if (strlen(spec) >= hostcap)
            return -1;
        memcpy(host, spec, strlen(spec) + 1);
        return 0;
    }
    if (!pct[1] || n == 0 || strchr(pct + 1, '%') || strlen(pct + 1) >= 16)
        return -1;
    *dev = pct + 1;
    return 0;
}
