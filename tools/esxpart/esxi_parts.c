/* The ESXi reading of a disk's partitions: the bootbank mark in sector 1 (16 bytes
 * "VMWARE FAT16    " then the bank's UUID; esx-boot safeboot/vmfat.c), boot.cfg from
 * the bank's FAT16 root directory (fat16.c, bootcfg.c), the bank choice
 * (bootbank.c), the VMFS headers (vmfs.c). Problems that stop the loader or
 * contradict a header are error findings, so --verify fails on them. */
#include "esxi_parts.h"
#include "bootbank.h"
#include "fat16.h"
#include "vmfs.h"
#include "escape.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BANKS_MAX 3u         /* the loader keeps the first three banks it finds */

struct note_ctx { struct ptable *t; unsigned num; };

static void vmfs_note(void *ctx, int error, const char *text)
{
    struct note_ctx *n = ctx;
    pt_add(n->t, error ? SEV_ERROR : SEV_WARN, "partition %u: VMFS: %s", n->num, text);
}

/* what a readable boot.cfg says that the report must name: a file cut at the bound,
 * no key=value lines, a number the loader rejects or reads otherwise than written */
static void cfg_findings(struct ptable *t, const struct part *p)
{
    const struct bank_info *k = &p->bank;
    const struct bootcfg *c = &k->cfg;
    char text[48];
    if (k->cfg_truncated)
        pt_add(t, SEV_WARN, "partition %u: boot.cfg is %" PRIu32 " bytes; only the first %u "
               "were read (a real one is a few KiB): a key past them is not seen", p->num,
               k->cfg_size, BOOTCFG_MAX);
    if (c->lines == 0 && !k->cfg_truncated) {
        pt_add(t, SEV_ERROR, "partition %u: boot.cfg (%" PRIu32 " byte%s) has no key=value "
               "lines: the loader finds no build in it", p->num, k->cfg_size,
               k->cfg_size == 1 ? "" : "s");
        return;
    }
    if (c->rejected) {
        esc_text(c->reject_text, text, sizeof text);
        pt_add(t, SEV_ERROR, "partition %u: boot.cfg's %s=\"%s\" is no number (the loader takes "
               "only '-' and digits): it rejects the whole file and skips this bank",
               p->num, c->reject_key, text);
    }
    for (int i = 0; i < CFG_NUMS && !c->rejected; i++) {
        const struct cfg_num *x = &c->num[i];
        if (!x->set || !x->odd)
            continue;
        esc_text(x->text, text, sizeof text);
        long long v = i == CFG_UPDATED ? (long long)(uint32_t)x->value : x->value;
        long long b = i == CFG_UPDATED ? (long long)(uint32_t)x->bios : x->bios;
        char bios[64] = "";
        if (v != b)
            snprintf(bios, sizeof bios, " (%lld by the legacy BIOS loader)", b);
        pt_add(t, SEV_WARN, "partition %u: boot.cfg's %s=\"%s\" is read by the loader as %lld%s",
               p->num, bootcfg_num_name(i), text, v, bios);
    }
}

static void read_bank(struct disk *d, struct ptable *t, struct part *p, uint64_t base,
                      uint64_t len)
{
    unsigned char b[512];
    if (len < 4096 || disk_read(d, base, b, sizeof b) < 0)
        return;
    /* sector 1 in the FAT's own sector size, 512 when the boot sector says none */
    unsigned bps = load_le16(b + 11);
    if (bps != 512 && bps != 1024 && bps != 2048 && bps != 4096)
        bps = 512;
    if (disk_read(d, base + bps, b, 32) < 0 || memcmp(b, BANK_MARK, 16) != 0)
        return;
    struct bank_info *k = &p->bank;
    k->marked = 1;
    memcpy(k->uuid, b + 16, 16);
    p->role = "bootbank";
    char *cfg = malloc(BOOTCFG_MAX);
    if (!cfg) {
        k->cfg_problem = "cannot be read: out of memory";
        pt_add(t, SEV_ERROR, "partition %u: bootbank's boot.cfg %s", p->num, k->cfg_problem);
        return;
    }
    size_t n;
    uint32_t bad;
    enum fat16_rc rc = fat16_read_file(d, base, len, "BOOT    CFG", cfg, BOOTCFG_MAX, &n,
                                       &k->cfg_size, &bad);
    if (rc != FAT16_OK) {
        free(cfg);
        k->cfg_problem = fat16_rc_text(rc);
        if (rc == FAT16_LOOP || rc == FAT16_PAST_FAT)
            pt_add(t, SEV_ERROR, "partition %u: bootbank's boot.cfg: %s (at cluster %" PRIu32
                   "): the loader cannot read it", p->num, k->cfg_problem, bad);
        else if (rc == FAT16_NOT_FAT16)
            pt_add(t, SEV_ERROR, "partition %u: bootbank mark, but %s", p->num, k->cfg_problem);
        else
            pt_add(t, SEV_ERROR, "partition %u: bootbank's boot.cfg: %s: the loader skips "
                   "this bank", p->num, k->cfg_problem);
        return;
    }
    bootcfg_parse(cfg, n, &k->cfg);
    free(cfg);
    k->has_cfg = 1;
    k->cfg_truncated = k->cfg_size > n;
    cfg_findings(t, p);
}

