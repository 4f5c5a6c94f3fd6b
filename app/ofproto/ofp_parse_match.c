/* SPDX-License-Identifier: BSD-3-Clause
 * The match half of the flow parser: field names and how their values are
 * written, shorthands (ip, udp...), conflicting repeats, prerequisites,
 * and the non-match keys priority, cookie and table. IPv6 values and
 * prerequisites are ofp_parse_ipv6.c's.
 *
 * A prerequisite OVS's ovs-ofctl does not meet it drops the field (it logs
 * "normalization changed ofp_match" and sends the rule without it); here
 * the rule is refused instead, naming the field, so that no rule means
 * less than it says.
 */
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "ofp_parse_priv.h"

/* How a match field's value is written. */
enum value_kind {
	V_PORT,		/* name or number */
	V_U32_MASKED,	/* tun_id: host order */
	V_IPV4_MASKED,	/* a.b.c.d[/len|/a.b.c.d] */
	V_MAC_MASKED,	/* xx:xx:xx:xx:xx:xx[/mask] */
	V_ETH_TYPE,
	V_VLAN_VID,	/* dl_vlan */
	V_VLAN_TCI,	/* vlan_tci=V[/M] */
	V_U8,
	V_DSCP,		/* nw_tos: the TOS byte, ECN bits clear */
	V_DSCP_SHIFTED,	/* ip_dscp: the 6 DSCP bits, 0..63 */
	V_IP_FRAG,	/* no|first|later|yes|not_later */
	V_L4_PORT,	/* tp_src/tp_dst, maskable */
	V_ICMP,		/* icmp_type/icmp_code, kept in tp_src/tp_dst */
	V_IPV6_MASKED,	/* ADDR[/len|/ADDR] */
	V_IPV6_LABEL,	/* 20 bits[/mask] */
};

struct match_field {
	const char *name;
	enum mf_id id;
	enum value_kind kind;
	enum prereq need;
	uint8_t implies_proto;	/* udp_src & co. also mean nw_proto=N and
				 * ip unless the rule says ipv6 */
};

