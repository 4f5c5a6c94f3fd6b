/* SPDX-License-Identifier: BSD-3-Clause
 * struct ofp_rule -> ovs-ofctl dump-flows text, and the rule comparisons
 * del-flows and add-flow need.
 *
 * The output is written so that ofp_parse_flow() reads it back into the
 * same rule: values are printed masked, shorthands (ip, udp, ...) stand in
 * for dl_type/nw_proto, and a field whose mask is empty is not printed.
 */
#include <arpa/inet.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ofp_format_priv.h"

/* The accumulation buffer (struct sbuf) is shared with ofp_format_ct.c
 * through ofp_format_priv.h. */

void
sbuf_init(struct sbuf *b, char *buf, size_t size)
{
	b->buf = buf;
	b->size = buf ? size : 0;
	b->len = 0;
	b->need_comma = false;
	if (b->size)
		buf[0] = '\0';
}

static void
sbuf_vput(struct sbuf *b, const char *fmt, va_list ap)
{
	size_t room = b->len < b->size ? b->size - b->len : 0;
	int n = vsnprintf(room ? b->buf + b->len : NULL, room, fmt, ap);

	if (n > 0)
		b->len += (size_t)n;
}

void
put(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sbuf_vput(b, fmt, ap);
	va_end(ap);
}

void
item(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;

	if (b->need_comma)
		put(b, ",");
	b->need_comma = true;
	va_start(ap, fmt);
	sbuf_vput(b, fmt, ap);
	va_end(ap);
}

int
sbuf_result(const struct sbuf *b)
{
	return b->len > INT32_MAX ? INT32_MAX : (int)b->len;
}

/* ---- values ----------------------------------------------------------- */

void
put_ipv4(struct sbuf *b, rte_be32_t ip)
{
	const uint8_t *o = (const uint8_t *)&ip;

	put(b, "%u.%u.%u.%u", o[0], o[1], o[2], o[3]);
}

/* a.b.c.d, a.b.c.d/len for a CIDR mask, a.b.c.d/m.m.m.m otherwise. */
static void
put_ipv4_masked(struct sbuf *b, const char *name, rte_be32_t ip,
		rte_be32_t mask)
{
	uint32_t m = rte_be_to_cpu_32(mask);
	uint32_t host_bits = ~m;

	item(b, "%s=", name);
	put_ipv4(b, ip);
	if (m == UINT32_MAX)
		return;
	if ((host_bits & (host_bits + 1)) == 0) {
		put(b, "/%d", __builtin_popcount(m));
	} else {
		put(b, "/");
		put_ipv4(b, mask);
	}
}

static void
put_mac(struct sbuf *b, const struct rte_ether_addr *mac)
{
	const uint8_t *o = mac->addr_bytes;

	put(b, "%02x:%02x:%02x:%02x:%02x:%02x", o[0], o[1], o[2], o[3], o[4],
	    o[5]);
}

static bool
mac_is_full(const struct rte_ether_addr *mask)
{
	static const struct rte_ether_addr ones = {
		.addr_bytes = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff },
	};

	return rte_is_same_ether_addr(mask, &ones);
}

void
put_mac_masked(struct sbuf *b, const char *name,
	       const struct rte_ether_addr *mac,
	       const struct rte_ether_addr *mask)
{
	item(b, "%s=", name);
	put_mac(b, mac);
	if (!mac_is_full(mask)) {
		put(b, "/");
		put_mac(b, mask);
	}
}

void
put_port(struct sbuf *b, const struct ofp_port_map *ports, uint32_t port)
{
	const char *name = ports && ports->name_by_port
				   ? ports->name_by_port(port, ports->aux)
				   : NULL;

	if (name)
		put(b, "%s", name);
	else
		put(b, "%" PRIu32, port);
}

/* ---- match ------------------------------------------------------------ */

static bool
is_dl_type(const struct flow_key *match, const struct flow_key *mask,
	   uint16_t type)
{
	return mask->dl_type && match->dl_type == rte_cpu_to_be_16(type);
}

