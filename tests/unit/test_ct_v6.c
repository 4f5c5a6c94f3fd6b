/* SPDX-License-Identifier: BSD-3-Clause
 * IPv6 in the connection tracker (ct_v6.c): TCP, UDP and ICMPv6 echo
 * sessions, ICMPv6 errors related to the session they quote, Neighbour
 * Discovery and unreassembled fragments +inv (as OVS's userspace
 * tracker; test_ct_ipf6.c tracks reassembled ones), extension
 * headers skipped to the L4 header, checksums over the IPv6
 * pseudo-header, IPv4 and IPv6 sessions with the same ports apart, the
 * dump as OVS prints IPv6 sessions, the flushes by IPv6 tuple, and sg()'s
 * path (conntrack_execute_flows): the established lane takes IPv6, and
 * both it and the full path refuse a session whose addresses are not the
 * packet's (what a digest collision would look like).
 */
#include <string.h>
#include "ct_private.h"
#include "ct_test6.h"

#define CHECK_STR(got, want) CHECK(!strcmp((got), (want)), \
				   "got \"%s\"\nwant \"%s\"", (got), (want))

static const uint8_t A6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
static const uint8_t B6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 };
static const uint8_t R6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 9, [15] = 9 };

static void
test_tcp6(void)
{
	struct conntrack *ct = ct_test_new("ct6_tcp", 64, NULL);

	CHECK_EXPR(ct_run(ct, tcp6(A6, B6, 40000, 22, F_SYN, 100, 0), 0, true,
			  NULL, 0) == TRK_NEW);
	CHECK_EXPR(ct_run(ct, tcp6(B6, A6, 22, 40000, F_SYN | F_ACK, 500,
				   101), 0, true, NULL, 1) == TRK_RPL);
	CHECK_EXPR(ct_run(ct, tcp6(A6, B6, 40000, 22, F_ACK, 101, 501), 0,
			  true, NULL, 2) == TRK_EST);
	CHECK_STR(ct_first_line(ct, -1),
		  "tcp,orig=(src=2001:db8::1,dst=2001:db8::2,sport=40000,"
		  "dport=22),reply=(src=2001:db8::2,dst=2001:db8::1,"
		  "sport=22,dport=40000),protoinfo=(state=ESTABLISHED)");
	/* a bad checksum touches nothing: +inv */
	struct rte_mbuf *m = tcp6(A6, B6, 40000, 22, F_RST, 101, 501);
	rte_pktmbuf_mtod_offset(m, uint8_t *, RTE_ETHER_HDR_LEN + 40)[17] ^= 1;
	CHECK_EXPR(ct_run(ct, m, 0, true, NULL, 3) == TRK_INV);
	/* the same ports from another address: not this session (a bare
	 * ACK may open one, as OVS picks connections up mid-stream) */
	CHECK_EXPR(ct_run(ct, tcp6(R6, B6, 40000, 22, F_ACK, 101, 501), 0,
			  true, NULL, 3) == TRK_NEW);
	/* a SYN-ACK that opens nothing */
	CHECK_EXPR(ct_run(ct, tcp6(B6, R6, 22, 1, F_SYN | F_ACK, 5, 6), 0,
			  true, NULL, 3) == TRK_INV);
	CHECK_EXPR(conntrack_get_nconns(ct) == 2);
	conntrack_destroy(ct);
}

