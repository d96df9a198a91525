/* libFuzzer target for esxperf's authtoken decoding and users-file parsing.
 * The first byte picks what the rest of the input is (bit 2: OAEP, else PKCS#1 v1.5):
 *   0 mod 4: an authtoken (base64) checked with the test key; with bit 3 set, a
 *            params JSON whose "authtoken" goes the server's way (params_decode,
 *            then the check, as server.c does)
 *   1 mod 4: users-file text
 *   2 mod 4: a decrypted token plaintext
 *   3 mod 4: a plaintext that is first encrypted with the test key, so the check
 *            runs through real RSA decryption into the parser; the verdict must
 *            agree with auth_plaintext_parse on the same text.
 * The key below is a throwaway 1024-bit test key generated for this file with
 * `openssl genrsa -traditional 1024` (small so the fuzzer runs fast). */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth.h"
#include "proto.h"

const char tool_name[] = "esxperf_auth_fuzz";

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char test_key_pem[] =
    "-----BEGIN RSA PRIVATE KEY-----\n"
    "MIICXwIBAAKBgQDQdwHXYaQStqahSWX5zQ49avDDYD+pauDRZT5nsSwtKAt0wD6p\n"
    "vsHdzVAMDK53pIfiBgepbhs+Lx0tPAQgS8DCi/scUhxW9Nzsrh748sZTDh3N7+jl\n"
    "i0x5fqLneQ2VuUp7qgisoK71NGt706+x3CnfrgrbhnQlZRPEc86NQ3JCNwIDAQAB\n"
    "AoGBAJ9SBLc+KW4f5/OmK+ihPfvUilNXcPAi/dUq4mnPL2sHitHcx0dlwbapXj8H\n"
    "RiOsPCmS4DIuM2XwDgVvM9wW6Sajvjd8tTt/FAKl/hKhjqXL/DFlNwy3QvohjBpg\n"
    "OP4Frtm2ymlAPy0RzxKnfLj+5vl2wPSXN8fmok8EXRbjhGgRAkEA/Y9W7nhJmV/W\n"
    "Ic5Wb2TRG0F4YWdC1lbq1QA8ABMIQX22d4fEXumbEYk2n6EB0szD6WCx0gCqnBoJ\n"
    "xArkgnmBSQJBANJ4kr0Q8XmGJXeoRZMhw+ORfDcJqbUehVJsZTaw3qD+/XEVUsd8\n"
    "SYZ2fCUXEo9oYbcRJ7IBjryYZ8QCQ4uxJ38CQQCgV1tus6w/DAaaHCQ2jvdYl/8r\n"
    "ASSX7CDWDy7iEScAWyHe1oEMUAdagH2FVkiT6B7fXuEz3m4FBsY0LXsxMurZAkEA\n"
    "ssbgPeDKfKNJ6B3zG0svDXpivI1krghCzwRr5MzQDokJ1qh6LCCSg7jZMtgqV84e\n"
    "UlYsFbPk/qWmXoRdw6azGQJBAOHn9HM8OwGxYtAuaYgGDC7Sp405OVunUa9R9qE/\n"
    "BsNvWaE5S+bk3gDHLMf1IcYhwvG9qaXxHhsc2aS7NXiSw/0=\n"
    "-----END RSA PRIVATE KEY-----\n"
    ;

/* alice / s3cret */
static const char test_users[] =
    "# fuzz users\n"
    "alice,9fb9349969765cb57b343daf1872140068c079c5fdf209f18422b11d5b96fafc\n";

static struct crypto_key *key;
static struct auth_users users;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    char err[256];
    key = crypto_key_parse_private((const unsigned char *)test_key_pem,
                                   sizeof test_key_pem - 1, err, sizeof err);
    if (!key || auth_users_parse(test_users, sizeof test_users - 1, &users, err,
                                 sizeof err) != 0 || users.n != 1) {
        fprintf(stderr, "fuzz init: %s\n", err);
        abort();
    }
    return 0;
}

