/* esxmtu's options, one row each, in the order --help shows them: everything else
 * about an option is derived from its row (the long-only codes, getopt_long's
 * short string and long table, the usage text, what opts_set sets). Included
 * several times (no include guard): the includer defines the row macros it wants,
 * the others are defined here to nothing, all are undefined at the end.
 *
 *   OPT(letter, "long", ARG, SET, help)    an option with a letter (long: NULL for none)
 *   LONG(CODE, "long", ARG, SET, help)     a long-only option: declares CODE
 *   TEXT(help)                             usage text that is no option's
 *
 * ARG: NONE or REQ (takes a value). SET: what opts_set does with it, one of
 * options.c's FLAG(field), STR(field), U32(field, min, max), INT(field, min, max),
 * SECS(field, min, max) (seconds, kept in ns), FN(setter), NOTHING, or MAIN
 * (main.c's: -f, --version, -h). help: the option's lines of --help exactly as
 * printed, "" when another row's lines name it.
 *
 * Adding an option: its field in struct mtu_opts (options.h), its row here, and
 * any check across options in opts_validate. */
#ifndef OPT
#define OPT(letter, name, arg, set, help)
#endif
#ifndef LONG
#define LONG(code, name, arg, set, help)
#endif
#ifndef TEXT
#define TEXT(help)
#endif

TEXT(
"usage: esxmtu [options] PEER...\n"
"       esxmtu [options] -f FILE [-f FILE]... (one peer per line, # comments)\n"
"\n"
"Checks that a packet of the full MTU crosses to each peer unfragmented (DF set),\n"
"and says why not and where. Default MTU 9000: IPv4 data = MTU - 28 (8972),\n"
"IPv6 data = MTU - 48 (8952), as vmkping -d -s.\n"
"\n")
OPT('m', NULL, REQ, U32(mtu, PKT_MIN_MTU4, PKT_MAX_MTU),
"  -m MTU        IP packet size to prove (default 9000; 68/1280..65535)\n")
OPT('s', NULL, REQ, U32(size, 0, PKT_MAX_MTU - PKT_HDR4),
"  -s SIZE       ICMP data bytes instead, as vmkping -s (8972 = MTU 9000 on IPv4)\n")
OPT('c', NULL, REQ, U32(chk.count, 1, 100),
"  -c COUNT      full-size probes per peer (default 3, max 100)\n")
OPT('i', NULL, REQ, FN(set_interval),
"  -i SECONDS    interval between probes to a peer (default 0.2)\n")
OPT('W', NULL, REQ, SECS(chk.timeout_ns, 0.001, 60),
"  -W SECONDS    wait for an answer after the last probe (default 1)\n")
OPT('t', NULL, REQ, INT(po.ttl, 1, 255),
"  -t TTL        time to live / hop limit (default: system)\n")
OPT('I', NULL, REQ, STR(po.iface),
"  -I IFACE      send through this interface (vmk1 on ESXi; a vmk's netstack is\n"
"                asked of esxcli and used)\n")
OPT('S', "netstack", REQ, STR(ns.want),
"  -S, --netstack NETSTACK\n"
"                probe in this ESXi netstack (vmotion, vxlan...): enter it with the\n"
"                ++netstack= launch word where the host supports it, else probe\n"
"                through esxcli network diag ping; needs -I or -B\n")
OPT('B', NULL, REQ, STR(src),
"  -B SRCADDR    source address\n")
OPT('4', NULL, NONE, FN(set_ipv4),
"  -4, -6        use IPv4 / IPv6 addresses only\n")
OPT('6', NULL, NONE, FN(set_ipv6), "")
OPT('d', NULL, NONE, NOTHING,
"  -d            accepted for vmkping habits: DF is always set\n")
OPT('f', NULL, REQ, MAIN,
"  -f FILE       read peers from FILE (again for more files, read in order)\n")
LONG(OPT_DISCOVER, "discover", NONE, FLAG(discover),
"  --discover    find the exact path MTU (table of common MTUs, then bisection\n"
"                with parallel probes; lost sizes are retried before concluding),\n"
"                every peer's search at once\n")
LONG(OPT_TRACE, "trace", NONE, FLAG(trace),
"  --trace       hop by hop (TTL): which hop limits the path, or after which\n"
"                hop full-size probes vanish\n")
LONG(OPT_HOPS, "max-hops", REQ, INT(max_hops, 1, TRACE_MAX_HOPS),
"  --max-hops N  hops for --trace (default 30)\n")
LONG(OPT_METHOD, "method", REQ, FN(set_method),
"  --method M    M is auto, raw, errqueue or dgram (default auto: raw sockets as\n"
"                root, else unprivileged ping sockets). No method uses the\n"
"                kernel's path-MTU cache: every run sees the path as it is.\n")
LONG(OPT_EACH_UPLINK, "each-uplink", NONE, FLAG(each_uplink),
"  --each-uplink the check through each uplink of the -I vmk's team in turn (standard\n"
"                vSwitch): a scratch portgroup pinned to that uplink and a scratch\n"
"                vmk with --test-ip, both removed after (changes the host; see the\n"
"                man page)\n")
LONG(OPT_TEST_IP, "test-ip", REQ, STR(test_ip),
"  --test-ip ADDR/PREFIX\n"
"                the scratch vmk's address: unused, in the vmk's subnet\n")
OPT('J', "json", NONE, FLAG(json),
"  -J, --json    JSON output\n")
OPT('V', "verbose", NONE, FLAG(verbose),
"  -V, --verbose also the -I vmk's team: vSwitch, portgroup, active / standby / unused\n"
"                uplinks, load balancing, failback, the uplink used now (vsish),\n"
"                each uplink's NIC MTU and switch port MTU (CDP, vim-cmd)\n")
OPT('q', NULL, NONE, FLAG(quiet),
"  -q            quiet: verdict lines and the summary only\n")
LONG(OPT_VERSION, "version", NONE, MAIN,
"  --version     version and build\n")
OPT('h', "help", NONE, MAIN,
"  -h, --help    this text\n")
TEXT(
"\n"
"Verdicts: PASS, LOCAL-MTU (this host refuses the size: its interface is smaller),\n"
"TOO-BIG (a router said frag-needed / Packet Too Big, with its address and\n"
"next-hop MTU), BLACK-HOLE (small probes answered, full-size ones vanish),\n"
"NO-REPLY (nothing answers: no MTU conclusion), SHORT-REPLY, UNREACHABLE,\n"
"TTL-EXCEEDED, SEND-FAILED (this host could not send at all: no conclusion).\n"
"A too-big whose next-hop MTU cannot be (0, under 68 / 1280, not below the probe)\n"
"is named and ignored; answers that do not quote or echo our own probe are ignored.\n"
"\n"
"Examples:\n"
"  esxmtu -I vmk1 10.160.22.112 10.160.22.113     vMotion jumbo check, MTU 9000\n"
"  esxmtu -S vmotion -I vmk1 10.160.22.112         the same on the vmotion netstack\n"
"  esxmtu -m 1600 -f vtep-peers.txt               overlay (NSX/VXLAN) underlay\n"
"  esxmtu --discover 198.18.2.2                    exact path MTU\n"
"  esxmtu --trace -6 2001:db8:2::2                 which hop limits the path\n"
"\n"
"Exit codes: 0 every peer passes, 1 a peer fails, 2 usage or system error.\n"
"Interrupted (SIGINT, SIGTERM, SIGHUP): what was measured so far, exit 1.\n")

#undef OPT
#undef LONG
#undef TEXT
