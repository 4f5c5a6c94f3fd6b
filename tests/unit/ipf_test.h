/* SPDX-License-Identifier: BSD-3-Clause
 * The fragment store's unit tests' shared part (test_ct_ipf.c,
 * test_ct_ipf6.c): one store, its counters and count, a fragment offered
 * as the datapath offers it (an Ethernet frame, no VLAN, in_port 1), a
 * finished datagram emptied, and the checks both families share (order,
 * copies and overlaps, expiry, the drain). Include after ct_test.h, with
 * IPF_TEST_V6 defined: the family of counter() and add().
 */
#ifndef VXS_IPF_TEST_H
#define VXS_IPF_TEST_H

#include "ct_ipf.h"
#include "frag_build.h"

static struct ct_ipf *ipf;

static inline uint64_t
ipf_counter(bool v6, enum ct_ipf_counter c)
{
	struct ct_ipf_status s;
	ct_ipf_get_status(ipf, &s);
	return v6 ? s.v6[c] : s.v4[c];
}

static inline uint32_t
nfrag(void)
{
	struct ct_ipf_status s;
	ct_ipf_get_status(ipf, &s);
	return s.nfrag;
}

static inline enum ct_ipf_take
ipf_offer(struct rte_mbuf *m, bool v6, uint16_t zone, uint64_t now,
	  struct ct_ipf_dgram **dg)
{
	const struct ct_ipf_frag_in in = { .l3_ofs = 14, .zone = zone,
					   .in_port = 1, .ipv6 = v6 };
	return ct_ipf_add(ipf, m, &in, now, dg);
}

/* The counter and the offer of the family a test file is about
 * (IPF_TEST_V6, defined before this file is included). */
static inline uint64_t
counter(enum ct_ipf_counter c)
{
	return ipf_counter(IPF_TEST_V6, c);
}

static inline enum ct_ipf_take
add(struct rte_mbuf *m, uint16_t zone, uint64_t now, struct ct_ipf_dgram **dg)
{
	return ipf_offer(m, IPF_TEST_V6, zone, now, dg);
}

/* Every fragment of a finished datagram out (pkts, n) and its record
 * back. */
static inline uint16_t
take_all(struct ct_ipf_dgram *dg, struct rte_mbuf *pkts[])
{
	uint16_t n = 0, k;

	while ((k = ct_ipf_dgram_take(ipf, dg, pkts + n, 4)))
		n += k;
	ct_ipf_dgram_free(ipf, dg);
	return n;
}

static inline void
free_all(struct rte_mbuf *pkts[], uint16_t n)
{
	rte_pktmbuf_free_bulk(pkts, n);
}

/* Everything on the drain list taken and freed; want_purged 0 or 1: each
 * take must say so (-1: either). How many. */
static inline uint32_t
ipf_drain_all(int want_purged)
{
	struct rte_mbuf *out[64];
	uint32_t n = 0;
	uint16_t k;
	bool purged;

	while ((k = ct_ipf_drain(ipf, out, 64, &purged))) {
		CHECK(want_purged < 0 || purged == want_purged,
		      "drained %s", purged ? "purged" : "expired");
		n += k;
		free_all(out, k);
	}
	return n;
}

/* f[order[i]] (order NULL: in offset order) offered for zone: each one
 * taken, the last one finishing the datagram, which it returns. */
static inline struct ct_ipf_dgram *
ipf_offer_all(struct rte_mbuf *f[], const uint16_t order[], uint16_t n,
	      bool v6, uint16_t zone, const char *what)
{
	struct ct_ipf_dgram *dg = NULL;

	for (uint16_t i = 0; i < n; i++) {
		CHECK(ipf_offer(f[order ? order[i] : i], v6, zone, 0, &dg) ==
		      CT_IPF_TAKEN, "%s: fragment %u refused", what, i);
		CHECK((dg != NULL) == (i == n - 1),
		      "%s: finished after %u of %u", what, i + 1, n);
	}
	return dg;
}

/* Complete datagram dg's fragments out: f[0..n), in offset order, then
 * freed; the store empty, accepted and completed moved by n since acc
 * and done. */
static inline void
ipf_check_out(struct ct_ipf_dgram *dg, struct rte_mbuf *f[], uint16_t n,
	      bool v6, uint64_t acc, uint64_t done, const char *what)
{
	struct rte_mbuf *out[FRAG_MAX];

	CHECK(take_all(dg, out) == n, "%s: not %u out", what, n);
	for (uint16_t i = 0; i < n; i++)
		CHECK(out[i] == f[i], "%s: fragment %u out of order", what, i);
	free_all(out, n);
	CHECK_EXPR(ipf_counter(v6, CT_IPF_ACCEPTED) - acc == n);
	CHECK_EXPR(ipf_counter(v6, CT_IPF_COMPLETED) - done == n);
	CHECK_EXPR(nfrag() == 0);
}

