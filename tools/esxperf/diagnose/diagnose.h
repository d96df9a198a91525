/* The bottleneck of a run, decided from measured evidence alone: a table of rules
 * (diagnose.c; the path's MTU in diagnose_mtu.c), each naming one class, the figures it reads, its threshold and the
 * reason for it; the first rule whose figures are all known and whose test holds
 * names the run's class. Pure: evidence in, class, advice and the evidence list out;
 * gathering the evidence is the session's (diag_gather.c) and the streams'
 * (stream_evidence.c). Unknown figures are negative and named in `missing`: a rule
 * that needs one does not fire, so a host that refuses TCP_INFO still gets a verdict
 * from the rest, or `unknown` with what was missing. */
#ifndef ESXPERF_DIAGNOSE_H
#define ESXPERF_DIAGNOSE_H
#include <stddef.h>

enum diag_class {
    DIAG_PATH_MTU, DIAG_PACING, DIAG_LINE_RATE, DIAG_SENDER_CPU, DIAG_FRAGMENTATION,
    DIAG_NETWORK_LOSS, DIAG_RECEIVE_WINDOW, DIAG_SEND_BUFFER, DIAG_RECEIVER_CPU,
    DIAG_RECEIVE_BUFFER, DIAG_NETWORK, DIAG_UNKNOWN, DIAG_CLASSES
};

/* thresholds (the reasons are beside each rule in diagnose.c and in docs/esxperf.md) */
#define DIAG_PACING_PCT 90.0      /* the asked -b/--fq-rate reached */
#define DIAG_LINE_RATE_PCT 90.0   /* of the link's speed */
#define DIAG_CPU_BOUND_PCT 90.0   /* of one core: ran, or waited to run */
#define DIAG_LOSS_PCT 1.0         /* of the segments sent: retransmitted */
#define DIAG_LIMITED_PCT 50.0     /* of the time with data to send: limited by it */
#define DIAG_CROWDED_PCT 25.0     /* of its loop's run: a thread waited to run (runnable) */
#define DIAG_FED_PCT 50.0         /* of the sender's run: TCP had data to send */
#define DIAG_STARVED_PCT 25.0     /* of that time: held by a window free to grow */
#define DIAG_AUTOTUNE_FRAC 0.5    /* of the autotuning cap: the window is at its bound */
#define DIAG_INFLIGHT_FRAC 0.25   /* of the buffer -w made: in flight, the window is full */
#define DIAG_OVERFLOW_FRAC 0.5    /* of the datagrams lost: dropped by the receiving socket */
#define DIAG_OVERFLOW_CPU_PCT 75.0 /* of a core: a reader with its socket full had no room */
#define DIAG_ACKED_PCT 1.0        /* of the bytes sent: acknowledged (path-mtu, TCP) */
#define DIAG_LOST_ALL_PCT 99.0    /* of the datagrams: lost (path-mtu, UDP) */
#define DIAG_SMALL_PACKET 1280    /* bytes: an IP packet this size crosses any path */

/* What a run measured. Every figure is negative when it is not known. CPU figures
 * are percent of one core (a process over several cores may pass 100). */
