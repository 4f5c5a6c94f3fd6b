/* SPDX-License-Identifier: BSD-3-Clause
 * One burst through the datapath, as in ARCHITECTURE.md:
 *
 *   miniflow extract -> hash -> EMC -> dpcls -> upcall (misses)
 *     -> group by megaflow -> batched actions (dp_execute.c)
 *
 * A VXLAN packet goes round once more inside the same call: tnl_pop strips
 * the outer header and the inner packet is looked up right there with
 * in_port=vxlan and its tunnel metadata, with no second pass of the PMD
 * loop (OVS recirculates).
 */
#include <rte_cycles.h>
#include "dp_execute.h"
#include "dp_offload.h"
#include "dp_snapshot.h"
#include "dpcls.h"
#include "emc.h"
#include "flow_hash.h"
#include "miniflow.h"
#include "pmd.h"

const char *
pmd_stage_name(enum pmd_stage s)
{
	static const char *const names[PMD_N_STAGES] = {
#define X(id, name) [PMD_STAGE_##id] = name,
		PMD_STAGES(X)
#undef X
	};
	return (unsigned)s < PMD_N_STAGES ? names[s] : "?";
}

/* The microflow hash of every key, the only place it is computed:
 *  - a NIC that hashed the packet (RSS, over the same outer 5-tuple our
 *    key holds) already did the work: its hash is as good an index into
 *    the EMC, which compares whole keys anyway. Only on the first pass:
 *    after decap the mbuf still carries the outer packet's RSS hash;
 *  - packets of one burst often belong to the same microflow: comparing
 *    a key with the previous one is cheaper than hashing it again;
 *  - otherwise flow_hash_key(). */
static void
flow_hash_batch(const struct pkt_batch *b, const struct flow_key keys[],
		uint32_t hashes[], bool reuse, bool nic_hash)
{
	for (uint16_t i = 0; i < b->n; i++) {
		if (nic_hash && (b->pkts[i]->ol_flags & RTE_MBUF_F_RX_RSS_HASH))
			hashes[i] = b->pkts[i]->hash.rss;
		else if (reuse && i && flow_key_equal(&keys[i], &keys[i - 1]))
			hashes[i] = hashes[i - 1];
		else
			hashes[i] = flow_hash_key(&keys[i]);
	}
}

static inline bool
emc_should_insert(struct pmd *pmd)
{
	uint32_t p = pmd->emc_insert_inv_prob;
	if (p <= 1)
		return p == 1;
	/* xorshift: cheap, and only the PMD uses it */
	uint32_t x = pmd->rand_state;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	pmd->rand_state = x;
	return x % p == 0;
}

static void
lookup_batch(struct pmd *pmd, const struct flow_key keys[],
	     const uint32_t hashes[], uint16_t n, struct megaflow *flows[])
{
	uint32_t all = n == 32 ? UINT32_MAX : (1u << n) - 1;
	uint32_t miss = all, miss_cls;

	if (pmd->emc_insert_inv_prob) {
		miss = emc_lookup(pmd->emc, keys, hashes, all, flows);
		pmd->stats.emc_hits += __builtin_popcount(all & ~miss);
		pmd_stage_mark(pmd, PMD_STAGE_EMC);
	}
	if (!miss)
		return;
	miss_cls = dpcls_lookup(pmd->cls, keys, miss, flows);
	pmd->stats.megaflow_hits += __builtin_popcount(miss & ~miss_cls);
	pmd_stage_mark(pmd, PMD_STAGE_DPCLS);
	/* What follows is EMC inserts, plus translation if anything missed. */
	enum pmd_stage after = miss_cls ? PMD_STAGE_UPCALL : PMD_STAGE_EMC;

	bool installed = false;
	for (uint32_t m = miss; m; m &= m - 1) {
		int i = __builtin_ctz(m);
		uint32_t bit = 1u << i;
		/* A megaflow installed for an earlier packet of this burst
		 * may cover this one too: look again before translating. */
		if ((miss_cls & bit) && installed &&
		    !dpcls_lookup(pmd->cls, keys, bit, flows)) {
			miss_cls &= ~bit;
			pmd->stats.megaflow_hits++;
		}
		if (miss_cls & bit) {
			uint64_t t0 = rte_rdtsc();
			flows[i] = dp_upcall(pmd, &keys[i]);
			installed |= flows[i] != NULL;
			pmd->stats.upcalls++;
			pmd->stats.upcall_cycles += rte_rdtsc() - t0;
		}
		if (flows[i] && pmd->emc_insert_inv_prob &&
		    emc_should_insert(pmd))
			emc_insert(pmd->emc, &keys[i], hashes[i], flows[i]);
	}
	pmd_stage_mark(pmd, after);
}

