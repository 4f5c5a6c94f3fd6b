/* SPDX-License-Identifier: BSD-3-Clause
 * The IPv6 values of the flow parser, as ovs-ofctl 3.1 writes them:
 * addresses (ipv6_src, ipv6_dst, nd_target) with an optional prefix
 * length or mask address, the 20-bit flow label, and the prerequisites
 * only IPv6 rules have (ipv6; Neighbour Discovery's icmp_type).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>

#include "ofp_parse_priv.h"

#define ICMP6_ND_SOLICIT 135
#define ICMP6_ND_ADVERT 136

/* OVS takes the prefix length with "%d" (ipv6_parse_masked_len): decimal
 * only, 0..128. */
static bool
parse_prefix_len(const char *s, unsigned *plen)
{
	unsigned v = 0;

	if (!*s || strspn(s, "0123456789") != strlen(s) || strlen(s) > 3)
		return false;
	for (; *s; s++)
		v = v * 10 + (unsigned)(*s - '0');
	if (v > 128)
		return false;
	*plen = v;
	return true;
}

bool
ofp_value_ipv6_masked(char *s, struct ofp_field_value *fv,
		      struct ofp_bad_value *e)
{
	char *m = ofp_split_mask(s);
	struct in6_addr addr, mask;
	unsigned plen;

	/* inet_pton as OVS's ipv6_parse: no brackets, no zone, no spaces */
	if (inet_pton(AF_INET6, s, &addr) != 1)
		return ofp_reject(e, "bad IPv6 address", s, "");
	memset(&mask, 0xff, sizeof mask);
	if (m && strchr(m, ':')) {
		if (inet_pton(AF_INET6, m, &mask) != 1)
			return ofp_reject(e, "bad IPv6 mask", m,
					  " (a prefix length 0..128 or an IPv6 "
					  "address)");
	} else if (m) {
		if (!parse_prefix_len(m, &plen))
			return ofp_reject(e, "bad IPv6 mask", m,
					  " (a prefix length 0..128 or an IPv6 "
					  "address)");
		memset(&mask, 0, sizeof mask);
		for (unsigned i = 0; i < plen; i++)
			mask.s6_addr[i / 8] |= (uint8_t)(0x80 >> (i % 8));
	}
	memcpy(fv->v, &addr, 16);
	memcpy(fv->m, &mask, 16);
	return true;
}

bool
ofp_value_ipv6_label(char *s, struct ofp_field_value *fv,
		     struct ofp_bad_value *e)
{
	char *m = ofp_split_mask(s);
	uint64_t v, mask = FLOW_IPV6_LABEL_MASK;
	rte_be32_t bv, bm;

	/* OVS encodes a larger value and then refuses it (OFPBMC_BAD_VALUE) */
	if (!ofp_parse_uint(s, FLOW_IPV6_LABEL_MASK, &v))
		return ofp_reject(e, "bad flow label", s, " (max 0xfffff)");
	/* a mask may be wider (OVS takes 0xffffffff): only 20 bits count */
	if (m && !ofp_parse_uint(m, UINT32_MAX, &mask))
		return ofp_reject(e, "bad mask", m, " (max 0xfffff)");
	bv = rte_cpu_to_be_32((uint32_t)v);
	bm = rte_cpu_to_be_32((uint32_t)mask & FLOW_IPV6_LABEL_MASK);
	memcpy(fv->v, &bv, sizeof bv);
	memcpy(fv->m, &bm, sizeof bm);
	return true;
}

/* ---- prerequisites ---------------------------------------------------- */

static bool
is_icmp6(const struct ofp_rule *r)
{
	return r->mask.dl_type &&
	       r->match.dl_type == RTE_BE16(RTE_ETHER_TYPE_IPV6) &&
	       r->mask.nw_proto && r->match.nw_proto == IPPROTO_ICMPV6;
}

/* OVS's is_nd(): ICMPv6 type 135 or 136 with code 0. A rule that leaves
 * the code out also fits (OVS's flow has 0 there). */
static bool
is_nd_type(const struct ofp_rule *r, uint16_t type)
{
	return is_icmp6(r) && r->mask.tp_src == RTE_BE16(UINT16_MAX) &&
	       r->match.tp_src == rte_cpu_to_be_16(type) &&
	       (!r->mask.tp_dst || !r->match.tp_dst);
}

bool
ofp_prereq_ipv6_met(const struct ofp_rule *r, enum prereq need)
{
	switch (need) {
	case NEED_IPV6:
		return r->mask.dl_type &&
		       r->match.dl_type == RTE_BE16(RTE_ETHER_TYPE_IPV6);
	case NEED_ND:
		return is_nd_type(r, ICMP6_ND_SOLICIT) ||
		       is_nd_type(r, ICMP6_ND_ADVERT);
	case NEED_ND_NS:
		return is_nd_type(r, ICMP6_ND_SOLICIT);
	case NEED_ND_NA:
		return is_nd_type(r, ICMP6_ND_ADVERT);
	default:
		return false;
	}
}
