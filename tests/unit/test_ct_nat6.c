/* SPDX-License-Identifier: BSD-3-Clause
 * NAT66 (ct_nat6.c, ct_nat.c's ct_nat_pick6), as OVS 3.1's userspace
 * tracker: SNAT of TCP to a range of addresses and ports and its replies
 * un-NATed, DNAT of UDP, ICMPv6 echo (the address in its checksum's
 * pseudo-header), an ICMPv6 error about a NATed session translated
 * outside and in the packet it quotes, a 1-address/2-port range
 * exhausted, a packet NATed already in the zone (natted) finding its
 * session, the dump's reply tuple and the flush by it carrying the
 * translated address; every checksum right after each rewrite.
 */
#include <arpa/inet.h>
#include <string.h>
#include "ct_private.h"
#include "ct_test6.h"
#include "dp_ct.h"
#include "xlate.h"

#define CHECK_STR(got, want) CHECK(!strcmp((got), (want)), \
				   "got \"%s\"\nwant \"%s\"", (got), (want))

static const uint8_t A6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
static const uint8_t B6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 };
static const uint8_t R6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 9, [15] = 9 };
/* the ranges: 2001:db8:1::a - 2001:db8:1::b, and 2001:db8:1::a alone */
static const uint8_t P6[2][16] = {
	{ 0x20, 0x01, 0x0d, 0xb8, 0, 1, [15] = 0x0a },
	{ 0x20, 0x01, 0x0d, 0xb8, 0, 1, [15] = 0x0b },
};

/* a bare nat (the session's own), and the meta of the last packet */
static const struct ct_nat_spec plain;
static struct ct_pkt_meta mt;

/* Tracks m (kept); returns its ct_state, its meta through *mt. */
static uint8_t
track6(struct conntrack *ct, struct rte_mbuf *m, bool commit,
       const struct ct_nat_spec *nat, bool natted, struct ct_pkt_meta *mt)
{
	if (ct_pkt_meta_parse(m, mt) < 0)
		return 0xff;
	mt->natted = natted;
	return conntrack_execute_one(ct, m, mt, 0, commit, nat, 0, NULL);
}

static const uint8_t *
ip6(struct rte_mbuf *m)
{
	return rte_pktmbuf_mtod_offset(m, const uint8_t *, RTE_ETHER_HDR_LEN);
}

static uint16_t
port(struct rte_mbuf *m, int which)
{
	const uint8_t *l4 = ip6(m) + 40 + 2 * which;
	return (uint16_t)(l4[0] << 8 | l4[1]);
}

/* m's L4 checksum is right (parsed again, after the rewrite) */
static bool
csum_ok(struct rte_mbuf *m)
{
	return ct_pkt_meta_parse(m, &mt) == 0 && ct_l4_sum6(m, &mt) == 0xffff;
}

static bool
in_range(const uint8_t *a)
{
	return !memcmp(a, P6[0], 16) || !memcmp(a, P6[1], 16);
}

static void
test_snat_tcp(void)
{
	struct conntrack *ct = ct_test_new("nat6_tcp", 64, NULL);
	struct ct_nat_spec snat = { .snat = true, .ip6 = P6,
				    .port_min = 1000, .port_max = 2000 };
	struct rte_mbuf *m = tcp6(A6, B6, 40000, 80, F_SYN, 100, 0);
	uint8_t pub[16];

	CHECK_EXPR(track6(ct, m, true, &snat, false, &mt) ==
		   (TRK_NEW | CS_SRC_NAT));
	memcpy(pub, ip6(m) + 8, 16);
	uint16_t pport = port(m, 0);
	CHECK_EXPR(in_range(pub) && !memcmp(ip6(m) + 24, B6, 16));
	CHECK(pport >= 1000 && pport <= 2000, "port %u", pport);
	CHECK_EXPR(port(m, 1) == 80 && csum_ok(m));
	rte_pktmbuf_free(m);

	/* the reply, to the translated address and port, is un-SNATed */
	m = tcp6(B6, pub, 80, pport, F_SYN | F_ACK, 500, 101);
	CHECK_EXPR(track6(ct, m, false, &plain, false, &mt) ==
		   (TRK_RPL | CS_DST_NAT));
	CHECK_EXPR(!memcmp(ip6(m) + 8, B6, 16) &&
		   !memcmp(ip6(m) + 24, A6, 16));
	CHECK_EXPR(port(m, 0) == 80 && port(m, 1) == 40000 && csum_ok(m));
	rte_pktmbuf_free(m);

	/* the dump: the reply tuple has the translated address */
	char want[400], a[INET6_ADDRSTRLEN];
	inet_ntop(AF_INET6, pub, a, sizeof a);
	snprintf(want, sizeof want,
		 "tcp,orig=(src=2001:db8::1,dst=2001:db8::2,sport=40000,"
		 "dport=80),reply=(src=2001:db8::2,dst=%s,sport=80,"
		 "dport=%u),protoinfo=(state=ESTABLISHED)", a, pport);
	CHECK_STR(ct_first_line(ct, -1), want);

	/* the reply's address pair with the original address is another
	 * flow: not this session */
	m = tcp6(B6, A6, 80, 40000, F_ACK, 501, 101);
	CHECK_EXPR(!(track6(ct, m, false, &plain, false, &mt) &
		     CS_REPLY_DIR));
	rte_pktmbuf_free(m);

	/* flushed by its reply tuple, as dump-conntrack printed it */
	struct ct_tuple t = { .sport = rte_cpu_to_be_16(80),
			      .dport = rte_cpu_to_be_16(pport),
			      .proto = IPPROTO_TCP, .v6 = 1 };
	memcpy(t.src6, B6, 16);
	memcpy(t.dst6, pub, 16);
	CHECK_EXPR(conntrack_flush_tuple(ct, 0, &t) == 1);
	conntrack_destroy(ct);
}

