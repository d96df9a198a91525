/* Command-line helpers: ESXi launch words, numbers with bounds, the one line
 * for getopt_long's refusals. */
#include "args.h"
#include "fail.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
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

void args_getopt(const struct opt_row *rows, size_t n, char *shorts, struct option *longs)
{
    size_t k = 0, m = 0;
    shorts[k++] = ':';
    for (size_t i = 0; i < n; i++) {
        const struct opt_row *r = &rows[i];
        if (!r->code)
            continue;
        if (r->letter) {
            shorts[k++] = (char)r->letter;
            if (r->arg == OPT_ARG_REQ)
                shorts[k++] = ':';
        }
        if (r->name)
            longs[m++] = (struct option){ r->name, r->arg == OPT_ARG_REQ ? required_argument
                                                                         : no_argument,
                                          NULL, r->code };
    }
    shorts[k] = '\0';
    longs[m] = (struct option){ NULL, 0, NULL, 0 };
}

/* the entry of longs getopt_long took word ("--name" or "--na=v", a unique prefix
 * or the whole name) for, with val code; NULL when none */
static const struct option *long_of(const struct option *longs, const char *word, int code)
{
    const char *typed = word + 2;
    size_t n = strcspn(typed, "=");
    const struct option *hit = NULL;
    for (const struct option *l = longs; l && l->name; l++) {
        if (l->val != code || strncmp(l->name, typed, n) != 0)
            continue;
        if (l->name[n] == '\0')
            return l;
        if (!hit)
            hit = l;
    }
    return hit;
}

const char *bad_option_line(char *buf, size_t len, const struct option *longs,
                            const struct bad_option_words *w, int c, int code, const char *word)
{
    int is_long = word && word[0] == '-' && word[1] == '-';
    int typed = is_long ? (int)strcspn(word, "=") : 0;
    const struct option *lo = is_long && code ? long_of(longs, word, code) : NULL;
    if (c == ':') {
        if (lo && (w->flags & BADOPT_NEEDS_FULL_NAME))
            snprintf(buf, len, "option --%s needs a value%s", lo->name, w->needs_tail);
        else if (is_long)
            snprintf(buf, len, "option %.*s needs a value%s", typed, word, w->needs_tail);
        else
            snprintf(buf, len, "option -%c needs a value%s", code, w->needs_tail);
    } else if (lo && lo->has_arg == no_argument) {
        if (w->flags & BADOPT_TAKES_FULL_NAME)
            snprintf(buf, len, "option --%s takes no value%s", lo->name, w->takes_tail);
        else
            snprintf(buf, len, "option %.*s takes no value%s", typed, word, w->takes_tail);
    } else if (code > 0 && code < 128) {
        snprintf(buf, len, "unknown option -%c", code);
    } else {
        const char *shown = word ? word : "?";
        int n = is_long ? typed : (int)strlen(shown);
        if (w->flags & BADOPT_QUOTE_UNKNOWN)
            snprintf(buf, len, "unknown option '%s'", shown);
        else
            snprintf(buf, len, "unknown option %.*s", n, shown);
    }
    return buf;
}

void bad_option(const struct option *longs, const struct bad_option_words *w, int c, int argc,
                char **argv)
{
    char line[256];
    /* the word getopt just read: musl steps optind past argc when a value is
     * missing at the end, and leaves it on a word of letters until its end */
    const char *word = optind > 1 && optind <= argc ? argv[optind - 1] : NULL;
    die_usage("%s", bad_option_line(line, sizeof line, longs, w, c, optopt, word));
}
