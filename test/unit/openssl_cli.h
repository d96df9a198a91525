/* For unit tests that check our crypto against the openssl command: a temporary
 * directory, running shell commands in it, and reading/writing its files.
 * Header-only (static inline) so each test that includes it stays one file. */
#ifndef ESXDIAG_TEST_OPENSSL_CLI_H
#define ESXDIAG_TEST_OPENSSL_CLI_H
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

struct tdir {
    char path[64];
};

/* mkdtemp under /tmp; returns 0 or -1 */
static inline int tdir_make(struct tdir *d, const char *tag)
{
    snprintf(d->path, sizeof d->path, "/tmp/esxdiag-%s-XXXXXX", tag);
    return mkdtemp(d->path) ? 0 : -1;
}

static inline void tdir_remove(struct tdir *d)
{
    char cmd[128];
    if (!d->path[0] || strncmp(d->path, "/tmp/esxdiag-", 13) != 0)
        return;
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", d->path);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", d->path);
    d->path[0] = 0;
}

/* "<dir>/<name>" into a static-sized caller buffer */
static inline const char *tdir_file(const struct tdir *d, const char *name, char *buf,
                                    size_t len)
{
    snprintf(buf, len, "%s/%s", d->path, name);
    return buf;
}

/* run a shell command in dir (stdout and stderr to dir/cmd.log); exit status */
static inline int tdir_sh(const struct tdir *d, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static inline int tdir_sh(const struct tdir *d, const char *fmt, ...)
{
    char inner[2048], cmd[2300];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(inner, sizeof inner, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof inner)
        return -1;
    snprintf(cmd, sizeof cmd, "cd '%s' && { %s ; } >>cmd.log 2>&1", d->path, inner);
    int rc = system(cmd);
    return rc == -1 ? -1 : WEXITSTATUS(rc);
}

/* whole file into a malloc'd NUL-terminated buffer (NULL if missing); *len bytes */
static inline char *tdir_read(const struct tdir *d, const char *name, size_t *len)
{
    char p[256];
    FILE *f = fopen(tdir_file(d, name, p, sizeof p), "rb");
    if (!f)
        return NULL;
    char *b = malloc(1 << 20);
    size_t n = b ? fread(b, 1, (1 << 20) - 1, f) : 0;
    fclose(f);
    if (b)
        b[n] = 0;
    if (len)
        *len = n;
    return b;
}

static inline int tdir_write(const struct tdir *d, const char *name, const void *data,
                             size_t len)
{
    char p[256];
    FILE *f = fopen(tdir_file(d, name, p, sizeof p), "wb");
    if (!f)
        return -1;
    size_t n = fwrite(data, 1, len, f);
    return (fclose(f) == 0 && n == len) ? 0 : -1;
}

#endif
