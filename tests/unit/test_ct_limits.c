/* SPDX-License-Identifier: BSD-3-Clause
 * Limits (global, per zone, default zone limit: refused and counted, the
 * packet stays +trk+new as in OVS), per-zone timeout policies, and NAT
 * (source and destination, port search, checksums, un-NAT of replies).
 */
#include <string.h>
#include "ct_test.h"

#define A IP(10, 0, 0, 1)
#define B IP(10, 0, 0, 2)

static void
test_global_limit(void)
{
	struct conntrack *ct = ct_test_new("ct_gl", 16, NULL);
	struct ct_stats s;

	for (int i = 0; i < 20; i++)
		CHECK_EXPR(ct_run(ct, pkt_udp(A, B, 100 + i, 53), 0, true,
				  NULL, 0) == TRK_NEW);
	conntrack_get_stats(ct, &s);
	CHECK(s.n_conns == 16 && s.refused_full == 4 && s.created == 16,
	      "n %lu refused %lu", (unsigned long)s.n_conns,
	      (unsigned long)s.refused_full);
	/* the refused ones have no session: their replies open none */
	CHECK_EXPR(ct_run(ct, pkt_udp(B, A, 53, 119), 0, false, NULL, 0) ==
		   TRK_NEW);
	/* a lower limit at run time; above the pool: refused */
	CHECK_EXPR(conntrack_set_maxconns(ct, 8) == 0);
	CHECK_EXPR(conntrack_set_maxconns(ct, 1u << 30) < 0);
	CHECK_EXPR(conntrack_get_maxconns(ct) == 8);
	CHECK_EXPR(conntrack_flush(ct) == 16);
	for (int i = 0; i < 10; i++)
		ct_run(ct, pkt_udp(A, B, 100 + i, 53), 0, true, NULL, 0);
	CHECK_EXPR(conntrack_get_nconns(ct) == 8);
	conntrack_destroy(ct);
}

static void
test_zone_limits(void)
{
	struct conntrack *ct = ct_test_new("ct_zl", 64, NULL);
	struct ct_stats s;

	conntrack_set_zone_limit(ct, 5, 3);
	conntrack_set_default_zone_limit(ct, 2);
	for (int i = 0; i < 5; i++) {
		ct_run(ct, pkt_udp(A, B, 100 + i, 53), 5, true, NULL, 0);
		ct_run(ct, pkt_udp(A, B, 100 + i, 53), 6, true, NULL, 0);
	}
	CHECK_EXPR(conntrack_get_zone_count(ct, 5) == 3);
	CHECK_EXPR(conntrack_get_zone_count(ct, 6) == 2);
	CHECK_EXPR(conntrack_get_zone_limit(ct, 6) == 2);
	conntrack_get_stats(ct, &s);
	CHECK(s.refused_zone_limit == 5 && s.n_conns == 5, "refused %lu",
	      (unsigned long)s.refused_zone_limit);
	/* room again once one expires */
	CHECK_EXPR(conntrack_sweep(ct, SEC(61), 100) == 5);
	CHECK_EXPR(conntrack_get_zone_count(ct, 5) == 0);
	conntrack_destroy(ct);
}

static void
test_zone_policy(void)
{
	struct conntrack *ct = ct_test_new("ct_tp", 64, NULL);
	uint32_t secs[CT_TP_N];

	memcpy(secs, ct_tp_defaults, sizeof secs);
	secs[CT_TP_UDP_FIRST] = 5;
	secs[CT_TP_TCP_SYN_SENT] = 2;
	CHECK_EXPR(conntrack_set_timeout_policy(ct, 3, secs) == 0);
	CHECK_EXPR(conntrack_set_timeout_policy(ct, CT_MAX_POLICIES, secs) <
		   0);
	CHECK_EXPR(conntrack_set_zone_policy(ct, 9, 3) == 0);
	ct_run(ct, pkt_udp(A, B, 1, 53), 9, true, NULL, 0);
	ct_run(ct, pkt_udp(A, B, 1, 53), 8, true, NULL, 0);
	ct_run(ct, pkt_tcp(A, B, 1, 80, F_SYN, 1, 0, 100, -1, 0), 9, true,
	       NULL, 0);
	CHECK_EXPR(conntrack_sweep(ct, SEC(3), 100) == 1);	/* tcp, 2 s */
	CHECK_EXPR(conntrack_sweep(ct, SEC(6), 100) == 1);	/* zone 9 */
	CHECK_EXPR(conntrack_get_zone_count(ct, 8) == 1);
	CHECK_EXPR(conntrack_sweep(ct, SEC(61), 100) == 1);	/* default */
	conntrack_destroy(ct);
}

