/* esxpart: which partition is OSDATA, VMFS, bootbank, coredump; is the table healthy.
 * Read-only. The command line (options_table.h's rows, what each sets in
 * options.c) and flow; the work is in disk.c, parse.c, ptable.c,
 * gpt.c, mbr.c, types.c, content.c, esxi_parts.c (bootbank.c, bootcfg.c, fat16.c,
 * vmfs.c), report.c, scan.c. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "args.h"
#include "escape.h"
#include "fail.h"
#include "jsonw.h"
#include "output.h"
#include "version.h"
#include "disk.h"
#include "options.h"
#include "parse.h"
#include "report.h"
#include "scan.h"

const char tool_name[] = "esxpart";

/* -h and --version (the rows that say MAIN) */
static void main_opt(void *ctx, int code, const char *value)
{
    (void)ctx, (void)value;
    if (code == OPT_VERSION) {
        version_print();
        output_exit("the version");
    }
    fputs(part_usage, stdout);
    output_exit("the help text");
}

/* leaves the disk operands in argv[optind..] */
static void parse_opts(int argc, char **argv, struct part_opts *o)
{
    char why[160];
    args_parse(&part_table, o, NULL, argc, argv, main_opt, NULL);
    if (opts_validate(o, why, sizeof why) != 0)
        die_usage("%s", why);
}

struct tally { size_t readable, unreadable, no_answer, with_errors; };

/* -p on a damaged table: one line on stderr, its first error and how many more */
static void partedutil_damaged(const char *shown, const struct ptable *t)
{
    size_t errors = 0;
    const char *first = "";
    for (size_t i = 0; i < t->nfind; i++)
        if (t->findings[i].sev == SEV_ERROR && errors++ == 0)
            first = t->findings[i].text;
    char more[64] = "";
    if (errors > 1)
        snprintf(more, sizeof more, " (and %zu more)", errors - 1);
    warnmsg("%s: the partition table is damaged: %s%s%s (esxpart without -p lists every finding)",
            shown, first, more, pt_read_whole(t) ? "; its intact copy is printed" : "; nothing printed");
}

/* inspect and print one disk (of n); a disk that cannot be read or answered is
 * counted and named on stderr, and in the JSON */
static void one_disk(const struct part_opts *o, const char *path, size_t n,
                     struct ptable *t, struct jsonw *w, struct tally *k)
{
    struct disk d;
    char why[160], shown[1024];
    esc_text(path, shown, sizeof shown);
    if (!path[0]) {
        snprintf(shown, sizeof shown, "'' (an empty argument)");
        snprintf(why, sizeof why, "not a path (name a disk or an image file)");
    }
    if (!path[0] || disk_open(&d, path, why, sizeof why) < 0) {
        warnmsg("%s: %s", shown, why);
        if (o->json)
            report_json_error(w, path, why);
        k->unreadable++;
        return;
    }
    pt_parse(&d, t, o->sector);
    disk_close(&d);
    if (t->unreadable[0]) {
        warnmsg("%s: %s", shown, t->unreadable);
        if (o->json)
            report_json_error(w, path, t->unreadable);
        k->unreadable++;
        return;
    }
    k->readable++;
    if (pt_worst(t) == SEV_ERROR)
        k->with_errors++;
    if (o->json) {
        report_json_disk(w, path, t);
        return;
    }
    int first = k->readable == 1;   /* a blank line only between printed reports */
    if (n > 1 && (o->partedutil || o->usable))
        printf("%s# %s\n", first ? "" : "\n", shown);
    else if (!first)
        putchar('\n');
    uint64_t need = 0;
    if (o->partedutil) {
        /* a damaged table is never printed as a healthy one: partedUtil (libparted)
         * shows a GPT read whole from its intact copy, after saying the other is
         * corrupt, and refuses any other damaged table */
        if (pt_worst(t) == SEV_ERROR) {
            partedutil_damaged(shown, t);
            k->no_answer++;
        }
        if (pt_worst(t) != SEV_ERROR || pt_read_whole(t))
            report_partedutil(stdout, t);
    } else if (o->usable && report_usable(stdout, t, &need) < 0) {
        warnmsg("%s: no usable sectors: %llu sectors of %u bytes cannot hold a GPT "
                "(it needs at least %llu: 34 at each end with 512-byte sectors)", shown,
                (unsigned long long)t->sectors, t->sector, (unsigned long long)need);
        k->no_answer++;
    } else if (!o->usable) {
        report_table(stdout, path, t);
    }
}

static void json_open(struct jsonw *w)
{
    jw_init(w, 1);
    jw_obj(w, NULL);
    jw_str(w, "tool", tool_name);
    jw_str(w, "version", version_string());
}

static void json_close(struct jsonw *w, const struct part_opts *o, const struct tally *k, int rc)
{
    jw_end(w);   /* disks */
    if (o->showguids)
        report_showguids_json(w);
    jw_uint(w, "disks_read", k->readable);
    jw_uint(w, "disks_unreadable", k->unreadable);
    jw_uint(w, "disks_with_errors", k->with_errors);
    jw_bool(w, "verify", o->verify);
    jw_int(w, "exit_code", rc);
    jw_end(w);
    fputs(jw_text(w), stdout);
    jw_free(w);
}

int main(int argc, char **argv)
{
    struct part_opts o = { 0 };
    output_start();
    argc = args_strip_vmk(argc, &argv);
    parse_opts(argc, argv, &o);
    char **paths = argv + optind;
    size_t npaths = (size_t)(argc - optind);

    struct jsonw w;
    if (o.json)
        json_open(&w);
    if (o.showguids && npaths == 0) {
        if (o.json) {
            report_showguids_json(&w);
            jw_end(&w);
            fputs(jw_text(&w), stdout);
            jw_free(&w);
        } else {
            report_showguids(stdout);
        }
        return output_done(stdout, "stdout", STDERR_FILENO, EXIT_OKAY);
    }

    struct scan_list found = { 0 };
    if (npaths == 0) {
        npaths = scan_disks("/", &found);
        paths = found.paths;
        if (npaths == 0)
            die(EXIT_USAGE, "no disks found: neither /vmfs/devices/disks nor /sys/block "
                "lists a whole disk (name a disk or an image file)");
    }

    struct ptable *t = xcalloc(1, sizeof *t);
    struct tally k = { 0 };
    if (o.json)
        jw_arr(&w, "disks");
    for (size_t i = 0; i < npaths; i++)
        one_disk(&o, paths[i], npaths, t, &w, &k);
    int rc = k.readable == 0 ? EXIT_USAGE
           : k.unreadable || k.no_answer || (o.verify && k.with_errors) ? EXIT_CHECK
           : EXIT_OKAY;
    if (o.json) {
        json_close(&w, &o, &k, rc);
    } else if (o.showguids) {
        putchar('\n');
        report_showguids(stdout);
    }
    if (o.verify && k.with_errors && !o.json)
        warnmsg("verify: %zu disk(s) with error-level findings", k.with_errors);
    if (k.readable == 0 && npaths > 1)
        warnmsg("none of the %zu disks could be read", npaths);
    free(t);
    scan_free(&found);
    return output_done(stdout, "stdout", STDERR_FILENO, rc);
}
