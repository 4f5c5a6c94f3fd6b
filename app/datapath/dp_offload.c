/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <string.h>
#include <rte_ether.h>
#include <rte_malloc.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_udp.h>
#include <rte_vxlan.h>
#include "dp_execute.h"
#include "dp_offload.h"
#include "dp_snapshot.h"
#include "miniflow.h"
#include "offload_mgr.h"
#include "unaligned.h"
#include "vxlan_decap.h"
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

int
dp_offload_attach(struct pmd *pmd, struct offload_mgr *m)
{
	struct offload_mgr_stats st;

	offload_mgr_get_stats(m, &st);
	/* room for the DELs a PMD normally owes: one per installed rule
	 * (max_marks) plus one per ADD still on its way (the request ring and
	 * the thread's pending set); grown if ever short */
	pmd->del_retry_cap = st.max_marks + offload_mgr_max_in_flight(m);
	pmd->mark_table = rte_zmalloc("mark_table", (st.max_marks + 1) *
				      sizeof *pmd->mark_table, 64);
	pmd->del_retry = rte_malloc("offload_del_retry", pmd->del_retry_cap *
				    sizeof *pmd->del_retry, 64);
	if (!pmd->mark_table || !pmd->del_retry) {
		dp_offload_detach(pmd);
		return -ENOMEM;
	}
	pmd->max_marks = st.max_marks;
	pmd->n_del_retry = 0;
	pmd->offload = m;
	return 0;
}

void
dp_offload_detach(struct pmd *pmd)
{
	pmd->offload = NULL;
	rte_free(pmd->mark_table);
	rte_free(pmd->del_retry);
	pmd->mark_table = NULL;
	pmd->del_retry = NULL;
	pmd->max_marks = pmd->n_del_retry = pmd->del_retry_cap = 0;
}

/* Rare (the initial size covers what a PMD normally owes): a burst of
 * failed ADDs whose answers the PMD has not read yet also owe a DEL. */
static void
del_retry_grow(struct pmd *pmd)
{
	uint32_t cap = 2 * pmd->del_retry_cap;
	struct offload_del *d = rte_realloc(pmd->del_retry,
					    cap * sizeof *d, 64);
	if (d) {
		pmd->del_retry = d;
		pmd->del_retry_cap = cap;
	}
}

static void
del_retry_flush(struct pmd *pmd)
{
	uint32_t done = 0;

	while (done < pmd->n_del_retry &&
	       offload_mgr_request_del(pmd->offload, pmd->idx,
				       pmd->del_retry[done].megaflow_id,
				       pmd->del_retry[done].mark) == 0)
		done++;
	if (done) {
		memmove(pmd->del_retry, pmd->del_retry + done,
			(pmd->n_del_retry - done) * sizeof *pmd->del_retry);
		pmd->n_del_retry -= done;
	}
}

void
dp_offload_request(struct pmd *pmd, struct megaflow *f)
{
	const struct megaflow *outer = pmd->tnl_outer;

	if (!pmd->offload || !outer || !actions_need_no_key(&f->actions))
		return;
	/* Refused DELs go first: an ADD overtaking the DEL of the same
	 * pattern would fail as 'exists'. A full request ring is no error:
	 * the flow stays in software. */
	if (unlikely(pmd->n_del_retry)) {
		del_retry_flush(pmd);
		if (pmd->n_del_retry)
			return;
	}
	if (offload_mgr_request_add(pmd->offload, pmd->idx,
				    megaflow_offload_id(pmd, f), &outer->key,
				    &outer->mask, &f->key, &f->mask,
				    f->n_packets) == 0)
		f->offload = MF_OFFLOAD_REQUESTED;
}

void
dp_offload_refresh(struct pmd *pmd, struct megaflow *f)
{
	if (f->offload == MF_OFFLOAD_REQUESTED && f->n_packets)
		offload_mgr_request_refresh(pmd->offload, pmd->idx,
					    megaflow_offload_id(pmd, f),
					    f->n_packets);
}

void
dp_offload_retire(struct pmd *pmd, struct megaflow *f)
{
	if (!pmd->offload || f->offload == MF_OFFLOAD_NONE ||
	    f->offload == MF_OFFLOAD_FAILED)
		return;
	if (f->mark)
		pmd->mark_table[f->mark] = NULL;
	/* mark 0 (still pending): the thread cancels it by megaflow id.
	 * Behind earlier refused DELs, in order, or queued to retry. */
	struct offload_del d = { megaflow_offload_id(pmd, f), f->mark };
	if (pmd->n_del_retry || offload_mgr_request_del(
			pmd->offload, pmd->idx, d.megaflow_id, d.mark) != 0) {
		if (pmd->n_del_retry == pmd->del_retry_cap)
			del_retry_grow(pmd);
		if (pmd->n_del_retry < pmd->del_retry_cap)
			pmd->del_retry[pmd->n_del_retry++] = d;
		else
			pmd->stats.offload_dels_lost++;
	}
	f->mark = 0;
	f->offload = MF_OFFLOAD_NONE;
}

