/* The crypto the toolkit needs, over mbedtls 2.28 (RSA, PEM keys, SHA-256, base64).
 * Key material is wiped from memory when freed. */
#ifndef ESXDIAG_CRYPTO_H
#define ESXDIAG_CRYPTO_H
#include <stddef.h>
#include <stdint.h>

enum crypto_padding { CRYPTO_PKCS1_V15 = 0, CRYPTO_OAEP_SHA1 = 1 };

/* lowercase hex SHA-256 of data into out[65] */
void crypto_sha256_hex(const void *data, size_t len, char out[65]);
void crypto_sha256(const void *data, size_t len, unsigned char out[32]);

/* base64 (standard alphabet, padding, no newlines). Return 0 or -1 when out is too
 * small (encode) or the input is not valid base64 (decode). *olen gets the length. */
int crypto_b64_encode(const void *in, size_t inlen, char *out, size_t outcap, size_t *olen);
int crypto_b64_decode(const char *in, size_t inlen, unsigned char *out, size_t outcap,
                      size_t *olen);

/* Open a small file of secrets (key, users list) for reading, refusing at once
 * anything that is not a regular file (a FIFO, socket, device or directory would
 * block open() or read() forever or read nonsense): stat first, open with
 * O_NONBLOCK, check the opened file again. Returns the fd (blocking), or -1 with
 * "cannot open WHAT PATH: why" or "WHAT PATH is a FIFO, not a regular file ..." */
int crypto_file_open(const char *path, const char *what, char *err, size_t errlen);

/* Opaque key. Public keys load from a PEM (or DER) file or buffer, as
 * SubjectPublicKeyInfo or PKCS#1; private keys parse from a buffer, PKCS#1 or
 * PKCS#8, unencrypted (the server reads its key file with its own checks:
 * esxperf's auth_key_load_private). */
struct crypto_key;
struct crypto_key *crypto_key_load_public(const char *path, char *err, size_t errlen);
struct crypto_key *crypto_key_parse_public(const unsigned char *pem, size_t len,
                                           char *err, size_t errlen);
struct crypto_key *crypto_key_parse_private(const unsigned char *pem, size_t len,
                                            char *err, size_t errlen);
size_t crypto_key_bytes(const struct crypto_key *k);   /* modulus size */
void crypto_key_free(struct crypto_key *k);

/* RSA encrypt with the public key; out must hold crypto_key_bytes(k). Returns the
 * ciphertext length or -1. */
int crypto_rsa_encrypt(struct crypto_key *k, enum crypto_padding pad,
                       const void *in, size_t inlen, unsigned char *out, size_t outcap);
/* RSA decrypt with the private key. Returns the plaintext length or -1; every
 * failure looks the same. */
int crypto_rsa_decrypt(struct crypto_key *k, enum crypto_padding pad,
                       const unsigned char *in, size_t inlen, void *out, size_t outcap);

/* constant-time comparison of n bytes: 0 when equal */
int crypto_memcmp_ct(const void *a, const void *b, size_t n);
/* memset that the compiler does not remove */
void crypto_wipe(void *p, size_t n);

#endif
