/* SPDX-License-Identifier: BSD-3-Clause
 * Fragments for the fragment store's tests (test_ct_ipf.c,
 * test_ct_ipf6.c, test_dp_ipf.c): a whole datagram (UDP or ICMP echo,
 * correct checksums; IPv4, or IPv6 with or without a hop-by-hop header
 * before the Fragment header) built in memory, then cut into Ethernet
 * frames the way a sender's stack cuts it, each fragment's piece a
 * multiple of 8 but the last's.
 */
#ifndef VXS_FRAG_BUILD_H
#define VXS_FRAG_BUILD_H

#include <stdlib.h>
#include <string.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_udp.h>

#define FRAG_MAX 64

/* A datagram in memory: its IPv4 header and L4 bytes, contiguous. */
struct frag_dgram {
	uint8_t *ip;			/* 20-byte header, then l4 */
	uint32_t l4_len;
	struct rte_ether_addr src_mac, dst_mac;
};

static inline uint8_t
frag_byte(uint32_t i)
{
	return (uint8_t)(i * 7 + (i >> 8));
}

/* UDP from src:sp to dst:dp with len payload bytes, IP id id (addresses
 * and ports host order). */
static inline void
frag_dgram_udp(struct frag_dgram *d, uint32_t src, uint32_t dst, uint16_t sp,
	       uint16_t dp, uint16_t id, uint32_t len)
{
	memset(d, 0, sizeof *d);	/* MACs zero unless the caller sets */
	d->l4_len = 8 + len;
	d->ip = calloc(1, 20 + d->l4_len);
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)d->ip;
	struct rte_udp_hdr *u = (struct rte_udp_hdr *)(d->ip + 20);
	ip->version_ihl = 0x45;
	ip->total_length = rte_cpu_to_be_16((uint16_t)(20 + d->l4_len));
	ip->packet_id = rte_cpu_to_be_16(id);
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = rte_cpu_to_be_32(src);
	ip->dst_addr = rte_cpu_to_be_32(dst);
	u->src_port = rte_cpu_to_be_16(sp);
	u->dst_port = rte_cpu_to_be_16(dp);
	u->dgram_len = rte_cpu_to_be_16((uint16_t)d->l4_len);
	for (uint32_t i = 0; i < len; i++)
		d->ip[28 + i] = frag_byte(i);
	u->dgram_cksum = rte_ipv4_udptcp_cksum(ip, u);
}

/* An ICMP echo (type 8 request, 0 reply) with echo id eid and len data
 * bytes. */
static inline void
frag_dgram_icmp(struct frag_dgram *d, uint32_t src, uint32_t dst,
		uint8_t type, uint16_t eid, uint16_t id, uint32_t len)
{
	memset(d, 0, sizeof *d);
	d->l4_len = 8 + len;
	d->ip = calloc(1, 20 + d->l4_len);
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)d->ip;
	uint8_t *icmp = d->ip + 20;
	ip->version_ihl = 0x45;
	ip->total_length = rte_cpu_to_be_16((uint16_t)(20 + d->l4_len));
	ip->packet_id = rte_cpu_to_be_16(id);
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_ICMP;
	ip->src_addr = rte_cpu_to_be_32(src);
	ip->dst_addr = rte_cpu_to_be_32(dst);
	icmp[0] = type;
	icmp[4] = eid >> 8;
	icmp[5] = eid & 0xff;
	for (uint32_t i = 0; i < len; i++)
		icmp[8 + i] = frag_byte(i);
	uint16_t c = (uint16_t)~rte_raw_cksum(icmp, d->l4_len);
	memcpy(icmp + 2, &c, 2);
}

static inline void
frag_dgram_free(struct frag_dgram *d)
{
	free(d->ip);
	d->ip = NULL;
}

/* The fragment of d holding L4 bytes [off, off + len) (off a multiple of
 * 8; more: MF set) as an Ethernet frame from pool. */
