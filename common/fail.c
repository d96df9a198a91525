/* Error reporting and allocation wrappers: the main flow stays free of error plumbing. */
#include "fail.h"
#include "bytes.h"
#include "escape.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ALLOC_LIMIT ((size_t)1 << 30)

/* one message, one line: what the input brings into a message (a tab or newline in
 * an option value, an escape sequence or an invisible mark in a name, bytes that are
 * not UTF-8) is written as \xNN (escape.h), so it can neither split the line, nor
 * drive the terminal, nor hide */
static void put_line(const char *fmt, va_list ap, const char *tail)
{
    char buf[2048], shown[4 * sizeof buf];
    vsnprintf(buf, sizeof buf, fmt, ap);
    esc_text(buf, shown, sizeof shown);
    fflush(stdout);
    fprintf(stderr, "%s: %s%s\n", tool_name, shown, tail);
}

static void vmsg(const char *fmt, va_list ap)
{
    put_line(fmt, ap, "");
}

void warnmsg(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmsg(fmt, ap);
    va_end(ap);
}

void die(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmsg(fmt, ap);
    va_end(ap);
    exit(code);
}

void die_usage(const char *fmt, ...)
{
    char tail[64];
    va_list ap;
    snprintf(tail, sizeof tail, " (try '%s --help')", tool_name);
    va_start(ap, fmt);
    put_line(fmt, ap, tail);
    va_end(ap);
    exit(EXIT_USAGE);
}

int why_fmt(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;
    if (!buf || !len)
        return -1;
    va_start(ap, fmt);
    vsnprintf(buf, len, fmt, ap);
    va_end(ap);
    return -1;
}

static void *checked(void *p, size_t n)
{
    if (!p && n)
        die(EXIT_USAGE, "out of memory allocating %zu bytes", n);
    return p;
}

void *xmalloc(size_t n)
{
    if (n > ALLOC_LIMIT)
        die(EXIT_USAGE, "refusing to allocate %zu bytes (internal limit 1 GiB)", n);
    return checked(malloc(n ? n : 1), n);
}

void *xcalloc(size_t n, size_t size)
{
    if (size && n > ALLOC_LIMIT / size)
        die(EXIT_USAGE, "refusing to allocate %zu x %zu bytes (internal limit 1 GiB)", n, size);
    return checked(calloc(n ? n : 1, size ? size : 1), n * size);
}

void *xrealloc(void *p, size_t n)
{
    if (n > ALLOC_LIMIT)
        die(EXIT_USAGE, "refusing to allocate %zu bytes (internal limit 1 GiB)", n);
    return checked(realloc(p, n ? n : 1), n);
}

char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(xmalloc(n), s, n);
}

const char *errtext(int err)
{
    /* where musl's words differ from the ones administrators see on ESXi and glibc */
    static const struct { int err; const char *text; } own[] = {
        { EMSGSIZE, "Message too long" },
        { ENOSYS, "Function not implemented" },
        { EHOSTUNREACH, "No route to host" },
        { ENETUNREACH, "Network is unreachable" },
        { ECONNREFUSED, "Connection refused" },
        { ETIMEDOUT, "Connection timed out" },
        { EACCES, "Permission denied" },
        { EPERM, "Operation not permitted" },
    };
    for (size_t i = 0; i < ARRAY_SIZE(own); i++)
        if (own[i].err == err)
            return own[i].text;
    return strerror(err);
}

const char *signal_name(int sig)
{
    switch (sig) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    default: return "";
    }
}
