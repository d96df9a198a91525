/* Verdicts: the order of the checks is the order of the evidence's strength. */
#include "verdict.h"
#include "packet.h"

#include <sys/socket.h>

int verdict_decide(const struct vstats *s)
{
    if (s->big_recv > 0)
        return V_PASS;          /* a full-size reply is proof, even with loss */
    if (s->local > 0)
        return V_LOCAL_MTU;
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
    return V_NO_REPLY;
}

const char *verdict_name(int v)
{
    static const char *const names[] = { "PASS", "LOCAL-MTU", "TOO-BIG", "SHORT-REPLY",
                                         "UNREACHABLE", "TTL-EXCEEDED", "BLACK-HOLE",
                                         "NO-REPLY" };
    return v >= 0 && v <= V_NO_REPLY ? names[v] : "?";
}

int verdict_ok(int v)
{
    return v == V_PASS;
}

const char *verdict_icmp_name(int family, uint8_t type, uint8_t code)
{
    if (family == AF_INET6) {
        static const char *const u6[] = { "no route to destination", "administratively prohibited",
                                          "beyond scope of source address", "address unreachable",
                                          "port unreachable", "source address failed policy",
                                          "reject route to destination" };
        if (type == ICMP6_UNREACH)
            return code < sizeof u6 / sizeof u6[0] ? u6[code] : "destination unreachable";
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
        return code < sizeof u4 / sizeof u4[0] ? u4[code] : "destination unreachable";
    if (type == ICMP4_TIME_EXCEEDED)
        return "time to live exceeded";
    if (type == ICMP4_PARAM)
        return "parameter problem";
    return "ICMP error";
}
