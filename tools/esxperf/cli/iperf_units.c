/* iperf3's units: the -n -l -w -b suffixes and the -f column formats. */
#include "iperf_units.h"
#include "args.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* number with an optional one-letter suffix; mult_k is 1024 (bytes) or 1000 (rates) */
static int parse_suffixed(const char *s, double mult_k, double max, double *out,
                          const char **why)
{
    if (!s || !*s)
        return arg_refuse(why, "empty value");
    if (*s == '-' || *s == '+' || arg_leading_space(s))
        return arg_refuse(why, "not a plain non-negative number");
    errno = 0;
    char *end;
    double v = strtod(s, &end);
    if (end == s)
        return arg_refuse(why, "not a number");
    if (!isfinite(v) || errno == ERANGE)
        return arg_refuse(why, "out of range");
    double m = 1;
    if (*end) {
        switch (*end) {
        case 'k': case 'K': m = mult_k; break;
        case 'm': case 'M': m = mult_k * mult_k; break;
        case 'g': case 'G': m = mult_k * mult_k * mult_k; break;
        case 't': case 'T': m = mult_k * mult_k * mult_k * mult_k; break;
        default: return arg_refuse(why, "unknown unit suffix (use K, M, G or T)");
        }
        if (end[1])
            return arg_refuse(why, "junk after the unit suffix");
    }
    v *= m;
    if (v > max)
        return arg_refuse(why, "out of range");
    *out = v;
    return 0;
}

int parse_bytes(const char *s, uint64_t max, uint64_t *out, const char **why)
{
    double v;
    if (parse_suffixed(s, 1024.0, (double)max, &v, why))
        return -1;
    if (v != floor(v))
        return arg_refuse(why, "not a whole number of bytes");
    *out = (uint64_t)v;
    return 0;
}

int parse_rate(const char *s, uint64_t *out, const char **why)
{
    double v;
    if (parse_suffixed(s, 1000.0, 1e15, &v, why))
        return -1;
    *out = (uint64_t)(v + 0.5);
    return 0;
}

void fmt_unit(char *buf, size_t len, double value, char fmtchar, int is_bits)
{
    static const char *bitname[] = { "bits", "Kbits", "Mbits", "Gbits", "Tbits" };
    static const char *bytename[] = { "Bytes", "KBytes", "MBytes", "GBytes", "TBytes" };
    int bits = is_bits, idx = 0;

    switch (fmtchar) {
    case 'k': idx = 1; bits = 1; break;
    case 'm': idx = 2; bits = 1; break;
    case 'g': idx = 3; bits = 1; break;
    case 't': idx = 4; bits = 1; break;
    case 'K': idx = 1; bits = 0; break;
    case 'M': idx = 2; bits = 0; break;
    case 'G': idx = 3; bits = 0; break;
    case 'T': idx = 4; bits = 0; break;
    case 'A': bits = 0; idx = -1; break;
    default: bits = 1; idx = -1; break;     /* 'a' and anything else: adaptive bits */
    }
    if (bits && !is_bits)
        value *= 8.0;
    else if (!bits && is_bits)
        value /= 8.0;
    double base = bits ? 1000.0 : 1024.0;
    if (idx < 0) {
        idx = 0;
        while (value >= base && idx < 4) {
            value /= base;
            idx++;
        }
    } else {
        for (int i = 0; i < idx; i++)
            value /= base;
    }
    const char *name = bits ? bitname[idx] : bytename[idx];
    /* iperf3's widths: 3 significant digits */
    if (value < 9.995)
        snprintf(buf, len, "%4.2f %s", value, name);
    else if (value < 99.95)
        snprintf(buf, len, "%4.1f %s", value, name);
    else
        snprintf(buf, len, "%4.0f %s", value, name);
}
