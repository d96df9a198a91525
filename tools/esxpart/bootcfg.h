/* boot.cfg as ESXi's loader reads it: one key=value a line, keys case-insensitive,
 * '#' starts a comment, blanks around '=' and at the ends trimmed. Only the keys
 * the bank choice and the report need are kept. */
#ifndef ESXPART_BOOTCFG_H
#define ESXPART_BOOTCFG_H
#include <stddef.h>
#include <stdint.h>

struct bootcfg {
    char build[64];
    char title[96];
    char kernelopt[160];
    uint32_t updated;       /* 0 when missing or not a number */
    int bootstate;          /* 0 when missing (the loader's default); -1 not a number */
    int has_bootstate;
    int quickboot;
    unsigned modules;       /* entries of modules=, separated by " --- " */
};

/* parse len bytes of text (no NUL needed); never fails: what is not understood is
 * left out */
void bootcfg_parse(const char *text, size_t len, struct bootcfg *c);

#endif
