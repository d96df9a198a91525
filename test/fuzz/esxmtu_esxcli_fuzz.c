/* libFuzzer target: what esxmtu reads from esxcli, the text of another program: the
 * plain output of `network diag ping` (folded into verdict evidence that must stay
 * consistent: no more received than sent) and of `network ip interface list`
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
    struct ecp_result big, small;
    (void)ecp_parse(buf, size, 8972, &big);
    (void)ecp_parse(buf, size / 2, 56, &small);
    if (big.received > big.transmitted || big.short_replies > big.received)
        abort();
    struct vstats s;
    memset(&s, 0, sizeof s);
    ecp_fold(&big, &small, &s);
    if (s.big_recv + s.big_short > s.big_sent || s.small_recv > s.small_sent)
        abort();
    (void)verdict_decide(&s);
    char stack[NETSTACK_NAME_MAX], have[400];
    (void)netstack_of_vmk(buf, size, "vmk1", stack, sizeof stack, have, sizeof have);
    if (strlen(have) >= sizeof have || strlen(stack) >= sizeof stack)
        abort();
    free(buf);
    return 0;
}
