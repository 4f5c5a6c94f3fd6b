/* SPDX-License-Identifier: BSD-3-Clause
 * ovs-ofctl flow syntax -> struct ofp_rule.
 *
 * The string is copied and split in place into "key[=value]" tokens,
 * separated by commas and/or whitespace as ovs-ofctl allows; "actions="
 * takes the rest of the string. Match fields go straight into
 * rule->match/mask; prerequisites are checked only once every token is in,
 * so that token order never matters ("nw_dst=1.2.3.4,ip" is fine).
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ofp_rule.h"

#define OFPP_MAX 0xffffff00u	/* ofports from here on are reserved */

static const char dec_digits[] = "0123456789";
static const char hex_digits[] = "0123456789abcdefABCDEF";

/* What a match field needs from dl_type/nw_proto to mean anything. */
enum prereq {
	NEED_NOTHING,
	NEED_IP_OR_ARP,
	NEED_ARP,
	NEED_IP,
	NEED_TCP_OR_UDP,
	NEED_ICMP,
	N_PREREQS
};

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
	V_IP_FRAG,	/* no|first|later|yes|not_later */
	V_L4_PORT,	/* tp_src/tp_dst, maskable */
	V_ICMP,		/* icmp_type/icmp_code, kept in tp_src/tp_dst */
};

struct match_field {
	const char *name;
	enum mf_id id;
	enum value_kind kind;
	enum prereq need;
	uint8_t implies_proto;	/* udp_src & co. also mean ip,nw_proto=N */
};

static const struct match_field match_fields[] = {
	{ "in_port", MFF_IN_PORT, V_PORT, NEED_NOTHING, 0 },
	{ "tun_id", MFF_TUN_ID, V_U32_MASKED, NEED_NOTHING, 0 },
	{ "tunnel_id", MFF_TUN_ID, V_U32_MASKED, NEED_NOTHING, 0 },
	{ "tun_src", MFF_TUN_SRC, V_IPV4_MASKED, NEED_NOTHING, 0 },
	{ "tun_dst", MFF_TUN_DST, V_IPV4_MASKED, NEED_NOTHING, 0 },
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
	{ "nw_proto", MFF_NW_PROTO, V_U8, NEED_IP_OR_ARP, 0 },
	{ "ip_proto", MFF_NW_PROTO, V_U8, NEED_IP_OR_ARP, 0 },
	{ "arp_op", MFF_NW_PROTO, V_U8, NEED_ARP, 0 },
	{ "nw_tos", MFF_NW_TOS, V_DSCP, NEED_IP, 0 },
	{ "nw_ttl", MFF_NW_TTL, V_U8, NEED_IP, 0 },
	{ "ip_frag", MFF_NW_FRAG, V_IP_FRAG, NEED_IP, 0 },
	{ "tp_src", MFF_TP_SRC, V_L4_PORT, NEED_TCP_OR_UDP, 0 },
	{ "tp_dst", MFF_TP_DST, V_L4_PORT, NEED_TCP_OR_UDP, 0 },
	{ "udp_src", MFF_TP_SRC, V_L4_PORT, NEED_NOTHING, IPPROTO_UDP },
	{ "udp_dst", MFF_TP_DST, V_L4_PORT, NEED_NOTHING, IPPROTO_UDP },
	{ "tcp_src", MFF_TP_SRC, V_L4_PORT, NEED_NOTHING, IPPROTO_TCP },
	{ "tcp_dst", MFF_TP_DST, V_L4_PORT, NEED_NOTHING, IPPROTO_TCP },
	{ "icmp_type", MFF_TP_SRC, V_ICMP, NEED_ICMP, 0 },
	{ "icmp_code", MFF_TP_DST, V_ICMP, NEED_ICMP, 0 },
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
	{ "icmp", RTE_ETHER_TYPE_IPV4, IPPROTO_ICMP },
	{ "tcp", RTE_ETHER_TYPE_IPV4, IPPROTO_TCP },
	{ "udp", RTE_ETHER_TYPE_IPV4, IPPROTO_UDP },
};

