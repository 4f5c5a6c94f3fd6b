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

/* A flow_mod's flags, ovs-ofctl's words (ovs-fields(7) "Flow Syntax"):
 * kept with the rule, printed by dump-flows, acted on by ofproto.c. */
#define OFP_FF_SEND_FLOW_REM	0x01	/* kept; no controller to tell yet */
#define OFP_FF_CHECK_OVERLAP	0x02	/* add refused on an overlap */
#define OFP_FF_RESET_COUNTS	0x04	/* a replacing add zeroes counters */
#define OFP_FF_NO_PKT_COUNTS	0x08	/* kept (counting is per megaflow) */
#define OFP_FF_NO_BYT_COUNTS	0x10
#define OFP_N_FLAGS 5

/* Tables 0..254, as OVS; 255 (OFPTT_ALL) is "every table" in a del-flows
 * or dump-flows filter and "the current table" in resubmit(PORT,). */
#define OFP_N_TABLES 255
#define OFP_TABLE_ALL 255
#define OFP_N_REGS 8
/* ct() actions and sg() actions per rule, and exec() loads per ct() */
#define OFP_MAX_CT 2
#define OFP_MAX_CT_EXEC 2

/* Pipeline metadata and connection-tracking fields a rule can match.
 * They are not packet header fields: registers start at zero for every
 * packet and change only through load/set_field while a translation
 * runs, and the ct_* fields are what a ct() or sg() action would
 * produce. So they live beside struct flow_key, not in it, and never in
 * a megaflow's mask. Host order throughout. */
struct ofp_meta {
	union {
		uint64_t w[8];
		struct {
			uint32_t regs[OFP_N_REGS];
			uint32_t ct_state;	/* OFP_CS_* */
			uint32_t ct_mark;
			uint16_t ct_zone;
			uint16_t pad16;
			uint32_t conj_id;	/* conj_id=N: set only by
						 * a completed conjunction
						 * (xlate_pipeline.c) */
			uint64_t ct_label[2];	/* [0] high, [1] low 64 bits */
		};
	};
};
_Static_assert(sizeof(struct ofp_meta) == 64, "ofp_meta is 8 words");

/* ct_state bits, as OVS (ovs-fields(7)) */
#define OFP_CS_NEW  0x01
#define OFP_CS_EST  0x02
#define OFP_CS_REL  0x04
#define OFP_CS_RPL  0x08
#define OFP_CS_INV  0x10
#define OFP_CS_TRK  0x20
#define OFP_CS_SNAT 0x40
#define OFP_CS_DNAT 0x80
#define OFP_CS_ALL  0xff

/* A field a load/set_field can write (registers in every action list,
 * ct_mark and ct_label only inside ct(exec(...))). */
enum ofp_meta_field {
	OFP_MF_REG0,		/* .. OFP_MF_REG0 + 7 */
	OFP_MF_CT_MARK = OFP_N_REGS,
	OFP_MF_CT_LABEL,
};

/* nat / nat(src=...) / nat(dst=...) in ct() and sg() */
enum ofp_nat_kind {
	OFP_NAT_NONE,
	OFP_NAT_PLAIN,		/* "nat": reverse or keep existing NAT */
	OFP_NAT_SRC,
	OFP_NAT_DST,
};

struct ofp_nat {
	uint8_t kind;		/* enum ofp_nat_kind */
	rte_be32_t ip_min, ip_max;	/* 0: no address given */
	uint16_t port_min, port_max;	/* 0: no port given */
	bool v6;			/* an IPv6 range: ip6_min..ip6_max
					 * (ip_min, ip_max 0) */
	uint8_t ip6_min[16], ip6_max[16];
};

/* One load:V->FIELD[ofs..ofs+nbits-1] or set_field:V->FIELD (whole). */
struct ofp_load {
	uint8_t field;		/* enum ofp_meta_field */
	uint8_t ofs, nbits;	/* nbits 0: the whole field */
	bool set_field;		/* written as set_field (else load) */
	uint64_t value[2];	/* ct_label: [0] high, [1] low; others [1] */
};

