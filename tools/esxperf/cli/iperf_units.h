/* iperf3's units, which only esxperf speaks: the suffixes of -n -l -w (bytes,
 * 1024-based) and -b (bits per second, 1000-based), and the -f formats of the
 * Transfer and Bitrate columns. Pure, unit-tested. */
#ifndef ESXPERF_IPERF_UNITS_H
#define ESXPERF_IPERF_UNITS_H
#include <stddef.h>
#include <stdint.h>

/* Sizes with iperf3's suffixes: k/K = 1024, m/M = 1024^2, g/G = 1024^3, t/T = 1024^4
 * (case-insensitive, as iperf3 reads -n, -l, -w). Return 0 on success, -1 with a
 * one-line reason in *why (a static string). */
int parse_bytes(const char *s, uint64_t max, uint64_t *out, const char **why);
/* Rates with iperf3's suffixes for -b: k = 1000, m = 1e6, g = 1e9, t = 1e12
 * (bits per second; a trailing "/N" burst is the caller's business). */
int parse_rate(const char *s, uint64_t *out, const char **why);

/* iperf3-style value in a unit chosen by fmtchar: 'k','m','g','t' (bits, 1000-based,
 * "Kbits" ...), 'K','M','G','T' (bytes, 1024-based, "KBytes" ...), 'a' adaptive bits,
 * 'A' adaptive bytes. Writes e.g. "1.10 GBytes" or "9.41 Gbits". */
void fmt_unit(char *buf, size_t len, double value, char fmtchar, int is_bits);

#endif
