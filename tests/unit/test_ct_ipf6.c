/* SPDX-License-Identifier: BSD-3-Clause
 * IPv6 in the fragment store (app/conntrack/ct_ipf_v6.c), as OVS 3.1's
 * ipf: fragments in order, out of order and reversed, with and without
 * a hop-by-hop header before the Fragment header, give one datagram
 * whose reassembled packet is the original unfragmented packet byte for
 * byte (the Fragment header gone, the payload length the whole's); the
 * tracker tracks it +new, and the reply's +est+rpl (UDP, ICMPv6 echo);
 * an exact duplicate is refused alone, a partial overlap makes the
 * datagram invalid; too small (v6 min-frag 1280, at least 400), a piece
 * before the last not a multiple of 8, an atomic fragment, reserved bits
 * only, past 65535 bytes, no Fragment header, a header chain cut short:
 * refused; the identification
 * is 32 bits; a zone's share; the 15 s timeout; a 64 KB datagram; the
 * v6 counters apart from the v4 ones; no NAT66; the dump line as OVS's
 * ipf_dump_create prints an IPv6 list; hostile pieces at random (header
 * bytes flipped, frames cut short, datagrams of one id mixed), whatever
 * completes reassembled and tracked: every mbuf back.
 */
#include <stdio.h>
#include "ct_test.h"
#include "ds.h"
#define IPF_TEST_V6 true	/* counter() and add(): IPv6's */
#include "ipf_test.h"

static const uint8_t A6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
static const uint8_t B6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 };
#define PIECE 1232	/* 1280 - 40 - 8: the smallest non-last piece */

/* Is r (the reassembled packet) d, unfragmented, byte for byte? */
static bool
is_whole(struct rte_mbuf *r, const struct frag6_dgram *d)
{
	uint32_t len = 40 + d->ext_len + d->l4_len;
	uint8_t *buf = malloc(len);
	const uint8_t *eth = rte_pktmbuf_mtod(r, const uint8_t *);
	const void *p = rte_pktmbuf_read(r, 14, len, buf);
	bool same = rte_pktmbuf_pkt_len(r) == 14 + len && p &&
		    !memcmp(p, d->ip, len) && eth[12] == 0x86 &&
		    eth[13] == 0xdd;

	free(buf);
	return same;
}

/* d through the store, fragments offered in order (NULL: in offset
 * order), then its reassembled packet through ct (zone): the state. */
static uint8_t
through(struct conntrack *ct, const struct frag6_dgram *d,
	const uint16_t order[], uint16_t zone, const char *what)
{
	struct rte_mbuf *f[FRAG_MAX];
	uint64_t acc = counter(CT_IPF_ACCEPTED);
	uint64_t done = counter(CT_IPF_COMPLETED);
	uint64_t v4 = ipf_counter(false, CT_IPF_ACCEPTED);
	uint8_t st = 0;

	uint16_t n = frag6_cut(d, mbufs, PIECE, f);
	struct ct_ipf_dgram *dg = ipf_offer_all(f, order, n, true, zone, what);
	if (!dg)
		return 0;
	CHECK(ct_ipf_dgram_complete(dg), "%s: not complete", what);
	CHECK_EXPR(ct_ipf_dgram_n_frags(dg) == n);
	struct rte_mbuf *r = ct_ipf_dgram_reassemble(dg);
	CHECK(r && is_whole(r, d), "%s: not the datagram", what);
	if (r)
		st = ct_run(ct, r, zone, true, NULL, 0);
	ipf_check_out(dg, f, n, true, acc, done, what);
	CHECK_EXPR(ipf_counter(false, CT_IPF_ACCEPTED) == v4);
	return st;
}

/* In order, reversed, last first, middle first; with a hop-by-hop
 * header before the Fragment header; the reply +est+rpl. */
static void
test_orders(void)
{
	static const uint16_t reverse[] = { 2, 1, 0 },
		last_first[] = { 2, 0, 1 }, middle[] = { 1, 2, 0 };
	static const uint16_t *const orders[] = { NULL, reverse, last_first,
						  middle };
	struct frag6_dgram d;

	for (int hop = 0; hop < 2; hop++) {
		for (size_t o = 0; o < RTE_DIM(orders); o++) {
			char what[32];
			snprintf(what, sizeof what, "hop %d order %zu", hop,
				 o);
			struct conntrack *ct = ct_test_new("ipf6_orders", 64,
							   NULL);
			frag6_dgram_udp(&d, A6, B6, 5000, 53, 100 + o, 3000,
					hop);
			CHECK(through(ct, &d, orders[o], 0, what) == TRK_NEW,
			      "%s: not +new", what);
			frag6_dgram_free(&d);
			frag6_dgram_udp(&d, B6, A6, 53, 5000, 200 + o, 2500,
					hop);
			CHECK(through(ct, &d, orders[o], 0, what) == TRK_RPL,
			      "%s: reply not +est+rpl", what);
			CHECK_EXPR(conntrack_get_nconns(ct) == 1);
			frag6_dgram_free(&d);
			conntrack_destroy(ct);
		}
	}
}

