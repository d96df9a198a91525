/* -F NAME, both roles: only a regular file is read or written. Checked before
 * anything connects or listens (file_opt_check), and again at each open
 * (file_opt_open), which never blocks: a FIFO, device or socket swapped in later
 * is refused at once instead of holding the control loop in open() until some
 * other process opens its other end. */
#include "file_opt.h"
#include "fail.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *file_kind(mode_t m)
{
    return S_ISFIFO(m) ? "a FIFO (named pipe)" : S_ISSOCK(m) ? "a socket"
         : S_ISCHR(m) ? "a character device" : S_ISBLK(m) ? "a block device"
         : S_ISDIR(m) ? "a directory" : "not a regular file";
}

static int not_regular(const char *path, mode_t m, char *why, size_t len)
{
    return why_fmt(why, len, "-F %s is %s, not a regular file (-F sends or writes a regular "
                   "file: give its path)", path, file_kind(m));
}

int file_opt_check(const char *path, int sender, char *why, size_t len)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        if (!sender && errno == ENOENT)
            return 0;                /* the receiver creates it */
        return why_fmt(why, len, "cannot open -F file %s%s: %s", path,
                       sender ? " to send" : "", errtext(errno));
    }
    if (!S_ISREG(st.st_mode))
        return not_regular(path, st.st_mode, why, len);
    if (!sender)
        return 0;
    int fd = file_opt_open(path, 1);
    if (fd < 0)
        return why_fmt(why, len, "cannot open -F file %s to send: %s", path,
                       errno == EINVAL ? "it is not a regular file" : errtext(errno));
    close(fd);
    return 0;
}

int file_opt_open(const char *path, int sender)
{
    /* O_NONBLOCK: a FIFO opens at once (or, to write, fails with ENXIO without a
     * reader) and fstat refuses it; O_TRUNC waits until the file is known regular */
    int fd = sender ? open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
                    : open(path, O_WRONLY | O_CREAT | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0600);
    if (fd < 0) {
        if (errno == ENXIO)
            errno = EINVAL;
        return -1;
    }
    struct stat st;
    int e = 0;
    if (fstat(fd, &st) != 0)
        e = errno;
    else if (!S_ISREG(st.st_mode))
        e = EINVAL;
    else if (!sender && ftruncate(fd, 0) != 0)
        e = errno;
    if (e) {
        close(fd);
        errno = e;
        return -1;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    return fd;
}