struct flow_group {
	struct megaflow *flow;
	struct pkt_batch b;
	uint8_t idx[BATCH_MAX];		/* positions in the burst */
};

void
dp_lookup_and_execute(struct pmd *pmd, struct pkt_batch *b,
		      struct flow_key keys[], int depth)
{
	uint32_t hashes[BATCH_MAX];
	struct megaflow *flows[BATCH_MAX];
	struct flow_group groups[BATCH_MAX];
	uint16_t n_groups = 0;
	uint64_t now = rte_rdtsc();
	uint32_t epoch;

	if (!b->n)
		return;
	epoch = ++pmd->batch_epoch;
	flow_hash_batch(b, keys, hashes,
			pmd->opts & DP_OPT_BIT(DP_OPT_HASH_REUSE), depth == 0);
	pmd_stage_mark(pmd, PMD_STAGE_HASH);
	lookup_batch(pmd, keys, hashes, b->n, flows);

	for (uint16_t i = 0; i < b->n; i++) {
		struct megaflow *f = flows[i];
		struct flow_group *g = NULL;

		if (!f) {
			rte_pktmbuf_free(b->pkts[i]);
			pmd_count_drops(pmd, DROP_UPCALL_FAIL, 1);
			continue;
		}
		/* The megaflow remembers its group for this pass (as OVS's
		 * flow->batch): a decap burst fanning out to 32 VMs has 32
		 * groups, and a search over them would be quadratic. The
		 * bounds and owner checks make a wrapped epoch harmless. */
		if (f->batch_epoch == epoch && f->batch_group < n_groups &&
		    groups[f->batch_group].flow == f) {
			g = &groups[f->batch_group];
		} else {
			f->batch_epoch = epoch;
			f->batch_group = n_groups;
			g = &groups[n_groups++];
			g->flow = f;
			g->b.n = 0;
		}
		g->idx[g->b.n] = i;
		pkt_batch_add(&g->b, b->pkts[i]);
		f->n_bytes += rte_pktmbuf_pkt_len(b->pkts[i]);
	}
	b->n = 0;

	for (uint16_t k = 0; k < n_groups; k++) {
		struct flow_group *g = &groups[k];
		g->flow->n_packets += g->b.n;
		g->flow->used_tsc = now;
		dp_execute(pmd, g->flow, &g->b, keys, hashes, g->idx, depth);
	}
	pmd_stage_mark(pmd, PMD_STAGE_ACTIONS);
}

void
dp_process_burst(struct pmd *pmd, struct port *in, struct pkt_batch *b)
{
	struct flow_key keys[BATCH_MAX];
	struct pkt_batch malformed;
	struct pmd_port_stats *ps = &pmd->port_stats[in->idx];
	uint64_t bytes = 0;
	uint32_t longest = 0;

	pmd->stage_tsc = rte_rdtsc();
	pmd->stats.bursts[pmd_burst_bucket(b->n)]++;
	for (uint16_t i = 0; i < b->n; i++) {
		keys[i].w[0] = 0;
		keys[i].in_port = in->ofport;
		keys[i].w[1] = 0;
		keys[i].w[6] = keys[i].w[7] = 0;
		uint32_t len = rte_pktmbuf_pkt_len(b->pkts[i]);
		bytes += len;
		longest = RTE_MAX(longest, len);
	}
	ps->rx_packets += b->n;
	ps->rx_bytes += bytes;
	pmd->stats.packets += b->n;
	/* a guest sending past its vhost port's mtu: */
	if (unlikely(longest > in->rx_max_frame))
		b->n = dp_drop_oversize(pmd, b->pkts, b->n, in->rx_max_frame);

	/* NIC-marked packets skip parse and lookup; only the underlay port
	 * has offload rules */
	if (in->idx == pmd->snap->underlay_idx && pmd->snap->has_underlay) {
		if (pmd->offload) {
			dp_offload_mark_path(pmd, b);
			pmd_stage_mark(pmd, PMD_STAGE_ACTIONS);
		}
		/* the VTEP's ARP: policed and answered before any parsing */
		arp_steer_batch(pmd, b);
		pmd_stage_mark(pmd, PMD_STAGE_ACTIONS);
	}
	pkt_batch_init(&malformed);
	if (miniflow_extract_batch(b, keys, &malformed,
				   pmd->opts & DP_OPT_BIT(DP_OPT_FAST_EXTRACT))) {
		pmd_count_drops(pmd, DROP_MALFORMED, malformed.n);
		pkt_batch_free(&malformed);
	}
	pmd_stage_mark(pmd, PMD_STAGE_EXTRACT);
	dp_lookup_and_execute(pmd, b, keys, 0);
}