/* ICMPv6 echo, fragmented both ways: tracked by the first fragment's id;
 * a NAT spec changes nothing (no NAT66), nor does ct_ipf_dgram_nat. */
static void
test_icmp_no_nat(void)
{
	struct conntrack *ct = ct_test_new("ipf6_icmp", 64, NULL);
	struct frag6_dgram d;

	frag6_dgram_icmp(&d, A6, B6, 128, 77, 300, 3000);
	CHECK_EXPR(through(ct, &d, NULL, 5, "echo") == TRK_NEW);
	frag6_dgram_free(&d);
	frag6_dgram_icmp(&d, B6, A6, 129, 77, 301, 3000);
	CHECK_EXPR(through(ct, &d, NULL, 5, "echo reply") == TRK_RPL);
	frag6_dgram_free(&d);

	struct ct_nat_spec snat = { .snat = true, .ip_min = IP(172, 16, 0, 9) };
	struct rte_mbuf *f[FRAG_MAX], *out[FRAG_MAX];
	frag6_dgram_udp(&d, A6, B6, 5005, 53, 302, 3000, false);
	uint16_t n = frag6_cut(&d, mbufs, PIECE, f);
	struct ct_ipf_dgram *dg = ipf_offer_all(f, NULL, n, true, 6, "nat");
	struct rte_mbuf *r = dg ? ct_ipf_dgram_reassemble(dg) : NULL;
	struct ct_pkt_meta mt;
	uint8_t st = 0;
	if (r && ct_pkt_meta_parse(r, &mt) == 0)
		st = conntrack_execute_one(ct, r, &mt, 6, true, &snat, 0,
					   NULL);
	CHECK(!(st & (CS_SRC_NAT | CS_DST_NAT)), "state %#x", st);
	if (dg && r) {
		ct_ipf_dgram_nat(dg, r);	/* nothing for IPv6 */
		rte_pktmbuf_free(r);
		uint8_t *l4 = malloc(d.l4_len);
		CHECK_EXPR(take_all(dg, out) == n);
		CHECK_EXPR(frag6_glue(&d, out, n, l4) &&
			   !memcmp(l4, d.ip + 40, d.l4_len));
		const uint8_t *ip6 = rte_pktmbuf_mtod_offset(out[0],
						const uint8_t *, 14);
		CHECK_EXPR(!memcmp(ip6 + 8, A6, 16));
		free(l4);
		free_all(out, n);
	}
	frag6_dgram_free(&d);
	conntrack_destroy(ct);
	CHECK_EXPR(nfrag() == 0);
}

/* An exact copy is refused alone (+inv), as OVS; a partial overlap makes
 * the datagram invalid (RFC 5722): its held fragments come back. Counted
 * v6 only. */
static void
test_overlap(void)
{
	struct frag6_dgram d;
	struct rte_mbuf *f[FRAG_MAX], *g[FRAG_MAX];
	uint64_t ovl4 = ipf_counter(false, CT_IPF_OVERLAP);

	frag6_dgram_udp(&d, A6, B6, 5001, 53, 101, 3000, false);
	/* a copy of [0,1232); [0,1232) and the last held, then [8,1240) */
	uint16_t n = frag6_cut(&d, mbufs, PIECE, f);
	CHECK_EXPR(frag6_cut(&d, mbufs, PIECE, g) == n);
	ipf_check_dup_overlap(true, f, n,
			      frag6_piece(&d, mbufs, 0, PIECE, true), g,
			      frag6_piece(&d, mbufs, 8, PIECE, true));
	CHECK_EXPR(ipf_counter(false, CT_IPF_OVERLAP) == ovl4);
	frag6_dgram_free(&d);
}

