/* The test parameters the client sends and the server takes (iperf3's parameter
 * JSON), one row each, in the order the client writes them: iperf3 peers read the
 * message as sent, so the order is part of the protocol. Everything about a
 * parameter is derived from its row: its field in struct test_params (proto.h)
 * and its default (params_defaults), the encoder and the strict decoder
 * (proto_params.c), the option it comes from, declared in struct perf_opts
 * (options.h) with the same default (opts_defaults), and the client's copy of it
 * (client_params.c). Included several times (no include guard): the includer
 * defines the row macros it wants, the others are defined here to nothing, and all
 * three are undefined at the end.
 *
 *   WIRE_FLAG(key, field, JSON, SEND, COPY, otype, oname)
 *       int field, 0 or 1 (default 0). JSON: BOOL is written true and read as
 *       true/false or 0/1 (iperf3 3.22 counts these only when true); INT is
 *       written 1 and read as any whole number (not 0: on) or true/false.
 *   WIRE_NUM(key, field, SEND, COPY, otype, oname, default, min, max, "range")
 *       int64_t field; the decoder refuses a value outside min..max, naming the
 *       key and "range".
 *   WIRE_STR(key, field, size, SEND, COPY, otype, oname, "default", FIT)
 *       char field[size]; FIT: REFUSE a longer string, or CUT it to the field.
 *
 * SEND, when the client writes the key: ALWAYS; SET (a flag on, a number not 0,
 * a string not empty); ASKED (a number 0 or more); PROTO (the udp flag: "udp" or
 * else "tcp", true); GSRO (with UDP and gso or gro on: the five keys of iperf3
 * 3.22's --gsro).
 * COPY, the option: OPT declares `otype oname;` in struct perf_opts, defaults it
 * (NUM: to the row's default, else 0 or NULL), and client_params copies it into the
 * field (a NULL string leaves ""); OWN declares and defaults it, and client_params
 * computes the field from it by hand; NONE: no option (otype and oname are `_`).
 *
 * Adding a wire parameter: its row here, its option's row in options_table.h
 * (SET naming oname), and the code that acts on the field (HACKING.md, "Adding a
 * wire parameter"). */
#ifndef WIRE_FLAG
#define WIRE_FLAG(key, field, json, send, copy, otype, oname)
#endif
#ifndef WIRE_NUM
#define WIRE_NUM(key, field, send, copy, otype, oname, dflt, min, max, range)
#endif
#ifndef WIRE_STR
#define WIRE_STR(key, field, size, send, copy, otype, oname, dflt, fit)
#endif

/* bounds: iperf3 3.22's get_parameters refuses, per key, what is outside its own
 * limits (MAX_TIME, MAX_OMIT_TIME, MAX_MSS, ...); esxperf takes every value it
 * takes, sometimes more (docs/esxperf.md, "Parameters `esxperf -s` takes from a
 * client", lists both; 3.22's beside each row). Where iperf3 has no bound, ours
 * only keeps the arithmetic sane. Strings: title and extra_data hold whatever the
 * 8 KiB message carries (iperf3 has no other bound), client_version is only shown,
 * congestion longer than any algorithm name and an authtoken longer than any RSA
 * key makes are refused. */
/* -u, -R, --bidir, -N */
WIRE_FLAG("udp", udp, BOOL, PROTO, OPT, int, udp)
WIRE_FLAG("reverse", reverse, BOOL, SET, OPT, int, reverse)
WIRE_FLAG("bidirectional", bidir, BOOL, SET, OPT, int, bidir)
WIRE_FLAG("nodelay", nodelay, BOOL, SET, OPT, int, nodelay)
/* -O s (3.22: 0..600) */
WIRE_NUM("omit", omit, ALWAYS, OPT, int64_t, omit, 0, 0, 86400, "0..86400 s")
/* -t s, 0 with -n or -k (3.22: 0..86400) */
WIRE_NUM("time", time, ALWAYS, OWN, int64_t, time, 10, 0, 86400 * 7, "0..604800 s")
/* -n bytes, -k blocks (3.22: >= 0) */
WIRE_NUM("num", num, ALWAYS, OPT, int64_t, num, 0, 0, INT64_MAX, "0 or more bytes")
WIRE_NUM("blockcount", blockcount, ALWAYS, OPT, int64_t, blockcount, 0,
         0, INT64_MAX, "0 or more blocks")
/* -M (3.22: 0..32767) */
WIRE_NUM("MSS", mss, SET, OPT, int64_t, mss, 0, 0, 65535, "0..65535")
/* -P (3.22: 0..128) */
WIRE_NUM("parallel", parallel, ALWAYS, OPT, int64_t, parallel, 1,
         1, MAX_STREAMS, "1..128 streams")
