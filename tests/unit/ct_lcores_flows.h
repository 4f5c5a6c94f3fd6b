/* SPDX-License-Identifier: BSD-3-Clause
 * test_ct_lcores.c's flows, each a script of packets with the verdict
 * each must get: TCP connections (a driving lcore and, for B's data, a
 * helping one), ICMP echoes, UDP datagrams in fragments through the
 * fragment store. Included by test_ct_lcores.c only (its globals are
 * here too).
 */
#ifndef VXS_CT_LCORES_FLOWS_H
#define VXS_CT_LCORES_FLOWS_H

#include <rte_spinlock.h>
#include <rte_rcu_qsbr.h>
#include "ct_test.h"
#include "ct_ipf.h"
#include "frag_build.h"

#define MAX_W 8			/* worker lcores at most */
/* the table: room for 8192 sessions a worker (a few thousand in all
 * are live at once on a 2-CPU VM), 65536 at most */
#define CONNS_PER_WORKER 8192
#define BURST 32
#define N_TCP 12		/* TCP connections a worker drives */
#define N_ICMP 3
#define N_FRAG 2
#define N_ZONES 3
#define B_IP IP(10, 200, 0, 2)
#define FRAG_LEN 3000		/* UDP payload: 3 fragments of <= 1480 */
#define QUIET SEC(25)		/* under every timeout (30 s and more) */
#define RUN_MS 2000

static struct conntrack *ct;
static struct ct_ipf *ipf;
static struct rte_rcu_qsbr *qsbr;
static unsigned n_workers;
static volatile uint64_t now_tsc;
static volatile int stop;
/* odd while the main lcore flushes; +2 for every flush */
static uint32_t flush_epoch;

/* A connection's common part: who may judge it strictly. */
struct flow {
	uint32_t open_epoch;	/* flush_epoch when it opened */
	uint32_t tainted;	/* a flush or a long gap since: loose */
	uint64_t last_tsc;	/* tracker time of its last packet */
	uint32_t k;		/* how many tuples it has had */
	uint16_t zone;
};

enum tcp_phase { HS0, HS1, HS2, DATA, CL0, CL1, CL2, REOPEN };

/* A TCP connection A:sport -> B:80, driven by worker d, its B->A data
 * sent by worker (d + 1) % n_workers in phase DATA. a_* written by the
 * driver, b_* by the helper during DATA (by the driver before it); both
 * published with release stores after the burst that carried them. */
struct tcp_conn {
	struct flow f;
	uint32_t gen;		/* bumped at each (re)open, before the
				 * fields change: the helper's snapshot
				 * of a DATA phase is one connection's */
	uint32_t phase;		/* written by the driver (release) */
	uint32_t a_ip;
	uint16_t sport;
	int8_t ws_a, ws_b;	/* window scale options, -1: none */
	uint8_t close_kind;	/* 0 A FIN first, 1 B FIN first, 2 A RST,
				 * 3 B RST */
	uint32_t a_nxt, a_ack, a_left;
	uint32_t b_nxt, b_ack, b_left;
	/* the helper's after-burst update and the driver's (re)open, one
	 * at a time: once B is done the driver may close and re-open while
	 * the helper, preempted, is still between its stores, and a late
	 * b_nxt = old + len would hand the new connection the old one's
	 * numbers (seen on 3 lcores sharing 2 CPUs) */
	rte_spinlock_t lk;
};

struct icmp_flow {
	struct flow f;
	uint32_t a_ip;
	uint16_t id;
	bool reply_next, reply_seen;
};

struct frag_flow {
	struct flow f;
	uint32_t a_ip;
	uint16_t sport, ip_id;
	bool reply_next, reply_seen;
};

/* What one packet of a burst was, to judge its verdict. */
struct pinfo {
	struct flow *f;
	struct tcp_conn *tc;	/* TCP: the connection */
	uint8_t expect;		/* the strict verdict */
	uint8_t tcp_next;	/* driver's TCP step: the phase after */
	bool helper;		/* the helper's DATA segment */
	bool bogus;		/* out of the window: +inv, no change */
	uint32_t gen;		/* the helper's: its connection's gen when
				 * it built the segment */
	uint32_t len;		/* data bytes */
	uint32_t ack;
	uint64_t prev_tsc;	/* the flow's last_tsc before it */
	struct icmp_flow *ic;
	struct frag_flow *ff;
	struct ct_ipf_dgram *dg; /* fragments: the datagram */
};

