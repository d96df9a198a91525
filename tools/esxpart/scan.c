/* Disk discovery when no disk is named. */
#include "scan.h"
#include "fail.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int scan_esxi_whole_disk(const char *name)
{
    if (name[0] == '.' || strncmp(name, "vml.", 4) == 0)
        return 0;
    return strchr(name, ':') == NULL;
}

/* insertion sort by name (at most SCAN_MAX_DISKS; keeps qsort out of the binary) */
static void sort_names(char **v, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        char *x = v[i];
        size_t j = i;
        for (; j > 0 && strcmp(x, v[j - 1]) < 0; j--)
            v[j] = v[j - 1];
        v[j] = x;
    }
}

static void push(struct scan_list *l, const char *prefix, const char *name)
{
    if (l->n >= SCAN_MAX_DISKS)
        return;
    size_t n = strlen(prefix) + strlen(name) + 1;
    char *p = xmalloc(n);
    snprintf(p, n, "%s%s", prefix, name);
    for (char *q = p + strlen(prefix); *q; q++)
        if (*q == '!')
            *q = '/';   /* /sys/block/cciss!c0d0 is /dev/cciss/c0d0 */
    l->paths[l->n++] = p;
}

/* /sys/block/NAME/size in 512-byte units; 0 when unreadable */
static unsigned long long sys_size(const char *root, const char *name)
{
    char path[512], line[32];
    unsigned long long v = 0;
    snprintf(path, sizeof path, "%s/sys/block/%s/size", root, name);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, line, sizeof line - 1);
    close(fd);
    for (ssize_t i = 0; i < n && line[i] >= '0' && line[i] <= '9' && v < (1ull << 58); i++)
        v = v * 10 + (unsigned)(line[i] - '0');
    return v;
}

size_t scan_disks(const char *root, struct scan_list *l)
{
    char dir[512], prefix[512];
    l->paths = xcalloc(SCAN_MAX_DISKS, sizeof *l->paths);
    l->n = 0;
    snprintf(dir, sizeof dir, "%s/vmfs/devices/disks", root);
    DIR *d = opendir(dir);
    int esxi = d != NULL;
    if (!d) {
        snprintf(dir, sizeof dir, "%s/sys/block", root);
        d = opendir(dir);
    }
    if (!d)
        return 0;
    snprintf(prefix, sizeof prefix, esxi ? "%s/vmfs/devices/disks/" : "%s/dev/",
             strcmp(root, "/") == 0 ? "" : root);
    struct dirent *e;
    while ((e = readdir(d)) != NULL && l->n < SCAN_MAX_DISKS) {
        if (e->d_name[0] == '.')
            continue;
        if (esxi ? !scan_esxi_whole_disk(e->d_name) : sys_size(root, e->d_name) == 0)
            continue;
        push(l, prefix, e->d_name);
    }
    closedir(d);
    sort_names(l->paths, l->n);
    return l->n;
}

void scan_free(struct scan_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->paths[i]);
    free(l->paths);
    l->paths = NULL;
    l->n = 0;
}