static const struct match_field match_fields[] = {
	{ "in_port", MFF_IN_PORT, V_PORT, NEED_NOTHING, 0 },
	{ "tun_id", MFF_TUN_ID, V_U32_MASKED, NEED_NOTHING, 0 },
	{ "tunnel_id", MFF_TUN_ID, V_U32_MASKED, NEED_NOTHING, 0 },
	{ "tun_src", MFF_TUN_SRC, V_IPV4_MASKED, NEED_NOTHING, 0 },
	{ "tun_dst", MFF_TUN_DST, V_IPV4_MASKED, NEED_NOTHING, 0 },
	{ "tun_ipv6_src", MFF_TUN_IPV6_SRC, V_IPV6_MASKED, NEED_NOTHING, 0 },
	{ "tun_ipv6_dst", MFF_TUN_IPV6_DST, V_IPV6_MASKED, NEED_NOTHING, 0 },
	{ "dl_src", MFF_DL_SRC, V_MAC_MASKED, NEED_NOTHING, 0 },
	{ "eth_src", MFF_DL_SRC, V_MAC_MASKED, NEED_NOTHING, 0 },
	{ "dl_dst", MFF_DL_DST, V_MAC_MASKED, NEED_NOTHING, 0 },
	{ "eth_dst", MFF_DL_DST, V_MAC_MASKED, NEED_NOTHING, 0 },
	{ "dl_type", MFF_DL_TYPE, V_ETH_TYPE, NEED_NOTHING, 0 },
	{ "eth_type", MFF_DL_TYPE, V_ETH_TYPE, NEED_NOTHING, 0 },
	{ "dl_vlan", MFF_VLAN_TCI, V_VLAN_VID, NEED_NOTHING, 0 },
	{ "vlan_tci", MFF_VLAN_TCI, V_VLAN_TCI, NEED_NOTHING, 0 },
	{ "nw_src", MFF_NW_SRC, V_IPV4_MASKED, NEED_IP_OR_ARP, 0 },
	{ "ip_src", MFF_NW_SRC, V_IPV4_MASKED, NEED_IP_OR_ARP, 0 },
	{ "arp_spa", MFF_NW_SRC, V_IPV4_MASKED, NEED_ARP, 0 },
	{ "nw_dst", MFF_NW_DST, V_IPV4_MASKED, NEED_IP_OR_ARP, 0 },
	{ "ip_dst", MFF_NW_DST, V_IPV4_MASKED, NEED_IP_OR_ARP, 0 },
	{ "arp_tpa", MFF_NW_DST, V_IPV4_MASKED, NEED_ARP, 0 },
	{ "ipv6_src", MFF_IPV6_SRC, V_IPV6_MASKED, NEED_IPV6, 0 },
	{ "ipv6_dst", MFF_IPV6_DST, V_IPV6_MASKED, NEED_IPV6, 0 },
	{ "ipv6_label", MFF_IPV6_LABEL, V_IPV6_LABEL, NEED_IPV6, 0 },
	{ "nw_proto", MFF_NW_PROTO, V_U8, NEED_IP_ANY_OR_ARP, 0 },
	{ "ip_proto", MFF_NW_PROTO, V_U8, NEED_IP_ANY_OR_ARP, 0 },
	{ "arp_op", MFF_NW_PROTO, V_U8, NEED_ARP, 0 },
	{ "nw_tos", MFF_NW_TOS, V_DSCP, NEED_IP_ANY, 0 },
	{ "ip_dscp", MFF_NW_TOS, V_DSCP_SHIFTED, NEED_IP_ANY, 0 },
	{ "nw_ttl", MFF_NW_TTL, V_U8, NEED_IP_ANY, 0 },
	{ "ip_frag", MFF_NW_FRAG, V_IP_FRAG, NEED_IP_ANY, 0 },
	{ "nw_frag", MFF_NW_FRAG, V_IP_FRAG, NEED_IP_ANY, 0 },
	{ "tp_src", MFF_TP_SRC, V_L4_PORT, NEED_TCP_OR_UDP, 0 },
	{ "tp_dst", MFF_TP_DST, V_L4_PORT, NEED_TCP_OR_UDP, 0 },
	{ "udp_src", MFF_TP_SRC, V_L4_PORT, NEED_NOTHING, IPPROTO_UDP },
	{ "udp_dst", MFF_TP_DST, V_L4_PORT, NEED_NOTHING, IPPROTO_UDP },
	{ "tcp_src", MFF_TP_SRC, V_L4_PORT, NEED_NOTHING, IPPROTO_TCP },
	{ "tcp_dst", MFF_TP_DST, V_L4_PORT, NEED_NOTHING, IPPROTO_TCP },
	/* OVS takes either name with icmp or icmp6 (tp_src/tp_dst hold
	 * both) and prints icmp_type/icmp_code */
	{ "icmp_type", MFF_TP_SRC, V_ICMP, NEED_ICMP_ANY, 0 },
	{ "icmp_code", MFF_TP_DST, V_ICMP, NEED_ICMP_ANY, 0 },
	{ "icmpv6_type", MFF_TP_SRC, V_ICMP, NEED_ICMP_ANY, 0 },
	{ "icmpv6_code", MFF_TP_DST, V_ICMP, NEED_ICMP_ANY, 0 },
	{ "nd_target", MFF_ND_TARGET, V_IPV6_MASKED, NEED_ND, 0 },
	{ "nd_sll", MFF_ND_SLL, V_MAC_MASKED, NEED_ND_NS, 0 },
	{ "nd_tll", MFF_ND_TLL, V_MAC_MASKED, NEED_ND_NA, 0 },
};

struct shorthand {
	const char *name;
	uint16_t dl_type;
	uint8_t nw_proto;	/* 0: leave nw_proto alone */
};

