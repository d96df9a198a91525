/* Command-line helpers shared by the tools. */
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

/* One option of a tool's table (esxmtu's and esxpart's options_table.h): code is
 * what getopt_long returns for it (the letter, or a long-only code >= 256), letter
 * its short form (0: none), name its long form (NULL: none), arg whether it takes
 * a value, help its lines of --help as printed ("" when another row's lines name
 * it). A row with code 0 is usage text that is no option's. */
enum opt_arg { OPT_ARG_NONE, OPT_ARG_REQ };
struct opt_row {
    int code, letter;
    const char *name;
    enum opt_arg arg;
    const char *help;
};
/* getopt_long's views of rows[0..n): shorts gets ':' (so a missing value is told
 * from an unknown option) then each letter, with ':' when it takes a value; longs
 * gets each long name with its code, then the zero entry. shorts must hold 2 + 2n
 * chars, longs n + 1 entries. */
void args_getopt(const struct opt_row *rows, size_t n, char *shorts, struct option *longs);

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
