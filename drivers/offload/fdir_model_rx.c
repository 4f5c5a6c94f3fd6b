/* SPDX-License-Identifier: BSD-3-Clause
 * The software Flow Director's receive side: the NIC's packet parser and
 * match, run per packet on the PMDs from an ethdev rx callback, marking
 * mbufs exactly as ice_rxtx.c does. Lock-free: rules are read under RCU.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <rte_byteorder.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_malloc.h>
#include <rte_udp.h>
#include "fdir_model_priv.h"

/* ---- rx: the NIC's parser and match ---- */

/* Non-fragmented IPv4 at off; returns its header length or 0. */
static inline uint32_t
ipv4_ok(const struct rte_mbuf *mb, uint32_t off, struct rte_ipv4_hdr *ip)
{
	const struct rte_ipv4_hdr *p =
		rte_pktmbuf_read(mb, off, sizeof *ip, ip);
	uint32_t hl;

	if (!p)
		return 0;
	if (p != ip)
		*ip = *p;
	if ((ip->version_ihl >> 4) != 4)
		return 0;
	hl = (ip->version_ihl & 0xf) * 4u;
	if (hl < sizeof *ip || off + hl > rte_pktmbuf_pkt_len(mb))
		return 0;
	/* MF or an offset: a fragment, another packet type on the NIC */
	if (ip->fragment_offset & RTE_BE16(RTE_IPV4_HDR_MF_FLAG |
					   RTE_IPV4_HDR_OFFSET_MASK))
		return 0;
	return hl;
}

/* The L3 offset of an IPv4 frame at off, or 0. The E810's parser reads
 * past VLAN tags: a tagged packet gets the packet type of its untagged
 * form, so an eth/ipv4 rule (with no vlan item) matches it too (issue 14;
 * ice_ptypes_mac_ofos and the IPv4 packet types do not tell tagged from
 * untagged). One 802.1Q tag, or an 802.1ad (or 802.1Q) outer tag with an
 * 802.1Q inner one (QinQ, the double VLAN mode E810 packages default to):
 * inferred, not seen on a card. */
#define FDIR_MAX_VLAN_TAGS 2

static inline uint32_t
eth_ipv4(const struct rte_mbuf *mb, uint32_t off, bool tags_ok)
{
	struct rte_ether_hdr eb;
	const struct rte_ether_hdr *e = rte_pktmbuf_read(mb, off, sizeof eb,
							 &eb);
	rte_be16_t type;

	if (!e)
		return 0;
	type = e->ether_type;
	off += sizeof eb;
	for (unsigned n = 0; tags_ok && n < FDIR_MAX_VLAN_TAGS &&
	     (type == RTE_BE16(RTE_ETHER_TYPE_VLAN) ||
	      (n == 0 && type == RTE_BE16(RTE_ETHER_TYPE_QINQ))); n++) {
		struct rte_vlan_hdr vb;
		const struct rte_vlan_hdr *v =
			rte_pktmbuf_read(mb, off, sizeof vb, &vb);

		if (!v)
			return 0;
		type = v->eth_proto;
		off += sizeof vb;
	}
	return type == RTE_BE16(RTE_ETHER_TYPE_IPV4) ? off : 0;
}

/* What the NIC's parser extracts from a packet. */
struct pkt_fields {
	rte_be32_t o_src, o_dst;
	rte_be16_t sport, dport;	/* outer UDP */
	uint32_t vni;
	rte_be32_t i_src, i_dst;
	bool inner_udp;			/* inner IPv4 carries UDP */
	rte_be16_t i_sport, i_dport;
};

/* Fills f; returns the packet's class: OFFLOAD_FT_IPV4_UDP (plain UDP),
 * OFFLOAD_FT_VXLAN_IPV4 (UDP to the registered tunnel port, VXLAN, inner
 * IPv4), or -1 (no FDIR rule of ours can match it). */
