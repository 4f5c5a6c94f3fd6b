/* SPDX-License-Identifier: BSD-3-Clause
 * NAT's corners, as the datapath runs it (sg_filter.c, ct_recirc.c):
 * a UDP datagram without checksum keeps none, ICMP echo is translated by
 * address only (its checksum does not cover them), the ct_state bits of
 * each direction are OVS's, and a packet NATed already in a zone (a ct()
 * after a recirculation: ct_pkt_meta.natted) finds its session by its
 * reverse tuple and is neither translated twice nor given a second
 * session; the burst-wide call (conntrack_execute_mixed) NATs each
 * packet as its own sg() says.
 */
#include <string.h>
#include "ct_test.h"

#define VM IP(192, 1, 0, 11)
#define OUT IP(192, 1, 0, 1)
#define PUB IP(203, 0, 113, 7)

/* Tracks m (kept) with meta.natted as given; returns its ct_state. */
static uint8_t
track(struct conntrack *ct, struct rte_mbuf *m, bool commit,
      const struct ct_nat_spec *nat, bool natted)
{
	struct ct_pkt_meta mt;

	ct_pkt_meta_parse(m, &mt);
	mt.natted = natted;
	return conntrack_execute_one(ct, m, &mt, 1, commit, nat, 0, NULL);
}

