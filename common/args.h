/* Command-line helpers shared by the tools. */
#ifndef ESXDIAG_ARGS_H
#define ESXDIAG_ARGS_H
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

#endif