/* Refused: too small, then the settings; malformed shapes. */
static void
test_refusals(void)
{
	struct frag6_dgram d;
	struct ct_ipf_dgram *dg;
	struct rte_mbuf *m, *out[4];
	uint64_t small = counter(CT_IPF_TOO_SMALL);
	uint64_t bad = counter(CT_IPF_MALFORMED);
	uint64_t small4 = ipf_counter(false, CT_IPF_TOO_SMALL);

	frag6_dgram_udp(&d, A6, B6, 5002, 53, 102, 1200, false);
	/* 648 bytes, not the last: under 1280 */
	struct rte_mbuf *first = frag6_piece(&d, mbufs, 0, 600, true);
	CHECK_EXPR(add(first, 0, 0, &dg) == CT_IPF_REFUSED && !dg);
	CHECK_EXPR(counter(CT_IPF_TOO_SMALL) - small == 1);
	CHECK_EXPR(ipf_counter(false, CT_IPF_TOO_SMALL) == small4);
	/* the last may be small */
	m = frag6_piece(&d, mbufs, 600, 608, false);
	CHECK_EXPR(add(m, 0, 0, &dg) == CT_IPF_TAKEN && !dg);
	/* OVS's lower bound, 400; then 648 bytes pass */
	CHECK_EXPR(ct_ipf_set_min_frag(ipf, true, 399) == -ERANGE);
	CHECK_EXPR(ct_ipf_set_min_frag(ipf, true, 400) == 0);
	CHECK_EXPR(add(first, 0, 0, &dg) == CT_IPF_TAKEN && dg &&
		   ct_ipf_dgram_complete(dg));
	if (dg)
		free_all(out, take_all(dg, out));
	CHECK_EXPR(ct_ipf_set_min_frag(ipf, true,
				       CT_IPF_V6_MIN_FRAG_DEFAULT) == 0);
	frag6_dgram_free(&d);

	frag6_dgram_udp(&d, A6, B6, 5002, 53, 103, 3000, false);
	struct rte_mbuf *shapes[] = {
		/* a piece before the last the next cannot follow */
		frag6_piece(&d, mbufs, 0, PIECE + 4, true),
		/* an atomic fragment: offset 0, M clear */
		frag6_piece(&d, mbufs, 0, PIECE, false),
		/* reserved bits only */
		frag6_piece_rsv(&d, mbufs, 0, PIECE, false, 0x0006),
		/* empty */
		frag6_piece(&d, mbufs, 1232, 0, true),
		/* past 65535 bytes of payload (offset 65528 below) */
		frag6_piece(&d, mbufs, 0, 16, false),
		/* the payload length past the frame */
		frag6_piece(&d, mbufs, 0, PIECE, true),
		/* no Fragment header */
		frag6_whole(&d, mbufs),
		/* a first fragment whose destination options after the
		 * Fragment header run past it (below; OVS: its
		 * parse_ipv6_ext_hdrs fails) */
		frag6_piece(&d, mbufs, 0, PIECE, true),
	};
	uint8_t *fh = rte_pktmbuf_mtod_offset(shapes[4], uint8_t *, 14 + 40);
	fh[2] = 0xff;
	fh[3] = 0xf8;
	rte_pktmbuf_trim(shapes[5], 100);
	fh = rte_pktmbuf_mtod_offset(shapes[7], uint8_t *, 14 + 40);
	fh[0] = 60;		/* destination options, 2048 bytes */
	fh[8 + 1] = 255;
	for (size_t i = 0; i < RTE_DIM(shapes); i++) {
		CHECK(add(shapes[i], 0, 0, &dg) == CT_IPF_REFUSED && !dg,
		      "shape %zu taken", i);
		rte_pktmbuf_free(shapes[i]);
	}
	CHECK(counter(CT_IPF_MALFORMED) - bad == RTE_DIM(shapes),
	      "malformed %lu", counter(CT_IPF_MALFORMED) - bad);
	CHECK_EXPR(nfrag() == 0);
	frag6_dgram_free(&d);
}

/* The identification is 32 bits: two datagrams whose ids share their
 * low 16 bits are two; an IPv4 datagram with the same numbers too. */
static void
test_ident(void)
{
	struct frag6_dgram d1, d2;
	struct rte_mbuf *f1[FRAG_MAX], *f2[FRAG_MAX], *out[FRAG_MAX];
	struct ct_ipf_dgram *dg1 = NULL, *dg2 = NULL;

	frag6_dgram_udp(&d1, A6, B6, 5003, 53, 0x00010007, 2000, false);
	frag6_dgram_udp(&d2, A6, B6, 5003, 53, 0x00020007, 2000, false);
	uint16_t n = frag6_cut(&d1, mbufs, PIECE, f1);
	CHECK_EXPR(frag6_cut(&d2, mbufs, PIECE, f2) == n && n == 2);
	CHECK_EXPR(add(f1[0], 0, 0, &dg1) == CT_IPF_TAKEN && !dg1);
	CHECK_EXPR(add(f2[1], 0, 0, &dg2) == CT_IPF_TAKEN && !dg2);
	CHECK_EXPR(add(f2[0], 0, 0, &dg2) == CT_IPF_TAKEN && dg2 &&
		   ct_ipf_dgram_complete(dg2));
	CHECK_EXPR(add(f1[1], 0, 0, &dg1) == CT_IPF_TAKEN && dg1 &&
		   ct_ipf_dgram_complete(dg1));
	if (dg1)
		free_all(out, take_all(dg1, out));
	if (dg2)
		free_all(out, take_all(dg2, out));
	CHECK_EXPR(nfrag() == 0);
	frag6_dgram_free(&d1);
	frag6_dgram_free(&d2);
}

