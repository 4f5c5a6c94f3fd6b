/* SPDX-License-Identifier: BSD-3-Clause
 * Between the parts of the ovs-ofctl flow parser (ofp_parse*.c): the
 * parser state, the shared lexer (numbers, addresses, ports, words) and the
 * match and action halves the token loop in ofp_parse.c calls. Not for
 * other modules.
 */
#ifndef VXS_OFP_PARSE_PRIV_H
#define VXS_OFP_PARSE_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ofp_rule.h"

/* What a match field needs from dl_type/nw_proto to mean anything. */
enum prereq {
	NEED_NOTHING,
	NEED_IP_OR_ARP,		/* IPv4 or ARP: nw_src, nw_dst */
	NEED_IP_ANY_OR_ARP,	/* IPv4, IPv6 or ARP: nw_proto */
	NEED_ARP,
	NEED_IP_ANY,		/* IPv4 or IPv6: nw_tos, nw_ttl, nw_frag */
	NEED_IPV6,		/* ipv6_src, ipv6_dst, ipv6_label */
	NEED_TCP_OR_UDP,	/* over IPv4 or IPv6 */
	NEED_ICMP_ANY,		/* icmp or icmp6: icmp_type, icmpv6_type */
	NEED_ND,		/* icmp6, icmp_type=135|136, code 0: nd_target */
	NEED_ND_NS,		/* ... icmp_type=135: nd_sll */
	NEED_ND_NA,		/* ... icmp_type=136: nd_tll */
	N_PREREQS
};

/* The longest "key=value" an error quotes for a prerequisite. */
#define OFP_PREREQ_TOKEN_MAX 128

struct parser {
	const struct ofp_port_map *ports;
	struct ofp_rule *rule;
	uint32_t fields_set;		/* bit per enum mf_id */
	const char *needed_by[N_PREREQS]; /* first key needing each prereq */
	/* ... and its "key=value", for the error (values are split in
	 * place while they are parsed, so this is a copy) */
	char needed_tok[N_PREREQS][OFP_PREREQ_TOKEN_MAX];
	/* udp_src & co. (first such key): they imply nw_proto at once and
	 * ip unless the rule says ipv6, which only the end of the rule can
	 * tell (ofp_check_prereqs) */
	const char *implies_ip_by;
	uint32_t meta_set;		/* bit per metadata field (ofp_parse_ct.c) */
	bool table_set;
	bool priority_set;
	bool cookie_set;
	enum ofp_parse_mode mode;
	char *err;
	size_t errlen;
};

/* Writes the error into p->err; returns -1. */
int __attribute__((format(printf, 2, 3)))
ofp_fail(struct parser *p, const char *fmt, ...);

/* ---- shared lexer (ofp_parse_lex.c) ----------------------------------- */

/* Decimal or 0x hex, nothing else: no sign, no octal, no trailing junk. */
bool ofp_parse_uint(const char *s, uint64_t max, uint64_t *out);
bool ofp_parse_ipv4(const char *s, rte_be32_t *ip);
/* Six groups of one or two hex digits separated by ':', as OVS takes. */
bool ofp_parse_mac(const char *s, struct rte_ether_addr *mac);
/* Numbers first (as ovs-ofctl does), then names; 0 if neither. */
uint32_t ofp_resolve_port(const struct ofp_port_map *ports, const char *s);
bool ofp_is_separator(char c);
/* Splits the next comma/whitespace separated word off *pos; separators
 * inside parentheses do not split ("ct(commit,zone=1)" is one word). */
char *ofp_next_word(char **pos);

/* ---- match values (ofp_parse_match.c, ofp_parse_ipv6.c) ---------------- */

/* A field's value and mask, laid out as in struct flow_key. */
struct ofp_field_value {
	uint8_t v[16];
	uint8_t m[16];
};

/* Why a value did not parse: "<what> '<text>'<hint>". */
struct ofp_bad_value {
	const char *what;
	const char *text;
	const char *hint;
};

/* Fills e; returns false. */
bool ofp_reject(struct ofp_bad_value *e, const char *what, const char *text,
		const char *hint);
