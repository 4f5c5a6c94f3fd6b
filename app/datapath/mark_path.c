/* SPDX-License-Identifier: BSD-3-Clause
 * The mark path: a packet the NIC marked (a rule dp_offload.c asked for)
 * goes straight to its inner megaflow's actions, skipping the outer parse,
 * two hashes and two lookups (dp_offload.h says why a mark is only a
 * hint). Only the underlay port's bursts take it, before extract.
 */
#include <rte_ether.h>
#include <rte_mbuf.h>
#include "dp_snapshot.h"
#include "dp_stages.h"
#include "dpcls.h"
#include "miniflow.h"
#include "unaligned.h"
#include "vxlan_decap.h"
#include "vxlan_tnl.h"

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
mark_check_strip(const struct dp_ctx *ctx, struct rte_mbuf *m,
		 const struct megaflow *f)
{
	const struct dp_snapshot *s = ctx->snap;
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	struct flow_key key;

	/* Anything else (a VLAN tag, IP options, bytes past the UDP datagram
	 * that the strip would trim and could not put back) is rare: the
	 * full path handles it. */
	if (unlikely(rte_pktmbuf_data_len(m) < MK_MIN_LEN || !s->has_tunnel))
		return false;	/* no tunnel port (del-port): no decap */
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
	if (likely(miniflow_extract_fast(m, &key) >= 0 &&
		   flow_key_match(&key, &f->key, megaflow_mask(f))))
		return true;
	/* nothing was trimmed (pkt_len is the IPv4 length): undo the strip */
	rte_pktmbuf_prepend(m, VXLAN_TNL_HDR_LEN);
	m->ol_flags = ol_flags;
	m->packet_type = ptype;
	return false;
}

void
dp_mark_path(struct dp_ctx *ctx, struct pkt_batch *b)
{
	struct dp_flow_group g[BATCH_MAX];
	uint16_t n_groups = 0, kept = 0;
	uint32_t epoch = ++ctx->batch_epoch;
	uint64_t now = ctx->stage_tsc;

	for (uint16_t i = 0; i < b->n; i++) {
		struct rte_mbuf *m = b->pkts[i];
		struct megaflow *f = NULL;

		if (!(m->ol_flags & RTE_MBUF_F_RX_FDIR_ID)) {
			b->pkts[kept++] = m;
			continue;
		}
		uint32_t mark = m->hash.fdir.hi;
		if (mark && mark <= ctx->max_marks)
			f = ctx->mark_table[mark];
		/* an unknown or stale mark, or a packet that is not what
		 * the mark's megaflow matches: the full path */
		if (!f || !mark_check_strip(ctx, m, f)) {
			if (unlikely(ctx->trace))
				dp_trace_mark(ctx, m, mark, NULL);
			ctx->stats->mark_fallbacks++;
			b->pkts[kept++] = m;
			continue;
		}
		if (unlikely(ctx->trace))
			dp_trace_mark(ctx, m, mark, f);
		dp_group_add(g, &n_groups, epoch, f, m, i);
	}
	b->n = kept;

	for (uint16_t k = 0; k < n_groups; k++) {
		struct megaflow *f = g[k].flow;
		uint16_t n = g[k].b.n;
		struct pmd_port_stats *ps =
			&ctx->port_stats[ctx->snap->tnl_idx];

		f->n_packets += n;
		f->used_tsc = now;
		ctx->stats->mark_hits += n;
		ctx->stats->tunnel_pops += n;
		ps->rx_packets += n;
		for (uint16_t j = 0; j < n; j++)
			ps->rx_bytes += rte_pktmbuf_pkt_len(g[k].b.pkts[j]);
		/* actions_need_no_key() (dp_offload.c): no keys, hashes or
		 * positions used, and no tnl_pop.
		 * Packets of one group came in that order: order kept. */
		dp_execute(ctx, f, &g[k].b, NULL, NULL, NULL, NULL, 0);
	}
}
