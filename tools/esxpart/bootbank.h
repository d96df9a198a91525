/* ESXi bootbanks: a partition carrying the mark the installer writes in its sector
 * 1, its boot.cfg, and which bank the bootloader would boot next. */
#ifndef ESXPART_BOOTBANK_H
#define ESXPART_BOOTBANK_H
#include <stddef.h>
#include <stdint.h>
#include "bootcfg.h"

#define BANK_MARK "VMWARE FAT16    "   /* 16 bytes at the start of sector 1 */

enum bank_state { BANK_UNSET, BANK_VALID, BANK_UPGRADING, BANK_DIRTY, BANK_INVALID };

struct bank_info {
    int marked;               /* the mark is there */
    unsigned index;           /* 1, 2, ...: order of marked partitions by number */
    unsigned char uuid[16];
    int has_cfg;              /* boot.cfg read and parsed */
    uint32_t cfg_size;        /* its size in the directory */
    int cfg_truncated;        /* larger than BOOTCFG_MAX: only that much was read */
    int undecided;            /* the choice cannot be made: a possible bank is cut off */
    const char *cfg_problem;  /* why not (fat16_rc_text), NULL when read */
    struct bootcfg cfg;
    int eligible;             /* the loader may boot it */
    int boots_next;
};

/* the pure decision, for the unit tests: the state boot.cfg gives, and whether the
 * loader counts the bank after its boot-time transitions */
enum bank_state bank_state_of(const struct bootcfg *c);
int bank_eligible(const struct bootcfg *c);
/* which of n banks (in partition-number order) boots next: the eligible one with
 * the highest updated, the first on a tie; -1 when none */
int bank_choose(const struct bank_info *const *banks, size_t n);
const char *bank_state_name(enum bank_state s);
/* the words after the state: "boots next", "a failed boot rolled back from it", ... */
const char *bank_verdict(const struct bank_info *b);

#endif
