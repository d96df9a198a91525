/* CRC-32 (IEEE 802.3, reflected, as GPT headers and entries use). */
#ifndef ESXDIAG_CRC32_H
#define ESXDIAG_CRC32_H
#include <stddef.h>
#include <stdint.h>

/* crc32_ieee(0, buf, len) gives the standard CRC; feed the result back to continue */
uint32_t crc32_ieee(uint32_t crc, const void *buf, size_t len);

#endif
