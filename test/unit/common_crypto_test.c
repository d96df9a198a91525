/* common/crypto.c against the openssl command: SHA-256, base64, RSA with PKCS#1 v1.5
 * and OAEP-SHA1 both ways, and key loading errors. Keys are made at run time. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "crypto.h"
#include "openssl_cli.h"

const char tool_name[] = "test";

struct fix {
    struct tdir d;
};

static int setup(void **state)
{
    static struct fix f;
    if (tdir_make(&f.d, "crypto") != 0)
        return -1;
    if (tdir_sh(&f.d, "openssl genrsa -out priv.pem 2048 && "
                      "openssl rsa -in priv.pem -pubout -out pub.pem && "
                      "openssl rsa -in priv.pem -traditional -out priv1.pem && "
                      "openssl rsa -in priv.pem -RSAPublicKey_out -out pub1.pem && "
                      "openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 "
                      "-out ec.pem && openssl pkey -in ec.pem -pubout -out ecpub.pem && "
                      "openssl genrsa -out other.pem 2048") != 0)
        return -1;
    *state = &f;
    return 0;
}

static int teardown(void **state)
{
    struct fix *f = *state;
    tdir_remove(&f->d);
    return 0;
}

static struct crypto_key *pub_of(struct fix *f, const char *name)
{
    char p[256], err[256] = "";
    struct crypto_key *k = crypto_key_load_public(tdir_file(&f->d, name, p, sizeof p),
                                                  err, sizeof err);
    if (!k)
        fail_msg("load %s: %s", name, err);
    return k;
}

/* a private key file's PEM through the parser (the servers load private keys with
 * their own checks: esxperf's auth_key_load_private) */
static struct crypto_key *priv_parse(struct fix *f, const char *name, char *err, size_t errlen)
{
    size_t n = 0;
    char *pem = tdir_read(&f->d, name, &n);
    assert_non_null(pem);
    struct crypto_key *k = crypto_key_parse_private((const unsigned char *)pem, n, err, errlen);
    free(pem);
    return k;
}

static struct crypto_key *priv_of(struct fix *f, const char *name)
{
    char err[256] = "";
    struct crypto_key *k = priv_parse(f, name, err, sizeof err);
    if (!k)
        fail_msg("load %s: %s", name, err);
    return k;
}

/* deterministic test bytes */
static void fill(unsigned char *b, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        b[i] = (unsigned char)(seed >> 16);
    }
}

static void sha256_matches_openssl(void **state)
{
    struct fix *f = *state;
    static const size_t sizes[] = { 0, 1, 3, 55, 56, 63, 64, 65, 1000, 100000 };
    static unsigned char buf[100000];
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        fill(buf, sizes[i], (unsigned)i + 1);
        assert_int_equal(tdir_write(&f->d, "data", buf, sizes[i]), 0);
        assert_int_equal(tdir_sh(&f->d, "openssl dgst -sha256 -r data > dgst"), 0);
        char *want = tdir_read(&f->d, "dgst", NULL);
        assert_non_null(want);
        char got[65];
        crypto_sha256_hex(buf, sizes[i], got);
        assert_int_equal(strlen(got), 64);
        assert_memory_equal(got, want, 64);
        free(want);
    }
    /* the iperf3 users-file hash of "{mario}rossi" (as in iperf3's docs) */
    char h[65];
    crypto_sha256_hex("{mario}rossi", 12, h);
    assert_string_equal(h, "bf7a49a846d44b454a5d11e7acfaf13d138bbe0b7483aa3e050879700572709b");
}

static void base64_matches_openssl(void **state)
{
    struct fix *f = *state;
    unsigned char buf[300], back[300];
    char enc[512];
    size_t n, m;
    for (size_t len = 0; len < 300; len += (len < 10 ? 1 : 37)) {
        fill(buf, len, (unsigned)len + 7);
        assert_int_equal(tdir_write(&f->d, "raw", buf, len), 0);
        assert_int_equal(tdir_sh(&f->d, "openssl base64 -A -in raw -out b64"), 0);
        size_t wl;
        char *want = tdir_read(&f->d, "b64", &wl);
        assert_non_null(want);
        while (wl && (want[wl - 1] == '\n'))
            want[--wl] = 0;
        assert_int_equal(crypto_b64_encode(buf, len, enc, sizeof enc, &n), 0);
        assert_int_equal(n, wl);
        assert_memory_equal(enc, want, wl);
        assert_int_equal(crypto_b64_decode(want, wl, back, sizeof back, &m), 0);
        assert_int_equal(m, len);
        if (len)
            assert_memory_equal(back, buf, len);
        free(want);
    }
}

