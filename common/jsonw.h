/* A small JSON writer into a growing buffer. Keys are written in call order, so
 * output keys are stable. Commas and escaping are handled here.
 *
 *   struct jsonw w; jw_init(&w, 1);          // 1 = pretty (2-space indent)
 *   jw_obj(&w, NULL);                        // top-level {
 *   jw_str(&w, "target", "198.18.0.2");
 *   jw_int(&w, "mtu", 9000);
 *   jw_arr(&w, "probes"); ... jw_end(&w);    // ]
 *   jw_end(&w);                              // }
 *   fputs(jw_text(&w), stdout); jw_free(&w);
 * Inside arrays pass key NULL.
 *
 * Strings (keys and values) are bytes that should be UTF-8; the output is always
 * valid JSON whatever they hold. Well-formed UTF-8 passes through; each byte that
 * does not start a well-formed sequence (a stray continuation byte, an overlong
 * form, a surrogate, anything above U+10FFFF, a sequence cut short) becomes
 * \ufffd, one per byte; C0 controls, DEL and the C1 controls U+0080..U+009F are
 * written as \u00XX (\n \r \t as themselves), so no raw control byte reaches a
 * terminal that shows the JSON. */
#ifndef ESXDIAG_JSONW_H
#define ESXDIAG_JSONW_H
#include <stddef.h>
#include <stdint.h>

#define JW_MAX_DEPTH 32

struct jsonw {
    char *buf;
    size_t len, cap;
    int pretty;
    int depth;
    unsigned char first[JW_MAX_DEPTH];   /* no member written yet at this depth */
    char closer[JW_MAX_DEPTH];
};

void jw_init(struct jsonw *w, int pretty);
void jw_free(struct jsonw *w);
const char *jw_text(struct jsonw *w);   /* NUL-terminated; valid until next write */
size_t jw_len(const struct jsonw *w);

void jw_obj(struct jsonw *w, const char *key);
void jw_arr(struct jsonw *w, const char *key);
void jw_end(struct jsonw *w);
void jw_str(struct jsonw *w, const char *key, const char *val);   /* NULL -> null */
void jw_strn(struct jsonw *w, const char *key, const char *val, size_t n);
void jw_int(struct jsonw *w, const char *key, int64_t val);
void jw_uint(struct jsonw *w, const char *key, uint64_t val);
void jw_double(struct jsonw *w, const char *key, double val);    /* %.17g; NaN/inf -> null */
void jw_double_prec(struct jsonw *w, const char *key, double val, int decimals);
void jw_bool(struct jsonw *w, const char *key, int val);
void jw_null(struct jsonw *w, const char *key);
/* splice already-valid JSON text as a value */
void jw_raw(struct jsonw *w, const char *key, const char *json);
/* hand over the text and free the writer: NULL (still freed) when longer than max;
 * *len (if given) gets the length */
char *jw_take(struct jsonw *w, size_t max, size_t *len);

#endif