static const struct shorthand shorthands[] = {
	{ "ip", RTE_ETHER_TYPE_IPV4, 0 },
	{ "arp", RTE_ETHER_TYPE_ARP, 0 },
	{ "ipv6", RTE_ETHER_TYPE_IPV6, 0 },
	{ "ip6", RTE_ETHER_TYPE_IPV6, 0 },	/* OVS takes it too */
	{ "icmp", RTE_ETHER_TYPE_IPV4, IPPROTO_ICMP },
	{ "tcp", RTE_ETHER_TYPE_IPV4, IPPROTO_TCP },
	{ "udp", RTE_ETHER_TYPE_IPV4, IPPROTO_UDP },
	{ "icmp6", RTE_ETHER_TYPE_IPV6, IPPROTO_ICMPV6 },
	{ "tcp6", RTE_ETHER_TYPE_IPV6, IPPROTO_TCP },
	{ "udp6", RTE_ETHER_TYPE_IPV6, IPPROTO_UDP },
};

bool
ofp_reject(struct ofp_bad_value *e, const char *what, const char *text,
	   const char *hint)
{
	e->what = what;
	e->text = text;
	e->hint = hint;
	return false;
}

/* "/24" or "/255.255.255.0" */
static bool
parse_ipv4_mask(const char *s, rte_be32_t *mask)
{
	uint64_t plen;

	if (strchr(s, '.'))
		return ofp_parse_ipv4(s, mask);
	if (!ofp_parse_uint(s, 32, &plen))
		return false;
	*mask = plen ? rte_cpu_to_be_32(UINT32_MAX << (32 - plen)) : 0;
	return true;
}

char *
ofp_split_mask(char *s)
{
	char *slash = strchr(s, '/');

	if (!slash)
		return NULL;
	*slash = '\0';
	return slash + 1;
}

/* ---- match field values ----------------------------------------------- */

static void
put_u32(uint8_t *b, uint32_t host)
{
	memcpy(b, &host, sizeof host);
}

static void
put_be16(uint8_t *b, uint16_t host)
{
	rte_be16_t v = rte_cpu_to_be_16(host);
	memcpy(b, &v, sizeof v);
}

static bool
value_port(struct parser *p, char *s, struct ofp_field_value *fv,
	   struct ofp_bad_value *e)
{
	uint32_t port = ofp_resolve_port(p->ports, s);
	uint16_t v;

	if (!port)
		return ofp_reject(e, "unknown port", s, "");
	/* the key's in_port is 16 bits, as OVS's ofp_port_t */
	if (port > FLOW_IN_PORT_MAX)
		return ofp_reject(e, "port out of range", s, " (ofports are "
			      "1..65279)");
	v = (uint16_t)port;
	memcpy(fv->v, &v, sizeof v);
	memset(fv->m, 0xff, sizeof v);
	return true;
}

static bool
value_u32_masked(char *s, struct ofp_field_value *fv, struct ofp_bad_value *e)
{
	char *m = ofp_split_mask(s);
	uint64_t v, mask = UINT32_MAX;

	if (!ofp_parse_uint(s, UINT32_MAX, &v))
		return ofp_reject(e, "bad number", s, " (max 0xffffffff)");
	if (m && !ofp_parse_uint(m, UINT32_MAX, &mask))
		return ofp_reject(e, "bad mask", m, " (max 0xffffffff)");
	put_u32(fv->v, (uint32_t)v);
	put_u32(fv->m, (uint32_t)mask);
	return true;
}

static bool
value_ipv4_masked(char *s, struct ofp_field_value *fv, struct ofp_bad_value *e)
{
	char *m = ofp_split_mask(s);
	rte_be32_t ip, mask = UINT32_MAX;

	if (!ofp_parse_ipv4(s, &ip))
		return ofp_reject(e, "bad IPv4 address", s, "");
	if (m && !parse_ipv4_mask(m, &mask))
		return ofp_reject(e, "bad IPv4 mask", m,
			      " (a prefix length 0..32 or a.b.c.d)");
	memcpy(fv->v, &ip, sizeof ip);
	memcpy(fv->m, &mask, sizeof mask);
	return true;
}