static void
test_udp6_families_and_zones(void)
{
	struct conntrack *ct = ct_test_new("ct6_udp", 64, NULL);
	const uint32_t a4 = IP(10, 0, 0, 1), b4 = IP(10, 0, 0, 2);

	CHECK_EXPR(ct_run(ct, udp6(A6, B6, 5000, 53), 0, true, NULL, 0) ==
		   TRK_NEW);
	/* IPv4 with the same ports is its own session */
	CHECK_EXPR(ct_run(ct, pkt_udp(b4, a4, 53, 5000), 0, true, NULL, 0) ==
		   TRK_NEW);
	CHECK_EXPR(ct_run(ct, udp6(B6, A6, 53, 5000), 0, true, NULL, 1) ==
		   TRK_RPL);
	CHECK_EXPR(ct_run(ct, udp6(A6, B6, 5000, 53), 0, true, NULL, 2) ==
		   TRK_EST);
	/* another zone, another session */
	CHECK_EXPR(ct_run(ct, udp6(B6, A6, 53, 5000), 9, false, NULL, 2) ==
		   TRK_NEW);
	CHECK_EXPR(conntrack_get_nconns(ct) == 2);
	/* a zero checksum is not "none" over IPv6 (RFC 8200): +inv, as
	 * OVS */
	struct rte_mbuf *m = udp6(A6, B6, 5000, 53);
	memset(rte_pktmbuf_mtod_offset(m, uint8_t *, RTE_ETHER_HDR_LEN + 46),
	       0, 2);
	CHECK_EXPR(ct_run(ct, m, 0, true, NULL, 3) == TRK_INV);
	/* a wrong one is +inv */
	m = udp6(A6, B6, 5000, 53);
	rte_pktmbuf_mtod_offset(m, uint8_t *, RTE_ETHER_HDR_LEN + 46)[0] ^= 1;
	CHECK_EXPR(ct_run(ct, m, 0, true, NULL, 3) == TRK_INV);

	/* extension headers before UDP: hop-by-hop, then destination
	 * options, skipped to the same session */
	const uint8_t ext[16] = { DSTOPTS, 0, 1, 4, [8] = IPPROTO_UDP, 0, 1,
				  4 };
	CHECK_EXPR(ct_run(ct, udp6x(A6, B6, 5000, 53, ext, sizeof ext, HOP),
			  0, true, NULL, 4) == TRK_EST);
	/* a fragment (first, M set) that reaches the tracker is one the
	 * fragment store refused: +inv */
	const uint8_t frag[8] = { IPPROTO_UDP, 0, 0, 1, 0, 0, 0, 7 };
	CHECK_EXPR(ct_run(ct, udp6x(A6, B6, 5000, 53, frag, sizeof frag,
				    FRAG), 0, true, NULL, 4) == TRK_INV);
	/* an atomic fragment (offset 0, M clear) is not one */
	const uint8_t atomic[8] = { IPPROTO_UDP, 0, 0, 0, 0, 0, 0, 7 };
	CHECK_EXPR(ct_run(ct, udp6x(A6, B6, 5000, 53, atomic, sizeof atomic,
				    FRAG), 0, true, NULL, 4) == TRK_EST);
	/* a header cut short */
	const uint8_t cut[8] = { IPPROTO_UDP, 9, 1, 4 };
	CHECK_EXPR(ct_run(ct, udp6x(A6, B6, 5000, 53, cut, sizeof cut, HOP),
			  0, true, NULL, 4) == 0xff);

	/* flushes: an IPv4 tuple never flushes an IPv6 session */
	struct ct_flush_match fm = { .zone = -1, .proto = IPPROTO_UDP,
				     .family = 4 };
	CHECK_EXPR(conntrack_flush_match(ct, &fm) == 1);
	fm.family = 6;
	memcpy(fm.tuple[0].src6, R6, 16);
	fm.tuple[0].set = CT_FM_SRC;
	CHECK_EXPR(conntrack_flush_match(ct, &fm) == 0);
	memcpy(fm.tuple[0].src6, A6, 16);
	CHECK_EXPR(conntrack_flush_match(ct, &fm) == 1);
	CHECK_EXPR(conntrack_get_nconns(ct) == 0);
	/* by its whole reply tuple */
	CHECK_EXPR(ct_run(ct, udp6(A6, B6, 5001, 53), 3, true, NULL, 5) ==
		   TRK_NEW);
	struct ct_tuple t = { .sport = rte_cpu_to_be_16(53),
			      .dport = rte_cpu_to_be_16(5001),
			      .proto = IPPROTO_UDP, .v6 = 1 };
	memcpy(t.src6, B6, 16);
	memcpy(t.dst6, R6, 16);
	CHECK_EXPR(conntrack_flush_tuple(ct, 3, &t) == 0);
	memcpy(t.dst6, A6, 16);
	CHECK_EXPR(conntrack_flush_tuple(ct, 0, &t) == 0);
	CHECK_EXPR(conntrack_flush_tuple(ct, 3, &t) == 1);
	conntrack_destroy(ct);
}

