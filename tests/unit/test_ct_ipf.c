/* SPDX-License-Identifier: BSD-3-Clause
 * The fragment store (app/conntrack/ct_ipf.h), as OVS 3.1's ipf and a
 * little stricter: fragments in order, out of order and reversed give one
 * datagram whose reassembled packet is the original (the tracker tracks
 * it like any packet); an exact duplicate is refused alone, a partial
 * overlap or a contradicting end makes the datagram invalid; too small,
 * malformed, max-nfrags, the zone's share; the 15 s timeout and the
 * purges through the drain list; NAT decided on the reassembled packet
 * carried into every fragment (addresses in all, ports and the L4
 * checksum in the first), both directions; every fragment accounted for;
 * two threads feeding the fragments of the same datagrams at once (two
 * PMDs): each datagram finished exactly once, nothing lost.
 */
#include <pthread.h>
#include <stdio.h>
#include "ct_test.h"
#define IPF_TEST_V6 false	/* counter() and add(): IPv4's */
#include "ipf_test.h"

#define A IP(10, 0, 0, 1)
#define B IP(10, 0, 0, 2)
#define PUB IP(172, 16, 0, 9)

/* order[]: the fragments' indices in arrival order */
static void
check_order(const char *what, const uint16_t order[], uint16_t n_order)
{
	struct frag_dgram d;
	struct rte_mbuf *f[FRAG_MAX];
	uint64_t acc = counter(CT_IPF_ACCEPTED);
	uint64_t done = counter(CT_IPF_COMPLETED);

	frag_dgram_udp(&d, A, B, 5000, 53, 100, 4000);
	uint16_t n = frag_cut(&d, mbufs, 1480, f);
	CHECK(n == n_order, "%s: %u fragments", what, n);
	struct ct_ipf_dgram *dg = ipf_offer_all(f, order, n, false, 0, what);
	if (!dg)
		return;
	CHECK(ct_ipf_dgram_complete(dg), "%s: not complete", what);
	CHECK_EXPR(ct_ipf_dgram_n_frags(dg) == n);
	struct rte_mbuf *r = ct_ipf_dgram_reassemble(dg);
	CHECK(r != NULL, "%s: no reassembled packet", what);
	if (r) {
		/* the original datagram, byte for byte, one packet */
		uint8_t *buf = malloc(20 + d.l4_len);
		const void *p = rte_pktmbuf_read(r, 14, 20 + d.l4_len, buf);
		struct rte_ipv4_hdr *ip = pkt_iph(r);
		CHECK(rte_pktmbuf_pkt_len(r) == 14 + 20 + d.l4_len,
		      "%s: length %u", what, rte_pktmbuf_pkt_len(r));
		CHECK_EXPR(ip->fragment_offset == 0 &&
			   rte_ipv4_cksum(ip) == 0);
		/* d.ip has no header checksum: compare around it */
		CHECK(p && !memcmp(p, d.ip, 10) &&
		      !memcmp((const uint8_t *)p + 12, d.ip + 12,
			      8 + d.l4_len),
		      "%s: reassembled bytes differ", what);
		free(buf);
		/* the tracker takes it as one UDP packet */
		struct conntrack *ct = ct_test_new("ipf_ct_order", 64, NULL);
		CHECK_EXPR(ct_run(ct, r, 0, true, NULL, 0) == TRK_NEW);
		CHECK_EXPR(conntrack_get_nconns(ct) == 1);
		conntrack_destroy(ct);
	}
	ipf_check_out(dg, f, n, false, acc, done, what);
	frag_dgram_free(&d);
}

static void
test_orders(void)
{
	static const uint16_t in_order[] = { 0, 1, 2 }, reverse[] = { 2, 1, 0 },
		last_first[] = { 2, 0, 1 }, middle[] = { 1, 2, 0 };

	check_order("in order", in_order, 3);
	check_order("reversed", reverse, 3);
	check_order("last first", last_first, 3);
	check_order("middle first", middle, 3);
}

