/* Which disks to look at when none is named: ESXi's /vmfs/devices/disks whole
 * disks, else Linux /sys/block whole disks with a non-zero size. */
#ifndef ESXPART_SCAN_H
#define ESXPART_SCAN_H
#include <stddef.h>

#define SCAN_MAX_DISKS 512

struct scan_list {
    char **paths;
    size_t n;
};

/* root is "/" normally (tests may point it elsewhere); returns the number found */
size_t scan_disks(const char *root, struct scan_list *l);
void scan_free(struct scan_list *l);
/* ESXi naming: "naa.x:3" is a partition, "vml.*" are links */
int scan_esxi_whole_disk(const char *name);

#endif
