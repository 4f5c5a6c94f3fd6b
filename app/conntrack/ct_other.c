/* SPDX-License-Identifier: BSD-3-Clause
 * Keys of packets, and the protocols without sequence tracking: UDP and
 * other IP protocols (OVS's conntrack-other.c: first, multiple, bidir),
 * ICMP echo/timestamp/info by id (conntrack-icmp.c: first, reply), and
 * ICMP errors, related to the session of the packet they quote.
 */
#include <rte_icmp.h>
#include <rte_ip.h>
#include <rte_tcp.h>
#include <rte_udp.h>
#include "flow_key.h"
#include "ct_private.h"

/* ICMP types */
#define ICMP_ECHO_REPLY 0
#define ICMP_DEST_UNREACH 3
#define ICMP_SOURCE_QUENCH 4
#define ICMP_REDIRECT 5
#define ICMP_ECHO_REQUEST 8
#define ICMP_TIME_EXCEEDED 11
#define ICMP_PARAM_PROBLEM 12
#define ICMP_TIMESTAMP 13
#define ICMP_TIMESTAMP_REPLY 14
#define ICMP_INFO_REQUEST 15
#define ICMP_INFO_REPLY 16

#define ICMP_HDR_LEN 8

/* The reply type of a query type; -1 for anything else. */
static int
icmp_reply_type(uint8_t type)
{
	switch (type) {
	case ICMP_ECHO_REQUEST: return ICMP_ECHO_REPLY;
	case ICMP_TIMESTAMP: return ICMP_TIMESTAMP_REPLY;
	case ICMP_INFO_REQUEST: return ICMP_INFO_REPLY;
	default: return -1;
	}
}

static bool
icmp_is_query(uint8_t type)
{
	return icmp_reply_type(type) >= 0 || type == ICMP_ECHO_REPLY ||
	       type == ICMP_TIMESTAMP_REPLY || type == ICMP_INFO_REPLY;
}

static bool
icmp_is_error(uint8_t type)
{
	return type == ICMP_DEST_UNREACH || type == ICMP_SOURCE_QUENCH ||
	       type == ICMP_REDIRECT || type == ICMP_TIME_EXCEEDED ||
	       type == ICMP_PARAM_PROBLEM;
}

bool
ct_key_reply(const struct ct_key *k, struct ct_key *r)
{
	ct_key_reverse(r, k);
	/* ICMP is IPv4's query protocol, ICMPv6 IPv6's */
	if (k->proto != (k->v6 ? IPPROTO_ICMPV6 : IPPROTO_ICMP))
		return true;
	uint8_t type = (uint8_t)rte_be_to_cpu_16(k->dport);
	int t = k->v6 ? ct_icmp6_reply_type(type) : icmp_reply_type(type);
	r->sport = k->sport;	/* the id, both ways */
	r->dport = rte_cpu_to_be_16(t < 0 ? 0 : t);
	return t >= 0;
}

/* Ports (or the ICMP/ICMPv6 query's id and type) of an L4 header with
 * len bytes, of a packet of family v6 (ICMP is IPv4's, ICMPv6 IPv6's:
 * the other family's have no ports, as in OVS's extract_l4). */
bool
ct_l4_ports(const uint8_t *l4, uint32_t len, uint8_t proto, bool v6,
	    struct ct_key *k)
{
	switch (proto) {
	case IPPROTO_TCP:
	case IPPROTO_UDP:
		if (len < 4)
			return false;
		memcpy(&k->sport, l4, 2);
		memcpy(&k->dport, l4 + 2, 2);
		return true;
	case IPPROTO_ICMP:
	case IPPROTO_ICMPV6:
		if ((proto == IPPROTO_ICMPV6) != v6)
			break;
		if (len < ICMP_HDR_LEN || l4[1] ||
		    !(v6 ? ct_icmp6_is_query(l4[0]) : icmp_is_query(l4[0])))
			return false;
		memcpy(&k->sport, l4 + 4, 2);
		k->dport = rte_cpu_to_be_16(l4[0]);
		return true;
	}
	k->sport = k->dport = 0;
	return true;
}

/* An ICMP error: the key of the packet it quotes, reversed (the error
 * travels back to that packet's sender), as OVS's extract_l4_icmp. */
