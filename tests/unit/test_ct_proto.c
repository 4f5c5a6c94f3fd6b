/* SPDX-License-Identifier: BSD-3-Clause
 * UDP, ICMP echo, ICMP errors related to a session, other IP protocols,
 * fragments and non-IPv4 (+inv), zones, the dump and the flushes.
 */
#include <string.h>
#include "ct_test.h"

#define A IP(10, 0, 0, 1)
#define B IP(10, 0, 0, 2)
#define R IP(10, 0, 9, 9)

static void
test_udp(void)
{
	struct conntrack *ct = ct_test_new("ct_udp", 64, NULL);

	/* first, repeated before any answer: +new (OVS 3.x), then +est */
	CHECK_EXPR(ct_run(ct, pkt_udp(A, B, 5000, 53), 0, true, NULL, 0) ==
		   TRK_NEW);
	CHECK_EXPR(ct_run(ct, pkt_udp(A, B, 5000, 53), 0, true, NULL, 1) ==
		   TRK_NEW);
	CHECK_EXPR(ct_run(ct, pkt_udp(B, A, 53, 5000), 0, true, NULL, 2) ==
		   TRK_RPL);
	CHECK_EXPR(ct_run(ct, pkt_udp(A, B, 5000, 53), 0, true, NULL, 3) ==
		   TRK_EST);
	/* another zone is another session */
	CHECK_EXPR(ct_run(ct, pkt_udp(B, A, 53, 5000), 7, false, NULL, 3) ==
		   TRK_NEW);
	CHECK_EXPR(conntrack_get_nconns(ct) == 1);
	/* udp_multiple (bidirectional): 30 s */
	CHECK_EXPR(conntrack_sweep(ct, SEC(32), 100) == 1);
	CHECK_EXPR(conntrack_get_nconns(ct) == 0);
	/* unanswered: udp_first 60 s, udp_single 60 s after the second */
	CHECK_EXPR(ct_run(ct, pkt_udp(A, B, 6000, 53), 0, true, NULL, 0) ==
		   TRK_NEW);
	CHECK_EXPR(conntrack_sweep(ct, SEC(59), 100) == 0);
	CHECK_EXPR(conntrack_sweep(ct, SEC(61), 100) == 1);
	/* not committed: no session */
	CHECK_EXPR(ct_run(ct, pkt_udp(A, B, 7000, 53), 0, false, NULL, 0) ==
		   TRK_NEW);
	CHECK_EXPR(conntrack_get_nconns(ct) == 0);
	conntrack_destroy(ct);
}

static void
test_icmp_echo(void)
{
	struct conntrack *ct = ct_test_new("ct_icmp", 64, NULL);

	CHECK_EXPR(ct_run(ct, pkt_icmp(A, B, 8, 77), 0, true, NULL, 0) ==
		   TRK_NEW);
	CHECK_EXPR(ct_run(ct, pkt_icmp(B, A, 0, 77), 0, true, NULL, 0) ==
		   TRK_RPL);
	CHECK_EXPR(ct_run(ct, pkt_icmp(A, B, 8, 77), 0, true, NULL, 0) ==
		   TRK_EST);
	/* another id: another session; a reply alone opens nothing */
	CHECK_EXPR(ct_run(ct, pkt_icmp(B, A, 0, 78), 0, true, NULL, 0) ==
		   TRK_INV);
	/* an echo request the other way is its own session */
	CHECK_EXPR(ct_run(ct, pkt_icmp(B, A, 8, 77), 0, true, NULL, 0) ==
		   TRK_NEW);
	CHECK_EXPR(conntrack_get_nconns(ct) == 2);
	CHECK(strcmp(ct_first_line(ct, -1), "") != 0 &&
	      strstr(ct_first_line(ct, -1), "icmp,orig=(src=") != NULL,
	      "%s", ct_first_line(ct, -1));
	/* icmp_reply 30 s, icmp_first 60 s */
	CHECK_EXPR(conntrack_sweep(ct, SEC(31), 100) == 1);
	CHECK_EXPR(conntrack_sweep(ct, SEC(61), 100) == 1);
	conntrack_destroy(ct);
}