static inline int
pkt_parse(const struct fdir_model *m, const struct rte_mbuf *mb,
	  struct pkt_fields *f)
{
	struct rte_ipv4_hdr ip;
	struct rte_udp_hdr ub;
	const struct rte_udp_hdr *u;
	uint32_t off, hl;
	rte_be16_t tport = __atomic_load_n(&m->tunnel_port, __ATOMIC_ACQUIRE);

	if (!(off = eth_ipv4(mb, 0, true)) || !(hl = ipv4_ok(mb, off, &ip)) ||
	    ip.next_proto_id != IPPROTO_UDP)
		return -1;
	f->o_src = ip.src_addr;
	f->o_dst = ip.dst_addr;
	off += hl;
	u = rte_pktmbuf_read(mb, off, sizeof ub, &ub);
	if (!u)
		return -1;
	f->sport = u->src_port;
	f->dport = u->dst_port;
	/* no tunnel port registered: 4789 is plain UDP to the NIC */
	if (!tport || u->dst_port != tport)
		return OFFLOAD_FT_IPV4_UDP;

	/* the tunnel port: a VXLAN packet type, never plain IPV4_UDP */
	struct rte_vxlan_hdr vb;
	const struct rte_vxlan_hdr *v;

	off += sizeof ub;
	v = rte_pktmbuf_read(mb, off, sizeof vb, &vb);
	if (!v)
		return -1;
	f->vni = rte_be_to_cpu_32(v->vx_vni) >> 8;
	off += sizeof vb;
	/* inner tags: not known, the model does not match them */
	if (!(off = eth_ipv4(mb, off, false)) || !(hl = ipv4_ok(mb, off, &ip)))
		return -1;
	f->i_src = ip.src_addr;
	f->i_dst = ip.dst_addr;
	if (ip.next_proto_id == IPPROTO_UDP &&
	    (u = rte_pktmbuf_read(mb, off + hl, sizeof ub, &ub))) {
		f->inner_udp = true;
		f->i_sport = u->src_port;
		f->i_dport = u->dst_port;
	}
	return OFFLOAD_FT_VXLAN_IPV4;
}

/* Which profile a tunnel packet with inner IPv4/UDP goes to. The plain
 * eth/ipv4/udp profile is a single segment: its packet types are every
 * type whose first IPv4 is IPv4 and whose innermost L4 is UDP
 * (base/ice_flow.c ice_flow_proc_seg_hdrs v22.11.11:1166, 1198:
 * ice_ptypes_ipv4_ofos & ice_ptypes_udp_il), which includes VXLAN packets
 * carrying UDP, and it extracts the first IPv4 header and the innermost
 * UDP ports (ICE_PROT_IPV4_OF_OR_S, ICE_PROT_UDP_IL_OR_S; :1399, 1495).
 * The VXLAN profile's types (outer IPv4 + inner IPv4, any L4) overlap it
 * there; the profile programmed last owns the overlap: ice_adj_prof_
 * priorities (base/ice_flex_pipe.c 22.11.11:3883-3960) enables each packet
 * type group in the newest profile only (research guide 4.3; inferred
 * from the code, not seen on a card). Profiles stay after their last rule
 * up to 26.03 (prof_seq). */
static inline bool
plain_owns_tunnel_udp(struct fdir_model *m)
{
	uint64_t plain = __atomic_load_n(&m->prof_seq[OFFLOAD_FT_IPV4_UDP],
					 __ATOMIC_ACQUIRE);
	uint64_t vx = __atomic_load_n(&m->prof_seq[OFFLOAD_FT_VXLAN_IPV4],
				      __ATOMIC_ACQUIRE);

	return plain > vx;
}

uint16_t
fdir_model_rx_mark(struct fdir_model *m, uint16_t queue,
		   struct rte_mbuf **pkts, uint16_t n)
{
	uint64_t marked = 0, misq = 0;

