/* SPDX-License-Identifier: BSD-3-Clause
 * The words of a flow_mod that are neither match nor actions, besides
 * priority, cookie, table and the timeouts (ofp_parse_match.c): the flags
 * send_flow_rem, check_overlap, reset_counts, no_packet_counts,
 * no_byte_counts, importance=N, and a filter's out_port=P, as ovs-ofctl
 * takes them (lib/ofp-flow.c, parse_ofp_str__). */
#include <string.h>
#include "ofp_parse_priv.h"

static int
parse_flag(struct parser *p, const char *key, const char *value, int bit)
{
	if (value)
		return ofp_fail(p, "'%s' takes no value ('%s=%s')", key, key,
				value);
	/* ovs-ofctl takes them on any command; only an add keeps them (a
	 * modify keeps the rule's, OVS's replace_rule_start) */
	p->rule->flags |= 1u << bit;
	return 0;
}

static int
parse_importance(struct parser *p, const char *value)
{
	uint64_t v;

	if (!value)
		return ofp_fail(p, "missing value for 'importance' "
				"('importance=...')");
	if (!ofp_parse_uint(value, UINT16_MAX, &v))
		return ofp_fail(p, "importance: bad number '%s' (0..65535)",
				value);
	p->rule->importance = (uint16_t)v;
	return 0;
}

static int
parse_out_port(struct parser *p, char *value)
{
	if (!value)
		return ofp_fail(p, "missing value for 'out_port' "
				"('out_port=...')");
	if (p->mode == OFP_PARSE_ADD)
		return ofp_fail(p, "out_port: for del-flows, mod-flows and "
				"dump-flows, not a new rule ('out_port=%s')",
				value);
	uint32_t port = ofp_resolve_port(p->ports, value);
	if (!port)
		return ofp_fail(p, "out_port: unknown port '%s'", value);
	p->rule->out_port = port;
	return 0;
}

int
ofp_parse_fmod_token(struct parser *p, const char *key, char *value)
{
	for (int i = 0; i < OFP_N_FLAGS; i++)
		if (!strcmp(key, ofp_flag_name(i)))
			return parse_flag(p, key, value, i);
	if (!strcmp(key, "importance"))
		return parse_importance(p, value);
	if (!strcmp(key, "out_port"))
		return parse_out_port(p, value);
	return 1;
}
