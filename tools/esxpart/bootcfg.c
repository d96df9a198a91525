/* boot.cfg parsing by the loader's rules (esx-boot bootlib/parse.c, bootlib/string.c,
 * libc/standard.c, safeboot/config.c). Keys are a table: name, where the value goes.
 * Numbers: parse.c's parse_option takes an empty value as 0, refuses one that
 * is_number() refuses (anything but an optional '-' then digits: ERR_SYNTAX, which
 * ends parse_config_file and makes bank_get_config fail, so the bank is skipped),
 * and stores atoi() of the rest in an int. esx-boot's atoi is (int)strtol(s, 10),
 * its strtol saturates at LONG_MIN/LONG_MAX (64-bit long in the UEFI build, 32-bit
 * in the BIOS one: libc/include/limits.h), and the int keeps the low 32 bits (the
 * compiler's conversion); config.c then stores updated in a uint32_t, so -5 is
 * 4294967291. The UEFI build's reading decides (current servers boot ESXi from
 * UEFI); where the BIOS build reads a value otherwise, the finding says so. */
#include "bootcfg.h"

#include <stdio.h>
#include <string.h>

enum kind { K_TEXT, K_NUM, K_MODULES };

struct key {
    const char *name;
    enum kind kind;
    size_t at, size;      /* K_TEXT: offset and size of the field in struct bootcfg */
    int num;              /* K_NUM: which of struct bootcfg's num[] */
};

#define FIELD(f) offsetof(struct bootcfg, f), sizeof(((struct bootcfg *)0)->f)
static const struct key keys[] = {
    { "build",     K_TEXT,    FIELD(build), 0 },
    { "title",     K_TEXT,    FIELD(title), 0 },
    { "kernelopt", K_TEXT,    FIELD(kernelopt), 0 },
    { "updated",   K_NUM,     0, 0, CFG_UPDATED },
    { "bootstate", K_NUM,     0, 0, CFG_BOOTSTATE },
    { "quickboot", K_NUM,     0, 0, CFG_QUICKBOOT },
    { "modules",   K_MODULES, 0, 0, 0 },
};

static const char *const num_names[CFG_NUMS] = { "updated", "bootstate", "quickboot" };

const char *bootcfg_num_name(int i) { return num_names[i]; }

static int lower(int c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }
static int blank(int c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

static int same_key(const char *k, size_t n, const char *name)
{
    if (strlen(name) != n)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (lower((unsigned char)k[i]) != name[i])
            return 0;
    return 1;
}

/* a key=value line's key is printable ASCII without blanks: what a binary file
 * holds before an '=' is not counted as one */
static int word(const char *k, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)k[i] <= ' ' || (unsigned char)k[i] >= 0x7F)
            return 0;
    return 1;
}

/* bootlib/string.c's is_number: an optional '-', then only digits ("-" too) */
static int is_number(const char *v, size_t n)
{
    size_t i = n && v[0] == '-';
    for (; i < n; i++)
        if (v[i] < '0' || v[i] > '9')
            return 0;
    return 1;
}

/* atoi() of an is_number() text with a long of long_bits bits: strtol saturates at
 * the long's bounds, the int keeps the low 32 bits (two's complement) */
static int32_t loader_atoi(const char *v, size_t n, int long_bits)
{
    int neg = n && v[0] == '-';
    uint64_t limit = long_bits == 64 ? (neg ? 1ull << 63 : (1ull << 63) - 1)
                                     : (neg ? 1ull << 31 : (1ull << 31) - 1);
    uint64_t m = 0;
    for (size_t i = (size_t)neg; i < n; i++) {
        unsigned d = (unsigned)(v[i] - '0');
        if (m > (limit - d) / 10) {
            m = limit;
            break;
        }
        m = m * 10 + d;
    }
    uint32_t low = (uint32_t)(neg ? 0 - m : m);
    return low > INT32_MAX ? -(int32_t)(UINT32_MAX - low) - 1 : (int32_t)low;
}

/* the loader's value turned back into text is what was written (leading zeros aside) */
static int plain(const char *v, size_t n, long long value)
{
    char want[24];
    while (n > 1 && v[0] == '0')
        v++, n--;
    snprintf(want, sizeof want, "%lld", value);
    return strlen(want) == n && memcmp(want, v, n) == 0;
}

static void set_num(struct bootcfg *c, int i, const char *v, size_t n)
{
    struct cfg_num *x = &c->num[i];
    memset(x, 0, sizeof *x);
    x->set = 1;
    snprintf(x->text, sizeof x->text, "%.*s", (int)(n < sizeof x->text ? n : sizeof x->text - 1), v);
    if (!is_number(v, n)) {
        if (!c->rejected) {
            c->rejected = 1;
            snprintf(c->reject_key, sizeof c->reject_key, "%s", num_names[i]);
            snprintf(c->reject_text, sizeof c->reject_text, "%s", x->text);
        }
        return;
    }
    x->value = loader_atoi(v, n, 64);
    x->bios = loader_atoi(v, n, 32);
    long long shown = i == CFG_UPDATED ? (long long)(uint32_t)x->value : x->value;
    x->odd = x->value != x->bios || !plain(v, n, shown);
    if (i == CFG_UPDATED)
        c->updated = (uint32_t)x->value;
    else if (i == CFG_BOOTSTATE) {
        c->bootstate = x->value;
        c->has_bootstate = 1;
    } else
        c->quickboot = x->value != 0;
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
    switch (k->kind) {
    case K_TEXT:
        snprintf(f, k->size, "%.*s", (int)(n < k->size ? n : k->size - 1), v);
        break;
    case K_NUM:
        set_num(c, k->num, v, n);
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
        const char *nul = memchr(text + s, 0, e - s);   /* the line is a C string */
        if (nul)
            e = (size_t)(nul - text);
        size_t first = s;
        while (first < e && blank(text[first]))
            first++;
        if (first < e && text[first] == '#')
            continue;
        const char *eq = memchr(text + s, '=', e - s);
        if (!eq)
            continue;
        size_t ks = s, ke = (size_t)(eq - text), vs = ke + 1, ve = e;
        while (ks < ke && blank(text[ks])) ks++;
        while (ke > ks && blank(text[ke - 1])) ke--;
        while (vs < ve && blank(text[vs])) vs++;
        while (ve > vs && blank(text[ve - 1])) ve--;
        if (ke > ks && word(text + ks, ke - ks))
            c->lines++;
        for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
            if (same_key(text + ks, ke - ks, keys[k].name))
                set(c, &keys[k], text + vs, ve - vs);
    }
}