/* The packet's addresses and ports after tracking (not freed). */
static uint8_t
run_keep(struct conntrack *ct, struct rte_mbuf *m, bool commit,
	 const struct ct_nat_spec *nat)
{
	struct ct_pkt_meta mt;

	ct_pkt_meta_parse(m, &mt);
	return conntrack_execute_one(ct, m, &mt, 0, commit, nat, 0, NULL);
}

static bool
pkt_is(struct rte_mbuf *m, uint32_t src, uint32_t dst, uint16_t sp,
       uint16_t dp)
{
	struct rte_ipv4_hdr *ip = pkt_iph(m);
	struct rte_udp_hdr *u = (struct rte_udp_hdr *)(ip + 1);
	return ip->src_addr == rte_cpu_to_be_32(src) &&
	       ip->dst_addr == rte_cpu_to_be_32(dst) &&
	       u->src_port == rte_cpu_to_be_16(sp) &&
	       u->dst_port == rte_cpu_to_be_16(dp) && pkt_csum_ok(m);
}

static void
test_snat(void)
{
	struct conntrack *ct = ct_test_new("ct_snat", 64, NULL);
	const uint32_t N = IP(192, 168, 1, 1);
	struct ct_nat_spec snat = { .snat = true, .ip_min = N,
				    .port_min = 2000, .port_max = 2001 };
	struct ct_nat_spec nat_only = { .snat = true };	/* ct(nat) */
	struct rte_mbuf *m;

	/* TCP: SYN rewritten to N:2000 or 2001, checksums right */
	m = pkt_tcp(A, B, 1234, 80, F_SYN, 1, 0, 100, -1, 0);
	CHECK_EXPR(run_keep(ct, m, true, &snat) == (TRK_NEW | CS_SRC_NAT));
	uint16_t sp = rte_be_to_cpu_16(
		((struct rte_tcp_hdr *)(pkt_iph(m) + 1))->src_port);
	CHECK(pkt_iph(m)->src_addr == rte_cpu_to_be_32(N) &&
	      (sp == 2000 || sp == 2001) && pkt_csum_ok(m), "sport %u", sp);
	rte_pktmbuf_free(m);
	/* the reply to N:sp is un-NATed back to A:1234 */
	m = pkt_tcp(B, N, 80, sp, F_SYN | F_ACK, 9, 2, 100, -1, 0);
	/* OVS: a reply's destination is un-SNATed, +dnat */
	CHECK_EXPR(run_keep(ct, m, true, &nat_only) ==
		   (TRK_RPL | CS_DST_NAT));
	CHECK_EXPR(pkt_iph(m)->dst_addr == rte_cpu_to_be_32(A) &&
		   ((struct rte_tcp_hdr *)(pkt_iph(m) + 1))->dst_port ==
		   rte_cpu_to_be_16(1234) && pkt_csum_ok(m));
	rte_pktmbuf_free(m);
	/* UDP: three sources, two ports: the third is refused */
	for (int i = 0; i < 3; i++) {
		m = pkt_udp(A + i, B, 5000, 53);
		uint8_t st = run_keep(ct, m, true, &snat);
		if (i < 2)
			CHECK(st == (TRK_NEW | CS_SRC_NAT) &&
			      pkt_iph(m)->src_addr == rte_cpu_to_be_32(N) &&
			      pkt_csum_ok(m), "udp %d st %x", i, st);
		else
			CHECK(st == TRK_NEW, "third: %x", st);
		rte_pktmbuf_free(m);
	}
	struct ct_stats s;
	conntrack_get_stats(ct, &s);
	CHECK_EXPR(s.refused_nat == 1);
	/* the exhausted range is remembered (no search, no table lock) for
	 * a millisecond: a fourth source is refused, the same way counted */
	m = pkt_udp(A + 3, B, 5000, 53);
	CHECK_EXPR(run_keep(ct, m, true, &snat) == TRK_NEW);
	rte_pktmbuf_free(m);
	conntrack_get_stats(ct, &s);
	CHECK_EXPR(s.refused_nat == 2);
	/* the dump shows the translated reply tuple */
	struct ct_dump_ctx ctx;
	char line[256];
	int found = 0;
	conntrack_dump_start(ct, &ctx, -1);
	while (conntrack_dump_next(ct, &ctx, line, sizeof line) > 0)
		found += strstr(line, "tcp,orig=(src=10.0.0.1,dst=10.0.0.2,"
				"sport=1234,dport=80),reply=(src=10.0.0.2,"
				"dst=192.168.1.1,") != NULL;
	CHECK_EXPR(found == 1);
	conntrack_destroy(ct);
}

