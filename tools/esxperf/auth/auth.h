/* iperf3-compatible RSA authentication (the "authtoken" parameter).
 *
 * Client: auth_password_get() + crypto_key_load_public() + auth_token_make(); put
 * the token in the params JSON as "authtoken".
 * Server: auth_key_load_private() once at start, auth_users_load() for each test
 * (iperf3 rereads the users file per test, so edits apply without a restart), then
 * auth_token_check(). On anything but AUTH_OK, answer as iperf3 3.12 does:
 * SERVER_ERROR then one big-endian int32 142 (IEAUTHTEST), close, go on serving.
 *
 * Token plaintext, exactly as iperf3 builds it:
 *   "user: %s\npwd:  %s\nts:   %" PRId64        (ts = Unix seconds)
 * RSA-encrypted with the server's public key (PKCS#1 v1.5, or OAEP SHA-1/MGF1-SHA1
 * with empty label), then base64 without newlines. Users file lines:
 *   username,<lowercase hex sha256 of "{username}password">
 * Nothing here keeps global state; keys and passwords are wiped after use. */
#ifndef ESXPERF_AUTH_H
#define ESXPERF_AUTH_H
#include <stddef.h>
#include <stdint.h>

#include "crypto.h"

enum {
    AUTH_USER_MAX = 128,          /* bytes of a user name */
    AUTH_PASS_MAX = 128,          /* bytes of a password */
    AUTH_KEY_BYTES_MAX = 1024,    /* RSA modulus up to 8192 bits (mbedtls limit) */
    AUTH_TOKEN_MAX = 1368,        /* base64 chars of a 1024-byte ciphertext */
    AUTH_USERS_FILE_MAX = 1 << 20, /* users file size */
    AUTH_USERS_LINE_MAX = 1023,   /* one users-file line (iperf3 reads 1023 + NUL) */
    AUTH_USERS_MAX = 4096,        /* entries in the users file */
    AUTH_SKEW_DEFAULT = 10,       /* --time-skew-threshold default, seconds */
    AUTH_SKEW_MAX = 86400 * 365,  /* sanity bound for the option parser */
};

/* the option that lets a group/world-readable private key file through */
#define AUTH_KEY_PERM_OVERRIDE "--allow-readable-key"

/* ---- client */

/* The password: IPERF3_PASSWORD if set, else a "Password: " prompt on /dev/tty with
 * echo off (the prompt goes to the terminal, never to stdout). A line longer than
 * outcap - 1 (at most AUTH_PASS_MAX) is an error. Returns 0, or -1 with err. */
int auth_password_get(char *out, size_t outcap, char *err, size_t errlen);
/* The prompt part alone, on an open terminal fd (for tests with a pty). */
int auth_password_prompt(int ttyfd, char *out, size_t outcap, char *err, size_t errlen);

/* Build the token for user/password at time now (Unix seconds) into out
 * (outcap >= AUTH_TOKEN_MAX + 1 is always enough). user and password must be
 * 1..AUTH_*_MAX bytes with no whitespace or control characters (iperf3's server
 * reads them with sscanf %s, so they could never match). Returns 0, or -1 with err. */
int auth_token_make(struct crypto_key *pub, enum crypto_padding pad, const char *user,
                    const char *password, int64_t now, char *out, size_t outcap,
                    char *err, size_t errlen);

/* ---- server */

/* Load the server's private key from path, refusing a file that is not a regular
 * file or that group or others may access (mode & 077), unless allow_readable.
 * The message names the file and the fix (chmod 600). Returns the key or NULL. */
struct crypto_key *auth_key_load_private(const char *path, int allow_readable,
                                         char *err, size_t errlen);

struct auth_user {
    char user[AUTH_USER_MAX + 1];   /* zero-padded: compared in constant time */
    char hash[65];                  /* 64 lowercase hex digits + NUL */
};

struct auth_users {
    struct auth_user *v;
    size_t n;
    size_t malformed;               /* lines with a comma that were not user,hash */
    size_t first_bad_line;          /* 1-based line number of the first of them */
};

