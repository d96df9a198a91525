/* Reading JSON with jsmn, with strict types and bounds.
 * Parse once into a caller-supplied token array; then look up keys of objects.
 * Strings are returned unescaped into caller buffers. */
#ifndef ESXDIAG_JSONR_H
#define ESXDIAG_JSONR_H
#include <stddef.h>
#include <stdint.h>
/* parent links keep jsmn linear: without them it walks back over every earlier
 * token at each ',' in an object, so an 8 MiB object with a million keys took hours
 * (quadratic); jr_parse bounds the depth before jsmn runs, since its walk at each
 * closing bracket costs the depth. jsonr.c defines it too: the token layout must be
 * the same everywhere. */
#define JSMN_PARENT_LINKS
#define JSMN_HEADER
#include "jsmn.h"

#define JR_MAX_DEPTH 16

struct jsonr {
    const char *js;
    size_t len;
    jsmntok_t *tok;
    int ntok;
};

enum jr_err { JR_OK = 0, JR_ENOMEM = -1, JR_EINVAL = -2, JR_EPART = -3, JR_EDEPTH = -4,
              JR_ETOP = -5 };

/* Parse text (not NUL-terminated) into tok[0..max), in time linear in len. Fails
 * (JR_*) on nesting deeper than JR_MAX_DEPTH (checked first), invalid JSON, more
 * tokens than max, or a top level that is not an object. */
int jr_parse(struct jsonr *r, const char *js, size_t len, jsmntok_t *tok, int max);
const char *jr_strerror(int err);

/* index of the token after the whole value at index i */
int jr_skip(const struct jsonr *r, int i);
/* index of the value for key in object token obj, or -1 (also when obj is no object) */
int jr_find(const struct jsonr *r, int obj, const char *key);

/* Type-checked getters on a value token. Return 0, or -1 for a wrong type or range. */
int jr_is_null(const struct jsonr *r, int i);
int jr_bool(const struct jsonr *r, int i, int *out);         /* true/false only */
int jr_int(const struct jsonr *r, int i, int64_t *out);      /* integral number */
int jr_double(const struct jsonr *r, int i, double *out);    /* any number */
/* copy the unescaped string into out (NUL-terminated); -1 if not a string or too long */
int jr_str(const struct jsonr *r, int i, char *out, size_t outlen);

/* array helpers: number of elements, and index of element k */
int jr_arr_len(const struct jsonr *r, int i);
int jr_arr_at(const struct jsonr *r, int i, int k);

#endif