void
dp_offload_poll(struct pmd *pmd)
{
	if (unlikely(pmd->n_del_retry))
		del_retry_flush(pmd);
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

/* The shape an E810 VXLAN rule matches, at fixed offsets: untagged
 * Ethernet, IPv4 without options, UDP, VXLAN, then at least the inner
 * Ethernet and IPv4 headers. */
#define MK_IP	RTE_ETHER_HDR_LEN
#define MK_UDP	(MK_IP + 20)
#define MK_MIN_LEN (VXLAN_TNL_HDR_LEN + RTE_ETHER_HDR_LEN + 20)
_Static_assert(VXLAN_TNL_HDR_LEN == MK_UDP + 16, "eth+ipv4+udp+vxlan");

/* The mark only names a candidate megaflow: the NIC's rule may be stale
 * (deleted after it marked this packet), and a rule matches fewer fields
 * than the software checks. So m takes the mark path only if the full
 * path would have sent it to f: the outer header is for our VTEP (what
 * the underlay's tnl_pop megaflow matched), it passes the very checks of
 * the tnl_pop stage (vxlan_decap_pkt: lengths, flags, checksums unless
 * the NIC verified them), it is addressed to our VTEP MAC (the NIC rule
 * does not match it), and its inner key matches f's key under f's
 * mask. What is skipped is the outer parse, two hashes and two lookups.
 * On success m is stripped to its inner frame; on failure it is left as
 * it came, for the full path, which then decides (and counts) as always. */
static bool
mark_check_strip(const struct pmd *pmd, struct rte_mbuf *m,
		 const struct megaflow *f)
{
	const struct dp_snapshot *s = pmd->snap;
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	struct flow_key key;

	/* Anything else (a VLAN tag, IP options, bytes past the UDP datagram
	 * that the strip would trim and could not put back) is rare: the
	 * full path handles it. */
	if (unlikely(rte_pktmbuf_data_len(m) < MK_MIN_LEN))
		return false;
	uint32_t ip_len = rte_be_to_cpu_16(load_be16(p + MK_IP + 2));
	uint32_t udp_len = rte_be_to_cpu_16(load_be16(p + MK_UDP + 4));
	/* A frame to a foreign MAC takes the full path, which drops it
	 * (foreign_mac) as xlate_underlay() says. */
	if (unlikely(!rte_is_same_ether_addr((const struct rte_ether_addr *)p,
					     &s->vtep_mac)))
		return false;
	if (unlikely((load32(p + 12) & RTE_BE32(0xffffff00)) !=
		     RTE_BE32(0x08004500) ||
		     load_be32(p + MK_IP + 16) != s->vtep_ip ||
		     load_be16(p + MK_UDP + 2) !=
		     rte_cpu_to_be_16(s->tnl_dst_port) ||
		     MK_IP + ip_len != rte_pktmbuf_pkt_len(m) ||
		     20 + udp_len != ip_len))
		return false;

	uint64_t ol_flags = m->ol_flags;
	uint32_t ptype = m->packet_type;
	if (!vxlan_decap_pkt(m, &key, s->tnl_ofport))
		return false;		/* untouched */
	if (likely(miniflow_extract_fast(m, &key) == 0 &&
		   flow_key_match(&key, &f->key, &f->mask)))
		return true;
	/* nothing was trimmed (pkt_len is the IPv4 length): undo the strip */
	rte_pktmbuf_prepend(m, VXLAN_TNL_HDR_LEN);
	m->ol_flags = ol_flags;
	m->packet_type = ptype;
	return false;
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

		if (!(m->ol_flags & RTE_MBUF_F_RX_FDIR_ID)) {
			b->pkts[kept++] = m;
			continue;
		}
		uint32_t mark = m->hash.fdir.hi;
		if (mark && mark <= pmd->max_marks)
			f = pmd->mark_table[mark];
		/* an unknown or stale mark, or a packet that is not what
		 * the mark's megaflow matches: the full path */
		if (!f || !mark_check_strip(pmd, m, f)) {
			pmd->stats.mark_fallbacks++;
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
		/* actions_need_no_key(): no keys, hashes or positions used.
		 * Packets of one group came in that order: order kept. */
		dp_execute(pmd, f, &g[k].b, NULL, NULL, NULL, 1);
	}
}
