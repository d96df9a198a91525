/* Output formats: the human table, partedUtil getptbl / getUsableSectors lines,
 * esxpart's type table, and JSON (keys documented in docs/esxpart.md, "esxpart JSON"). */
#include "report.h"
#include "bytes.h"
#include "content.h"
#include "esxi_parts.h"
#include "escape.h"
#include "units.h"

#include <inttypes.h>
#include <string.h>

#define GEOM_CYL 16065u   /* 255 heads x 63 sectors */

static void flags_text(const struct ptable *t, const struct part *p, char *out, size_t len)
{
    static const struct { uint64_t bit; const char *name; } gpt_bits[] = {
        { 1ull << 0, "required" }, { 1ull << 1, "no-blockio" }, { 1ull << 2, "legacy-boot" },
        { 1ull << 60, "read-only" }, { 1ull << 62, "hidden" }, { 1ull << 63, "no-automount" },
    };
    size_t o = 0;
    out[0] = 0;
#define FLAG(s) do { int n_ = snprintf(out + o, len - o, "%s%s", o ? "," : "", (s)); \
                     if (n_ > 0 && (size_t)n_ < len - o) o += (size_t)n_; } while (0)
    if (t->kind == PT_GPT) {
        for (size_t i = 0; i < ARRAY_SIZE(gpt_bits); i++)
            if (p->attrs & gpt_bits[i].bit)
                FLAG(gpt_bits[i].name);
    }
    if (p->boot)
        FLAG("boot");
    if (p->extended)
        FLAG("extended");
    if (p->logical)
        FLAG("logical");
    if (p->mismatch)
        FLAG("type-mismatch");
    if (p->past_end)
        FLAG("past-end");
#undef FLAG
}

/* columns a string takes on a terminal: one per character (no wide characters in
 * what esxpart prints but labels, where this is close enough) */
static int text_width(const char *s)
{
    int w = 0;
    for (; *s; s++)
        if (((unsigned char)*s & 0xC0) != 0x80)
            w++;
    return w;
}

/* append s to line at *o, padded to w columns, right- or left-aligned */
static void put_cell(char *line, size_t len, size_t *o, const char *s, int w, int right)
{
    int pad = w - text_width(s);
    int n = snprintf(line + *o, len - *o, "  %*s%s%*s", right && pad > 0 ? pad : 0, "", s,
                     !right && pad > 0 ? pad : 0, "");
    if (n > 0)
        *o = (size_t)n < len - *o ? *o + (size_t)n : len - 1;
}

/* bytes of p; 0 for a partition whose end lies before its start (reported), and
 * UINT64_MAX for one too large to count in 64 bits (a GPT entry can end at LBA
 * 2^64-1; such an entry lies outside the disk, which is reported too) */
static uint64_t part_bytes(const struct ptable *t, const struct part *p)
{
    if (p->end < p->start)
        return 0;
    uint64_t span = p->end - p->start;   /* sectors minus one: 2^64 would wrap to 0 */
    if (span >= UINT64_MAX / t->sector)
        return UINT64_MAX;
    return (span + 1) * t->sector;
}

#define NCOL 8
#define CONTENT_COLS 60   /* the content column's widest; longer is cut with "..." */
static const char *const head[NCOL] = { "#", "start", "end", "size", "type", "role",
                                        "content", "flags" };

