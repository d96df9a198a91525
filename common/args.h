/* Command-line helpers shared by the tools: ESXi launch words, bounded numbers,
 * and the one option engine every tool reads its command line with (a table of
 * rows: getopt's views, what each row sets, the names and refusals). */
#ifndef ESXDIAG_ARGS_H
#define ESXDIAG_ARGS_H
#include <stddef.h>
#include <stdint.h>

/* ESXi's userworld launcher may pass leading "++key=value" words (e.g.
 * "++group=host/vim/tmp", "++netstack=vmotion"). Returns the argv index of the
 * first real argument (>= 1), so callers do: argv[k-1] = argv[0]; argv += k-1. */
int args_skip_vmk(int argc, char **argv);
/* same, and moves argv[0] so getopt sees a clean vector; returns the new argc */
int args_strip_vmk(int argc, char ***argv);

/* Integers and sizes. Return 0 on success, -1 with a one-line reason in *why
 * (a static string) when the text is not a number, has junk, or is out of range. */
int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out, const char **why);
int parse_i64(const char *s, int64_t min, int64_t max, int64_t *out, const char **why);
int parse_double(const char *s, double min, double max, double *out, const char **why);
/* an integer as C writes it: decimal, 0x hex, or octal with a leading 0 */
int parse_cnum(const char *s, int64_t min, int64_t max, int64_t *out, const char **why);

/* for parsers of other kinds of values: *why = text (when why is given), -1 */
int arg_refuse(const char **why, const char *text);
/* strto*() skip any leading white space (tab, newline...) before a sign: a number
 * must start with its first digit or sign, so a parser refuses one that does not */
int arg_leading_space(const char *s);

/* getopt_long's refusals (opterr = 0, a ':' first in the short string): ':' a
 * value is missing, '?' an unknown option or a value given to a flag. One line
 * names the option; these say how a tool words it, so each keeps the lines its
 * tests and man page show. */
enum {
    BADOPT_NEEDS_FULL_NAME = 1, /* a long option missing its value by its whole name
                                   (--max-hops for --max), else as typed */
    BADOPT_TAKES_FULL_NAME = 2, /* the same for a flag given a value */
    BADOPT_QUOTE_UNKNOWN = 4,   /* an unknown long option quoted whole ('--x=1'),
                                   else as typed up to '=' (--x) */
};
struct bad_option_words {
    unsigned flags;
    const char *needs_tail;     /* after "option -s needs a value" (": 512 or 4096") */
    const char *takes_tail;     /* after "option --json takes no value" */
};
struct option;

/* One row of a tool's option table (its options_table.h, or selftest's rows),
 * in the order --help shows them. code is what getopt_long returns for it (the
 * letter, or a long-only code >= 256); letter its short form (0: none); name its
 * long form (NULL: none); arg whether it takes a value (OPT_ARG_OPTARG: only as
 * --name=V, or -xV); help its lines of --help as printed ("" when another row's
 * lines name it); role the tool's (0: any; esxperf: client or server only).
 * A row with code 0 is usage text that is no option's; a row with alias set is
 * another long name of code's option (shown in some row's help, or hidden: kept
 * for another tool's command lines).
 * What the engine sets from the value (kind): nothing, a flag, a string, a
 * number in [min, max] read by parse (into a field of size bytes), seconds in
 * [smin, smax] kept in nanoseconds, or the tool's own setter fn. A number
 * refused is "WHAT 'V': why (INTRO MIN..MAX UNIT)", WHAT the row's what or else
 * the option's name ("-m"); seconds "WHAT 'V': why (SMIN..SMAX seconds)". */
enum opt_arg { OPT_ARG_NONE, OPT_ARG_REQ, OPT_ARG_OPTARG };
enum opt_alias { OPT_NOT_ALIAS, OPT_ALIAS_SHOWN, OPT_ALIAS_HIDDEN };
enum opt_kind {
    OPT_MAIN,       /* nothing: the tool's main acts on it (-h, --version, -f) */
    OPT_NOTHING,    /* accepted, sets nothing */
    OPT_FLAG,       /* int field = 1 */
    OPT_STR,        /* const char * field = the value */
    OPT_NUM,        /* integer field (2, 4 or 8 bytes) = parse(value) in [min, max] */
    OPT_SECS,       /* uint64_t field = the value in seconds, [smin, smax], as ns */
    OPT_FN,         /* fn(opts, value, why, len) */
};
typedef int opt_num_parser(const char *s, int64_t min, int64_t max, int64_t *out,
                           const char **why);