static void
test_icmp6(void)
{
	struct conntrack *ct = ct_test_new("ct6_icmp", 64, NULL);

	CHECK_EXPR(ct_run(ct, icmp6(A6, B6, 128, 7), 0, true, NULL, 0) ==
		   TRK_NEW);
	CHECK_EXPR(ct_run(ct, icmp6(B6, A6, 129, 7), 0, true, NULL, 0) ==
		   TRK_RPL);
	CHECK_STR(ct_first_line(ct, -1),
		  "icmpv6,orig=(src=2001:db8::1,dst=2001:db8::2,id=7,"
		  "type=128,code=0),reply=(src=2001:db8::2,dst=2001:db8::1,"
		  "id=7,type=129,code=0)");
	/* a reply alone opens nothing */
	CHECK_EXPR(ct_run(ct, icmp6(B6, A6, 129, 8), 0, true, NULL, 0) ==
		   TRK_INV);
	/* Neighbour Discovery and router solicitations: +inv, as OVS */
	CHECK_EXPR(ct_run(ct, icmp6(A6, B6, 135, 0), 0, true, NULL, 0) ==
		   TRK_INV);
	CHECK_EXPR(ct_run(ct, icmp6(A6, B6, 133, 0), 0, true, NULL, 0) ==
		   TRK_INV);

	/* errors: related to the session they quote, either way */
	CHECK_EXPR(ct_run(ct, tcp6(A6, B6, 40000, 80, F_SYN, 1, 0), 0, true,
			  NULL, 0) == TRK_NEW);
	CHECK_EXPR(ct_run(ct, icmp6_error(R6, A6, 2,
					  tcp6(A6, B6, 40000, 80, F_SYN, 1,
					       0)), 0, true, NULL, 0) ==
		   (CS_TRACKED | CS_RELATED | CS_REPLY_DIR));
	CHECK_EXPR(ct_run(ct, icmp6_error(R6, B6, 1,
					  tcp6(B6, A6, 80, 40000, F_ACK, 1,
					       2)), 0, true, NULL, 0) ==
		   (CS_TRACKED | CS_RELATED));
	/* one quoting no session, or not sent by the error's addressee */
	CHECK_EXPR(ct_run(ct, icmp6_error(R6, A6, 1,
					  tcp6(A6, B6, 40001, 80, F_SYN, 1,
					       0)), 0, true, NULL, 0) ==
		   TRK_INV);
	CHECK_EXPR(ct_run(ct, icmp6_error(R6, B6, 3,
					  tcp6(A6, B6, 40000, 80, F_SYN, 1,
					       0)), 0, true, NULL, 0) ==
		   TRK_INV);
	CHECK_EXPR(conntrack_get_nconns(ct) == 2);
	conntrack_destroy(ct);
}

/* The key the datapath would have extracted from IPv6 packet m (no
 * extension header). */
static void
flow6_of(struct flow_key *k, struct rte_mbuf *m)
{
	const uint8_t *ip = rte_pktmbuf_mtod_offset(m, const uint8_t *,
						    RTE_ETHER_HDR_LEN);

	memset(k, 0, sizeof *k);
	k->dl_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6);
	k->ext_line = FLOW_EXT_LINE;
	memcpy(&k->ipv6_src, ip + 8, 16);
	memcpy(&k->ipv6_dst, ip + 24, 16);
	k->nw_proto = ip[6];
	memcpy(&k->tp_src, ip + 40, 2);
	memcpy(&k->tp_dst, ip + 42, 2);
}

