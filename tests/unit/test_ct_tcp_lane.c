/* SPDX-License-Identifier: BSD-3-Clause
 * The TCP established lane (ct_tcp_lane, ct_est.h) against the full path
 * it stands in for: the same random TCP conversations, in the same bursts,
 * through two trackers, one whose lcore has a session cache (so the lane
 * runs) and one without (the full path alone, the reference: it is what
 * the differential harness compares with OVS). Every segment must get the
 * same ct_state from both and every session must end with the same peers
 * (sequence windows, scaling, states). The conversations are mostly
 * well-formed data and ACKs both ways, with retransmissions, acks behind
 * and ahead, segments outside the window, window changes, ECN bits, and
 * now and then a FIN or RST that takes the session off the lane, often
 * several of one session in one burst (the lane runs before the full
 * path's packets of a burst, and must keep a session's order); through
 * both entry points (conntrack_execute, conntrack_execute_flows). The lane
 * must have taken most segments, both without the lock (nothing moved)
 * and under it.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "ct_test.h"
#include "ct_private.h"

#define A IP(10, 0, 0, 1)
#define B IP(10, 0, 0, 2)
#define N_SESS 200
#define N_SEGS 60000
#define ZONE 3

static uint64_t rng = 0x243f6a8885a308d3ull;

static uint32_t
rnd(uint32_t n)
{
	return (uint32_t)((unit_xorshift64s(&rng) >> 32) % n);
}

struct end {
	uint32_t nxt;		/* next sequence number to send */
	uint16_t win;
	int wscale;		/* -1: none offered */
};

struct sess {
	uint16_t port;
	struct end e[2];	/* [0] client A:port, [1] server B:80 */
	bool open;
};

struct seg {
	uint16_t port;
	bool from_server;
	uint8_t flags;
	uint32_t seq, ack;
	uint16_t win, len;
	int wscale;
};

static struct rte_mbuf *
seg_pkt(const struct seg *g)
{
	return g->from_server ?
	       pkt_tcp(B, A, 80, g->port, g->flags, g->seq, g->ack, g->win,
		       g->wscale, g->len) :
	       pkt_tcp(A, B, g->port, 80, g->flags, g->seq, g->ack, g->win,
		       g->wscale, g->len);
}

/* Appends session s's next segments to g[] (the handshake first). */
static unsigned
next_segs(struct sess *s, struct seg *g)
{
	if (!s->open) {
		struct end *c = &s->e[0], *v = &s->e[1];
		c->nxt = rnd(UINT32_MAX);
		v->nxt = rnd(UINT32_MAX);
		c->win = (uint16_t)(1000 + rnd(64000));
		v->win = (uint16_t)(1000 + rnd(64000));
		c->wscale = rnd(3) ? (int)rnd(15) : -1;
		v->wscale = c->wscale >= 0 && rnd(4) ? (int)rnd(15) : -1;
		g[0] = (struct seg){ s->port, false, RTE_TCP_SYN_FLAG,
				     c->nxt, 0, c->win, 0, c->wscale };
		g[1] = (struct seg){ s->port, true, RTE_TCP_SYN_FLAG |
				     RTE_TCP_ACK_FLAG, v->nxt, c->nxt + 1,
				     v->win, 0, v->wscale };
		c->nxt++;
		v->nxt++;
		g[2] = (struct seg){ s->port, false, RTE_TCP_ACK_FLAG,
				     c->nxt, v->nxt, c->win, 0, -1 };
		s->open = true;
		return 3;
	}
	bool srv = rnd(2);
	struct end *x = &s->e[srv], *y = &s->e[!srv];
	struct seg o = { s->port, srv, RTE_TCP_ACK_FLAG, x->nxt, y->nxt,
			 x->win, (uint16_t)(rnd(3) ? rnd(1461) : 0), -1 };
	uint32_t r = rnd(100);
	if (r < 6)
		o.seq -= rnd(4000);		/* retransmission */
	else if (r < 9)
		o.seq += 70000 + rnd(1u << 30);	/* far ahead */
	else if (r < 14)
		o.ack -= rnd(3000);		/* an older ack */
	else if (r < 16)
		o.ack += 100000 + rnd(1u << 20);	/* acks unsent data */
	if (rnd(8) == 0)
		o.win = x->win = (uint16_t)rnd(65536);
	r = rnd(1000);
	if (r < 150)
		o.flags |= RTE_TCP_PSH_FLAG;
	else if (r < 170)
		o.flags |= RTE_TCP_ECE_FLAG | RTE_TCP_CWR_FLAG;
	else if (r < 175)
		o.flags |= RTE_TCP_FIN_FLAG;
	else if (r < 178)
		o.flags = RTE_TCP_RST_FLAG | RTE_TCP_ACK_FLAG;
	else if (r < 180)
		o.flags |= RTE_TCP_URG_FLAG;
	if (o.seq == x->nxt)
		x->nxt += o.len + !!(o.flags & RTE_TCP_FIN_FLAG);
	if (o.flags & (RTE_TCP_FIN_FLAG | RTE_TCP_RST_FLAG))
		s->open = rnd(4) != 0;	/* mostly: a reopen on the same port */
	*g = o;
	return 1;
}

