/* esxpart's options, one row each, in the order --help shows them: everything else
 * about an option is derived from its row (the long-only codes, getopt_long's
 * short string and long table, the usage text, what opts_set sets). Included
 * several times (no include guard): the includer defines the row macros it wants,
 * the others are defined here to nothing, all are undefined at the end.
 *
 *   OPT(letter, "long", ARG, SET, help)    an option with a letter (long: NULL for none)
 *   LONG(CODE, "long", ARG, SET, help)     a long-only option: declares CODE
 *   TEXT(help)                             usage text that is no option's
 *
 * ARG: NONE or REQ (takes a value). SET: what opts_set does with it, one of
 * options.c's FLAG(field), FN(setter) or MAIN (main.c's: --version, -h). help:
 * the option's lines of --help exactly as printed, "" for none.
 *
 * Adding an option: its field in struct part_opts (options.h), its row here, and
 * any check across options in opts_validate. */
#ifndef OPT
#define OPT(letter, name, arg, set, help)
#endif
#ifndef LONG
#define LONG(code, name, arg, set, help)
#endif
#ifndef TEXT
#define TEXT(help)
#endif

TEXT(
"usage: esxpart [options] [DISK|IMAGE ...]\n"
"\n"
"Identify ESXi partitions by GPT type GUID and by content (VMFS volume header,\n"
"VMFS / VMFS-L FS info, FAT label): OSDATA, VMFS datastores, bootbanks, coredump,\n"
"and check the partition table (MBR, primary and backup GPT). Never writes.\n"
"Without DISK: every whole disk in /vmfs/devices/disks (ESXi) or /sys/block (Linux).\n"
"A DISK must be a regular file (an image) or a block device; anything else (a\n"
"directory, FIFO, socket or character device) is refused, the others still read.\n"
"\n")
OPT('p', "partedutil", NONE, FLAG(partedutil),
"  -p, --partedutil     print exactly what 'partedUtil getptbl DISK' prints\n")
OPT('u', "usable", NONE, FLAG(usable),
"  -u, --usable         print first and last usable sector ('getUsableSectors')\n")
OPT('g', "types", NONE, FLAG(types),
"  -g, --types          print esxpart's table of partition types: GUID, getptbl\n"
"                       name, label, role (esxpart's own, not partedUtil showGuids)\n")
OPT('J', "json", NONE, FLAG(json),
"  -J, --json           JSON output (keys documented in docs/esxpart.md)\n")
OPT('v', "verify", NONE, FLAG(verify),
"  -v, --verify         exit 1 when any disk has an error-level finding (as sgdisk -v)\n")
OPT('s', "sector-size", REQ, FN(set_sector),
"  -s, --sector-size N  force the logical sector size: 512 or 4096\n")
LONG(OPT_VERSION, "version", NONE, MAIN,
"      --version        print the version\n")
OPT('h', "help", NONE, MAIN,
"  -h, --help           this text\n")
/* -V is refused with a pointer rather than given a meaning a script could
 * misread: it is verbose in esxperf, version in sgdisk, and --verify in the
 * command lines of esxpart 0.1 */
OPT('V', NULL, NONE, FN(refuse_V), "")
TEXT(
"\n"
"Examples:\n"
"  esxpart                                   all disks, table per disk\n"
"  esxpart --partedutil /vmfs/devices/disks/naa.5000c500a1b2c3d4\n"
"  esxpart -v -J disk.img > report.json\n"
"\n"
"Exit codes: 0 ok; 1 problems found (with --verify), some disk unreadable or not a\n"
"disk, a damaged table (with --partedutil), or no usable sectors (-u on a disk too\n"
"small for a GPT); 2 usage error, no disk readable, or the results could not be\n"
"written.\n")

#undef OPT
#undef LONG
#undef TEXT
