/* esxpart: which partition is OSDATA, VMFS, bootbank, coredump; is the table healthy.
 * Read-only. Options, help and flow; the work is in disk.c, probe.c, gpt.c, mbr.c,
 * types.c, content.c, report.c, scan.c. */
#include <getopt.h>
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
"  -g, --showguids      print the known partition type table and exit\n"
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

enum { MODE_TABLE, MODE_PARTED, MODE_USABLE };

static void parse_opts(int argc, char **argv, struct opts *o)
{
    static const struct option longs[] = {
        { "partedutil", no_argument, NULL, 'p' },
        { "usable", no_argument, NULL, 'u' },
        { "showguids", no_argument, NULL, 'g' },
        { "json", no_argument, NULL, 'J' },
        { "verify", no_argument, NULL, 'V' },
        { "sector-size", required_argument, NULL, 's' },
        { "version", no_argument, NULL, 'v' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int c;
    uint64_t v;
    const char *why;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":pugJVs:vh", longs, NULL)) != -1) {
        switch (c) {
        case 'p': o->partedutil = 1; break;
        case 'u': o->usable = 1; break;
        case 'g': o->showguids = 1; break;
        case 'J': o->json = 1; break;
        case 'V': o->verify = 1; break;
        case 's':
            if (parse_u64(optarg, 512, 4096, &v, &why) < 0 || (v != 512 && v != 4096))
                die_usage("--sector-size %s: must be 512 or 4096", optarg);
            o->sector = (unsigned)v;
            break;
        case 'v': version_print(); exit(EXIT_OKAY);
        case 'h': fputs(usage, stdout); exit(EXIT_OKAY);
        case ':': die_usage("option %s needs a value", argv[optind - 1]);
        default: die_usage("unknown option %s", argv[optind - 1]);
        }
    }
    if (o->partedutil + o->usable > 1)
        die_usage("--partedutil and --usable do not go together");
}

int main(int argc, char **argv)
{
    struct opts o = { 0 };
    argc = args_strip_vmk(argc, &argv);
    parse_opts(argc, argv, &o);

    struct jsonw w;
    if (o.json) {
        jw_init(&w, 1);
        jw_obj(&w, NULL);
        jw_str(&w, "tool", tool_name);
        jw_str(&w, "version", version_string());
    }
    if (o.showguids && optind == argc) {
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
    char **paths = argv + optind;
    size_t npaths = (size_t)(argc - optind);
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