static void base64_refuses_bad_input(void **state)
{
    (void)state;
    unsigned char out[64];
    char enc[8];
    size_t n;
    const char *bad[] = { "QUJD\n", "QU JD", "Q===", "QU=D", "QUJD*A==", "\r\nQUJD", "QUJD=A==" };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        assert_int_equal(crypto_b64_decode(bad[i], strlen(bad[i]), out, sizeof out, &n), -1);
    /* only canonical base64 passes: mbedtls 2.28 alone would drop a trailing partial
     * group, take a lone '=' after full groups, and ignore non-zero spare bits */
    assert_int_equal(crypto_b64_decode("QUJ", 3, out, sizeof out, &n), -1);
    assert_int_equal(crypto_b64_decode("QUJDRA", 6, out, sizeof out, &n), -1);
    assert_int_equal(crypto_b64_decode("QUJD=", 5, out, sizeof out, &n), -1);
    assert_int_equal(crypto_b64_decode("QUJDRB==", 8, out, sizeof out, &n), -1);  /* spare bits */
    assert_int_equal(crypto_b64_decode("QUJDRA==", 8, out, sizeof out, &n), 0);
    assert_int_equal(n, 4);
    assert_int_equal(crypto_b64_decode("QUJD", 4, out, sizeof out, &n), 0);
    assert_int_equal(n, 3);
    assert_memory_equal(out, "ABC", 3);
    /* too small an output buffer on either side */
    assert_int_equal(crypto_b64_decode("QUJDRA==", 8, out, 3, &n), -1);
    assert_int_equal(crypto_b64_encode("ABCD", 4, enc, 8, &n), -1);   /* needs 8 + NUL */
}

/* ours encrypts, openssl decrypts; openssl encrypts, ours decrypts */
static void rsa_round_trip(struct fix *f, struct crypto_key *pub, struct crypto_key *priv,
                           enum crypto_padding pad, const char *mode, const char *privfile)
{
    static const char msg[] = "user: alice\npwd:  s3cret\nts:   1700000000";
    unsigned char ct[512];
    char pt[512];
    assert_int_equal(crypto_key_bytes(pub), 256);
    int cl = crypto_rsa_encrypt(pub, pad, msg, strlen(msg), ct, sizeof ct);
    assert_int_equal(cl, 256);
    assert_int_equal(tdir_write(&f->d, "ct", ct, (size_t)cl), 0);
    assert_int_equal(tdir_sh(&f->d, "rm -f pt && openssl pkeyutl -decrypt -inkey %s "
                             "-pkeyopt rsa_padding_mode:%s -in ct -out pt", privfile, mode), 0);
    size_t pl;
    char *got = tdir_read(&f->d, "pt", &pl);
    assert_non_null(got);
    assert_int_equal(pl, strlen(msg));
    assert_memory_equal(got, msg, pl);
    free(got);

    assert_int_equal(tdir_write(&f->d, "pt2", msg, strlen(msg)), 0);
    assert_int_equal(tdir_sh(&f->d, "openssl pkeyutl -encrypt -pubin -inkey pub.pem "
                             "-pkeyopt rsa_padding_mode:%s -in pt2 -out ct2", mode), 0);
    size_t cl2;
    unsigned char *ct2 = (unsigned char *)tdir_read(&f->d, "ct2", &cl2);
    assert_non_null(ct2);
    assert_int_equal(cl2, 256);
    int n = crypto_rsa_decrypt(priv, pad, ct2, cl2, pt, sizeof pt);
    assert_int_equal(n, (int)strlen(msg));
    assert_memory_equal(pt, msg, (size_t)n);
    /* the other padding mode does not decrypt it */
    enum crypto_padding other = pad == CRYPTO_OAEP_SHA1 ? CRYPTO_PKCS1_V15 : CRYPTO_OAEP_SHA1;
    assert_int_equal(crypto_rsa_decrypt(priv, other, ct2, cl2, pt, sizeof pt), -1);
    /* a flipped byte does not decrypt */
    ct2[100] ^= 1;
    assert_int_equal(crypto_rsa_decrypt(priv, pad, ct2, cl2, pt, sizeof pt), -1);
    /* nor a wrong length */
    assert_int_equal(crypto_rsa_decrypt(priv, pad, ct2, cl2 - 1, pt, sizeof pt), -1);
    free(ct2);
}

static void rsa_pkcs1_v15_matches_openssl(void **state)
{
    struct fix *f = *state;
    struct crypto_key *pub = pub_of(f, "pub.pem"), *priv = priv_of(f, "priv.pem");
    rsa_round_trip(f, pub, priv, CRYPTO_PKCS1_V15, "pkcs1", "priv.pem");
    crypto_key_free(pub);
    crypto_key_free(priv);
}

static void rsa_oaep_sha1_matches_openssl(void **state)
{
    struct fix *f = *state;
    /* the PKCS#1 ("traditional") forms of both keys load too */
    struct crypto_key *pub = pub_of(f, "pub1.pem"), *priv = priv_of(f, "priv1.pem");
    rsa_round_trip(f, pub, priv, CRYPTO_OAEP_SHA1, "oaep", "priv1.pem");
    crypto_key_free(pub);
    crypto_key_free(priv);
}

