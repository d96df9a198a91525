/* Partition type tables: GPT GUID / MBR byte -> esxpart's name, partedUtil's
 * getptbl name and a role an administrator understands.
 *
 * The "parted" column is what `partedUtil getptbl` prints, and only that: a name
 * shown in a public capture of getptbl output, else "unknown". Being in the
 * `partedUtil showGuids` list (VMware KB 1036609, "Using the partedUtil command
 * line utility on ESXi and ESX"; its labels are the "show" column) does not make
 * a getptbl name: an administrator's posted capture of a 4 TB disk
 * (486401 255 63 7814037168) with three Linux Raid partitions shows getptbl
 * printing "unknown" for each. The "name" column is esxpart's own, richer name,
 * for its table and -J; where partedUtil has a name it is the same word.
 *
 * Where each parted name was seen (getptbl output administrators posted):
 *   [boot]   ESXi boot disks: systemPartition (attr 128), linuxNative (also for
 *            FAT bootbanks), vmkDiagnostic, vmfs; vmfsl for OSDATA on 7/8
 *   [vsan]   vSAN disks: vsan, virsto
 *   [ms]     microsoftRsvd
 *   [raid]   the 4 TB disk above: "unknown" for Linux Raid
 *   none     Linux Swap, Linux Lvm, VMware Reserved: no capture at hand shows
 *            a name for them, so "unknown" (UNVERIFIED either way; a capture
 *            showing a name moves it here) */
#include "types.h"
#include "bytes.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

static const struct ptype gpt_types[] = {
    /* hex                                 mbr name              parted             show                  role                   expect   attr   where parted was seen */
    { "AA31E02A400F11DB9590000C2911D1B8", 0, "vmfs",            "vmfs",            "vmfs",               "VMFS datastore",      CF_VMFS,  0 },   /* [boot] */
    { "4EB2EA3978554790A79EFAE495E21F8D", 0, "vmfsl",           "vmfsl",           NULL,                 "OSDATA (VMFS-L)",     CF_VMFSL, 0 },   /* [boot] */
    { "9D27538040AD11DBBF97000C2911D1B8", 0, "vmkDiagnostic",   "vmkDiagnostic",   "vmkDiagnostic",      "coredump",            CF_NONE,  0 },   /* [boot] */
    { "381CFCCC728811E092EE000C2911D0B2", 0, "vsan",            "vsan",            "vsan",               "vSAN",                CF_ANY,   0 },   /* [vsan] */
    { "77719A0CA4A011E3A47E000C29745A24", 0, "virsto",          "virsto",          NULL,                 "vSAN virsto",         CF_ANY,   0 },   /* [vsan] */
    { "9198EFFC31C011DB8F78000C2911D1B8", 0, "vmwareReserved",  "unknown",         "VMware Reserved",    "VMware reserved",     CF_ANY,   0 },   /* none */
    { "EBD0A0A2B9E5443387C068B6B72699C7", 0, "linuxNative",     "linuxNative",     "Basic Data",         "data",                CF_FAT,   0 },   /* [boot] */
    { "0657FD6DA4AB43C484E50933C84B4F4F", 0, "linuxSwap",       "unknown",         "Linux Swap",         "Linux swap",          CF_ANY,   0 },   /* none */
    { "E6D6D379F50744C2A23C238F2A3DF928", 0, "linuxLvm",        "unknown",         "Linux Lvm",          "Linux LVM",           CF_ANY,   0 },   /* none */
    { "A19D880F05FC4D3BA006743F0F84911E", 0, "linuxRaid",       "unknown",         "Linux Raid",         "Linux RAID",          CF_ANY,   0 },   /* [raid] */
    { "C12A7328F81F11D2BA4B00A0C93EC93B", 0, "systemPartition", "systemPartition", "Efi System",         "boot loader (EFI)",   CF_FAT,   128 }, /* [boot] */
    { "E3C9E3160B5C4DB8817DF92DF00215AE", 0, "microsoftRsvd",   "microsoftRsvd",   "Microsoft Reserved", "Microsoft reserved",  CF_ANY,   0 },   /* [ms] */
    { "B3676DDDA38A4CD6B970718D7F873811", 0, "unknown",         "unknown",         NULL,                 "NVMe memory tiering", CF_ANY,   0 },
    { "0FC63DAF848347728E793D69D8477DE4", 0, "unknown",         "unknown",         NULL,                 "Linux filesystem",    CF_ANY,   0 },
    { "2168614864496E6F744E656564454649", 0, "unknown",         "unknown",         NULL,                 "BIOS boot",           CF_ANY,   0 },
};

/* msdos disks: getptbl prints the type byte in decimal, then a name; no public
 * capture of an msdos getptbl line is at hand, so the parted column repeats
 * esxpart's name (UNVERIFIED) */
