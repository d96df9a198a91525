/* Well-formed UTF-8 (RFC 3629): no overlong forms, no surrogates, nothing above
 * U+10FFFF. The test behind JSON's strings (jsonw.c) and terminal-safe text
 * (escape.c): a byte outside such a sequence is shown as U+FFFD or \xNN, never
 * passed on. */
#ifndef ESXDIAG_UTF8_H
#define ESXDIAG_UTF8_H
#include <stddef.h>

/* bytes in the well-formed sequence at s (1..4), 0 when s[0] does not start one
 * within n bytes */
size_t utf8_len(const char *s, size_t n);

#endif