/* An exact copy is refused alone (+inv), as OVS; the datagram still
 * completes. A partial overlap makes the datagram invalid: its held
 * fragments come back, and the overlapping one is refused. */
static void
test_overlap(void)
{
	struct frag_dgram d;
	struct rte_mbuf *f[FRAG_MAX], *g[FRAG_MAX], *out[FRAG_MAX];
	struct ct_ipf_dgram *dg;

	frag_dgram_udp(&d, A, B, 5001, 53, 101, 4000);
	/* a copy of [0,1480); [0,1480) and the last held, then [8, 1488) */
	uint16_t n = frag_cut(&d, mbufs, 1480, f);
	CHECK_EXPR(frag_cut(&d, mbufs, 1480, g) == n);
	ipf_check_dup_overlap(false, f, n,
			      frag_piece(&d, mbufs, 0, 1480, true), g,
			      frag_piece(&d, mbufs, 8, 1480, true));
	/* a fragment that contains a held one (OVS's check misses it):
	 * [480, 960) held, then [0, 1440) */
	CHECK_EXPR(ct_ipf_set_min_frag(ipf, false, 400) == 0);
	struct rte_mbuf *inner = frag_piece(&d, mbufs, 480, 480, true);
	CHECK_EXPR(add(inner, 0, 0, &dg) == CT_IPF_TAKEN && !dg);
	struct rte_mbuf *bad = frag_piece(&d, mbufs, 0, 1440, true);
	CHECK_EXPR(add(bad, 0, 0, &dg) == CT_IPF_REFUSED && dg);
	rte_pktmbuf_free(bad);
	if (dg)
		free_all(out, take_all(dg, out));
	CHECK_EXPR(ct_ipf_set_min_frag(ipf, false,
				       CT_IPF_V4_MIN_FRAG_DEFAULT) == 0);
	/* a second last fragment elsewhere contradicts the first */
	n = frag_cut(&d, mbufs, 1480, f);
	CHECK_EXPR(add(f[n - 1], 0, 0, &dg) == CT_IPF_TAKEN && !dg);
	bad = frag_piece(&d, mbufs, 1480, 800, false);
	CHECK_EXPR(add(bad, 0, 0, &dg) == CT_IPF_REFUSED && dg &&
		   !ct_ipf_dgram_complete(dg));
	rte_pktmbuf_free(bad);
	if (dg)
		free_all(out, take_all(dg, out));
	rte_pktmbuf_free(f[0]);
	rte_pktmbuf_free(f[1]);
	CHECK_EXPR(nfrag() == 0);
	frag_dgram_free(&d);
}

