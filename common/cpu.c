/* CPU usage over an interval (not since process start, unlike iperf3's figure). */
#include "cpu.h"
#include "clock.h"

#include <sys/resource.h>

void cpu_sample(struct cpu_sample *s)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    s->wall_ns = mono_ns();
    s->user_us = (uint64_t)ru.ru_utime.tv_sec * 1000000u + (uint64_t)ru.ru_utime.tv_usec;
    s->sys_us = (uint64_t)ru.ru_stime.tv_sec * 1000000u + (uint64_t)ru.ru_stime.tv_usec;
}

void cpu_util(const struct cpu_sample *a, const struct cpu_sample *b,
              double *user_pct, double *sys_pct, double *total_pct)
{
    double wall_us = (double)(b->wall_ns - a->wall_ns) / 1e3;
    double u = 0, s = 0;
    if (wall_us > 0) {
        u = 100.0 * (double)(b->user_us - a->user_us) / wall_us;
        s = 100.0 * (double)(b->sys_us - a->sys_us) / wall_us;
    }
    if (user_pct) *user_pct = u;
    if (sys_pct) *sys_pct = s;
    if (total_pct) *total_pct = u + s;
}

double cpu_seconds(const struct cpu_sample *a, const struct cpu_sample *b)
{
    return (double)((b->user_us - a->user_us) + (b->sys_us - a->sys_us)) / 1e6;
}
