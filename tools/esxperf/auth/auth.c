/* iperf3-compatible RSA authentication: token build and check, users file,
 * private key file permissions (the password is auth_password.c's). See auth.h
 * for the formats. */
#include "auth.h"
#include "fail.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PT_USER "user: "
#define PT_PASS "\npwd:  "
#define PT_TS "\nts:   "
/* "user: " U "\npwd:  " P "\nts:   " -9223372036854775808 */
#define PT_MAX (sizeof PT_USER - 1 + AUTH_USER_MAX + sizeof PT_PASS - 1 + AUTH_PASS_MAX + \
                sizeof PT_TS - 1 + 20)

/* a byte allowed in a user name or password: what sscanf %s reads, minus controls */
static int field_byte(unsigned char c)
{
    return c > 0x20 && c != 0x7f;
}

/* length of a valid field at s (stops at NUL), or 0 when empty, too long or bad */
static size_t field_check(const char *s, size_t max)
{
    size_t n = 0;
    for (; s[n]; n++)
        if (n == max || !field_byte((unsigned char)s[n]))
            return 0;
    return n;
}

void auth_user_hash(const char *user, const char *password, char out[65])
{
    char salted[AUTH_USER_MAX + AUTH_PASS_MAX + 3];
    int n = snprintf(salted, sizeof salted, "{%.*s}%.*s", AUTH_USER_MAX, user,
                     AUTH_PASS_MAX, password);
    crypto_sha256_hex(salted, (size_t)n, out);
    crypto_wipe(salted, sizeof salted);
}

/* ---------------------------------------------------------------- token: client */

int auth_token_make(struct crypto_key *pub, enum crypto_padding pad, const char *user,
                    const char *password, int64_t now, char *out, size_t outcap,
                    char *err, size_t errlen)
{
    char pt[PT_MAX + 1];
    unsigned char ct[AUTH_KEY_BYTES_MAX];
    size_t kb = crypto_key_bytes(pub);
    int rc = -1;

    if (!field_check(user, AUTH_USER_MAX)) {
        why_fmt(err, errlen, "user name must be 1 to %d bytes without spaces or control "
               "characters (iperf3's token format cannot carry others)", AUTH_USER_MAX);
        return -1;
    }
    if (!field_check(password, AUTH_PASS_MAX)) {
        why_fmt(err, errlen, "password must be 1 to %d bytes without spaces or control "
               "characters (iperf3's token format cannot carry others)", AUTH_PASS_MAX);
        return -1;
    }
    if (kb > AUTH_KEY_BYTES_MAX) {
        why_fmt(err, errlen, "RSA key of %zu bits is over the %d-bit limit", kb * 8,
               AUTH_KEY_BYTES_MAX * 8);
        return -1;
    }
    int n = snprintf(pt, sizeof pt, PT_USER "%s" PT_PASS "%s" PT_TS "%" PRId64,
                     user, password, now);
    size_t overhead = pad == CRYPTO_OAEP_SHA1 ? 42 : 11;  /* 2*SHA1+2, PKCS#1 v1.5 */
    if (n < 0 || (size_t)n >= sizeof pt || kb < overhead || (size_t)n > kb - overhead) {
        why_fmt(err, errlen, "user name and password too long for a %zu-bit RSA key "
               "(at most %zu bytes of token text with this padding)", kb * 8,
               kb > overhead ? kb - overhead : 0);
        goto out;
    }
    int cl = crypto_rsa_encrypt(pub, pad, pt, (size_t)n, ct, sizeof ct);
    if (cl <= 0) {
        why_fmt(err, errlen, "RSA encryption of the token failed");
        goto out;
    }
    if (crypto_b64_encode(ct, (size_t)cl, out, outcap, NULL) != 0) {
        why_fmt(err, errlen, "token buffer too small");
        goto out;
    }
    rc = 0;
out:
    crypto_wipe(pt, sizeof pt);
    crypto_wipe(ct, sizeof ct);
    return rc;
}

/* ---------------------------------------------------------------- token: server */