/* sg(allow)'s call for one packet (freed); its ct_state */
static uint8_t
sg6(struct conntrack *ct, struct rte_mbuf *m, uint64_t now)
{
	struct flow_key k;
	const struct flow_key *kp = &k;
	const struct ct_flow_call call = { .zone = 4, .commit = true };
	uint8_t st = 0xff;

	flow6_of(&k, m);
	conntrack_execute_flows(ct, &m, &kp, 1, &call, now, &st);
	rte_pktmbuf_free(m);
	return st;
}

static uint64_t
lane_packets(struct conntrack *ct)
{
	struct ct_stats s;

	conntrack_get_stats(ct, &s);
	return s.lane;
}

static void
test_sg6_lane(void)
{
	struct conntrack *ct = ct_test_new("ct6_lane", 64, NULL);

	CHECK_EXPR(sg6(ct, udp6(A6, B6, 5000, 53), 0) == TRK_NEW);
	CHECK_EXPR(sg6(ct, udp6(B6, A6, 53, 5000), 1) == TRK_RPL);
	/* the reply's key is in the lcore's cache now, the original's
	 * after its next packet (the full path's table hit) */
	uint64_t lane = lane_packets(ct);
	CHECK_EXPR(sg6(ct, udp6(A6, B6, 5000, 53), 2) == TRK_EST);
	CHECK_EXPR(sg6(ct, udp6(B6, A6, 53, 5000), 3) == TRK_RPL);
	CHECK_EXPR(sg6(ct, udp6(A6, B6, 5000, 53), 3) == TRK_EST);
	CHECK_EXPR(lane_packets(ct) == lane + 2);
	/* the lane checks as the full path does: a bad checksum is +inv */
	struct rte_mbuf *m = udp6(A6, B6, 5000, 53);
	rte_pktmbuf_mtod_offset(m, uint8_t *, RTE_ETHER_HDR_LEN + 46)[0] ^= 1;
	CHECK_EXPR(sg6(ct, m, 4) == TRK_INV);
	/* TCP through sg(): handshake on the full path, then the lane */
	CHECK_EXPR(sg6(ct, tcp6(A6, B6, 40000, 443, F_SYN, 10, 0), 5) ==
		   TRK_NEW);
	CHECK_EXPR(sg6(ct, tcp6(B6, A6, 443, 40000, F_SYN | F_ACK, 90, 11),
		       6) == TRK_RPL);
	CHECK_EXPR(sg6(ct, tcp6(A6, B6, 40000, 443, F_ACK, 11, 91), 7) ==
		   TRK_EST);
	lane = lane_packets(ct);
	CHECK_EXPR(sg6(ct, tcp6(A6, B6, 40000, 443, F_ACK, 11, 91), 8) ==
		   TRK_EST);
	CHECK_EXPR(lane_packets(ct) == lane + 1);

	/* a session whose addresses are not the packet's though its key
	 * is (a digest collision, made here by hand): neither the lane nor
	 * the full path lets the packet join it */
	struct ct_conn_ref ref;
	struct ct_pkt_meta mt;
	m = udp6(A6, B6, 5000, 53);
	CHECK_EXPR(ct_pkt_meta_parse(m, &mt) == 0);
	CHECK_EXPR(conntrack_execute_one(ct, m, &mt, 4, false, NULL, 9,
					 &ref) == TRK_EST && ref.conn);
	rte_pktmbuf_free(m);
	ref.conn->ip6.src[15] ^= 0x80;
	lane = lane_packets(ct);
	CHECK_EXPR(sg6(ct, udp6(A6, B6, 5000, 53), 10) == TRK_INV);
	CHECK_EXPR(sg6(ct, udp6(B6, A6, 53, 5000), 10) == TRK_INV);
	CHECK_EXPR(lane_packets(ct) == lane);
	struct ct_stats s;
	conntrack_get_stats(ct, &s);
	CHECK_EXPR(s.refused_collision == 2);
	conntrack_destroy(ct);
}

int
main(int argc, char **argv)
{
	(void)argc;
	if (ct_test_init(argv[0]) < 0)
		return 1;
	test_tcp6();
	test_udp6_families_and_zones();
	test_icmp6();
	test_sg6_lane();
	return unit_test_report();
}
