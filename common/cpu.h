/* CPU usage of this process over an interval, from getrusage(RUSAGE_SELF). */
#ifndef ESXDIAG_CPU_H
#define ESXDIAG_CPU_H
#include <stdint.h>

struct cpu_sample {
    uint64_t wall_ns;   /* monotonic */
    uint64_t user_us;
    uint64_t sys_us;
};

void cpu_sample(struct cpu_sample *s);
/* percent of one CPU used between a and b (like iperf3's cpu_util_*):
 * user, system, total; 0 when no time passed */
void cpu_util(const struct cpu_sample *a, const struct cpu_sample *b,
              double *user_pct, double *sys_pct, double *total_pct);
/* CPU seconds (user + system) spent between a and b */
double cpu_seconds(const struct cpu_sample *a, const struct cpu_sample *b);

#endif