/* the cells of one partition row, each escaped for the terminal */
static void row_cells(const struct ptable *t, const struct part *p, char cell[NCOL][600])
{
    char raw[300];
    snprintf(cell[0], sizeof cell[0], "%u", p->num);
    snprintf(cell[1], sizeof cell[1], "%" PRIu64, p->start);
    snprintf(cell[2], sizeof cell[2], "%" PRIu64, p->end);
    fmt_iec(cell[3], sizeof cell[3], part_bytes(t, p));
    if (t->kind == PT_MSDOS)
        snprintf(cell[4], sizeof cell[4], "%s (0x%02X)", p->ptype->name, p->mbr_type);
    else
        snprintf(cell[4], sizeof cell[4], "%s", p->ptype->name);
    snprintf(cell[5], sizeof cell[5], "%s", p->role ? p->role : "");
    content_text(&p->content, raw, sizeof raw);
    if (esxi_parts_build(p)[0]) {   /* a bootbank: its build after its label */
        size_t o = strlen(raw);
        snprintf(raw + o, sizeof raw - o, "%sbuild %s", o ? " " : "", esxi_parts_build(p));
    }
    /* a long label (VMFS allows 128 bytes, escaped up to four columns each) is cut
     * in the table: the detail line and -J carry it whole */
    if (esc_text(raw, cell[6], sizeof cell[6]) > CONTENT_COLS) {
        esc_text(raw, cell[6], CONTENT_COLS - 2);
        strcat(cell[6], "...");
    }
    flags_text(t, p, cell[7], sizeof cell[7]);
}

static void print_row(FILE *out, char cell[NCOL][600], const int *w)
{
    char line[NCOL * 620];
    size_t o = 0;
    for (int c = 0; c < NCOL; c++)
        put_cell(line, sizeof line, &o, cell[c], c == NCOL - 1 ? 0 : w[c], c < 4);
    while (o > 0 && line[o - 1] == ' ')   /* no trailing blanks */
        o--;
    fprintf(out, "%.*s\n", (int)o, line);
}

void report_table(FILE *out, const char *path, const struct ptable *t)
{
    char size[32], shown[1024];
    if (t->size_bytes < 1024)   /* "1 byte", "700 bytes" rather than "1 B" */
        snprintf(size, sizeof size, "%u byte%s", (unsigned)t->size_bytes,
                 plural_s(t->size_bytes));
    else
        fmt_iec(size, sizeof size, t->size_bytes);
    esc_text(path, shown, sizeof shown);
    fprintf(out, "%s: %s, %" PRIu64 " sector%s of %u bytes, %s%s, health: %s\n", shown, size,
            t->sectors, plural_s(t->sectors), t->sector, pt_kind_name(t->kind),
            t->gpt_backup_used ? " (from the backup GPT)" : "",
            pt_health(t));
    if (t->kind == PT_GPT && t->gpt_header) {
        char g[37];
        guid_canon(t->disk_guid, g);
        fprintf(out, "  disk GUID %s, usable sectors %" PRIu64 "-%" PRIu64 ", %u entr%s "
                "of %u bytes\n", g, t->first_usable, t->last_usable, t->entry_count,
                t->entry_count == 1 ? "y" : "ies", t->entry_size);
    }
    /* column widths from the data */
    int w[NCOL];
    char cell[NCOL][600];
    for (int c = 0; c < NCOL; c++)
        w[c] = text_width(head[c]);
    for (size_t i = 0; i < t->nparts; i++) {
        row_cells(t, &t->parts[i], cell);
        for (int c = 0; c < NCOL; c++)
            if (text_width(cell[c]) > w[c])
                w[c] = text_width(cell[c]);
    }
    if (t->nparts > 0) {
        for (int c = 0; c < NCOL; c++)
            snprintf(cell[c], sizeof cell[c], "%s", head[c]);
        print_row(out, cell, w);
    }
    for (size_t i = 0; i < t->nparts; i++) {
        row_cells(t, &t->parts[i], cell);
        print_row(out, cell, w);
    }
    if (t->nparts == 0)
        fprintf(out, "  no partitions\n");
    esxi_parts_lines(out, t);
    for (size_t i = 0; i < t->nfind; i++)
        fprintf(out, "  %s: %s\n", sev_name(t->findings[i].sev), t->findings[i].text);
    if (t->dropped)
        fprintf(out, "  (%zu more findings not shown)\n", t->dropped);
}

