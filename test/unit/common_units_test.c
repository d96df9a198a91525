/* common/units.c, common/clock.c and common/cpu.c. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "clock.h"
#include "cpu.h"
#include "units.h"

const char tool_name[] = "test";

static void formats_iec_sizes(void **state)
{
    (void)state;
    char b[32];
    fmt_iec(b, sizeof b, 512);
    assert_string_equal(b, "512 B");
    fmt_iec(b, sizeof b, 100u << 20);
    assert_string_equal(b, "100 MiB");
    fmt_iec(b, sizeof b, 1000215216ull * 512);    /* a "500 GB" NVMe disk */
    assert_string_equal(b, "476.9 GiB");
    fmt_iec(b, sizeof b, 4096);
    assert_string_equal(b, "4 KiB");
}

static void clocks_advance(void **state)
{
    (void)state;
    uint64_t a = mono_ns();
    sleep_ns(2000000);
    uint64_t b = mono_ns();
    assert_true(b - a >= 2000000);
    assert_int_equal(ms_until(0), -1);
    assert_int_equal(ms_until(a), 0);
    int ms = ms_until(mono_ns() + 1500000000ull);
    assert_true(ms > 1400 && ms <= 1500);
    assert_true(wall_us() > 1600000000ull * 1000000ull);
}

/* spins until the process has used 50 ms of CPU (not 50 ms of wall time: on a
 * loaded host a wall-time spin may get a fraction of a CPU), bounded at 10 s */
static void cpu_usage_counts_busy_time(void **state)
{
    (void)state;
    struct cpu_sample s0, s1;
    cpu_sample(&s0);
    volatile uint64_t x = 0;
    do {
        for (int i = 0; i < 100000; i++)
            x++;
        cpu_sample(&s1);
    } while (cpu_seconds(&s0, &s1) < 0.05 && s1.wall_ns - s0.wall_ns < 10 * NS_PER_SEC);
    double u, s, t;
    cpu_util(&s0, &s1, &u, &s, &t);
    assert_true(cpu_seconds(&s0, &s1) >= 0.05);
    /* one thread: some of one CPU, never more (getrusage ticks round up a little) */
    assert_true(t > 0.0 && t < 130.0);
    assert_true(u + s > t - 0.001 && u + s < t + 0.001);
    cpu_util(&s0, &s0, &u, &s, &t);                 /* no time passed */
    assert_true(t == 0.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(formats_iec_sizes),
        cmocka_unit_test(clocks_advance),
        cmocka_unit_test(cpu_usage_counts_busy_time),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
