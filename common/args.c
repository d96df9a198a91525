/* Command-line helpers: ESXi launch words, numbers with bounds. */
#include "args.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int args_skip_vmk(int argc, char **argv)
{
    int i = 1;
    while (i < argc && argv[i][0] == '+' && argv[i][1] == '+')
        i++;
    return i;
}

int args_strip_vmk(int argc, char ***argv)
{
    int k = args_skip_vmk(argc, *argv);
    if (k > 1) {
        (*argv)[k - 1] = (*argv)[0];
        *argv += k - 1;
        argc -= k - 1;
    }
    return argc;
}

int arg_refuse(const char **why, const char *text)
{
    if (why)
        *why = text;
    return -1;
}

int arg_leading_space(const char *s)
{
    return isspace((unsigned char)*s);
}

int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out, const char **why)
{
    if (!s || !*s)
        return arg_refuse(why, "empty number");
    if (*s == '-' || *s == '+' || arg_leading_space(s))
        return arg_refuse(why, "not a plain non-negative integer");
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s || *end)
        return arg_refuse(why, "not a number");
    if (errno == ERANGE || v > max || v < min)
        return arg_refuse(why, "out of range");
    *out = v;
    return 0;
}

int parse_i64(const char *s, int64_t min, int64_t max, int64_t *out, const char **why)
{
    if (!s || !*s)
        return arg_refuse(why, "empty number");
    if (arg_leading_space(s))
        return arg_refuse(why, "not a number");
    errno = 0;
    char *end;
    long long v = strtoll(s, &end, 10);
    if (end == s || *end)
        return arg_refuse(why, "not a number");
    if (errno == ERANGE || v > max || v < min)
        return arg_refuse(why, "out of range");
    *out = v;
    return 0;
}

/* A number as C writes it (strtol base 0: 16, 0x10, 020), the way iperf3 reads -S,
 * -L and the first CPU of -A; unlike strtol, what follows the number is refused */
int parse_cnum(const char *s, int64_t min, int64_t max, int64_t *out, const char **why)
{
    if (!s || !*s)
        return arg_refuse(why, "empty number");
    if (*s == '+' || *s == '-' || arg_leading_space(s))
        return arg_refuse(why, "not a number (decimal, 0x hex, or octal with a leading 0)");
    errno = 0;
    char *end;
    long long v = strtoll(s, &end, 0);
    if (end == s || *end)
        return arg_refuse(why, "not a number (decimal, 0x hex, or octal with a leading 0)");
    if (errno == ERANGE || v < min || v > max)
        return arg_refuse(why, "out of range");
    *out = v;
    return 0;
}

int parse_double(const char *s, double min, double max, double *out, const char **why)
{
    if (!s || !*s)
        return arg_refuse(why, "empty number");
    if (arg_leading_space(s))
        return arg_refuse(why, "not a number");
    errno = 0;
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end)
        return arg_refuse(why, "not a number");
    if (errno == ERANGE || !isfinite(v) || v < min || v > max)
        return arg_refuse(why, "out of range");
    *out = v;
    return 0;
}