static void
test_icmp_related(void)
{
	struct conntrack *ct = ct_test_new("ct_rel", 64, NULL);

	CHECK_EXPR(ct_run(ct, pkt_tcp(A, B, 1234, 80, F_SYN, 1000, 0, 65535,
				      -1, 0), 0, true, NULL, 0) == TRK_NEW);
	/* a router on the way says B is unreachable: to A, quoting A's SYN */
	struct rte_mbuf *q = pkt_tcp(A, B, 1234, 80, F_SYN, 1000, 0, 65535,
				     -1, 0);
	CHECK_EXPR(ct_run(ct, pkt_icmp_error(R, A, 3, q), 0, false, NULL, 0) ==
		   (CS_TRACKED | CS_RELATED | CS_REPLY_DIR));
	/* B's own error about A's packet */
	q = pkt_tcp(A, B, 1234, 80, F_SYN, 1000, 0, 65535, -1, 0);
	CHECK_EXPR(ct_run(ct, pkt_icmp_error(B, A, 3, q), 0, false, NULL, 0) ==
		   (CS_TRACKED | CS_RELATED | CS_REPLY_DIR));
	/* an error quoting a packet of no session: invalid */
	q = pkt_tcp(A, B, 1235, 80, F_SYN, 1000, 0, 65535, -1, 0);
	CHECK_EXPR(ct_run(ct, pkt_icmp_error(R, A, 3, q), 0, false, NULL, 0) ==
		   TRK_INV);
	/* an error sent to someone else than the quoted packet's sender */
	q = pkt_tcp(A, B, 1234, 80, F_SYN, 1000, 0, 65535, -1, 0);
	CHECK_EXPR(ct_run(ct, pkt_icmp_error(R, B, 11, q), 0, false, NULL,
			  0) == TRK_INV);
	/* an echo session's error (time exceeded for A's ping) */
	CHECK_EXPR(ct_run(ct, pkt_icmp(A, B, 8, 5), 0, true, NULL, 0) ==
		   TRK_NEW);
	q = pkt_icmp(A, B, 8, 5);
	CHECK_EXPR(ct_run(ct, pkt_icmp_error(R, A, 11, q), 0, false, NULL,
			  0) == (CS_TRACKED | CS_RELATED | CS_REPLY_DIR));
	conntrack_destroy(ct);
}

static void
test_other_frag_nonip(void)
{
	struct conntrack *ct = ct_test_new("ct_oth", 64, NULL);
	uint8_t *l4;
	struct ct_pkt_meta mt;

	/* GRE (47): keyed by addresses only */
	struct rte_mbuf *g = pkt_ip(A, B, 47, 8, &l4);
	pkt_csum(g);
	CHECK_EXPR(ct_run(ct, g, 0, true, NULL, 0) == TRK_NEW);
	g = pkt_ip(B, A, 47, 8, &l4);
	pkt_csum(g);
	CHECK_EXPR(ct_run(ct, g, 0, true, NULL, 0) == TRK_RPL);
	/* a wrong IPv4 header checksum: +inv, as OVS */
	g = pkt_ip(B, A, 47, 8, &l4);
	CHECK_EXPR(ct_run(ct, g, 0, true, NULL, 0) == TRK_INV);
	CHECK(strstr(ct_first_line(ct, -1), "47,orig=(src=10.0.0.1,"
		     "dst=10.0.0.2,sport=0,dport=0),reply=(src=10.0.0.2,"
		     "dst=10.0.0.1,sport=0,dport=0)") != NULL,
	      "%s", ct_first_line(ct, -1));
	/* a fragment: no reassembly here, +inv */
	struct rte_mbuf *m = pkt_udp(A, B, 1, 2);
	pkt_iph(m)->fragment_offset = rte_cpu_to_be_16(RTE_IPV4_HDR_MF_FLAG);
	CHECK_EXPR(ct_run(ct, m, 0, true, NULL, 0) == TRK_INV);
	/* not IPv4 (IPv6 is not tracked yet) */
	m = pkt_udp(A, B, 1, 2);
	memset(&mt, 0, sizeof mt);
	CHECK_EXPR(conntrack_execute_one(ct, m, &mt, 0, true, NULL, 0, NULL) ==
		   TRK_INV);
	rte_pktmbuf_free(m);
	/* a TCP header cut short */
	m = pkt_tcp(A, B, 1, 2, F_SYN, 1, 0, 1, -1, 0);
	ct_pkt_meta_parse(m, &mt);
	mt.l4_len = 12;
	CHECK_EXPR(conntrack_execute_one(ct, m, &mt, 0, true, NULL, 0, NULL) ==
		   TRK_INV);
	rte_pktmbuf_free(m);
	CHECK_EXPR(conntrack_get_nconns(ct) == 1);
	conntrack_destroy(ct);
}