/* Too small (non-last under min-frag), malformed headers and offsets. */
static void
test_refusals(void)
{
	struct frag_dgram d;
	struct ct_ipf_dgram *dg;
	uint64_t small = counter(CT_IPF_TOO_SMALL);
	uint64_t bad = counter(CT_IPF_MALFORMED);

	frag_dgram_udp(&d, A, B, 5002, 53, 102, 2000);
	struct rte_mbuf *m = frag_piece(&d, mbufs, 0, 1000, true);
	CHECK_EXPR(add(m, 0, 0, &dg) == CT_IPF_REFUSED && !dg);
	CHECK_EXPR(counter(CT_IPF_TOO_SMALL) - small == 1);
	/* the last may be small */
	struct rte_mbuf *last = frag_piece(&d, mbufs, 1000, 1008, false);
	CHECK_EXPR(add(last, 0, 0, &dg) == CT_IPF_TAKEN);
	/* min-frag 400 (OVS's lower bound) lets 1000 in; 399 is refused */
	CHECK_EXPR(ct_ipf_set_min_frag(ipf, false, 399) == -ERANGE);
	CHECK_EXPR(ct_ipf_set_min_frag(ipf, false, 400) == 0);
	CHECK_EXPR(add(m, 0, 0, &dg) == CT_IPF_TAKEN && dg &&
		   ct_ipf_dgram_complete(dg));
	struct rte_mbuf *out[4];
	if (dg)
		free_all(out, take_all(dg, out));
	CHECK_EXPR(ct_ipf_set_min_frag(ipf, false,
				       CT_IPF_V4_MIN_FRAG_DEFAULT) == 0);
	/* a bad header checksum */
	m = frag_piece(&d, mbufs, 0, 1480, true);
	pkt_iph(m)->hdr_checksum ^= 1;
	CHECK_EXPR(add(m, 0, 0, &dg) == CT_IPF_REFUSED);
	rte_pktmbuf_free(m);
	/* a non-last piece the next cannot follow (not 8-byte aligned) */
	m = frag_piece(&d, mbufs, 0, 1484, true);
	CHECK_EXPR(add(m, 0, 0, &dg) == CT_IPF_REFUSED);
	rte_pktmbuf_free(m);
	/* a total length past the frame */
	m = frag_piece(&d, mbufs, 0, 1480, true);
	rte_pktmbuf_trim(m, 100);
	CHECK_EXPR(add(m, 0, 0, &dg) == CT_IPF_REFUSED);
	rte_pktmbuf_free(m);
	/* past the largest datagram: offset 65528 */
	m = frag_piece(&d, mbufs, 0, 1480, false);
	pkt_iph(m)->fragment_offset = rte_cpu_to_be_16(65528 / 8);
	pkt_iph(m)->hdr_checksum = 0;
	pkt_iph(m)->hdr_checksum = rte_ipv4_cksum(pkt_iph(m));
	CHECK_EXPR(add(m, 0, 0, &dg) == CT_IPF_REFUSED);
	rte_pktmbuf_free(m);
	CHECK_EXPR(counter(CT_IPF_MALFORMED) - bad == 4);
	CHECK_EXPR(ct_ipf_set_max_nfrags(ipf, 5001) == -ERANGE);
	CHECK_EXPR(nfrag() == 0);
	frag_dgram_free(&d);
}

/* max-nfrags in all, a zone's share, and both given back as fragments
 * leave. */
static void
test_limits(void)
{
	struct frag_dgram d;
	struct ct_ipf_dgram *dg;
	struct rte_mbuf *held[200];
	struct ct_ipf_status s;
	uint64_t full = counter(CT_IPF_FULL), zfull = counter(CT_IPF_ZONE_FULL);
	uint16_t n = 0;

	frag_dgram_udp(&d, A, B, 5003, 53, 0, 2000);
	/* 1000 in all, 125 a zone (an eighth): first fragments of 125
	 * datagrams of zone 1 (ids 0..124) */
	ct_ipf_get_status(ipf, &s);
	CHECK_EXPR(s.max_nfrags == 1000 && s.zone_max == 125 &&
		   s.dgram_max == 58);
	for (uint16_t id = 0; id < 126; id++) {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)d.ip;
		ip->packet_id = rte_cpu_to_be_16(id);
		struct rte_mbuf *m = frag_piece(&d, mbufs, 0, 1480, true);
		if (add(m, 1, 0, &dg) == CT_IPF_TAKEN)
			held[n++] = m;
		else
			rte_pktmbuf_free(m);
	}
	CHECK(n == 125, "zone 1 holds %u", n);
	CHECK_EXPR(counter(CT_IPF_ZONE_FULL) - zfull == 1);
	/* another zone still gets in; max-nfrags 126 fills the store */
	CHECK_EXPR(ct_ipf_set_max_nfrags(ipf, 126) == 0);
	struct rte_mbuf *m = frag_piece(&d, mbufs, 0, 1480, true);
	CHECK_EXPR(add(m, 2, 0, &dg) == CT_IPF_TAKEN);
	m = frag_piece(&d, mbufs, 1480, 528, false);
	CHECK_EXPR(add(m, 3, 0, &dg) == CT_IPF_REFUSED);
	rte_pktmbuf_free(m);
	CHECK_EXPR(counter(CT_IPF_FULL) - full == 1);
	CHECK_EXPR(nfrag() == 126);
	/* a purge of zone 1 frees its share: the PMDs drain it */
	CHECK_EXPR(ct_ipf_purge_zone(ipf, 1) == 125);
	CHECK_EXPR(ct_ipf_n_draining(ipf) == 125);
	CHECK_EXPR(ipf_drain_all(1) == 125 && nfrag() == 1);
	CHECK_EXPR(ct_ipf_purge_port(ipf, 1) == 1);
	CHECK_EXPR(ipf_drain_all(1) == 1);
	CHECK_EXPR(nfrag() == 0 && ct_ipf_n_draining(ipf) == 0);
	CHECK_EXPR(ct_ipf_set_max_nfrags(ipf, CT_IPF_MAX_NFRAGS_DEFAULT) == 0);
	(void)held;
	frag_dgram_free(&d);
}

