/* Human-readable numbers. */
#ifndef ESXDIAG_UNITS_H
#define ESXDIAG_UNITS_H
#include <stddef.h>
#include <stdint.h>

/* "512 B", "100 MiB", "465.8 GiB": 1024-based, up to one decimal. */
void fmt_iec(char *buf, size_t len, uint64_t bytes);

#endif