static bool
value_mac_masked(char *s, struct ofp_field_value *fv, struct ofp_bad_value *e)
{
	char *m = ofp_split_mask(s);
	struct rte_ether_addr mac, mask;

	memset(&mask, 0xff, sizeof mask);
	if (!ofp_parse_mac(s, &mac))
		return ofp_reject(e, "bad MAC address", s, "");
	if (m && !ofp_parse_mac(m, &mask))
		return ofp_reject(e, "bad MAC mask", m, "");
	memcpy(fv->v, &mac, sizeof mac);
	memcpy(fv->m, &mask, sizeof mask);
	return true;
}

static bool
value_uint_exact(char *s, uint64_t max, size_t len, struct ofp_field_value *fv,
		 struct ofp_bad_value *e)
{
	static const char *const hints[] = { "", " (max 255)", " (max 65535)" };
	uint64_t v;

	if (!ofp_parse_uint(s, max, &v))
		return ofp_reject(e, "bad number", s, hints[len]);
	if (len == 1) {
		fv->v[0] = (uint8_t)v;
		fv->m[0] = 0xff;
	} else {
		put_be16(fv->v, (uint16_t)v);
		put_be16(fv->m, UINT16_MAX);
	}
	return true;
}

/* dl_vlan=VID matches tagged packets with that VID; 0xffff (OVS's
 * OFP10_VLAN_NONE) matches untagged ones. */
static bool
value_vlan_vid(char *s, struct ofp_field_value *fv, struct ofp_bad_value *e)
{
	uint64_t vid;

	if (!ofp_parse_uint(s, UINT16_MAX, &vid) || (vid > 4095 && vid != 0xffff))
		return ofp_reject(e, "bad VLAN ID", s, " (0..4095, or 0xffff)");
	if (vid == 0xffff) {
		put_be16(fv->v, 0);
		put_be16(fv->m, UINT16_MAX);
	} else {
		put_be16(fv->v, (uint16_t)(FLOW_VLAN_CFI | vid));
		put_be16(fv->m, FLOW_VLAN_CFI | 0x0fff);
	}
	return true;
}

static bool
value_u16_masked(char *s, struct ofp_field_value *fv, struct ofp_bad_value *e)
{
	char *m = ofp_split_mask(s);
	uint64_t v, mask = UINT16_MAX;

	if (!ofp_parse_uint(s, UINT16_MAX, &v))
		return ofp_reject(e, "bad number", s, " (max 65535)");
	if (m && !ofp_parse_uint(m, UINT16_MAX, &mask))
		return ofp_reject(e, "bad mask", m, " (max 0xffff)");
	put_be16(fv->v, (uint16_t)v);
	put_be16(fv->m, (uint16_t)mask);
	return true;
}

/* Like OVS, nw_tos is the whole TOS byte with the ECN bits clear, and only
 * the DSCP bits are matched. */
static bool
value_dscp(char *s, struct ofp_field_value *fv, struct ofp_bad_value *e)
{
	uint64_t v;

	if (!ofp_parse_uint(s, UINT8_MAX, &v) || (v & 0x03))
		return ofp_reject(e, "bad nw_tos", s,
			      " (the TOS byte with ECN bits clear: 0, 4, ... 252)");
	fv->v[0] = (uint8_t)v;
	fv->m[0] = 0xfc;
	return true;
}

/* ip_dscp=D: nw_tos=D*4 (OVS's IP_DSCP_SHIFTED); OVS truncates 64 and up
 * to 6 bits, here they are refused. */
static bool
value_dscp_shifted(char *s, struct ofp_field_value *fv, struct ofp_bad_value *e)
{
	uint64_t v;

	if (!ofp_parse_uint(s, 63, &v))
		return ofp_reject(e, "bad ip_dscp", s, " (0..63)");
	fv->v[0] = (uint8_t)(v << 2);
	fv->m[0] = 0xfc;
	return true;
}