static void
test_dnat_udp_and_natted(void)
{
	struct conntrack *ct = ct_test_new("nat6_udp", 64, NULL);
	struct ct_nat_spec dnat = { .snat = false, .ip6 = P6,
				    .port_min = 5353 };
	uint8_t one[2][16];

	memcpy(one[0], B6, 16);	/* the service behind R6:53 is B6:5353 */
	memcpy(one[1], B6, 16);
	dnat.ip6 = one;
	struct rte_mbuf *m = udp6(A6, R6, 5000, 53);
	CHECK_EXPR(track6(ct, m, true, &dnat, false, &mt) ==
		   (TRK_NEW | CS_DST_NAT));
	CHECK_EXPR(!memcmp(ip6(m) + 8, A6, 16) &&
		   !memcmp(ip6(m) + 24, B6, 16));
	CHECK_EXPR(port(m, 0) == 5000 && port(m, 1) == 5353 && csum_ok(m));
	/* the same packet, NATed already, at a later ct() of the zone:
	 * its session's (+new still: no reply yet, as OVS 3.x) */
	uint8_t st = track6(ct, m, false, &plain, true, &mt);
	CHECK(st == (TRK_NEW | CS_DST_NAT), "state %#x", st);
	CHECK_EXPR(!memcmp(ip6(m) + 24, B6, 16) && port(m, 1) == 5353);
	rte_pktmbuf_free(m);
	CHECK_EXPR(conntrack_get_nconns(ct) == 1);

	m = udp6(B6, A6, 5353, 5000);
	CHECK_EXPR(track6(ct, m, false, &plain, false, &mt) ==
		   (TRK_RPL | CS_SRC_NAT));
	CHECK_EXPR(!memcmp(ip6(m) + 8, R6, 16) && port(m, 0) == 53 &&
		   csum_ok(m));
	rte_pktmbuf_free(m);
	conntrack_destroy(ct);
}

static void
test_icmp6_echo_and_error(void)
{
	uint8_t pub[16];
	struct ct_nat_spec snat = { .snat = true, .ip6 = P6 };
	struct conntrack *ct = ct_test_new("nat6_icmp", 64, NULL);

	/* echo: the address is in the ICMPv6 checksum's pseudo-header */
	struct rte_mbuf *m = icmp6(A6, B6, 128, 7);
	CHECK_EXPR(track6(ct, m, true, &snat, false, &mt) ==
		   (TRK_NEW | CS_SRC_NAT));
	CHECK_EXPR(in_range(ip6(m) + 8) && csum_ok(m));
	memcpy(pub, ip6(m) + 8, 16);
	rte_pktmbuf_free(m);
	m = icmp6(B6, pub, 129, 7);
	CHECK_EXPR(track6(ct, m, false, &plain, false, &mt) ==
		   (TRK_RPL | CS_DST_NAT));
	CHECK_EXPR(!memcmp(ip6(m) + 24, A6, 16) && csum_ok(m));
	rte_pktmbuf_free(m);

	/* a TCP session SNATed, then a router's error about its SYN */
	m = tcp6(A6, B6, 40000, 80, F_SYN, 100, 0);
	CHECK_EXPR(track6(ct, m, true, &snat, false, &mt) ==
		   (TRK_NEW | CS_SRC_NAT));
	memcpy(pub, ip6(m) + 8, 16);
	uint16_t pport = port(m, 0);
	struct rte_mbuf *e = icmp6_error(R6, pub, 1, m);
	CHECK_EXPR(track6(ct, e, false, &plain, false, &mt) ==
		   (CS_TRACKED | CS_RELATED | CS_REPLY_DIR | CS_DST_NAT));
	const uint8_t *in = ip6(e) + 40 + 8;
	CHECK_EXPR(!memcmp(ip6(e) + 8, R6, 16) &&
		   !memcmp(ip6(e) + 24, A6, 16));
	CHECK_EXPR(!memcmp(in + 8, A6, 16) && !memcmp(in + 24, B6, 16));
	CHECK(((in[40] << 8) | in[41]) == 40000 &&
	      ((in[42] << 8) | in[43]) == 80, "quoted ports %u %u (from %u)",
	      (in[40] << 8) | in[41], (in[42] << 8) | in[43], pport);
	CHECK_EXPR(csum_ok(e));
	rte_pktmbuf_free(e);
	conntrack_destroy(ct);
}

