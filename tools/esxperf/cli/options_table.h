/* esxperf's options, one row each, in the order --help shows them: everything
 * else about an option is derived from its row (the enum code, what opts_set
 * sets, getopt_long's short string and long table, the usage text, the role
 * checks). Included several times (no include guard): the includer defines the
 * four row macros it wants, the others are defined here to nothing, and all four
 * are undefined at the end.
 *
 *   OPT(letter, "long", ARG, ROLE, SET, help)    an option with a letter
 *   LONG(O_CODE, "long", ARG, ROLE, SET, help)   a long-only option: declares O_CODE
 *   ALIAS(code, "long", ARG, NAMED)              another long name of code's option
 *   TEXT(help)                                   usage text that is no option's
 *
 * ARG: NONE, REQ or OPTARG (the value: none, required, optional as --x=V).
 * ROLE: ANY, CLIENT (refused on a server: the client sets up each test) or
 * SERVER (refused on a client). SET: what opts_set does with the value, one of
 * options.c's FLAG(field), STR(field), NUM(field, min, max, what),
 * CNUM(field, min, max, what), PORT(field, what), SIZE(field, min, max, what,
 * unit), FN(setter), or MAIN (main.c's: -h, -v). help: the option's lines of
 * --help exactly as printed, or "" when another row's lines name it. NAMED:
 * SHOWN when some row's help names the alias, HIDDEN for a name kept only for
 * iperf3's command lines.
 *
 * Adding an option: its field in struct perf_opts (options.h), its row here,
 * and any check across options in options_check.c. */
#ifndef OPT
#define OPT(letter, name, arg, role, set, help)
#endif
#ifndef LONG
#define LONG(code, name, arg, role, set, help)
#endif
#ifndef ALIAS
#define ALIAS(code, name, arg, named)
#endif
#ifndef TEXT
#define TEXT(help)
#endif

