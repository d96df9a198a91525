/* tools/esxpart bootcfg.c and bootbank.c: boot.cfg read by the loader's rules, and
 * which bank boots next, as a table of cases. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "../../tools/esxpart/bootbank.h"
#include "../../tools/esxpart/bootcfg.h"

const char tool_name[] = "esxpart";

static void parse(const char *text, struct bootcfg *c)
{
    bootcfg_parse(text, strlen(text), c);
}

static void bootcfg_by_the_loaders_rules(void **state)
{
    (void)state;
    struct bootcfg c;
    parse("bootstate=0\ntitle=Loading VMware ESXi\ntimeout=5\nprefix=\nkernel=b.b00\n"
          "kernelopt=autoPartition=FALSE\nmodules=jumpstrt.gz --- useropts.gz --- k.b00\n"
          "build=8.0.3-24022510\nupdated=4\n", &c);
    assert_string_equal(c.build, "8.0.3-24022510");
    assert_string_equal(c.title, "Loading VMware ESXi");
    assert_string_equal(c.kernelopt, "autoPartition=FALSE");   /* split at the first '=' */
    assert_int_equal(c.updated, 4);
    assert_int_equal(c.bootstate, 0);
    assert_true(c.has_bootstate);
    assert_int_equal(c.modules, 3);
    assert_false(c.quickboot);

    /* keys without case, blanks around '=' trimmed, comments, CRLF, no final newline */
    parse("# a comment\r\n  BUILD =  6.7.0-15160138  \r\nUpdated= 2\r\n  # x=1\r\nBootState=3", &c);
    assert_string_equal(c.build, "6.7.0-15160138");
    assert_int_equal(c.updated, 2);
    assert_int_equal(c.bootstate, 3);
    assert_int_equal(c.lines, 3);
    assert_false(c.num[CFG_UPDATED].odd);
    /* '#' after a value is part of it, as for the loader: no number, the file rejected */
    parse("build=a # b\nupdated=2 # two\n", &c);
    assert_string_equal(c.build, "a # b");
    assert_true(c.rejected);
    assert_string_equal(c.reject_key, "updated");
    assert_string_equal(c.reject_text, "2 # two");
    assert_false(bank_eligible(&c));

    /* missing bootstate: config.c's default 0, marked as unset */
    parse("build=x\nupdated=1\n", &c);
    assert_false(c.has_bootstate);
    assert_int_equal(bank_state_of(&c), BANK_UNSET);

    /* not numbers; a value longer than the field is cut, never overrun */
    char big[400];
    memset(big, 'b', sizeof big);
    memcpy(big, "build=", 6);
    big[sizeof big - 1] = 0;
    bootcfg_parse(big, strlen(big), &c);
    assert_int_equal(strlen(c.build), sizeof c.build - 1);
    /* numbers as esx-boot's atoi reads them: strtol saturates at the long's bounds
     * (64-bit UEFI, 32-bit BIOS), the int keeps the low 32 bits, updated is unsigned */
    static const struct { const char *text; uint32_t updated; int32_t bios; int odd; } nums[] = {
        { "4", 4, 4, 0 },                                 { "007", 7, 7, 0 },
        { "", 0, 0, 1 },                                  { "-", 0, 0, 1 },
        { "-5", 4294967291u, -5, 1 },                     { "2147483647", 2147483647u, 2147483647, 0 },
        { "3000000000", 3000000000u, 2147483647, 1 },     { "4294967296", 0, 2147483647, 1 },
        { "99999999999999999999999", 4294967295u, 2147483647, 1 },
        { "-99999999999999999999999", 0, INT32_MIN, 1 },
    };
    for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++) {
        char line[64];
        snprintf(line, sizeof line, "updated=%s\n", nums[i].text);
        parse(line, &c);
        if (c.rejected || c.updated != nums[i].updated || c.num[CFG_UPDATED].bios != nums[i].bios ||
            c.num[CFG_UPDATED].odd != nums[i].odd)
            fail_msg("updated=%s: %u (bios %d, odd %d)", nums[i].text, c.updated,
                     c.num[CFG_UPDATED].bios, c.num[CFG_UPDATED].odd);
    }
    parse("updated=12\nbootstate=x\nquickboot=1\nmodules= --- a ---  --- b\n", &c);
    assert_true(c.rejected);                /* bootstate=x: the whole file rejected */
    assert_string_equal(c.reject_key, "bootstate");
    assert_true(c.quickboot);
    assert_int_equal(c.modules, 2);
    parse("bootstate=99999999999999999999999\n", &c);   /* LONG_MAX, -1 in the int: invalid */
    assert_int_equal(c.bootstate, -1);
    assert_int_equal(bank_state_of(&c), BANK_INVALID);
    /* no key=value lines: binary, or a key that is no word */
    parse("\x89PNG\r\n\x1a\n\x01=\x02\n\xff=1\n", &c);
    assert_int_equal(c.lines, 0);
    /* a NUL inside the text ends its line, not the parse */
    static const char nul[] = "build=a\0zz\nupdated=7\n";
    bootcfg_parse(nul, sizeof nul - 1, &c);
    assert_string_equal(c.build, "a");
    assert_int_equal(c.updated, 7);
}

