/* Crypto over mbedtls 2.28: SHA-256, base64, RSA (PKCS#1 v1.5, OAEP-SHA1) with keys
 * from PEM. Only this file includes mbedtls headers. */
#include "crypto.h"
#include "fail.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mbedtls/base64.h"
#include "mbedtls/ctr_drbg.h"
#include "mbedtls/entropy.h"
#include "mbedtls/error.h"
#include "mbedtls/pk.h"
#include "mbedtls/platform_util.h"
#include "mbedtls/rsa.h"
#include "mbedtls/sha256.h"
#include "mbedtls/version.h"
#include "version.h"

VERSION_LIBRARY(mbedtls, MBEDTLS_VERSION_STRING);

struct crypto_key {
    mbedtls_pk_context pk;
    mbedtls_entropy_context entropy;
    mbedtls_ctr_drbg_context drbg;
    int drbg_ready;
};

void crypto_sha256(const void *data, size_t len, unsigned char out[32])
{
    mbedtls_sha256_ret(data, len, out, 0);
}

void crypto_sha256_hex(const void *data, size_t len, char out[65])
{
    static const char hex[] = "0123456789abcdef";
    unsigned char d[32];
    crypto_sha256(data, len, d);
    for (int i = 0; i < 32; i++) {
        out[2 * i] = hex[d[i] >> 4];
        out[2 * i + 1] = hex[d[i] & 15];
    }
    out[64] = 0;
}

int crypto_b64_encode(const void *in, size_t inlen, char *out, size_t outcap, size_t *olen)
{
    size_t n = 0;
    if (mbedtls_base64_encode((unsigned char *)out, outcap, &n, in, inlen) != 0)
        return -1;
    if (olen)
        *olen = n;
    return 0;
}

int crypto_b64_decode(const char *in, size_t inlen, unsigned char *out, size_t outcap,
                      size_t *olen)
{
    size_t n = 0;
    /* mbedtls accepts embedded newlines; a token has none, so refuse them */
    if (memchr(in, '\n', inlen) || memchr(in, '\r', inlen) || memchr(in, ' ', inlen))
        return -1;
    if (inlen % 4 != 0)
        return -1;
    if (mbedtls_base64_decode(out, outcap, &n, (const unsigned char *)in, inlen) != 0)
        return -1;
    /* only the canonical encoding is accepted: mbedtls tolerates misplaced padding
     * and non-zero spare bits, so encode the result again and compare */
    char *again = xmalloc(inlen + 1);
    size_t m = 0;
    int bad = mbedtls_base64_encode((unsigned char *)again, inlen + 1, &m, out, n) != 0 ||
              m != inlen || memcmp(again, in, inlen) != 0;
    free(again);
    if (bad) {
        crypto_wipe(out, n);
        return -1;
    }
    if (olen)
        *olen = n;
    return 0;
}

static void errstr(int rc, char *err, size_t errlen, const char *what)
{
    char buf[128];
    if (!err || !errlen)
        return;
    mbedtls_strerror(rc, buf, sizeof buf);
    snprintf(err, errlen, "%s: %s", what, buf);
}

static struct crypto_key *key_new(void)
{
    struct crypto_key *k = xcalloc(1, sizeof *k);
    mbedtls_pk_init(&k->pk);
    mbedtls_entropy_init(&k->entropy);
    mbedtls_ctr_drbg_init(&k->drbg);
    return k;
}

static int key_check_rsa(struct crypto_key *k, char *err, size_t errlen)
{
    if (mbedtls_pk_get_type(&k->pk) != MBEDTLS_PK_RSA) {
        if (err && errlen)
            snprintf(err, errlen, "not an RSA key");
        return -1;
    }
    int rc = mbedtls_ctr_drbg_seed(&k->drbg, mbedtls_entropy_func, &k->entropy,
                                   (const unsigned char *)"esxdiag", 7);
    if (rc) {
        errstr(rc, err, errlen, "random generator");
        return -1;
    }
    k->drbg_ready = 1;
    return 0;
}

static struct crypto_key *finish(struct crypto_key *k, int rc, char *err, size_t errlen,
                                 const char *what)
{
    if (rc) {
        errstr(rc, err, errlen, what);
        crypto_key_free(k);
        return NULL;
    }
    if (key_check_rsa(k, err, errlen)) {
        crypto_key_free(k);
        return NULL;
    }
    return k;
}

/* mbedtls wants PEM text NUL-terminated, with the NUL counted in the length */
static unsigned char *nul_copy(const unsigned char *pem, size_t len, size_t *outlen)
{
    unsigned char *b = xmalloc(len + 1);
    memcpy(b, pem, len);
    b[len] = 0;
    *outlen = (len && memmem(pem, len, "-----BEGIN", 10)) ? len + 1 : len;
    return b;
}

struct crypto_key *crypto_key_parse_public(const unsigned char *pem, size_t len,
                                           char *err, size_t errlen)
{
    struct crypto_key *k = key_new();
    size_t n;
    unsigned char *b = nul_copy(pem, len, &n);
    int rc = mbedtls_pk_parse_public_key(&k->pk, b, n);
    crypto_wipe(b, len + 1);
    free(b);
    return finish(k, rc, err, errlen, "cannot parse public key");
}

struct crypto_key *crypto_key_parse_private(const unsigned char *pem, size_t len,
                                            char *err, size_t errlen)
{
    struct crypto_key *k = key_new();
    size_t n;
    unsigned char *b = nul_copy(pem, len, &n);
    int rc = mbedtls_pk_parse_key(&k->pk, b, n, NULL, 0);
    crypto_wipe(b, len + 1);
    free(b);
    return finish(k, rc, err, errlen, "cannot parse private key");
}