static bool
is_ip_proto(const struct flow_key *match, const struct flow_key *mask,
	    uint8_t proto)
{
	return is_dl_type(match, mask, RTE_ETHER_TYPE_IPV4) && mask->nw_proto &&
	       match->nw_proto == proto;
}

static bool
is_ipv6_proto(const struct flow_key *match, const struct flow_key *mask,
	      uint8_t proto)
{
	return is_dl_type(match, mask, RTE_ETHER_TYPE_IPV6) && mask->nw_proto &&
	       match->nw_proto == proto;
}

/* "ip", "udp", "arp", ...; true if nw_proto went too. Another dl_type is
 * printed after the Ethernet addresses (put_dl_type), as ovs-ofctl does. */
static bool
put_protocol(struct sbuf *b, const struct flow_key *match,
	     const struct flow_key *mask)
{
	static const struct {
		const char *name;
		uint8_t proto;
	} ip_protos[] = {
		{ "icmp", IPPROTO_ICMP },
		{ "tcp", IPPROTO_TCP },
		{ "udp", IPPROTO_UDP },
	}, ipv6_protos[] = {
		{ "icmp6", IPPROTO_ICMPV6 },
		{ "tcp6", IPPROTO_TCP },
		{ "udp6", IPPROTO_UDP },
	};

	if (!mask->dl_type)
		return false;
	for (size_t i = 0; i < RTE_DIM(ip_protos); i++) {
		if (is_ip_proto(match, mask, ip_protos[i].proto)) {
			item(b, "%s", ip_protos[i].name);
			return true;
		}
	}
	for (size_t i = 0; i < RTE_DIM(ipv6_protos); i++) {
		if (is_ipv6_proto(match, mask, ipv6_protos[i].proto)) {
			item(b, "%s", ipv6_protos[i].name);
			return true;
		}
	}
	if (is_dl_type(match, mask, RTE_ETHER_TYPE_IPV4))
		item(b, "ip");
	else if (is_dl_type(match, mask, RTE_ETHER_TYPE_ARP))
		item(b, "arp");
	else if (is_dl_type(match, mask, RTE_ETHER_TYPE_IPV6))
		item(b, "ipv6");
	return false;
}

static void
put_dl_type(struct sbuf *b, const struct flow_key *match,
	    const struct flow_key *mask)
{
	if (mask->dl_type && !is_dl_type(match, mask, RTE_ETHER_TYPE_IPV4) &&
	    !is_dl_type(match, mask, RTE_ETHER_TYPE_ARP) &&
	    !is_dl_type(match, mask, RTE_ETHER_TYPE_IPV6))
		item(b, "dl_type=0x%04x", rte_be_to_cpu_16(match->dl_type));
}

static void
put_tunnel(struct sbuf *b, const struct flow_key *match,
	   const struct flow_key *mask)
{
	if (mask->tun_id == UINT32_MAX)
		item(b, "tun_id=0x%" PRIx32, match->tun_id);
	else if (mask->tun_id)
		item(b, "tun_id=0x%" PRIx32 "/0x%" PRIx32, match->tun_id,
		     mask->tun_id);
	if (mask->tun_src)
		put_ipv4_masked(b, "tun_src", match->tun_src, mask->tun_src);
	if (mask->tun_dst)
		put_ipv4_masked(b, "tun_dst", match->tun_dst, mask->tun_dst);
	put_tun_ipv6(b, match, mask);
}

/* dl_vlan=VID for what dl_vlan= produces, vlan_tci=V[/M] otherwise. */
static void
put_vlan(struct sbuf *b, const struct flow_key *match,
	 const struct flow_key *mask)
{
	uint16_t tci = rte_be_to_cpu_16(match->vlan_tci);
	uint16_t m = rte_be_to_cpu_16(mask->vlan_tci);

	if (!m)
		return;
	if (m == (FLOW_VLAN_CFI | 0x0fff) && (tci & FLOW_VLAN_CFI))
		item(b, "dl_vlan=%u", tci & 0x0fff);
	else if (m == UINT16_MAX)
		item(b, "vlan_tci=0x%04x", tci);
	else
		item(b, "vlan_tci=0x%04x/0x%04x", tci, m);
}

