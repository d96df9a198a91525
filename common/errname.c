/* errno values by their symbolic names: the rule is in errname.h. */
#include "errname.h"

#include <errno.h>
#include <stdio.h>

#define E(x) { x, #x }
static const struct { int err; const char *name; } errno_names[] = {
    E(EPERM), E(ENOENT), E(EINTR), E(EIO), E(EBADF), E(EAGAIN), E(ENOMEM), E(EACCES),
    E(EFAULT), E(EBUSY), E(EEXIST), E(ENODEV), E(EINVAL), E(ENFILE), E(EMFILE),
    E(ENOTTY), E(ENOSPC), E(EROFS), E(EPIPE), E(ERANGE), E(ENOSYS), E(ENOTSOCK),
    E(EDESTADDRREQ), E(EMSGSIZE), E(EPROTOTYPE), E(ENOPROTOOPT), E(EPROTONOSUPPORT),
    E(ESOCKTNOSUPPORT), E(EOPNOTSUPP), E(EPFNOSUPPORT), E(EAFNOSUPPORT), E(EADDRINUSE),
    E(EADDRNOTAVAIL), E(ENETDOWN), E(ENETUNREACH), E(ECONNABORTED), E(ECONNRESET),
    E(ENOBUFS), E(EISCONN), E(ENOTCONN), E(ETIMEDOUT), E(ECONNREFUSED), E(EHOSTUNREACH),
    E(EINPROGRESS), E(ENXIO), E(E2BIG), E(ENOEXEC), E(ECHILD), E(ESRCH),
};
#undef E

const char *errno_name(int err, char *buf, size_t len)
{
    for (size_t i = 0; i < sizeof errno_names / sizeof errno_names[0]; i++)
        if (errno_names[i].err == err)
            return errno_names[i].name;
    snprintf(buf, len, "errno %d", err);
    return buf;
}