/* A zone's share (an eighth of max-nfrags), counted under v6; a purge
 * gives it back through the drain list. */
static void
test_zone_share(void)
{
	struct frag6_dgram d;
	struct ct_ipf_dgram *dg;
	struct ct_ipf_status s;
	uint64_t zfull = counter(CT_IPF_ZONE_FULL);
	uint64_t pur = counter(CT_IPF_PURGED);
	uint16_t held = 0;

	ct_ipf_get_status(ipf, &s);
	CHECK(s.zone_max == 125 && s.v6_dgram_max == 60 &&
	      s.v6_min_frag == 1280 && s.v6_enabled, "zone %u, cap %u",
	      s.zone_max, s.v6_dgram_max);
	frag6_dgram_udp(&d, A6, B6, 5004, 53, 0, 2000, false);
	for (uint32_t id = 0; id < 126; id++) {
		d.ident = id;
		struct rte_mbuf *m = frag6_piece(&d, mbufs, 0, PIECE, true);
		if (add(m, 1, 0, &dg) == CT_IPF_TAKEN)
			held++;
		else
			rte_pktmbuf_free(m);
	}
	CHECK(held == 125, "zone 1 holds %u", held);
	CHECK_EXPR(counter(CT_IPF_ZONE_FULL) - zfull == 1);
	/* another zone still gets in */
	struct rte_mbuf *m = frag6_piece(&d, mbufs, 0, PIECE, true);
	CHECK_EXPR(add(m, 2, 0, &dg) == CT_IPF_TAKEN);
	CHECK_EXPR(ct_ipf_purge_zone(ipf, 1) == 125);
	CHECK_EXPR(ipf_drain_all(1) == 125 && nfrag() == 1);
	CHECK_EXPR(counter(CT_IPF_PURGED) - pur == 125);
	CHECK_EXPR(ct_ipf_purge_all(ipf) == 1);
	CHECK_EXPR(ipf_drain_all(1) == 1 && nfrag() == 0);
	frag6_dgram_free(&d);
}

/* 15 s after its first fragment a datagram expires (counted v6); off,
 * the datapath offers none (it asks first), v4 untouched. */
static void
test_timeout(void)
{
	struct frag6_dgram d;
	struct rte_mbuf *f[FRAG_MAX];
	uint64_t exp4 = ipf_counter(false, CT_IPF_EXPIRED);

	frag6_dgram_udp(&d, A6, B6, 5005, 53, 105, 3000, false);
	CHECK_EXPR(frag6_cut(&d, mbufs, PIECE, f) == 3);
	ipf_check_expiry(true, f);
	CHECK_EXPR(ipf_counter(false, CT_IPF_EXPIRED) == exp4);
	rte_pktmbuf_free(f[2]);
	CHECK_EXPR(nfrag() == 0);
	CHECK_EXPR(ct_ipf_set_enabled(ipf, true, false) == 0 &&
		   !ct_ipf_v6_enabled(ipf) && ct_ipf_v4_enabled(ipf));
	CHECK_EXPR(ct_ipf_set_enabled(ipf, true, true) == 0 &&
		   ct_ipf_v6_enabled(ipf));
	frag6_dgram_free(&d);
}

/* The largest datagram: 65535 bytes of payload in 54 fragments. */
static void
test_64k(void)
{
	struct conntrack *ct = ct_test_new("ipf6_64k", 64, NULL);
	struct frag6_dgram d;

	frag6_dgram_udp(&d, A6, B6, 5006, 9, 106, 65527, false);
	CHECK_EXPR(through(ct, &d, NULL, 9, "64 KB") == TRK_NEW);
	frag6_dgram_free(&d);
	conntrack_destroy(ct);
}

