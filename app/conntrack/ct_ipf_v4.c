/* SPDX-License-Identifier: BSD-3-Clause
 * IPv4 in the fragment store (ct_ipf_private.h): what a fragment says of
 * itself, checked as OVS's ipf_is_valid_v4_frag and ipf_v4_key_extract
 * (and a little more: a fragment that cannot be part of any datagram is
 * refused here); the reassembled packet's head (OVS's
 * ipf_reassemble_v4_frags); NAT decided on it carried into the fragments
 * (OVS's ipf_post_execute_reass_pkts). NAT is IPv4's alone.
 */
#include <string.h>
#include <rte_common.h>
#include <rte_ip.h>
#include "ct_ipf_private.h"

#define IPV4_MAX_LEN 65535u		/* total length, header included */

enum ct_ipf_counter
ipf_v4_parse(const struct ct_ipf *ipf, const struct rte_mbuf *m,
	     const struct ct_ipf_frag_in *in, struct frag_info *fi)
{
	if ((uint32_t)in->l3_ofs + sizeof(struct rte_ipv4_hdr) > m->data_len)
		return CT_IPF_MALFORMED;
	const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m,
				const struct rte_ipv4_hdr *, in->l3_ofs);
	uint32_t ihl = (ip->version_ihl & 0x0f) * 4u;
	uint32_t tot = rte_be_to_cpu_16(ip->total_length);
	uint16_t fo = rte_be_to_cpu_16(ip->fragment_offset);

	/* OVS: total length == L3 size; a frame may carry Ethernet padding
	 * past it, never less */
	if ((ip->version_ihl >> 4) != 4 || ihl < sizeof *ip ||
	    in->l3_ofs + ihl > m->data_len || tot <= ihl ||
	    in->l3_ofs + tot > rte_pktmbuf_pkt_len(m) ||
	    rte_ipv4_cksum(ip) != 0)
		return CT_IPF_MALFORMED;
	fi->more = fo & RTE_IPV4_HDR_MF_FLAG;
	fi->start = (uint32_t)(fo & RTE_IPV4_HDR_OFFSET_MASK) * 8;
	fi->end = fi->start + tot - ihl;
	fi->l4_ofs = (uint16_t)(in->l3_ofs + ihl);
	fi->nh_ofs = 0;
	/* not a fragment; past the largest datagram; a piece before the
	 * last that the next cannot follow (offsets count 8 bytes) */
	if ((!fi->more && !fi->start) ||
	    fi->end + sizeof *ip > IPV4_MAX_LEN ||
	    (fi->more && (fi->end - fi->start) % 8))
		return CT_IPF_MALFORMED;
	if (fi->more && tot < __atomic_load_n(&ipf->min_frag[0],
					      __ATOMIC_RELAXED))
		return CT_IPF_TOO_SMALL;
	memset(&fi->key, 0, sizeof fi->key);
	memcpy(fi->key.src, &ip->src_addr, 4);
	memcpy(fi->key.dst, &ip->dst_addr, 4);
	fi->key.ip_id = rte_cpu_to_be_32(rte_be_to_cpu_16(ip->packet_id));
	fi->key.zone = in->zone;
	fi->key.proto = ip->next_proto_id;
	fi->key.recirc_id = in->recirc_id;
	fi->key.dl_type = RTE_ETHER_TYPE_IPV4;
	return CT_IPF_ACCEPTED;
}

bool
ipf_v4_fits(const struct ct_ipf_dgram *dg)
{
	uint32_t ihl = dg->frags->l4_ofs - dg->frags->l3_ofs;

	return ihl + dg->end <= IPV4_MAX_LEN;
}

struct rte_mbuf *
ipf_v4_head(const struct ct_ipf_dgram *dg)
{
	const struct ipf_frag *first = dg->frags;

	/* the first fragment's bytes up to its payload's end (no padding):
	 * a copy, since the tracker may rewrite its headers */
	struct rte_mbuf *r = rte_pktmbuf_copy(first->m, first->m->pool, 0,
					      first->l4_ofs + first->end -
					      first->start);
	if (!r)
		return NULL;
	struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(r,
				struct rte_ipv4_hdr *, first->l3_ofs);
	ip->total_length = rte_cpu_to_be_16((uint16_t)(first->l4_ofs -
						       first->l3_ofs +
						       dg->end));
	ip->fragment_offset &= ~rte_cpu_to_be_16(RTE_IPV4_HDR_MF_FLAG);
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	return r;
}

void
ct_ipf_dgram_nat(struct ct_ipf_dgram *dg, const struct rte_mbuf *reass)
{
	const struct ipf_frag *first = dg->frags;

	if (ipf_key_v6(&dg->key)) {	/* NAT66 */
		ipf_v6_dgram_nat(dg, reass);
		return;
	}
	const struct rte_ipv4_hdr *rip = rte_pktmbuf_mtod_offset(reass,
				const struct rte_ipv4_hdr *, first->l3_ofs);
	for (const struct ipf_frag *f = first; f; f = f->next) {
		struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(f->m,
					struct rte_ipv4_hdr *, f->l3_ofs);
		if (ip->src_addr == rip->src_addr &&
		    ip->dst_addr == rip->dst_addr)
			continue;
		ip->src_addr = rip->src_addr;
		ip->dst_addr = rip->dst_addr;
		ip->hdr_checksum = 0;
		ip->hdr_checksum = rte_ipv4_cksum(ip);
	}
	/* the L4 header (ports, and the checksum of the whole datagram)
	 * rides in the first fragment, whose payload the copy starts with */
	uint32_t n = RTE_MIN(first->end - first->start,
			     (uint32_t)reass->data_len - first->l4_ofs);
	n = RTE_MIN(n, (uint32_t)first->m->data_len - first->l4_ofs);
	memcpy(rte_pktmbuf_mtod_offset(first->m, uint8_t *, first->l4_ofs),
	       rte_pktmbuf_mtod_offset(reass, const uint8_t *, first->l4_ofs),
	       n);
}