static void
test_dnat(void)
{
	struct conntrack *ct = ct_test_new("ct_dnat", 64, NULL);
	const uint32_t VIP = IP(10, 1, 1, 1), S1 = IP(10, 2, 0, 1);
	struct ct_nat_spec dnat = { .snat = false, .ip_min = S1,
				    .ip_max = S1 + 3, .port_min = 8080 };
	struct rte_mbuf *m;

	m = pkt_udp(A, VIP, 4000, 80);
	CHECK_EXPR(run_keep(ct, m, true, &dnat) == (TRK_NEW | CS_DST_NAT));
	uint32_t srv = rte_be_to_cpu_32(pkt_iph(m)->dst_addr);
	CHECK(srv >= S1 && srv <= S1 + 3 && pkt_is(m, A, srv, 4000, 8080),
	      "server %x", srv);
	rte_pktmbuf_free(m);
	/* the server's answer leaves as the VIP */
	m = pkt_udp(srv, A, 8080, 4000);
	CHECK_EXPR(run_keep(ct, m, true, &dnat) == (TRK_RPL | CS_SRC_NAT));
	CHECK_EXPR(pkt_is(m, VIP, A, 80, 4000));
	rte_pktmbuf_free(m);
	/* later packets of the client follow the same translation */
	m = pkt_udp(A, VIP, 4000, 80);
	CHECK_EXPR(run_keep(ct, m, true, &dnat) == (TRK_EST | CS_DST_NAT));
	CHECK_EXPR(pkt_is(m, A, srv, 4000, 8080));
	rte_pktmbuf_free(m);
	/* without nat in the action, nothing is rewritten */
	m = pkt_udp(A, VIP, 4000, 80);
	CHECK_EXPR(run_keep(ct, m, false, NULL) == TRK_EST);
	CHECK_EXPR(pkt_is(m, A, VIP, 4000, 80));
	rte_pktmbuf_free(m);
	conntrack_destroy(ct);
}

/* Sessions created and flushed many times over: every key slot and
 * session must come back (a slot freed twice ends in two keys sharing
 * one, and wrong answers or a crash some rounds later). */
static void
test_churn(void)
{
	struct conntrack *ct = ct_test_new("ct_churn", 64, NULL);
	int bad = 0;

	for (int round = 0; round < 300; round++) {
		for (int i = 0; i < 64; i++) {
			bad += ct_run(ct, pkt_udp(A, B, 100 + i, 53), 0, true,
				      NULL, 0) != TRK_NEW;
			bad += ct_run(ct, pkt_udp(B, A, 53, 100 + i), 0, true,
				      NULL, 0) != TRK_RPL;
		}
		bad += conntrack_get_nconns(ct) != 64;
		bad += round % 2 ? conntrack_flush(ct) != 64
				 : conntrack_sweep(ct, SEC(31), 1000) != 64;
		conntrack_sweep(ct, 0, 1);
	}
	CHECK(bad == 0, "%d wrong answers", bad);
	conntrack_destroy(ct);
}

int
main(void)
{
	if (ct_test_init("test_ct_limits") < 0)
		return 1;
	test_global_limit();
	test_zone_limits();
	test_zone_policy();
	test_snat();
	test_dnat();
	test_churn();
	return unit_test_report();
}