static inline struct rte_mbuf *
frag_piece(const struct frag_dgram *d, struct rte_mempool *pool, uint32_t off,
	   uint32_t len, bool more)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint8_t *p = m ? (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(14 + 20 +
								    len))
		       : NULL;
	if (!p)
		return m;
	struct rte_ether_hdr *e = (struct rte_ether_hdr *)p;
	e->dst_addr = d->dst_mac;
	e->src_addr = d->src_mac;
	e->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV4);
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(p + 14);
	memcpy(ip, d->ip, 20);
	ip->total_length = rte_cpu_to_be_16((uint16_t)(20 + len));
	ip->fragment_offset = rte_cpu_to_be_16((uint16_t)(off / 8 |
					(more ? RTE_IPV4_HDR_MF_FLAG : 0)));
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	memcpy(p + 34, d->ip + 20 + off, len);
	return m;
}

/* d cut into fragments of at most frag L4 bytes each (a multiple of 8),
 * in offset order into out[]; returns how many. */
static inline uint16_t
frag_cut(const struct frag_dgram *d, struct rte_mempool *pool, uint32_t frag,
	 struct rte_mbuf *out[])
{
	uint16_t n = 0;

	for (uint32_t off = 0; off < d->l4_len && n < FRAG_MAX; off += frag) {
		uint32_t len = RTE_MIN(frag, d->l4_len - off);
		out[n++] = frag_piece(d, pool, off, len, off + len < d->l4_len);
	}
	return n;
}

/* The L4 bytes of a whole datagram read back from its fragments (in any
 * order; n of them) into buf (l4_len bytes); the IPv4 header of the one
 * at offset 0 into hdr. false if a byte is missing. */
static inline bool
frag_glue(struct rte_mbuf *const frags[], uint16_t n, uint8_t *buf,
	  uint32_t l4_len, struct rte_ipv4_hdr *hdr)
{
	uint32_t got = 0;

	for (uint16_t i = 0; i < n; i++) {
		const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(
			frags[i], const struct rte_ipv4_hdr *, 14);
		uint32_t off = (rte_be_to_cpu_16(ip->fragment_offset) &
				RTE_IPV4_HDR_OFFSET_MASK) * 8u;
		uint32_t len = rte_be_to_cpu_16(ip->total_length) - 20u;
		if (off + len > l4_len)
			return false;
		memcpy(buf + off, (const uint8_t *)(ip + 1), len);
		if (!off)
			*hdr = *ip;
		got += len;
	}
	return got == l4_len;
}

/* Is the L4 checksum of the datagram glued from frags (UDP: with the
 * pseudo-header of hdr) right? */
static inline bool
frag_l4_csum_ok(const uint8_t *l4, uint32_t l4_len,
		const struct rte_ipv4_hdr *hdr)
{
	uint32_t s = rte_raw_cksum(l4, l4_len);
	if (hdr->next_proto_id == IPPROTO_UDP ||
	    hdr->next_proto_id == IPPROTO_TCP) {
		struct rte_ipv4_hdr h = *hdr;
		h.total_length = rte_cpu_to_be_16((uint16_t)(20 + l4_len));
		h.fragment_offset = 0;
		s += rte_ipv4_phdr_cksum(&h, 0);
	}
	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	return s == 0xffff;
}

/* ---- IPv6 ---------------------------------------------------------------- */

#define FRAG6_HOP_LEN 8		/* the hop-by-hop header frag6_dgram_* add */

/* An IPv6 datagram in memory: its header, the extension headers before
 * where a Fragment header goes (ext_len bytes: none, or a hop-by-hop
 * header), then the fragmentable part (l4_len bytes: the L4 header and
 * data), contiguous; as one packet, unfragmented. */
struct frag6_dgram {
	uint8_t *ip;
	uint32_t ext_len, l4_len;
	uint8_t proto;			/* the L4 protocol */
	uint32_t ident;			/* the Fragment header's */
	struct rte_ether_addr src_mac, dst_mac;
};

