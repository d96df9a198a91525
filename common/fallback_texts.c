/* The table of fallback texts by option name (fallback_texts.h). */
#include "fallback_texts.h"
#include "fallback.h"

#include <string.h>

static const struct {
    const char *option;
    const char *text;
} texts[] = {
    { "SO_REUSEADDR", FB_SO_REUSEADDR },
    { "IPV6_V6ONLY", FB_IPV6_V6ONLY },
    { "TCP_NODELAY", FB_TCP_NODELAY },
    { "SO_ZEROCOPY", FB_SO_ZEROCOPY },
    { "SO_RCVLOWAT", FB_SO_RCVLOWAT },
    { "SO_RCVTIMEO", FB_TIMEO },
    { "SO_SNDTIMEO", FB_TIMEO },
    { "IP_PKTINFO", FB_PKTINFO },
    { "IPV6_RECVPKTINFO", FB_PKTINFO },
    { "UDP_SEGMENT", FB_UDP_SEGMENT },
    { "UDP_GRO", FB_UDP_GRO },
};

const char *fallback_says(const char *option)
{
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++)
        if (strcmp(texts[i].option, option) == 0)
            return texts[i].text;
    return NULL;
}

void fallback_refused(const char *option, int err)
{
    const char *t = fallback_says(option);
    fallback_note(option, err, t ? t : "");
}
