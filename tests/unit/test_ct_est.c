/* SPDX-License-Identifier: BSD-3-Clause
 * The established lane (app/conntrack/ct_est.h) behind
 * conntrack_execute_flows(), sg()'s entry point: it gives the states the
 * full path gives, takes only what it may (not NATed, not a reply that
 * turns a session bidir, not expired, not cut short), and its lockless
 * refresh keeps the session alive. Which path a packet took shows in the
 * expiration: the lane does not write one that moves by less than 1 ms,
 * the full path always does.
 */
#include <string.h>
#include "ct_test.h"

#define A IP(10, 0, 0, 1)
#define B IP(10, 0, 0, 2)
#define PUB IP(192, 0, 2, 1)
#define ZONE 5

/* The key the datapath would have extracted from m. */
static void
flow_of(struct flow_key *k, struct rte_mbuf *m)
{
	const struct rte_ipv4_hdr *ip = pkt_iph(m);
	const uint8_t *l4 = (const uint8_t *)ip + 20;

	memset(k, 0, sizeof *k);
	k->dl_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	k->nw_src = ip->src_addr;
	k->nw_dst = ip->dst_addr;
	k->nw_proto = ip->next_proto_id;
	memcpy(&k->tp_src, l4, 2);
	memcpy(&k->tp_dst, l4 + 2, 2);
}

/* sg(allow)'s call for one packet (freed unless keep); its ct_state. */
static uint8_t
sg_run(struct conntrack *ct, struct rte_mbuf *m, bool commit,
       const struct ct_nat_spec *nat, uint64_t now, bool keep)
{
	struct flow_key k;
	const struct flow_key *kp = &k;
	const struct ct_flow_call call = { .zone = ZONE, .commit = commit,
					   .nat = nat };
	uint8_t st = 0xff;

	flow_of(&k, m);
	conntrack_execute_flows(ct, &m, &kp, 1, &call, now, &st);
	if (!keep)
		rte_pktmbuf_free(m);
	return st;
}

static void
test_states(void)
{
	struct conntrack *ct = ct_test_new("est_states", 64, NULL);

	/* first, second: +new (full path); third: +est, as OVS's
	 * other_conn_update calls a repeated original direction valid */
	CHECK_EXPR(sg_run(ct, pkt_udp(A, B, 1000, 53), true, NULL, SEC(1),
			  false) == TRK_NEW);
	CHECK_EXPR(sg_run(ct, pkt_udp(A, B, 1000, 53), true, NULL, SEC(2),
			  false) == TRK_NEW);
	CHECK_EXPR(sg_run(ct, pkt_udp(A, B, 1000, 53), false, NULL, SEC(3),
			  false) == TRK_EST);
	/* the first reply turns it bidir (full path), then both ways */
	CHECK_EXPR(sg_run(ct, pkt_udp(B, A, 53, 1000), false, NULL, SEC(4),
			  false) == TRK_RPL);
	CHECK_EXPR(sg_run(ct, pkt_udp(B, A, 53, 1000), false, NULL, SEC(5),
			  false) == TRK_RPL);
	CHECK_EXPR(sg_run(ct, pkt_udp(A, B, 1000, 53), false, NULL, SEC(6),
			  false) == TRK_EST);
	/* the same packets through conntrack_execute (meta, no flow key):
	 * the same states */
	CHECK_EXPR(ct_run(ct, pkt_udp(B, A, 53, 1000), ZONE, false, NULL,
			  SEC(7)) == TRK_RPL);
	CHECK_EXPR(conntrack_get_nconns(ct) == 1);
	conntrack_destroy(ct);
}

static void
test_refresh(void)
{
	struct conntrack *ct = ct_test_new("est_refresh", 64, NULL);
	const uint64_t us = SEC(1) / 1000000;

	CHECK_EXPR(sg_run(ct, pkt_udp(A, B, 2000, 53), true, NULL, SEC(1),
			  false) == TRK_NEW);
	CHECK_EXPR(sg_run(ct, pkt_udp(B, A, 53, 2000), false, NULL, SEC(2),
			  false) == TRK_RPL);	/* bidir: 30 s, to 32 s */
	/* the lane keeps it alive well past the first timeout */
	for (int s = 10; s <= 60; s += 10)
		CHECK_EXPR(sg_run(ct, pkt_udp(A, B, 2000, 53), false, NULL,
				  SEC(s), false) == TRK_EST);
	CHECK_EXPR(conntrack_sweep(ct, SEC(89), 100) == 0);
	/* 500 us later: within the lane's 1 ms slack, not written; so the
	 * session expires at 90 s, not 90.0005 s */
	CHECK_EXPR(sg_run(ct, pkt_udp(B, A, 53, 2000), false, NULL,
			  SEC(60) + 500 * us, false) == TRK_RPL);
	CHECK_EXPR(conntrack_sweep(ct, SEC(90) + 200 * us, 100) == 1);
	CHECK_EXPR(conntrack_get_nconns(ct) == 0);
	conntrack_destroy(ct);
}

