/* SPDX-License-Identifier: BSD-3-Clause
 * IPv6 in the fragment store (ct_ipf_private.h), as OVS 3.1's ipf:
 *
 * A fragment (ipf_is_valid_v6_frag, ipf_v6_key_extract): the extension
 * headers walked as the tracker walks them (ct_ipv6_walk, ct_v6.c: OVS's
 * parse_ipv6_ext_hdrs, as the flow extract; an atomic Fragment header,
 * offset 0 and M clear, is not a fragment's and the walk goes on past
 * it) to the Fragment header; the datagram's key is the addresses, the
 * 32-bit identification, zone and recirc id (no protocol: a later
 * fragment does not say it, OVS keys 0). Its piece is everything after
 * the Fragment header, at the header's offset. Refused (malformed): the
 * payload length past the frame (OVS: not the L3 size), a header cut
 * short in the first segment (OVS: parse_ipv6_ext_hdrs fails), no
 * Fragment header, a piece before the last that is not a multiple of 8
 * bytes or an empty one (RFC 8200 4.5), one whose piece ends past what a
 * packet can carry; a piece
 * before the last whose packet (IPv6 header included) is shorter than
 * min-frag (too small, OVS's IPF_NFRAGS_TOO_SMALL: 1280 by default, 400
 * at least).
 *
 * The reassembled packet (ipf_reassemble_v6_frags): the first fragment's
 * unfragmentable part (IPv6 header and the extension headers before the
 * Fragment header), then the pieces in order; the Fragment header is
 * gone, the header before it names what it named, the payload length is
 * the whole datagram's. OVS 3.1 leaves the Fragment header in place with
 * its offset cleared and the base header's next header set to the L4
 * protocol, which its tracker copes with because it reads the L4 offset
 * kept from the first fragment; here the packet is what the sender's
 * datagram was, and the tracker walks it as any packet (ct_v6.c). At most
 * 65535 bytes of payload (OVS: "Unsupported big reassembled v6 packet").
 */
#include <string.h>
#include <rte_common.h>
#include "ct_ipf_private.h"
#include "ct_private.h"

#define IPV6_HLEN 40
#define IPV6_FRAG_HLEN 8
#define IPV6_MAX_PAYLOAD 65535u
#define OFFLG_OFFSET 0xfff8		/* ip6f_offlg: the offset, in bytes */
#define OFFLG_MORE 0x0001		/* M: not the last */

enum ct_ipf_counter
ipf_v6_parse(const struct ct_ipf *ipf, const struct rte_mbuf *m,
	     const struct ct_ipf_frag_in *in, struct frag_info *fi)
{
	if ((uint32_t)in->l3_ofs + IPV6_HLEN > m->data_len)
		return CT_IPF_MALFORMED;
	const uint8_t *ip6 = rte_pktmbuf_mtod_offset(m, const uint8_t *,
						     in->l3_ofs);
	uint32_t end = IPV6_HLEN + (uint32_t)(ip6[4] << 8 | ip6[5]);
	uint32_t ofs, fhs[2];
	uint8_t proto, frag;

	/* the payload within the frame (Ethernet padding may follow); the
	 * headers within the first segment, none cut short (OVS's
	 * parse_ipv6_ext_hdrs), a Fragment header among them */
	if ((ip6[0] >> 4) != 6 || end > rte_pktmbuf_pkt_len(m) - in->l3_ofs ||
	    ct_ipv6_walk(ip6, RTE_MIN(end, (uint32_t)m->data_len - in->l3_ofs),
			 &proto, &frag, &ofs, fhs) < 0 ||
	    !(frag & FLOW_NW_FRAG_ANY))
		return CT_IPF_MALFORMED;
	uint32_t fh = fhs[0], nh = fhs[1];
	const uint8_t *h = ip6 + fh;
	uint16_t offlg = (uint16_t)(h[2] << 8 | h[3]);
	uint32_t len = end - fh - IPV6_FRAG_HLEN;

	fi->more = offlg & OFFLG_MORE;
	fi->start = offlg & OFFLG_OFFSET;
	fi->end = fi->start + len;
	fi->l4_ofs = (uint16_t)(in->l3_ofs + fh + IPV6_FRAG_HLEN);
	fi->nh_ofs = (uint16_t)(in->l3_ofs + nh);
	/* only reserved bits set (the flow says fragment, OVS's ipf does
	 * not take it: its tracker finds it +inv); empty; past the largest
	 * payload; a piece before the last the next cannot follow */
	if ((!fi->more && !fi->start) || !len ||
	    fh - IPV6_HLEN + fi->end > IPV6_MAX_PAYLOAD ||
	    (fi->more && len % 8))
		return CT_IPF_MALFORMED;
	if (fi->more && end < __atomic_load_n(&ipf->min_frag[1],
					      __ATOMIC_RELAXED))
		return CT_IPF_TOO_SMALL;
	memset(&fi->key, 0, sizeof fi->key);
	memcpy(fi->key.src, ip6 + 8, 16);
	memcpy(fi->key.dst, ip6 + 24, 16);
	memcpy(&fi->key.ip_id, h + 4, 4);
	fi->key.zone = in->zone;
	fi->key.recirc_id = in->recirc_id;
	fi->key.dl_type = RTE_ETHER_TYPE_IPV6;
	return CT_IPF_ACCEPTED;
}

