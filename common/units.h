/* Human-readable numbers. */
#ifndef ESXDIAG_UNITS_H
#define ESXDIAG_UNITS_H
#include <stddef.h>
#include <stdint.h>

/* "512 B", "100 MiB", "465.8 GiB": 1024-based, up to one decimal. */
void fmt_iec(char *buf, size_t len, uint64_t bytes);

/* iperf3-style value in a unit chosen by fmtchar: 'k','m','g','t' (bits, 1000-based,
 * "Kbits" ...), 'K','M','G','T' (bytes, 1024-based, "KBytes" ...), 'a' adaptive bits,
 * 'A' adaptive bytes. Writes e.g. "1.10 GBytes" or "9.41 Gbits". */
void fmt_unit(char *buf, size_t len, double value, char fmtchar, int is_bits);

#endif