static void
test_batch_and_flush(void)
{
	struct conntrack *ct = ct_test_new("ct_fl", 1024, NULL);
	struct rte_mbuf *pk[100];
	struct ct_pkt_meta mt[100];
	uint8_t st[100];
	struct ct_conn_ref ref[100];
	int bad = 0;

	/* 100 sessions in one burst (two lookups chunks), zones 1 and 2 */
	for (int i = 0; i < 100; i++) {
		pk[i] = pkt_udp(A, B, 1000 + i, 53);
		ct_pkt_meta_parse(pk[i], &mt[i]);
	}
	conntrack_execute(ct, pk, mt, 50, 1, true, NULL, 0, st, ref);
	conntrack_execute(ct, pk + 50, mt + 50, 50, 2, true, NULL, 0, st + 50,
			  ref + 50);
	for (int i = 0; i < 100; i++) {
		bad += st[i] != TRK_NEW || !ref[i].conn ||
		       ref[i].zone != (i < 50 ? 1 : 2);
		rte_pktmbuf_free(pk[i]);
	}
	CHECK(bad == 0, "%d bad", bad);
	CHECK_EXPR(conntrack_get_nconns(ct) == 100);
	CHECK_EXPR(conntrack_get_zone_count(ct, 1) == 50);
	/* mark and label, seen by the next packet */
	uint64_t lv[2] = { 0x1234, 0 }, lm[2] = { ~0ull, ~0ull };
	ct_conn_set_mark(ref[0].conn, 0x55, ~0u);
	ct_conn_set_label(ref[0].conn, lv, lm);
	struct rte_mbuf *m = pkt_udp(B, A, 53, 1000);
	ct_pkt_meta_parse(m, &mt[0]);
	conntrack_execute_one(ct, m, &mt[0], 1, false, NULL, 0, &ref[0]);
	rte_pktmbuf_free(m);
	CHECK_EXPR(ref[0].mark == 0x55 && ref[0].label[0] == 0x1234 &&
		   ref[0].reply);
	/* dump of zone 2 only */
	struct ct_dump_ctx ctx;
	char line[256];
	int n = 0, other = 0;
	conntrack_dump_start(ct, &ctx, 2);
	while (conntrack_dump_next(ct, &ctx, line, sizeof line) > 0) {
		n++;
		other += strstr(line, ",zone=2") == NULL;
	}
	CHECK(n == 50 && other == 0, "n %d other %d", n, other);
	/* flush one tuple, one zone, all */
	struct ct_tuple t = { .src = rte_cpu_to_be_32(A),
			      .dst = rte_cpu_to_be_32(B),
			      .sport = rte_cpu_to_be_16(1000 + 60),
			      .dport = rte_cpu_to_be_16(53),
			      .proto = IPPROTO_UDP };
	CHECK_EXPR(conntrack_flush_tuple(ct, 2, &t) == 1);
	CHECK_EXPR(conntrack_flush_tuple(ct, 2, &t) == 0);
	CHECK_EXPR(conntrack_flush_zone(ct, 2) == 49);
	CHECK_EXPR(conntrack_get_nconns(ct) == 50);
	CHECK_EXPR(conntrack_flush(ct) == 50);
	CHECK_EXPR(conntrack_get_nconns(ct) == 0);
	struct ct_stats s;
	conntrack_get_stats(ct, &s);
	CHECK_EXPR(s.flushed == 100 && s.created == 100);
	/* the pool is whole again once the sweeper reclaimed them */
	conntrack_sweep(ct, 1, 10);
	CHECK_EXPR(ct_run(ct, pkt_udp(A, B, 1000, 53), 1, true, NULL, 2) ==
		   TRK_NEW);
	conntrack_destroy(ct);
}