/* The L4 checksum at csum over the pseudo-header of d. */
static inline void
frag6_csum(struct frag6_dgram *d, uint32_t csum)
{
	uint8_t *l4 = d->ip + 40 + d->ext_len;
	struct {
		uint8_t a[32];
		rte_be32_t len;
		uint8_t z[3], nh;
	} __rte_packed ph = { .len = rte_cpu_to_be_32(d->l4_len),
			      .nh = d->proto };

	memcpy(ph.a, d->ip + 8, 32);
	l4[csum] = l4[csum + 1] = 0;
	uint32_t s = rte_raw_cksum(&ph, sizeof ph) +
		     rte_raw_cksum(l4, d->l4_len);
	s = (s & 0xffff) + (s >> 16);
	uint16_t c = (uint16_t)~((s & 0xffff) + (s >> 16));
	memcpy(l4 + csum, &c, 2);
}

/* The IPv6 header and (hop) a hop-by-hop header of d, for an L4 part of
 * l4_len bytes; returns the L4 part, zeroed. */
static inline uint8_t *
frag6_dgram_init(struct frag6_dgram *d, const uint8_t src[16],
		 const uint8_t dst[16], uint8_t proto, uint32_t ident,
		 uint32_t l4_len, bool hop)
{
	memset(d, 0, sizeof *d);
	d->ext_len = hop ? FRAG6_HOP_LEN : 0;
	d->l4_len = l4_len;
	d->proto = proto;
	d->ident = ident;
	d->ip = calloc(1, 40 + d->ext_len + l4_len);
	uint32_t plen = d->ext_len + l4_len;
	d->ip[0] = 0x60;
	d->ip[4] = (uint8_t)(plen >> 8);
	d->ip[5] = (uint8_t)plen;
	d->ip[6] = hop ? 0 : proto;	/* 0: hop-by-hop */
	d->ip[7] = 64;
	memcpy(d->ip + 8, src, 16);
	memcpy(d->ip + 24, dst, 16);
	if (hop) {			/* next header, length 0, PadN */
		d->ip[40] = proto;
		d->ip[42] = 1;
		d->ip[43] = 4;
	}
	return d->ip + 40 + d->ext_len;
}

/* UDP from src:sp to dst:dp with len payload bytes (at most 65527). */
static inline void
frag6_dgram_udp(struct frag6_dgram *d, const uint8_t src[16],
		const uint8_t dst[16], uint16_t sp, uint16_t dp,
		uint32_t ident, uint32_t len, bool hop)
{
	uint8_t *u = frag6_dgram_init(d, src, dst, IPPROTO_UDP, ident,
				      8 + len, hop);
	u[0] = (uint8_t)(sp >> 8);
	u[1] = (uint8_t)sp;
	u[2] = (uint8_t)(dp >> 8);
	u[3] = (uint8_t)dp;
	u[4] = (uint8_t)((8 + len) >> 8);
	u[5] = (uint8_t)(8 + len);
	for (uint32_t i = 0; i < len; i++)
		u[8 + i] = frag_byte(i);
	frag6_csum(d, 6);
}

/* An ICMPv6 echo (type 128 request, 129 reply), echo id eid. */
static inline void
frag6_dgram_icmp(struct frag6_dgram *d, const uint8_t src[16],
		 const uint8_t dst[16], uint8_t type, uint16_t eid,
		 uint32_t ident, uint32_t len)
{
	uint8_t *icmp = frag6_dgram_init(d, src, dst, IPPROTO_ICMPV6, ident,
					 8 + len, false);
	icmp[0] = type;
	icmp[4] = (uint8_t)(eid >> 8);
	icmp[5] = (uint8_t)eid;
	for (uint32_t i = 0; i < len; i++)
		icmp[8 + i] = frag_byte(i);
	frag6_csum(d, 2);
}

static inline void
frag6_dgram_free(struct frag6_dgram *d)
{
	free(d->ip);
	d->ip = NULL;
}

/* An Ethernet frame of d's MACs for len bytes of IPv6 at *p, one mbuf
 * from pool (*p NULL if they do not fit it). */
