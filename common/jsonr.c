/* JSON reading on jsmn: strict parse, depth limit, typed getters. */
/* jsmn is a header-only library: its implementation is compiled once, here, in
 * strict mode (no bare words as values); other files see only its declarations */
#define JSMN_STRICT
#define JSMN_PARENT_LINKS   /* as in jsonr.h: linear time, same token layout */
#include "jsmn.h"
#include "jsmn_version.h"
#include "jsonr.h"
#include "version.h"

VERSION_LIBRARY(jsmn, ESXDIAG_JSMN_VERSION);

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *jr_strerror(int err)
{
    switch (err) {
    case JR_OK: return "ok";
    case JR_ENOMEM: return "too many JSON tokens";
    case JR_EINVAL: return "invalid JSON";
    case JR_EPART: return "truncated JSON";
    case JR_EDEPTH: return "JSON nested too deeply";
    case JR_ETOP: return "JSON top level is not an object";
    default: return "JSON error";
    }
}

int jr_skip(const struct jsonr *r, int i)
{
    /* tokens are in document order: the value ends where the next token starts
     * beyond its end offset */
    int end = r->tok[i].end;
    int j = i + 1;
    while (j < r->ntok && r->tok[j].start < end)
        j++;
    return j;
}

/* 1 when the text nests deeper than JR_MAX_DEPTH. Checked before jsmn runs: at each
 * closing bracket jsmn walks from the newest token up to the open one, which costs
 * the depth, so a million nested arrays took minutes (quadratic). Strings are
 * skipped as jsmn reads them; like jsmn, the scan stops at a NUL. */
static int too_deep(const char *js, size_t len)
{
    int depth = 0, in_str = 0;
    for (size_t i = 0; i < len && js[i]; i++) {
        char c = js[i];
        if (in_str) {
            if (c == '\\')
                i++;
            else if (c == '"')
                in_str = 0;
        } else if (c == '"') {
            in_str = 1;
        } else if (c == '{' || c == '[') {
            if (++depth > JR_MAX_DEPTH)
                return 1;
        } else if (c == '}' || c == ']') {
            depth--;
        }
    }
    return 0;
}

/* jsmn checks only the first character of a primitive: check the whole word */
static int primitive_ok(const char *p, size_t n)
{
    if ((n == 4 && !memcmp(p, "true", 4)) || (n == 5 && !memcmp(p, "false", 5)) ||
        (n == 4 && !memcmp(p, "null", 4)))
        return 1;
    size_t i = 0;
    if (i < n && p[i] == '-')
        i++;
    if (i >= n || p[i] < '0' || p[i] > '9')
        return 0;
    if (p[i] == '0')
        i++;
    else
        while (i < n && p[i] >= '0' && p[i] <= '9')
            i++;
    if (i < n && p[i] == '.') {
        i++;
        if (i >= n || p[i] < '0' || p[i] > '9')
            return 0;
        while (i < n && p[i] >= '0' && p[i] <= '9')
            i++;
    }
    if (i < n && (p[i] == 'e' || p[i] == 'E')) {
        i++;
        if (i < n && (p[i] == '+' || p[i] == '-'))
            i++;
        if (i >= n || p[i] < '0' || p[i] > '9')
            return 0;
        while (i < n && p[i] >= '0' && p[i] <= '9')
            i++;
    }
    return i == n;
}

int jr_parse(struct jsonr *r, const char *js, size_t len, jsmntok_t *tok, int max)
{
    jsmn_parser p;
    jsmn_init(&p);
    r->js = js;
    r->len = len;
    r->tok = tok;
    r->ntok = 0;
    if (too_deep(js, len))
        return JR_EDEPTH;
    int n = jsmn_parse(&p, js, len, tok, (unsigned)max);
    if (n == JSMN_ERROR_NOMEM)
        return JR_ENOMEM;
    if (n == JSMN_ERROR_INVAL)
        return JR_EINVAL;
    if (n == JSMN_ERROR_PART || n == 0)
        return JR_EPART;
    if (n < 0)
        return JR_EINVAL;
    r->ntok = n;
    if (tok[0].type != JSMN_OBJECT)
        return JR_ETOP;
    /* nothing but whitespace may follow the top-level value */
    for (size_t k = (size_t)tok[0].end; k < len; k++)
        if (js[k] != ' ' && js[k] != '\n' && js[k] != '\r' && js[k] != '\t' && js[k] != 0)
            return JR_EINVAL;
    for (int i = 0; i < n; i++)
        if (tok[i].type == JSMN_PRIMITIVE &&
            !primitive_ok(js + tok[i].start, (size_t)(tok[i].end - tok[i].start)))
            return JR_EINVAL;
    return JR_OK;
}

static int tok_eq(const struct jsonr *r, int i, const char *s)
{
    size_t n = strlen(s);
    const jsmntok_t *t = &r->tok[i];
    return t->type == JSMN_STRING && (size_t)(t->end - t->start) == n &&
           memcmp(r->js + t->start, s, n) == 0;
}

int jr_find(const struct jsonr *r, int obj, const char *key)
{
    if (obj < 0 || obj >= r->ntok || r->tok[obj].type != JSMN_OBJECT)
        return -1;
    int i = obj + 1;
    for (int k = 0; k < r->tok[obj].size && i < r->ntok; k++) {
        int v = i + 1;
        if (v >= r->ntok)
            return -1;
        if (tok_eq(r, i, key))
            return v;
        i = jr_skip(r, v);
    }
    return -1;
}

