/* The TCP receiver's SO_RCVLOWAT from its measured rate (tcp_lowat.h). */
#include "tcp_lowat.h"

static int floor_pow2(uint64_t v)
{
    int p = 1;
    while ((uint64_t)p * 2 <= v && p < (1 << 30))
        p *= 2;
    return p;
}

int tcp_lowat_cap(int64_t streams)
{
    return streams <= 2 ? TCP_LOWAT_MAX : TCP_LOWAT_MANY;
}

int tcp_lowat_for_rate(uint64_t bytes, uint64_t ns, int cap)
{
    if (ns == 0 || cap <= 1)
        return 1;
    /* bytes in one millisecond at this rate (a window holds far less than the
     * 18 TB where bytes x 10^6 would overflow; beyond it, divide first) */
    uint64_t per_ms = bytes < UINT64_MAX / 1000000u ? bytes * 1000000u / ns
                                                     : bytes / (ns / 1000000u + 1);
    if (per_ms < TCP_LOWAT_MIN)
        return 1;
    int l = floor_pow2(per_ms);
    return l > cap ? cap : l;
}

int tcp_lowat_fit(int want, uint64_t room)
{
    if (want <= 1 || room >= (uint64_t)want)
        return want > 1 ? want : 1;
    if (room < TCP_LOWAT_MIN)
        return 1;
    return floor_pow2(room);
}

void tcp_lowat_init(struct tcp_lowat *t, int cap, uint64_t now)
{
    t->cap = cap > TCP_LOWAT_MAX ? TCP_LOWAT_MAX : cap;
    t->cur = t->cap < TCP_LOWAT_START ? t->cap : TCP_LOWAT_START;
    if (t->cur < 1)
        t->cur = 1;
    t->from_ns = now;
    t->bytes = 0;
}

int tcp_lowat_step(struct tcp_lowat *t, size_t n, uint64_t now)
{
    t->bytes += n;
    uint64_t ns = now - t->from_ns;
    if (ns < TCP_LOWAT_WINDOW_NS)
        return 0;
    int want = tcp_lowat_for_rate(t->bytes, ns, t->cap);
    t->from_ns = now;
    t->bytes = 0;
    return want == t->cur ? 0 : want;
}