/* conntrack_execute_mixed: a burst of several sg() actions' packets,
 * each with its zone and commit, in one call. A SYN committed in zone 1
 * and its SYN-ACK (not committed) in the same call: the reply finds the
 * session the SYN created after the bulk lookup (+est+rpl, not +inv); a
 * SYN in zone 2 not committed stays +new and creates nothing; a UDP
 * reply of a session of zone 3 is +est+rpl. */
static void
test_mixed_zones(void)
{
	struct conntrack *ct = ct_test_new("ct_mx", 64, NULL);
	struct rte_mbuf *pk[4];
	struct ct_pkt_meta mt[4];
	uint16_t zones[4] = { 1, 1, 2, 3 };
	uint64_t commits[1] = { 1u << 0 };
	uint8_t st[4];

	CHECK_EXPR(ct_run(ct, pkt_udp(A, B, 7, 53), 3, true, NULL, 0) ==
		   TRK_NEW);
	pk[0] = pkt_tcp(A, B, 1000, 80, F_SYN, 100, 0, 1000, -1, 0);
	pk[1] = pkt_tcp(B, A, 80, 1000, F_SYN | F_ACK, 500, 101, 1000, -1, 0);
	pk[2] = pkt_tcp(A, B, 1001, 80, F_SYN, 100, 0, 1000, -1, 0);
	pk[3] = pkt_udp(B, A, 53, 7);
	for (int i = 0; i < 4; i++)
		ct_pkt_meta_parse(pk[i], &mt[i]);
	conntrack_execute_mixed(ct, pk, mt, 4, zones, commits, NULL, 1, st);
	CHECK(st[0] == TRK_NEW, "syn %#x", st[0]);
	CHECK(st[1] == TRK_RPL, "syn-ack %#x", st[1]);
	CHECK(st[2] == TRK_NEW, "zone 2 syn %#x", st[2]);
	CHECK(st[3] == TRK_RPL, "zone 3 udp reply %#x", st[3]);
	CHECK_EXPR(conntrack_get_zone_count(ct, 1) == 1 &&
		   conntrack_get_zone_count(ct, 2) == 0 &&
		   conntrack_get_nconns(ct) == 2);
	for (int i = 0; i < 4; i++)
		rte_pktmbuf_free(pk[i]);
	conntrack_destroy(ct);
}

/* OVS's conn_key_extract checks: what fails them is +inv and touches no
 * session (issue 23: a RST with a bad checksum closed one). */