/* OVS actions we knowingly do not implement: a clearer error than
 * "unknown action or port". */
static const char *const unsupported_actions[] = {
	"normal", "flood", "all", "controller", "local", "resubmit", "learn",
	"load", "move", "mod_vlan_vid", "mod_vlan_pcp", "strip_vlan",
	"push_vlan", "pop_vlan", "push_mpls", "pop_mpls", "enqueue", "note",
	"ct", "ct_clear", "group", "meter", "mod_nw_src", "mod_nw_dst",
	"mod_nw_tos", "mod_nw_ecn", "mod_tp_src", "mod_tp_dst", "dec_ttl",
	"set_queue", "pop_queue", "exit", "goto_table", "write_metadata",
	"clear_actions", "write_actions", "multipath", "bundle", "output_reg",
	"set_mpls_label", "set_mpls_tc", "set_mpls_ttl", "dec_mpls_ttl",
	"fin_timeout", "sample", "conjunction", "clone", "check_pkt_larger",
	"encap", "decap", "dec_nsh_ttl", "delete_field", "set_tunnel_key",
};

/* A field's value and mask, laid out as in struct flow_key. */
struct field_value {
	uint8_t v[8];
	uint8_t m[8];
};

/* Why a value did not parse: "<what> '<text>'<hint>". */
struct bad_value {
	const char *what;
	const char *text;
	const char *hint;
};

struct parser {
	const struct ofp_port_map *ports;
	struct ofp_rule *rule;
	uint32_t fields_set;		/* bit per enum mf_id */
	const char *needed_by[N_PREREQS]; /* first key needing each prereq */
	bool priority_set;
	bool cookie_set;
	char *err;
	size_t errlen;
};

