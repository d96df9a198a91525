/* Human-readable numbers. */
#include "units.h"

#include <stdio.h>

void fmt_iec(char *buf, size_t len, uint64_t bytes)
{
    static const char *unit[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
    if (bytes < 1024) {
        snprintf(buf, len, "%u B", (unsigned)bytes);
        return;
    }
    double v = (double)bytes;
    int u = 0;
    while (v >= 1024.0 && u < 6) {
        v /= 1024.0;
        u++;
    }
    /* whole numbers print without a decimal: "100 MiB", else "465.8 GiB" */
    if (v == (double)(uint64_t)v)
        snprintf(buf, len, "%.0f %s", v, unit[u]);
    else
        snprintf(buf, len, "%.1f %s", v, unit[u]);
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