/* ct(...) or sg(...): the parameters, kept beside the action list. */
struct ofp_ct {
	bool is_sg;		/* sg(allow|deny,...) rather than ct(...) */
	bool allow;		/* sg: allow, else deny */
	bool commit;
	uint8_t table;		/* ct(table=T), OFP_TABLE_ALL: none */
	uint16_t zone;		/* zone=N */
	int8_t zone_reg;	/* zone=NXM_NX_REGn[a..b]: n, else -1 */
	uint8_t zone_ofs, zone_nbits;
	struct ofp_nat nat;
	uint8_t n_exec;
	struct ofp_load exec[OFP_MAX_CT_EXEC];
};

enum ofp_action_type {
	OFPACT_OUTPUT,		/* port (ofport or OFPP_IN_PORT) */
	OFPACT_SET_TUNNEL,	/* u32: VNI (set_tunnel, set_field->tun_id) */
	OFPACT_SET_TUN_SRC,	/* ip */
	OFPACT_SET_TUN_DST,	/* ip */
	OFPACT_SET_TUN_IPV6_SRC, /* ip6 */
	OFPACT_SET_TUN_IPV6_DST, /* ip6 */
	OFPACT_SET_ETH_SRC,	/* mac (mod_dl_src, set_field->eth_src) */
	OFPACT_SET_ETH_DST,	/* mac (mod_dl_dst, set_field->eth_dst) */
	OFPACT_RESUBMIT,	/* port (OFPP_IN_PORT: unchanged), table
				 * (OFP_TABLE_ALL: this one) */
	OFPACT_GOTO_TABLE,	/* table: last action, a later table */
	OFPACT_LOAD,		/* register write: slot = register,
				 * u32 = value, ofs/nbits (0: whole),
				 * form 1 = written as set_field */
	OFPACT_CT,		/* ct(...): parameters in rule->ct[slot] */
	OFPACT_SG,		/* sg(...): parameters in rule->ct[slot] */
	OFPACT_CONJUNCTION,	/* conjunction(u32, ofs/nbits): clause ofs
				 * (1-based) of nbits; a rule with one has
				 * only these */
};


struct ofp_action {
	enum ofp_action_type type;
	uint32_t port;
	uint32_t u32;
	union {
		struct {
			rte_be32_t ip;
			struct rte_ether_addr mac;
		};
		struct flow_in6_addr ip6;	/* SET_TUN_IPV6_* */
	};
	uint8_t table;		/* RESUBMIT, GOTO_TABLE */
	uint8_t slot;		/* CT, SG: index in rule->ct[];
				 * LOAD: register number */
	uint8_t form;		/* LOAD: 1 if written as set_field */
	uint8_t ofs, nbits;	/* LOAD: bits written (nbits 0: all);
				 * CONJUNCTION: clause k of n */
};