/* OVS's ipf_dump_create line for an IPv6 list. */
static void
test_dump(void)
{
	struct frag6_dgram d;
	struct ct_ipf_dgram *dg;
	struct ds out;
	struct rte_mbuf *f[8];

	frag6_dgram_udp(&d, A6, B6, 5007, 53, 0x12345678, 2000, false);
	frag6_cut(&d, mbufs, PIECE, f);
	CHECK_EXPR(add(f[0], 7, 0, &dg) == CT_IPF_TAKEN);
	ds_init(&out);
	ct_ipf_dump_lists(ipf, &out);
	const char *want = "(src=2001:db8::1,dst=2001:db8::2,recirc_id=0,"
			   "ip_id=305419896,dl_type=0x86dd,zone=7,nw_proto=0,"
			   "num_fragments=1,state=first frag)\n";
	CHECK(!strcmp(ds_cstr(&out), want), "dump: %s", ds_cstr(&out));
	ds_destroy(&out);
	CHECK_EXPR(ct_ipf_purge_all(ipf) == 1 && ipf_drain_all(1) == 1);
	rte_pktmbuf_free(f[1]);
	frag6_dgram_free(&d);
}

static uint64_t rng = 25;	/* unit_xorshift64s's seed */

static uint32_t
rnd(void)
{
	return (uint32_t)(unit_xorshift64s(&rng) >> 32);
}

/* Pieces of four datagrams (two ids; the two of an id differ only by a
 * hop-by-hop header, so their pieces mix): most as a sender cuts them,
 * the rest at random offsets and lengths, M at random; a header byte
 * flipped or the frame cut now and then; expiry on the way. */
static void
test_random(void)
{
	struct conntrack *ct = ct_test_new("ipf6_random", 256, NULL);
	static struct rte_mbuf *out[320];	/* a datagram's cap at 400 */
	struct frag6_dgram d[4];
	uint64_t now = 0;
	unsigned finished = 0, tracked = 0;

	CHECK_EXPR(ct_ipf_set_min_frag(ipf, true, 400) == 0);
	for (int i = 0; i < 4; i++)
		frag6_dgram_udp(&d[i], A6, B6, 6000, 53, 900 + (i & 1), 4000,
				i & 2);
	for (int n = 0; n < 20000; n++) {
		const struct frag6_dgram *x = &d[rnd() % 4];
		uint32_t off, len;
		bool more;
		if (rnd() % 4) {	/* a sender's piece: they complete */
			off = (rnd() % 4) * PIECE;
			len = RTE_MIN((uint32_t)PIECE, x->l4_len - off);
			more = off + len < x->l4_len;
		} else {		/* anywhere: they overlap */
			off = (rnd() % (x->l4_len / 8)) * 8;
			more = rnd() & 1;
			len = (rnd() % 200) * 8 + (more ? 0 : rnd() % 8);
			len = RTE_MIN(len, x->l4_len - off);
		}
		struct rte_mbuf *m = frag6_piece(x, mbufs, off, len, more);
		uint32_t hdrs = 14 + 40 + x->ext_len + 8;
		if (rnd() % 4 == 0)
			rte_pktmbuf_mtod(m, uint8_t *)[rnd() % hdrs] ^=
				(uint8_t)(1 + rnd() % 255);
		if (rnd() % 16 == 0)
			rte_pktmbuf_trim(m, rnd() % m->data_len);
		struct ct_ipf_dgram *dg;
		if (add(m, (uint16_t)(rnd() % 3), now, &dg) == CT_IPF_REFUSED)
			rte_pktmbuf_free(m);
		if (dg) {
			struct rte_mbuf *r = ct_ipf_dgram_reassemble(dg);
			finished++;
			if (r) {
				tracked++;
				ct_run(ct, r, 0, true, NULL, now);
			}
			free_all(out, take_all(dg, out));
		}
		now += HZ / 200;
		if (n % 500 == 0) {
			ct_ipf_sweep(ipf, now, 1000);
			ipf_drain_all(-1);
		}
	}
	ct_ipf_purge_all(ipf);
	ipf_drain_all(-1);
	printf("random: finished %u, tracked %u\n", finished, tracked);
	CHECK(finished > 0 && tracked > 0, "finished %u, tracked %u",
	      finished, tracked);
	CHECK_EXPR(nfrag() == 0);
	CHECK_EXPR(ct_ipf_set_min_frag(ipf, true,
				       CT_IPF_V6_MIN_FRAG_DEFAULT) == 0);
	for (int i = 0; i < 4; i++)
		frag6_dgram_free(&d[i]);
	conntrack_destroy(ct);
}

int
main(void)
{
	if (ipf_test_up("test_ct_ipf6") < 0)
		return unit_test_report();
	test_orders();
	test_icmp_no_nat();
	test_overlap();
	test_refusals();
	test_ident();
	test_zone_share();
	test_timeout();
	test_64k();
	test_dump();
	test_random();
	return ipf_test_down();
}
