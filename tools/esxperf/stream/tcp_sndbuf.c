/* The TCP sender's send-buffer hold at several streams on a short path (tcp_sndbuf.h). */
#include "tcp_sndbuf.h"

int tcp_sndbuf_hold(int64_t streams, int64_t min_rtt_us)
{
    if (streams < 2 || min_rtt_us < 0 || min_rtt_us > 1000000)
        return 0;
    /* bytes 100 Gbit/s keeps in flight over the smallest RTT, twice */
    uint64_t need = 2 * TCP_SNDBUF_FAST_BPS / 1000000u * (uint64_t)min_rtt_us;
    uint64_t held = (uint64_t)(streams > 128 ? 128 : streams) * TCP_SNDBUF_HELD_MIN;
    return held >= need ? TCP_SNDBUF_ASK : 0;
}