struct worker {
	unsigned idx;
	uint64_t rng;
	struct tcp_conn tcp[N_TCP];
	struct icmp_flow icmp[N_ICMP];
	struct frag_flow frag[N_FRAG];
	unsigned tcp_next;
	/* counts */
	uint64_t pkts, strict, loose, wrong, impossible, inv, flows_bursts;
	uint64_t tcp_opens, tcp_data[2], echoes, dgrams, dgrams_lost;
	uint64_t frags_made, frags_refused, frags_out, frags_drained;
	uint8_t first_wrong[3];	/* expected, got, kind */
} __rte_cache_aligned;

static struct worker workers[MAX_W];

static uint32_t
rnd(struct worker *w, uint32_t n)
{
	return (uint32_t)(unit_xorshift64s(&w->rng) >> 33) % n;
}

/* As test_ct_fuzz: a state OVS's tracker can give, without NAT. */
static bool
state_possible(uint8_t st)
{
	if (!(st & CS_TRACKED) || (st & (CS_SRC_NAT | CS_DST_NAT)))
		return false;
	if (st & CS_INVALID)
		return st == TRK_INV;
	if ((st & CS_NEW) && (st & CS_ESTABLISHED))
		return false;
	if (!(st & (CS_NEW | CS_ESTABLISHED | CS_RELATED)))
		return false;
	if ((st & CS_REPLY_DIR) && !(st & (CS_ESTABLISHED | CS_RELATED)))
		return false;
	return true;
}

static void
flow_open(struct flow *f, uint16_t zone)
{
	f->open_epoch = __atomic_load_n(&flush_epoch, __ATOMIC_ACQUIRE);
	__atomic_store_n(&f->tainted, f->open_epoch & 1, __ATOMIC_RELAXED);
	__atomic_store_n(&f->last_tsc, now_tsc, __ATOMIC_RELAXED);
	f->zone = zone;
	f->k++;
}

static void
flow_touch(struct flow *f, uint64_t t)
{
	uint64_t old = __atomic_load_n(&f->last_tsc, __ATOMIC_RELAXED);
	while (old < t &&
	       !__atomic_compare_exchange_n(&f->last_tsc, &old, t, true,
					    __ATOMIC_RELAXED,
					    __ATOMIC_RELAXED))
		;
}

/* ------------------------------------------------------------ TCP */

static uint32_t
tcp_a_ip(const struct worker *w, unsigned s, uint32_t k)
{
	/* a new tuple each time the connection moves: 10.w.s.x:port */
	return IP(10, 1 + w->idx, s, 1 + k % 250);
}

