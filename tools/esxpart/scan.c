/* Disk discovery when no disk is named. */
#include "scan.h"
#include "fail.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int scan_esxi_whole_disk(const char *name)
{
    if (name[0] == '.' || strncmp(name, "vml.", 4) == 0)
        return 0;
    return strchr(name, ':') == NULL;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
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
    char path[512], line[64];
    unsigned long long v = 0;
    snprintf(path, sizeof path, "%s/sys/block/%s/size", root, name);
    FILE *f = fopen(path, "re");
    if (!f)
        return 0;
    if (fgets(line, sizeof line, f))
        v = strtoull(line, NULL, 10);
    fclose(f);
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
    qsort(l->paths, l->n, sizeof *l->paths, by_name);
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
