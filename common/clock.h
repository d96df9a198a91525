/* Monotonic and wall time. */
#ifndef ESXDIAG_CLOCK_H
#define ESXDIAG_CLOCK_H
#include <stdint.h>

/* time units, in nanoseconds */
#define NS_PER_US  1000ull
#define NS_PER_MS  1000000ull
#define NS_PER_SEC 1000000000ull

uint64_t mono_ns(void);          /* CLOCK_MONOTONIC in nanoseconds */
double mono_s(void);             /* same, in seconds */
uint64_t wall_us(void);          /* CLOCK_REALTIME in microseconds */
void sleep_ns(uint64_t ns);      /* nanosleep, resumed after EINTR */
/* milliseconds from now until deadline_ns (0 if passed), capped at INT32_MAX,
 * for poll() timeouts; a deadline of 0 means "none" and returns -1 */
int ms_until(uint64_t deadline_ns);

#endif
