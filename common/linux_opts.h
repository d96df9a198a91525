/* Linux socket option numbers that an older musl's headers may lack. They are the
 * kernel's ABI (include/uapi), the same on x86_64 and aarch64; a kernel without one
 * refuses it, which the tools treat as any other refusal. */
#ifndef ESXDIAG_LINUX_OPTS_H
#define ESXDIAG_LINUX_OPTS_H
#include <netinet/in.h>
#include <sys/socket.h>

/* socket levels and protocols */
#ifndef SOL_UDP
#define SOL_UDP 17
#endif
#ifndef IPPROTO_MPTCP
#define IPPROTO_MPTCP 262
#endif

/* SOL_SOCKET */
#ifndef SO_MAX_PACING_RATE
#define SO_MAX_PACING_RATE 47
#endif
#ifndef SO_RCVBUFFORCE
#define SO_RCVBUFFORCE 33
#endif
#ifndef SO_SNDBUFFORCE
#define SO_SNDBUFFORCE 32
#endif
#ifndef SO_ZEROCOPY
#define SO_ZEROCOPY 60
#endif

/* IPPROTO_IP */
#ifndef IP_MTU_DISCOVER
#define IP_MTU_DISCOVER 10
#endif
#ifndef IP_PMTUDISC_PROBE
#define IP_PMTUDISC_PROBE 3
#endif
#ifndef IP_RECVERR
#define IP_RECVERR 11
#endif

/* IPPROTO_IPV6 */
#ifndef IPV6_DONTFRAG
#define IPV6_DONTFRAG 62
#endif
#ifndef IPV6_FLOWINFO_SEND
#define IPV6_FLOWINFO_SEND 33
#endif
#ifndef IPV6_FLOWLABEL_MGR
#define IPV6_FLOWLABEL_MGR 32
#endif
#ifndef IPV6_MTU_DISCOVER
#define IPV6_MTU_DISCOVER 23
#endif
#ifndef IPV6_PMTUDISC_PROBE
#define IPV6_PMTUDISC_PROBE 3
#endif
#ifndef IPV6_RECVERR
#define IPV6_RECVERR 25
#endif

/* SOL_UDP */
#ifndef UDP_GRO
#define UDP_GRO 104
#endif
#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif

/* send flags */
#ifndef MSG_ZEROCOPY
#define MSG_ZEROCOPY 0x4000000
#endif

#endif
