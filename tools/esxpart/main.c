/* esxpart: which partition is OSDATA, VMFS, bootbank, coredump; is the table healthy.
 * Read-only. Options, help and flow; the work is in disk.c, probe.c, gpt.c, mbr.c,
 * types.c, content.c, report.c, scan.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "fail.h"
#include "jsonw.h"
#include "version.h"
#include "disk.h"
#include "ptable.h"
#include "report.h"
#include "scan.h"

const char tool_name[] = "esxpart";

static const char usage[] =
"usage: esxpart [options] [DISK|IMAGE ...]\n"
"\n"
"Identify ESXi partitions by GPT type GUID and by content (VMFS volume header,\n"
"VMFS / VMFS-L FS info, FAT label): OSDATA, VMFS datastores, bootbanks, coredump,\n"
"and check the partition table (MBR, primary and backup GPT). Never writes.\n"
"Without DISK: every whole disk in /vmfs/devices/disks (ESXi) or /sys/block (Linux).\n"
"\n"
"  -p, --partedutil     print exactly what 'partedUtil getptbl DISK' prints\n"
"  -u, --usable         print first and last usable sector ('getUsableSectors')\n"
"  -g, --showguids      print the known partition type table (partedUtil showGuids)\n"
"  -J, --json           JSON output (keys documented in README.md)\n"
"  -V, --verify         exit 1 when any disk has an error-level finding\n"
"  -s, --sector-size N  force the logical sector size: 512 or 4096\n"
"  -v, --version        print the version\n"
"  -h, --help           this text\n"
"\n"
"Examples:\n"
"  esxpart                                   all disks, table per disk\n"
"  esxpart --partedutil /vmfs/devices/disks/naa.5000c500a1b2c3d4\n"
"  esxpart --verify -J disk.img > report.json\n"
"\n"
"Exit codes: 0 ok; 1 problems found (with --verify) or some disk unreadable;\n"
"2 usage error or no disk readable.\n";

struct opts {
    int partedutil, usable, showguids, json, verify;
    unsigned sector;
};

/* long name, short letter; options may come anywhere before "--" */
static const struct { const char *name; char letter; } longs[] = {
    { "partedutil", 'p' }, { "usable", 'u' }, { "showguids", 'g' }, { "json", 'J' },
    { "verify", 'V' }, { "sector-size", 's' }, { "version", 'v' }, { "help", 'h' },
};

static void set_sector(struct opts *o, const char *v)
{
    if (strcmp(v, "512") && strcmp(v, "4096"))
        die_usage("--sector-size %s: must be 512 or 4096", v);
    o->sector = v[0] == '5' ? 512 : 4096;
}

/* one option letter; returns 1 when it consumed *next as its value */
static int apply(struct opts *o, char c, const char *value, const char *shown)
{
    switch (c) {
    case 'p': o->partedutil = 1; return 0;
    case 'u': o->usable = 1; return 0;
    case 'g': o->showguids = 1; return 0;
    case 'J': o->json = 1; return 0;
    case 'V': o->verify = 1; return 0;
    case 's':
        if (!value)
            die_usage("option %s needs a value", shown);
        set_sector(o, value);
        return 1;
    case 'v': version_print(); exit(EXIT_OKAY);
    case 'h': fputs(usage, stdout); exit(EXIT_OKAY);
    default: die_usage("unknown option %s", shown);
    }
}

