/* Error reporting and x-wrappers that exit with a clear message.
 * Every message has the form "tool: what failed: why (what to do)" on stderr.
 * Each program defines `const char tool_name[] = "esxpart";` in its main.c. */
#ifndef ESXDIAG_FAIL_H
#define ESXDIAG_FAIL_H
#include <stddef.h>
#include <stdarg.h>

extern const char tool_name[];

/* documented exit codes shared by every tool */
enum { EXIT_OKAY = 0, EXIT_CHECK = 1, EXIT_USAGE = 2 };

/* print "tool: <fmt>\n" to stderr */
void warnmsg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* print "tool: <fmt>\n" and exit(code) */
_Noreturn void die(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* usage error: "tool: <fmt> (try 'tool --help')" and exit 2 */
_Noreturn void die_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* a reason into the caller's buffer (nothing when buf is NULL or len 0), for
 * functions that say why they failed: returns -1, so `return why_fmt(...);` */
int why_fmt(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* allocation that never returns NULL; refuses sizes above 1 GiB as a bug guard */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);

/* our own words for errno values whose musl text differs from what admins know
 * (EMSGSIZE -> "Message too long", as glibc and vmkping print it) */
const char *errtext(int err);
/* the name of a stop signal: "SIGINT", "SIGTERM" or "SIGHUP" ("" for another) */
const char *signal_name(int sig);

#endif