/* -l; without it TCP 128 KiB, UDP the control connection's MSS (3.22: TCP 1..1 MiB) */
WIRE_NUM("len", len, ALWAYS, OWN, int64_t, len, 0, 0, TCP_LEN_MAX, "0..16 MiB")
/* -w (3.22: 0..512 MiB) */
WIRE_NUM("window", window, SET, OPT, int64_t, window, 0, 0, 1 << 30, "0..1 GiB")
/* -b bit/s; without it TCP unlimited, UDP 1 Mbit/s */
WIRE_NUM("bandwidth", bandwidth, SET, OWN, uint64_t, bandwidth, 0,
         0, INT64_MAX, "0 or more bit/s")
/* --fq-rate bit/s: SO_MAX_PACING_RATE */
WIRE_NUM("fqrate", fqrate, SET, OPT, uint64_t, fqrate, 0, 0, INT64_MAX, "0 or more bit/s")
/* --pacing-timer us (3.22: >= 0) */
WIRE_NUM("pacing_timer", pacing_timer, ALWAYS, OPT, int64_t, pacing_timer, 1000,
         0, INT64_MAX, "0 or more us")
/* -b RATE/BURST (3.22: 1..1000) */
WIRE_NUM("burst", burst, SET, OPT, int64_t, burst, 0, 0, 1000, "0..1000")
/* -S, --dscp */
WIRE_NUM("TOS", tos, SET, OPT, int64_t, tos, 0, 0, 255, "0..255")
/* -L: the IPv6 flow label of the TCP data streams (3.22: 1..0xfffff) */
WIRE_NUM("flowlabel", flowlabel, SET, OPT, int64_t, flowlabel, 0, 0, 0xfffff, "0..0xfffff")
/* -A n,m: the m part, the CPU asked of the server, -1 none (3.22: 0..1024) */
WIRE_NUM("server_affinity", server_affinity, ASKED, OPT, int, server_affinity, -1,
         -1, 1024, "0..1024")
/* -T, --extra-data (also in -J), -C */
WIRE_STR("title", title, PARAMS_MAX, SET, OPT, const char *, title, "", REFUSE)
WIRE_STR("extra_data", extra_data, PARAMS_MAX, SET, OPT, const char *, extra_data, "", REFUSE)
WIRE_STR("congestion", congestion, 32, SET, OPT, const char *, congestion, "", REFUSE)
/* --get-server-output, --udp-counters-64bit, --repeating-payload ("0123456789..."),
 * -Z, --dont-fragment, --skip-rx-copy (receivers count, not copy: MSG_TRUNC),
 * -m (the data streams over IPPROTO_MPTCP) */
WIRE_FLAG("get_server_output", get_server_output, INT, SET, OPT, int, get_server_output)
WIRE_FLAG("udp_counters_64bit", udp_counters_64bit, INT, SET, OPT, int, udp64)
WIRE_FLAG("repeating_payload", repeating_payload, INT, SET, OPT, int, repeating_payload)
WIRE_FLAG("zerocopy", zerocopy, INT, SET, OPT, int, zerocopy)
WIRE_FLAG("dont_fragment", dont_fragment, INT, SET, OPT, int, dont_fragment)
WIRE_FLAG("skip_rx_copy", skip_rx_copy, INT, SET, OPT, int, skip_rx_copy)
WIRE_FLAG("mptcp", mptcp, BOOL, SET, OPT, int, mptcp)
/* --gsro: UDP GSO/GRO asked of an iperf3 3.22 server, with the sizes its client
 * sends (client_params.c computes them from --gsro and the datagram size) */
WIRE_FLAG("gso", gso, INT, GSRO, NONE, _, _)
WIRE_NUM("gso_dg_size", gso_dg_size, GSRO, NONE, _, _, 0, 0, 65535, "0..65535")
WIRE_NUM("gso_bf_size", gso_bf_size, GSRO, NONE, _, _, 0, 0, 65535, "0..65535")
WIRE_FLAG("gro", gro, INT, GSRO, NONE, _, _)
WIRE_NUM("gro_bf_size", gro_bf_size, GSRO, NONE, _, _, 0, 0, 65535, "0..65535")
/* the RSA token, "" none (client.c puts client_authtoken's in); the version the
 * client claims, only shown */
WIRE_STR("authtoken", authtoken, AUTHTOKEN_MAX, SET, NONE, _, _, "", REFUSE)
WIRE_STR("client_version", client_version, 32, ALWAYS, NONE, _, _, "3.12", CUT)
/* --rr, --rr-response: esxperf's request/response mode (rr/rr_io.h), keys iperf3
 * ignores; an esxperf server that takes them says so (ST_ESXPERF_RR) before
 * CREATE_STREAMS. The response size 0: as big as the request (-l) */
WIRE_FLAG("esxperf_rr", rr, BOOL, SET, OPT, int, rr)
WIRE_NUM("esxperf_rr_response", rr_response, SET, OPT, int64_t, rr_response, 0,
         0, TCP_LEN_MAX, "0..16 MiB")
/* --rr-load: stream 1 is request/response, the others bulk, held for the idle
 * phase, which is the test's omit */
WIRE_FLAG("esxperf_rr_load", rr_load, BOOL, SET, OPT, int, rr_load)

#undef WIRE_FLAG
#undef WIRE_NUM
#undef WIRE_STR