static bool
icmp_error_key(const struct rte_mbuf *m, const struct ct_pkt_meta *mt,
	       struct ct_key *k)
{
	uint32_t avail = RTE_MIN((uint32_t)mt->l4_len,
				 (uint32_t)m->data_len - mt->l4_ofs);
	const uint8_t *l4 = rte_pktmbuf_mtod_offset(m, const uint8_t *,
						    mt->l4_ofs);
	if (avail < ICMP_HDR_LEN + sizeof(struct rte_ipv4_hdr))
		return false;
	const struct rte_ipv4_hdr *in =
		(const struct rte_ipv4_hdr *)(l4 + ICMP_HDR_LEN);
	uint32_t ihl = (in->version_ihl & 0x0f) * 4u;
	if ((in->version_ihl >> 4) != 4 || ihl < sizeof *in ||
	    avail < ICMP_HDR_LEN + ihl ||
	    (in->fragment_offset & rte_cpu_to_be_16(RTE_IPV4_HDR_OFFSET_MASK)))
		return false;
	/* The quoted packet was sent by the error's addressee. */
	if (in->src_addr != mt->nw_dst)
		return false;
	struct ct_key inner = {
		.src = in->src_addr,
		.dst = in->dst_addr,
		.zone = k->zone,
		.proto = in->next_proto_id,
	};
	if (!ct_l4_ports(l4 + ICMP_HDR_LEN + ihl, avail - ICMP_HDR_LEN - ihl,
			 in->next_proto_id, false, &inner))
		return false;
	return ct_key_reply(&inner, k);
}

/* The one's-complement sum of m's L4 bytes [l4_ofs, +len), with the IPv4
 * pseudo-header when pseudo: 0xffff when the checksum in them is right. */
static uint16_t
l4_sum(const struct rte_mbuf *m, const struct ct_pkt_meta *mt, bool pseudo)
{
	uint16_t raw = 0;

	if (rte_raw_cksum_mbuf(m, mt->l4_ofs, mt->l4_len, &raw))
		return 0;
	if (!pseudo)
		return raw;
	const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m,
				const struct rte_ipv4_hdr *, mt->l3_ofs);
	uint32_t s = (uint32_t)raw + rte_ipv4_phdr_cksum(ip, 0);
	s = (s & 0xffff) + (s >> 16);
	return (uint16_t)((s & 0xffff) + (s >> 16));
}

/* OVS's conn_key_extract checks before a packet may touch a session:
 * the IPv4 header's checksum, an IP total length the frame holds, L4
 * lengths, and the TCP, UDP (unless 0) and ICMP checksums; a packet that
 * fails any is +inv (a RST with a bad checksum must not close a session). */
static bool
packet_sane(const struct rte_mbuf *m, const struct ct_pkt_meta *mt,
	    const uint8_t *l4)
{
	const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m,
				const struct rte_ipv4_hdr *, mt->l3_ofs);

	if ((uint32_t)mt->l4_ofs + mt->l4_len > rte_pktmbuf_pkt_len(m) ||
	    rte_ipv4_cksum(ip) != 0)
		return false;
	switch (mt->nw_proto) {
	case IPPROTO_TCP:
		return l4_sum(m, mt, true) == 0xffff;
	case IPPROTO_UDP: {
		const struct rte_udp_hdr *u = (const void *)l4;
		uint16_t len = rte_be_to_cpu_16(u->dgram_len);
		if (len < sizeof *u || len > mt->l4_len)
			return false;
		return u->dgram_cksum == 0 || l4_sum(m, mt, true) == 0xffff;
	}
	case IPPROTO_ICMP:
		return l4_sum(m, mt, false) == 0xffff;
	default:
		return true;
	}
}

bool
ct_udp_sane(const struct rte_mbuf *m, uint16_t l3_ofs)
{
	struct ct_pkt_meta mt = { .nw_proto = IPPROTO_UDP };

	if (ct_pkt_meta_l4(&mt, m, l3_ofs) ||
	    (uint32_t)mt.l4_ofs + sizeof(struct rte_udp_hdr) > m->data_len ||
	    mt.l4_len < sizeof(struct rte_udp_hdr))
		return false;
	return packet_sane(m, &mt, rte_pktmbuf_mtod_offset(m, const uint8_t *,
							   mt.l4_ofs));
}

bool
ct_tcp_sane(const struct rte_mbuf *m, uint16_t l3_ofs, uint16_t *l4_ofs,
	    uint16_t *l4_len)
{
	struct ct_pkt_meta mt = { .nw_proto = IPPROTO_TCP };
	const uint32_t hdr = sizeof(struct rte_tcp_hdr);

	if (ct_pkt_meta_l4(&mt, m, l3_ofs) ||
	    (uint32_t)mt.l4_ofs + hdr > m->data_len || mt.l4_len < hdr)
		return false;
	const struct rte_tcp_hdr *t = rte_pktmbuf_mtod_offset(m,
					const struct rte_tcp_hdr *, mt.l4_ofs);
	uint32_t doff = (t->data_off >> 4) * 4u;
	if (doff < hdr || doff > mt.l4_len ||
	    (uint32_t)mt.l4_ofs + doff > m->data_len)
		return false;
	*l4_ofs = mt.l4_ofs;
	*l4_len = mt.l4_len;
	return packet_sane(m, &mt, (const uint8_t *)t);
}

