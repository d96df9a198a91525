/* boot.cfg parsing by the loader's rules (esx-boot bootlib/parse.c, safeboot/config.c):
 * lines of key=value, keys compared without case, '#' to the end of the line a
 * comment, blanks around key and value trimmed; a missing bootstate reads as 0
 * (config.c's default). Keys are a table: name, where the value goes. */
#include "bootcfg.h"

#include <stdio.h>
#include <string.h>

enum kind { K_TEXT, K_U32, K_STATE, K_FLAG, K_MODULES };

struct key {
    const char *name;
    enum kind kind;
    size_t at, size;      /* offset and size of the field in struct bootcfg */
};

#define FIELD(f) offsetof(struct bootcfg, f), sizeof(((struct bootcfg *)0)->f)
static const struct key keys[] = {
    { "build",     K_TEXT,    FIELD(build) },
    { "title",     K_TEXT,    FIELD(title) },
    { "kernelopt", K_TEXT,    FIELD(kernelopt) },
    { "updated",   K_U32,     FIELD(updated) },
    { "bootstate", K_STATE,   FIELD(bootstate) },
    { "quickboot", K_FLAG,    FIELD(quickboot) },
    { "modules",   K_MODULES, FIELD(modules) },
};

static int lower(int c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }
static int blank(int c) { return c == ' ' || c == '\t' || c == '\r'; }

static int same_key(const char *k, size_t n, const char *name)
{
    if (strlen(name) != n)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (lower((unsigned char)k[i]) != name[i])
            return 0;
    return 1;
}

/* decimal, all of v; -1 when not a number or over 2^32-1 */
static long long number(const char *v, size_t n)
{
    long long x = 0;
    if (n == 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (v[i] < '0' || v[i] > '9')
            return -1;
        x = x * 10 + (v[i] - '0');
        if (x > 0xFFFFFFFFll)
            return -1;
    }
    return x;
}

/* module names separated by " --- " (a blank-surrounded "---") */
static unsigned count_modules(const char *v, size_t n)
{
    unsigned count = 0;
    int in_name = 0;
    for (size_t i = 0; i < n; i++) {
        if (i + 3 <= n && memcmp(v + i, "---", 3) == 0 && (i == 0 || blank(v[i - 1])) &&
            (i + 3 == n || blank(v[i + 3]))) {
            in_name = 0;
            i += 2;
        } else if (!blank(v[i]) && !in_name) {
            in_name = 1;
            count++;
        }
    }
    return count;
}

static void set(struct bootcfg *c, const struct key *k, const char *v, size_t n)
{
    char *f = (char *)c + k->at;
    long long x;
    switch (k->kind) {
    case K_TEXT:
        snprintf(f, k->size, "%.*s", (int)(n < k->size ? n : k->size - 1), v);
        break;
    case K_U32:
        x = number(v, n);
        c->updated = x < 0 ? 0 : (uint32_t)x;
        break;
    case K_STATE:
        x = number(v, n);
        c->bootstate = x < 0 || x > 1000 ? -1 : (int)x;
        c->has_bootstate = 1;
        break;
    case K_FLAG:
        x = number(v, n);
        c->quickboot = x != 0;   /* present and not 0 */
        break;
    case K_MODULES:
        c->modules = count_modules(v, n);
        break;
    }
}

void bootcfg_parse(const char *text, size_t len, struct bootcfg *c)
{
    memset(c, 0, sizeof *c);
    size_t i = 0;
    while (i < len) {
        size_t s = i, e = i;
        while (e < len && text[e] != '\n')
            e++;
        i = e + 1;
        for (size_t j = s; j < e; j++)
            if (text[j] == '#' || text[j] == 0) {
                e = j;
                break;
            }
        const char *eq = memchr(text + s, '=', e - s);
        if (!eq)
            continue;
        size_t ks = s, ke = (size_t)(eq - text), vs = ke + 1, ve = e;
        while (ks < ke && blank(text[ks])) ks++;
        while (ke > ks && blank(text[ke - 1])) ke--;
        while (vs < ve && blank(text[vs])) vs++;
        while (ve > vs && blank(text[ve - 1])) ve--;
        for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
            if (same_key(text + ks, ke - ks, keys[k].name))
                set(c, &keys[k], text + vs, ve - vs);
    }
}