static int __attribute__((format(printf, 2, 3)))
fail(struct parser *p, const char *fmt, ...)
{
	if (p->err && p->errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(p->err, p->errlen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

static bool
reject(struct bad_value *e, const char *what, const char *text,
       const char *hint)
{
	e->what = what;
	e->text = text;
	e->hint = hint;
	return false;
}

/* ---- scalar syntax ---------------------------------------------------- */

/* Decimal or 0x hex, nothing else: no sign, no octal, no trailing junk. */
static bool
parse_uint(const char *s, uint64_t max, uint64_t *out)
{
	const char *digits = dec_digits;
	int base = 10;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s += 2;
		digits = hex_digits;
		base = 16;
	}
	if (!*s || s[strspn(s, digits)])
		return false;
	errno = 0;
	unsigned long long v = strtoull(s, NULL, base);
	if (errno == ERANGE || v > max)
		return false;
	*out = v;
	return true;
}

static bool
parse_ipv4(const char *s, rte_be32_t *ip)
{
	struct in_addr a;

	if (inet_pton(AF_INET, s, &a) != 1)
		return false;
	*ip = a.s_addr;
	return true;
}

/* "/24" or "/255.255.255.0" */
static bool
parse_ipv4_mask(const char *s, rte_be32_t *mask)
{
	uint64_t plen;

	if (strchr(s, '.'))
		return parse_ipv4(s, mask);
	if (!parse_uint(s, 32, &plen))
		return false;
	*mask = plen ? rte_cpu_to_be_32(UINT32_MAX << (32 - plen)) : 0;
	return true;
}

static int
hex_value(char c)
{
	return isdigit((unsigned char)c) ? c - '0'
					 : tolower((unsigned char)c) - 'a' + 10;
}

/* Six groups of one or two hex digits separated by ':', as OVS takes. */
static bool
parse_mac(const char *s, struct rte_ether_addr *mac)
{
	for (int i = 0; i < RTE_ETHER_ADDR_LEN; i++) {
		size_t n = strspn(s, hex_digits);
		if (n < 1 || n > 2)
			return false;
		mac->addr_bytes[i] = (uint8_t)(n == 1 ? hex_value(s[0])
					: hex_value(s[0]) * 16 + hex_value(s[1]));
		s += n;
		if (i < RTE_ETHER_ADDR_LEN - 1 && *s++ != ':')
			return false;
	}
	return *s == '\0';
}

/* Numbers first (as ovs-ofctl does), then names; 0 if neither. */
static uint32_t
resolve_port(const struct ofp_port_map *ports, const char *s)
{
	uint64_t n;

	if (s[0] && !s[strspn(s, dec_digits)])
		return parse_uint(s, OFPP_MAX - 1, &n) ? (uint32_t)n : 0;
	if (ports && ports->port_by_name)
		return ports->port_by_name(s, ports->aux);
	return 0;
}

/* Splits "value/mask" in place; returns the mask text or NULL. */
static char *
split_mask(char *s)
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
value_port(struct parser *p, char *s, struct field_value *fv,
	   struct bad_value *e)
{
	uint32_t port = resolve_port(p->ports, s);

	if (!port)
		return reject(e, "unknown port", s, "");
	put_u32(fv->v, port);
	put_u32(fv->m, UINT32_MAX);
	return true;
}

static bool
value_u32_masked(char *s, struct field_value *fv, struct bad_value *e)
{
	char *m = split_mask(s);
	uint64_t v, mask = UINT32_MAX;

	if (!parse_uint(s, UINT32_MAX, &v))
		return reject(e, "bad number", s, " (max 0xffffffff)");
	if (m && !parse_uint(m, UINT32_MAX, &mask))
		return reject(e, "bad mask", m, " (max 0xffffffff)");
	put_u32(fv->v, (uint32_t)v);
	put_u32(fv->m, (uint32_t)mask);
	return true;
}

static bool
value_ipv4_masked(char *s, struct field_value *fv, struct bad_value *e)
{
	char *m = split_mask(s);
	rte_be32_t ip, mask = UINT32_MAX;

	if (!parse_ipv4(s, &ip))
		return reject(e, "bad IPv4 address", s, "");
	if (m && !parse_ipv4_mask(m, &mask))
		return reject(e, "bad IPv4 mask", m,
			      " (a prefix length 0..32 or a.b.c.d)");
	memcpy(fv->v, &ip, sizeof ip);
	memcpy(fv->m, &mask, sizeof mask);
	return true;
}

static bool
value_mac_masked(char *s, struct field_value *fv, struct bad_value *e)
{
	char *m = split_mask(s);
	struct rte_ether_addr mac, mask;

	memset(&mask, 0xff, sizeof mask);
	if (!parse_mac(s, &mac))
		return reject(e, "bad MAC address", s, "");
	if (m && !parse_mac(m, &mask))
		return reject(e, "bad MAC mask", m, "");
	memcpy(fv->v, &mac, sizeof mac);
	memcpy(fv->m, &mask, sizeof mask);
	return true;
}

static bool
value_uint_exact(char *s, uint64_t max, size_t len, struct field_value *fv,
		 struct bad_value *e)
{
	static const char *const hints[] = { "", " (max 255)", " (max 65535)" };
	uint64_t v;

	if (!parse_uint(s, max, &v))
		return reject(e, "bad number", s, hints[len]);
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
value_vlan_vid(char *s, struct field_value *fv, struct bad_value *e)
{
	uint64_t vid;

	if (!parse_uint(s, UINT16_MAX, &vid) || (vid > 4095 && vid != 0xffff))
		return reject(e, "bad VLAN ID", s, " (0..4095, or 0xffff)");
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
value_u16_masked(char *s, struct field_value *fv, struct bad_value *e)
{
	char *m = split_mask(s);
	uint64_t v, mask = UINT16_MAX;

	if (!parse_uint(s, UINT16_MAX, &v))
		return reject(e, "bad number", s, " (max 65535)");
	if (m && !parse_uint(m, UINT16_MAX, &mask))
		return reject(e, "bad mask", m, " (max 0xffff)");
	put_be16(fv->v, (uint16_t)v);
	put_be16(fv->m, (uint16_t)mask);
	return true;
}

/* Like OVS, nw_tos is the whole TOS byte with the ECN bits clear, and only
 * the DSCP bits are matched. */
static bool
value_dscp(char *s, struct field_value *fv, struct bad_value *e)
{
	uint64_t v;

	if (!parse_uint(s, UINT8_MAX, &v) || (v & 0x03))
		return reject(e, "bad nw_tos", s,
			      " (the TOS byte with ECN bits clear: 0, 4, ... 252)");
	fv->v[0] = (uint8_t)v;
	fv->m[0] = 0xfc;
	return true;
}

static bool
value_ip_frag(char *s, struct field_value *fv, struct bad_value *e)
{
	const struct ofp_ip_frag_name *frags = ofp_ip_frag_names;

	for (size_t i = 0; i < OFP_N_IP_FRAG_NAMES; i++) {
		if (!strcmp(s, frags[i].name)) {
			fv->v[0] = frags[i].value;
			fv->m[0] = frags[i].mask;
			return true;
		}
	}
	return reject(e, "bad value", s, " (no, yes, first, later, not_later)");
}

static bool
value_icmp(char *s, struct field_value *fv, struct bad_value *e)
{
	uint64_t v;

	if (!parse_uint(s, UINT8_MAX, &v))
		return reject(e, "bad number", s, " (max 255)");
	put_be16(fv->v, (uint16_t)v);
	put_be16(fv->m, UINT16_MAX);
	return true;
}

static bool
parse_value(struct parser *p, enum value_kind kind, char *s,
	    struct field_value *fv, struct bad_value *e)
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
	}
	return reject(e, "bad value", s, "");
}

/* ---- match ------------------------------------------------------------ */

/* Stores a field; giving it again is fine only with the same value. */
static int
set_field(struct parser *p, enum mf_id id, const struct field_value *fv,
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
			return fail(p, "conflicting values for %s ('%s')",
				    f->name, token);
		return 0;
	}
	memcpy(match, v, f->len);
	memcpy(mask, fv->m, f->len);
	p->fields_set |= 1u << id;
	return 0;
}

static int
set_protocol(struct parser *p, uint16_t dl_type, uint8_t nw_proto,
	     const char *token)
{
	struct field_value fv;

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
	struct field_value fv;
	struct bad_value e;
	char token[128];

	snprintf(token, sizeof token, "%s=%s", key, value);
	memset(&fv, 0, sizeof fv);
	if (!parse_value(p, f->kind, value, &fv, &e))
		return fail(p, "%s: %s '%s'%s", key, e.what, e.text, e.hint);
	if (set_field(p, f->id, &fv, token))
		return -1;
	if (f->implies_proto &&
	    set_protocol(p, RTE_ETHER_TYPE_IPV4, f->implies_proto, token))
		return -1;
	if (!p->needed_by[f->need])
		p->needed_by[f->need] = key;
	return 0;
}

static bool
dl_type_is(const struct ofp_rule *r, uint16_t type)
{
	return r->mask.dl_type && r->match.dl_type == rte_cpu_to_be_16(type);
}

static bool
nw_proto_is(const struct ofp_rule *r, uint8_t proto)
{
	return dl_type_is(r, RTE_ETHER_TYPE_IPV4) && r->mask.nw_proto &&
	       r->match.nw_proto == proto;
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
	case NEED_ARP:
		return dl_type_is(r, RTE_ETHER_TYPE_ARP);
	case NEED_IP:
		return dl_type_is(r, RTE_ETHER_TYPE_IPV4);
	case NEED_TCP_OR_UDP:
		return nw_proto_is(r, IPPROTO_TCP) || nw_proto_is(r, IPPROTO_UDP);
	case NEED_ICMP:
		return nw_proto_is(r, IPPROTO_ICMP);
	}
	return false;
}