/* 1 address, 2 ports: two sessions, the third refused (counted) */
static void
test_exhausted(void)
{
	struct conntrack *ct = ct_test_new("nat6_full", 64, NULL);
	const uint8_t (*one)[16] = P6;
	uint8_t r[2][16];
	struct ct_stats s;

	memcpy(r[0], one[0], 16);
	memcpy(r[1], one[0], 16);
	struct ct_nat_spec snat = { .snat = true, .ip6 = r,
				    .port_min = 1000, .port_max = 1001 };
	uint16_t got[2];
	for (int i = 0; i < 3; i++) {
		struct rte_mbuf *m = udp6(A6, B6, (uint16_t)(5000 + i), 53);
		uint8_t st = track6(ct, m, true, &snat, false, &mt);
		if (i < 2) {
			CHECK_EXPR(st == (TRK_NEW | CS_SRC_NAT));
			CHECK_EXPR(!memcmp(ip6(m) + 8, r[0], 16));
			got[i] = port(m, 0);
		} else {
			CHECK_EXPR(st == TRK_NEW);	/* not committed */
			CHECK_EXPR(!memcmp(ip6(m) + 8, A6, 16));
		}
		rte_pktmbuf_free(m);
	}
	CHECK_EXPR(got[0] != got[1] && got[0] >= 1000 && got[0] <= 1001 &&
		   got[1] >= 1000 && got[1] <= 1001);
	conntrack_get_stats(ct, &s);
	CHECK_EXPR(s.refused_nat == 1 && conntrack_get_nconns(ct) == 2);
	conntrack_destroy(ct);
}

/* an IPv4 range on an IPv6 session translates nothing (the parser
 * refuses it; the tracker never mixes families) */
static void
test_family_mismatch(void)
{
	struct conntrack *ct = ct_test_new("nat6_fam", 64, NULL);
	struct ct_nat_spec snat4 = { .snat = true, .ip_min = IP(10, 0, 0, 1) };
	struct rte_mbuf *m = udp6(A6, B6, 5000, 53);

	CHECK_EXPR(track6(ct, m, true, &snat4, false, &mt) == TRK_NEW);
	CHECK_EXPR(!memcmp(ip6(m) + 8, A6, 16) && csum_ok(m));
	rte_pktmbuf_free(m);
	conntrack_destroy(ct);
}

/* the datapath action: dump-flows prints it as OVS's format_odp_ct_nat
 * (brackets when a port follows), and the tracker's spec carries it */
static void
test_dp_action(void)
{
	struct dp_actions a = { .n = 1, .n_nats = 1 };
	struct ct_nat_spec spec;
	char text[256];

	a.act[0] = (struct dp_action){ .type = DP_ACT_CT,
				       .slot = DP_CT_COMMIT | DP_CT_NAT,
				       .port = 1 };
	a.nats[0] = (struct dp_nat){ .snat = 1, .v6 = 1, .port_min = 1000,
				     .port_max = 2000 };
	memcpy(a.nats[0].ip6[0], A6, 16);
	memcpy(a.nats[0].ip6[1], R6, 16);
	xlate_format_actions(&a, text, sizeof text);
	CHECK(strstr(text, "nat(src=[2001:db8::1]-[2001:db8:9::9]:"
			   "1000-2000)") != NULL, "%s", text);
	a.nats[0].port_min = a.nats[0].port_max = 0;
	memcpy(a.nats[0].ip6[1], A6, 16);
	xlate_format_actions(&a, text, sizeof text);
	CHECK(strstr(text, "nat(src=2001:db8::1)") != NULL, "%s", text);
	const struct ct_nat_spec *n = dp_ct_nat_spec(&a.nats[0], &spec);
	CHECK_EXPR(n && n->ip6 && !memcmp(n->ip6[0], A6, 16) &&
		   ct_nat_spec_ranged(n, true) && !ct_nat_spec_ranged(n, false));
}

int
main(int argc, char **argv)
{
	static void (*const tests[])(void) = {
		test_snat_tcp, test_dnat_udp_and_natted,
		test_icmp6_echo_and_error, test_exhausted,
		test_family_mismatch, test_dp_action,
	};

	(void)argc;
	if (ct_test_init(argv[0]) < 0)
		return 1;
	for (size_t i = 0; i < RTE_DIM(tests); i++)
		tests[i]();
	return unit_test_report();
}