static bool
value_ip_frag(char *s, struct ofp_field_value *fv, struct ofp_bad_value *e)
{
	const struct ofp_ip_frag_name *frags = ofp_ip_frag_names;

	for (size_t i = 0; i < OFP_N_IP_FRAG_NAMES; i++) {
		if (!strcmp(s, frags[i].name)) {
			fv->v[0] = frags[i].value;
			fv->m[0] = frags[i].mask;
			return true;
		}
	}
	return ofp_reject(e, "bad value", s, " (no, yes, first, later, not_later)");
}

static bool
value_icmp(char *s, struct ofp_field_value *fv, struct ofp_bad_value *e)
{
	uint64_t v;

	if (!ofp_parse_uint(s, UINT8_MAX, &v))
		return ofp_reject(e, "bad number", s, " (max 255)");
	put_be16(fv->v, (uint16_t)v);
	put_be16(fv->m, UINT16_MAX);
	return true;
}

static bool
parse_value(struct parser *p, enum value_kind kind, char *s,
	    struct ofp_field_value *fv, struct ofp_bad_value *e)
{
	switch (kind) {
	case V_PORT:
		return value_port(p, s, fv, e);
	case V_U32_MASKED:
		return value_u32_masked(s, fv, e);
	case V_IPV4_MASKED:
		return value_ipv4_masked(s, fv, e);
	case V_MAC_MASKED:
		return value_mac_masked(s, fv, e);
	case V_ETH_TYPE:
		return value_uint_exact(s, UINT16_MAX, 2, fv, e);
	case V_VLAN_VID:
		return value_vlan_vid(s, fv, e);
	case V_VLAN_TCI:
	case V_L4_PORT:
		return value_u16_masked(s, fv, e);
	case V_U8:
		return value_uint_exact(s, UINT8_MAX, 1, fv, e);
	case V_DSCP:
		return value_dscp(s, fv, e);
	case V_IP_FRAG:
		return value_ip_frag(s, fv, e);
	case V_ICMP:
		return value_icmp(s, fv, e);
	case V_DSCP_SHIFTED:
		return value_dscp_shifted(s, fv, e);
	case V_IPV6_MASKED:
		return ofp_value_ipv6_masked(s, fv, e);
	case V_IPV6_LABEL:
		return ofp_value_ipv6_label(s, fv, e);
	}
	return ofp_reject(e, "bad value", s, "");
}

/* ---- match ------------------------------------------------------------ */

/* Stores a field; giving it again is fine only with the same value. */
static int
set_field(struct parser *p, enum mf_id id, const struct ofp_field_value *fv,
	  const char *token)
{
	const struct mf_field *f = &mf_fields[id];
	uint8_t *match = (uint8_t *)&p->rule->match + f->offset;
	uint8_t *mask = (uint8_t *)&p->rule->mask + f->offset;
	uint8_t v[sizeof fv->v];

	for (unsigned i = 0; i < f->len; i++)
		v[i] = fv->v[i] & fv->m[i];
	if (p->fields_set & (1u << id)) {
		if (memcmp(match, v, f->len) || memcmp(mask, fv->m, f->len))
			return ofp_fail(p, "conflicting values for %s ('%s')",
					f->name, token);
		return 0;
	}
	memcpy(match, v, f->len);
	memcpy(mask, fv->m, f->len);
	p->fields_set |= 1u << id;
	/* The label and the second line's fields are in the key only with
	 * ext_line (flow_key.h): a rule that matches one says so, as
	 * flow_mask_set_field does (a /0 mask matches nothing: no line). */
	uint8_t line = flow_field_ext_bit(f->offset);

	if (line && flow_mask_has_field(&p->rule->mask, id)) {
		p->rule->mask.ext_line |= line;
		p->rule->match.ext_line |= line;
	}
	return 0;
}