/* Splits "value/mask" in place; returns the mask text or NULL. */
char *ofp_split_mask(char *s);
/* ipv6_src, ipv6_dst, nd_target: ADDR, ADDR/PREFIXLEN (0..128) or
 * ADDR/MASKADDR, as OVS's ipv6_parse_masked (inet_pton syntax). */
bool ofp_value_ipv6_masked(char *s, struct ofp_field_value *fv,
			   struct ofp_bad_value *e);
/* ipv6_label: V or V/M, V at most 0xfffff (20 bits) */
bool ofp_value_ipv6_label(char *s, struct ofp_field_value *fv,
			  struct ofp_bad_value *e);

/* NEED_IPV6, NEED_ND, NEED_ND_NS, NEED_ND_NA (ofp_parse_ipv6.c) */
bool ofp_prereq_ipv6_met(const struct ofp_rule *r, enum prereq need);

/* ---- the two halves --------------------------------------------------- */

/* One match token: a field, a shorthand (ip, udp...), priority, cookie
 * or table; value is NULL for "key" without '=' (ofp_parse_match.c). */
int ofp_parse_match_token(struct parser *p, const char *key, char *value);
/* Once every token is in: each field's dl_type/nw_proto prerequisite. */
int ofp_check_prereqs(struct parser *p);
/* The text after "actions=" into p->rule->actions (ofp_parse_actions.c). */
int ofp_parse_actions(struct parser *p, char *s);

/* The flags, importance=N and out_port=P: 1 if key is none of them, else
 * 0 or -1 (error written) (ofp_parse_fmod.c). */
int ofp_parse_fmod_token(struct parser *p, const char *key, char *value);

/* ---- pipeline and connection tracking (ofp_parse_ct.c) ----------------- */

/* Match keys ct_state, ct_zone, ct_mark, ct_label, reg0..reg7: 1 if key is
 * none of them, else 0 or -1 (error written). */
int ofp_parse_meta_token(struct parser *p, const char *key, char *value);
/* Actions resubmit, goto_table, load, ct, sg and set_field to a register
 * (name is the word before ':' or '(', arg what follows, NULL if
 * nothing): 1 if name is none of them, else 0 or -1. */
int ofp_parse_pipeline_action(struct parser *p, char *name, char *arg,
			      struct ofp_action *a);
/* set_field:VALUE->regN; 1 if field is no register. */
int ofp_parse_set_reg(struct parser *p, const char *value, const char *field,
		      struct ofp_action *a);
/* Once the whole action list is in: goto_table last, ct()/sg() on ip. */
int ofp_check_pipeline_actions(struct parser *p);

/* Shared by ofp_parse_pipeline.c and ofp_parse_ct.c: */
/* FIELD[a..b] of a register, ct_mark or ct_label */
struct ofp_subfield {
	uint8_t field;		/* enum ofp_meta_field */
	uint8_t ofs, nbits;	/* nbits: bits named */
	uint8_t width;		/* the field's width */
};

/* 0x and up to 32 hex digits, or a decimal up to 2^64-1; v[0] high. */
bool ofp_parse_u128(const char *s, uint64_t v[2]);
/* FIELD[], FIELD[a], FIELD[a..b] with FIELD NXM_NX_REGn, reg<n>,
 * NXM_NX_CT_MARK, NXM_NX_CT_LABEL; what names the action for errors. */
int ofp_parse_subfield(struct parser *p, const char *what, const char *s,
		       struct ofp_subfield *sf);
/* load:V->SUBFIELD (set_field false) or set_field:V->FIELD */
int ofp_parse_load(struct parser *p, const char *what, char *arg,
		   bool set_field, struct ofp_load *l);
int ofp_parse_table_number(struct parser *p, const char *what, const char *s,
			   uint8_t *t);
/* ct(...) (is_sg false) or sg(...): inside is the text in parentheses. */
int ofp_parse_ct(struct parser *p, char *inside, bool is_sg,
		 struct ofp_action *a);

#endif