struct diag_evidence {
    int udp;
    int streams;
    double rate_bps;              /* the test's direction, as the receiver counted it */
    double target_bps;            /* -b or --fq-rate times the streams; 0 = unpaced */
    double link_mbps;             /* the egress link's speed */
    int link_nominal;             /* 1: a virtual device's speed, no bound (veth, vmxnet3) */
    const char *link_name;        /* its name ("eth0", "vmnic1"), or NULL */
    const char *direction;        /* --bidir: the direction judged ("client to server") */
    int local_sender;             /* this side sends (its offloads are the sender's) */
    int tso_off, lro_off;         /* this host's TSO (uplink or /Net/UseHwTSO), LRO
                                   * (/Net/TcpipDefLROEnabled): 1 off, 0 on, -1 unknown */
    double snd_thread_pct;        /* the busiest sending thread: CPU it used */
    double snd_thread_demand_pct; /* ... and CPU it used or waited for (runnable) */
    double rcv_thread_pct, rcv_thread_demand_pct;   /* the busiest receiving thread */
    double snd_proc_pct, rcv_proc_pct;              /* the sending and receiving processes */
    double wall_us;               /* the TCP senders' loops ran, summed over the streams */
    double busy_us;               /* tcpi_busy_time summed over the streams */
    double rwnd_limited_us;       /* tcpi_rwnd_limited summed */
    double sndbuf_limited_us;     /* tcpi_sndbuf_limited summed */
    double app_limited;           /* tcpi_delivery_rate_app_limited of any stream (-1) */
    double rtt_us;                /* smoothed RTT (the largest stream's) */
    double segs_out, retrans;     /* data segments sent, retransmitted (TCP) */
    double dsack_dups;            /* ... of those the receiver had already (DSACK) */
    double udp_loss_pct;          /* datagrams lost (UDP) */
    double peer_wnd_bytes;        /* the largest window the receiver advertised */
    double window_bytes;          /* -w (0 = autotuning) */
    double snd_buf_bytes;         /* the sending socket's SO_SNDBUF as the kernel made it */
    double rcv_buf_bytes;         /* the receiving socket's SO_RCVBUF as the kernel made it */
    double udp_drop_pct;          /* the share of the datagrams arriving that the receiving
                                   * host dropped for a full socket buffer (UDP) */
    double autotune_cap_bytes;    /* the receive buffer autotuning may reach */
    /* the path's MTU (path-mtu, fragmentation) */
    int ipv6;                     /* the data connection's family: IP header 40, not 20 */
    double mss_bytes;             /* tcpi_snd_mss at the end (the largest stream's) */
    double mss_start_bytes;       /* ... before the first data (the handshake's) */
    double bytes_acked;           /* tcpi_bytes_acked summed (Linux 4.2) */
    double rto_backoff;           /* tcpi_backoff: timeouts in a row at the end (the most) */
    double route_mtu;             /* IP_MTU / IPV6_MTU of the connected data socket */
    double udp_len;               /* a datagram's payload (-l) */
    double udp_sent, udp_received; /* datagrams the sender sent, the receiver got */
    double frag_creates;          /* IP fragments this host made during the run
                                   * (/proc/net/snmp FragCreates, snmp6 Ip6FragCreates) */
    const char *peer;             /* the peer's address (the advice's esxmtu command), or NULL */
    const char *vmk;              /* the vmknic the data leaves by ("vmk1"), or NULL */
};

/* evidence with every figure unknown */
void diag_evidence_init(struct diag_evidence *e);

struct diag_item {
    const char *name;
    double value;
    const char *unit;
};

#define DIAG_ITEMS 40
/* something the run shows beside its bottleneck, in one line (stable key) */
#define DIAG_FINDINGS 4
struct diag_finding {
    const char *key;              /* "fragmentation" */
    char text[320];
};

struct diagnosis {
    enum diag_class cls;
    const char *key;              /* "sender-cpu" ... (stable: the JSON value) */
    const char *label;            /* "sender CPU" ... (the text line) */
    double link_mbps;             /* < 0: unknown (JSON null) */
    double percent_of_link;       /* < 0: unknown (JSON null) */
    char because[400];            /* the figures that decided, in words */
    char advice[320];
    char missing[200];            /* the evidence not measured, comma-separated, "" all */
    char link_note[160];          /* why the link's speed is no bound, "" when it may be */
    int n;
    struct diag_item ev[DIAG_ITEMS];
    int nfind;
    struct diag_finding find[DIAG_FINDINGS];
};

void diag_decide(const struct diag_evidence *e, struct diagnosis *d);
/* the bandwidth-delay product in bytes (rate x RTT), -1 unknown */
double diag_bdp_bytes(const struct diag_evidence *e);
/* d's evidence list and missing from e (diagnose_list.c; diag_decide calls it) */
void diag_list_evidence(const struct diag_evidence *e, struct diagnosis *d);
/* the class's key and label; NULL past the table */
const char *diag_class_key(enum diag_class c);
/* "bottleneck: sender CPU (...): advice [missing: ...]" without a newline */
void diag_line(const struct diagnosis *d, char *buf, size_t len);
/* "finding: fragmentation: ..." (finding i) without a newline */
void diag_finding_line(const struct diagnosis *d, int i, char *buf, size_t len);

/* the path's MTU (diagnose_mtu.c): the rules path-mtu and fragmentation (1 fires,
 * the words in w), the IP packets one datagram leaves in (-1 unknown), the MTU
 * classes' advice and the findings beside the bottleneck (diag_decide calls them) */
int diag_r_path_mtu(const struct diag_evidence *e, char *w, size_t n);
int diag_r_fragmentation(const struct diag_evidence *e, char *w, size_t n);
double diag_frags_per_datagram(const struct diag_evidence *e);
void diag_mtu_advice(const struct diag_evidence *e, struct diagnosis *d);
void diag_list_findings(const struct diag_evidence *e, struct diagnosis *d);

#endif
