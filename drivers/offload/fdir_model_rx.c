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

static inline bool
eth_ipv4(const struct rte_mbuf *mb, uint32_t off)
{
	struct rte_ether_hdr eb;
	const struct rte_ether_hdr *e = rte_pktmbuf_read(mb, off, sizeof eb,
							 &eb);

	return e && e->ether_type == RTE_BE16(RTE_ETHER_TYPE_IPV4);
}

/* Fills the packet's fields; returns its flow type or -1. */
static inline int
pkt_parse(const struct fdir_model *m, const struct rte_mbuf *mb,
	  struct fdir_key *k)
{
	struct rte_ipv4_hdr ip;
	struct rte_udp_hdr ub;
	const struct rte_udp_hdr *u;
	uint32_t off = sizeof(struct rte_ether_hdr), hl;

	if (!eth_ipv4(mb, 0) || !(hl = ipv4_ok(mb, off, &ip)) ||
	    ip.next_proto_id != IPPROTO_UDP)
		return -1;
	k->o_src = ip.src_addr;
	k->o_dst = ip.dst_addr;
	off += hl;
	u = rte_pktmbuf_read(mb, off, sizeof ub, &ub);
	if (!u)
		return -1;
	k->sport = u->src_port;
	k->dport = u->dst_port;
	if (u->dst_port != m->vxlan_port)
		return OFFLOAD_FT_IPV4_UDP;

	/* the tunnel port: a VXLAN packet type, never plain IPV4_UDP */
	struct rte_vxlan_hdr vb;
	const struct rte_vxlan_hdr *v;

	off += sizeof ub;
	v = rte_pktmbuf_read(mb, off, sizeof vb, &vb);
	if (!v)
		return -1;
	k->vni = rte_be_to_cpu_32(v->vx_vni) >> 8;
	off += sizeof vb;
	if (!eth_ipv4(mb, off))
		return -1;
	off += sizeof(struct rte_ether_hdr);
	if (!ipv4_ok(mb, off, &ip))
		return -1;
	k->i_src = ip.src_addr;
	k->i_dst = ip.dst_addr;
	return OFFLOAD_FT_VXLAN_IPV4;
}

uint16_t
fdir_model_rx_mark(struct fdir_model *m, uint16_t queue,
		   struct rte_mbuf **pkts, uint16_t n)
{
	uint64_t marked = 0, misq = 0;

	for (uint16_t i = 0; i < n; i++) {
		struct fdir_key f, k;
		struct fdir_model_rule *r;
		int t;

		memset(&f, 0, sizeof f);
		t = pkt_parse(m, pkts[i], &f);
		if (t < 0)
			continue;
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
