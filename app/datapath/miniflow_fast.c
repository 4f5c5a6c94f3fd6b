/* SPDX-License-Identifier: BSD-3-Clause
 * Fast miniflow extract for the common packet types (see miniflow.h):
 * untagged Ethernet / IPv4 with IHL 5, not a fragment / UDP or TCP, all in
 * one contiguous segment. That covers the VXLAN outer header (it is just
 * eth/ipv4/udp to port 4789) and most inner packets after decap.
 *
 * The fast path only ever answers "well formed, here is the key": anything
 * it does not recognise, malformed packets included, goes to the generic
 * miniflow_extract(), so both give the same keys and the same verdicts by
 * construction (and tests/unit/test_miniflow_fast.c checks it).
 *
 * Shape check: one branch on the packet_type hint, one on "enough bytes in
 * one segment", one (or two) on the shape, plus one for TCP's data offset. The key words are built from a few wide
 * loads: w2 and w3 straight from the Ethernet header, w4 from the address
 * pair, w5 from three IPv4 bytes and the port pair. IPv6's fast shapes
 * (miniflow_fast_try6: no extension header, UDP, TCP, ICMPv6 but ND) come
 * second: w7 from the label, the second line from the address pair.
 */
#include "miniflow_fast.h"

/* The checks themselves are in miniflow_fast.h (inline, for the batch
 * loops). */

bool
miniflow_extract_fast_only(const struct rte_mbuf *m, struct flow_key *key)
{
	return miniflow_fast_try(m, key) || miniflow_fast_try6(m, key);
}

int
miniflow_extract_after_fast4(const struct rte_mbuf *m, struct flow_key *key)
{
	if (miniflow_fast_try6(m, key))
		return MINIFLOW_EXT;
	return miniflow_extract(m, key);
}

int
miniflow_extract_fast(const struct rte_mbuf *m, struct flow_key *key)
{
	return miniflow_extract_fast_inline(m, key);
}
