/* Which bootbank the bootloader boots next, by esx-boot's public rules
 * (safeboot/bootbank.c): at boot each bank's state moves on (UPGRADING 1 -> DIRTY 2:
 * booted once; DIRTY 2 -> INVALID 3: its first boot failed, rolled back; VALID and
 * INVALID stay; any other value -> INVALID); a bank counts when updated > 0, build
 * is set, quickboot is not, and its state after that move is VALID or DIRTY; the
 * highest updated wins, the first bank in partition order on a tie. A boot.cfg
 * without bootstate reads as VALID (safeboot/config.c sets 0 before parsing, though
 * bootbank.c's comment calls such a bank undefined: the code is followed). */
#include "bootbank.h"

static const char *const state_names[] = {
    [BANK_UNSET] = "unset", [BANK_VALID] = "valid", [BANK_UPGRADING] = "upgrading",
    [BANK_DIRTY] = "dirty", [BANK_INVALID] = "invalid",
};

const char *bank_state_name(enum bank_state s) { return state_names[s]; }

enum bank_state bank_state_of(const struct bootcfg *c)
{
    static const enum bank_state by_value[] = { BANK_VALID, BANK_UPGRADING, BANK_DIRTY,
                                                BANK_INVALID };
    if (!c->has_bootstate)
        return BANK_UNSET;
    if (c->bootstate < 0 || c->bootstate > 3)
        return BANK_INVALID;
    return by_value[c->bootstate];
}

/* the state after the loader's boot-time move, as bootstate values */
static int state_after(const struct bootcfg *c)
{
    static const int moved[] = { 0, 2, 3, 3 };
    int s = c->has_bootstate ? c->bootstate : 0;
    return s >= 0 && s <= 3 ? moved[s] : 3;
}

int bank_eligible(const struct bootcfg *c)
{
    int after = state_after(c);
    return !c->rejected && c->updated > 0 && c->build[0] && !c->quickboot && (after == 0 || after == 2);
}

int bank_choose(const struct bank_info *const *banks, size_t n)
{
    int best = -1;
    for (size_t i = 0; i < n; i++) {
        if (!banks[i]->has_cfg || !bank_eligible(&banks[i]->cfg))
            continue;
        if (best < 0 || banks[i]->cfg.updated > banks[best]->cfg.updated)
            best = (int)i;
    }
    return best;
}

const char *bank_verdict(const struct bank_info *b)
{
    const struct bootcfg *c = &b->cfg;
    if (!b->has_cfg)
        return "not bootable: no readable boot.cfg";
    if (b->cfg_truncated && !bank_eligible(c))
        return "cannot be told: boot.cfg is larger than esxpart reads, and a key past that "
               "may make it bootable";
    if (c->lines == 0)
        return "not bootable: boot.cfg has no key=value lines";
    if (c->rejected)
        return "not bootable: a number in boot.cfg is no number, so the loader rejects the file";
    if (c->quickboot)
        return "not bootable: a one-time QuickBoot bank";
    if (!c->build[0])
        return "not bootable: boot.cfg sets no build";
    if (c->updated == 0)
        return "not bootable: updated is 0";
    switch (bank_state_of(c)) {
    case BANK_UPGRADING:
        if (b->undecided)
            return "upgraded; which bank boots next cannot be told: a partition that may "
                   "hold a bank is cut off";
        return b->boots_next ? "boots next, once, as the first boot after an upgrade"
                             : "upgraded, not chosen (another bank has a higher updated)";
    case BANK_DIRTY:
        return "its first boot after an upgrade did not finish: the next boot marks it "
               "invalid and rolls back from it";
    case BANK_INVALID:
        return "a failed boot rolled back from it";
    default:
        if (b->undecided)
            return "bootable; which bank boots next cannot be told: a partition that may "
                   "hold a bank is cut off";
        return b->boots_next ? "boots next" : "the fallback (another bank has a higher "
                               "updated)";
    }
}