static unsigned checked;	/* sessions check_peers() compared */

/* Both trackers' session for client port p, its peers compared. */
static void
check_peers(struct conntrack *lane, struct conntrack *ref, uint16_t p)
{
	struct ct_key k = { .src = rte_cpu_to_be_32(A),
			    .dst = rte_cpu_to_be_32(B),
			    .sport = rte_cpu_to_be_16(p),
			    .dport = rte_cpu_to_be_16(80), .zone = ZONE,
			    .proto = IPPROTO_TCP };
	void *dl = NULL, *dr = NULL;
	int hl = rte_hash_lookup_with_hash_data(lane->table, &k,
						 ct_key_hash(&k), &dl);
	int hr = rte_hash_lookup_with_hash_data(ref->table, &k,
						 ct_key_hash(&k), &dr);

	CHECK_EXPR((hl >= 0) == (hr >= 0));
	if (hl < 0 || hr < 0)
		return;
	checked++;
	const struct ct_conn *cl = (const void *)((uintptr_t)dl &
						  ~CT_DIR_REPLY);
	const struct ct_conn *cr = (const void *)((uintptr_t)dr &
						  ~CT_DIR_REPLY);
	for (int d = 0; d < 2; d++) {
		const struct ct_tcp_peer *a = &cl->p.tcp[d], *b = &cr->p.tcp[d];
		if (a->seqlo != b->seqlo || a->seqhi != b->seqhi ||
		    a->max_win != b->max_win || a->wscale != b->wscale ||
		    a->state != b->state)
			fprintf(stderr, "port %u peer %d: lane %u %u %u %u %u,"
				" full path %u %u %u %u %u\n", p, d, a->seqlo,
				a->seqhi, a->max_win, a->wscale, a->state,
				b->seqlo, b->seqhi, b->max_win, b->wscale,
				b->state);
		CHECK_EXPR(memcmp(a, b, sizeof *a) == 0);
	}
	/* the lane writes an expiration only when it moves by > 1 ms */
	uint64_t el = cl->expiration, er = cr->expiration;
	CHECK_EXPR(el <= er && er - el <= SEC(1) / 1000 + 1);
}

/* One burst through tracker ct: via flow keys (sg's entry) or metas. */
static void
run_burst(struct conntrack *ct, const struct seg *g, unsigned n, bool flows,
	  uint64_t now, uint8_t *st)
{
	struct rte_mbuf *pk[32];
	struct ct_pkt_meta mt[32];
	struct flow_key fk[32];
	const struct flow_key *fkp[32];
	uint64_t commits[1] = { ~0ull };

	for (unsigned i = 0; i < n; i++) {
		pk[i] = seg_pkt(&g[i]);
		CHECK_EXPR(ct_pkt_meta_parse(pk[i], &mt[i]) == 0);
		memset(&fk[i], 0, sizeof fk[i]);
		fk[i].dl_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
		fk[i].nw_src = mt[i].nw_src;
		fk[i].nw_dst = mt[i].nw_dst;
		fk[i].nw_proto = IPPROTO_TCP;
		fk[i].tp_src = mt[i].tp_src;
		fk[i].tp_dst = mt[i].tp_dst;
		fkp[i] = &fk[i];
	}
	if (flows) {
		const struct ct_flow_call call = { .zone = ZONE,
						   .commits = commits };
		conntrack_execute_flows(ct, pk, fkp, (uint16_t)n, &call, now,
					st);
	} else {
		conntrack_execute(ct, pk, mt, (uint16_t)n, ZONE, true, NULL,
				  now, st, NULL);
	}
	for (unsigned i = 0; i < n; i++)
		rte_pktmbuf_free(pk[i]);
}