/* copy a field of 1..max valid bytes from p up to the separator sep (or the end
 * when sep is NULL); return the position after the field, or NULL */
static const char *take_field(const char *p, const char *end, const char *sep,
                              char *dst, size_t max)
{
    size_t n = 0;
    while (p + n < end && field_byte((unsigned char)p[n]))
        n++;
    if (n == 0 || n > max)
        return NULL;
    if (sep) {
        size_t sl = strlen(sep);
        if ((size_t)(end - (p + n)) < sl || memcmp(p + n, sep, sl) != 0)
            return NULL;
    }
    memcpy(dst, p, n);
    dst[n] = 0;
    return p + n;
}

static int parse_i64_strict(const char *p, const char *end, int64_t *out)
{
    int neg = 0;
    uint64_t v = 0;
    if (p < end && *p == '-') {
        neg = 1;
        p++;
    }
    if (p == end || end - p > 19)
        return -1;
    for (; p < end; p++) {
        if (*p < '0' || *p > '9')
            return -1;
        v = v * 10 + (uint64_t)(*p - '0');      /* 19 digits fit in uint64 */
    }
    if (v > (uint64_t)INT64_MAX + (uint64_t)neg)
        return -1;
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return 0;
}

int auth_plaintext_parse(const char *pt, size_t len, char user[AUTH_USER_MAX + 1],
                         char pass[AUTH_PASS_MAX + 1], int64_t *ts)
{
    const char *p = pt, *end = pt + len;
    size_t ul = sizeof PT_USER - 1;
    user[0] = pass[0] = 0;
    if (len < ul || memcmp(p, PT_USER, ul) != 0)
        return -1;
    p = take_field(p + ul, end, PT_PASS, user, AUTH_USER_MAX);
    if (!p)
        return -1;
    p = take_field(p + sizeof PT_PASS - 1, end, PT_TS, pass, AUTH_PASS_MAX);
    if (!p)
        return -1;
    return parse_i64_strict(p + sizeof PT_TS - 1, end, ts);
}

const char *auth_bad_text(enum auth_bad b)
{
    switch (b) {
    case AUTH_BAD_ENCODING: return "not base64 of one block of our key's size";
    case AUTH_BAD_KEY: return "it does not decrypt with our key (the client used another "
                              "public key, or sent garbage)";
    case AUTH_BAD_CHARACTER: return "the user name or password holds a space or control "
                                    "character, which iperf3's token format cannot carry "
                                    "(no iperf3 server accepts it either)";
    case AUTH_BAD_TEXT: return "it decrypts, but not to iperf3's user/pwd/ts text";
    }
    return "?";
}

const char *auth_status_text(enum auth_status s)
{
    switch (s) {
    case AUTH_OK: return "ok";
    case AUTH_NO_TOKEN: return "no token";
    case AUTH_BAD_TOKEN: return "bad token";
    case AUTH_UNKNOWN_USER: return "unknown user";
    case AUTH_WRONG_PASSWORD: return "wrong password";
    case AUTH_EXPIRED: return "expired";
    case AUTH_REPLAYED: return "replayed";
    }
    return "?";
}

/* 1 when equal, without a data-dependent branch */
static unsigned ct_eq(const void *a, const void *b, size_t n)
{
    return (unsigned)(crypto_memcmp_ct(a, b, n) == 0);
}

static int skew_exceeded(int64_t now, int64_t ts, int64_t skew)
{
    uint64_t d = ts > now ? (uint64_t)ts - (uint64_t)now : (uint64_t)now - (uint64_t)ts;
    return skew < 0 || d > (uint64_t)skew;
}

/* 1 if the ciphertext is in the replay list and still inside its window; else
 * record it (evicting the oldest slot) and return 0. The decoded ciphertext, not the
 * base64 text: base64 has spare bits in its last symbol, so one ciphertext has
 * several spellings. */