static void check_users(const uint8_t *d, size_t n)
{
    struct auth_users u;
    char err[128];
    if (auth_users_parse((const char *)d, n, &u, err, sizeof err) != 0)
        return;
    if (u.n > AUTH_USERS_MAX || u.n + u.malformed > n)
        abort();
    for (size_t i = 0; i < u.n; i++) {
        size_t ul = strlen(u.v[i].user);
        if (ul == 0 || ul > AUTH_USER_MAX || strlen(u.v[i].hash) != 64)
            abort();
    }
    auth_users_free(&u);
}

static void check_plaintext(const uint8_t *d, size_t n)
{
    char user[AUTH_USER_MAX + 1], pass[AUTH_PASS_MAX + 1];
    int64_t ts;
    if (auth_plaintext_parse((const char *)d, n, user, pass, &ts) != 0)
        return;
    size_t ul = strlen(user), pl = strlen(pass);
    if (ul == 0 || ul > AUTH_USER_MAX || pl == 0 || pl > AUTH_PASS_MAX)
        abort();
    /* what parses must come back byte for byte from the format up to the number,
     * and the number (which may be "-0" or have leading zeros) must be ts */
    char again[400], num[32];
    int m = snprintf(again, sizeof again, "user: %s\npwd:  %s\nts:   ", user, pass);
    if (m < 0 || (size_t)m >= n || memcmp(again, d, (size_t)m) != 0 || n - (size_t)m > 20)
        abort();
    memcpy(num, d + m, n - (size_t)m);
    num[n - (size_t)m] = 0;
    if (strtoll(num, NULL, 10) != ts)
        abort();
}

static void check_encrypted(const uint8_t *d, size_t n, enum crypto_padding pad)
{
    unsigned char ct[AUTH_KEY_BYTES_MAX];
    char tok[AUTH_TOKEN_MAX + 1];
    size_t max = crypto_key_bytes(key) - (pad == CRYPTO_OAEP_SHA1 ? 42 : 11);
    if (n > max)
        n = max;
    int cl = crypto_rsa_encrypt(key, pad, d, n, ct, sizeof ct);
    if (cl <= 0 || crypto_b64_encode(ct, (size_t)cl, tok, sizeof tok, NULL) != 0)
        abort();
    char user[AUTH_USER_MAX + 1], pass[AUTH_PASS_MAX + 1];
    int64_t ts;
    int parses = auth_plaintext_parse((const char *)d, n, user, pass, &ts) == 0;
    struct auth_result r;
    auth_token_check(key, &users, tok, strlen(tok), 0, 10, NULL, &r);
    if (parses != (r.status != AUTH_BAD_TOKEN))
        abort();
    if (parses && strcmp(user, "alice") == 0 && strcmp(pass, "s3cret") == 0 &&
        (ts >= -10 && ts <= 10) != (r.status == AUTH_OK))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    enum crypto_padding pad = (data[0] & 4) ? CRYPTO_OAEP_SHA1 : CRYPTO_PKCS1_V15;
    const uint8_t *d = data + 1;
    size_t n = size - 1;
    struct auth_result r;
    switch (data[0] & 3) {
    case 0:
        if (data[0] & 8) {
            static struct test_params p;
            static struct auth_replay replay;
            const char *why = NULL;
            if (params_decode((const char *)d, n, &p, &why) != 0)
                break;
            size_t tl = strlen(p.authtoken);
            if (tl >= sizeof p.authtoken)
                abort();
            auth_token_check(key, &users, p.authtoken, tl, 0, 10, &replay, &r);
            if (r.status == AUTH_OK && tl == 0)
                abort();
            break;
        }
        auth_token_check(key, &users, (const char *)d, n, 0, 10, NULL, &r);
        if (r.status == AUTH_OK && n == 0)
            abort();
        break;
    case 1:
        check_users(d, n);
        break;
    case 2:
        check_plaintext(d, n);
        break;
    case 3:
        check_encrypted(d, n, pad);
        break;
    }
    return 0;
}
