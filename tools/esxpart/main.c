/* esxpart: which partition is OSDATA, VMFS, bootbank, coredump; is the table healthy.
 * Read-only. Options, help and flow; the work is in disk.c, probe.c, ptable.c,
 * gpt.c, mbr.c, types.c, content.c, report.c, scan.c. */
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
#include "probe.h"
#include "report.h"
#include "scan.h"

const char tool_name[] = "esxpart";

/* The option grammar in three views that change together: the text people read,
 * getopt's short letters, and the long names. */
static const char usage[] =
"usage: esxpart [options] [DISK|IMAGE ...]\n"
"\n"
"Identify ESXi partitions by GPT type GUID and by content (VMFS volume header,\n"
"VMFS / VMFS-L FS info, FAT label): OSDATA, VMFS datastores, bootbanks, coredump,\n"
"and check the partition table (MBR, primary and backup GPT). Never writes.\n"
"Without DISK: every whole disk in /vmfs/devices/disks (ESXi) or /sys/block (Linux).\n"
"A DISK must be a regular file (an image) or a block device; anything else (a\n"
"directory, FIFO, socket or character device) is refused, the others still read.\n"
"\n"
"  -p, --partedutil     print exactly what 'partedUtil getptbl DISK' prints\n"
"  -u, --usable         print first and last usable sector ('getUsableSectors')\n"
"  -g, --showguids      print the known partition type table (partedUtil showGuids)\n"
"  -J, --json           JSON output (keys documented in docs/esxpart.md)\n"
"  -v, --verify         exit 1 when any disk has an error-level finding (as sgdisk -v)\n"
"  -s, --sector-size N  force the logical sector size: 512 or 4096\n"
"      --version        print the version\n"
"  -h, --help           this text\n"
"\n"
"Examples:\n"
"  esxpart                                   all disks, table per disk\n"
"  esxpart --partedutil /vmfs/devices/disks/naa.5000c500a1b2c3d4\n"
"  esxpart -v -J disk.img > report.json\n"
"\n"
"Exit codes: 0 ok; 1 problems found (with --verify), some disk unreadable or not a\n"
"disk, or no usable sectors (-u on a disk too small for a GPT); 2 usage error, no\n"
"disk readable, or the results could not be written.\n";

/* -V was --verify before 0.2 and is verbose in esxperf, version in sgdisk: it is
 * refused with a pointer rather than given a meaning a script could misread */
static const char shortopts[] = ":pugJvs:hV";

enum { OPT_VERSION = 256 };
static const struct option longopts[] = {
    { "partedutil", no_argument, NULL, 'p' },
    { "usable", no_argument, NULL, 'u' },
    { "showguids", no_argument, NULL, 'g' },
    { "json", no_argument, NULL, 'J' },
    { "verify", no_argument, NULL, 'v' },
    { "sector-size", required_argument, NULL, 's' },
    { "version", no_argument, NULL, OPT_VERSION },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
};

struct opts {
    int partedutil, usable, showguids, json, verify;
    unsigned sector;
};

/* how esxpart words getopt's refusals (common/args.h): -s, the one option with
 * a value, is named with the values it takes; a flag given a value as typed */
static const struct bad_option_words refusals = {
    BADOPT_NEEDS_FULL_NAME, ": 512 or 4096", "",
};

/* leaves the disk operands in argv[optind..] */
static void parse_opts(int argc, char **argv, struct opts *o)
{
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
        switch (c) {
        case 'p': o->partedutil = 1; break;
        case 'u': o->usable = 1; break;
        case 'g': o->showguids = 1; break;
        case 'J': o->json = 1; break;
        case 'v': o->verify = 1; break;
        case 's':
            if (strcmp(optarg, "512") && strcmp(optarg, "4096"))
                die_usage("--sector-size %s: must be 512 or 4096", optarg);
            o->sector = optarg[0] == '5' ? 512 : 4096;
            break;
        case 'V':
            die_usage("-V is not an option: -v (--verify) checks the tables, "
                      "--version prints the version");
        case OPT_VERSION:
            version_print();
            output_exit("the version");
        case 'h':
            fputs(usage, stdout);
            output_exit("the help text");
        default: bad_option(longopts, &refusals, c, argc, argv);
        }
    }
    if (o->partedutil + o->usable > 1)
        die_usage("--partedutil and --usable do not go together");
}

struct tally { size_t readable, unreadable, no_answer, with_errors; };

/* inspect and print one disk (of n); a disk that cannot be read or answered is
 * counted and named on stderr, and in the JSON */
static void one_disk(const struct opts *o, const char *path, size_t n,
                     struct ptable *t, struct jsonw *w, struct tally *k)
{
    struct disk d;
    char why[160], shown[1024];
    esc_text(path, shown, sizeof shown);
    if (disk_open(&d, path, why, sizeof why) < 0) {
        warnmsg("%s: %s", shown, why);
        if (o->json)
            report_json_error(w, path, why);
        k->unreadable++;
        return;
    }
    pt_probe(&d, t, o->sector);
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

static void json_close(struct jsonw *w, const struct opts *o, const struct tally *k, int rc)
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
    struct opts o = { 0 };
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