static int replay_seen(struct auth_replay *rp, const unsigned char *ct, size_t len,
                       int64_t now, int64_t ts, int64_t skew)
{
    unsigned char d[32];
    crypto_sha256(ct, len, d);
    for (size_t i = 0; i < AUTH_REPLAY_SLOTS; i++)
        if (rp->until[i] >= now && memcmp(rp->digest[i], d, 32) == 0)
            return 1;
    size_t slot = rp->next % AUTH_REPLAY_SLOTS;
    memcpy(rp->digest[slot], d, 32);
    /* ts + skew without overflow; skew_exceeded() already bounded both */
    rp->until[slot] = ts > INT64_MAX - skew ? INT64_MAX : ts + skew;
    rp->next = slot + 1;
    return 0;
}

/* why a token that decrypted does not parse: the password (or user) field holds
 * a byte iperf3's token format cannot carry (iperf3 reads it with %s, which stops
 * at the first space), or the text is not the format at all */
static enum auth_bad bad_text(const char *pt, size_t len)
{
    size_t ul = sizeof PT_USER - 1;
    if (len < ul || memcmp(pt, PT_USER, ul) != 0)
        return AUTH_BAD_TEXT;
    const char *pw = memmem(pt, len, PT_PASS, sizeof PT_PASS - 1);
    const char *ts = pw ? memmem(pw, len - (size_t)(pw - pt), PT_TS, sizeof PT_TS - 1) : NULL;
    if (!pw || !ts)
        return AUTH_BAD_TEXT;
    for (const char *c = pt + ul; c < ts; c++)
        if (c < pw || c >= pw + sizeof PT_PASS - 1)
            if (!field_byte((unsigned char)*c))
                return AUTH_BAD_CHARACTER;
    return AUTH_BAD_TEXT;
}

int auth_token_check(struct crypto_key *priv, const struct auth_users *users,
                     const char *token, size_t token_len, int64_t now, int64_t skew,
                     struct auth_replay *replay, struct auth_result *res)
{
    unsigned char ct[AUTH_KEY_BYTES_MAX];
    char pt[AUTH_KEY_BYTES_MAX + 1], pt2[AUTH_KEY_BYTES_MAX + 1];
    struct auth_user cand;
    char pass[AUTH_PASS_MAX + 1];
    char hash[65];
    size_t kb = crypto_key_bytes(priv), cl = 0;
    int64_t ts = 0;

    memset(res, 0, sizeof *res);
    if (!token || token_len == 0) {
        res->status = AUTH_NO_TOKEN;
        return -1;
    }
    /* checks on the ciphertext alone tell nothing about the key: fail fast */
    res->status = AUTH_BAD_TOKEN;
    res->bad = AUTH_BAD_ENCODING;
    /* mbedtls drops a trailing partial base64 group silently: refuse it here */
    if (token_len > AUTH_TOKEN_MAX || token_len % 4 != 0 || kb > AUTH_KEY_BYTES_MAX ||
        crypto_b64_decode(token, token_len, ct, sizeof ct, &cl) != 0 || cl != kb)
        return -1;

    /* Both paddings, always (OAEP for iperf3 3.17+ clients, PKCS#1 v1.5 for 3.16
     * and older: nothing on the wire says which), and from here on the same work
     * whatever they said: a failed decryption goes on with a plaintext that cannot
     * parse, and a failed parse goes on with an empty user, through the hash and
     * the whole user list. */
    memset(&cand, 0, sizeof cand);
    memset(pass, 0, sizeof pass);
    int pl = crypto_rsa_decrypt(priv, CRYPTO_OAEP_SHA1, ct, cl, pt, kb);   /* kb + 1 bytes */
    int pl2 = crypto_rsa_decrypt(priv, CRYPTO_PKCS1_V15, ct, cl, pt2, kb);
    if (pl < 0 && pl2 >= 0) {
        memcpy(pt, pt2, (size_t)pl2);
        pl = pl2;
    }
    unsigned dec_ok = pl >= 0;
    size_t plen = dec_ok ? (size_t)pl : 0;
    pt[plen] = 0;
    unsigned parsed = dec_ok & (auth_plaintext_parse(pt, plen, cand.user, pass, &ts) == 0);
    auth_user_hash(cand.user, pass, hash);