typedef int opt_setter(void *opts, const char *value, char *why, size_t len);
struct opt_row {
    int code, letter;
    const char *name;
    enum opt_arg arg;
    const char *help;
    int role;
    enum opt_alias alias;
    enum opt_kind kind;
    size_t off, size;           /* the field in the tool's options struct */
    opt_num_parser *parse;      /* OPT_NUM */
    int64_t min, max;           /* OPT_NUM */
    double smin, smax;          /* OPT_SECS */
    const char *what;           /* the refusal's name of the value; NULL: the option's */
    const char *intro, *unit;   /* OPT_NUM: before the range, after it ("" or NULL: none) */
    opt_setter *fn;             /* OPT_FN */
};
/* parse_u64 in opt_num_parser's shape: a plain non-negative decimal */
int parse_uint(const char *s, int64_t min, int64_t max, int64_t *out, const char **why);

/* A tool's table and how it words refusals. shorts and longs are where
 * args_getopt's views are built, once (ARGS_SHORTS(n) and n + 1 entries);
 * line_max bounds a refusal's line (NUL included), as the tool's buffer. */
#define ARGS_SHORTS(n) (2 + 3 * (n))
struct args_table {
    const struct opt_row *rows;
    size_t n;
    const struct bad_option_words *words;
    size_t line_max;
    char *shorts;
    struct option *longs;
};

/* getopt_long's views of rows[0..n): shorts gets ':' (so a missing value is told
 * from an unknown option) then each letter, with ':' when it takes a value and
 * '::' when optional; longs gets each long name and alias with its code, then
 * the zero entry. shorts must hold ARGS_SHORTS(n) chars, longs n + 1 entries. */
void args_getopt(const struct opt_row *rows, size_t n, char *shorts, struct option *longs);
/* t's views, built at the first call */
void args_views(const struct args_table *t, const char **shorts, const struct option **longs);
/* the option row of code (not text, not an alias), NULL when none */
const struct opt_row *args_row(const struct args_table *t, int code);
/* how messages name an option: "-t", "--bidir", or a long-only option with its
 * aliases, "--server-max-duration (--max-duration)"; "?" for no option's code */
const char *args_name(const struct args_table *t, int code, char *buf, size_t len);
/* the first row of role whose option given[] marks, in the table's order; NULL */
const struct opt_row *args_first_given(const struct args_table *t, int role,
                                       const unsigned char *given);
/* code's option with value: marks given[code] (when given is not NULL) and does
 * what its row says into opts. 0 done, -1 with one line in why (a usage error),
 * 1 for a MAIN row or a code that is no option's (getopt's '?', ':') */
int args_set(const struct args_table *t, void *opts, unsigned char *given, int code,
             const char *value, char *why, size_t len);
/* seconds in [min, max] into *ns, refused as "NAME 'V': why (MIN..MAX seconds)" */
int args_secs(const char *name, const char *v, double min, double max, uint64_t *ns, char *why,
              size_t len);
/* The whole option loop: getopt_long over argv with t's views, each option set
 * by args_set; a MAIN row's option goes to main_opt(ctx, code, value); a bad
 * value, an unknown option or a missing value is one line and exit 2. Returns
 * optind (the first operand; getopt_long has moved the operands to the end).
 * With ESXDIAG_PARSE_ONLY=1 in the environment it exits 0 instead once the
 * options are read, calling no main_opt: a check that a command line parses. */
int args_parse(const struct args_table *t, void *opts, unsigned char *given, int argc,
               char **argv, void (*main_opt)(void *ctx, int code, const char *value),
               void *ctx);

/* the line (without the tool's name) for getopt's return c, its optopt code and
 * word, the argv word it stopped at (NULL when none); longs: the tool's long
 * table. A long option is told by word, a letter by code: a letter refused in
 * the middle of a word of letters is named as such even when word is an earlier
 * long option (getopt moves optind only at a word's end). Returns the line. */
const char *bad_option_line(char *buf, size_t len, const struct option *longs,
                            const struct bad_option_words *w, int c, int code, const char *word);
/* that line as a usage error (exit 2), from getopt's state (optind, optopt) */
_Noreturn void bad_option(const struct option *longs, const struct bad_option_words *w, int c,
                          int argc, char **argv);

#endif