/* a partition cut off by the image's end whose type a bootbank has (Basic Data, as
 * the installer writes banks): with it unread, the loader's choice is unknown */
static const struct part *may_be_cut_bank(const struct ptable *t)
{
    for (size_t i = 0; i < t->nparts; i++) {
        const struct part *p = &t->parts[i];
        if (p->past_end && t->kind == PT_GPT && p->ptype->expect == CF_FAT &&
            strcmp(p->ptype->parted, "linuxNative") == 0)
            return p;
    }
    return NULL;
}

void esxi_parts_probe(struct disk *d, struct ptable *t)
{
    const struct bank_info *banks[BANKS_MAX];
    struct part *owners[BANKS_MAX];
    size_t nb = 0;
    for (size_t i = 0; i < t->nparts; i++) {
        struct part *p = &t->parts[i];
        memset(&p->bank, 0, sizeof p->bank);
        memset(&p->vmfs, 0, sizeof p->vmfs);
        if (p->extended || p->start > p->end || p->end >= t->sectors)
            continue;
        uint64_t base = p->start * t->sector, len = (p->end - p->start + 1) * t->sector;
        read_bank(d, t, p, base, len);
        struct note_ctx nc = { t, p->num };
        vmfs_read(d, base, len, &p->vmfs, vmfs_note, &nc);
    }
    /* the loader scans partitions by number and keeps the first BANKS_MAX banks */
    for (size_t i = 0; i < t->nparts; i++) {
        struct part *p = &t->parts[i];
        if (!p->bank.marked)
            continue;
        size_t j = nb < BANKS_MAX ? nb : BANKS_MAX;
        if (j == BANKS_MAX && p->num > owners[BANKS_MAX - 1]->num)
            continue;
        for (; j > 0 && owners[j - 1]->num > p->num; j--)
            if (j < BANKS_MAX)
                owners[j] = owners[j - 1];
        owners[j] = p;
        if (nb < BANKS_MAX)
            nb++;
    }
    for (size_t i = 0; i < nb; i++) {
        owners[i]->bank.index = (unsigned)i + 1;
        banks[i] = &owners[i]->bank;
    }
    if (nb == 0)
        return;
    const struct part *cut = may_be_cut_bank(t);
    int best = cut ? -1 : bank_choose(banks, nb);
    for (size_t i = 0; i < nb; i++) {
        struct bank_info *k = &owners[i]->bank;
        k->eligible = k->has_cfg && bank_eligible(&k->cfg);
        k->boots_next = (int)i == best;
        k->undecided = cut != NULL;
        enum bank_state s = bank_state_of(&k->cfg);
        if (k->has_cfg && (s == BANK_DIRTY || s == BANK_INVALID))
            pt_add(t, SEV_WARN, "partition %u: bootbank %zu is %s (bootstate=%d): %s",
                   owners[i]->num, i + 1, bank_state_name(s), k->cfg.bootstate,
                   bank_verdict(k));
    }
    const struct bank_info *cutcfg = NULL;
    for (size_t i = 0; i < nb && best < 0; i++)
        if (owners[i]->bank.cfg_truncated && !owners[i]->bank.eligible)
            cutcfg = &owners[i]->bank;
    if (cutcfg)
        pt_add(t, SEV_INFO, "which bootbank boots next cannot be told: bank %u's boot.cfg is "
               "truncated", cutcfg->index);
    else if (cut)
        pt_add(t, SEV_INFO, "which bootbank boots next cannot be told: partition %u (%s) "
               "ends past the image's end and may hold a bank", cut->num, cut->ptype->name);
    else if (best < 0)
        pt_add(t, SEV_ERROR, "no bootbank the loader would boot (%zu found): ESXi does not "
               "start from this disk", nb);
}

const char *esxi_parts_build(const struct part *p)
{
    return p->bank.has_cfg ? p->bank.cfg.build : "";
}

void esxi_parts_bank_uuid(const struct bank_info *k, char out[33])
{
    for (int i = 0; i < 16; i++)
        snprintf(out + 2 * i, 3, "%02x", k->uuid[i]);
}