static unsigned parted_attr(const struct ptable *t, const struct part *p)
{
    if (t->kind == PT_MSDOS)
        return p->boot ? 128 : 0;
    return p->ptype->attr;
}

void report_partedutil(FILE *out, const struct ptable *t)
{
    fprintf(out, "%s\n%" PRIu64 " 255 63 %" PRIu64 "\n", pt_kind_name(t->kind),
            t->sectors / GEOM_CYL, t->sectors);
    for (size_t i = 0; i < t->nparts; i++) {
        const struct part *p = &t->parts[i];
        if (t->kind == PT_GPT) {
            char hex[33];
            guid_hex(p->type, hex);
            fprintf(out, "%u %" PRIu64 " %" PRIu64 " %s %s %u\n", p->num, p->start, p->end,
                    hex, p->ptype->parted, parted_attr(t, p));
        } else {
            fprintf(out, "%u %" PRIu64 " %" PRIu64 " %u %s %u\n", p->num, p->start, p->end,
                    p->mbr_type, p->ptype->parted, parted_attr(t, p));
        }
    }
}

int report_usable(FILE *out, const struct ptable *t, uint64_t *need)
{
    if (t->kind == PT_GPT && t->gpt_header) {
        fprintf(out, "%" PRIu64 " %" PRIu64 "\n", t->first_usable, t->last_usable);
        return 0;
    }
    /* what a new GPT with 128 entries would leave usable on this disk: MBR, header
     * and array at the start, array and header at the end */
    uint64_t reserve = 2 + (128 * 128 + t->sector - 1) / t->sector;
    *need = 2 * reserve;
    if (t->sectors < *need)
        return -1;   /* the first usable sector would come after the last */
    fprintf(out, "%" PRIu64 " %" PRIu64 "\n", reserve, t->sectors - reserve);
    return 0;
}

/* esxpart's own table of the types it knows, in its own layout: partedUtil
 * showGuids' exact output on ESXi 7 and 8 (its columns, spacing and rows) is not
 * in any public capture at hand, so nothing here imitates it (-g -J has the same) */
void report_types(FILE *out)
{
    size_t n;
    const struct ptype *tab = type_gpt_table(&n);
    fprintf(out, "%-16s %-32s  %-16s %-19s %s\n", "type", "GUID", "getptbl name", "label",
            "role");
    for (size_t i = 0; i < n; i++)
        fprintf(out, "%-16s %-32s  %-16s %-19s %s\n", tab[i].name, tab[i].hex, tab[i].parted,
                tab[i].show ? tab[i].show : "-", tab[i].role);
}

void report_types_json(struct jsonw *w)
{
    size_t n;
    const struct ptype *tab = type_gpt_table(&n);
    jw_arr(w, "types");
    for (size_t i = 0; i < n; i++) {
        jw_obj(w, NULL);
        jw_str(w, "guid", tab[i].hex);
        jw_str(w, "name", tab[i].name);
        jw_str(w, "partedutil_name", tab[i].parted);
        jw_str(w, "label", tab[i].show);
        jw_str(w, "role", tab[i].role);
        jw_end(w);
    }
    jw_end(w);
}

static void json_content(struct jsonw *w, const struct content *c)
{
    if (c->fam == CF_NONE) {
        jw_null(w, "content");
        return;
    }
    char u[48];
    jw_obj(w, "content");
    jw_str(w, "fs", c->fs);
    if (c->vmfs_version > 0)
        jw_int(w, "vmfs_version", c->vmfs_version);
    else
        jw_null(w, "vmfs_version");
    jw_str(w, "label", c->label);
    content_uuid(c, u, sizeof u);
    jw_str(w, "uuid", u[0] ? u : NULL);
    if (c->block_size)
        jw_uint(w, "block_size", c->block_size);
    else
        jw_null(w, "block_size");
    jw_uint(w, "offset", c->offset);
    jw_end(w);
}