/* The first fragment's extension headers before its Fragment header. */
static inline uint32_t
unfrag_ext_len(const struct ipf_frag *first)
{
	return first->l4_ofs - IPV6_FRAG_HLEN - first->l3_ofs - IPV6_HLEN;
}

bool
ipf_v6_fits(const struct ct_ipf_dgram *dg)
{
	return unfrag_ext_len(dg->frags) + dg->end <= IPV6_MAX_PAYLOAD;
}

struct rte_mbuf *
ipf_v6_head(const struct ct_ipf_dgram *dg)
{
	const struct ipf_frag *first = dg->frags;
	uint32_t fh = first->l4_ofs - IPV6_FRAG_HLEN;
	struct rte_mbuf *r = rte_pktmbuf_copy(first->m, first->m->pool, 0,
					      first->l4_ofs + first->end -
					      first->start);

	if (!r)
		return NULL;
	if (r->data_len < first->l4_ofs) {	/* headers past a segment */
		rte_pktmbuf_free(r);
		return NULL;
	}
	/* the header before the Fragment header names what it named; the
	 * bytes before it move up over it */
	uint8_t *p = rte_pktmbuf_mtod(r, uint8_t *);
	p[first->nh_ofs] = p[fh];
	memmove(p + IPV6_FRAG_HLEN, p, fh);
	rte_pktmbuf_adj(r, IPV6_FRAG_HLEN);
	uint8_t *ip6 = rte_pktmbuf_mtod_offset(r, uint8_t *, first->l3_ofs);
	uint32_t plen = unfrag_ext_len(first) + dg->end;
	ip6[4] = (uint8_t)(plen >> 8);
	ip6[5] = (uint8_t)plen;
	return r;
}

void
ipf_v6_dgram_nat(struct ct_ipf_dgram *dg, const struct rte_mbuf *reass)
{
	const struct ipf_frag *first = dg->frags;
	const uint8_t *rip = rte_pktmbuf_mtod_offset(reass, const uint8_t *,
						     first->l3_ofs);
	uint32_t r4 = first->l4_ofs - IPV6_FRAG_HLEN;

	for (const struct ipf_frag *f = first; f; f = f->next)
		memcpy(rte_pktmbuf_mtod_offset(f->m, uint8_t *, f->l3_ofs) + 8,
		       rip + 8, 32);	/* source and destination */
	if (reass->data_len <= r4)
		return;
	uint32_t n = RTE_MIN(first->end - first->start,
			     (uint32_t)reass->data_len - r4);
	n = RTE_MIN(n, (uint32_t)first->m->data_len - first->l4_ofs);
	memcpy(rte_pktmbuf_mtod_offset(first->m, uint8_t *, first->l4_ofs),
	       rte_pktmbuf_mtod_offset(reass, const uint8_t *, r4), n);
}