static int
check_prereqs(struct parser *p)
{
	static const char *const advice[N_PREREQS] = {
		[NEED_IP_OR_ARP] = "ip or arp (add 'ip' or 'arp')",
		[NEED_ARP] = "arp (add 'arp')",
		[NEED_IP] = "ip (add 'ip')",
		[NEED_TCP_OR_UDP] = "tcp or udp (add 'udp' or 'nw_proto=17')",
		[NEED_ICMP] = "icmp (add 'icmp')",
	};

	for (int need = NEED_IP_OR_ARP; need < N_PREREQS; need++)
		if (p->needed_by[need] && !prereq_met(p->rule, need))
			return fail(p, "%s requires %s", p->needed_by[need],
				    advice[need]);
	return 0;
}

/* ---- non-match keys: priority, cookie, table --------------------------- */

static int
parse_priority(struct parser *p, const char *value)
{
	uint64_t v;

	if (!parse_uint(value, UINT16_MAX, &v))
		return fail(p, "priority: bad number '%s' (0..65535)", value);
	if (p->priority_set && p->rule->priority != v)
		return fail(p, "conflicting values for priority ('priority=%s')",
			    value);
	p->rule->priority = (uint16_t)v;
	p->priority_set = true;
	return 0;
}

static int
parse_cookie(struct parser *p, const char *value)
{
	uint64_t v;

	if (strchr(value, '/'))
		return fail(p, "cookie: masks are not supported ('cookie=%s')",
			    value);
	if (!parse_uint(value, UINT64_MAX, &v))
		return fail(p, "cookie: bad number '%s'", value);
	if (p->cookie_set && p->rule->cookie != v)
		return fail(p, "conflicting values for cookie ('cookie=%s')",
			    value);
	p->rule->cookie = v;
	p->cookie_set = true;
	return 0;
}

