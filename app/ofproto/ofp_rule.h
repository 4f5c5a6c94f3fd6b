/* SPDX-License-Identifier: BSD-3-Clause
 * An OpenFlow-style rule as ovs-ofctl writes it:
 *   priority=100,in_port=vxlan,ip,nw_dst=192.1.0.1,actions=output:vhost-user1
 * Ports are referred to by OpenFlow port number (ofport); names are resolved
 * at parse time and printed back at format time through a port map.
 */
#ifndef VXS_OFP_RULE_H
#define VXS_OFP_RULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <rte_ether.h>
#include "flow_key.h"

#define OFP_MAX_ACTIONS 16
#define OFP_DEFAULT_PRIORITY 32768
#define OFPP_IN_PORT 0xfffffff8u	/* output:in_port */

enum ofp_action_type {
	OFPACT_OUTPUT,		/* port (ofport or OFPP_IN_PORT) */
	OFPACT_SET_TUNNEL,	/* u32: VNI (set_tunnel, set_field->tun_id) */
	OFPACT_SET_TUN_SRC,	/* ip */
	OFPACT_SET_TUN_DST,	/* ip */
	OFPACT_SET_ETH_SRC,	/* mac (mod_dl_src, set_field->eth_src) */
	OFPACT_SET_ETH_DST,	/* mac (mod_dl_dst, set_field->eth_dst) */
};

struct ofp_action {
	enum ofp_action_type type;
	uint32_t port;
	uint32_t u32;
	rte_be32_t ip;
	struct rte_ether_addr mac;
};

struct ofp_rule {
	uint16_t priority;
	uint64_t cookie;
	struct flow_key match;		/* already masked */
	struct flow_key mask;
	uint8_t n_actions;		/* 0 = drop */
	struct ofp_action actions[OFP_MAX_ACTIONS];
	uint32_t uid;			/* assigned by the rule table */
};

/* Name <-> ofport, supplied by whoever owns the ports. */
struct ofp_port_map {
	/* Returns the ofport for name, or 0 if there is no such port. */
	uint32_t (*port_by_name)(const char *name, void *aux);
	/* Returns the port's name, or NULL (then the number is printed). */
	const char *(*name_by_port)(uint32_t ofport, void *aux);
	void *aux;
};

enum ofp_parse_mode {
	OFP_PARSE_ADD,		/* actions= required */
	OFP_PARSE_MATCH,	/* del-flows/dump-flows filter: no actions */
};

/* ip_frag=NAME values (shared by the parser and the formatter). */
struct ofp_ip_frag_name {
	const char *name;
	uint8_t value, mask;
};
#define OFP_N_IP_FRAG_NAMES 5
extern const struct ofp_ip_frag_name ofp_ip_frag_names[OFP_N_IP_FRAG_NAMES];

/* Parses s. On error returns -1 and writes a message naming the offending
 * token to err ("unknown field 'nw_dstt'"); out is then unspecified. */
int ofp_parse_flow(const char *s, enum ofp_parse_mode mode,
		   const struct ofp_port_map *ports, struct ofp_rule *out,
		   char *err, size_t errlen);

/* ovs-ofctl dump-flows style: "priority=100,in_port=vxlan,ip,nw_dst=...
 * actions=output:vhost-user1". Returns the length written (like snprintf).
 * ofp_format_match writes just the match part (no priority). */
int ofp_format_rule(const struct ofp_rule *r, const struct ofp_port_map *p,
		    char *buf, size_t len);
int ofp_format_match(const struct flow_key *match, const struct flow_key *mask,
		     const struct ofp_port_map *p, char *buf, size_t len);
int ofp_format_actions(const struct ofp_rule *r, const struct ofp_port_map *p,
		       char *buf, size_t len);

/* Non-strict del-flows/dump-flows semantics: does rule r fall under the
 * filter (every field of the filter's mask is matched by r at least as
 * specifically, with equal values)? */
bool ofp_rule_covered_by(const struct ofp_rule *r, const struct ofp_rule *filter);

/* Rules equal in priority and match (the identity of a rule in a table). */
bool ofp_rule_same_match(const struct ofp_rule *a, const struct ofp_rule *b);

#endif