static void json_bank(struct jsonw *w, const struct bank_info *k)
{
    if (!k->marked) {
        jw_null(w, "bootbank");
        return;
    }
    char u[33];
    esxi_parts_bank_uuid(k, u);
    jw_obj(w, "bootbank");
    jw_uint(w, "index", k->index);
    jw_str(w, "uuid", u);
    jw_str(w, "boot_cfg", !k->has_cfg ? k->cfg_problem : k->cfg_truncated ? "truncated" : "read");
    if (k->has_cfg) {
        jw_uint(w, "boot_cfg_bytes", k->cfg_size);
        jw_uint(w, "lines", k->cfg.lines);
    } else {
        jw_null(w, "boot_cfg_bytes");
        jw_null(w, "lines");
    }
    jw_str(w, "build", k->has_cfg && k->cfg.build[0] ? k->cfg.build : NULL);
    if (k->has_cfg && !k->cfg.rejected)   /* the loader's value (0 when missing) */
        jw_uint(w, "updated", k->cfg.updated);
    else
        jw_null(w, "updated");
    if (k->has_cfg && k->cfg.has_bootstate)
        jw_int(w, "bootstate", k->cfg.bootstate);
    else
        jw_null(w, "bootstate");
    jw_str(w, "state", k->has_cfg ? bank_state_name(bank_state_of(&k->cfg)) : NULL);
    jw_bool(w, "eligible", k->eligible);
    jw_bool(w, "boots_next", k->boots_next);
    jw_str(w, "verdict", bank_verdict(k));
    jw_str(w, "title", k->has_cfg ? k->cfg.title : NULL);
    jw_str(w, "kernelopt", k->has_cfg ? k->cfg.kernelopt : NULL);
    jw_uint(w, "modules", k->cfg.modules);
    jw_end(w);
}

static void json_vmfs(struct jsonw *w, const struct vmfs_info *v)
{
    if (!v->lvm) {
        jw_null(w, "vmfs");
        return;
    }
    char buf[48];
    jw_obj(w, "vmfs");
    jw_str(w, "kind", !v->fsd ? NULL : v->vmfsl ? "vmfs-l" : "vmfs");
    jw_str(w, "label", v->fsd ? v->label : NULL);
    vmfs_uuid_text(v->uuid, buf, sizeof buf);
    jw_str(w, "uuid", v->fsd ? buf : NULL);
    vmfs_version_text(v, buf, sizeof buf);
    jw_str(w, "version", v->fsd ? buf : NULL);
    if (v->fsd && v->block_size)
        jw_uint(w, "block_size", v->block_size);
    else
        jw_null(w, "block_size");
    jw_bool(w, "osdata", vmfs_osdata(v));
    vmfs_uuid_text(v->lvm_uuid, buf, sizeof buf);
    jw_str(w, "lvm_uuid", buf);
    jw_uint(w, "lvm_version", v->lvm_major);
    jw_uint(w, "data_offset", v->data_offset);
    jw_uint(w, "volumes", v->volumes);
    jw_str(w, "vendor", v->vendor);
    jw_str(w, "model", v->model);
    jw_bool(w, "first_extent", v->fsd);
    jw_end(w);
}

/* one partition of report_json_disk's "partitions" array */
static void json_part(struct jsonw *w, const struct ptable *t, const struct part *p)
{
    char buf[64];
    jw_obj(w, NULL);
    jw_uint(w, "number", p->num);
    jw_uint(w, "start", p->start);
    jw_uint(w, "end", p->end);
    jw_uint(w, "size_bytes", part_bytes(t, p));
    if (t->kind == PT_GPT) {
        guid_canon(p->type, buf);
        jw_str(w, "type_guid", buf);
        jw_null(w, "mbr_type");
    } else {
        jw_null(w, "type_guid");
        jw_uint(w, "mbr_type", p->mbr_type);
    }
    jw_str(w, "type_name", p->ptype->name);
    jw_str(w, "role", p->role);
    jw_str(w, "partedutil_name", p->ptype->parted);
    jw_uint(w, "partedutil_attr", parted_attr(t, p));
    if (t->kind == PT_GPT) {
        guid_canon(p->uuid, buf);
        jw_str(w, "partition_guid", buf);
        snprintf(buf, sizeof buf, "0x%016" PRIx64, p->attrs);
        jw_str(w, "attributes", buf);
        jw_str(w, "name", p->name);
    } else {
        jw_null(w, "partition_guid");
        jw_null(w, "attributes");
        jw_null(w, "name");
    }
    flags_text(t, p, buf, sizeof buf);
    jw_str(w, "flags", buf);
    json_content(w, &p->content);
    json_bank(w, &p->bank);
    json_vmfs(w, &p->vmfs);
    jw_end(w);
}