static int
set_protocol(struct parser *p, uint16_t dl_type, uint8_t nw_proto,
	     const char *token)
{
	struct ofp_field_value fv;

	put_be16(fv.v, dl_type);
	put_be16(fv.m, UINT16_MAX);
	if (set_field(p, MFF_DL_TYPE, &fv, token))
		return -1;
	if (!nw_proto)
		return 0;
	fv.v[0] = nw_proto;
	fv.m[0] = 0xff;
	return set_field(p, MFF_NW_PROTO, &fv, token);
}

static const struct match_field *
find_match_field(const char *name)
{
	for (size_t i = 0; i < RTE_DIM(match_fields); i++)
		if (!strcmp(name, match_fields[i].name))
			return &match_fields[i];
	return NULL;
}

static const struct shorthand *
find_shorthand(const char *name)
{
	for (size_t i = 0; i < RTE_DIM(shorthands); i++)
		if (!strcmp(name, shorthands[i].name))
			return &shorthands[i];
	return NULL;
}

static int
parse_match_field(struct parser *p, const struct match_field *f,
		  const char *key, char *value)
{
	struct ofp_field_value fv;
	struct ofp_bad_value e;
	char token[128];

	snprintf(token, sizeof token, "%s=%s", key, value);
	memset(&fv, 0, sizeof fv);
	if (!parse_value(p, f->kind, value, &fv, &e))
		return ofp_fail(p, "%s: %s '%s'%s",
				key, e.what, e.text, e.hint);
	if (set_field(p, f->id, &fv, token))
		return -1;
	if (f->implies_proto) {
		fv.v[0] = f->implies_proto;
		fv.m[0] = 0xff;
		if (set_field(p, MFF_NW_PROTO, &fv, token))
			return -1;
		if (!p->implies_ip_by)
			p->implies_ip_by = key;
	}
	if (!p->needed_by[f->need]) {
		p->needed_by[f->need] = key;
		snprintf(p->needed_tok[f->need], sizeof p->needed_tok[0], "%s",
			 token);
	}
	return 0;
}

static bool
dl_type_is(const struct ofp_rule *r, uint16_t type)
{
	return r->mask.dl_type && r->match.dl_type == rte_cpu_to_be_16(type);
}

static bool
is_ip_any(const struct ofp_rule *r)
{
	return dl_type_is(r, RTE_ETHER_TYPE_IPV4) ||
	       dl_type_is(r, RTE_ETHER_TYPE_IPV6);
}

/* nw_proto over IPv4 or IPv6 */
static bool
nw_proto_is(const struct ofp_rule *r, uint8_t proto)
{
	return is_ip_any(r) && r->mask.nw_proto && r->match.nw_proto == proto;
}

static bool
prereq_met(const struct ofp_rule *r, enum prereq need)
{
	switch (need) {
	case NEED_NOTHING:
	case N_PREREQS:
		return true;
	case NEED_IP_OR_ARP:
		return dl_type_is(r, RTE_ETHER_TYPE_IPV4) ||
		       dl_type_is(r, RTE_ETHER_TYPE_ARP);
	case NEED_IP_ANY_OR_ARP:
		return is_ip_any(r) || dl_type_is(r, RTE_ETHER_TYPE_ARP);
	case NEED_ARP:
		return dl_type_is(r, RTE_ETHER_TYPE_ARP);
	case NEED_IP_ANY:
		return is_ip_any(r);
	case NEED_TCP_OR_UDP:
		return nw_proto_is(r, IPPROTO_TCP) || nw_proto_is(r, IPPROTO_UDP);
	case NEED_ICMP_ANY:
		return (dl_type_is(r, RTE_ETHER_TYPE_IPV4) &&
			nw_proto_is(r, IPPROTO_ICMP)) ||
		       (dl_type_is(r, RTE_ETHER_TYPE_IPV6) &&
			nw_proto_is(r, IPPROTO_ICMPV6));
	case NEED_IPV6:
	case NEED_ND:
	case NEED_ND_NS:
	case NEED_ND_NA:
		return ofp_prereq_ipv6_met(r, need);
	}
	return false;
}

