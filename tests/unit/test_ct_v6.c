/* SPDX-License-Identifier: BSD-3-Clause
 * IPv6 in the connection tracker (ct_v6.c): TCP, UDP and ICMPv6 echo
 * sessions, ICMPv6 errors related to the session they quote, Neighbour
 * Discovery and fragments +inv (as OVS's userspace tracker), extension
 * headers skipped to the L4 header, checksums over the IPv6
 * pseudo-header, IPv4 and IPv6 sessions with the same ports apart, the
 * dump as OVS prints IPv6 sessions, and the flushes by IPv6 tuple.
 */
#include <string.h>
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
	/* a fragment (first, M set): no IPv6 fragment store, +inv */
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

int
main(int argc, char **argv)
{
	(void)argc;
	if (ct_test_init(argv[0]) < 0)
		return 1;
	test_tcp6();
	test_udp6_families_and_zones();
	test_icmp6();
	return unit_test_report();
}
