/* The egress link's speed (link_speed.h): the override, sysfs, or esxcli's chain
 * from a vmknic to its uplinks. */
#include "link_speed.h"
#include "netstack_enter.h"
#include "net.h"
#include "runcmd.h"

#include <dirent.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

/* the interface holding the socket's local address */
static void iface_of(int fd, char *name, size_t len)
{
    union sockaddr_any a;
    socklen_t al = sizeof a;
    name[0] = '\0';
    if (getsockname(fd, &a.sa, &al) < 0)
        return;
    struct ifaddrs *ifs, *i;
    if (getifaddrs(&ifs) != 0)
        return;
    char want[64], have[64];
    net_ntop(&a, want, sizeof want);
    if (!strncmp(want, "::ffff:", 7))
        memmove(want, want + 7, strlen(want + 7) + 1);
    for (i = ifs; i; i = i->ifa_next) {
        if (!i->ifa_addr || (i->ifa_addr->sa_family != AF_INET && i->ifa_addr->sa_family != AF_INET6))
            continue;
        union sockaddr_any b;
        memset(&b, 0, sizeof b);
        memcpy(&b, i->ifa_addr, i->ifa_addr->sa_family == AF_INET ? sizeof b.in4 : sizeof b.in6);
        net_ntop(&b, have, sizeof have);
        if (!strcmp(want, have)) {
            snprintf(name, len, "%s", i->ifa_name);
            break;
        }
    }
    freeifaddrs(ifs);
}

static double sysfs_speed(const char *iface)
{
    char path[96], buf[32];
    snprintf(path, sizeof path, "/sys/class/net/%s/speed", iface);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, sizeof buf - 1);   /* EINVAL for a link without a speed */
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    long v = strtol(buf, NULL, 10);
    return v > 0 ? (double)v : -1;            /* -1 (SPEED_UNKNOWN) too */
}

/* drivers of network devices that are themselves virtual: a VM's NIC reports a
 * speed the hypervisor made up (vmxnet3 and virtio_net say 10000 whatever the host
 * carries), so it is no bound */
static const char *const virtual_drivers[] = {
    "vmxnet3", "virtio_net", "hv_netvsc", "netvsc", "vif", "xen-netfront", "veth", "tun",
};

/* the driver of IF's device (/sys/class/net/IF/device/driver's last part); "" when IF
 * has no device: veth, tun, a bridge, bond, VLAN, macvlan, loopback */
static void driver_of(const char *iface, char *out, size_t len)
{
    char path[128], link[256];
    snprintf(path, sizeof path, "/sys/class/net/%s/device/driver", iface);
    ssize_t n = readlink(path, link, sizeof link - 1);
    out[0] = '\0';
    if (n <= 0)
        return;
    link[n] = '\0';
    const char *b = strrchr(link, '/');
    snprintf(out, len, "%s", b ? b + 1 : link);
}

/* 1 when IF, or a device below it (a VLAN's or macvlan's lower device, a bond's
 * slaves: /sys/class/net/IF/lower_*), is a physical NIC: a device with a driver that
 * is not virtual. depth bounds the walk down stacked devices. what names the first
 * virtual driver or device met, for the note. */
static int physical_below(const char *iface, int depth, char *what, size_t len)
{
    char drv[256];
    driver_of(iface, drv, sizeof drv);
    if (drv[0]) {
        for (size_t i = 0; i < sizeof virtual_drivers / sizeof virtual_drivers[0]; i++)
            if (!strcmp(drv, virtual_drivers[i])) {
                if (!what[0])
                    snprintf(what, len, "%s", virtual_drivers[i]);
                return 0;
            }
        return 1;
    }
    if (!what[0])
        snprintf(what, len, "no device of its own");
    char dir[96];
    snprintf(dir, sizeof dir, "/sys/class/net/%s", iface);
    DIR *d = depth > 0 ? opendir(dir) : NULL;
    if (!d)
        return 0;
    int phys = 0;
    struct dirent *de;
    while (!phys && (de = readdir(d)) != NULL)
        if (!strncmp(de->d_name, "lower_", 6) && strlen(de->d_name + 6) < 32)
            phys = physical_below(de->d_name + 6, depth - 1, what, len);
    closedir(d);
    return phys;
}