    unsigned found = 0, match = 0;
    for (size_t i = 0; users && i < users->n; i++) {
        unsigned u = ct_eq(users->v[i].user, cand.user, sizeof cand.user);
        unsigned h = ct_eq(users->v[i].hash, hash, 64);
        found |= u;
        match |= u & h;
    }

    if (!parsed) {
        res->status = AUTH_BAD_TOKEN;
        res->bad = dec_ok ? bad_text(pt, plen) : AUTH_BAD_KEY;
    } else {
        size_t i;
        for (i = 0; cand.user[i]; i++)
            res->user[i] = (cand.user[i] & 0x80) ? '?' : cand.user[i];
        res->user[i] = 0;
        res->ts = ts;
        if (!found)
            res->status = AUTH_UNKNOWN_USER;
        else if (!match)
            res->status = AUTH_WRONG_PASSWORD;
        else if (skew_exceeded(now, ts, skew))
            res->status = AUTH_EXPIRED;
        else if (replay && replay_seen(replay, ct, cl, now, ts, skew))
            res->status = AUTH_REPLAYED;
        else
            res->status = AUTH_OK;
    }
    crypto_wipe(pt, sizeof pt);
    crypto_wipe(pt2, sizeof pt2);
    crypto_wipe(pass, sizeof pass);
    crypto_wipe(hash, sizeof hash);
    crypto_wipe(&cand, sizeof cand);
    return res->status == AUTH_OK ? 0 : -1;
}

/* ---------------------------------------------------------------- users file */

static int hex64(const char *p, size_t n)
{
    if (n != 64)
        return 0;
    for (size_t i = 0; i < 64; i++)
        if (!((p[i] >= '0' && p[i] <= '9') || (p[i] >= 'a' && p[i] <= 'f')))
            return 0;
    return 1;
}

/* One line (without its '\n'). Returns 0 = skipped as iperf3 skips it, 1 = entry
 * (stored in e when e is not NULL), -1 = malformed. */
static int users_line(const char *s, size_t n, struct auth_user *e)
{
    const char *cr = memchr(s, '\r', n);
    if (cr)
        n = (size_t)(cr - s);
    if (n == 0 || s[0] == '#' || !memchr(s, ',', n))
        return 0;
    if (n > AUTH_USERS_LINE_MAX)
        return -1;
    const char *comma = memchr(s, ',', n);
    size_t ul = (size_t)(comma - s);
    if (ul == 0 || ul > AUTH_USER_MAX)
        return -1;
    for (size_t i = 0; i < ul; i++)
        if (!field_byte((unsigned char)s[i]))
            return -1;
    const char *h = comma + 1, *end = s + n;
    const char *hend = memchr(h, ',', (size_t)(end - h));    /* later fields ignored */
    if (!hend)
        hend = end;
    if (!hex64(h, (size_t)(hend - h)))
        return -1;
    if (e) {
        memset(e, 0, sizeof *e);
        memcpy(e->user, s, ul);
        memcpy(e->hash, h, 64);
    }
    return 1;
}

/* walk the lines, counting into u; store the first cap entries into v */
static void users_walk(const char *text, size_t len, struct auth_users *u,
                       struct auth_user *v, size_t cap)
{
    size_t line = 0, pos = 0;
    u->n = u->malformed = u->first_bad_line = 0;
    while (pos < len) {
        const char *s = text + pos;
        const char *nl = memchr(s, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - s) : len - pos;
        line++;
        int r = users_line(s, n, v && u->n < cap ? &v[u->n] : NULL);
        if (r > 0) {
            u->n++;
        } else if (r < 0) {
            if (!u->malformed)
                u->first_bad_line = line;
            u->malformed++;
        }
        pos += n + (nl ? 1 : 0);
    }
}