/* leaves the disk operands in argv[1..], returns their count + 1 */
static int parse_opts(int argc, char **argv, struct opts *o)
{
    int out = 1, dashdash = 0;
    for (int i = 1; i < argc; i++) {
        char *a = argv[i];
        if (dashdash || a[0] != '-' || a[1] == 0) {
            argv[out++] = a;
        } else if (strcmp(a, "--") == 0) {
            dashdash = 1;
        } else if (a[1] == '-') {
            char *eq = strchr(a, '=');
            size_t n = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
            char c = 0;
            for (size_t k = 0; k < sizeof longs / sizeof longs[0]; k++)
                if (strlen(longs[k].name) == n && strncmp(a + 2, longs[k].name, n) == 0)
                    c = longs[k].letter;
            if (!c)
                die_usage("unknown option %s", a);
            if (eq && c != 's')
                die_usage("option --%.*s takes no value", (int)n, a + 2);
            i += apply(o, c, eq ? eq + 1 : i + 1 < argc ? argv[i + 1] : NULL, a) && !eq;
        } else {
            for (char *p = a + 1; *p; p++) {
                char shown[3] = { '-', *p, 0 };
                const char *rest = p[1] ? p + 1 : i + 1 < argc ? argv[i + 1] : NULL;
                if (apply(o, *p, rest, shown)) {
                    i += p[1] ? 0 : 1;
                    break;
                }
            }
        }
    }
    if (o->partedutil + o->usable > 1)
        die_usage("--partedutil and --usable do not go together");
    return out;
}

int main(int argc, char **argv)
{
    struct opts o = { 0 };
    argc = args_strip_vmk(argc, &argv);
    argc = parse_opts(argc, argv, &o);   /* operands now in argv[1..argc-1] */

    struct jsonw w;
    if (o.json) {
        jw_init(&w, 1);
        jw_obj(&w, NULL);
        jw_str(&w, "tool", tool_name);
        jw_str(&w, "version", version_string());
    }
    if (o.showguids && argc == 1) {
        if (o.json) {
            report_showguids_json(&w);
            jw_end(&w);
            fputs(jw_text(&w), stdout);
            jw_free(&w);
        } else {
            report_showguids(stdout);
        }
        return EXIT_OKAY;
    }

    struct scan_list found = { 0 };
    char **paths = argv + 1;
    size_t npaths = (size_t)(argc - 1);
    if (npaths == 0) {
        npaths = scan_disks("/", &found);
        paths = found.paths;
        if (npaths == 0)
            die(EXIT_USAGE, "no disks found: neither /vmfs/devices/disks nor /sys/block "
                "lists a whole disk (name a disk or an image file)");
    }

    struct ptable *t = xcalloc(1, sizeof *t);
    size_t readable = 0, unreadable = 0, with_errors = 0;
    if (o.json)
        jw_arr(&w, "disks");
    for (size_t i = 0; i < npaths; i++) {
        struct disk d;
        char why[160];
        if (disk_open(&d, paths[i], why, sizeof why) < 0) {
            warnmsg("%s: %s", paths[i], why);
            if (o.json)
                report_json_error(&w, paths[i], why);
            unreadable++;
            continue;
        }
        pt_probe(&d, t, o.sector);
        disk_close(&d);
        readable++;
        if (pt_worst(t) == SEV_ERROR)
            with_errors++;
        if (o.json) {
            report_json_disk(&w, paths[i], t);
            continue;
        }
        if (npaths > 1 && (o.partedutil || o.usable))
            printf("%s# %s\n", i ? "\n" : "", paths[i]);
        else if (npaths > 1 && i > 0)
            putchar('\n');
        if (o.partedutil)
            report_partedutil(stdout, t);
        else if (o.usable)
            report_usable(stdout, t);
        else
            report_table(stdout, paths[i], t);
    }
    int rc = readable == 0 ? EXIT_USAGE
           : unreadable || (o.verify && with_errors) ? EXIT_CHECK : EXIT_OKAY;
    if (o.json) {
        jw_end(&w);
        if (o.showguids)
            report_showguids_json(&w);
        jw_uint(&w, "disks_read", readable);
        jw_uint(&w, "disks_unreadable", unreadable);
        jw_uint(&w, "disks_with_errors", with_errors);
        jw_bool(&w, "verify", o.verify);
        jw_int(&w, "exit_code", rc);
        jw_end(&w);
        fputs(jw_text(&w), stdout);
        jw_free(&w);
    } else if (o.showguids) {
        putchar('\n');
        report_showguids(stdout);
    }
    if (o.verify && with_errors && !o.json)
        warnmsg("verify: %zu disk(s) with error-level findings", with_errors);
    if (readable == 0 && npaths > 1)
        warnmsg("none of the %zu disks could be read", npaths);
    free(t);
    scan_free(&found);
    return rc;
}
