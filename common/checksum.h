/* The Internet checksum (RFC 1071), for ICMP and IP headers. */
#ifndef ESXDIAG_CHECKSUM_H
#define ESXDIAG_CHECKSUM_H
#include <stddef.h>
#include <stdint.h>

/* one's-complement sum folded and inverted; the result is in network byte order
 * when stored with memcpy into the packet */
uint16_t inet_checksum(const void *buf, size_t len);
/* partial sum for pseudo-headers: fold with inet_checksum_finish */
uint32_t inet_sum(uint32_t sum, const void *buf, size_t len);
uint16_t inet_checksum_finish(uint32_t sum);

#endif