static void rsa_wrong_key_fails(void **state)
{
    struct fix *f = *state;
    struct crypto_key *pub = pub_of(f, "pub.pem"), *other = priv_of(f, "other.pem");
    unsigned char ct[256];
    char pt[256];
    int cl = crypto_rsa_encrypt(pub, CRYPTO_PKCS1_V15, "hello", 5, ct, sizeof ct);
    assert_int_equal(cl, 256);
    assert_int_equal(crypto_rsa_decrypt(other, CRYPTO_PKCS1_V15, ct, 256, pt, sizeof pt), -1);
    /* a message longer than the padding allows is refused */
    char big[246];
    memset(big, 'x', sizeof big);
    assert_int_equal(crypto_rsa_encrypt(pub, CRYPTO_PKCS1_V15, big, 245, ct, sizeof ct), 256);
    assert_int_equal(crypto_rsa_encrypt(pub, CRYPTO_PKCS1_V15, big, 246, ct, sizeof ct), -1);
    assert_int_equal(crypto_rsa_encrypt(pub, CRYPTO_OAEP_SHA1, big, 214, ct, sizeof ct), 256);
    assert_int_equal(crypto_rsa_encrypt(pub, CRYPTO_OAEP_SHA1, big, 215, ct, sizeof ct), -1);
    /* output buffer smaller than the modulus */
    assert_int_equal(crypto_rsa_encrypt(pub, CRYPTO_PKCS1_V15, "a", 1, ct, 255), -1);
    crypto_key_free(pub);
    crypto_key_free(other);
}

static void key_loading_errors(void **state)
{
    struct fix *f = *state;
    char p[256], err[256];
    assert_int_equal(tdir_write(&f->d, "empty.pem", "", 0), 0);
    assert_int_equal(tdir_write(&f->d, "text.pem", "hello, not a key\n", 17), 0);
    assert_int_equal(tdir_write(&f->d, "trunc.pem", "-----BEGIN PRIVATE KEY-----\nMIIE\n", 33), 0);

    err[0] = 0;
    assert_null(crypto_key_load_public(tdir_file(&f->d, "missing.pem", p, sizeof p), err, sizeof err));
    assert_non_null(strstr(err, "missing.pem"));
    assert_non_null(strstr(err, "No such file"));

    err[0] = 0;
    assert_null(crypto_key_load_public(tdir_file(&f->d, "empty.pem", p, sizeof p), err, sizeof err));
    assert_non_null(strstr(err, "empty"));

    err[0] = 0;
    assert_null(priv_parse(f, "text.pem", err, sizeof err));
    assert_true(strlen(err) > 0);
    err[0] = 0;
    assert_null(crypto_key_load_public(tdir_file(&f->d, "text.pem", p, sizeof p), err, sizeof err));
    assert_non_null(strstr(err, "text.pem"));
    err[0] = 0;
    assert_null(priv_parse(f, "trunc.pem", err, sizeof err));
    assert_true(strlen(err) > 0);

    /* EC keys are refused (our mbedtls has no EC at all: "unsupported") */
    err[0] = 0;
    assert_null(priv_parse(f, "ec.pem", err, sizeof err));
    assert_true(strlen(err) > 0);
    err[0] = 0;
    assert_null(crypto_key_load_public(tdir_file(&f->d, "ecpub.pem", p, sizeof p), err, sizeof err));
    assert_non_null(strstr(err, "ecpub.pem"));
    assert_true(strstr(err, "unsupported") || strstr(err, "not an RSA key"));

    /* a public key is not a private key, and a directory is not a key */
    err[0] = 0;
    assert_null(priv_parse(f, "pub.pem", err, sizeof err));
    assert_true(strlen(err) > 0);
    err[0] = 0;
    assert_null(crypto_key_load_public(f->d.path, err, sizeof err));
    assert_true(strlen(err) > 0);

    /* a private key file does give its public half */
    struct crypto_key *k = crypto_key_load_public(tdir_file(&f->d, "priv.pem", p, sizeof p), err, sizeof err);
    if (k)
        crypto_key_free(k);
}

static void compare_and_wipe(void **state)
{
    (void)state;
    unsigned char a[32], b[32];
    memset(a, 7, sizeof a);
    memset(b, 7, sizeof b);
    assert_int_equal(crypto_memcmp_ct(a, b, sizeof a), 0);
    b[31] ^= 0x80;
    assert_int_not_equal(crypto_memcmp_ct(a, b, sizeof a), 0);
    assert_int_equal(crypto_memcmp_ct(a, b, 31), 0);
    assert_int_equal(crypto_memcmp_ct(a, b, 0), 0);
    crypto_wipe(a, sizeof a);
    for (size_t i = 0; i < sizeof a; i++)
        assert_int_equal(a[i], 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sha256_matches_openssl),
        cmocka_unit_test(base64_matches_openssl),
        cmocka_unit_test(base64_refuses_bad_input),
        cmocka_unit_test(rsa_pkcs1_v15_matches_openssl),
        cmocka_unit_test(rsa_oaep_sha1_matches_openssl),
        cmocka_unit_test(rsa_wrong_key_fails),
        cmocka_unit_test(key_loading_errors),
        cmocka_unit_test(compare_and_wipe),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