static const char *file_kind(mode_t m)
{
    return S_ISFIFO(m) ? "a FIFO (named pipe)" : S_ISSOCK(m) ? "a socket"
         : S_ISCHR(m) ? "a character device" : S_ISBLK(m) ? "a block device"
         : S_ISDIR(m) ? "a directory" : "not a regular file";
}

static int not_regular(const char *path, const char *what, mode_t m, char *err, size_t errlen)
{
    if (err && errlen)
        snprintf(err, errlen, "%s %s is %s, not a regular file (give the path of the file "
                 "itself)", what, path, file_kind(m));
    errno = EINVAL;
    return -1;
}

int crypto_file_open(const char *path, const char *what, char *err, size_t errlen)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        if (err && errlen)
            snprintf(err, errlen, "cannot open %s %s: %s", what, path, errtext(errno));
        return -1;
    }
    if (!S_ISREG(st.st_mode))
        return not_regular(path, what, st.st_mode, err, errlen);
    /* O_NONBLOCK: a FIFO swapped in after stat() opens at once instead of waiting
     * for a writer, and the fstat() below refuses it */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        if (err && errlen)
            snprintf(err, errlen, "cannot open %s %s: %s", what, path, errtext(errno));
        return -1;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return not_regular(path, what, st.st_mode, err, errlen);
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    return fd;
}

/* key files are small: refuse anything over 64 KiB instead of reading it */
static unsigned char *read_key_file(const char *path, size_t *len, char *err, size_t errlen)
{
    enum { KEY_FILE_MAX = 64 * 1024 };
    int fd = crypto_file_open(path, "key file", err, errlen);
    FILE *f = fd < 0 ? NULL : fdopen(fd, "rb");
    if (!f) {
        if (fd >= 0) {
            if (err && errlen)
                snprintf(err, errlen, "cannot open key file %s: %s", path, errtext(errno));
            close(fd);
        }
        return NULL;
    }
    unsigned char *b = xmalloc(KEY_FILE_MAX + 1);
    size_t n = fread(b, 1, KEY_FILE_MAX + 1, f);
    int bad = ferror(f);
    fclose(f);
    if (bad || n > KEY_FILE_MAX || n == 0) {
        if (err && errlen)
            snprintf(err, errlen, "%s: %s", path,
                     bad ? "read error" : n ? "larger than 64 KiB, not a key file" : "empty file");
        crypto_wipe(b, KEY_FILE_MAX + 1);
        free(b);
        return NULL;
    }
    *len = n;
    return b;
}

struct crypto_key *crypto_key_load_public(const char *path, char *err, size_t errlen)
{
    size_t n;
    unsigned char *b = read_key_file(path, &n, err, errlen);
    if (!b)
        return NULL;
    struct crypto_key *k = crypto_key_parse_public(b, n, err, errlen);
    crypto_wipe(b, n);
    free(b);
    if (!k && err && errlen) {
        char tmp[256];
        snprintf(tmp, sizeof tmp, "%s: %s", path, err);
        snprintf(err, errlen, "%s", tmp);
    }
    return k;
}

size_t crypto_key_bytes(const struct crypto_key *k)
{
    return mbedtls_pk_get_len(&k->pk);
}

void crypto_key_free(struct crypto_key *k)
{
    if (!k)
        return;
    mbedtls_pk_free(&k->pk);              /* zeroizes the RSA context */
    mbedtls_ctr_drbg_free(&k->drbg);
    mbedtls_entropy_free(&k->entropy);
    crypto_wipe(k, sizeof *k);
    free(k);
}

static mbedtls_rsa_context *rsa_of(struct crypto_key *k, enum crypto_padding pad)
{
    mbedtls_rsa_context *rsa = mbedtls_pk_rsa(k->pk);
    if (pad == CRYPTO_OAEP_SHA1)
        mbedtls_rsa_set_padding(rsa, MBEDTLS_RSA_PKCS_V21, MBEDTLS_MD_SHA1);
    else
        mbedtls_rsa_set_padding(rsa, MBEDTLS_RSA_PKCS_V15, MBEDTLS_MD_NONE);
    return rsa;
}

int crypto_rsa_encrypt(struct crypto_key *k, enum crypto_padding pad,
                       const void *in, size_t inlen, unsigned char *out, size_t outcap)
{
    size_t n = crypto_key_bytes(k);
    if (!k->drbg_ready || outcap < n)
        return -1;
    mbedtls_rsa_context *rsa = rsa_of(k, pad);
    if (mbedtls_rsa_pkcs1_encrypt(rsa, mbedtls_ctr_drbg_random, &k->drbg, MBEDTLS_RSA_PUBLIC,
                                  inlen, in, out) != 0)
        return -1;
    return (int)n;
}

int crypto_rsa_decrypt(struct crypto_key *k, enum crypto_padding pad,
                       const unsigned char *in, size_t inlen, void *out, size_t outcap)
{
    size_t olen = 0;
    if (!k->drbg_ready || inlen != crypto_key_bytes(k))
        return -1;
    mbedtls_rsa_context *rsa = rsa_of(k, pad);
    if (mbedtls_rsa_pkcs1_decrypt(rsa, mbedtls_ctr_drbg_random, &k->drbg, MBEDTLS_RSA_PRIVATE,
                                  &olen, in, out, outcap) != 0)
        return -1;
    return (int)olen;
}

int crypto_memcmp_ct(const void *a, const void *b, size_t n)
{
    const volatile unsigned char *x = a, *y = b;
    unsigned char d = 0;
    for (size_t i = 0; i < n; i++)
        d |= x[i] ^ y[i];
    return d != 0;
}

void crypto_wipe(void *p, size_t n)
{
    mbedtls_platform_zeroize(p, n);
}