static inline struct rte_mbuf *
frag6_frame(const struct frag6_dgram *d, struct rte_mempool *pool,
	    uint32_t len, uint8_t **p)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);

	*p = m && 14 + len <= rte_pktmbuf_tailroom(m) ?
	     (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(14 + len)) : NULL;
	if (!*p)
		return m;
	struct rte_ether_hdr *e = (struct rte_ether_hdr *)*p;
	e->dst_addr = d->dst_mac;
	e->src_addr = d->src_mac;
	e->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV6);
	*p += 14;
	return m;
}

/* d unfragmented, as one frame. */
static inline struct rte_mbuf *
frag6_whole(const struct frag6_dgram *d, struct rte_mempool *pool)
{
	uint8_t *p;
	uint32_t len = 40 + d->ext_len + d->l4_len;
	struct rte_mbuf *m = frag6_frame(d, pool, len, &p);

	if (p)
		memcpy(p, d->ip, len);
	return m;
}

/* The fragment of d holding L4 bytes [off, off + len) (off a multiple of
 * 8; more: M set) with offlg's reserved bits rsv, as a frame. */
static inline struct rte_mbuf *
frag6_piece_rsv(const struct frag6_dgram *d, struct rte_mempool *pool,
		uint32_t off, uint32_t len, bool more, uint16_t rsv)
{
	uint8_t *p;
	uint32_t hdrs = 40 + d->ext_len;
	struct rte_mbuf *m = frag6_frame(d, pool, hdrs + 8 + len, &p);

	if (!p)
		return m;
	memcpy(p, d->ip, hdrs);
	uint32_t plen = d->ext_len + 8 + len;
	p[4] = (uint8_t)(plen >> 8);
	p[5] = (uint8_t)plen;
	p[d->ext_len ? 40 : 6] = 44;	/* names the Fragment header */
	uint8_t *fh = p + hdrs;
	uint16_t offlg = (uint16_t)(off | rsv | (more ? 1 : 0));
	fh[0] = d->proto;
	fh[1] = 0;
	fh[2] = (uint8_t)(offlg >> 8);
	fh[3] = (uint8_t)offlg;
	fh[4] = (uint8_t)(d->ident >> 24);
	fh[5] = (uint8_t)(d->ident >> 16);
	fh[6] = (uint8_t)(d->ident >> 8);
	fh[7] = (uint8_t)d->ident;
	memcpy(fh + 8, d->ip + hdrs + off, len);
	return m;
}

static inline struct rte_mbuf *
frag6_piece(const struct frag6_dgram *d, struct rte_mempool *pool,
	    uint32_t off, uint32_t len, bool more)
{
	return frag6_piece_rsv(d, pool, off, len, more, 0);
}

/* d cut into fragments of at most frag L4 bytes each (a multiple of 8),
 * in offset order into out[]; returns how many. */
static inline uint16_t
frag6_cut(const struct frag6_dgram *d, struct rte_mempool *pool,
	  uint32_t frag, struct rte_mbuf *out[])
{
	uint16_t n = 0;

	for (uint32_t off = 0; off < d->l4_len && n < FRAG_MAX; off += frag) {
		uint32_t len = RTE_MIN(frag, d->l4_len - off);
		out[n++] = frag6_piece(d, pool, off, len,
				       off + len < d->l4_len);
	}
	return n;
}

/* The fragmentable part of d read back from n of its fragments (any
 * order) into buf (l4_len bytes); false if a byte is missing. */
static inline bool
frag6_glue(const struct frag6_dgram *d, struct rte_mbuf *const frags[],
	   uint16_t n, uint8_t *buf)
{
	uint32_t got = 0, hdrs = 14 + 40 + d->ext_len;

	for (uint16_t i = 0; i < n; i++) {
		const uint8_t *p = rte_pktmbuf_mtod(frags[i], const uint8_t *);
		uint32_t off = (uint32_t)(p[hdrs + 2] << 8 | p[hdrs + 3]) &
			       0xfff8;
		uint32_t len = (uint32_t)(p[18] << 8 | p[19]) - d->ext_len - 8;
		if (p[14 + (d->ext_len ? 40 : 6)] != 44 ||
		    off + len > d->l4_len)
			return false;
		memcpy(buf + off, p + hdrs + 8, len);
		got += len;
	}
	return got == d->l4_len;
}

#endif