struct bank_case {
    const char *name;
    const char *cfg[3];     /* NULL: no boot.cfg read for that bank; "" ends the list */
    int next;               /* index of the bank that boots next, -1 none */
};

static const struct bank_case cases[] = {
    { "one valid bank",                { "build=a\nupdated=1\nbootstate=0\n", "" }, 0 },
    { "higher updated wins",           { "build=a\nupdated=3\nbootstate=0\n",
                                         "build=b\nupdated=4\nbootstate=0\n", "" }, 1 },
    { "a tie: the earlier partition",  { "build=a\nupdated=4\nbootstate=0\n",
                                         "build=b\nupdated=4\nbootstate=0\n", "" }, 0 },
    { "upgrading boots once",          { "build=a\nupdated=5\nbootstate=1\n",
                                         "build=b\nupdated=4\nbootstate=0\n", "" }, 0 },
    { "dirty is rolled back from",     { "build=a\nupdated=5\nbootstate=2\n",
                                         "build=b\nupdated=4\nbootstate=0\n", "" }, 1 },
    { "invalid never boots",           { "build=a\nupdated=5\nbootstate=3\n",
                                         "build=b\nupdated=4\nbootstate=0\n", "" }, 1 },
    { "unknown state is invalid",      { "build=a\nupdated=5\nbootstate=7\n",
                                         "build=b\nupdated=4\nbootstate=0\n", "" }, 1 },
    { "missing bootstate reads as 0",  { "build=a\nupdated=5\n",
                                         "build=b\nupdated=4\nbootstate=0\n", "" }, 0 },
    { "updated 0 does not count",      { "build=a\nupdated=0\nbootstate=0\n",
                                         "build=b\nupdated=1\nbootstate=3\n", "" }, -1 },
    { "no build does not count",       { "updated=9\nbootstate=0\n",
                                         "build=b\nupdated=1\nbootstate=0\n", "" }, 1 },
    { "quickboot does not count",      { "build=a\nupdated=9\nbootstate=0\nquickboot=1\n",
                                         "build=b\nupdated=1\nbootstate=0\n", "" }, 1 },
    { "no boot.cfg does not count",    { NULL, "build=b\nupdated=1\nbootstate=0\n", "" }, 1 },
    { "three banks, the third wins",   { "build=a\nupdated=1\nbootstate=0\n",
                                         "build=b\nupdated=2\nbootstate=3\n",
                                         "build=c\nupdated=2\nbootstate=0\n" }, 2 },
};

static void boots_next_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct bank_info b[3];
        const struct bank_info *p[3];
        size_t n = 0;
        memset(b, 0, sizeof b);
        for (; n < 3 && !(cases[i].cfg[n] && !cases[i].cfg[n][0]); n++) {
            b[n].marked = 1;
            if (cases[i].cfg[n]) {
                parse(cases[i].cfg[n], &b[n].cfg);
                b[n].has_cfg = 1;
            }
            p[n] = &b[n];
        }
        int got = bank_choose(p, n);
        if (got != cases[i].next)
            fail_msg("%s: bank %d boots next, expected %d", cases[i].name, got, cases[i].next);
    }
}

static void verdict_words(void **state)
{
    (void)state;
    struct bank_info b;
    memset(&b, 0, sizeof b);
    assert_string_equal(bank_verdict(&b), "not bootable: no readable boot.cfg");
    b.has_cfg = 1;
    parse("build=a\nupdated=4\nbootstate=3\n", &b.cfg);
    assert_string_equal(bank_state_name(bank_state_of(&b.cfg)), "invalid");
    assert_string_equal(bank_verdict(&b), "a failed boot rolled back from it");
    parse("build=a\nupdated=4\nbootstate=0\n", &b.cfg);
    b.boots_next = 1;
    assert_string_equal(bank_verdict(&b), "boots next");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bootcfg_by_the_loaders_rules),
        cmocka_unit_test(boots_next_table),
        cmocka_unit_test(verdict_words),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
