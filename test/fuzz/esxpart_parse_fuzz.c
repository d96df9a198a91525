/* libFuzzer target for esxpart's parser entry point: the input is a whole disk image
 * held in memory (read through the disk layer's callback backend). Each input is
 * probed with sector-size detection and again forced to 4096, and every output
 * format is rendered, so the report code sees whatever the parser accepted. The
 * content readers get the input too: boot.cfg's parser on its bytes, and the FAT16
 * and VMFS readers on a 64 MiB disk that repeats the input, so a small input
 * reaches the headers at 1 MiB and beyond. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../tools/esxpart/disk.h"
#include "../../tools/esxpart/parse.h"
#include "../../tools/esxpart/report.h"
#include "../../tools/esxpart/bootcfg.h"
#include "../../tools/esxpart/fat16.h"
#include "../../tools/esxpart/vmfs.h"
#include "../../common/utf8.h"

const char tool_name[] = "esxpart";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void render(FILE *out, const struct ptable *t)
{
    report_table(out, "fuzz", t);
    report_partedutil(out, t);
    uint64_t need;
    report_usable(out, t, &need);
    struct jsonw w;
    jw_init(&w, 0);
    jw_arr(&w, NULL);
    report_json_disk(&w, "fuzz", t);
    jw_end(&w);
    /* whatever names and labels the disk holds, the JSON is UTF-8 (jsonw.h) */
    for (size_t i = 0, n = jw_len(&w), k; i < n; i += k)
        if ((k = utf8_len(jw_text(&w) + i, n - i)) == 0)
            abort();
    fputs(jw_text(&w), out);
    jw_free(&w);
}

/* the input repeated to the disk's size */
static int repeat_read(void *ctx, uint64_t off, void *buf, size_t len)
{
    const struct disk_mem *m = ctx;
    unsigned char *b = buf;
    for (size_t i = 0; i < len; i++)
        b[i] = m->data[(off + i) % m->len];
    return 0;
}

static void ignore_note(void *ctx, int error, const char *text)
{
    (void)ctx;
    (void)error;
    (void)text;
}

static void contents(const uint8_t *data, size_t size)
{
    struct bootcfg c;
    bootcfg_parse((const char *)data, size, &c);
    if (size == 0)
        return;
    struct disk_mem m = { data, size };
    struct disk d;
    uint64_t len = 64ull << 20;
    disk_from_callback(&d, "fuzz-repeat", len, repeat_read, &m);
    static char buf[16384];
    size_t n;
    uint32_t bad, whole;
    fat16_read_file(&d, 0, len, "BOOT    CFG", buf, sizeof buf, &n, &whole, &bad);
    struct vmfs_info v;
    vmfs_read(&d, 0, len, &v, ignore_note, NULL);
    char text[64];
    vmfs_version_text(&v, text, sizeof text);
    disk_close(&d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct ptable *t;
    static FILE *out;
    if (!t) {
        t = calloc(1, sizeof *t);
        out = fopen("/dev/null", "w");
        if (!t || !out)
            abort();
    }
    struct disk_mem m = { data, size };
    struct disk d;
    disk_from_callback(&d, "fuzz", size, disk_mem_read, &m);
    pt_parse(&d, t, 0);
    render(out, t);
    if (size >= 8192) {
        pt_parse(&d, t, 4096);
        render(out, t);
    }
    disk_close(&d);
    contents(data, size);
    return 0;
}
