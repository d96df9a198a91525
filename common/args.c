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

static int bad(const char **why, const char *text)
{
    if (why)
        *why = text;
    return -1;
}

/* strto*() skip any leading white space (tab, newline...) before a sign: a
 * number must start with its first digit or sign, so refuse it all */
static int leading_space(const char *s)
{
    return isspace((unsigned char)*s);
}

int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out, const char **why)
{
    if (!s || !*s)
        return bad(why, "empty number");
    if (*s == '-' || *s == '+' || leading_space(s))
        return bad(why, "not a plain non-negative integer");
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s || *end)
        return bad(why, "not a number");
    if (errno == ERANGE || v > max || v < min)
        return bad(why, "out of range");
    *out = v;
    return 0;
}

int parse_i64(const char *s, int64_t min, int64_t max, int64_t *out, const char **why)
{
    if (!s || !*s)
        return bad(why, "empty number");
    if (leading_space(s))
        return bad(why, "not a number");
    errno = 0;
    char *end;
    long long v = strtoll(s, &end, 10);
    if (end == s || *end)
        return bad(why, "not a number");
    if (errno == ERANGE || v > max || v < min)
        return bad(why, "out of range");
    *out = v;
    return 0;
}

int parse_double(const char *s, double min, double max, double *out, const char **why)
{
    if (!s || !*s)
        return bad(why, "empty number");
    if (leading_space(s))
        return bad(why, "not a number");
    errno = 0;
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end)
        return bad(why, "not a number");
    if (errno == ERANGE || !isfinite(v) || v < min || v > max)
        return bad(why, "out of range");
    *out = v;
    return 0;
}
