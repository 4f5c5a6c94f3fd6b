/* SPDX-License-Identifier: BSD-3-Clause
 * The ones-complement sum of bytes across an mbuf chain (csum_chain.h).
 */
#include "csum_chain.h"

/* The ones-complement sum of len bytes at off, across segments. Not
 * rte_raw_cksum_mbuf: in DPDK 22.11 it truncates a segment's unfolded sum
 * to 16 bits before byte-swapping it, so it is wrong whenever a segment
 * starts at an odd offset of the summed data. Folding first is right. */
bool
csum_chain(const struct rte_mbuf *m, uint32_t off, uint32_t len,
	   uint16_t *cksum)
{
	uint32_t sum = 0;
	bool odd_so_far = false;

	for (const struct rte_mbuf *seg = m; seg != NULL && len;
	     seg = seg->next) {
		const uint32_t seg_len = rte_pktmbuf_data_len(seg);
		if (off >= seg_len) {
			off -= seg_len;
			continue;
		}
		const uint32_t n = RTE_MIN(seg_len - off, len);
		uint16_t part = rte_raw_cksum(
			rte_pktmbuf_mtod_offset(seg, const void *, off), n);
		/* data starting at an odd position pairs its bytes the
		 * other way round */
		if (odd_so_far)
			part = rte_bswap16(part);
		sum += part;
		odd_so_far ^= n & 1;
		len -= n;
		off = 0;
	}
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	*cksum = (uint16_t)sum;
	return len == 0;	/* else the chain is shorter than pkt_len */
}
