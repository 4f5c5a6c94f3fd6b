/* SPDX-License-Identifier: BSD-3-Clause */
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_udp.h>
#include <rte_vxlan.h>
#include "dp_execute.h"
#include "dp_offload.h"
#include "dp_snapshot.h"
#include "offload_mgr.h"
#include "vxlan_tnl.h"

/* A megaflow's id for the offload thread: its slot in the PMD's pool and
 * the low half of its unique id, so an answer for a megaflow that has
 * since been freed (and its slot reused) is recognised as stale. */
static uint64_t
megaflow_offload_id(const struct pmd *pmd, const struct megaflow *f)
{
	return (f->id << 32) | (uint64_t)(f - pmd->flow_pool);
}

static struct megaflow *
megaflow_by_offload_id(struct pmd *pmd, uint64_t id)
{
	uint32_t slot = (uint32_t)id;
	struct megaflow *f;

	if (slot >= pmd->max_flows)
		return NULL;
	f = &pmd->flow_pool[slot];
	return !f->dead && (uint32_t)f->id == (uint32_t)(id >> 32) ? f : NULL;
}

/* The mark path runs a megaflow's actions without its packets' keys or
 * hashes: only actions that need neither may take it. */
static bool
actions_need_no_key(const struct dp_actions *a)
{
	for (int i = 0; i < a->n; i++)
		if (a->act[i].type != DP_ACT_OUTPUT &&
		    a->act[i].type != DP_ACT_SET_ETH_SRC &&
		    a->act[i].type != DP_ACT_SET_ETH_DST)
			return false;
	return a->n > 0;
}

void
dp_offload_request(struct pmd *pmd, struct megaflow *f)
{
	const struct megaflow *outer = pmd->tnl_outer;

	if (!pmd->offload || !outer || !actions_need_no_key(&f->actions))
		return;
	/* A full request ring is no error: the flow stays in software. */
	if (offload_mgr_request_add(pmd->offload, pmd->idx,
				    megaflow_offload_id(pmd, f), &outer->key,
				    &outer->mask, &f->key, &f->mask,
				    f->n_packets) == 0)
		f->offload = MF_OFFLOAD_REQUESTED;
}

void
dp_offload_retire(struct pmd *pmd, struct megaflow *f)
{
	if (!pmd->offload || f->offload == MF_OFFLOAD_NONE ||
	    f->offload == MF_OFFLOAD_FAILED)
		return;
	if (f->mark)
		pmd->mark_table[f->mark] = NULL;
	/* mark 0 (still pending): the thread cancels it by megaflow id */
	offload_mgr_request_del(pmd->offload, pmd->idx,
				megaflow_offload_id(pmd, f), f->mark);
	f->mark = 0;
	f->offload = MF_OFFLOAD_NONE;
}

void
dp_offload_poll(struct pmd *pmd)
{
	struct offload_completion c[32];
	unsigned n = offload_mgr_poll_completions(pmd->offload, pmd->idx, c,
						  RTE_DIM(c));

	for (unsigned i = 0; i < n; i++) {
		if (c[i].op != OFFLOAD_OP_ADD)
			continue;
		struct megaflow *f = megaflow_by_offload_id(pmd,
							    c[i].megaflow_id);
		if (!f || f->offload != MF_OFFLOAD_REQUESTED)
			continue;	/* retired meanwhile: DEL is on its way */
		if (c[i].result == OFFLOAD_OK && c[i].mark &&
		    c[i].mark <= pmd->max_marks) {
			f->mark = c[i].mark;
			f->offload = MF_OFFLOAD_INSTALLED;
			pmd->mark_table[f->mark] = f;
		} else {
			f->offload = MF_OFFLOAD_FAILED;
		}
	}
}

/* The NIC matched eth/ipv4/udp/vxlan(vni)/eth/ipv4(dst): check only what
 * the strip relies on, and that the VNI is the megaflow's. */
static bool
strip_outer(struct rte_mbuf *m, const struct megaflow *f)
{
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	const struct rte_ether_hdr *eh = (const struct rte_ether_hdr *)p;
	const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(eh + 1);
	uint32_t ihl, off;

	if (rte_pktmbuf_data_len(m) < VXLAN_TNL_HDR_LEN + RTE_ETHER_HDR_LEN ||
	    eh->ether_type != RTE_BE16(RTE_ETHER_TYPE_IPV4) ||
	    (ip->version_ihl >> 4) != 4)
		return false;
	ihl = (ip->version_ihl & 0xf) * 4;	/* options still match a rule */
	off = RTE_ETHER_HDR_LEN + ihl + sizeof(struct rte_udp_hdr);
	if (ihl < 20 || rte_pktmbuf_data_len(m) < off + 8 + RTE_ETHER_HDR_LEN)
		return false;
	const struct rte_vxlan_hdr *vx =
		(const struct rte_vxlan_hdr *)(p + off);
	if (vx->vx_flags != RTE_BE32(VXLAN_FLAGS_WORD) ||
	    rte_be_to_cpu_32(vx->vx_vni) >> 8 != f->key.tun_id)
		return false;
	rte_pktmbuf_adj(m, (uint16_t)(off + 8));
	m->ol_flags &= ~VXLAN_STALE_RX_FLAGS;
	m->packet_type = RTE_PTYPE_UNKNOWN;
	return true;
}

struct mark_group {
	struct megaflow *f;
	struct pkt_batch b;
};

void
dp_offload_mark_path(struct pmd *pmd, struct pkt_batch *b)
{
	struct mark_group g[BATCH_MAX];
	uint16_t n_groups = 0, kept = 0;
	uint32_t epoch = ++pmd->batch_epoch;
	uint64_t now = pmd->stage_tsc;

	for (uint16_t i = 0; i < b->n; i++) {
		struct rte_mbuf *m = b->pkts[i];
		struct megaflow *f = NULL;

		if (m->ol_flags & RTE_MBUF_F_RX_FDIR_ID) {
			uint32_t mark = m->hash.fdir.hi;
			if (mark && mark <= pmd->max_marks)
				f = pmd->mark_table[mark];
		}
		/* unknown or stale mark, or no mark: the full path */
		if (!f || !strip_outer(m, f)) {
			b->pkts[kept++] = m;
			continue;
		}
		if (f->batch_epoch != epoch || f->batch_group >= n_groups ||
		    g[f->batch_group].f != f) {
			f->batch_epoch = epoch;
			f->batch_group = n_groups;
			g[n_groups].f = f;
			g[n_groups++].b.n = 0;
		}
		pkt_batch_add(&g[f->batch_group].b, m);
		f->n_bytes += rte_pktmbuf_pkt_len(m);
	}
	b->n = kept;

	for (uint16_t k = 0; k < n_groups; k++) {
		struct megaflow *f = g[k].f;
		uint16_t n = g[k].b.n;
		struct pmd_port_stats *ps =
			&pmd->port_stats[pmd->snap->tnl_idx];

		f->n_packets += n;
		f->used_tsc = now;
		pmd->stats.mark_hits += n;
		pmd->stats.tunnel_pops += n;
		ps->rx_packets += n;
		for (uint16_t j = 0; j < n; j++)
			ps->rx_bytes += rte_pktmbuf_pkt_len(g[k].b.pkts[j]);
		/* actions_need_no_key(): no keys, hashes or positions used */
		dp_execute(pmd, f, &g[k].b, NULL, NULL, NULL, 1);
	}
}
