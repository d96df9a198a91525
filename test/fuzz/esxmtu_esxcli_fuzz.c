/* libFuzzer target: what esxmtu reads from esxcli, the text of another program: the
 * plain output of `network diag ping` (what ecp_untrusted accepts is folded into
 * verdict evidence that must stay consistent: no more received than sent) and of `network ip interface list`
 * (a vmknic's netstack, the list of vmks named in a refusal). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../tools/esxmtu/esxcli_ping.h"
#include "../../tools/esxmtu/netstack.h"
#include "../../tools/esxmtu/verdict.h"

const char tool_name[] = "esxmtu_fuzz";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* a private copy of exactly the bytes, not NUL-terminated, so ASan sees any over-read */
    char *buf = malloc(size ? size : 1);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    /* folded only when its figures can be true, as esxmtu does (call_failed) */
    struct ecp_call big, small;
    memset(&big, 0, sizeof big);
    memset(&small, 0, sizeof small);
    big.count = small.count = 5;
    big.wait_s = small.wait_s = 2;
    (void)ecp_parse(buf, size, 8972, &big.res);
    (void)ecp_parse(buf, size / 2, 56, &small.res);
    char why[200];
    if (!ecp_untrusted(&big, why, sizeof why) && !ecp_untrusted(&small, why, sizeof why)) {
        if (big.res.received > big.res.transmitted || big.res.short_replies > big.res.received)
            abort();
        struct vstats s;
        memset(&s, 0, sizeof s);
        ecp_fold(&big.res, &small.res, &s);
        if (s.big_recv + s.big_short > s.big_sent || s.small_recv > s.small_sent)
            abort();
        (void)verdict_decide(&s);
    }
    char stack[NETSTACK_NAME_MAX], have[400];
    (void)netstack_of_vmk(buf, size, "vmk1", stack, sizeof stack, have, sizeof have);
    if (strlen(have) >= sizeof have || strlen(stack) >= sizeof stack)
        abort();
    free(buf);
    return 0;
}