static int
parse_table(struct parser *p, const char *value)
{
	uint64_t v;

	if (!parse_uint(value, UINT8_MAX, &v) || v != 0)
		return fail(p, "only table 0 exists ('table=%s')", value);
	return 0;
}

static int
parse_match_token(struct parser *p, const char *key, char *value)
{
	const struct shorthand *sh = find_shorthand(key);
	const struct match_field *f;

	if (sh) {
		if (value)
			return fail(p, "'%s' takes no value ('%s=%s')", key,
				    key, value);
		return set_protocol(p, sh->dl_type, sh->nw_proto, key);
	}
	f = find_match_field(key);
	bool known = f || !strcmp(key, "priority") || !strcmp(key, "cookie") ||
		     !strcmp(key, "table");
	if (!known)
		return fail(p, "unknown field '%s'", key);
	if (!value)
		return fail(p, "missing value for '%s' ('%s=...')", key, key);
	if (!strcmp(key, "priority"))
		return parse_priority(p, value);
	if (!strcmp(key, "cookie"))
		return parse_cookie(p, value);
	if (!strcmp(key, "table"))
		return parse_table(p, value);
	return parse_match_field(p, f, key, value);
}

/* ---- actions ---------------------------------------------------------- */

static bool
is_unsupported_action(const char *name)
{
	size_t len = strcspn(name, "(");

	for (size_t i = 0; i < RTE_DIM(unsupported_actions); i++)
		if (strlen(unsupported_actions[i]) == len &&
		    !strncasecmp(name, unsupported_actions[i], len))
			return true;
	return false;
}

static int
act_output(struct parser *p, const char *arg, struct ofp_action *a)
{
	a->type = OFPACT_OUTPUT;
	if (!strcasecmp(arg, "in_port")) {
		a->port = OFPP_IN_PORT;
		return 0;
	}
	a->port = resolve_port(p->ports, arg);
	if (!a->port)
		return fail(p, "output: unknown port '%s'", arg);
	return 0;
}

static int
act_set_tunnel(struct parser *p, const char *name, const char *arg,
	       struct ofp_action *a)
{
	uint64_t vni;

	if (!parse_uint(arg, UINT32_MAX, &vni))
		return fail(p, "%s: bad VNI '%s' (max 0xffffffff)", name, arg);
	a->type = OFPACT_SET_TUNNEL;
	a->u32 = (uint32_t)vni;
	return 0;
}

static int
act_set_mac(struct parser *p, const char *name, const char *arg, bool src,
	    struct ofp_action *a)
{
	if (!parse_mac(arg, &a->mac))
		return fail(p, "%s: bad MAC address '%s'", name, arg);
	a->type = src ? OFPACT_SET_ETH_SRC : OFPACT_SET_ETH_DST;
	return 0;
}