	for (uint16_t i = 0; i < n; i++) {
		struct pkt_fields f;
		struct fdir_key k;
		struct fdir_model_rule *r;
		int t;

		memset(&f, 0, sizeof f);
		t = pkt_parse(m, pkts[i], &f);
		if (t < 0)
			continue;
		if (t == OFFLOAD_FT_VXLAN_IPV4 && f.inner_udp &&
		    plain_owns_tunnel_udp(m)) {
			/* read as the plain profile reads it */
			t = OFFLOAD_FT_IPV4_UDP;
			f.sport = f.i_sport;
			f.dport = f.i_dport;
		}
		uint32_t is = __atomic_load_n(&m->inset[t], __ATOMIC_ACQUIRE);

		if (!is)
			continue;
		memset(&k, 0, sizeof k);
		k.type = t;
		k.inset = is;
		if (is & IS_O_SRC)
			k.o_src = f.o_src;
		if (is & IS_O_DST)
			k.o_dst = f.o_dst;
		if (is & IS_SPORT)
			k.sport = f.sport;
		if (is & IS_DPORT)
			k.dport = f.dport;
		if (is & IS_VNI)
			k.vni = f.vni;
		if (is & IS_I_SRC)
			k.i_src = f.i_src;
		if (is & IS_I_DST)
			k.i_dst = f.i_dst;
		r = fdir_model_table_find(m, &k);
		if (!r)
			continue;
		/* ice_rxtx.c: flow_id != 0xFFFFFFFF */
		pkts[i]->hash.fdir.hi = r->mark;
		pkts[i]->ol_flags |= RTE_MBUF_F_RX_FDIR |
				     RTE_MBUF_F_RX_FDIR_ID;
		marked++;
		if (r->q_num && queue != UINT16_MAX &&
		    (queue < r->q_first || queue >= r->q_first + r->q_num))
			misq++;
	}
	if (marked)
		__atomic_fetch_add(&m->st.pkts_marked, marked,
				   __ATOMIC_RELAXED);
	if (misq)
		__atomic_fetch_add(&m->st.rss_misqueued, misq,
				   __ATOMIC_RELAXED);
	return n;
}

/* ---- the ethdev hook ---- */

static uint16_t
rx_cb(uint16_t port, uint16_t queue, struct rte_mbuf *pkts[], uint16_t n,
      uint16_t max, void *arg)
{
	(void)port;
	(void)max;
	return fdir_model_rx_mark(arg, queue, pkts, n);
}

int
fdir_model_attach(struct fdir_model *m, uint16_t port, uint16_t n_queues)
{
	if (m->n_cbs || n_queues > RTE_MAX_QUEUES_PER_PORT)
		return -EINVAL;
	m->cb_port = port;
	for (uint16_t q = 0; q < n_queues; q++) {
		m->cbs[q] = rte_eth_add_rx_callback(port, q, rx_cb, m);
		if (!m->cbs[q]) {
			int err = rte_errno ? rte_errno : EINVAL;

			m->n_cbs = q;
			fdir_model_detach(m);
			return -err;
		}
	}
	m->n_cbs = n_queues;
	return 0;
}

void
fdir_model_detach(struct fdir_model *m)
{
	for (uint16_t q = 0; q < m->n_cbs; q++)
		if (m->cbs[q])
			rte_eth_remove_rx_callback(m->cb_port, q, m->cbs[q]);
	/* The callbacks' memory belongs to ethdev, which leaves freeing it
	 * to us; after the readers' grace period it is unused. */
	if (m->n_cbs && m->qsbr)
		rte_rcu_qsbr_synchronize(m->qsbr, RTE_QSBR_THRID_INVALID);
	for (uint16_t q = 0; q < m->n_cbs; q++) {
		rte_free((void *)(uintptr_t)m->cbs[q]);
		m->cbs[q] = NULL;
	}
	m->n_cbs = 0;
}