/* leading blanks dropped; "Key: value" -> value when the key matches */
static int kv(const char *line, const char *key, char *out, size_t len)
{
    while (*line == ' ' || *line == '\t')
        line++;
    size_t k = strlen(key);
    if (strncasecmp(line, key, k) || line[k] != ':')
        return 0;
    line += k + 1;
    while (*line == ' ' || *line == '\t')
        line++;
    size_t n = strcspn(line, "\r\n");
    while (n && (line[n - 1] == ' ' || line[n - 1] == '\t'))
        n--;
    snprintf(out, len, "%.*s", (int)n, line);
    return 1;
}

void esxcli_block_value(const char *text, const char *block, const char *key, char *out, size_t len)
{
    int in = 0;
    out[0] = '\0';
    for (const char *p = text; p && *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        if (n && p[0] != ' ' && p[0] != '\t')       /* a block's first line: its name alone */
            in = strlen(block) == n && !strncmp(p, block, n);
        else if (in && kv(p, key, out, len))
            return;
        p = nl ? nl + 1 : NULL;
    }
}

/* the whitespace-separated words of one table row */
static int words(const char *line, size_t n, char w[][40], int max)
{
    int k = 0;
    size_t i = 0;
    while (i < n && k < max) {
        while (i < n && (line[i] == ' ' || line[i] == '\t'))
            i++;
        size_t s = i;
        while (i < n && line[i] != ' ' && line[i] != '\t')
            i++;
        if (i > s)
            snprintf(w[k++], 40, "%.*s", (int)(i - s), line + s);
    }
    return k;
}

/* the row of a table whose first word is nic: its words */
static int table_row(const char *text, const char *nic, char w[][40], int max)
{
    for (const char *p = text; p && *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        int k = words(p, n, w, max);
        if (k > 0 && !strcmp(w[0], nic))
            return k;
        p = nl ? nl + 1 : NULL;
    }
    return 0;
}

double esxcli_nic_speed(const char *text, const char *nic)
{
    /* Name, PCI Device, Driver, Admin Status, Link Status, Speed, Duplex, ...: every
     * value one word, so Speed is the sixth */
    char w[8][40];
    if (table_row(text, nic, w, 8) < 7 || strcasecmp(w[4], "Up"))
        return -1;
    char *end;
    long v = strtol(w[5], &end, 10);
    return *end == '\0' && v > 0 ? (double)v : -1;
}

void esxcli_nic_tso(const char *text, const char *nic, char *out, size_t len)
{
    char w[2][40];
    out[0] = '\0';
    if (table_row(text, nic, w, 2) == 2)
        snprintf(out, len, "%s", w[1]);
}

/* one esxcli command's output (malloc'd), or NULL with note set */
static char *esxcli(const char *prog, const char *const *args, struct link_info *li)
{
    const char *argv[12] = { prog };
    size_t n = 1;
    if (li->esxcli_late)
        return NULL;
    for (; args[n - 1] && n < 11; n++)
        argv[n] = args[n - 1];
    argv[n] = NULL;
    struct runcmd c;
    memset(&c, 0, sizeof c);
    c.argv = argv;
    if (runcmd_one(&c, LINK_ESXCLI_S, 1 << 16, NULL) != 0 || c.code != 0) {
        li->esxcli_late = c.code == -1;
        snprintf(li->note, sizeof li->note, "esxcli %s %s %s: %.100s", args[0], args[1], args[2],
                 c.why[0] ? c.why : "failed");
        free(c.out);
        return NULL;
    }
    return c.out;
}

/* an advanced option's Int Value, -1 when esxcli does not give it */
static int advanced_int(const char *prog, const char *option, struct link_info *li)
{
    const char *const args[] = { "system", "settings", "advanced", "list", "-o", option, NULL };
    char *out = esxcli(prog, args, li), val[32] = "";
    if (!out)
        return -1;
    for (const char *p = out; p && *p && !val[0];) {
        kv(p, "Int Value", val, sizeof val);
        p = strchr(p, '\n');
        p = p ? p + 1 : NULL;
    }
    free(out);
    char *end;
    long v = strtol(val, &end, 10);
    return val[0] && *end == '\0' && v >= 0 ? (int)v : -1;
}