static void
test_checksums_and_lengths(void)
{
	struct conntrack *ct = ct_test_new("ct_csum", 64, NULL);
	struct rte_mbuf *m;
	struct rte_udp_hdr *u;

	/* UDP: a wrong checksum is +inv and creates nothing */
	m = pkt_udp(A, B, 5000, 53);
	u = (struct rte_udp_hdr *)(pkt_iph(m) + 1);
	u->dgram_cksum ^= rte_cpu_to_be_16(0x0101);
	CHECK_EXPR(ct_run(ct, m, 0, true, NULL, 0) == TRK_INV);
	CHECK_EXPR(conntrack_get_nconns(ct) == 0);
	/* no checksum (0) is valid over IPv4 */
	m = pkt_udp(A, B, 5000, 53);
	u = (struct rte_udp_hdr *)(pkt_iph(m) + 1);
	u->dgram_cksum = 0;
	CHECK_EXPR(ct_run(ct, m, 0, true, NULL, 0) == TRK_NEW);
	/* a UDP length past the IP payload */
	m = pkt_udp(A, B, 5000, 53);
	u = (struct rte_udp_hdr *)(pkt_iph(m) + 1);
	u->dgram_len = rte_cpu_to_be_16(200);
	pkt_csum(m);
	CHECK_EXPR(ct_run(ct, m, 0, true, NULL, 0) == TRK_INV);
	/* an IP total length past the frame */
	m = pkt_udp(A, B, 5000, 53);
	pkt_iph(m)->total_length = rte_cpu_to_be_16(1400);
	pkt_csum(m);
	CHECK_EXPR(ct_run(ct, m, 0, true, NULL, 0) == TRK_INV);

	/* TCP: an established session; a RST with a bad checksum neither
	 * passes nor closes it */
	CHECK_EXPR(ct_run(ct, pkt_tcp(A, B, 1234, 80, F_SYN, 1000, 0, 65535,
				      -1, 0), 0, true, NULL, 0) == TRK_NEW);
	CHECK_EXPR(ct_run(ct, pkt_tcp(B, A, 80, 1234, F_SYN | F_ACK, 5000,
				      1001, 65535, -1, 0), 0, true, NULL, 0) ==
		   TRK_RPL);
	m = pkt_tcp(B, A, 80, 1234, F_RST | F_ACK, 5001, 1001, 0, -1, 0);
	((struct rte_tcp_hdr *)(pkt_iph(m) + 1))->cksum ^= 0xff;
	CHECK_EXPR(ct_run(ct, m, 0, true, NULL, 0) == TRK_INV);
	CHECK(strstr(ct_first_line(ct, -1), "TIME_WAIT") == NULL,
	      "%s", ct_first_line(ct, -1));
	CHECK_EXPR(ct_run(ct, pkt_tcp(A, B, 1234, 80, F_ACK, 1001, 5001,
				      65535, -1, 0), 0, true, NULL, 0) ==
		   TRK_EST);
	/* ICMP: a wrong checksum */
	m = pkt_icmp(A, B, 8, 9);
	((uint8_t *)(pkt_iph(m) + 1))[2] ^= 1;
	CHECK_EXPR(ct_run(ct, m, 0, true, NULL, 0) == TRK_INV);
	conntrack_destroy(ct);
}

/* A zone's sessions follow the zone's policy now: deleted, the defaults
 * (OVS); its id used again for another zone gives them nothing of it
 * (issue 23: they took the other zone's timeouts). */
static void
test_deleted_policy_id_reused(void)
{
	struct conntrack *ct = ct_test_new("ct_tp", 64, NULL);
	uint32_t secs[CT_TP_N];

	memcpy(secs, ct_tp_defaults, sizeof secs);
	secs[CT_TP_UDP_FIRST] = secs[CT_TP_UDP_SINGLE] = 5;
	CHECK_EXPR(conntrack_set_timeout_policy(ct, 1, secs) == 0);
	CHECK_EXPR(conntrack_set_zone_policy(ct, 1, 1) == 0);
	CHECK_EXPR(ct_run(ct, pkt_udp(A, B, 4000, 53), 1, true, NULL, 0) ==
		   TRK_NEW);
	/* del-zone-tp zone=1, then id 1 given to zone 2 with 1000 s */
	CHECK_EXPR(conntrack_set_zone_policy(ct, 1, 0) == 0);
	secs[CT_TP_UDP_FIRST] = secs[CT_TP_UDP_SINGLE] = 1000;
	CHECK_EXPR(conntrack_set_timeout_policy(ct, 1, secs) == 0);
	CHECK_EXPR(conntrack_set_zone_policy(ct, 2, 1) == 0);
	/* zone 1's next packet: the default udp_single (60 s) */
	CHECK_EXPR(ct_run(ct, pkt_udp(A, B, 4000, 53), 1, true, NULL,
			  SEC(1)) == TRK_NEW);
	CHECK_EXPR(conntrack_sweep(ct, SEC(60), 100) == 0);
	CHECK_EXPR(conntrack_sweep(ct, SEC(62), 100) == 1);
	conntrack_destroy(ct);
}

int
main(void)
{
	if (ct_test_init("test_ct_proto") < 0)
		return 1;
	test_udp();
	test_icmp_echo();
	test_icmp_related();
	test_other_frag_nonip();
	test_batch_and_flush();
	test_mixed_zones();
	test_checksums_and_lengths();
	test_deleted_policy_id_reused();
	return unit_test_report();
}
