/* Read-only access to a disk or an image: a file or block device opened O_RDONLY,
 * or any byte source behind a read callback (unit tests, the fuzz target).
 * Every read goes through an aligned bounce buffer at 4096-byte aligned offsets
 * and lengths, so block devices that insist on alignment are served too. */
#ifndef ESXPART_DISK_H
#define ESXPART_DISK_H
#include <stddef.h>
#include <stdint.h>

#define DISK_ALIGN 4096u
#define DISK_BOUNCE (64u * 1024u)

/* read exactly len bytes at off; 0 on success, -1 with errno set (EIO for short) */
typedef int (*disk_read_fn)(void *ctx, uint64_t off, void *buf, size_t len);

struct disk {
    const char *path;
    uint64_t size;          /* bytes */
    unsigned sector_hint;   /* BLKSSZGET, 0 when unknown */
    int64_t ends_at;        /* -1; else where the data ran out inside size (a short read) */
    int fd;                 /* -1 for a callback source */
    disk_read_fn read;
    void *ctx;
    unsigned char *bounce;  /* DISK_BOUNCE bytes, DISK_ALIGN aligned */
    void *bounce_mem;       /* the allocation bounce points into */
};

/* Open path read-only and find its size. Only a regular file or a block device is
 * read; anything else (directory, FIFO, socket, character device) is refused at
 * once, and open() never blocks. On failure returns -1 and writes a one-line
 * reason ("is a FIFO (named pipe) ...", "cannot open: Permission denied ...",
 * "is empty (0 bytes)") to why. */
int disk_open(struct disk *d, const char *path, char *why, size_t whylen);
/* a disk of size bytes whose contents come from fn(ctx, ...) */
void disk_from_callback(struct disk *d, const char *name, uint64_t size,
                        disk_read_fn fn, void *ctx);
void disk_close(struct disk *d);

/* read len bytes at byte offset off (any alignment); -1 with errno when the range
 * is outside the disk or the read fails or comes up short (EIO, and ends_at is set
 * to the offset where the data stopped) */
int disk_read(struct disk *d, uint64_t off, void *buf, size_t len);

/* a memory image as a callback source: ctx is a struct disk_mem */
struct disk_mem { const unsigned char *data; size_t len; };
int disk_mem_read(void *ctx, uint64_t off, void *buf, size_t len);

#endif
