/* Read-only disk access: open O_RDONLY, size and sector-size hint, aligned reads. */
#include "disk.h"
#include "fail.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
/* from <linux/fs.h>, which musl-gcc does not ship */
#ifndef BLKGETSIZE64
#define BLKGETSIZE64 _IOR(0x12, 114, size_t)
#endif
#ifndef BLKSSZGET
#define BLKSSZGET _IO(0x12, 104)
#endif

/* DISK_BOUNCE bytes at a DISK_ALIGN boundary inside one plain allocation
 * (aligned_alloc would pull more of the allocator into the static binary) */
static void bounce_alloc(struct disk *d)
{
    d->bounce_mem = xmalloc(DISK_BOUNCE + DISK_ALIGN);
    uintptr_t a = ((uintptr_t)d->bounce_mem + DISK_ALIGN - 1) & ~(uintptr_t)(DISK_ALIGN - 1);
    d->bounce = (unsigned char *)a;
}

/* what a path is when it is neither a regular file nor a block device; NULL when it
 * is one of those two (the only things esxpart reads) */
static const char *not_a_disk(mode_t mode)
{
    if (S_ISREG(mode) || S_ISBLK(mode))
        return NULL;
    if (S_ISDIR(mode))
        return "is a directory";
    if (S_ISFIFO(mode))
        return "is a FIFO (named pipe)";
    if (S_ISSOCK(mode))
        return "is a socket";
    if (S_ISCHR(mode))
        return "is a character device";
    return "is not a regular file or a block device";
}

/* Opened with O_NONBLOCK so that nothing can block in open() (a FIFO with no writer
 * would wait forever); the type is checked on the open descriptor, then blocking
 * reads are restored for the disk or image it turned out to be. */
int disk_open(struct disk *d, const char *path, char *why, size_t whylen)
{
    struct stat st;
    const char *kind;
    memset(d, 0, sizeof *d);
    d->fd = -1;
    d->ends_at = -1;
    d->path = path;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        /* a socket cannot be opened at all (ENXIO): say what it is instead */
        if (e == ENXIO && stat(path, &st) == 0 && (kind = not_a_disk(st.st_mode))) {
            snprintf(why, whylen, "%s (name a disk or an image file)", kind);
            return -1;
        }
        /* root is refused too (a read-only or locked device): then only the
         * permissions are worth checking */
        snprintf(why, whylen, "cannot open: %s%s", errtext(e),
                 e != EACCES && e != EPERM ? ""
                 : geteuid() != 0 ? " (run as root, or check its permissions)"
                 : " (check its permissions and whether something holds it)");
        return -1;
    }
    if (fstat(fd, &st) < 0) {
        snprintf(why, whylen, "cannot stat: %s", errtext(errno));
        close(fd);
        return -1;
    }
    if ((kind = not_a_disk(st.st_mode))) {
        snprintf(why, whylen, "%s (name a disk or an image file)", kind);
        close(fd);
        return -1;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
        snprintf(why, whylen, "cannot clear O_NONBLOCK: %s", errtext(errno));
        close(fd);
        return -1;
    }
    uint64_t size = 0;
    if (S_ISREG(st.st_mode)) {
        size = (uint64_t)st.st_size;
    } else {   /* a block device */
        if (ioctl(fd, BLKGETSIZE64, &size) < 0)
            size = 0;
        int ssz = 0;
        if (ioctl(fd, BLKSSZGET, &ssz) == 0 && (ssz == 512 || ssz == 4096))
            d->sector_hint = (unsigned)ssz;
        if (size == 0) {
            off_t end = lseek(fd, 0, SEEK_END);
            if (end > 0)
                size = (uint64_t)end;
        }
    }
    if (size == 0) {
        snprintf(why, whylen, "is empty (0 bytes)");
        close(fd);
        return -1;
    }
    d->fd = fd;
    d->size = size;
    bounce_alloc(d);
    return 0;
}

void disk_from_callback(struct disk *d, const char *name, uint64_t size,
                        disk_read_fn fn, void *ctx)
{
    memset(d, 0, sizeof *d);
    d->fd = -1;
    d->ends_at = -1;
    d->path = name;
    d->size = size;
    d->read = fn;
    d->ctx = ctx;
    bounce_alloc(d);
}

void disk_close(struct disk *d)
{
    if (d->fd >= 0)
        close(d->fd);
    free(d->bounce_mem);
    d->fd = -1;
    d->bounce = d->bounce_mem = NULL;
}

/* one aligned read of len bytes (multiple of DISK_ALIGN) at aligned off into the
 * bounce buffer; returns bytes available (may be short at the end of a file) */
static int64_t raw_read(struct disk *d, uint64_t off, size_t len)
{
    if (d->fd < 0) {
        /* callback sources get exactly what lies inside the disk */
        size_t n = len;
        if (off + n > d->size)
            n = (size_t)(d->size - off);
        if (d->read(d->ctx, off, d->bounce, n) < 0)
            return -1;
        return (int64_t)n;
    }
    size_t got = 0;
    while (got < len) {
        ssize_t r = pread(d->fd, d->bounce + got, len - got, (off_t)(off + got));
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        if (r == 0)
            break;
        got += (size_t)r;
    }
    return (int64_t)got;
}

int disk_read(struct disk *d, uint64_t off, void *buf, size_t len)
{
    unsigned char *out = buf;
    if (off > d->size || len > d->size - off) {
        errno = ERANGE;
        return -1;
    }
    while (len > 0) {
        uint64_t aoff = off & ~(uint64_t)(DISK_ALIGN - 1);
        size_t skip = (size_t)(off - aoff);
        size_t want = skip + len;
        if (want > DISK_BOUNCE)
            want = DISK_BOUNCE;
        size_t alen = (want + DISK_ALIGN - 1) & ~(size_t)(DISK_ALIGN - 1);
        int64_t got = raw_read(d, aoff, alen);
        if (got < 0)
            return -1;
        if ((uint64_t)got <= skip) {
            d->ends_at = (int64_t)(aoff + (uint64_t)got);
            errno = EIO;
            return -1;
        }
        size_t n = (size_t)got - skip;
        if (n > len)
            n = len;
        if (n > want - skip)
            n = want - skip;
        memcpy(out, d->bounce + skip, n);
        out += n;
        off += n;
        len -= n;
        if (len > 0 && (size_t)got < alen) {
            d->ends_at = (int64_t)(aoff + (uint64_t)got);
            errno = EIO;   /* short read inside the reported size */
            return -1;
        }
    }
    return 0;
}

int disk_mem_read(void *ctx, uint64_t off, void *buf, size_t len)
{
    const struct disk_mem *m = ctx;
    if (off > m->len || len > m->len - off) {
        errno = EIO;
        return -1;
    }
    memcpy(buf, m->data + off, len);
    return 0;
}