/* 15 s after its first fragment a datagram expires (a later fragment
 * does not push it back, as OVS); disabled, nothing is taken. */
static void
test_timeout(void)
{
	struct frag_dgram d;
	struct ct_ipf_dgram *dg;
	struct rte_mbuf *f[FRAG_MAX];

	frag_dgram_udp(&d, A, B, 5004, 53, 104, 4000);
	uint16_t n = frag_cut(&d, mbufs, 1480, f);
	ipf_check_expiry(false, f);
	/* its last fragment now starts a new datagram, which waits */
	CHECK_EXPR(add(f[2], 0, SEC(16), &dg) == CT_IPF_TAKEN && !dg);
	CHECK_EXPR(nfrag() == 1);
	CHECK_EXPR(ct_ipf_sweep(ipf, SEC(32), 100) == 1);
	CHECK_EXPR(ipf_drain_all(0) == 1);
	CHECK_EXPR(nfrag() == 0);
	/* disabled: the datapath no longer offers (it asks first) */
	CHECK_EXPR(ct_ipf_set_enabled(ipf, false, false) == 0 &&
		   !ct_ipf_v4_enabled(ipf));
	CHECK_EXPR(ct_ipf_set_enabled(ipf, false, true) == 0 &&
		   ct_ipf_v4_enabled(ipf));
	(void)n;
	frag_dgram_free(&d);
}

/* A finished datagram's fragments through the tracker: SNAT decided on
 * the reassembled packet, then written into every fragment; the reply's
 * fragments un-NATed the same way. */
static void
nat_through(struct conntrack *ct, struct frag_dgram *d, uint16_t zone,
	    const struct ct_nat_spec *nat, uint8_t want_state,
	    struct rte_mbuf *out[], uint16_t *n_out)
{
	struct rte_mbuf *f[FRAG_MAX];
	struct ct_ipf_dgram *dg = NULL;
	uint16_t n = frag_cut(d, mbufs, 1480, f);

	for (uint16_t i = n; i-- > 0;)	/* backwards, for the sport */
		add(f[i], zone, 0, &dg);
	*n_out = 0;
	CHECK(dg && ct_ipf_dgram_complete(dg), "not complete");
	if (!dg)
		return;
	struct rte_mbuf *r = ct_ipf_dgram_reassemble(dg);
	struct ct_pkt_meta mt;
	uint8_t st = 0;
	if (r && ct_pkt_meta_parse(r, &mt) == 0)
		st = conntrack_execute_one(ct, r, &mt, zone, true, nat, 0,
					   NULL);
	CHECK(st == want_state, "state %#x, want %#x", st, want_state);
	if (st & (CS_SRC_NAT | CS_DST_NAT))
		ct_ipf_dgram_nat(dg, r);
	rte_pktmbuf_free(r);
	*n_out = take_all(dg, out);
}