static void bank_line(FILE *out, const struct part *p)
{
    const struct bank_info *k = &p->bank;
    char uuid[33];
    esxi_parts_bank_uuid(k, uuid);
    if (!k->has_cfg) {
        fprintf(out, "  bootbank %u (partition %u): uuid %s, boot.cfg: %s\n", k->index,
                p->num, uuid, k->cfg_problem);
        return;
    }
    const struct bootcfg *c = &k->cfg;
    char size[48] = "";
    if (k->cfg_truncated)
        snprintf(size, sizeof size, " (boot.cfg truncated: %" PRIu32 " bytes)", k->cfg_size);
    if (c->lines == 0 && !k->cfg_truncated) {
        fprintf(out, "  bootbank %u (partition %u): boot.cfg (%" PRIu32 " byte%s) has no "
                "key=value lines: not bootable\n", k->index, p->num, k->cfg_size,
                k->cfg_size == 1 ? "" : "s");
        return;
    }
    /* the state's name beside a boot verdict; beside "not bootable" the bootstate as
     * written, so that "valid" never stands next to it */
    enum bank_state s = bank_state_of(c);
    const char *verdict = bank_verdict(k);
    int boot_words = strncmp(verdict, "not bootable", 12) != 0 &&
                     strncmp(verdict, "cannot be told", 14) != 0;
    char state[48];
    if (!c->has_bootstate)
        snprintf(state, sizeof state, "%s", boot_words ? "valid (no bootstate)" : "no bootstate");
    else if (s == BANK_VALID && boot_words)
        snprintf(state, sizeof state, "valid");
    else if (boot_words)
        snprintf(state, sizeof state, "%s (bootstate=%d)", bank_state_name(s), c->bootstate);
    else
        snprintf(state, sizeof state, "bootstate=%d", c->bootstate);
    char build[200], upd[64];
    esc_text(c->build[0] ? c->build : k->cfg_truncated ? "(not in the part read)" : "(none)",
             build, sizeof build);
    const struct cfg_num *u = &c->num[CFG_UPDATED];
    if (u->set && u->odd) {
        char text[48];
        esc_text(u->text, text, sizeof text);
        snprintf(upd, sizeof upd, "%" PRIu32 " (written %s)", c->updated, text);
    } else if (c->rejected) {
        snprintf(upd, sizeof upd, "not read");
    } else {
        snprintf(upd, sizeof upd, "%" PRIu32, c->updated);
    }
    fprintf(out, "  bootbank %u (partition %u): build %s, updated %s, %s: %s%s\n",
            k->index, p->num, build, upd, state, verdict, size);
}

static void vmfs_line(FILE *out, const struct part *p)
{
    const struct vmfs_info *v = &p->vmfs;
    char uuid[48], ver[48], lvm[48], label[520];
    esc_text(v->label, label, sizeof label);
    vmfs_uuid_text(v->lvm_uuid, lvm, sizeof lvm);
    if (v->bad_offset) {
        fprintf(out, "  vmfs (partition %u): LVM device %s, data offset %" PRIu64 " outside "
                "the partition: volume not read\n", p->num, lvm, v->data_offset);
        return;
    }
    if (!v->fsd) {
        fprintf(out, "  vmfs (partition %u): LVM device %s, not the volume's first extent "
                "(no FS descriptor here)\n", p->num, lvm);
        return;
    }
    vmfs_uuid_text(v->uuid, uuid, sizeof uuid);
    vmfs_version_text(v, ver, sizeof ver);
    const char *what = !v->vmfsl ? "datastore"
                     : vmfs_osdata(v) ? "OSDATA" : "VMFS-L (not a system volume)";
    fprintf(out, "  vmfs (partition %u): %s, label \"%s\", UUID %s, %s, ", p->num, what,
            label, uuid, ver);
    if (v->block_size >= 1024 * 1024)
        fprintf(out, "%" PRIu64 " MiB blocks, first extent\n", v->block_size >> 20);
    else if (v->block_size)
        fprintf(out, "%" PRIu64 " KiB blocks, first extent\n", v->block_size >> 10);
    else
        fprintf(out, "block size unknown, first extent\n");
}

void esxi_parts_lines(FILE *out, const struct ptable *t)
{
    for (size_t i = 0; i < t->nparts; i++) {
        const struct part *p = &t->parts[i];
        if (p->bank.marked)
            bank_line(out, p);
        else if (p->vmfs.lvm)
            vmfs_line(out, p);
        else if (p->ptype && strcmp(p->ptype->role, "coredump") == 0)
            fprintf(out, "  coredump (partition %u): by type only (no public layout of the "
                    "dump header to read)\n", p->num);
    }
}
