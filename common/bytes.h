/* Byte order: loads and stores of 16/32/64-bit integers from byte buffers in
 * network (big-endian) and little-endian order, alignment-free; and ARRAY_SIZE.
 * Every tool reads wire or disk bytes through these, never with casts or shifts
 * of its own. */
#ifndef ESXDIAG_BYTES_H
#define ESXDIAG_BYTES_H
#include <stddef.h>
#include <stdint.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static inline uint16_t load_be16(const void *v)
{
    const uint8_t *p = v;
    return (uint16_t)(p[0] << 8 | p[1]);
}
static inline uint32_t load_be32(const void *v)
{
    const uint8_t *p = v;
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static inline uint64_t load_be64(const void *v)
{
    const uint8_t *p = v;
    return (uint64_t)load_be32(p) << 32 | load_be32(p + 4);
}
static inline void store_be16(void *v, uint16_t x)
{
    uint8_t *p = v;
    p[0] = (uint8_t)(x >> 8);
    p[1] = (uint8_t)x;
}
static inline void store_be32(void *v, uint32_t x)
{
    uint8_t *p = v;
    p[0] = (uint8_t)(x >> 24);
    p[1] = (uint8_t)(x >> 16);
    p[2] = (uint8_t)(x >> 8);
    p[3] = (uint8_t)x;
}
static inline void store_be64(void *v, uint64_t x)
{
    uint8_t *p = v;
    store_be32(p, (uint32_t)(x >> 32));
    store_be32(p + 4, (uint32_t)x);
}

static inline uint16_t load_le16(const void *v)
{
    const uint8_t *p = v;
    return (uint16_t)(p[0] | p[1] << 8);
}
static inline uint32_t load_le32(const void *v)
{
    const uint8_t *p = v;
    return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t load_le64(const void *v)
{
    const uint8_t *p = v;
    return load_le32(p) | (uint64_t)load_le32(p + 4) << 32;
}
static inline void store_le16(void *v, uint16_t x)
{
    uint8_t *p = v;
    p[0] = (uint8_t)x;
    p[1] = (uint8_t)(x >> 8);
}
static inline void store_le32(void *v, uint32_t x)
{
    uint8_t *p = v;
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(x >> (8 * i));
}
static inline void store_le64(void *v, uint64_t x)
{
    uint8_t *p = v;
    store_le32(p, (uint32_t)x);
    store_le32(p + 4, (uint32_t)(x >> 32));
}

#endif