static void
test_lane_equals_full_path(bool flows)
{
	struct conntrack *lane = ct_test_new(flows ? "lane_f" : "lane_m",
					     4096, NULL);
	struct conntrack *ref = ct_test_new(flows ? "ref_f" : "ref_m", 4096,
					    NULL);
	unsigned lc = rte_lcore_id();
	struct ct_cache *saved = ref->cache[lc];
	static struct sess sess[N_SESS];
	uint64_t now = SEC(1), segs = 0, diffs = 0;

	CHECK_EXPR(lane->cache[lc] != NULL);
	ref->cache[lc] = NULL;	/* the reference: the full path only */
	memset(sess, 0, sizeof sess);
	for (unsigned i = 0; i < N_SESS; i++)
		sess[i].port = (uint16_t)(20000 + i);
	while (segs < N_SEGS) {
		struct seg g[32 + 3];
		unsigned n = 0, want = 1 + rnd(32);
		while (n + 3 <= want + 2 && n < 32) {
			/* a few of one session's segments in a row: the
			 * lane must keep their order with the full path's */
			struct sess *s = &sess[rnd(N_SESS)];
			for (unsigned k = 1 + rnd(4); k && n + 3 <= 34; k--)
				n += next_segs(s, &g[n]);
		}
		n = RTE_MIN(n, 32u);
		uint8_t sl[32], sr[32];
		run_burst(lane, g, n, flows, now, sl);
		run_burst(ref, g, n, flows, now, sr);
		for (unsigned i = 0; i < n; i++)
			if (sl[i] != sr[i] && diffs++ < 5)
				fprintf(stderr, "segment %" PRIu64 " (port %u,"
					" %s, flags %#x): lane %#x, full path"
					" %#x\n", segs + i, g[i].port,
					g[i].from_server ? "reply" : "orig",
					g[i].flags, sl[i], sr[i]);
		segs += n;
		now += SEC(1) / 100000 * n;	/* 10 us a segment */
	}
	CHECK_EXPR(diffs == 0);
	checked = 0;
	for (unsigned i = 0; i < N_SESS; i++)
		check_peers(lane, ref, sess[i].port);
	CHECK_EXPR(checked > N_SESS / 2);

	struct ct_stats s_lane, s_ref;
	conntrack_get_stats(lane, &s_lane);
	conntrack_get_stats(ref, &s_ref);
	printf("%s: %" PRIu64 " segments, %" PRIu64 " differences, %u"
	       " sessions' peers compared; lane %" PRIu64 " (%" PRIu64
	       " under the lock), +inv %" PRIu64 "\n",
	       flows ? "flows" : "metas", segs, diffs, checked, s_lane.lane,
	       s_lane.lane_tcp_locked, s_lane.invalid);
	CHECK_EXPR(s_ref.lane == 0);
	CHECK_EXPR(s_lane.invalid == s_ref.invalid);
	CHECK_EXPR(s_lane.created == s_ref.created);
	/* most segments took the lane, both with and without the lock */
	CHECK_EXPR(s_lane.lane > segs / 3);
	CHECK_EXPR(s_lane.lane_tcp_locked > segs / 5);
	CHECK_EXPR(s_lane.lane - s_lane.lane_tcp_locked > segs / 50);
	ref->cache[lc] = saved;
	conntrack_destroy(lane);
	conntrack_destroy(ref);
}

/* A duplicate ACK moves nothing: no lock, no write to the peers (their
 * seqlock stays), the expiration pushed; new data moves the window under
 * the lock. */