static void esxcli_speed(struct link_info *li)
{
    char prog[256], portset[64] = "", uplinks[256] = "";
    if (netstack_find_esxcli(prog, sizeof prog) != 0) {
        snprintf(li->note, sizeof li->note, "%s is a vmknic and there is no esxcli to ask its uplink", li->iface);
        return;
    }
    static const char *const ifl[] = { "network", "ip", "interface", "list", NULL };
    static const char *const vsl[] = { "network", "vswitch", "standard", "list", NULL };
    static const char *const nicl[] = { "network", "nic", "list", NULL };
    static const char *const tso[] = { "network", "nic", "tso", "get", NULL };
    char *out = esxcli(prog, ifl, li);
    if (!out)
        return;
    esxcli_block_value(out, li->iface, "Portset", portset, sizeof portset);
    free(out);
    if (!portset[0] || !(out = esxcli(prog, vsl, li))) {
        if (!li->note[0])
            snprintf(li->note, sizeof li->note, "esxcli names no portset for %s", li->iface);
        return;
    }
    esxcli_block_value(out, portset, "Uplinks", uplinks, sizeof uplinks);
    free(out);
    if (!uplinks[0] || !(out = esxcli(prog, nicl, li))) {
        if (!li->note[0])
            snprintf(li->note, sizeof li->note, "%s (%s) has no uplink (a distributed switch, or none)",
                     li->iface, portset);
        return;
    }
    for (char *save = NULL, *u = strtok_r(uplinks, ", ", &save); u; u = strtok_r(NULL, ", ", &save)) {
        double s = esxcli_nic_speed(out, u);
        if (s > li->mbps) {
            li->mbps = s;
            snprintf(li->uplink, sizeof li->uplink, "%s", u);
        }
    }
    free(out);
    if (li->mbps < 0) {
        snprintf(li->note, sizeof li->note, "no uplink of %s (%s) is up with a speed", li->iface, portset);
        return;
    }
    li->via = "esxcli";
    if ((out = esxcli(prog, tso, li)) != NULL)
        esxcli_nic_tso(out, li->uplink, li->tso, sizeof li->tso);
    free(out);
    li->hw_tso = advanced_int(prog, "/Net/UseHwTSO", li);
    li->lro = advanced_int(prog, "/Net/TcpipDefLROEnabled", li);
    li->note[0] = '\0';
}

/* sysfs: the speed, and whether any physical NIC stands behind it */
static void sysfs_link(struct link_info *li)
{
    li->mbps = sysfs_speed(li->iface);
    if (li->mbps <= 0) {
        snprintf(li->note, sizeof li->note, "%s reports no speed", li->iface);
        return;
    }
    li->via = "sysfs";
    char what[64] = "";
    if (physical_below(li->iface, LINK_STACK_MAX, what, sizeof what))
        return;
    li->nominal = 1;
    snprintf(li->note, sizeof li->note, "%s is a virtual device (%s): its %.0f Mb/s is nominal, "
             "not a bound", li->iface, what, li->mbps);
}

void link_speed_of(int fd, struct link_info *li)
{
    memset(li, 0, sizeof *li);
    li->mbps = -1;
    li->hw_tso = li->lro = -1;
    li->via = "none";
    iface_of(fd, li->iface, sizeof li->iface);
    const char *env = getenv("ESXPERF_LINK_MBPS");
    if (env && *env) {
        char *end;
        double v = strtod(env, &end);
        if (*end == '\0' && v > 0) {
            li->mbps = v;
            li->via = "ESXPERF_LINK_MBPS";
            return;
        }
    }
    if (!li->iface[0]) {
        snprintf(li->note, sizeof li->note, "no interface holds the socket's address");
        return;
    }
    if (!strncmp(li->iface, "vmk", 3)) {
        char prog[256];
        /* a vmknic's speed is its uplink's; a vmk-named interface on a host
         * without esxcli (Linux) is an ordinary one */
        if (netstack_find_esxcli(prog, sizeof prog) == 0) {
            esxcli_speed(li);
            return;
        }
    }
    sysfs_link(li);
}
