/* The Internet checksum (RFC 1071). */
#include "checksum.h"

uint32_t inet_sum(uint32_t sum, const void *buf, size_t len)
{
    const unsigned char *p = buf;
    while (len > 1) {
        sum += (uint32_t)p[0] << 8 | p[1];
        p += 2;
        len -= 2;
    }
    if (len)
        sum += (uint32_t)p[0] << 8;
    while (sum >> 16)
        sum = (sum & 0xffff) + (sum >> 16);
    return sum;
}

uint16_t inet_checksum_finish(uint32_t sum)
{
    while (sum >> 16)
        sum = (sum & 0xffff) + (sum >> 16);
    uint16_t host = (uint16_t)~sum;
    /* return in network byte order: memcpy it into the packet as is */
    unsigned char be[2] = { (unsigned char)(host >> 8), (unsigned char)host };
    uint16_t out;
    __builtin_memcpy(&out, be, 2);
    return out;
}

uint16_t inet_checksum(const void *buf, size_t len)
{
    return inet_checksum_finish(inet_sum(0, buf, len));
}
