/* Text from outside (a peer name, a disk label, a path, an option value) made safe
 * to print on a terminal, on one line, in every tool's text output and messages.
 *
 * The promise: what esc_text writes holds no control byte (C0 such as ESC, tab and
 * newline; DEL; the C1 controls U+0080..U+009F), no byte that is not well-formed
 * UTF-8, and no invisible format character that hides or reorders text (zero-width
 * spaces and joiners, the bidirectional marks, embeddings, overrides and isolates,
 * word joiners, the line and paragraph separators, the byte-order mark U+FEFF).
 * Each such byte is written as \xNN, so the reader sees that it is there and what it
 * is; every other character passes as it is. JSON has its own rule (jsonw.h). */
#ifndef ESXDIAG_ESCAPE_H
#define ESXDIAG_ESCAPE_H
#include <stddef.h>

/* in, escaped as above into out (always NUL-terminated when outlen > 0), cut on a
 * character boundary, never inside a \xNN, to fit outlen. Returns the columns the
 * result takes (one per character). */
size_t esc_text(const char *in, char *out, size_t outlen);

#endif