static void
tcp_setup(struct worker *w, unsigned s, bool new_tuple)
{
	struct tcp_conn *c = &w->tcp[s];

	rte_spinlock_lock(&c->lk);
	__atomic_store_n(&c->gen, c->gen + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	if (new_tuple || !c->sport) {
		uint32_t k = c->f.k;
		c->a_ip = tcp_a_ip(w, s, k);
		c->sport = (uint16_t)(1024 + (k / 250) % 60000);
	}
	flow_open(&c->f, (uint16_t)(1 + s % N_ZONES));
	c->ws_a = rnd(w, 4) ? -1 : (int8_t)rnd(w, 8);
	c->ws_b = c->ws_a < 0 || rnd(w, 4) ? -1 : (int8_t)rnd(w, 8);
	c->close_kind = (uint8_t)rnd(w, 4);
	c->a_nxt = rnd(w, ~0u);
	c->b_nxt = rnd(w, ~0u);
	__atomic_store_n(&c->phase, HS0, __ATOMIC_RELEASE);
	rte_spinlock_unlock(&c->lk);
	w->tcp_opens++;
}

static struct rte_mbuf *
seg(const struct tcp_conn *c, bool from_a, uint8_t flags, uint32_t seq,
    uint32_t ack, int ws, uint16_t len)
{
	return from_a ? pkt_tcp(c->a_ip, B_IP, c->sport, 80, flags, seq, ack,
				65535, ws, len)
		      : pkt_tcp(B_IP, c->a_ip, 80, c->sport, flags, seq, ack,
				65535, ws, len);
}

/* The driver's next packet of connection c (NULL: none this burst). */
static struct rte_mbuf *
tcp_driver_pkt(struct worker *w, struct tcp_conn *c, struct pinfo *p)
{
	uint32_t b_nxt, b_ack, b_left;

	p->tc = c;
	p->f = &c->f;
	switch (c->phase) {
	case HS0:
		p->expect = TRK_NEW;
		p->tcp_next = HS1;
		return seg(c, true, F_SYN, c->a_nxt, 0, c->ws_a, 0);
	case HS1:
		p->expect = TRK_RPL;
		p->tcp_next = HS2;
		return seg(c, false, F_SYN | F_ACK, c->b_nxt, c->a_nxt + 1,
			   c->ws_b, 0);
	case HS2:
		p->expect = TRK_EST;
		p->tcp_next = DATA;
		return seg(c, true, F_ACK, c->a_nxt + 1, c->b_nxt + 1, -1, 0);
	case DATA:
		b_left = __atomic_load_n(&c->b_left, __ATOMIC_ACQUIRE);
		b_nxt = __atomic_load_n(&c->b_nxt, __ATOMIC_ACQUIRE);
		b_ack = __atomic_load_n(&c->b_ack, __ATOMIC_ACQUIRE);
		p->expect = TRK_EST;
		p->tcp_next = DATA;
		p->ack = b_nxt;
		if (rnd(w, 32) == 0) {
			/* a segment a gigabyte ahead, either way: +inv, and
			 * the session goes on as if it had never been (the
			 * window kept exact, whatever lane judged it) */
			bool from_a = rnd(w, 2);
			p->expect = TRK_INV;
			p->bogus = true;
			return from_a ? seg(c, true, F_ACK | F_PSH,
					   c->a_nxt + (1u << 30), c->a_ack,
					   -1, 10)
				      : seg(c, false, F_ACK | F_PSH,
					    b_nxt + (1u << 30), b_ack, -1,
					    10);
		}
		if (c->a_left) {
			uint16_t len = (uint16_t)(1 + rnd(w, 600));
			/* within what B acked + 32 KB: in every window */
			if (c->a_nxt + len - b_ack > 32768)
				return NULL;
			p->len = len;
			return seg(c, true, F_ACK | F_PSH, c->a_nxt, b_nxt, -1,
				   len);
		}
		if (b_nxt != c->a_ack)
			return seg(c, true, F_ACK, c->a_nxt, b_nxt, -1, 0);
		if (b_left || b_ack != c->a_nxt)
			return NULL;	/* B still sending or acking */
		/* both sides' numbers final: B sends no more */
		__atomic_store_n(&c->phase, CL0, __ATOMIC_RELEASE);
		/* fall through: the first packet of the close */
	default:
		break;
	}
	uint32_t a = c->a_nxt, b = __atomic_load_n(&c->b_nxt,
						   __ATOMIC_ACQUIRE);
	bool a_first = c->close_kind == 0;
	switch (c->close_kind * 3 + (c->phase - CL0)) {
	case 0: case 4:		/* A's FIN (first, or second) */
		p->expect = TRK_EST;
		p->tcp_next = c->phase + 1;
		return seg(c, true, F_FIN | F_ACK, a, b + !a_first, -1, 0);
	case 1: case 3:		/* B's FIN */
		p->expect = TRK_RPL;
		p->tcp_next = c->phase + 1;
		return seg(c, false, F_FIN | F_ACK, b, a + a_first, -1, 0);
	case 2:			/* A's last ACK */
		p->expect = TRK_EST;
		p->tcp_next = REOPEN;
		return seg(c, true, F_ACK, a + 1, b + 1, -1, 0);
	case 5:
		p->expect = TRK_RPL;
		p->tcp_next = REOPEN;
		return seg(c, false, F_ACK, b + 1, a + 1, -1, 0);
	case 6:			/* RSTs */
		p->expect = TRK_EST;
		p->tcp_next = REOPEN;
		return seg(c, true, F_RST | F_ACK, a, b, -1, 0);
	case 9:
		p->expect = TRK_RPL;
		p->tcp_next = REOPEN;
		return seg(c, false, F_RST | F_ACK, b, a, -1, 0);
	}
	return NULL;
}

static struct rte_mbuf *tcp_helper_seg(struct worker *w, struct tcp_conn *c,
				       struct pinfo *p);

/* The helper's B->A segment of connection c in DATA (NULL: none). */
static struct rte_mbuf *
tcp_helper_pkt(struct worker *w, struct tcp_conn *c, struct pinfo *p)
{
	uint32_t gen = __atomic_load_n(&c->gen, __ATOMIC_ACQUIRE);

	if (__atomic_load_n(&c->phase, __ATOMIC_ACQUIRE) != DATA)
		return NULL;
	struct rte_mbuf *m = tcp_helper_seg(w, c, p);
	p->gen = gen;
	/* a seqlock's read side: had the driver closed and re-opened the
	 * connection while we read (this lcore preempted), the numbers
	 * would be two connections' */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (m && __atomic_load_n(&c->gen, __ATOMIC_RELAXED) != gen) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	return m;
}

static struct rte_mbuf *
tcp_helper_seg(struct worker *w, struct tcp_conn *c, struct pinfo *p)
{
	uint32_t a_nxt = __atomic_load_n(&c->a_nxt, __ATOMIC_ACQUIRE);
	uint32_t a_ack = __atomic_load_n(&c->a_ack, __ATOMIC_ACQUIRE);

	p->tc = c;
	p->f = &c->f;
	p->helper = true;
	p->expect = TRK_RPL;
	p->ack = a_nxt;
	if (c->b_left) {
		uint16_t len = (uint16_t)(1 + rnd(w, 600));
		if (c->b_nxt + len - a_ack > 32768)
			return NULL;
		p->len = len;
		return seg(c, false, F_ACK | F_PSH, c->b_nxt, a_nxt, -1, len);
	}
	if (a_nxt != c->b_ack)
		return seg(c, false, F_ACK, c->b_nxt, a_nxt, -1, 0);
	return NULL;
}

/* After the burst: the connection moves on (and publishes). */
static void
tcp_after(struct worker *w, struct pinfo *p)
{
	struct tcp_conn *c = p->tc;

	if (p->bogus)
		return;
	if (p->helper) {
		rte_spinlock_lock(&c->lk);
		if (c->gen == p->gen) {	/* else: re-opened meanwhile */
			__atomic_store_n(&c->b_ack, p->ack, __ATOMIC_RELEASE);
			__atomic_store_n(&c->b_nxt, c->b_nxt + p->len,
					 __ATOMIC_RELEASE);
			if (p->len) {
				w->tcp_data[1]++;
				__atomic_store_n(&c->b_left, c->b_left - 1,
						 __ATOMIC_RELEASE);
			}
		}
		rte_spinlock_unlock(&c->lk);
		return;
	}
	switch (c->phase) {
	case HS2:	/* DATA: both sides' numbers, then the phase */
		c->a_nxt++;
		c->b_nxt++;
		c->a_ack = c->b_nxt;
		c->b_ack = c->a_nxt;
		c->a_left = 1 + rnd(w, 30);
		c->b_left = rnd(w, 30);
		__atomic_store_n(&c->phase, DATA, __ATOMIC_RELEASE);
		return;
	case DATA:
		__atomic_store_n(&c->a_ack, p->ack, __ATOMIC_RELEASE);
		__atomic_store_n(&c->a_nxt, c->a_nxt + p->len,
				 __ATOMIC_RELEASE);
		if (p->len) {
			c->a_left--;
			w->tcp_data[0]++;
		}
		return;
	}
	if (p->tcp_next != REOPEN) {
		c->phase = p->tcp_next;
		return;
	}
	/* closed: again on the same tuple (the closed session replaced by
	 * the next SYN), or on a new one; always a new one after a flush
	 * or a gap, whose sessions may be anything now */
	unsigned s = (unsigned)(c - w->tcp);
	tcp_setup(w, s, __atomic_load_n(&c->f.tainted, __ATOMIC_RELAXED) ||
		  rnd(w, 4) == 0);
}

/* ------------------------------------------------------ ICMP, frags */

static struct rte_mbuf *
icmp_pkt(struct icmp_flow *ic, struct pinfo *p)
{
	p->ic = ic;
	p->f = &ic->f;
	if (ic->reply_next) {
		p->expect = TRK_RPL;
		return pkt_icmp(B_IP, ic->a_ip, 0, ic->id);
	}
	p->expect = ic->reply_seen ? TRK_EST : TRK_NEW;
	return pkt_icmp(ic->a_ip, B_IP, 8, ic->id);
}

static void
icmp_after(struct worker *w, struct icmp_flow *ic)
{
	ic->reply_seen |= ic->reply_next;
	ic->reply_next = !ic->reply_next;
	w->echoes++;
	if (!ic->reply_next && (ic->f.tainted || rnd(w, 64) == 0)) {
		flow_open(&ic->f, ic->f.zone);
		ic->id = (uint16_t)(ic->id + 1);
		ic->reply_seen = false;
	}
}

/* The next datagram of ff, its fragments given to the store in a random
 * order; the reassembled packet when it came out whole (else NULL: the
 * store refused a fragment, or expired or purged the first ones). */
static struct rte_mbuf *
frag_pkt(struct worker *w, struct frag_flow *ff, struct pinfo *p)
{
	struct frag_dgram d;
	struct rte_mbuf *f[FRAG_MAX];
	struct ct_ipf_dgram *dg = NULL;
	static const uint8_t orders[][3] = { { 0, 1, 2 }, { 2, 1, 0 },
					     { 1, 0, 2 }, { 2, 0, 1 } };
	const uint8_t *o = orders[rnd(w, RTE_DIM(orders))];
	/* one datagram in 32 loses a fragment on the way: the store holds
	 * the others until they expire or a flush purges them */
	int lose = rnd(w, 32) ? -1 : (int)rnd(w, 3);

	if (ff->reply_next)
		frag_dgram_udp(&d, B_IP, ff->a_ip, 53, ff->sport, ff->ip_id++,
			       FRAG_LEN);
	else
		frag_dgram_udp(&d, ff->a_ip, B_IP, ff->sport, 53, ff->ip_id++,
			       FRAG_LEN);
	uint16_t n = frag_cut(&d, mbufs, 1480, f);
	frag_dgram_free(&d);
	w->frags_made += n;
	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = f[o[i]];
		const struct ct_ipf_frag_in in = { .l3_ofs = 14,
						   .zone = ff->f.zone,
						   .in_port = 1 };
		struct ct_ipf_dgram *done = NULL;
		if (!m || i == lose) {
			w->frags_made--;
			rte_pktmbuf_free(m);
			continue;
		}
		if (ct_ipf_add(ipf, m, &in, now_tsc, &done) ==
		    CT_IPF_REFUSED) {
			w->frags_refused++;
			rte_pktmbuf_free(m);
		}
		if (done && !dg)
			dg = done;
		else if (done) {	/* cannot be: one datagram here */
			struct rte_mbuf *out[FRAG_MAX];
			uint16_t k;
			while ((k = ct_ipf_dgram_take(ipf, done, out,
						      FRAG_MAX))) {
				w->frags_out += k;
				rte_pktmbuf_free_bulk(out, k);
			}
			ct_ipf_dgram_free(ipf, done);
		}
	}
	p->ff = ff;
	p->f = &ff->f;
	p->dg = dg;
	p->expect = ff->reply_next ? TRK_RPL :
		    ff->reply_seen ? TRK_EST : TRK_NEW;
	struct rte_mbuf *r = dg && ct_ipf_dgram_complete(dg)
			     ? ct_ipf_dgram_reassemble(dg) : NULL;
	return r;
}

/* After the burst (or with no reassembled packet): the fragments out. */
static void
frag_after(struct worker *w, struct frag_flow *ff, struct ct_ipf_dgram *dg,
	   bool whole)
{
	struct rte_mbuf *out[FRAG_MAX];
	uint16_t k;

	if (dg) {
		while ((k = ct_ipf_dgram_take(ipf, dg, out, FRAG_MAX))) {
			w->frags_out += k;
			rte_pktmbuf_free_bulk(out, k);
		}
		ct_ipf_dgram_free(ipf, dg);
	}
	w->dgrams++;
	if (!whole) {	/* its session never saw it: the flow is unsure */
		w->dgrams_lost++;
		__atomic_store_n(&ff->f.tainted, 1, __ATOMIC_RELAXED);
	}
	ff->reply_seen |= ff->reply_next && whole;
	ff->reply_next = !ff->reply_next;
	if (!ff->reply_next && (ff->f.tainted || rnd(w, 32) == 0)) {
		flow_open(&ff->f, ff->f.zone);
		ff->sport = (uint16_t)(ff->sport + 1);
		ff->reply_seen = false;
	}
}

#endif
