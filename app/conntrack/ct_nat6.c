/* SPDX-License-Identifier: BSD-3-Clause
 * NAT66: the packets of a NATed IPv6 session rewritten both ways, as OVS
 * 3.1's nat_packet_ipv6 and pat_packet (ct_nat.c picks the session's
 * reply tuple, ct_nat_pick6): addresses and ports, the TCP, UDP and
 * ICMPv6 checksums updated incrementally (each covers the pseudo-header,
 * so an address change updates it; IPv6 has no header checksum). An
 * ICMPv6 error about a NATed session is translated as OVS 3.1's
 * nat_packet(related) and nat_inner_packet do: the outer address, the
 * quoted packet's addresses and ports (its L4 checksum where quoted),
 * then the ICMPv6 checksum computed again over the message and the new
 * pseudo-header; OVS's side effect on the message is kept (see
 * ct_nat_icmp_error6), so the bytes are OVS's.
 * The session keeps the translated address (ct_conn.nat6): its keys
 * carry digests only.
 */
#include <rte_ip.h>
#include <rte_udp.h>
#include "ct_csum.h"

#define IPV6_HLEN 40
#define IPV6_SRC_OFS 8
#define IPV6_DST_OFS 24
#define ICMP6_HLEN 8

/* Replaces the 16 bytes at field by v, updating the checksum at csum
 * (NULL: none). */
static void
replace128(uint8_t *field, const uint8_t v[16], uint8_t *csum)
{
	if (!memcmp(field, v, 16))
		return;
	if (csum)
		for (int i = 0; i < 16; i += 2)
			csum_replace16(csum, get16(field + i), get16(v + i));
	memcpy(field, v, 16);
}

/* Where the checksum of the L4 header at l4 (avail bytes of it) of
 * protocol proto is, or NULL (none, not there, or UDP's 0). */
static uint8_t *
l4_csum(uint8_t *l4, uint32_t avail, uint8_t proto)
{
	if (proto == IPPROTO_TCP && avail >= 20)
		return l4 + 16;
	if (proto == IPPROTO_UDP && avail >= 8 && get16(l4 + 6))
		return l4 + 6;
	if (proto == IPPROTO_ICMPV6 && avail >= 4)
		return l4 + 2;
	return NULL;
}

void
ct_nat_packet6(const struct ct_conn *c, struct rte_mbuf *m,
	       const struct ct_pkt_meta *mt, bool reply)
{
	/* The tuple the packet leaves with: the reverse of the other
	 * direction's. */
	const struct ct_key *o = &c->key[reply ? 0 : 1];
	const uint8_t *os, *od;
	uint8_t *ip = rte_pktmbuf_mtod_offset(m, uint8_t *, mt->l3_ofs);
	uint8_t *l4 = rte_pktmbuf_mtod_offset(m, uint8_t *, mt->l4_ofs);
	uint8_t proto = c->key[0].proto;
	uint8_t *csum = l4_csum(l4, (uint32_t)m->data_len - mt->l4_ofs,
				proto);

	ct_conn_addrs6(c, !reply, &os, &od);
	replace128(ip + IPV6_SRC_OFS, od, csum);
	replace128(ip + IPV6_DST_OFS, os, csum);
	if (proto == IPPROTO_TCP || proto == IPPROTO_UDP)
		nat_ports(l4, o, proto, csum);
}

void
ct_nat_icmp_error6(const struct ct_conn *c, struct rte_mbuf *m,
		   const struct ct_pkt_meta *mt, bool reply)
{
	/* k: the session's key of the error's direction (key[0] for a
	 * reply), and its addresses; the NAT as seen that way */
	const struct ct_key *k = &c->key[reply ? 0 : 1];
	const uint8_t *ks, *kd;
	uint8_t act = c->nat;
	uint8_t *ip = rte_pktmbuf_mtod_offset(m, uint8_t *, mt->l3_ofs);
	uint8_t *icmp = rte_pktmbuf_mtod_offset(m, uint8_t *, mt->l4_ofs);
	uint32_t icmp_len = RTE_MIN((uint32_t)mt->l4_len,
				    (uint32_t)m->data_len - mt->l4_ofs);

	ct_conn_addrs6(c, !reply, &ks, &kd);
	if (reply)
		act = act == CS_SRC_NAT ? CS_DST_NAT : CS_SRC_NAT;
	/* the outer header. OVS 3.1 rewrites it as a packet of the
	 * session's protocol (packet_set_ipv6_addr with the key's
	 * nw_proto), so the word of the message where that protocol keeps
	 * its checksum (TCP: in the quoted source address, which the quoted
	 * packet's rewrite then moves from; UDP: bytes 6-7, a too-big's MTU)
	 * gets the address change too: done likewise, so that the quoted
	 * TCP checksum and the MTU come out as OVS's (the ICMPv6 checksum
	 * is computed again below) */
	uint8_t *quirk = l4_csum(icmp, icmp_len, k->proto);
	if (act == CS_SRC_NAT)
		replace128(ip + IPV6_SRC_OFS, kd, quirk);
	else
		replace128(ip + IPV6_DST_OFS, ks, quirk);
	if (k->proto == IPPROTO_UDP && quirk && !get16(quirk))
		put16(quirk, 0xffff);

	/* the quoted packet (ct_key_extract6 walked it already): it went
	 * the other way, so NAT changed its destination where the outer
	 * source changed, its source where the outer destination did */
	uint8_t *in = icmp + ICMP6_HLEN;
	uint8_t proto;
	uint32_t ofs;
	if (!ct_ip6_l4(in, icmp_len - ICMP6_HLEN, &proto, &ofs))
		return;
	uint8_t *in_l4 = in + ofs;
	uint8_t *csum = l4_csum(in_l4, icmp_len - ICMP6_HLEN - ofs, proto);
	if (act == CS_SRC_NAT)
		replace128(in + IPV6_DST_OFS, kd, csum);
	else
		replace128(in + IPV6_SRC_OFS, ks, csum);
	if (proto == IPPROTO_TCP || proto == IPPROTO_UDP) {
		replace16(in_l4, k->sport, csum);
		replace16(in_l4 + 2, k->dport, csum);
	}
	put16(icmp + 2, 0);
	uint16_t sum = (uint16_t)~ct_l4_sum6(m, mt);
	memcpy(icmp + 2, &sum, 2);
}

void
ct_nat6_natted_addrs(const struct ct_conn *c, bool reply,
		     struct ct_addr6 *a6)
{
	const uint8_t *s, *d;

	if (!ct_conn_v6_matches(c, reply, a6))
		return;
	ct_conn_addrs6(c, !reply, &s, &d);
	memcpy(a6->src, s, 16);
	memcpy(a6->dst, d, 16);
}

void
ct_key6_flip(struct ct_key *k, struct ct_addr6 *a6)
{
	struct ct_addr6 r;

	memcpy(r.src, a6->dst, 16);
	memcpy(r.dst, a6->src, 16);
	*a6 = r;
	ct_key_reverse(k, &(struct ct_key){ .src = k->src, .dst = k->dst,
					    .sport = k->sport,
					    .dport = k->dport,
					    .zone = k->zone,
					    .proto = k->proto });
	ct_key6_set_addrs(k, a6->src, a6->dst);
}