struct ofp_rule {
	uint16_t priority;
	uint8_t table_id;		/* OFP_TABLE_ALL only in a filter */
	uint64_t cookie;
	/* A filter's (dump-flows, del-flows, mod-flows): the cookie bits it
	 * matches (cookie=V/M; cookie=V: all of them); 0: any cookie. */
	uint64_t cookie_mask;
	bool cookie_given;		/* cookie=V written (mod-flows sets
					 * it on the rules it changes) */
	uint16_t idle_timeout;		/* seconds, 0: none (ovs-ofctl) */
	uint16_t hard_timeout;
	uint16_t importance;		/* importance=N (OpenFlow 1.4) */
	uint8_t flags;			/* OFP_FF_*: a new rule's */
	/* A filter's (del-flows, mod-flows, dump-flows) out_port=P: only
	 * rules with an output to P; 0 (no port has it): any. */
	uint32_t out_port;
	struct flow_key match;		/* already masked */
	struct flow_key mask;
	struct ofp_meta meta_match;	/* already masked */
	struct ofp_meta meta_mask;
	uint8_t n_actions;		/* 0 = drop */
	uint8_t n_ct;			/* used entries of ct[] */
	struct ofp_action actions[OFP_MAX_ACTIONS];
	struct ofp_ct ct[OFP_MAX_CT];
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

/* The port table as ofp_parse/format see it (ofp_port_map.c): overlay
 * ports only (the underlay NIC is not part of the OpenFlow bridge, as
 * br-phy is apart from br-int). */
const struct ofp_port_map *ports_ofp_map(void);
/* The same for rules being added: a name no port has (yet) gets a number
 * set aside for it, so the rule is kept and matches once a port of that
 * name is added (OVS keeps rules by port number). */
const struct ofp_port_map *ports_ofp_map_adding(void);

enum ofp_parse_mode {
	OFP_PARSE_ADD,		/* actions= required */
	OFP_PARSE_MATCH,	/* del-flows/dump-flows filter: no actions */
	OFP_PARSE_MODIFY,	/* mod-flows: a filter (every table unless
				 * table=, cookie=V/M) and the new actions */
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

/* ovs-ofctl dump-flows style: "table=3,priority=100,ip,in_port=vxlan,
 * nw_dst=... actions=output:vhost-user1", fields in ovs-ofctl's order;
 * table= only for a table other than 0, so that the text reads back as
 * the same rule. Returns the length written (like snprintf).
 * ofp_format_rule_body leaves table= out (dump-flows prints it before the
 * counters). ofp_format_match writes just the flow_key part of a match. */
int ofp_format_rule(const struct ofp_rule *r, const struct ofp_port_map *p,
		    char *buf, size_t len);
int ofp_format_rule_body(const struct ofp_rule *r,
			 const struct ofp_port_map *p, char *buf, size_t len);
int ofp_format_match(const struct flow_key *match, const struct flow_key *mask,
		     const struct ofp_port_map *p, char *buf, size_t len);
int ofp_format_actions(const struct ofp_rule *r, const struct ofp_port_map *p,
		       char *buf, size_t len);

/* Non-strict del-flows/dump-flows semantics: does rule r fall under the
 * filter (every field of the filter's mask is matched by r at least as
 * specifically, with equal values)? */
bool ofp_rule_covered_by(const struct ofp_rule *r, const struct ofp_rule *filter);

/* ovs-ofctl's input words for r's flags and importance, each followed by
 * ',' ("send_flow_rem,importance=3,"), to go before actions= (state save);
 * and dump-flows' form ("send_flow_rem check_overlap importance=3, ",
 * ofputil_flow_stats_format's order). Both return the length, as
 * snprintf (ofp_format_fmod.c). */
int ofp_format_fmod_words(const struct ofp_rule *r, char *buf, size_t len);
int ofp_format_fmod_dump(const struct ofp_rule *r, char *buf, size_t len);
/* ovs-ofctl's word for flag bit i (0..OFP_N_FLAGS-1) */
const char *ofp_flag_name(int i);

/* check_overlap: same table and priority, and some packet matches both
 * (every field both match has the same value in both). */
bool ofp_rule_overlaps(const struct ofp_rule *a, const struct ofp_rule *b);

/* Rules equal in table, priority and match (the identity of a rule). */
bool ofp_rule_same_match(const struct ofp_rule *a, const struct ofp_rule *b);
/* del-flows --strict: as ofp_rule_same_match, a filter without table=
 * (OFP_TABLE_ALL) taking any table. */
bool ofp_rule_strict_match(const struct ofp_rule *r,
			   const struct ofp_rule *filter);

/* An IPv6 nat range's addresses as OVS prints them (format_NAT,
 * format_odp_ct_nat): min, then -max unless the same, each in brackets
 * when a port follows (ipv6_format_addr_bracket); into out[n]
 * (ofp_format_ipv6.c). */
void ofp_format_nat6(char *out, size_t n, const uint8_t min[16],
		     const uint8_t max[16], bool bracket);

#endif
