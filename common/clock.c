/* Monotonic and wall time. */
#include "clock.h"

#include <errno.h>
#include <stdint.h>
#include <time.h>

uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * NS_PER_SEC + (uint64_t)ts.tv_nsec;
}

double mono_s(void)
{
    return (double)mono_ns() / NS_PER_SEC;
}

uint64_t wall_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / NS_PER_US;
}

void sleep_ns(uint64_t ns)
{
    struct timespec ts = { (time_t)(ns / NS_PER_SEC), (long)(ns % NS_PER_SEC) };
    while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
        ;
}

int ms_until(uint64_t deadline_ns)
{
    if (!deadline_ns)
        return -1;
    uint64_t now = mono_ns();
    if (now >= deadline_ns)
        return 0;
    uint64_t ms = (deadline_ns - now + NS_PER_MS - 1) / NS_PER_MS;
    return ms > INT32_MAX ? INT32_MAX : (int)ms;
}