/* Parse users-file text. '#' lines, empty lines and lines without a comma are
 * skipped as iperf3 does; a line ends at the first '\n' or '\r'. A line with a comma
 * must be user,<64 lowercase hex>[,anything] with a user of 1..AUTH_USER_MAX
 * non-space printable bytes; other such lines (and lines over AUTH_USERS_LINE_MAX)
 * are counted in malformed and never match. Returns 0, or -1 with err when the text
 * is over AUTH_USERS_FILE_MAX or has more than AUTH_USERS_MAX entries. */
int auth_users_parse(const char *text, size_t len, struct auth_users *out,
                     char *err, size_t errlen);
/* read (bounded) and parse a users file */
int auth_users_load(const char *path, struct auth_users *out, char *err, size_t errlen);
void auth_users_free(struct auth_users *u);

enum auth_status {
    AUTH_OK = 0,
    AUTH_NO_TOKEN,        /* the server wants a token, the client sent none */
    AUTH_BAD_TOKEN,       /* not base64, wrong size, wrong key, bad text (res.bad says) */
    AUTH_UNKNOWN_USER,
    AUTH_WRONG_PASSWORD,
    AUTH_EXPIRED,         /* |now - ts| > skew (right credentials, old token) */
    AUTH_REPLAYED,        /* right credentials, but this very token was used before */
};
/* "ok", "no token", "bad token", "unknown user", "wrong password", "expired",
 * "replayed" */
const char *auth_status_text(enum auth_status s);

/* what was wrong with an AUTH_BAD_TOKEN, for the server's log only (the client is
 * told nothing more than iperf3 3.12 tells it) */
enum auth_bad {
    AUTH_BAD_ENCODING,    /* not base64, or not one RSA block of the key's size */
    AUTH_BAD_KEY,         /* decrypts with neither padding: another key, or garbage */
    AUTH_BAD_CHARACTER,   /* decrypts; a space or control byte in the user or password */
    AUTH_BAD_TEXT,        /* decrypts, but not to the user/pwd/ts text */
};
const char *auth_bad_text(enum auth_bad b);

struct auth_result {
    enum auth_status status;
    enum auth_bad bad;              /* with AUTH_BAD_TOKEN: why */
    char user[AUTH_USER_MAX + 1];   /* for the log: printable ASCII ('?' for others);
                                       "" when the token did not decrypt and parse */
    int64_t ts;                     /* the token's timestamp, 0 if unknown */
};

/* Tokens accepted recently, so that a token seen on the wire cannot be replayed
 * while its timestamp is still inside the skew window (iperf3 has no such check;
 * honest clients never send the same token twice, RSA padding is random).
 * Zero-initialize; owned by the server loop. If more than AUTH_REPLAY_SLOTS tokens
 * are accepted within one window the oldest are forgotten. */
enum { AUTH_REPLAY_SLOTS = 256 };
struct auth_replay {
    unsigned char digest[AUTH_REPLAY_SLOTS][32];   /* SHA-256 of the ciphertext */
    int64_t until[AUTH_REPLAY_SLOTS];              /* ts + skew: useless after */
    size_t next;
};

/* Check an authtoken (token_len bytes, NULL or 0 = missing) against users at time
 * now with the allowed skew (seconds, >= 0; iperf3 refuses |now - ts| > skew).
 * With replay (NULL = no replay check) an accepted token is remembered and the same
 * token again is AUTH_REPLAYED. Both RSA paddings are tried, OAEP then PKCS#1
 * v1.5, so one server serves iperf3 3.12 and 3.22 clients alike. The work after
 * decryption is the same whether a padding was valid or not (no padding oracle),
 * and the user list is scanned in
 * full with constant-time comparisons. Returns 0 when res->status is AUTH_OK. */
int auth_token_check(struct crypto_key *priv, const struct auth_users *users,
                     const char *token, size_t token_len, int64_t now, int64_t skew,
                     struct auth_replay *replay, struct auth_result *res);

/* ---- parts, exposed for tests and fuzzing */

/* Parse a decrypted plaintext of exactly len bytes in iperf3's format (strictly: the
 * fixed separators, 1..max bytes of non-space printable per field, ts as optional
 * '-' and 1..19 digits, nothing after). Returns 0 or -1. */
int auth_plaintext_parse(const char *pt, size_t len, char user[AUTH_USER_MAX + 1],
                         char pass[AUTH_PASS_MAX + 1], int64_t *ts);
/* lowercase hex sha256 of "{user}password", as in the users file */
void auth_user_hash(const char *user, const char *password, char out[65]);

#endif
