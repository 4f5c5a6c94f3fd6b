/* SPDX-License-Identifier: BSD-3-Clause
 * The action half of the flow parser: output, set_tunnel, set_field,
 * mod_dl_src/dst, drop, and a clear refusal for the OVS actions vxswitch
 * does not implement.
 */
#include <arpa/inet.h>
#include <string.h>
#include <strings.h>

#include "ofp_parse_priv.h"

/* OVS actions we knowingly do not implement: a clearer error than
 * "unknown action or port". */
static const char *const unsupported_actions[] = {
	"normal", "flood", "all", "controller", "local", "learn", "move", "mod_vlan_vid", "mod_vlan_pcp", "strip_vlan",
	"push_vlan", "pop_vlan", "push_mpls", "pop_mpls", "enqueue", "note",
	"ct_clear", "group", "meter", "mod_nw_src", "mod_nw_dst",
	"mod_nw_tos", "mod_nw_ecn", "mod_tp_src", "mod_tp_dst", "dec_ttl",
	"set_queue", "pop_queue", "exit", "write_metadata",
	"clear_actions", "write_actions", "multipath", "bundle", "output_reg",
	"set_mpls_label", "set_mpls_tc", "set_mpls_ttl", "dec_mpls_ttl",
	"fin_timeout", "sample", "clone", "check_pkt_larger",
	"encap", "decap", "dec_nsh_ttl", "delete_field", "set_tunnel_key",
};

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
	a->port = ofp_resolve_port(p->ports, arg);
	if (!a->port)
		return ofp_fail(p, "output: unknown port '%s'", arg);
	return 0;
}

static int
act_set_tunnel(struct parser *p, const char *name, const char *arg,
	       struct ofp_action *a)
{
	uint64_t vni;

	if (!ofp_parse_uint(arg, UINT32_MAX, &vni))
		return ofp_fail(p, "%s: bad VNI '%s' (max 0xffffffff)",
				name, arg);
	a->type = OFPACT_SET_TUNNEL;
	a->u32 = (uint32_t)vni;
	return 0;
}

static int
act_set_mac(struct parser *p, const char *name, const char *arg, bool src,
	    struct ofp_action *a)
{
	if (!ofp_parse_mac(arg, &a->mac))
		return ofp_fail(p, "%s: bad MAC address '%s'", name, arg);
	a->type = src ? OFPACT_SET_ETH_SRC : OFPACT_SET_ETH_DST;
	return 0;
}

static int
act_set_ip(struct parser *p, const char *arg, bool src, struct ofp_action *a)
{
	if (!ofp_parse_ipv4(arg, &a->ip))
		return ofp_fail(p, "set_field: bad IPv4 address '%s'", arg);
	a->type = src ? OFPACT_SET_TUN_SRC : OFPACT_SET_TUN_DST;
	return 0;
}

static int
act_set_ip6(struct parser *p, const char *arg, bool src,
	    struct ofp_action *a)
{
	if (inet_pton(AF_INET6, arg, a->ip6.a) != 1)
		return ofp_fail(p, "set_field: bad IPv6 address '%s'", arg);
	a->type = src ? OFPACT_SET_TUN_IPV6_SRC : OFPACT_SET_TUN_IPV6_DST;
	return 0;
}

/* set_field:VALUE->FIELD */
static int
act_set_field(struct parser *p, char *arg, struct ofp_action *a)
{
	char *arrow = strstr(arg, "->");
	const char *field;

	if (!arrow)
		return ofp_fail(p, "set_field: expected VALUE->FIELD, got '%s'",
				arg);
	*arrow = '\0';
	field = arrow + 2;
	if (strchr(arg, '/'))
		return ofp_fail(p, "set_field: masks are not supported ('%s')",
				arg);
	int rc = ofp_parse_set_reg(p, arg, field, a);
	if (rc <= 0)
		return rc;
	if (!strcmp(field, "tun_id") || !strcmp(field, "tunnel_id"))
		return act_set_tunnel(p, "set_field", arg, a);
	if (!strcmp(field, "tun_src") || !strcmp(field, "tun_dst"))
		return act_set_ip(p, arg, !strcmp(field, "tun_src"), a);
	if (!strcmp(field, "tun_ipv6_src") || !strcmp(field, "tun_ipv6_dst"))
		return act_set_ip6(p, arg, !strcmp(field, "tun_ipv6_src"), a);
	if (!strcmp(field, "eth_src") || !strcmp(field, "dl_src"))
		return act_set_mac(p, "set_field", arg, true, a);
	if (!strcmp(field, "eth_dst") || !strcmp(field, "dl_dst"))
		return act_set_mac(p, "set_field", arg, false, a);
	return ofp_fail(p, "set_field: unsupported field '%s'", field);
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
		return ofp_fail(p, "unsupported action '%s'", word);
	a->type = OFPACT_OUTPUT;
	a->port = ofp_resolve_port(p->ports, word);
	if (!a->port)
		return ofp_fail(p, "unknown action or port '%s'", word);
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
	char *paren = strchr(tok, '(');
	int rc;

	memset(a, 0, sizeof *a);
	if (arg && paren && paren < arg)	/* ct(exec(load:...)) */
		arg = NULL;
	if (arg)
		*arg++ = '\0';
	rc = ofp_parse_pipeline_action(p, tok, arg, a);
	if (rc <= 0)
		return rc;
	if (takes_argument(tok) && (!arg || !*arg))
		return ofp_fail(p, "missing argument for '%s' ('%s:...')",
				tok, tok);
	if (!arg)
		return act_bare(p, tok, a);
	if (is_unsupported_action(tok))
		return ofp_fail(p, "unsupported action '%s'", tok);
	if (!strcasecmp(tok, "output"))
		return act_output(p, arg, a);
	if (!strcasecmp(tok, "set_tunnel") || !strcasecmp(tok, "set_tunnel64"))
		return act_set_tunnel(p, tok, arg, a);
	if (!strcasecmp(tok, "set_field"))
		return act_set_field(p, arg, a);
	if (!strcasecmp(tok, "mod_dl_src") || !strcasecmp(tok, "mod_dl_dst"))
		return act_set_mac(p, tok, arg, !strcasecmp(tok, "mod_dl_src"),
				   a);
	return ofp_fail(p, "unknown action '%s'", tok);
}

int
ofp_parse_actions(struct parser *p, char *s)
{
	struct ofp_rule *r = p->rule;
	bool drop = false;
	char *word;

	while ((word = ofp_next_word(&s))) {
		if (!strcasecmp(word, "drop")) {
			drop = true;
			continue;
		}
		if (r->n_actions == OFP_MAX_ACTIONS)
			return ofp_fail(p, "too many actions (max %d) at '%s'",
					OFP_MAX_ACTIONS, word);
		if (parse_action(p, word, &r->actions[r->n_actions]))
			return -1;
		r->n_actions++;
	}
	if (drop && r->n_actions)
		return ofp_fail(p, "'drop' must be the only action");
	return ofp_check_pipeline_actions(p);
}
