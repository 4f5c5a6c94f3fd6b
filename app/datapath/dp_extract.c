/* SPDX-License-Identifier: BSD-3-Clause
 * The extract stage: a batch through miniflow extract (miniflow.h), the
 * fast extractor (miniflow_fast.c) or the generic one (miniflow.c) as the
 * fast-extract option says; malformed packets are set aside for the
 * caller to drop. Apart from the parsers so that the files call each other
 * one way only: this -> fast -> generic.
 */
#include <rte_branch_prediction.h>
#include <rte_prefetch.h>
#include "miniflow_fast.h"

/* One loop per extractor, so the choice is made once per batch and the
 * call in the loop is direct. */
static inline __rte_always_inline uint16_t
extract_batch(struct pkt_batch *b, struct flow_key keys[],
	      struct pkt_batch *malformed, bool fast, bool *ext)
{
	uint16_t n = b->n;
	uint16_t kept = 0;
	bool any_ext = false;

	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = b->pkts[i];

		if (i + 1 < n)
			rte_prefetch0(rte_pktmbuf_mtod(b->pkts[i + 1], void *));

		int rc = fast ? miniflow_extract_fast_inline(m, &keys[i])
			      : miniflow_extract(m, &keys[i]);
		if (unlikely(rc != 0)) {
			if (rc < 0) {
				pkt_batch_add(malformed, m);
				continue;
			}
			any_ext = true;		/* MINIFLOW_EXT */
		}
		if (kept != i) {
			b->pkts[kept] = m;
			flow_key_copy(&keys[kept], &keys[i]);
		}
		kept++;
	}
	b->n = kept;
	if (any_ext)
		*ext = true;
	return (uint16_t)(n - kept);
}

uint16_t
miniflow_extract_batch_ext(struct pkt_batch *b, struct flow_key keys[],
			   struct pkt_batch *malformed, bool fast, bool *ext)
{
	if (fast)
		return extract_batch(b, keys, malformed, true, ext);
	return extract_batch(b, keys, malformed, false, ext);
}

uint16_t
miniflow_extract_batch(struct pkt_batch *b, struct flow_key keys[],
		       struct pkt_batch *malformed, bool fast)
{
	bool ext = false;

	return miniflow_extract_batch_ext(b, keys, malformed, fast, &ext);
}
