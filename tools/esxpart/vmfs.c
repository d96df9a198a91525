/* VMFS / VMFS-L headers as ESXi lays them out (little-endian, offsets from the
 * start of each header; the public layouts of dissect.vmfs c_lvm.py / c_vmfs.py and
 * vmfs-tools libvmfs): the LVM device header 1 MiB into the partition, the FS
 * descriptor 2 MiB into the volume's data, which starts at the LVM header's data
 * offset. Nothing is trusted: a data offset outside the partition, an unknown
 * version or a block size that is no power of two is a finding, never a read
 * outside the partition. */
#include "vmfs.h"
#include "bytes.h"
#include "content.h"
#include "disk.h"

#include <stdio.h>
#include <string.h>

#define LVM_MAGIC 0xC001D00Du
#define FSD_MAGIC 0x2FABF15Eu
#define FSDL_MAGIC 0x2FABF15Fu

/* the LVM device header's fields (dissect.vmfs c_lvm.py, LVM_DevHeader) */
enum {
    LVM_MAJOR = 0x04, LVM_MINOR = 0x08, LVM_VENDOR = 0x12, LVM_MODEL = 0x1A,
    LVM_NUM_VOLUMES = 0x66, LVM_DATA_OFFSET = 0x7A, LVM_UUID = 0x82,
};
/* the FS descriptor's fields (dissect.vmfs c_vmfs.py, FS3_Descriptor) */
enum {
    FSD_MAJOR = 0x04, FSD_MINOR = 0x08, FSD_UUID = 0x09, FSD_CONFIG = 0x19,
    FSD_LABEL = 0x1D, FSD_LABEL_LEN = 128, FSD_BLOCK_SIZE = 0xA1,
};

/* FS descriptor major version -> the VMFS generation ESXi names it by */
static const struct { uint32_t major; unsigned gen; } generations[] = {
    { 24, 6 },   /* VMFS6 (and VMFS-L since ESXi 7) */
    { 14, 5 },   /* VMFS5 */
    { 4, 3 },    /* VMFS3: major 4, minor 31 in vmfs-tools' test.img, a real VMFS3 volume */
};

void vmfs_parse_lvm(const unsigned char b[512], struct vmfs_info *v)
{
    v->lvm = load_le32(b) == LVM_MAGIC;
    v->lvm_major = load_le32(b + LVM_MAJOR);
    v->lvm_minor = load_le32(b + LVM_MINOR);
    v->volumes = load_le32(b + LVM_NUM_VOLUMES);
    v->data_offset = load_le64(b + LVM_DATA_OFFSET);
    memcpy(v->lvm_uuid, b + LVM_UUID, 16);
    content_field(b + LVM_VENDOR, 8, v->vendor, sizeof v->vendor);
    content_field(b + LVM_MODEL, 16, v->model, sizeof v->model);
}

void vmfs_parse_fsd(const unsigned char b[512], struct vmfs_info *v)
{
    uint32_t magic = load_le32(b);
    v->fsd = magic == FSD_MAGIC || magic == FSDL_MAGIC;
    if (!v->fsd)
        return;
    v->vmfsl = magic == FSDL_MAGIC;
    v->major = load_le32(b + FSD_MAJOR);
    v->minor = b[FSD_MINOR];
    memcpy(v->uuid, b + FSD_UUID, 16);
    v->config = load_le32(b + FSD_CONFIG);
    content_field(b + FSD_LABEL, FSD_LABEL_LEN, v->label, sizeof v->label);
    uint64_t bs = load_le64(b + FSD_BLOCK_SIZE);
    v->block_size = bs >= 512 && bs <= (1ull << 30) && !(bs & (bs - 1)) ? bs : 0;
}

static unsigned generation(uint32_t major)
{
    for (size_t i = 0; i < sizeof generations / sizeof generations[0]; i++)
        if (generations[i].major == major)
            return generations[i].gen;
    return 0;
}

void vmfs_version_text(const struct vmfs_info *v, char *out, size_t len)
{
    unsigned gen = generation(v->major);
    const char *kind = v->vmfsl ? "VMFS-L" : "VMFS";
    if (gen)
        snprintf(out, len, "%s-%u.%u", kind, gen, v->minor);
    else
        snprintf(out, len, "%s (version %u.%u)", kind, (unsigned)v->major, v->minor);
}

void vmfs_uuid_text(const unsigned char u[16], char *out, size_t len)
{
    snprintf(out, len, "%08x-%08x-%04x-%02x%02x%02x%02x%02x%02x", (unsigned)load_le32(u),
             (unsigned)load_le32(u + 4), (unsigned)load_le16(u + 8), u[10], u[11], u[12],
             u[13], u[14], u[15]);
}

int vmfs_osdata(const struct vmfs_info *v)
{
    return v->fsd && v->vmfsl && (v->config & VMFS_SYSTEM_FLAG);
}

int vmfs_read(struct disk *d, uint64_t base, uint64_t len, struct vmfs_info *v,
              vmfs_note_fn note, void *ctx)
{
    unsigned char b[512];
    char why[160];
    memset(v, 0, sizeof *v);
    if (len < VMFS_LVM_AT + sizeof b || disk_read(d, base + VMFS_LVM_AT, b, sizeof b) < 0)
        return 0;
    vmfs_parse_lvm(b, v);
    if (!v->lvm)
        return 0;
    if (v->lvm_major < 3 || v->lvm_major > 6) {
        snprintf(why, sizeof why, "LVM header version %u.%u is none ESXi writes (3, 5, 6)",
                 (unsigned)v->lvm_major, (unsigned)v->lvm_minor);
        note(ctx, 0, why);
    }
    if (v->volumes == 0) {
        note(ctx, 0, "LVM header lists no volume");
    }
    /* the data offset must leave room for the FS descriptor inside the partition */
    if (v->data_offset % 512 || v->data_offset < VMFS_LVM_AT + sizeof b ||
        v->data_offset > len || len - v->data_offset < VMFS_FSD_AT + sizeof b) {
        snprintf(why, sizeof why, "LVM header's data offset %llu is not sector-aligned or "
                 "leaves no room for the FS descriptor in the partition's %llu bytes",
                 (unsigned long long)v->data_offset, (unsigned long long)len);
        v->bad_offset = 1;
        note(ctx, 1, why);
        return 1;
    }
    if (disk_read(d, base + v->data_offset + VMFS_FSD_AT, b, sizeof b) < 0) {
        note(ctx, 1, "the FS descriptor cannot be read");
        return 1;
    }
    vmfs_parse_fsd(b, v);
    if (!v->fsd)
        return 1;
    if (!generation(v->major)) {
        snprintf(why, sizeof why, "FS descriptor version %u.%u is none known (24 VMFS6, "
                 "14 VMFS5, 4 VMFS3)", (unsigned)v->major, v->minor);
        note(ctx, 0, why);
    }
    if (!v->block_size) {
        snprintf(why, sizeof why, "FS descriptor's file block size %llu is not a power of "
                 "two from 512 bytes to 1 GiB", (unsigned long long)load_le64(b + FSD_BLOCK_SIZE));
        note(ctx, 1, why);
    }
    return 1;
}