static uint16_t
l4_u16(struct rte_mbuf *m, int ofs)
{
	const uint8_t *p = (const uint8_t *)(pkt_iph(m) + 1) + ofs;
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* A reply to PUB of an SNAT session (m, freed) is +rpl+dnat and leaves
 * for VM with right checksums. */
static void
check_reply_restored(struct conntrack *ct, struct rte_mbuf *m,
		     const struct ct_nat_spec *nat)
{
	CHECK_EXPR(track(ct, m, false, nat, false) ==
		   (TRK_RPL | CS_DST_NAT));
	CHECK_EXPR(pkt_iph(m)->dst_addr == rte_cpu_to_be_32(VM) &&
		   pkt_csum_ok(m));
	rte_pktmbuf_free(m);
}

static void
test_udp_no_checksum(void)
{
	struct conntrack *ct = ct_test_new("nat_udp0", 16, NULL);
	struct ct_nat_spec snat = { .snat = true, .ip_min = PUB };
	struct ct_nat_spec plain = { 0 };
	struct rte_mbuf *m = pkt_udp(VM, OUT, 4000, 53);

	((struct rte_udp_hdr *)(pkt_iph(m) + 1))->dgram_cksum = 0;
	CHECK_EXPR(track(ct, m, true, &snat, false) ==
		   (TRK_NEW | CS_SRC_NAT));
	CHECK_EXPR(pkt_iph(m)->src_addr == rte_cpu_to_be_32(PUB));
	CHECK_EXPR(l4_u16(m, 6) == 0);	/* still "no checksum" */
	CHECK_EXPR(rte_ipv4_cksum(pkt_iph(m)) == 0 ||
		   rte_ipv4_cksum(pkt_iph(m)) == 0xffff);
	rte_pktmbuf_free(m);
	/* the reply, with a checksum, is un-NATed with a right one */
	check_reply_restored(ct, pkt_udp(OUT, PUB, 53, 4000), &plain);
	conntrack_destroy(ct);
}

/* An ICMP error about an SNATed datagram (a router's "fragmentation
 * needed" to PUB): +rel+rpl+dnat, and translated as OVS 3.1 does, so it
 * reaches VM quoting VM's own datagram (path-MTU discovery behind NAT):
 * outer destination VM, quoted source VM:4000 with the quoted UDP
 * checksum the VM sent, every checksum right. */
static void
test_icmp_error_translated(void)
{
	struct conntrack *ct = ct_test_new("nat_icmperr", 16, NULL);
	struct ct_nat_spec snat = { .snat = true, .ip_min = PUB,
				    .port_min = 20000, .port_max = 20000 };
	struct ct_nat_spec plain = { 0 };
	struct rte_mbuf *m = pkt_udp(VM, OUT, 4000, 53);
	uint16_t sent_csum = l4_u16(m, 6);

	CHECK_EXPR(track(ct, m, true, &snat, false) ==
		   (TRK_NEW | CS_SRC_NAT));
	CHECK_EXPR(pkt_iph(m)->src_addr == rte_cpu_to_be_32(PUB) &&
		   l4_u16(m, 0) == 20000);
	/* the router's error quotes the datagram as it left: m */
	struct rte_mbuf *e = pkt_icmp_error(IP(198, 51, 100, 1), PUB, 3, m);
	CHECK_EXPR(track(ct, e, false, &plain, false) ==
		   (CS_TRACKED | CS_RELATED | CS_REPLY_DIR | CS_DST_NAT));
	struct rte_ipv4_hdr *ip = pkt_iph(e);
	uint8_t *icmp = (uint8_t *)(ip + 1);
	struct rte_ipv4_hdr *in = (struct rte_ipv4_hdr *)(icmp + 8);
	uint8_t *in_udp = (uint8_t *)(in + 1);
	CHECK_EXPR(ip->dst_addr == rte_cpu_to_be_32(VM) &&
		   ip->src_addr == rte_cpu_to_be_32(IP(198, 51, 100, 1)));
	CHECK_EXPR(rte_ipv4_cksum(ip) == 0);
	CHECK_EXPR(rte_raw_cksum(icmp, 8 + 20 + 8) == 0xffff);
	CHECK_EXPR(in->src_addr == rte_cpu_to_be_32(VM) &&
		   in->dst_addr == rte_cpu_to_be_32(OUT));
	CHECK_EXPR(rte_ipv4_cksum(in) == 0);
	CHECK(((in_udp[0] << 8) | in_udp[1]) == 4000 &&
	      ((in_udp[2] << 8) | in_udp[3]) == 53,
	      "quoted ports %u %u", (in_udp[0] << 8) | in_udp[1],
	      (in_udp[2] << 8) | in_udp[3]);
	CHECK(((in_udp[6] << 8) | in_udp[7]) == sent_csum,
	      "quoted checksum %#x, the VM sent %#x",
	      (in_udp[6] << 8) | in_udp[7], sent_csum);
	rte_pktmbuf_free(e);
	conntrack_destroy(ct);
}

static void
test_icmp_echo(void)
{
	struct conntrack *ct = ct_test_new("nat_icmp", 16, NULL);
	struct ct_nat_spec snat = { .snat = true, .ip_min = PUB,
				    .port_min = 2000, .port_max = 2010 };
	struct rte_mbuf *m = pkt_icmp(VM, OUT, 8, 77);
	uint16_t csum = l4_u16(m, 2), id = l4_u16(m, 4);

	CHECK_EXPR(track(ct, m, true, &snat, false) ==
		   (TRK_NEW | CS_SRC_NAT));
	/* the address only: a port range means nothing to ICMP */
	CHECK_EXPR(pkt_iph(m)->src_addr == rte_cpu_to_be_32(PUB) &&
		   pkt_csum_ok(m));
	CHECK_EXPR(l4_u16(m, 2) == csum && l4_u16(m, 4) == id);
	rte_pktmbuf_free(m);
	check_reply_restored(ct, pkt_icmp(OUT, PUB, 0, 77), &snat);
	conntrack_destroy(ct);
}

/* OVS's pattern: ct(nat,table=T), then in T ct(commit,nat(src=...)) for
 * +new. A retransmitted SYN is +new, and NATed by the first ct(nat): the
 * second must find the session by its reverse tuple, not open another. */
static void
test_natted_lookup(void)
{
	struct conntrack *ct = ct_test_new("nat_twice", 16, NULL);
	struct ct_nat_spec snat = { .snat = true, .ip_min = PUB,
				    .port_min = 3000, .port_max = 3000 };
	struct ct_nat_spec plain = { 0 };
	struct rte_mbuf *m;

	m = pkt_tcp(VM, OUT, 1234, 80, F_SYN, 100, 0, 1000, -1, 0);
	CHECK_EXPR(track(ct, m, true, &snat, false) ==
		   (TRK_NEW | CS_SRC_NAT));
	rte_pktmbuf_free(m);
	/* the retransmit: first ct(nat) translates it, still +new */
	m = pkt_tcp(VM, OUT, 1234, 80, F_SYN, 100, 0, 1000, -1, 0);
	CHECK_EXPR(track(ct, m, false, &plain, false) ==
		   (TRK_NEW | CS_SRC_NAT));
	CHECK_EXPR(pkt_iph(m)->src_addr == rte_cpu_to_be_32(PUB) &&
		   l4_u16(m, 0) == 3000 && pkt_csum_ok(m));
	/* after the recirculation, ct(commit,nat(src=...)): same session,
	 * same translation, no second session (the only port is taken: a
	 * new one would be refused) */
	CHECK_EXPR(track(ct, m, true, &snat, true) ==
		   (TRK_NEW | CS_SRC_NAT));
	CHECK_EXPR(pkt_iph(m)->src_addr == rte_cpu_to_be_32(PUB) &&
		   l4_u16(m, 0) == 3000 && pkt_csum_ok(m));
	rte_pktmbuf_free(m);
	struct ct_stats s;
	conntrack_get_stats(ct, &s);
	CHECK(s.n_conns == 1 && s.refused_nat == 0 && s.invalid == 0,
	      "n %lu refused_nat %lu invalid %lu", (unsigned long)s.n_conns,
	      (unsigned long)s.refused_nat, (unsigned long)s.invalid);
	/* the SYN-ACK, un-NATed by the first ct(nat), then tracked again in
	 * the zone: a reply both times (+dnat), established by the first */
	m = pkt_tcp(OUT, PUB, 80, 3000, F_SYN | F_ACK, 500, 101, 1000, -1, 0);
	CHECK_EXPR(track(ct, m, false, &plain, false) ==
		   (TRK_RPL | CS_DST_NAT));
	CHECK_EXPR(pkt_iph(m)->dst_addr == rte_cpu_to_be_32(VM) &&
		   l4_u16(m, 2) == 1234 && pkt_csum_ok(m));
	CHECK_EXPR(track(ct, m, false, &plain, true) ==
		   (TRK_RPL | CS_DST_NAT));
	CHECK_EXPR(pkt_iph(m)->dst_addr == rte_cpu_to_be_32(VM) &&
		   l4_u16(m, 2) == 1234 && pkt_csum_ok(m));
	rte_pktmbuf_free(m);
	/* a NATed packet whose session is gone goes on as a new one */
	conntrack_flush(ct);
	m = pkt_tcp(PUB, OUT, 3000, 80, F_SYN, 100, 0, 1000, -1, 0);
	CHECK_EXPR(track(ct, m, false, &plain, true) == TRK_NEW);
	rte_pktmbuf_free(m);
	conntrack_destroy(ct);
}

/* The sg stage's burst-wide call: NAT per packet, as its sg() says. */
static void
test_mixed(void)
{
	struct conntrack *ct = ct_test_new("nat_mixed", 16, NULL);
	struct ct_nat_spec snat = { .snat = true, .ip_min = PUB };
	const struct ct_nat_spec *nats[3] = { &snat, NULL, &snat };
	struct rte_mbuf *pk[3] = { pkt_udp(VM, OUT, 4000, 53),
				   pkt_udp(VM + 1, OUT, 4000, 53),
				   pkt_udp(VM, OUT, 4000, 53) };
	struct ct_pkt_meta mt[3];
	uint16_t zones[3] = { 1, 1, 1 };
	uint64_t commits[1] = { 0x7 };
	uint8_t st[3];

	for (int i = 0; i < 3; i++)
		ct_pkt_meta_parse(pk[i], &mt[i]);
	conntrack_execute_mixed(ct, pk, mt, 3, zones, commits, nats, 1, st);
	CHECK_EXPR(st[0] == (TRK_NEW | CS_SRC_NAT) && st[1] == TRK_NEW);
	CHECK_EXPR(pkt_iph(pk[0])->src_addr == rte_cpu_to_be_32(PUB) &&
		   pkt_csum_ok(pk[0]));
	CHECK_EXPR(pkt_iph(pk[1])->src_addr == rte_cpu_to_be_32(VM + 1));
	/* the second packet of the first session, in the same call */
	CHECK_EXPR(st[2] == (TRK_NEW | CS_SRC_NAT) &&
		   pkt_iph(pk[2])->src_addr == rte_cpu_to_be_32(PUB) &&
		   pkt_csum_ok(pk[2]));
	CHECK_EXPR(conntrack_get_nconns(ct) == 2);
	for (int i = 0; i < 3; i++)
		rte_pktmbuf_free(pk[i]);
	conntrack_destroy(ct);
}

int
main(void)
{
	if (ct_test_init("test_ct_nat") < 0)
		return 1;
	test_udp_no_checksum();
	test_icmp_echo();
	test_icmp_error_translated();
	test_natted_lookup();
	test_mixed();
	return unit_test_report();
}
