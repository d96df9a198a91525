/* What the tools do instead when this host refuses a socket option, one text per
 * option, held once: esxperf's "fallback:" lines (-V, -J) and esxdiag-selftest's
 * fallback column both take their words from here, so the two never read
 * differently. The texts are macros so that static tables (the self-test's probe
 * rows) can join them to a tool's name at compile time. */
#ifndef ESXDIAG_FALLBACK_TEXTS_H
#define ESXDIAG_FALLBACK_TEXTS_H

#define FB_SO_REUSEADDR "listen without it: a port just used may be refused for up to a minute; " \
                        "a UDP test of -P 2 or more ends"
#define FB_IPV6_V6ONLY  "the wildcard listener keeps this host's default for IPv4 clients"
#define FB_TCP_NODELAY  "control messages go with Nagle's delay (the figures are the same)"
#define FB_SO_ZEROCOPY  "-Z sends with sendfile(), not MSG_ZEROCOPY"
#define FB_SO_RCVLOWAT  "TCP receive wakes for every segment (no SO_RCVLOWAT)"
#define FB_TIMEO        "non-blocking data sockets, poll() before each retry"
#define FB_PKTINFO      "UDP streams answer from the address the routing table picks"
#define FB_UDP_SEGMENT  "one datagram per message (no GSO)"
#define FB_UDP_GRO      "one datagram per message (no GRO)"

/* the text for OPTION ("SO_REUSEADDR", as fallback_note names it); NULL when the
 * table has none */
const char *fallback_says(const char *option);
/* fallback_note(OPTION, ERR, fallback_says(OPTION)); keeps errno */
void fallback_refused(const char *option, int err);

#endif