static void
put_l2(struct sbuf *b, const struct flow_key *match,
       const struct flow_key *mask)
{
	put_vlan(b, match, mask);
	if (!rte_is_zero_ether_addr(&mask->dl_src))
		put_mac_masked(b, "dl_src", &match->dl_src, &mask->dl_src);
	if (!rte_is_zero_ether_addr(&mask->dl_dst))
		put_mac_masked(b, "dl_dst", &match->dl_dst, &mask->dl_dst);
}

/* ip_frag=NAME <-> nw_frag value/mask, as ovs-ofctl spells them. */
const struct ofp_ip_frag_name ofp_ip_frag_names[OFP_N_IP_FRAG_NAMES] = {
	{ "no", 0, FLOW_NW_FRAG_ANY },
	{ "yes", FLOW_NW_FRAG_ANY, FLOW_NW_FRAG_ANY },
	{ "first", FLOW_NW_FRAG_ANY, FLOW_NW_FRAG_MASK },
	{ "later", FLOW_NW_FRAG_MASK, FLOW_NW_FRAG_MASK },
	{ "not_later", 0, FLOW_NW_FRAG_LATER },
};

static void
put_ip_frag(struct sbuf *b, uint8_t value, uint8_t mask)
{
	const struct ofp_ip_frag_name *frags = ofp_ip_frag_names;

	for (size_t i = 0; i < OFP_N_IP_FRAG_NAMES; i++) {
		if (frags[i].value == value && frags[i].mask == mask) {
			item(b, "nw_frag=%s", frags[i].name);
			return;
		}
	}
	/* Not something the parser makes; shown for debugging only. */
	item(b, "nw_frag=0x%x/0x%x", value, mask);
}

static void
put_l3(struct sbuf *b, const struct flow_key *match,
       const struct flow_key *mask, bool proto_done)
{
	bool arp = is_dl_type(match, mask, RTE_ETHER_TYPE_ARP);

	if (is_dl_type(match, mask, RTE_ETHER_TYPE_IPV6))
		put_ipv6_l3(b, match, mask);
	if (mask->nw_src)
		put_ipv4_masked(b, arp ? "arp_spa" : "nw_src", match->nw_src,
				mask->nw_src);
	if (mask->nw_dst)
		put_ipv4_masked(b, arp ? "arp_tpa" : "nw_dst", match->nw_dst,
				mask->nw_dst);
	if (mask->nw_proto && !proto_done)
		item(b, "%s=%u", arp ? "arp_op" : "nw_proto", match->nw_proto);
	if (mask->nw_tos)
		item(b, "nw_tos=%u", match->nw_tos);
	if (mask->nw_ttl)
		item(b, "nw_ttl=%u", match->nw_ttl);
	if (mask->nw_frag)
		put_ip_frag(b, match->nw_frag, mask->nw_frag);
}

static void
put_l4_port(struct sbuf *b, const char *name, rte_be16_t port, rte_be16_t mask)
{
	uint16_t v = rte_be_to_cpu_16(port), m = rte_be_to_cpu_16(mask);

	if (m == UINT16_MAX)
		item(b, "%s=%u", name, v);
	else if (m)
		item(b, "%s=0x%x/0x%x", name, v, m);
}

static void
put_l4(struct sbuf *b, const struct flow_key *match,
       const struct flow_key *mask)
{
	bool icmp6 = is_ipv6_proto(match, mask, IPPROTO_ICMPV6);

	/* ICMPv6's type and code print as ICMP's, as ovs-ofctl does */
	if (icmp6 || is_ip_proto(match, mask, IPPROTO_ICMP)) {
		if (mask->tp_src)
			item(b, "icmp_type=%u", rte_be_to_cpu_16(match->tp_src));
		if (mask->tp_dst)
			item(b, "icmp_code=%u", rte_be_to_cpu_16(match->tp_dst));
		if (icmp6)
			put_nd(b, match, mask);
		return;
	}
	put_l4_port(b, "tp_src", match->tp_src, mask->tp_src);
	put_l4_port(b, "tp_dst", match->tp_dst, mask->tp_dst);
}