/* udp_src & co.: nw_proto is set; dl_type is ip unless ipv6 was given. */
static int
imply_ip(struct parser *p)
{
	struct ofp_field_value fv;

	if (!p->implies_ip_by)
		return 0;
	if (!p->rule->mask.dl_type) {
		memset(&fv, 0, sizeof fv);
		put_be16(fv.v, RTE_ETHER_TYPE_IPV4);
		put_be16(fv.m, UINT16_MAX);
		return set_field(p, MFF_DL_TYPE, &fv, p->implies_ip_by);
	}
	if (!is_ip_any(p->rule))
		return ofp_fail(p, "%s requires ip or ipv6 (it means tcp or "
				"udp; drop the other dl_type)",
				p->implies_ip_by);
	return 0;
}

int
ofp_check_prereqs(struct parser *p)
{
	static const char *const advice[N_PREREQS] = {
		[NEED_IP_OR_ARP] = "ip or arp (add 'ip' or 'arp')",
		[NEED_IP_ANY_OR_ARP] = "ip, ipv6 or arp (add 'ip', 'ipv6' or "
				       "'arp')",
		[NEED_ARP] = "arp (add 'arp')",
		[NEED_IP_ANY] = "ip or ipv6 (add 'ip' or 'ipv6')",
		[NEED_IPV6] = "ipv6 (add 'ipv6')",
		[NEED_TCP_OR_UDP] = "tcp or udp (add 'udp' or 'nw_proto=17')",
		[NEED_ICMP_ANY] = "icmp or icmp6 (add 'icmp' or 'icmp6')",
		[NEED_ND] = "icmp6 with icmp_type=135 or 136 and icmp_code=0 "
			    "(add 'icmp6,icmp_type=135' or "
			    "'icmp6,icmp_type=136')",
		[NEED_ND_NS] = "icmp6 with icmp_type=135 and icmp_code=0 "
			       "(neighbour solicitation: add "
			       "'icmp6,icmp_type=135')",
		[NEED_ND_NA] = "icmp6 with icmp_type=136 and icmp_code=0 "
			       "(neighbour advertisement: add "
			       "'icmp6,icmp_type=136')",
	};
	const char *why;

	if (imply_ip(p))
		return -1;
	for (int need = NEED_IP_OR_ARP; need < N_PREREQS; need++) {
		if (!p->needed_by[need] || prereq_met(p->rule, need))
			continue;
		why = advice[need];
		if (need == NEED_TCP_OR_UDP &&
		    dl_type_is(p->rule, RTE_ETHER_TYPE_IPV6))
			why = "tcp6 or udp6 (add 'udp6' or 'nw_proto=17')";
		return ofp_fail(p, "%s requires %s, in '%s'", p->needed_by[need],
				why, p->needed_tok[need]);
	}
	return 0;
}

/* ---- non-match keys: priority, cookie, table, timeouts ----------------- */

static int
parse_priority(struct parser *p, const char *value)
{
	uint64_t v;

	if (!ofp_parse_uint(value, UINT16_MAX, &v))
		return ofp_fail(p, "priority: bad number '%s' (0..65535)",
				value);
	if (p->priority_set && p->rule->priority != v)
		return ofp_fail(p, "conflicting values for priority ('priority=%s')",
				value);
	p->rule->priority = (uint16_t)v;
	p->priority_set = true;
	return 0;
}

/* cookie=V in a rule; in a filter also cookie=V/M (dump-flows, del-flows,
 * mod-flows), as ovs-ofctl. */