static void
test_not_taken(void)
{
	struct conntrack *ct = ct_test_new("est_not", 64, NULL);

	CHECK_EXPR(sg_run(ct, pkt_udp(A, B, 3000, 53), true, NULL, SEC(1),
			  false) == TRK_NEW);
	CHECK_EXPR(sg_run(ct, pkt_udp(B, A, 53, 3000), false, NULL, SEC(2),
			  false) == TRK_RPL);
	CHECK_EXPR(sg_run(ct, pkt_udp(A, B, 3000, 53), false, NULL, SEC(3),
			  false) == TRK_EST);	/* cached now */
	/* a UDP header cut short, in a cached session: +inv */
	struct rte_mbuf *m = pkt_udp(A, B, 3000, 53);
	struct ct_pkt_meta mt;
	CHECK_EXPR(ct_pkt_meta_parse(m, &mt) == 0);
	mt.l4_len = 6;
	CHECK_EXPR(conntrack_execute_one(ct, m, &mt, ZONE, false, NULL, SEC(4),
					 NULL) == TRK_INV);
	rte_pktmbuf_free(m);
	/* expired (bidir 30 s after 3 s), not swept yet: a new session */
	CHECK_EXPR(sg_run(ct, pkt_udp(A, B, 3000, 53), true, NULL, SEC(40),
			  false) == TRK_NEW);
	CHECK_EXPR(conntrack_get_nconns(ct) == 1);

	/* a NATed session: every packet is rewritten, so none takes the
	 * lane; the reply is un-NATed */
	struct ct_nat_spec snat = { .snat = true, .ip_min = PUB };
	for (int i = 0; i < 3; i++) {
		m = pkt_udp(A, B, 4000, 53);
		uint8_t st = sg_run(ct, m, true, &snat, SEC(41 + i), true);
		CHECK(st == ((i ? TRK_EST : TRK_NEW) | CS_SRC_NAT) &&
		      pkt_iph(m)->src_addr == rte_cpu_to_be_32(PUB) &&
		      pkt_csum_ok(m), "packet %d: state %#x", i, st);
		rte_pktmbuf_free(m);
		m = pkt_udp(B, PUB, 53, 4000);
		st = sg_run(ct, m, false, &snat, SEC(41 + i), true);
		CHECK(st == (TRK_RPL | CS_DST_NAT) &&
		      pkt_iph(m)->dst_addr == rte_cpu_to_be_32(A) &&
		      pkt_csum_ok(m), "reply %d: state %#x", i, st);
		rte_pktmbuf_free(m);
	}
	conntrack_destroy(ct);
}

/* A burst mixing lane and full-path packets keeps each packet's state
 * in its own slot. */
static void
test_burst(void)
{
	struct conntrack *ct = ct_test_new("est_burst", 64, NULL);
	enum { N = 40 };
	struct rte_mbuf *pk[N];
	struct flow_key fk[N];
	const struct flow_key *kp[N];
	uint8_t st[N];

	for (int i = 0; i < 8; i++) {
		CHECK_EXPR(sg_run(ct, pkt_udp(A, B, 5000 + i, 53), true, NULL,
				  SEC(1), false) == TRK_NEW);
		CHECK_EXPR(sg_run(ct, pkt_udp(B, A, 53, 5000 + i), false,
				  NULL, SEC(1), false) == TRK_RPL);
	}
	/* even i: a live session (lane); odd i: new ones (full path) */
	for (int i = 0; i < N; i++) {
		pk[i] = i % 2 ? pkt_udp(A, B, 6000 + i, 53) :
				pkt_udp(B, A, 53, 5000 + (i / 2) % 8);
		flow_of(&fk[i], pk[i]);
		kp[i] = &fk[i];
	}
	const struct ct_flow_call call = { .zone = ZONE, .commit = true };
	conntrack_execute_flows(ct, pk, kp, N, &call, SEC(2), st);
	for (int i = 0; i < N; i++) {
		CHECK(st[i] == (i % 2 ? TRK_NEW : TRK_RPL), "%d: %#x", i,
		      st[i]);
		rte_pktmbuf_free(pk[i]);
	}
	CHECK_EXPR(conntrack_get_nconns(ct) == 8 + N / 2);
	conntrack_destroy(ct);
}

int
main(void)
{
	if (ct_test_init("test_ct_est") < 0)
		return 1;
	test_states();
	test_refresh();
	test_not_taken();
	test_burst();
	return unit_test_report();
}
