/* SPDX-License-Identifier: BSD-3-Clause
 * The IPv6 fields of a rule as ovs-ofctl 3.1 prints them (OVS lib/match.c
 * match_format, lib/packets.c ipv6_format_masked): addresses through
 * inet_ntop (RFC 5952 compression, ::ffff:a.b.c.d for IPv4-mapped ones),
 * a CIDR mask as /LEN and any other as /MASKADDR, the flow label as
 * 0x%05x, and Neighbour Discovery's target and link-layer addresses.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "ofp_format_priv.h"

static bool
ipv6_mask_is_zero(const struct flow_in6_addr *m)
{
	for (int i = 0; i < 16; i++)
		if (m->a[i])
			return false;
	return true;
}

/* The prefix length of a CIDR mask, or -1 for any other mask. */
static int
ipv6_cidr_len(const struct flow_in6_addr *m)
{
	int len = 0, i = 0;

	for (; i < 16 && m->a[i] == 0xff; i++)
		len += 8;
	if (i == 16)
		return len;
	uint8_t host = (uint8_t)~m->a[i];
	if (host & (host + 1))		/* not 1..10..0 */
		return -1;
	len += __builtin_popcount(m->a[i]);
	for (i++; i < 16; i++)
		if (m->a[i])
			return -1;
	return len;
}

static void
put_in6(struct sbuf *b, const struct flow_in6_addr *a)
{
	char s[INET6_ADDRSTRLEN];

	put(b, "%s", inet_ntop(AF_INET6, a->a, s, sizeof s) ? s : "?");
}

/* NAME=ADDR[/LEN|/MASK], nothing for an empty mask (format_ipv6_netmask) */
static void
put_ipv6_masked(struct sbuf *b, const char *name,
		const struct flow_in6_addr *addr,
		const struct flow_in6_addr *mask)
{
	int len;

	if (ipv6_mask_is_zero(mask))
		return;
	item(b, "%s=", name);
	put_in6(b, addr);
	len = ipv6_cidr_len(mask);
	if (len == 128)
		return;
	if (len >= 0) {
		put(b, "/%d", len);
	} else {
		put(b, "/");
		put_in6(b, mask);
	}
}

void
put_ipv6_l3(struct sbuf *b, const struct flow_key *match,
	    const struct flow_key *mask)
{
	uint32_t label = rte_be_to_cpu_32(match->ipv6_label);
	uint32_t label_m = rte_be_to_cpu_32(mask->ipv6_label);

	put_ipv6_masked(b, "ipv6_src", &match->ipv6_src, &mask->ipv6_src);
	put_ipv6_masked(b, "ipv6_dst", &match->ipv6_dst, &mask->ipv6_dst);
	/* exact whatever the bits above the label's 20 (a datapath mask
	 * has them all, a parsed rule none) */
	if ((label_m & FLOW_IPV6_LABEL_MASK) == FLOW_IPV6_LABEL_MASK)
		item(b, "ipv6_label=0x%05x", label & FLOW_IPV6_LABEL_MASK);
	else if (label_m)
		item(b, "ipv6_label=0x%05x/0x%05x", label, label_m);
}

void
put_tun_ipv6(struct sbuf *b, const struct flow_key *match,
	     const struct flow_key *mask)
{
	put_ipv6_masked(b, "tun_ipv6_src", &match->tun_ipv6_src,
			&mask->tun_ipv6_src);
	put_ipv6_masked(b, "tun_ipv6_dst", &match->tun_ipv6_dst,
			&mask->tun_ipv6_dst);
}

void
put_nd(struct sbuf *b, const struct flow_key *match,
       const struct flow_key *mask)
{
	put_ipv6_masked(b, "nd_target", &match->nd_target, &mask->nd_target);
	if (!rte_is_zero_ether_addr(&mask->nd_sll))
		put_mac_masked(b, "nd_sll", &match->nd_sll, &mask->nd_sll);
	if (!rte_is_zero_ether_addr(&mask->nd_tll))
		put_mac_masked(b, "nd_tll", &match->nd_tll, &mask->nd_tll);
}

void
ofp_format_nat6(char *out, size_t n, const uint8_t min[16],
		const uint8_t max[16], bool bracket)
{
	static const uint8_t zero[16];
	char lo[INET6_ADDRSTRLEN], hi[INET6_ADDRSTRLEN];
	const char *o = bracket ? "[" : "", *c = bracket ? "]" : "";

	inet_ntop(AF_INET6, min, lo, sizeof lo);
	if (!memcmp(max, zero, 16) || !memcmp(max, min, 16)) {
		snprintf(out, n, "%s%s%s", o, lo, c);
		return;
	}
	inet_ntop(AF_INET6, max, hi, sizeof hi);
	snprintf(out, n, "%s%s%s-%s%s%s", o, lo, c, o, hi, c);
}
