/* SPDX-License-Identifier: BSD-3-Clause
 * The ones-complement sum of len bytes at off across an mbuf chain, for
 * the UDP checksums of VXLAN decap (both families) and encap over IPv6.
 * Not DPDK 22.11's rte_raw_cksum_mbuf, which truncates a segment's
 * unfolded sum to 16 bits before byte-swapping it: wrong whenever a
 * segment starts at an odd offset of the summed data.
 */
#ifndef VXS_CSUM_CHAIN_H
#define VXS_CSUM_CHAIN_H

#include <stdbool.h>
#include <stdint.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

/* *cksum = the folded (not complemented) sum; false if the chain is
 * shorter than off + len. */
bool csum_chain(const struct rte_mbuf *m, uint32_t off, uint32_t len,
		uint16_t *cksum);

#endif