static int
parse_cookie(struct parser *p, char *value)
{
	uint64_t v, m = 0;
	char *slash = strchr(value, '/');

	if (slash && p->mode == OFP_PARSE_ADD)
		return ofp_fail(p, "cookie: a mask is for dump-flows, "
				"del-flows and mod-flows, not a new rule "
				"('cookie=%s')", value);
	if (slash) {
		*slash = '\0';
		/* -1: every bit, as ovs-ofctl writes it */
		if (!strcmp(slash + 1, "-1"))
			m = UINT64_MAX;
		else if (!ofp_parse_uint(slash + 1, UINT64_MAX, &m)) {
			*slash = '/';
			return ofp_fail(p, "cookie: bad mask in 'cookie=%s'",
					value);
		}
	}
	if (!ofp_parse_uint(value, UINT64_MAX, &v)) {
		if (slash)
			*slash = '/';
		return ofp_fail(p, "cookie: bad number '%s'", value);
	}
	if (p->cookie_set && (p->rule->cookie != v ||
			      p->rule->cookie_mask != m))
		return ofp_fail(p, "conflicting values for cookie ('cookie=%s')",
				value);
	p->rule->cookie = slash ? v & m : v;
	p->rule->cookie_mask = m;
	p->rule->cookie_given = !slash;
	p->cookie_set = true;
	return 0;
}

/* idle_timeout=S, hard_timeout=S: a new rule's (add-flow); mod-flows
 * keeps a rule's timeouts, as OpenFlow's modify does. */
static int
parse_timeout(struct parser *p, const char *key, const char *value,
	      uint16_t *t)
{
	uint64_t v;

	if (p->mode != OFP_PARSE_ADD)
		return ofp_fail(p, "%s: only a new rule has one (add-flow), "
				"not %s ('%s=%s')", key,
				p->mode == OFP_PARSE_MODIFY ? "mod-flows" :
				"a filter", key, value);
	if (!ofp_parse_uint(value, UINT16_MAX, &v))
		return ofp_fail(p, "%s: bad number '%s' (seconds, 0..65535)",
				key, value);
	*t = (uint16_t)v;
	return 0;
}

static int
parse_table(struct parser *p, const char *value)
{
	uint64_t v;

	if (!ofp_parse_uint(value, OFP_N_TABLES - 1, &v))
		return ofp_fail(p, "table: bad table '%s' (0..%d)", value,
				OFP_N_TABLES - 1);
	if (p->table_set && p->rule->table_id != v)
		return ofp_fail(p, "conflicting values for table ('table=%s')",
				value);
	p->rule->table_id = (uint8_t)v;
	p->table_set = true;
	return 0;
}

int
ofp_parse_match_token(struct parser *p, const char *key, char *value)
{
	const struct shorthand *sh = find_shorthand(key);
	const struct match_field *f;

	if (!strcmp(key, "sctp") || !strcmp(key, "sctp6"))
		return ofp_fail(p, "'%s': SCTP is not supported (vxswitch "
				"matches tcp, udp, icmp and their IPv6 forms)",
				key);
	if (sh) {
		if (value)
			return ofp_fail(p, "'%s' takes no value ('%s=%s')", key,
					key, value);
		return set_protocol(p, sh->dl_type, sh->nw_proto, key);
	}
	int rc = ofp_parse_meta_token(p, key, value);
	if (rc <= 0)
		return rc;
	rc = ofp_parse_fmod_token(p, key, value);
	if (rc <= 0)
		return rc;
	f = find_match_field(key);
	bool known = f || !strcmp(key, "priority") || !strcmp(key, "cookie") ||
		     !strcmp(key, "table") || !strcmp(key, "idle_timeout") ||
		     !strcmp(key, "hard_timeout");
	if (!known)
		return ofp_fail(p, "unknown field '%s'", key);
	if (!value)
		return ofp_fail(p, "missing value for '%s' ('%s=...')",
				key, key);
	if (!strcmp(key, "priority"))
		return parse_priority(p, value);
	if (!strcmp(key, "cookie"))
		return parse_cookie(p, value);
	if (!strcmp(key, "table"))
		return parse_table(p, value);
	if (!strcmp(key, "idle_timeout"))
		return parse_timeout(p, key, value, &p->rule->idle_timeout);
	if (!strcmp(key, "hard_timeout"))
		return parse_timeout(p, key, value, &p->rule->hard_timeout);
	return parse_match_field(p, f, key, value);
}
