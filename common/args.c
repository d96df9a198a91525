/* Command-line helpers: ESXi launch words, numbers with bounds, the option
 * engine (a tool's rows into getopt_long's views, each option set as its row
 * says, the loop over the command line) and the one line for getopt_long's
 * refusals. */
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

int parse_uint(const char *s, int64_t min, int64_t max, int64_t *out, const char **why)
{
    uint64_t v;
    if (parse_u64(s, (uint64_t)min, (uint64_t)max, &v, why) < 0)
        return -1;
    *out = (int64_t)v;
    return 0;
}

void args_getopt(const struct opt_row *rows, size_t n, char *shorts, struct option *longs)
{
    static const int has_arg[] = {
        [OPT_ARG_NONE] = no_argument, [OPT_ARG_REQ] = required_argument,
        [OPT_ARG_OPTARG] = optional_argument,
    };
    size_t k = 0, m = 0;
    shorts[k++] = ':';
    for (size_t i = 0; i < n; i++) {
        const struct opt_row *r = &rows[i];
        if (!r->code)
            continue;
        if (r->letter && !r->alias) {
            shorts[k++] = (char)r->letter;
            for (int c = 0; c < (int)r->arg; c++)
                shorts[k++] = ':';
        }
        if (r->name)
            longs[m++] = (struct option){ r->name, has_arg[r->arg], NULL, r->code };
    }
    shorts[k] = '\0';
    longs[m] = (struct option){ NULL, 0, NULL, 0 };
}

void args_views(const struct args_table *t, const char **shorts, const struct option **longs)
{
    if (!t->shorts[0])
        args_getopt(t->rows, t->n, t->shorts, t->longs);
    *shorts = t->shorts;
    *longs = t->longs;
}

const struct opt_row *args_row(const struct args_table *t, int code)
{
    for (size_t i = 0; i < t->n; i++)
        if (code && t->rows[i].code == code && !t->rows[i].alias)
            return &t->rows[i];
    return NULL;
}

const char *args_name(const struct args_table *t, int code, char *buf, size_t len)
{
    const struct opt_row *r = args_row(t, code);
    if (!r) {
        snprintf(buf, len, "?");
        return buf;
    }
    if (r->letter) {
        snprintf(buf, len, "-%c", r->letter);
        return buf;
    }
    size_t n = (size_t)snprintf(buf, len, "--%s", r->name);
    const char *sep = " (--";
    for (size_t i = 0; i < t->n && n < len; i++) {
        if (!t->rows[i].alias || t->rows[i].code != code)
            continue;
        n += (size_t)snprintf(buf + n, len - n, "%s%s", sep, t->rows[i].name);
        sep = ", --";
    }
    if (sep[0] == ',' && n < len)
        snprintf(buf + n, len - n, ")");
    return buf;
}

const struct opt_row *args_first_given(const struct args_table *t, int role,
                                       const unsigned char *given)
{
    for (size_t i = 0; i < t->n; i++) {
        const struct opt_row *r = &t->rows[i];
        if (r->code && !r->alias && r->role == role && given[r->code])
            return r;
    }
    return NULL;
}

int args_secs(const char *name, const char *v, double min, double max, uint64_t *ns, char *why,
              size_t len)
{
    double d;
    const char *w;
    if (parse_double(v, min, max, &d, &w) != 0) {
        snprintf(why, len, "%s '%s': %s (%g..%g seconds)", name, v, w, min, max);
        return -1;
    }
    *ns = (uint64_t)(d * 1e9);
    return 0;
}

/* n into an integer field of size bytes (the row's, from sizeof) */
static void store_int(char *field, size_t size, int64_t n)
{
    if (size == sizeof(int16_t)) {
        uint16_t v = (uint16_t)n;
        memcpy(field, &v, sizeof v);
    } else if (size == sizeof(int32_t)) {
        uint32_t v = (uint32_t)n;
        memcpy(field, &v, sizeof v);
    } else {
        memcpy(field, &n, sizeof n);
    }
}

int args_set(const struct args_table *t, void *opts, unsigned char *given, int code,
             const char *value, char *why, size_t len)
{
    const struct opt_row *r = args_row(t, code);
    if (!r)
        return 1;
    if (given)
        given[code] = 1;
    char *field = (char *)opts + r->off, name[80];
    const char *what = r->what ? r->what : args_name(t, code, name, sizeof name), *w = NULL;
    int64_t n;
    switch (r->kind) {
    case OPT_MAIN: return 1;
    case OPT_NOTHING: return 0;
    case OPT_FLAG: *(int *)field = 1; return 0;
    case OPT_STR: *(const char **)field = value; return 0;
    case OPT_FN: return r->fn(opts, value, why, len);
    case OPT_SECS: return args_secs(what, value, r->smin, r->smax, (uint64_t *)field, why, len);
    case OPT_NUM:
        if (r->parse(value, r->min, r->max, &n, &w) < 0) {
            snprintf(why, len, "%s '%s': %s (%s%lld..%lld%s)", what, value, w,
                     r->intro ? r->intro : "", (long long)r->min, (long long)r->max,
                     r->unit ? r->unit : "");
            return -1;
        }
        store_int(field, r->size, n);
        return 0;
    }
    return 1;
}

int args_parse(const struct args_table *t, void *opts, unsigned char *given, int argc,
               char **argv, void (*main_opt)(void *ctx, int code, const char *value),
               void *ctx)
{
    char line[2048];
    size_t len = t->line_max < sizeof line ? t->line_max : sizeof line;
    const char *shorts;
    const struct option *longs;
    int c;
    /* ESXDIAG_PARSE_ONLY=1: the command line is read as always (a bad option or
     * value is the same one line and exit 2), then the tool exits 0 having done
     * nothing, not even -h or --version: the docs test runs every command line
     * the documentation shows so (test/integration/docs.bats) */
    const char *only = getenv("ESXDIAG_PARSE_ONLY");
    int parse_only = only && strcmp(only, "1") == 0;
    args_views(t, &shorts, &longs);
    opterr = 0;     /* bad_option() prints the one line */
    while ((c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
        int rc = args_set(t, opts, given, c, optarg, line, len);
        if (rc < 0)
            die_usage("%s", line);
        if (rc == 0)
            continue;
        if (!args_row(t, c))
            bad_option(longs, t->words, c, argc, argv);
        if (!parse_only)
            main_opt(ctx, c, optarg);
    }
    if (parse_only)
        exit(0);
    return optind;
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
