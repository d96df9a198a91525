/* boot.cfg as ESXi's loader reads it (esx-boot bootlib/parse.c, safeboot/config.c):
 * one key=value a line, keys case-insensitive, a line whose first character that
 * is not blank is '#' a comment, blanks around '=' and at the ends trimmed. The
 * numbers (updated, bootstate, quickboot) as the loader reads them: a value that is
 * not an optional '-' and digits makes it reject the whole file; any other is
 * atoi()'s. Only the keys the bank choice and the report need are kept. */
#ifndef ESXPART_BOOTCFG_H
#define ESXPART_BOOTCFG_H
#include <stddef.h>
#include <stdint.h>

/* the most of a boot.cfg read, far above any real one (a few KiB: the loader
 * rewrites bootstate within the first 512 bytes); past it the file is reported
 * as truncated */
#define BOOTCFG_MAX (1024u * 1024u)

enum { CFG_UPDATED, CFG_BOOTSTATE, CFG_QUICKBOOT, CFG_NUMS };

/* one number key as written and as the loader reads it */
struct cfg_num {
    int set;                /* the key is there */
    char text[40];          /* its value as written (cut to fit) */
    int32_t value;          /* what atoi() gives in a 64-bit (UEFI) loader */
    int32_t bios;           /* and in the 32-bit legacy BIOS loader */
    int odd;                /* the loader's value is not what the text says */
};

struct bootcfg {
    char build[64];
    char title[96];
    char kernelopt[160];
    uint32_t updated;       /* as the loader stores it: its int turned unsigned */
    int bootstate;          /* 0 when missing (the loader's default) */
    int has_bootstate;
    int quickboot;
    unsigned modules;       /* entries of modules=, separated by " --- " */
    unsigned lines;         /* key=value lines, any key of printable ASCII */
    struct cfg_num num[CFG_NUMS];
    int rejected;           /* a number key's value is no number: the loader rejects the file */
    char reject_key[16];    /* the first such key and its value as written */
    char reject_text[40];
};

/* parse len bytes of text (no NUL needed); never fails: what is not understood is
 * left out */
void bootcfg_parse(const char *text, size_t len, struct bootcfg *c);
/* the name of number key i ("updated", ...) */
const char *bootcfg_num_name(int i);

#endif