/* ovs-ofctl's order (OVS lib/match.c match_format): ct_* fields, the
 * protocol, registers, tunnel, in_port, L2, L3, L4. meta may be NULL. */
static void
put_match(struct sbuf *b, const struct flow_key *match,
	  const struct flow_key *mask, const struct ofp_meta *meta_v,
	  const struct ofp_meta *meta_m, const struct ofp_port_map *ports)
{
	bool proto_done;

	if (meta_v)
		put_meta_ct(b, meta_v, meta_m);
	proto_done = put_protocol(b, match, mask);
	if (meta_v)
		put_meta_regs(b, meta_v, meta_m);
	put_tunnel(b, match, mask);
	if (mask->in_port) {
		item(b, "in_port=");
		put_port(b, ports, match->in_port);
	}
	put_l2(b, match, mask);
	put_dl_type(b, match, mask);
	put_l3(b, match, mask, proto_done);
	put_l4(b, match, mask);
}

/* ---- actions ---------------------------------------------------------- */

static void
put_action(struct sbuf *b, const struct ofp_rule *r,
	   const struct ofp_action *a, const struct ofp_port_map *ports)
{
	if (put_pipeline_action(b, r, a, ports))
		return;
	switch (a->type) {
	case OFPACT_OUTPUT:
		if (a->port == OFPP_IN_PORT) {
			put(b, "in_port");
		} else {
			put(b, "output:");
			put_port(b, ports, a->port);
		}
		return;
	case OFPACT_SET_TUNNEL:
		put(b, "set_tunnel:0x%" PRIx32, a->u32);
		return;
	case OFPACT_SET_TUN_SRC:
	case OFPACT_SET_TUN_DST:
		put(b, "set_field:");
		put_ipv4(b, a->ip);
		put(b, "->%s", a->type == OFPACT_SET_TUN_SRC ? "tun_src"
							     : "tun_dst");
		return;
	case OFPACT_SET_TUN_IPV6_SRC:
	case OFPACT_SET_TUN_IPV6_DST: {
		char s6[INET6_ADDRSTRLEN];

		put(b, "set_field:%s->%s",
		    inet_ntop(AF_INET6, a->ip6.a, s6, sizeof s6) ? s6 : "?",
		    a->type == OFPACT_SET_TUN_IPV6_SRC ? "tun_ipv6_src"
						       : "tun_ipv6_dst");
		return;
	}
	case OFPACT_SET_ETH_SRC:
	case OFPACT_SET_ETH_DST:
		put(b, "%s:", a->type == OFPACT_SET_ETH_SRC ? "mod_dl_src"
							    : "mod_dl_dst");
		put_mac(b, &a->mac);
		return;
	default:
		break;
	}
	put(b, "unknown_action_%d", (int)a->type);
}

static void
put_actions(struct sbuf *b, const struct ofp_rule *r,
	    const struct ofp_port_map *ports)
{
	unsigned n = r->n_actions < OFP_MAX_ACTIONS ? r->n_actions
						    : OFP_MAX_ACTIONS;

	if (!n)
		put(b, "drop");
	for (unsigned i = 0; i < n; i++) {
		if (i)
			put(b, ",");
		put_action(b, r, &r->actions[i], ports);
	}
}

/* ---- public ----------------------------------------------------------- */

int
ofp_format_match(const struct flow_key *match, const struct flow_key *mask,
		 const struct ofp_port_map *p, char *buf, size_t len)
{
	struct sbuf b;

	sbuf_init(&b, buf, len);
	put_match(&b, match, mask, NULL, NULL, p);
	return sbuf_result(&b);
}

