/* JSON writer: stable key order (call order), escaping, optional pretty layout. */
#include "jsonw.h"
#include "utf8.h"
#include "fail.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void put(struct jsonw *w, const char *s, size_t n)
{
    if (w->len + n + 1 > w->cap) {
        size_t cap = w->cap ? w->cap : 256;
        while (w->len + n + 1 > cap)
            cap *= 2;
        w->buf = xrealloc(w->buf, cap);
        w->cap = cap;
    }
    memcpy(w->buf + w->len, s, n);
    w->len += n;
    w->buf[w->len] = 0;
}

static void puts_(struct jsonw *w, const char *s)
{
    put(w, s, strlen(s));
}

static void newline(struct jsonw *w)
{
    if (!w->pretty)
        return;
    put(w, "\n", 1);
    for (int i = 0; i < w->depth; i++)
        put(w, "  ", 2);
}

static void quoted(struct jsonw *w, const char *s, size_t n)
{
    put(w, "\"", 1);
    for (size_t i = 0; i < n;) {
        unsigned char c = (unsigned char)s[i];
        size_t len = utf8_len(s + i, n - i);
        char esc[8];
        if (len == 0) {
            put(w, "\\ufffd", 6);   /* a byte that is not UTF-8 */
            i++;
            continue;
        }
        /* C1 controls (U+0080..U+009F, C2 80..C2 9F) are escaped like C0 */
        unsigned cp = len == 2 && c == 0xC2 ? (unsigned char)s[i + 1] : c;
        switch (cp) {
        case '"': put(w, "\\\"", 2); break;
        case '\\': put(w, "\\\\", 2); break;
        case '\n': put(w, "\\n", 2); break;
        case '\r': put(w, "\\r", 2); break;
        case '\t': put(w, "\\t", 2); break;
        default:
            if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) {
                snprintf(esc, sizeof esc, "\\u%04x", cp);
                put(w, esc, 6);
            } else {
                put(w, s + i, len);
            }
        }
        i += len;
    }
    put(w, "\"", 1);
}

/* comma, newline and "key": before any value */
static void member(struct jsonw *w, const char *key)
{
    if (w->depth > 0) {
        if (!w->first[w->depth])
            put(w, ",", 1);
        w->first[w->depth] = 0;
        newline(w);
    }
    if (key && w->depth > 0 && w->closer[w->depth] == '}') {
        quoted(w, key, strlen(key));
        put(w, w->pretty ? ": " : ":", w->pretty ? 2 : 1);
    }
}

void jw_init(struct jsonw *w, int pretty)
{
    memset(w, 0, sizeof *w);
    w->pretty = pretty;
    put(w, "", 0);
}

void jw_free(struct jsonw *w)
{
    free(w->buf);
    memset(w, 0, sizeof *w);
}

const char *jw_text(struct jsonw *w)
{
    return w->buf ? w->buf : "";
}

size_t jw_len(const struct jsonw *w)
{
    return w->len;
}

static void open_(struct jsonw *w, const char *key, char open, char close)
{
    member(w, key);
    if (w->depth + 1 >= JW_MAX_DEPTH)
        die(EXIT_USAGE, "internal error: JSON output nested too deeply");
    put(w, &open, 1);
    w->depth++;
    w->first[w->depth] = 1;
    w->closer[w->depth] = close;
}

void jw_obj(struct jsonw *w, const char *key) { open_(w, key, '{', '}'); }
void jw_arr(struct jsonw *w, const char *key) { open_(w, key, '[', ']'); }

void jw_end(struct jsonw *w)
{
    if (w->depth <= 0)
        return;
    char c = w->closer[w->depth];
    int empty = w->first[w->depth];
    w->depth--;
    if (!empty)
        newline(w);
    put(w, &c, 1);
    if (w->depth == 0 && w->pretty)
        put(w, "\n", 1);
}

void jw_strn(struct jsonw *w, const char *key, const char *val, size_t n)
{
    member(w, key);
    if (!val)
        puts_(w, "null");
    else
        quoted(w, val, n);
}

void jw_str(struct jsonw *w, const char *key, const char *val)
{
    jw_strn(w, key, val, val ? strlen(val) : 0);
}

void jw_int(struct jsonw *w, const char *key, int64_t val)
{
    char b[32];
    member(w, key);
    snprintf(b, sizeof b, "%" PRId64, val);
    puts_(w, b);
}

void jw_uint(struct jsonw *w, const char *key, uint64_t val)
{
    char b[32];
    member(w, key);
    snprintf(b, sizeof b, "%" PRIu64, val);
    puts_(w, b);
}

void jw_double(struct jsonw *w, const char *key, double val)
{
    char b[40];
    member(w, key);
    if (!isfinite(val)) {
        puts_(w, "null");
        return;
    }
    snprintf(b, sizeof b, "%.17g", val);
    /* keep it a JSON number that reads back as a double */
    if (!strpbrk(b, ".eE"))
        strcat(b, ".0");
    puts_(w, b);
}

void jw_double_prec(struct jsonw *w, const char *key, double val, int decimals)
{
    char b[64];
    member(w, key);
    if (!isfinite(val)) {
        puts_(w, "null");
        return;
    }
    snprintf(b, sizeof b, "%.*f", decimals, val);
    puts_(w, b);
}

void jw_bool(struct jsonw *w, const char *key, int val)
{
    member(w, key);
    puts_(w, val ? "true" : "false");
}

void jw_null(struct jsonw *w, const char *key)
{
    member(w, key);
    puts_(w, "null");
}

void jw_raw(struct jsonw *w, const char *key, const char *json)
{
    member(w, key);
    puts_(w, json);
}

char *jw_take(struct jsonw *w, size_t max, size_t *len)
{
    size_t n = w->len;
    char *out = NULL;
    if (n <= max) {
        out = w->buf ? w->buf : xstrdup("");
        w->buf = NULL;
        if (len)
            *len = n;
    }
    jw_free(w);
    return out;
}
