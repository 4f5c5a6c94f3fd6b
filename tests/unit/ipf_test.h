/* SPDX-License-Identifier: BSD-3-Clause
 * The fragment store's unit tests' shared part (test_ct_ipf.c,
 * test_ct_ipf6.c): one store, its counters and count, a fragment offered
 * as the datapath offers it (an Ethernet frame, no VLAN, in_port 1), a
 * finished datagram emptied. Include after ct_test.h.
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

#endif