static void
test_lockless_duplicate_ack(void)
{
	struct conntrack *ct = ct_test_new("lane_dup", 64, NULL);
	const uint16_t p = 4242;

	CHECK_EXPR(ct_run(ct, pkt_tcp(A, B, p, 80, RTE_TCP_SYN_FLAG, 100, 0,
				      8000, -1, 0), ZONE, true, NULL, SEC(1))
		   == TRK_NEW);
	CHECK_EXPR(ct_run(ct, pkt_tcp(B, A, 80, p, RTE_TCP_SYN_FLAG |
				      RTE_TCP_ACK_FLAG, 500, 101, 8000, -1,
				      0), ZONE, true, NULL, SEC(1)) == TRK_RPL);
	CHECK_EXPR(ct_run(ct, pkt_tcp(A, B, p, 80, RTE_TCP_ACK_FLAG, 101, 501,
				      8000, -1, 0), ZONE, true, NULL, SEC(1))
		   == TRK_EST);
	struct ct_key k = { .src = rte_cpu_to_be_32(A),
			    .dst = rte_cpu_to_be_32(B),
			    .sport = rte_cpu_to_be_16(p),
			    .dport = rte_cpu_to_be_16(80), .zone = ZONE,
			    .proto = IPPROTO_TCP };
	void *d;
	CHECK_EXPR(rte_hash_lookup_with_hash_data(ct->table, &k,
						  ct_key_hash(&k), &d) >= 0);
	struct ct_conn *c = (void *)((uintptr_t)d & ~CT_DIR_REPLY);
	struct ct_stats s0, s1;
	conntrack_get_stats(ct, &s0);
	uint32_t wseq = c->tcp_wseq;
	for (int i = 2; i <= 5; i++)	/* the same ACK again, seconds on */
		CHECK_EXPR(ct_run(ct, pkt_tcp(A, B, p, 80, RTE_TCP_ACK_FLAG,
					      101, 501, 8000, -1, 0), ZONE,
				  true, NULL, SEC(i)) == TRK_EST);
	conntrack_get_stats(ct, &s1);
	CHECK_EXPR(c->tcp_wseq == wseq);
	CHECK_EXPR(s1.lane - s0.lane == 4 && s1.lane_tcp_locked ==
		   s0.lane_tcp_locked);
	CHECK_EXPR(c->expiration == SEC(5) + ct_conn_timeout_tsc(ct, c,
							CT_TM_TCP_ESTABLISHED));
	/* 100 bytes of data: the window moves, under the lock */
	CHECK_EXPR(ct_run(ct, pkt_tcp(A, B, p, 80, RTE_TCP_ACK_FLAG |
				      RTE_TCP_PSH_FLAG, 101, 501, 8000, -1,
				      100), ZONE, true, NULL, SEC(6))
		   == TRK_EST);
	conntrack_get_stats(ct, &s0);
	CHECK_EXPR(c->tcp_wseq == wseq + 2);
	CHECK_EXPR(c->p.tcp[0].seqlo == 201);
	CHECK_EXPR(s0.lane_tcp_locked == s1.lane_tcp_locked + 1);
	/* far outside the window: +inv, as the full path (not the lane) */
	CHECK_EXPR(ct_run(ct, pkt_tcp(A, B, p, 80, RTE_TCP_ACK_FLAG,
				      201 + (1u << 30), 501, 8000, -1, 10),
			  ZONE, true, NULL, SEC(7)) == TRK_INV);
	/* a bad checksum never reaches the session */
	struct rte_mbuf *m = pkt_tcp(A, B, p, 80, RTE_TCP_ACK_FLAG |
				     RTE_TCP_RST_FLAG, 201, 501, 8000, -1, 0);
	struct rte_tcp_hdr *t = (struct rte_tcp_hdr *)(pkt_iph(m) + 1);
	t->cksum ^= 0x0101;
	CHECK_EXPR(ct_run(ct, m, ZONE, true, NULL, SEC(8)) == TRK_INV);
	CHECK_EXPR(c->p.tcp[0].state == CT_TCPS_ESTABLISHED);
	conntrack_destroy(ct);
}

int
main(void)
{
	if (ct_test_init("test_ct_tcp_lane") < 0)
		return 1;
	test_lockless_duplicate_ack();
	test_lane_equals_full_path(false);
	test_lane_equals_full_path(true);
	return unit_test_report();
}
