/* The verdict's evidence one side sends the other in the results exchange, one row
 * per figure: EV(JSON name, field of struct side_evidence, largest value accepted,
 * the side whose figure the verdict takes (EV_SENDER: the side that sent in the
 * direction judged, EV_RECEIVER: the side that received), field of struct
 * diag_evidence it goes to). The rows make the struct's fields (side_evidence.h), the
 * members of the results' `esxperf_evidence` object (proto_results.c encodes and
 * decodes by them) and the verdict's input (diag_gather.c copies by them): adding a
 * figure is adding a row here, its double in struct diag_evidence, and filling the
 * field where the side gathers it (diag_gather.c). Every figure is a number, -1 (left out) when the side
 * does not know it; a peer's value out of 0..max, or not a number, stays unknown.
 * Included without a guard, with EV defined by the includer. */
/* this side's busiest sending thread: CPU used, and used or waited for (runnable) */
EV("sender_thread_cpu", snd_thread_pct, EV_CPU_MAX, EV_SENDER, snd_thread_pct)
EV("sender_thread_cpu_demand", snd_demand_pct, EV_CPU_MAX, EV_SENDER, snd_thread_demand_pct)
/* its busiest receiving thread */
EV("receiver_thread_cpu", rcv_thread_pct, EV_CPU_MAX, EV_RECEIVER, rcv_thread_pct)
EV("receiver_thread_cpu_demand", rcv_demand_pct, EV_CPU_MAX, EV_RECEIVER, rcv_thread_demand_pct)
/* its TCP senders' TCP_INFO, summed over the streams (times in us) */
EV("sender_loop_us", wall_us, EV_US_MAX, EV_SENDER, wall_us)
EV("busy_us", busy_us, EV_US_MAX, EV_SENDER, busy_us)
EV("rwnd_limited_us", rwnd_limited_us, EV_US_MAX, EV_SENDER, rwnd_limited_us)
EV("sndbuf_limited_us", sndbuf_limited_us, EV_US_MAX, EV_SENDER, sndbuf_limited_us)
EV("app_limited", app_limited, 1, EV_SENDER, app_limited)
EV("rtt_us", rtt_us, EV_US_MAX, EV_SENDER, rtt_us)
EV("segments_sent", segs_out, EV_COUNT_MAX, EV_SENDER, segs_out)
EV("retransmits", retrans, EV_COUNT_MAX, EV_SENDER, retrans)
EV("needless_retransmits", dsack_dups, EV_COUNT_MAX, EV_SENDER, dsack_dups)   /* tcpi_dsack_dups */
EV("peer_window_bytes", peer_wnd_bytes, EV_COUNT_MAX, EV_SENDER, peer_wnd_bytes)
/* the socket buffers as the kernel made them (SO_SNDBUF of a sender, SO_RCVBUF of a
 * receiver): what -w became */
EV("sender_socket_buffer", snd_buf_bytes, EV_COUNT_MAX, EV_SENDER, snd_buf_bytes)
EV("receiver_socket_buffer", rcv_buf_bytes, EV_COUNT_MAX, EV_RECEIVER, rcv_buf_bytes)
/* a UDP receiver: the share of the datagrams arriving that the host dropped for a
 * full socket buffer over the test, percent */
EV("udp_socket_drop_percent", udp_drop_pct, 100, EV_RECEIVER, udp_drop_pct)
/* the path's MTU (path-mtu, fragmentation), a sender's: its TCP streams' MSS at the
 * start (the handshake's) and at the end (the largest), the bytes acknowledged
 * (summed), the timeouts in a row at the end (tcpi_backoff, a byte: the most); its
 * data socket's route MTU; a UDP sender's host's IP fragments made over the run */
EV("mss_start_bytes", mss_start_bytes, EV_MTU_MAX, EV_SENDER, mss_start_bytes)
EV("mss_bytes", mss_bytes, EV_MTU_MAX, EV_SENDER, mss_bytes)
EV("bytes_acked", bytes_acked, EV_COUNT_MAX, EV_SENDER, bytes_acked)
EV("rto_backoff", rto_backoff, 255, EV_SENDER, rto_backoff)
EV("route_mtu", route_mtu, EV_MTU_MAX, EV_SENDER, route_mtu)
EV("ip_fragments_made", frag_creates, EV_COUNT_MAX, EV_SENDER, frag_creates)
