/* Verdicts: the order of the checks is the order of the evidence's strength. */
#include "verdict.h"
#include "packet.h"
#include "bytes.h"

#include <stdio.h>
#include <sys/socket.h>

enum verdict verdict_decide(const struct vstats *s)
{
    if (s->big_recv > 0)
        return V_PASS;          /* a full-size reply is proof, even with loss */
    if (s->local > 0 && !(s->pmtu_cache && s->too_big > 0))
        return V_LOCAL_MTU;
    if (s->send_fail > 0 && s->small_recv > 0)
        return V_LOCAL_MTU;     /* small ones leave and come back: the size is refused here */
    if (s->too_big > 0)
        return V_TOO_BIG;
    if (s->big_short > 0)
        return V_SHORT_REPLY;
    if (s->unreach > 0)
        return V_UNREACHABLE;
    if (s->ttl > 0)
        return V_TTL_EXCEEDED;
    if (s->small_recv > 0)
        return V_BLACK_HOLE;
    if (s->send_fail > 0 || s->small_send_fail > 0)
        return V_SEND_FAILED;
    return V_NO_REPLY;
}

static const char *const verdict_names[] = {
    [V_PASS] = "PASS", [V_LOCAL_MTU] = "LOCAL-MTU", [V_TOO_BIG] = "TOO-BIG",
    [V_SHORT_REPLY] = "SHORT-REPLY", [V_UNREACHABLE] = "UNREACHABLE", [V_TTL_EXCEEDED] = "TTL-EXCEEDED",
    [V_BLACK_HOLE] = "BLACK-HOLE", [V_NO_REPLY] = "NO-REPLY", [V_SEND_FAILED] = "SEND-FAILED",
    [V_INTERRUPTED] = "INTERRUPTED",
};
_Static_assert(ARRAY_SIZE(verdict_names) == V_LAST + 1, "a name for every enum verdict");

const char *verdict_name(enum verdict v)
{
    return (unsigned)v < ARRAY_SIZE(verdict_names) ? verdict_names[v] : "?";
}

int verdict_ok(enum verdict v)
{
    return v == V_PASS;
}

int verdict_answered(enum verdict v)
{
    return v != V_NO_REPLY && v != V_UNREACHABLE && v != V_TTL_EXCEEDED && v != V_SEND_FAILED &&
           v != V_INTERRUPTED;
}

const char *verdict_bogus_why(int family, uint32_t mtu, uint32_t probe_mtu, uint32_t passed,
                              char *buf, size_t len)
{
    if (mtu < pkt_min_mtu(family))
        snprintf(buf, len, "below the %s minimum %u", family == AF_INET6 ? "IPv6" : "IPv4", pkt_min_mtu(family));
    else if (mtu >= probe_mtu)
        snprintf(buf, len, "not below the %u-byte probe", probe_mtu);
    else if (mtu < passed)
        snprintf(buf, len, "below %u, which was answered", passed);
    else
        return NULL;
    return buf;
}

const char *verdict_icmp_name(int family, uint8_t type, uint8_t code)
{
    if (family == AF_INET6) {
        static const char *const u6[] = { "no route to destination", "administratively prohibited",
                                          "beyond scope of source address", "address unreachable",
                                          "port unreachable", "source address failed policy",
                                          "reject route to destination" };
        if (type == ICMP6_UNREACH)
            return code < ARRAY_SIZE(u6) ? u6[code] : "destination unreachable";
        if (type == ICMP6_TOO_BIG)
            return "packet too big";
        if (type == ICMP6_TIME_EXCEEDED)
            return "hop limit exceeded";
        if (type == ICMP6_PARAM)
            return "parameter problem";
        return "ICMPv6 error";
    }
    static const char *const u4[] = { "net unreachable", "host unreachable", "protocol unreachable",
                                      "port unreachable", "frag needed and DF set", "source route failed",
                                      "net unknown", "host unknown", "source host isolated",
                                      "net prohibited", "host prohibited", "net unreachable for TOS",
                                      "host unreachable for TOS", "communication administratively prohibited",
                                      "host precedence violation", "precedence cutoff" };
    if (type == ICMP4_UNREACH)
        return code < ARRAY_SIZE(u4) ? u4[code] : "destination unreachable";
    if (type == ICMP4_TIME_EXCEEDED)
        return "time to live exceeded";
    if (type == ICMP4_PARAM)
        return "parameter problem";
    return "ICMP error";
}

void verdict_weigh_discovery(struct vstats *s, uint32_t passed)
{
    if (!s->too_big || s->next_hop_mtu >= passed)
        return;
    if (!s->bogus) {
        s->bogus_mtu = s->next_hop_mtu;
        s->bogus_from = s->router;
        s->bogus_from_set = s->router_set;
    }
    s->bogus += s->too_big;
    s->big_lost += s->too_big;
    s->too_big = 0;
    s->next_hop_mtu = 0;
    if (!s->unreach && !s->ttl)
        s->router_set = 0;
}