static void
test_nat(void)
{
	struct conntrack *ct = ct_test_new("ipf_nat", 64, NULL);
	struct ct_nat_spec snat = { .snat = true, .ip_min = PUB,
				    .port_min = 7000, .port_max = 7000 };
	struct frag_dgram d;
	struct rte_mbuf *out[FRAG_MAX];
	uint16_t n;
	uint8_t *l4 = malloc(65536);
	struct rte_ipv4_hdr h;

	frag_dgram_udp(&d, A, B, 5005, 53, 105, 6000);
	nat_through(ct, &d, 4, &snat, CS_TRACKED | CS_NEW | CS_SRC_NAT, out,
		    &n);
	CHECK_EXPR(n == 5);
	for (uint16_t i = 0; i < n; i++) {
		struct rte_ipv4_hdr *ip = pkt_iph(out[i]);
		CHECK(ip->src_addr == rte_cpu_to_be_32(PUB) &&
		      rte_ipv4_cksum(ip) == 0, "fragment %u: src %#x", i,
		      rte_be_to_cpu_32(ip->src_addr));
	}
	CHECK_EXPR(frag_glue(out, n, l4, d.l4_len, &h));
	const struct rte_udp_hdr *u = (const struct rte_udp_hdr *)l4;
	CHECK(u->src_port == RTE_BE16(7000), "sport %u",
	      rte_be_to_cpu_16(u->src_port));
	CHECK(frag_l4_csum_ok(l4, d.l4_len, &h), "UDP checksum wrong");
	CHECK_EXPR(!memcmp(l4 + 8, d.ip + 28, d.l4_len - 8));
	free_all(out, n);
	frag_dgram_free(&d);

	/* the answer, fragmented too: to PUB:7000, back to A:5005 */
	frag_dgram_udp(&d, B, PUB, 53, 7000, 200, 5000);
	nat_through(ct, &d, 4, &snat,
		    CS_TRACKED | CS_ESTABLISHED | CS_REPLY_DIR | CS_DST_NAT,
		    out, &n);
	CHECK_EXPR(n == 4);
	for (uint16_t i = 0; i < n; i++)
		CHECK_EXPR(pkt_iph(out[i])->dst_addr == rte_cpu_to_be_32(A) &&
			   rte_ipv4_cksum(pkt_iph(out[i])) == 0);
	CHECK_EXPR(frag_glue(out, n, l4, d.l4_len, &h));
	u = (const struct rte_udp_hdr *)l4;
	CHECK_EXPR(u->dst_port == RTE_BE16(5005));
	CHECK(frag_l4_csum_ok(l4, d.l4_len, &h), "reply's UDP checksum");
	free_all(out, n);
	frag_dgram_free(&d);

	/* ICMP echo: the tracker keys it by the first fragment's id */
	frag_dgram_icmp(&d, A, B, 8, 77, 300, 3000);
	nat_through(ct, &d, 5, NULL, TRK_NEW, out, &n);
	CHECK_EXPR(n == 3);
	free_all(out, n);
	frag_dgram_free(&d);
	frag_dgram_icmp(&d, B, A, 0, 77, 301, 3000);
	nat_through(ct, &d, 5, NULL, TRK_RPL, out, &n);
	free_all(out, n);
	frag_dgram_free(&d);
	free(l4);
	conntrack_destroy(ct);
	CHECK_EXPR(nfrag() == 0);
}