int auth_users_parse(const char *text, size_t len, struct auth_users *out,
                     char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (len > AUTH_USERS_FILE_MAX) {
        why_fmt(err, errlen, "users file is over %d bytes", AUTH_USERS_FILE_MAX);
        return -1;
    }
    struct auth_users count;
    users_walk(text, len, &count, NULL, 0);
    if (count.n > AUTH_USERS_MAX) {
        why_fmt(err, errlen, "users file has %zu entries, more than the %d allowed",
               count.n, AUTH_USERS_MAX);
        return -1;
    }
    out->v = xcalloc(count.n ? count.n : 1, sizeof *out->v);
    users_walk(text, len, out, out->v, count.n);   /* same text: same count */
    return 0;
}

void auth_users_free(struct auth_users *u)
{
    if (!u)
        return;
    if (u->v) {
        crypto_wipe(u->v, u->n * sizeof *u->v);
        free(u->v);
    }
    memset(u, 0, sizeof *u);
}

/* read a whole regular file of at most max bytes; the caller wipes and frees */
static char *read_file(int fd, const char *path, size_t max, size_t *len,
                       char *err, size_t errlen)
{
    struct stat st;
    if (fstat(fd, &st) != 0) {
        why_fmt(err, errlen, "%s: %s", path, errtext(errno));
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        why_fmt(err, errlen, "%s: not a regular file", path);
        return NULL;
    }
    char *b = xmalloc(max + 1);
    size_t n = 0;
    for (;;) {
        ssize_t r = read(fd, b + n, max + 1 - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            why_fmt(err, errlen, "cannot read %s: %s", path, errtext(errno));
            break;
        }
        if (r == 0) {
            *len = n;
            return b;
        }
        n += (size_t)r;
        if (n > max) {
            why_fmt(err, errlen, "%s: larger than %zu bytes", path, max);
            break;
        }
    }
    crypto_wipe(b, max + 1);
    free(b);
    return NULL;
}

int auth_users_load(const char *path, struct auth_users *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    int fd = crypto_file_open(path, "users file", err, errlen);
    if (fd < 0)
        return -1;
    size_t len = 0;
    char *b = read_file(fd, path, AUTH_USERS_FILE_MAX, &len, err, errlen);
    close(fd);
    if (!b)
        return -1;
    char why[160];
    int rc = auth_users_parse(b, len, out, why, sizeof why);
    if (rc)
        why_fmt(err, errlen, "%s: %s", path, why);
    crypto_wipe(b, len);
    free(b);
    return rc;
}

/* ---------------------------------------------------------------- private key */

struct crypto_key *auth_key_load_private(const char *path, int allow_readable,
                                         char *err, size_t errlen)
{
    enum { KEY_FILE_MAX = 64 * 1024 };
    struct stat st;
    int fd = crypto_file_open(path, "private key", err, errlen);
    if (fd < 0)
        return NULL;
    /* check the file we opened, not the name: no window for a swap */
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 077) && !allow_readable) {
        why_fmt(err, errlen, "private key %s has mode %04o: group or others may read it "
               "(run 'chmod 600 %s', or pass " AUTH_KEY_PERM_OVERRIDE ")",
               path, (unsigned)(st.st_mode & 07777), path);
        close(fd);
        return NULL;
    }
    size_t len = 0;
    char *b = read_file(fd, path, KEY_FILE_MAX, &len, err, errlen);
    close(fd);
    if (!b)
        return NULL;
    if (len == 0) {
        why_fmt(err, errlen, "%s: empty file, not a private key", path);
        free(b);
        return NULL;
    }
    char why[200];
    struct crypto_key *k = crypto_key_parse_private((unsigned char *)b, len, why, sizeof why);
    crypto_wipe(b, len);
    free(b);
    if (!k) {
        why_fmt(err, errlen, "%s: %s (an unencrypted PEM RSA private key is needed)",
               path, why);
        return NULL;
    }
    if (crypto_key_bytes(k) > AUTH_KEY_BYTES_MAX) {
        why_fmt(err, errlen, "%s: RSA key over %d bits", path, AUTH_KEY_BYTES_MAX * 8);
        crypto_key_free(k);
        return NULL;
    }
    return k;
}
