/* SPDX-License-Identifier: BSD-3-Clause
 * A burst of packets moving through the datapath. Every stage takes a batch
 * and gives a batch; per-packet side data (keys, hashes) lives in arrays
 * indexed like pkts[] and is compacted together with it. */
#ifndef VXS_PKT_BATCH_H
#define VXS_PKT_BATCH_H

#include <stdint.h>
#include <rte_mbuf.h>

#define BATCH_MAX 32

struct pkt_batch {
	uint16_t n;
	struct rte_mbuf *pkts[BATCH_MAX];
};

static inline void
pkt_batch_init(struct pkt_batch *b)
{
	b->n = 0;
}

static inline void
pkt_batch_add(struct pkt_batch *b, struct rte_mbuf *m)
{
	b->pkts[b->n++] = m;
}

/* Frees every packet of the batch and empties it. */
static inline void
pkt_batch_free(struct pkt_batch *b)
{
	if (b->n)
		rte_pktmbuf_free_bulk(b->pkts, b->n);
	b->n = 0;
}

#endif