int
ofp_format_actions(const struct ofp_rule *r, const struct ofp_port_map *p,
		   char *buf, size_t len)
{
	struct sbuf b;

	sbuf_init(&b, buf, len);
	put_actions(&b, r, p);
	return sbuf_result(&b);
}

static int
format_rule(const struct ofp_rule *r, bool with_table,
	    const struct ofp_port_map *p, char *buf, size_t len)
{
	struct sbuf b;

	sbuf_init(&b, buf, len);
	if (with_table && r->table_id && r->table_id != OFP_TABLE_ALL)
		item(&b, "table=%u", r->table_id);
	if (r->priority != OFP_DEFAULT_PRIORITY)
		item(&b, "priority=%u", r->priority);
	put_match(&b, &r->match, &r->mask, &r->meta_match, &r->meta_mask, p);
	put(&b, "%sactions=", b.len ? " " : "");
	put_actions(&b, r, p);
	return sbuf_result(&b);
}

int
ofp_format_rule(const struct ofp_rule *r, const struct ofp_port_map *p,
		char *buf, size_t len)
{
	return format_rule(r, true, p, buf, len);
}

int
ofp_format_rule_body(const struct ofp_rule *r, const struct ofp_port_map *p,
		     char *buf, size_t len)
{
	return format_rule(r, false, p, buf, len);
}

/* out_port=P: r has an output to P (OVS's ofpacts_output_to_port) */
static bool
outputs_to(const struct ofp_rule *r, uint32_t port)
{
	for (int i = 0; i < r->n_actions; i++)
		if (r->actions[i].type == OFPACT_OUTPUT &&
		    r->actions[i].port == port)
			return true;
	return false;
}

bool
ofp_rule_covered_by(const struct ofp_rule *r, const struct ofp_rule *filter)
{
	uint64_t stray = 0;

	if (filter->table_id != OFP_TABLE_ALL &&
	    filter->table_id != r->table_id)
		return false;
	if (filter->out_port && !outputs_to(r, filter->out_port))
		return false;
	if ((r->cookie ^ filter->cookie) & filter->cookie_mask)
		return false;
	for (int i = 0; i < 8; i++) {
		uint64_t fm = filter->meta_mask.w[i];
		stray |= fm & ~r->meta_mask.w[i];
		stray |= (r->meta_match.w[i] ^ filter->meta_match.w[i]) & fm;
	}

	/* r must match every bit the filter matches, with the same value:
	 * w7 (ext_line, the label) too, and the second line when the
	 * filter matches on it (w7 then requires r's ext_line). */
	int n_words = flow_key_has_ext(&filter->mask) ? FLOW_KEY_WORDS
						      : FLOW_KEY_LINE_WORDS;
	for (int i = 0; i < n_words; i++) {
		uint64_t fm = filter->mask.w[i];
		stray |= fm & ~r->mask.w[i];
		stray |= (r->match.w[i] ^ filter->match.w[i]) & fm;
	}
	return stray == 0;
}

static bool
meta_equal(const struct ofp_meta *a, const struct ofp_meta *b)
{
	uint64_t diff = 0;

	for (int i = 0; i < 8; i++)
		diff |= a->w[i] ^ b->w[i];
	return diff == 0;
}

bool
ofp_rule_same_match(const struct ofp_rule *a, const struct ofp_rule *b)
{
	return a->priority == b->priority && a->table_id == b->table_id &&
	       flow_key_equal(&a->mask, &b->mask) &&
	       flow_key_equal(&a->match, &b->match) &&
	       meta_equal(&a->meta_mask, &b->meta_mask) &&
	       meta_equal(&a->meta_match, &b->meta_match);
}

bool
ofp_rule_strict_match(const struct ofp_rule *r, const struct ofp_rule *filter)
{
	struct ofp_rule f = *filter;

	if (f.table_id == OFP_TABLE_ALL)
		f.table_id = r->table_id;
	if ((r->cookie ^ f.cookie) & f.cookie_mask)
		return false;
	if (f.out_port && !outputs_to(r, f.out_port))
		return false;
	return ofp_rule_same_match(r, &f);
}