void report_json_disk(struct jsonw *w, const char *path, const struct ptable *t)
{
    char buf[64];
    jw_obj(w, NULL);
    jw_str(w, "path", path);
    jw_null(w, "error");
    jw_uint(w, "size_bytes", t->size_bytes);
    jw_uint(w, "sector_size", t->sector);
    jw_str(w, "sector_size_source", t->sector_source);
    jw_uint(w, "sectors", t->sectors);
    jw_uint(w, "cylinders", t->sectors / GEOM_CYL);
    jw_str(w, "table", pt_kind_name(t->kind));
    jw_str(w, "health", pt_health(t));
    jw_obj(w, "mbr");
    jw_bool(w, "valid", t->mbr_valid);
    jw_bool(w, "protective", t->protective);
    jw_bool(w, "hybrid", t->hybrid);
    snprintf(buf, sizeof buf, "%08x", t->mbr_id);
    jw_str(w, "disk_id", t->mbr_valid ? buf : NULL);
    jw_end(w);
    if (t->kind == PT_GPT) {
        jw_obj(w, "gpt");
        jw_str(w, "source", t->gpt_backup_used ? "backup" : "primary");
        jw_bool(w, "primary_ok", t->primary_ok);
        jw_bool(w, "backup_ok", t->backup_ok);
        /* a header's values, or null when no header could be read: never zeros */
        if (t->gpt_header) {
            guid_canon(t->disk_guid, buf);
            jw_str(w, "disk_guid", buf);
        } else {
            jw_null(w, "disk_guid");
        }
        const struct { const char *key; uint64_t value; int known; } nums[] = {
            { "first_usable", t->first_usable, 1 }, { "last_usable", t->last_usable, 1 },
            { "backup_lba", t->backup_lba, 1 },     { "entries_lba", t->entries_lba, 1 },
            { "entry_count", t->entry_count, 1 },   { "entry_size", t->entry_size, 1 },
            { "sectors_expected", t->gpt_sectors, t->gpt_sectors != 0 },
        };
        for (size_t i = 0; i < ARRAY_SIZE(nums); i++) {
            if (t->gpt_header && nums[i].known)
                jw_uint(w, nums[i].key, nums[i].value);
            else
                jw_null(w, nums[i].key);
        }
        jw_bool(w, "cut", t->gpt_cut);
        jw_end(w);
    } else {
        jw_null(w, "gpt");
    }
    jw_arr(w, "partitions");
    for (size_t i = 0; i < t->nparts; i++)
        json_part(w, t, &t->parts[i]);
    jw_end(w);
    jw_arr(w, "findings");
    for (size_t i = 0; i < t->nfind; i++) {
        jw_obj(w, NULL);
        jw_str(w, "level", sev_name(t->findings[i].sev));
        jw_str(w, "text", t->findings[i].text);
        jw_end(w);
    }
    jw_end(w);
    jw_uint(w, "findings_dropped", t->dropped);
    jw_end(w);
}

void report_json_error(struct jsonw *w, const char *path, const char *why)
{
    jw_obj(w, NULL);
    jw_str(w, "path", path);
    jw_str(w, "error", why);
    jw_end(w);
}