bool
ct_key_extract(const struct rte_mbuf *m, const struct ct_pkt_meta *mt,
	       uint16_t zone, struct ct_key *k, bool *related)
{
	*related = false;
	/* A fragment here is one the fragment store (ct_ipf.h) refused, or
	 * reassembly is off: +inv, as OVS's conn_key_extract. */
	if (mt->nw_frag & FLOW_NW_FRAG_ANY)
		return false;
	if (mt->l4_ofs >= m->data_len)
		return false;
	k->src = mt->nw_src;
	k->dst = mt->nw_dst;
	k->sport = mt->tp_src;
	k->dport = mt->tp_dst;
	k->zone = zone;
	k->proto = mt->nw_proto;
	k->v6 = 0;

	uint32_t avail = RTE_MIN((uint32_t)mt->l4_len,
				 (uint32_t)m->data_len - mt->l4_ofs);
	const uint8_t *l4 = rte_pktmbuf_mtod_offset(m, const uint8_t *,
						    mt->l4_ofs);
	switch (mt->nw_proto) {
	case IPPROTO_TCP: {
		const struct rte_tcp_hdr *t = (const void *)l4;
		if (avail < sizeof *t)
			return false;
		uint32_t doff = (t->data_off >> 4) * 4u;
		return doff >= sizeof *t && doff <= avail &&
		       packet_sane(m, mt, l4);
	}
	case IPPROTO_UDP:
		return avail >= sizeof(struct rte_udp_hdr) &&
		       packet_sane(m, mt, l4);
	case IPPROTO_ICMP:
		if (avail < ICMP_HDR_LEN || !packet_sane(m, mt, l4))
			return false;
		if (icmp_is_error(l4[0])) {
			*related = true;
			return icmp_error_key(m, mt, k);
		}
		return ct_l4_ports(l4, avail, IPPROTO_ICMP, false, k);
	default:
		k->sport = k->dport = 0;
		return packet_sane(m, mt, l4);
	}
}

bool
ct_other_valid_new(const struct ct_key *k)
{
	uint8_t type = (uint8_t)rte_be_to_cpu_16(k->dport);

	if (k->proto == IPPROTO_ICMP)
		return icmp_reply_type(type) >= 0;
	if (k->proto == IPPROTO_ICMPV6)
		return ct_icmp6_reply_type(type) >= 0;
	return true;
}

/* ICMPv6 has ICMP's states and timeouts (OVS's conntrack-icmp.c serves
 * both) */
static inline bool
is_icmp(uint8_t proto)
{
	return proto == IPPROTO_ICMP || proto == IPPROTO_ICMPV6;
}

void
ct_other_new(struct conntrack *ct, struct ct_conn *c, uint64_t now)
{
	c->other = CT_OTHER_FIRST;
	ct_conn_update_expiration(ct, c, is_icmp(c->key[0].proto) ?
				  CT_TM_ICMP_FIRST : CT_TM_OTHER_FIRST, now);
}

enum ct_update
ct_other_update(struct conntrack *ct, struct ct_conn *c, bool reply,
		uint64_t now)
{
	enum ct_update ret = CT_UPDATE_VALID;

	if (is_icmp(c->key[0].proto)) {
		/* first until the answer, reply after (conntrack-icmp.c) */
		if (reply)
			c->other = CT_OTHER_BIDIR;
		else if (c->other != CT_OTHER_BIDIR)
			ret = CT_UPDATE_VALID_NEW;
		ct_conn_update_expiration(ct, c,
					  c->other == CT_OTHER_BIDIR ?
					  CT_TM_ICMP_REPLY : CT_TM_ICMP_FIRST,
					  now);
		return ret;
	}
	if (reply && c->other != CT_OTHER_BIDIR) {
		/* read without the lock by the established lane (ct_est.h) */
		__atomic_store_n(&c->other, CT_OTHER_BIDIR,
				 __ATOMIC_RELAXED);
	} else if (c->other == CT_OTHER_FIRST) {
		__atomic_store_n(&c->other, CT_OTHER_MULTIPLE,
				 __ATOMIC_RELAXED);
		ret = CT_UPDATE_VALID_NEW;
	}
	static const uint8_t tm[] = {
		[CT_OTHER_FIRST] = CT_TM_OTHER_FIRST,
		[CT_OTHER_MULTIPLE] = CT_TM_OTHER_MULTIPLE,
		[CT_OTHER_BIDIR] = CT_TM_OTHER_BIDIR,
	};
	ct_conn_update_expiration(ct, c, tm[c->other], now);
	return ret;
}