/* A 64 KB UDP datagram: 45 fragments, one datagram, within its cap. */
static void
test_64k(void)
{
	struct frag_dgram d;
	struct rte_mbuf *f[FRAG_MAX], *out[FRAG_MAX];
	struct ct_ipf_dgram *dg = NULL;

	frag_dgram_udp(&d, A, B, 5006, 9, 106, 65507);
	uint16_t n = frag_cut(&d, mbufs, 1480, f);
	CHECK(n == 45, "%u fragments", n);
	for (uint16_t i = 0; i < n; i++)
		add(f[i], 9, 0, &dg);
	CHECK(dg && ct_ipf_dgram_complete(dg), "64 KB not complete");
	if (!dg)
		return;
	struct rte_mbuf *r = ct_ipf_dgram_reassemble(dg);
	CHECK_EXPR(r && rte_pktmbuf_pkt_len(r) == 14 + 65535 &&
		   r->nb_segs == 45);
	struct conntrack *ct = ct_test_new("ipf_64k", 64, NULL);
	CHECK_EXPR(r && ct_run(ct, r, 9, true, NULL, 0) == TRK_NEW);
	conntrack_destroy(ct);
	CHECK_EXPR(take_all(dg, out) == 45);
	free_all(out, 45);
	frag_dgram_free(&d);
	CHECK_EXPR(nfrag() == 0);
}

/* Two threads (as two PMDs) give the store the fragments of the same
 * datagrams at once, each a part of every one; whoever finishes one
 * takes it out. Every datagram is finished exactly once, and every
 * fragment comes out. */
#define MT_DGRAMS 300
#define MT_FRAGS 3

struct mt_arg {
	struct rte_mbuf *(*f)[MT_FRAGS];
	int part;		/* 0: fragments 0 and 2; 1: fragment 1 */
	unsigned finished, out;
};

static void *
mt_feed(void *p)
{
	struct mt_arg *a = p;
	struct rte_mbuf *out[MT_FRAGS];

	for (int d = 0; d < MT_DGRAMS; d++) {
		for (int i = 0; i < MT_FRAGS; i++) {
			struct ct_ipf_dgram *dg = NULL;
			if ((i == 1) != (a->part == 1))
				continue;
			add(a->f[d][i], 3, 0, &dg);
			if (!dg)
				continue;
			a->finished += ct_ipf_dgram_complete(dg);
			uint16_t n = take_all(dg, out);
			a->out += n;
			rte_pktmbuf_free_bulk(out, n);
		}
	}
	return NULL;
}

static void
test_threads(void)
{
	static struct rte_mbuf *f[MT_DGRAMS][MT_FRAGS];
	struct frag_dgram d;
	struct mt_arg a[2] = { { .f = f, .part = 0 }, { .f = f, .part = 1 } };
	pthread_t t[2];
	uint64_t done = counter(CT_IPF_COMPLETED);

	CHECK_EXPR(ct_ipf_set_max_nfrags(ipf, CT_IPF_MAX_NFRAGS_UBOUND) == 0);
	for (int i = 0; i < MT_DGRAMS; i++) {
		frag_dgram_udp(&d, A, B, 6000, 53, (uint16_t)(1000 + i), 4000);
		CHECK_EXPR(frag_cut(&d, mbufs, 1480, f[i]) == MT_FRAGS);
		frag_dgram_free(&d);
	}
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, mt_feed, &a[i]);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	CHECK(a[0].finished + a[1].finished == MT_DGRAMS,
	      "finished %u + %u", a[0].finished, a[1].finished);
	CHECK_EXPR(a[0].out + a[1].out == MT_DGRAMS * MT_FRAGS);
	CHECK_EXPR(counter(CT_IPF_COMPLETED) - done == MT_DGRAMS * MT_FRAGS);
	CHECK_EXPR(nfrag() == 0);
	CHECK_EXPR(ct_ipf_set_max_nfrags(ipf, CT_IPF_MAX_NFRAGS_DEFAULT) == 0);
}

int
main(void)
{
	if (ipf_test_up("test_ct_ipf") < 0)
		return unit_test_report();
	test_orders();
	test_overlap();
	test_refusals();
	test_limits();
	test_timeout();
	test_nat();
	test_64k();
	test_threads();
	return ipf_test_down();
}