static int
act_set_ip(struct parser *p, const char *arg, bool src, struct ofp_action *a)
{
	if (!parse_ipv4(arg, &a->ip))
		return fail(p, "set_field: bad IPv4 address '%s'", arg);
	a->type = src ? OFPACT_SET_TUN_SRC : OFPACT_SET_TUN_DST;
	return 0;
}

/* set_field:VALUE->FIELD */
static int
act_set_field(struct parser *p, char *arg, struct ofp_action *a)
{
	char *arrow = strstr(arg, "->");
	const char *field;

	if (!arrow)
		return fail(p, "set_field: expected VALUE->FIELD, got '%s'", arg);
	*arrow = '\0';
	field = arrow + 2;
	if (strchr(arg, '/'))
		return fail(p, "set_field: masks are not supported ('%s')", arg);
	if (!strcmp(field, "tun_id") || !strcmp(field, "tunnel_id"))
		return act_set_tunnel(p, "set_field", arg, a);
	if (!strcmp(field, "tun_src") || !strcmp(field, "tun_dst"))
		return act_set_ip(p, arg, !strcmp(field, "tun_src"), a);
	if (!strcmp(field, "eth_src") || !strcmp(field, "dl_src"))
		return act_set_mac(p, "set_field", arg, true, a);
	if (!strcmp(field, "eth_dst") || !strcmp(field, "dl_dst"))
		return act_set_mac(p, "set_field", arg, false, a);
	return fail(p, "set_field: unsupported field '%s'", field);
}

/* An action word without ':' that is no keyword is a port, as in
 * "actions=2" or "actions=vhost-user1". */
static int
act_bare(struct parser *p, const char *word, struct ofp_action *a)
{
	if (!strcasecmp(word, "in_port")) {
		a->type = OFPACT_OUTPUT;
		a->port = OFPP_IN_PORT;
		return 0;
	}
	if (is_unsupported_action(word))
		return fail(p, "unsupported action '%s'", word);
	a->type = OFPACT_OUTPUT;
	a->port = resolve_port(p->ports, word);
	if (!a->port)
		return fail(p, "unknown action or port '%s'", word);
	return 0;
}

static bool
takes_argument(const char *name)
{
	static const char *const names[] = {
		"output", "set_tunnel", "set_tunnel64", "set_field",
		"mod_dl_src", "mod_dl_dst",
	};

	for (size_t i = 0; i < RTE_DIM(names); i++)
		if (!strcasecmp(name, names[i]))
			return true;
	return false;
}

static int
parse_action(struct parser *p, char *tok, struct ofp_action *a)
{
	char *arg = strchr(tok, ':');

	memset(a, 0, sizeof *a);
	if (arg)
		*arg++ = '\0';
	if (takes_argument(tok) && (!arg || !*arg))
		return fail(p, "missing argument for '%s' ('%s:...')", tok, tok);
	if (!arg)
		return act_bare(p, tok, a);
	if (is_unsupported_action(tok))
		return fail(p, "unsupported action '%s'", tok);
	if (!strcasecmp(tok, "output"))
		return act_output(p, arg, a);
	if (!strcasecmp(tok, "set_tunnel") || !strcasecmp(tok, "set_tunnel64"))
		return act_set_tunnel(p, tok, arg, a);
	if (!strcasecmp(tok, "set_field"))
		return act_set_field(p, arg, a);
	if (!strcasecmp(tok, "mod_dl_src") || !strcasecmp(tok, "mod_dl_dst"))
		return act_set_mac(p, tok, arg, !strcasecmp(tok, "mod_dl_src"),
				   a);
	return fail(p, "unknown action '%s'", tok);
}

static bool
is_separator(char c)
{
	return c == ',' || isspace((unsigned char)c);
}

/* Splits the next comma/whitespace separated word off *pos. */
static char *
next_word(char **pos)
{
	char *s = *pos, *word;

	while (is_separator(*s))
		s++;
	if (!*s)
		return NULL;
	word = s;
	while (*s && !is_separator(*s))
		s++;
	if (*s)
		*s++ = '\0';
	*pos = s;
	return word;
}

