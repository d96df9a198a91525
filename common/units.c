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