static int prim_is(const struct jsonr *r, int i, char first)
{
    if (i < 0 || i >= r->ntok || r->tok[i].type != JSMN_PRIMITIVE)
        return 0;
    return r->js[r->tok[i].start] == first;
}

int jr_is_null(const struct jsonr *r, int i)
{
    return prim_is(r, i, 'n');
}

int jr_bool(const struct jsonr *r, int i, int *out)
{
    if (prim_is(r, i, 't')) { *out = 1; return 0; }
    if (prim_is(r, i, 'f')) { *out = 0; return 0; }
    return -1;
}

static int number_text(const struct jsonr *r, int i, char *buf, size_t cap)
{
    if (i < 0 || i >= r->ntok || r->tok[i].type != JSMN_PRIMITIVE)
        return -1;
    char c = r->js[r->tok[i].start];
    if (c != '-' && (c < '0' || c > '9'))
        return -1;
    size_t n = (size_t)(r->tok[i].end - r->tok[i].start);
    if (n == 0 || n >= cap)
        return -1;
    memcpy(buf, r->js + r->tok[i].start, n);
    buf[n] = 0;
    return 0;
}

int jr_int(const struct jsonr *r, int i, int64_t *out)
{
    char b[64], *end;
    if (number_text(r, i, b, sizeof b))
        return -1;
    errno = 0;
    long long v = strtoll(b, &end, 10);
    if (*end == 0 && errno == 0) {
        *out = v;
        return 0;
    }
    /* 1e3 or 5.0: accept when integral and in range */
    errno = 0;
    double d = strtod(b, &end);
    if (*end || errno || !isfinite(d) || d != floor(d) || d < -9.2e18 || d > 9.2e18)
        return -1;
    *out = (int64_t)d;
    return 0;
}

int jr_double(const struct jsonr *r, int i, double *out)
{
    char b[64], *end;
    if (number_text(r, i, b, sizeof b))
        return -1;
    errno = 0;
    double d = strtod(b, &end);
    if (*end || !isfinite(d))
        return -1;
    *out = d;
    return 0;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* four hex digits (the caller checked they are there) */
static int hex4(const char *s, unsigned *out)
{
    unsigned v = 0;
    for (int k = 0; k < 4; k++) {
        int h = hexval(s[k]);
        if (h < 0)
            return -1;
        v = v << 4 | (unsigned)h;
    }
    *out = v;
    return 0;
}

int jr_str(const struct jsonr *r, int i, char *out, size_t outlen)
{
    if (i < 0 || i >= r->ntok || r->tok[i].type != JSMN_STRING || outlen == 0)
        return -1;
    const char *s = r->js + r->tok[i].start, *e = r->js + r->tok[i].end;
    size_t o = 0;
    while (s < e) {
        unsigned cp;
        if (*s != '\\') {
            cp = (unsigned char)*s++;
            if (o + 1 >= outlen) return -1;
            out[o++] = (char)cp;
            continue;
        }
        s++;
        if (s >= e) return -1;
        char c = *s++;
        switch (c) {
        case '"': case '\\': case '/': cp = (unsigned char)c; break;
        case 'b': cp = '\b'; break;
        case 'f': cp = '\f'; break;
        case 'n': cp = '\n'; break;
        case 'r': cp = '\r'; break;
        case 't': cp = '\t'; break;
        case 'u': {
            if (e - s < 4 || hex4(s, &cp) < 0) return -1;
            s += 4;
            /* surrogate pair -> one code point; a lone surrogate becomes U+FFFD */
            unsigned lo;
            if (cp >= 0xd800 && cp < 0xdc00 && e - s >= 6 && s[0] == '\\' && s[1] == 'u' &&
                hex4(s + 2, &lo) == 0 && lo >= 0xdc00 && lo < 0xe000) {
                cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                s += 6;
            }
            if (cp >= 0xd800 && cp < 0xe000)
                cp = 0xfffd;
            break;
        }
        default: return -1;
        }
        /* UTF-8 encode */
        unsigned char u[4];
        size_t n;
        if (cp < 0x80) { u[0] = (unsigned char)cp; n = 1; }
        else if (cp < 0x800) { u[0] = (unsigned char)(0xc0 | cp >> 6); u[1] = (unsigned char)(0x80 | (cp & 63)); n = 2; }
        else if (cp < 0x10000) { u[0] = (unsigned char)(0xe0 | cp >> 12); u[1] = (unsigned char)(0x80 | ((cp >> 6) & 63)); u[2] = (unsigned char)(0x80 | (cp & 63)); n = 3; }
        else { u[0] = (unsigned char)(0xf0 | cp >> 18); u[1] = (unsigned char)(0x80 | ((cp >> 12) & 63)); u[2] = (unsigned char)(0x80 | ((cp >> 6) & 63)); u[3] = (unsigned char)(0x80 | (cp & 63)); n = 4; }
        if (o + n >= outlen) return -1;
        memcpy(out + o, u, n);
        o += n;
    }
    out[o] = 0;
    return 0;
}

int jr_arr_len(const struct jsonr *r, int i)
{
    if (i < 0 || i >= r->ntok || r->tok[i].type != JSMN_ARRAY)
        return -1;
    return r->tok[i].size;
}

int jr_arr_at(const struct jsonr *r, int i, int k)
{
    if (jr_arr_len(r, i) <= k || k < 0)
        return -1;
    int j = i + 1;
    for (int n = 0; n < k && j < r->ntok; n++)
        j = jr_skip(r, j);
    return j < r->ntok ? j : -1;
}