static int
parse_actions(struct parser *p, char *s)
{
	struct ofp_rule *r = p->rule;
	bool drop = false;
	char *word;

	while ((word = next_word(&s))) {
		if (!strcasecmp(word, "drop")) {
			drop = true;
			continue;
		}
		if (r->n_actions == OFP_MAX_ACTIONS)
			return fail(p, "too many actions (max %d) at '%s'",
				    OFP_MAX_ACTIONS, word);
		if (parse_action(p, word, &r->actions[r->n_actions]))
			return -1;
		r->n_actions++;
	}
	if (drop && r->n_actions)
		return fail(p, "'drop' must be the only action");
	return 0;
}

/* ---- tokens ----------------------------------------------------------- */

static bool
is_actions_key(const char *key, size_t len)
{
	return (len == 7 && !strncmp(key, "actions", 7)) ||
	       (len == 6 && !strncmp(key, "action", 6));
}

static char *
skip_space(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	return s;
}

/* Splits the next "key[ = value]" off *pos, NUL-terminating both. For
 * "actions=" the value is the whole rest of the string. */
static bool
next_token(char **pos, char **key, char **value, bool *is_actions)
{
	char *s = *pos, *key_end, *v, *end;

	while (is_separator(*s))
		s++;
	if (!*s)
		return false;
	*key = s;
	while (*s && !is_separator(*s) && *s != '=')
		s++;
	key_end = s;
	*is_actions = is_actions_key(*key, (size_t)(key_end - *key));
	s = skip_space(s);
	if (*s != '=') {
		*value = NULL;
		*pos = *key_end ? key_end + 1 : key_end;
		*key_end = '\0';
		return true;
	}
	v = skip_space(s + 1);
	if (*is_actions) {
		end = v + strlen(v);
		while (end > v && isspace((unsigned char)end[-1]))
			end--;
	} else {
		end = v;
		while (*end && !is_separator(*end))
			end++;
	}
	*pos = *end ? end + 1 : end;
	*end = '\0';
	*key_end = '\0';
	*value = v;
	return true;
}

/* Returns the actions text (NULL if there was no "actions="), or sets
 * *failed. */
static char *
parse_tokens(struct parser *p, char *buf, bool *failed)
{
	char *pos = buf, *key, *value;
	bool is_actions;

	*failed = false;
	while (next_token(&pos, &key, &value, &is_actions)) {
		if (is_actions && !value) {
			*failed = true;
			fail(p, "missing '=' after '%s'", key);
			return NULL;
		}
		if (is_actions)
			return value;
		if (parse_match_token(p, key, value)) {
			*failed = true;
			return NULL;
		}
	}
	return NULL;
}

static int
parse_flow(struct parser *p, char *buf, enum ofp_parse_mode mode)
{
	bool failed;
	char *actions = parse_tokens(p, buf, &failed);

	if (failed || check_prereqs(p))
		return -1;
	if (mode == OFP_PARSE_MATCH && actions)
		return fail(p, "actions are not allowed here ('actions=%s')",
			    actions);
	if (mode == OFP_PARSE_ADD && !actions)
		return fail(p, "missing 'actions='");
	return actions ? parse_actions(p, actions) : 0;
}

int
ofp_parse_flow(const char *s, enum ofp_parse_mode mode,
	       const struct ofp_port_map *ports, struct ofp_rule *out,
	       char *err, size_t errlen)
{
	struct parser p = {
		.ports = ports, .rule = out, .err = err, .errlen = errlen,
	};
	char *buf;
	int rc;

	if (err && errlen)
		err[0] = '\0';
	if (!s || !out)
		return fail(&p, "no flow given");
	memset(out, 0, sizeof *out);
	out->priority = OFP_DEFAULT_PRIORITY;
	buf = strdup(s);
	if (!buf)
		return fail(&p, "out of memory");
	rc = parse_flow(&p, buf, mode);
	free(buf);
	return rc;
}