TEXT(
"usage: esxperf -s [-p PORT] [-1] [-J] [-B ADDR]\n"
"       esxperf -c HOST [-p PORT] [-t SEC | -n BYTES | -k BLOCKS] [-u] [-P N] [-R | --bidir] ...\n"
"\n"
"iperf3-compatible throughput test: works against any iperf3 server or client.\n"
"\n"
"Server or client:\n")
OPT('s', "server", NONE, ANY, FLAG(server),
"  -s, --server             run as server (one test at a time, others get ACCESS_DENIED)\n")
OPT('c', "client", REQ, ANY, FN(set_client),
"  -c, --client HOST        run as client against HOST\n")
OPT('p', "port", REQ, ANY, PORT(port, "port"),
"  -p, --port PORT          server port (default 5201)\n")
OPT('f', "format", REQ, ANY, FN(set_format),
"  -f, --format [kmgtKMGT]  units of the rate column (default adaptive bits)\n")
OPT('i', "interval", REQ, ANY, FN(set_interval),
"  -i, --interval SEC       seconds between interval rows (default 1, 0 = none)\n")
OPT('B', "bind", REQ, ANY, FN(set_bind),
"  -B, --bind ADDR[%DEV]    bind to this local address (%DEV: as --bind-dev DEV)\n")
LONG(O_NETSTACK, "netstack", REQ, ANY, STR(netstack),
"      --netstack NETSTACK  run in this ESXi netstack (vmotion...): enter it with the\n"
"                           ++netstack= launch word, then check that -B ADDR (or\n"
"                           --bind-dev vmkN's address) can be bound; exit 2 when not\n"
"                           (-V and -J say which netstack and how it is known)\n")
OPT('4', "version4", NONE, ANY, FN(set_ipv4),
"  -4 / -6                  IPv4 / IPv6 only (also --version4 / --version6)\n")
OPT('6', "version6", NONE, ANY, FN(set_ipv6), "")
OPT('J', "json", NONE, ANY, FLAG(json),
"  -J, --json               iperf3's JSON structure plus an \"esxperf\" object\n")
OPT('V', "verbose", NONE, ANY, FLAG(verbose),
"  -V, --verbose            more detail\n")
LONG(O_LOGFILE, "logfile", REQ, ANY, STR(logfile),
"      --logfile FILE       write output to FILE\n")
LONG(O_FORCEFLUSH, "forceflush", NONE, ANY, FLAG(forceflush),
"      --forceflush         flush output after every line\n")
LONG(O_JSON_STREAM, "json-stream", NONE, ANY, FN(set_json_stream),
"      --json-stream        -J as one JSON event a line: start, interval..., end\n"
"                           (error on failure), as iperf3 3.17+\n")
LONG(O_JSON_STREAM_FULL, "json-stream-full-output", NONE, ANY, FLAG(json_stream_full),
"      --json-stream-full-output  with --json-stream: the whole -J document too\n")
LONG(O_TIMESTAMPS, "timestamps", OPTARG, ANY, FN(set_timestamps),
"      --timestamps[=FMT]   start every output line with the local time, strftime\n"
"                           FMT (default \"%c \")\n")
OPT('F', "file", REQ, ANY, STR(file),
"  -F, --file NAME          client: send NAME (without -t/-n/-k: its size is -n); with\n"
"                           -R (or on a server) write what arrives to NAME; TCP only\n")
OPT('I', "pidfile", REQ, ANY, STR(pidfile),
"  -I, --pidfile FILE       write our pid to FILE, remove it at exit (refused while\n"
"                           the pid in FILE runs)\n")
OPT('d', "debug", OPTARG, ANY, FN(set_debug),
"  -d, --debug[=LEVEL]      iperf3's debug output: esxperf prints what -V prints\n")
LONG(O_IDLE_TIMEOUT, "idle-timeout", REQ, SERVER, NUM(idle_timeout, 1, 86400, "idle timeout"),
"      --idle-timeout SEC   server with -1: exit 1 when no client comes within SEC\n")
OPT('1', "one-off", NONE, SERVER, FLAG(one_off),
"  -1, --one-off            server: handle one test, then exit\n")
LONG(O_PKCS1, "use-pkcs1-padding", NONE, ANY, FLAG(use_pkcs1),
"      --use-pkcs1-padding  client: RSA token with PKCS#1 v1.5 instead of OAEP, for\n"
"                           iperf3 <= 3.16 servers (Debian 12's 3.12); our server takes both\n")
TEXT(
"Sockets (iperf3 3.22's; client and server alike):\n")
LONG(O_BIND_DEV, "bind-dev", REQ, ANY, STR(bind_dev),
"      --bind-dev DEV       SO_BINDTODEVICE: control and data sockets use interface DEV\n"
"                           only (also -c HOST%DEV; root or CAP_NET_RAW)\n")
LONG(O_RCV_TIMEOUT, "rcv-timeout", REQ, ANY,
     NUM(rcv_timeout_ms, 100, 86400000, "receive timeout (--rcv-timeout, ms)"),
"      --rcv-timeout MS     a receiving side that gets no data for MS ms ends the test\n"
"                           (100..86400000, default 120000; client only with -R/--bidir)\n")
LONG(O_SND_TIMEOUT, "snd-timeout", REQ, ANY,
     NUM(snd_timeout_ms, 0, 86400000, "send timeout (--snd-timeout, ms)"),
"      --snd-timeout MS     TCP_USER_TIMEOUT on the control and TCP data connections:\n"
"                           data unacknowledged for MS ms drops the connection (0 = system)\n")
LONG(O_CNTL_KA, "cntl-ka", OPTARG, ANY, FN(set_cntl_ka),
"      --cntl-ka[=I/N/C]    TCP keepalive on the control connection: idle I s,\n"
"                           interval N s, C probes (each optional: the system's; I > N x C)\n")
OPT('m', "mptcp", NONE, ANY, FLAG(mptcp),
"  -m, --mptcp              data streams over MPTCP (the control connection stays TCP;\n"
"                           a server listens MPTCP); refused (exit 2) where the kernel\n"
"                           has no MPTCP, as on ESXi\n")
LONG(O_SCTP, "sctp", NONE, ANY, FN(set_sctp),
"      --sctp               refused (exit 2): ESXi has no SCTP\n")
TEXT(
"Server protection:\n")
LONG(O_RSA_PRIV, "rsa-private-key-path", REQ, SERVER, STR(rsa_private_key),
"      --rsa-private-key-path FILE  require an authtoken; FILE: unencrypted PEM, mode 600\n")
LONG(O_USERS, "authorized-users-path", REQ, SERVER, STR(authorized_users),
"      --authorized-users-path FILE lines user,sha256hex(\"{user}password\"), reread per test\n")
LONG(O_SKEW, "time-skew-threshold", REQ, SERVER,
     NUM(time_skew, 0, AUTH_SKEW_MAX, "time skew threshold"),
"      --time-skew-threshold SEC    token age/skew allowed (default 10)\n")
LONG(O_READABLE_KEY, "allow-readable-key", NONE, SERVER, FLAG(allow_readable_key),
"      --allow-readable-key         accept a private key file group/others may read\n")
LONG(O_CONTROL_TIMEOUT, "control-timeout", REQ, SERVER, FN(set_control_timeout),
"      --control-timeout SEC  drop a client whose control connection is silent this\n"
"                           long before or after the test (cookie, parameters,\n"
"                           results; default 10); -n/-k tests in which no data moves\n"
"                           for 3x this long are ended (and those still running as\n"
"                           long again + 60 s after their count moved)\n")
LONG(O_MAX_DURATION, "server-max-duration", REQ, SERVER,
     NUM(max_duration, 0, 86400 * 7, "max duration"),
"      --server-max-duration SEC  (or --max-duration) refuse a test asking for\n"
"                           more than SEC (-t plus -O; -n/-k tests: no time, refused),\n"
"                           iperf3's error 37, and end one still running 10 s past\n"
"                           SEC (SERVER_TERMINATE); 0 = no cap (default)\n")
ALIAS(O_MAX_DURATION, "max-duration", REQ, SHOWN)
LONG(O_BITRATE_LIMIT, "server-bitrate-limit", REQ, SERVER, FN(set_bitrate_limit),
"      --server-bitrate-limit R[/SEC]  refuse a test asking more than R bit/s in all\n"
"                           (iperf3's error 27), and end one whose average over SEC\n"
"                           (0.1..60, default 5) passes R, with the same error\n")
OPT('D', "daemon", NONE, SERVER, FLAG(daemon),
"  -D, --daemon             server: detach from the terminal (output: --logfile, else\n"
"                           none); with -I its pid is findable: kill $(cat FILE)\n")
TEXT(
"Client:\n")
OPT('t', "time", REQ, CLIENT, NUM(time, 1, 86400, "time"),
"  -t, --time SEC           test length (default 10)\n")
OPT('n', "bytes", REQ, CLIENT, SIZE(num, 1, INT64_MAX / 2, "byte count (-n)", "bytes"),
"  -n, --bytes N[KMG]       send N bytes instead of a time\n")
OPT('k', "blockcount", REQ, CLIENT,
    SIZE(blockcount, 1, INT64_MAX / 2, "block count (-k)", "blocks"),
"  -k, --blockcount N[KMG]  send N blocks instead of a time\n")
OPT('u', "udp", NONE, CLIENT, FLAG(udp),
"  -u, --udp                UDP instead of TCP\n")
OPT('b', "bitrate", REQ, CLIENT, FN(set_rate),
"  -b, --bitrate R[kmg][/B] target rate per stream, bits/s (UDP default 1M); /B = burst\n"
"                           (also --bandwidth)\n")
ALIAS('b', "bandwidth", REQ, SHOWN)
OPT('l', "length", REQ, CLIENT, SIZE(len, 1, TCP_LEN_MAX, "block size (-l)", "bytes"),
"  -l, --length N[KMG]      block size (TCP 128K; UDP the path MSS, 16..65507)\n")
OPT('w', "window", REQ, CLIENT, SIZE(window, 1024, 1 << 30, "window (-w)", "bytes"),
"  -w, --window N[KMG]      socket buffer size\n")
OPT('P', "parallel", REQ, CLIENT, NUM(parallel, 1, MAX_STREAMS, "stream count (-P)"),
"  -P, --parallel N         parallel streams, 1..128\n")
OPT('R', "reverse", NONE, CLIENT, FLAG(reverse),
"  -R, --reverse            the server sends\n")
LONG(O_BIDIR, "bidir", NONE, CLIENT, FLAG(bidir),
"      --bidir              both send at once\n")
OPT('O', "omit", REQ, CLIENT, NUM(omit, 0, 600, "omit (-O)"),
"  -O, --omit SEC           leave out the first SEC seconds (warm-up)\n")
LONG(O_COOLDOWN, "cooldown", REQ, CLIENT, NUM(cooldown, 0, 600, "cooldown"),
"      --cooldown SEC       run SEC more seconds after -t, not counted\n")
OPT('M', "set-mss", REQ, CLIENT, NUM(mss, 88, 9216, "MSS (-M)"),
"  -M, --set-mss N          TCP maximum segment size\n")
OPT('N', "no-delay", NONE, CLIENT, FLAG(nodelay),
"  -N, --no-delay           TCP_NODELAY\n")
OPT('C', "congestion", REQ, CLIENT, STR(congestion),
"  -C, --congestion ALGO    TCP congestion control\n")
ALIAS('C', "linux-congestion", REQ, HIDDEN)
OPT('S', "tos", REQ, CLIENT, CNUM(tos, 0, 255, "TOS (-S)"),
"  -S, --tos N              IP type of service (TOS byte / IPv6 traffic class;\n"
"                           as iperf3: 16, 0x10 or 020)\n")
LONG(O_DSCP, "dscp", REQ, CLIENT, FN(set_dscp),
"      --dscp VAL           DSCP 0..63 or ef, va, af11..af43, cs0..cs7 (any case; also\n"
"                           lowdelay, throughput, reliability): TOS = DSCP x 4\n")
OPT('L', "flowlabel", REQ, CLIENT, FN(set_flowlabel),
"  -L, --flowlabel N        IPv6 flow label 1..0xfffff on the TCP data streams (sent)\n")
LONG(O_FQ_RATE, "fq-rate", REQ, CLIENT, FN(set_fq_rate),
"      --fq-rate R[kmg]     SO_MAX_PACING_RATE R bits/s on every data stream of both ends\n"
"                           (kernel pacing, fq qdisc or TCP internal; sent as fqrate)\n")
LONG(O_NO_FQ_PACING, "no-fq-socket-pacing", NONE, CLIENT, FN(set_no_fq_pacing),
"      --no-fq-socket-pacing  deprecated in iperf3: --fq-rate 0 (a later --fq-rate wins)\n")
LONG(O_GSRO, "gsro", NONE, CLIENT, FLAG(gsro),
"      --gsro               ask an iperf3 3.22 server for UDP GSO/GRO; esxperf uses them\n"
"                           anyway where the kernel has them (see -V)\n")
OPT('Z', "zerocopy", NONE, CLIENT, FLAG(zerocopy),
"  -Z, --zerocopy           send with MSG_ZEROCOPY (else sendfile()): no copy from user memory\n")
LONG(O_SKIP_RX_COPY, "skip-rx-copy", NONE, CLIENT, FLAG(skip_rx_copy),
"      --skip-rx-copy       receivers count bytes without copying them (MSG_TRUNC)\n")
OPT('A', "affinity", REQ, ANY, FN(set_affinity),
"  -A, --affinity N[-M][,S] pin this side's stream threads to CPU N (or round-robin\n"
"                           over N..M); ,S pins the server's threads to CPU S\n"
"                           (sent as iperf3's server_affinity); CPUs 0..1024,\n"
"                           N and M also in hex (0x10) or octal (020), as iperf3\n")
OPT('T', "title", REQ, CLIENT, STR(title),
"  -T, --title STR          prefix every output line with STR (and send it to the server)\n")
LONG(O_USERNAME, "username", REQ, CLIENT, STR(username),
"      --username USER      authenticate (password from IPERF3_PASSWORD, else a prompt)\n")
LONG(O_RSA_PUB, "rsa-public-key-path", REQ, CLIENT, STR(rsa_public_key),
"      --rsa-public-key-path FILE  the server's RSA public key (PEM), with --username\n")
LONG(O_CONNECT_TIMEOUT, "connect-timeout", REQ, CLIENT,
     SIZE(connect_timeout_ms, 1, 3600000, "connect timeout", "ms"),
"      --connect-timeout MS control connection timeout\n")
LONG(O_GSO, "get-server-output", NONE, CLIENT, FLAG(get_server_output),
"      --get-server-output  show the server's report too\n")
LONG(O_CPORT, "cport", REQ, ANY, PORT(cport, "client port"),
"      --cport PORT         local port of data stream 1 (stream N: PORT+N-1)\n")
LONG(O_DF, "dont-fragment", NONE, CLIENT, FLAG(dont_fragment),
"      --dont-fragment      UDP: set the don't-fragment bit (IPv4)\n")
LONG(O_UDP64, "udp-counters-64bit", NONE, CLIENT, FLAG(udp64),
"      --udp-counters-64bit 64-bit UDP packet counters\n")
LONG(O_PACING, "pacing-timer", REQ, CLIENT,
     SIZE(pacing_timer, 0, INT32_MAX, "pacing timer", "us"),
"      --pacing-timer US    pacing granularity sent to the peer (default 1000)\n")
LONG(O_REPEATING_PAYLOAD, "repeating-payload", NONE, CLIENT, FLAG(repeating_payload),
"      --repeating-payload  payload \"0123456789\" repeated (iperf2's) instead of random\n")
LONG(O_EXTRA_DATA, "extra-data", REQ, CLIENT, STR(extra_data),
"      --extra-data STR     sent to the server; both sides' -J show it as extra_data\n")
OPT('X', "xbind", REQ, ANY, FN(set_sctp_only),
"  -X, --xbind / --nstreams  refused: iperf3's SCTP options (ESXi has no SCTP)\n")
LONG(O_NSTREAMS, "nstreams", REQ, ANY, FN(set_sctp_only), "")
TEXT(
"Request/response latency (client, against an esxperf server):\n")
LONG(O_RR, "rr", NONE, CLIENT, FLAG(rr),
"      --rr                 request/response: each stream sends a request of -l bytes\n"
"                           (default 64) and waits for the answer, one at a time; the\n"
"                           round trip's percentiles (TCP, or UDP with -u); -b is then\n"
"                           transactions/s per stream (default: back to back)\n")
LONG(O_RR_RESPONSE, "rr-response", REQ, CLIENT,
     SIZE(rr_response, 1, TCP_LEN_MAX, "response size (--rr-response)", "bytes"),
"      --rr-response BYTES  the answer's size (default: as the request)\n")
LONG(O_RR_TIMEOUT, "rr-timeout", REQ, CLIENT,
     NUM(rr_timeout_ms, 10, 600000, "request timeout (--rr-timeout, ms)"),
"      --rr-timeout MS      UDP: a request unanswered this long is lost (counted); TCP:\n"
"                           the server stopped answering, the test ends (default 1000)\n")
LONG(O_RR_LOAD, "rr-load", OPTARG, CLIENT, FN(set_rr_load),
"      --rr-load[=SEC]      latency under load: SEC s (default 2) of requests alone,\n"
"                           then -t s beside -P bulk TCP streams (-R, --bidir: their\n"
"                           direction; -b their rate): the round trip idle and loaded\n")
LONG(O_RR_LIMIT, "rr-limit", REQ, CLIENT, FN(set_rr_limit),
"      --rr-limit TIME      the verdict's limit for the round trip (1ms, 500us, 0.2s)\n")
LONG(O_RR_ROLE, "rr-role", REQ, CLIENT, FN(set_rr_role),
"      --rr-role ROLE       or VMware's limit for ROLE: vsan 1 ms (the default),\n"
"                           stretched 5 ms, witness 200 ms, vmotion 150 ms\n")
TEXT(
"Sweeps (client; one table row per run):\n")
LONG(O_SWEEP_P, "sweep-parallel", REQ, CLIENT, FN(set_sweep_parallel),
"      --sweep-parallel LIST   e.g. 1-8 or 1,2,4,8\n")
LONG(O_SWEEP_W, "sweep-window", REQ, CLIENT, FN(set_sweep_window),
"      --sweep-window LIST     e.g. 64K,256K,1M,4M\n")
LONG(O_CSV, "csv", NONE, CLIENT, FLAG(csv),
"      --csv                   the table as CSV (-J: as JSON)\n")
OPT('h', "help", NONE, ANY, MAIN,
"  -h, --help / -v, --version\n")
OPT('v', "version", NONE, ANY, MAIN, "")
TEXT(
"\n"
"Leading ++key=value words (ESXi launch arguments) are skipped; ++netstack=NAME\n"
"counts as --netstack NAME.\n"
"-V names the I/O path each stream took (sendmmsg/GSO, recvmmsg/GRO, SO_RCVLOWAT,\n"
"MSG_TRUNC, sendfile, a held send buffer, pinning) and any fallback;\n"
"ESXPERF_ENGINE_OFF=LIST turns techniques off:\n"
"mmsg,gso,gro,lowat,trunc,sendfile,msgzc,rcvbuf,pktinfo,sndbuf or all.\n"
"Exit codes: 0 test done; 1 the test failed (server busy, peer error, stream failure,\n"
"bad peer data, no data arrived); 2 usage or system error (bad option, options that\n"
"contradict, cannot resolve, connection refused or timed out, port in use, a\n"
"--netstack that cannot be entered). Options that do nothing here are run with a\n"
"warning. A sweep exits with its worst run's code.\n"
"\n"
"Examples:\n"
"  esxperf -s                                  # server on port 5201\n"
"  esxperf -c 198.18.0.2 -t 10 -P 4            # 4 TCP streams, 10 s\n"
"  esxperf -c 198.18.0.2 -u -b 1G -l 8972      # UDP at 1 Gbit/s, jumbo datagrams\n"
"  esxperf -c 198.18.0.2 -R -J                 # server sends, JSON output\n"
"  esxperf -c 198.18.0.2 -t 5 --sweep-parallel 1-8 --sweep-window 256K,1M,4M\n"
"  esxperf -s --rsa-private-key-path priv.pem --authorized-users-path users.csv\n"
"  IPERF3_PASSWORD=... esxperf -c 198.18.0.2 --username alice --rsa-public-key-path pub.pem\n")

#undef OPT
#undef LONG
#undef ALIAS
#undef TEXT