static const struct ptype mbr_types[] = {
    { NULL, 0xFB, "vmfs",            "vmfs",            NULL, "VMFS datastore",     CF_VMFS, 0 },
    { NULL, 0xFC, "vmkDiagnostic",   "vmkDiagnostic",   NULL, "coredump",           CF_NONE, 0 },
    { NULL, 0xEF, "systemPartition", "systemPartition", NULL, "boot loader (EFI)",  CF_FAT,  0 },
    { NULL, 0xEE, "gptProtective",   "gptProtective",   NULL, "GPT protective",     CF_ANY,  0 },
    { NULL, 0x83, "linuxNative",     "linuxNative",     NULL, "Linux",              CF_ANY,  0 },
    { NULL, 0x82, "linuxSwap",       "linuxSwap",       NULL, "Linux swap",         CF_ANY,  0 },
    { NULL, 0x8E, "linuxLvm",        "linuxLvm",        NULL, "Linux LVM",          CF_ANY,  0 },
    { NULL, 0xFD, "linuxRaid",       "linuxRaid",       NULL, "Linux RAID",         CF_ANY,  0 },
    { NULL, 0x01, "fat12",           "fat12",           NULL, "FAT data",           CF_FAT,  0 },
    { NULL, 0x04, "fat16",           "fat16",           NULL, "FAT data",           CF_FAT,  0 },
    { NULL, 0x06, "fat16",           "fat16",           NULL, "FAT data",           CF_FAT,  0 },
    { NULL, 0x0E, "fat16",           "fat16",           NULL, "FAT data",           CF_FAT,  0 },
    { NULL, 0x0B, "fat32",           "fat32",           NULL, "FAT data",           CF_FAT,  0 },
    { NULL, 0x0C, "fat32",           "fat32",           NULL, "FAT data",           CF_FAT,  0 },
    { NULL, 0x07, "ntfs",            "ntfs",            NULL, "NTFS / exFAT data",  CF_ANY,  0 },
    { NULL, 0x05, "extended",        "extended",        NULL, "extended container", CF_ANY,  0 },
    { NULL, 0x0F, "extended",        "extended",        NULL, "extended container", CF_ANY,  0 },
    { NULL, 0x85, "extended",        "extended",        NULL, "extended container", CF_ANY,  0 },
};

/* a GUID or MBR byte not in the tables */
static const struct ptype unknown_type = { NULL, 0, "unknown", "unknown", NULL, "unknown type", CF_ANY, 0 };

/* on-disk byte index for each of the 16 canonical positions (first three fields LE) */
static const unsigned char canon_order[16] = { 3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15 };

void guid_hex(const unsigned char g[16], char out[33])
{
    static const char hex[] = "0123456789ABCDEF";
    for (int i = 0; i < 16; i++) {
        out[2 * i] = hex[g[canon_order[i]] >> 4];
        out[2 * i + 1] = hex[g[canon_order[i]] & 15];
    }
    out[32] = 0;
}

void guid_canon(const unsigned char g[16], char out[37])
{
    char h[33];
    guid_hex(g, h);
    snprintf(out, 37, "%.8s-%.4s-%.4s-%.4s-%.12s", h, h + 8, h + 12, h + 16, h + 20);
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = toupper(c);
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

int guid_parse(const char *s, unsigned char g[16])
{
    unsigned char canon[16];
    int n = 0;
    for (; *s; s++) {
        if (*s == '-' || *s == ' ')
            continue;
        int v = hexval((unsigned char)*s);
        if (v < 0 || n >= 32)
            return -1;
        if (n % 2 == 0)
            canon[n / 2] = (unsigned char)(v << 4);
        else
            canon[n / 2] |= (unsigned char)v;
        n++;
    }
    if (n != 32)
        return -1;
    for (int i = 0; i < 16; i++)
        g[canon_order[i]] = canon[i];
    return 0;
}

int guid_is_zero(const unsigned char g[16])
{
    for (int i = 0; i < 16; i++)
        if (g[i])
            return 0;
    return 1;
}

const struct ptype *type_by_guid(const unsigned char g[16])
{
    char h[33];
    guid_hex(g, h);
    for (size_t i = 0; i < ARRAY_SIZE(gpt_types); i++)
        if (strcmp(gpt_types[i].hex, h) == 0)
            return &gpt_types[i];
    return &unknown_type;
}

const struct ptype *type_by_mbr(unsigned byte)
{
    for (size_t i = 0; i < ARRAY_SIZE(mbr_types); i++)
        if (mbr_types[i].mbr == byte)
            return &mbr_types[i];
    return &unknown_type;
}

const struct ptype *type_gpt_table(size_t *n)
{
    *n = ARRAY_SIZE(gpt_types);
    return gpt_types;
}

/* the container types are the "extended" rows of mbr_types */
int mbr_is_extended(unsigned byte)
{
    return strcmp(type_by_mbr(byte)->name, "extended") == 0;
}