/* A copy of a held fragment is refused alone (+inv), as OVS, and the
 * datagram still completes; a partial overlap makes it invalid (its held
 * fragments come back, counted invalid; the overlapping one refused).
 * f: n (at least 3) fragments of a datagram, copy: f[0]'s copy; g: the
 * same fragments again, bad: a piece partly over g[0]. All consumed. */
static inline void
ipf_check_dup_overlap(bool v6, struct rte_mbuf *f[], uint16_t n,
		      struct rte_mbuf *copy, struct rte_mbuf *g[],
		      struct rte_mbuf *bad)
{
	struct rte_mbuf *out[FRAG_MAX];
	struct ct_ipf_dgram *dg;
	uint64_t ovl = ipf_counter(v6, CT_IPF_OVERLAP);
	uint64_t inv = ipf_counter(v6, CT_IPF_INVALID);

	CHECK_EXPR(ipf_offer(f[0], v6, 0, 0, &dg) == CT_IPF_TAKEN && !dg);
	CHECK_EXPR(ipf_offer(copy, v6, 0, 0, &dg) == CT_IPF_REFUSED && !dg);
	rte_pktmbuf_free(copy);
	CHECK_EXPR(ipf_counter(v6, CT_IPF_OVERLAP) - ovl == 1);
	for (uint16_t i = 1; i < n; i++)
		ipf_offer(f[i], v6, 0, 0, &dg);
	CHECK(dg && ct_ipf_dgram_complete(dg), "a copy spoilt the datagram");
	if (dg)
		free_all(out, take_all(dg, out));
	/* g[0] and g[2] held, then bad: all out, invalid */
	CHECK_EXPR(ipf_offer(g[0], v6, 0, 0, &dg) == CT_IPF_TAKEN && !dg);
	CHECK_EXPR(ipf_offer(g[2], v6, 0, 0, &dg) == CT_IPF_TAKEN && !dg);
	CHECK_EXPR(ipf_offer(bad, v6, 0, 0, &dg) == CT_IPF_REFUSED);
	rte_pktmbuf_free(bad);
	CHECK(dg && !ct_ipf_dgram_complete(dg), "overlap: datagram kept");
	if (dg) {
		CHECK_EXPR(ct_ipf_dgram_reassemble(dg) == NULL);
		CHECK_EXPR(take_all(dg, out) == 2);
		free_all(out, 2);
	}
	for (uint16_t i = 0; i < n; i++)
		if (i != 0 && i != 2)
			rte_pktmbuf_free(g[i]);
	CHECK_EXPR(ipf_counter(v6, CT_IPF_OVERLAP) - ovl == 2);
	CHECK_EXPR(ipf_counter(v6, CT_IPF_INVALID) - inv == 2);
	CHECK_EXPR(nfrag() == 0);
}

/* 15 s after its first fragment a datagram expires, a later fragment
 * does not push it back (as OVS): f[0] at 1 s, f[1] at 10 s, none
 * expired at 15 s, both at 16 s, drained in order. */
static inline void
ipf_check_expiry(bool v6, struct rte_mbuf *f[])
{
	struct rte_mbuf *out[8];
	struct ct_ipf_dgram *dg;
	uint64_t exp = ipf_counter(v6, CT_IPF_EXPIRED);
	bool purged = true;

	CHECK_EXPR(ipf_offer(f[0], v6, 0, SEC(1), &dg) == CT_IPF_TAKEN);
	CHECK_EXPR(ipf_offer(f[1], v6, 0, SEC(10), &dg) == CT_IPF_TAKEN);
	CHECK_EXPR(ct_ipf_sweep(ipf, SEC(15), 100) == 0);
	CHECK_EXPR(ct_ipf_sweep(ipf, SEC(16), 100) == 1);
	CHECK_EXPR(ipf_counter(v6, CT_IPF_EXPIRED) - exp == 2);
	uint16_t k = ct_ipf_drain(ipf, out, 8, &purged);
	CHECK_EXPR(k == 2 && !purged && out[0] == f[0] && out[1] == f[1]);
	free_all(out, k);
}

/* The EAL, the mbufs and the store for test name. 0 or -1. */
static inline int
ipf_test_up(const char *name)
{
	if (ct_test_init(name) < 0) {
		CHECK(false, "%s: no EAL or no mbufs", name);
		return -1;
	}
	ipf = ct_ipf_create(SOCKET_ID_ANY, HZ);
	CHECK_EXPR(ipf != NULL);
	return ipf ? 0 : -1;
}

/* The store destroyed, every mbuf back: main's exit status. */
static inline int
ipf_test_down(void)
{
	ct_ipf_destroy(ipf);
	CHECK(rte_mempool_in_use_count(mbufs) == 0, "%u mbufs in use",
	      rte_mempool_in_use_count(mbufs));
	return unit_test_report();
}

#endif
