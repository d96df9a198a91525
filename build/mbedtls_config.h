/* esxdiag's minimal mbedtls 2.28 configuration: only what common/crypto.c uses
 * (RSA PKCS#1 v1.5 and OAEP-SHA1, PEM/DER key parsing, SHA-256, SHA-1, base64,
 * entropy + CTR-DRBG). Everything else is left out to keep the binaries small. */
#ifndef ESXDIAG_MBEDTLS_CONFIG_H
#define ESXDIAG_MBEDTLS_CONFIG_H

#define MBEDTLS_HAVE_ASM
#define MBEDTLS_NO_UDBL_DIVISION      /* no __int128 division helpers needed */

/* RSA and its padding modes */
#define MBEDTLS_BIGNUM_C
#define MBEDTLS_RSA_C
#define MBEDTLS_PKCS1_V15
#define MBEDTLS_PKCS1_V21
#define MBEDTLS_OID_C
#define MBEDTLS_ASN1_PARSE_C

/* keys from PEM files: SubjectPublicKeyInfo, PKCS#1 and PKCS#8 (unencrypted) */
#define MBEDTLS_PK_C
#define MBEDTLS_PK_PARSE_C
#define MBEDTLS_PEM_PARSE_C
#define MBEDTLS_BASE64_C

/* hashes */
#define MBEDTLS_MD_C
#define MBEDTLS_SHA1_C
#define MBEDTLS_SHA256_C

/* randomness for padding: getrandom() where present, /dev/urandom on ENOSYS */
#define MBEDTLS_ENTROPY_C
#define MBEDTLS_ENTROPY_FORCE_SHA256
#define MBEDTLS_CTR_DRBG_C
#define MBEDTLS_AES_C
#define MBEDTLS_AES_ROM_TABLES

#define MBEDTLS_PLATFORM_C
#define MBEDTLS_ERROR_C
#define MBEDTLS_VERSION_C

#include "mbedtls/check_config.h"
#endif
