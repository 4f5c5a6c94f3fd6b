/* SPDX-License-Identifier: BSD-3-Clause
 * The pipeline and connection-tracking half of the flow parser, in
 * ovs-ofctl's syntax (ovs-fields(7), ovs-actions(7)):
 *   matches  ct_state=+trk+new-est | 0x21/0x3f | new|trk, ct_zone=N,
 *            ct_mark=V[/M], ct_label=V[/M] (128 bits), reg0..reg7=V[/M]
 *   actions  resubmit(,T) resubmit(PORT,T) resubmit:PORT goto_table:T
 *            load:V->NXM_NX_REGn[a..b] set_field:V->regN
 *            ct(commit,zone=N|zone=NXM_NX_REGn[0..15],table=T,nat,
 *               nat(src|dst=IP[-IP][:PORT[-PORT]]),
 *               exec(set_field:V->ct_mark|ct_label, load:...))
 *            sg(allow|deny[,zone=N][,commit][,nat(src|dst=...)])
 * ct(...) and sg(...) themselves are ofp_parse_ct.c's. Whether the
 * datapath can run what is parsed here is not the parser's business
 * (xlate_check_executable).
 */
#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ofp_parse_priv.h"

/* ---- metadata fields --------------------------------------------------- */

enum meta_id {
	META_REG0,		/* .. META_REG0 + 7 */
	META_CT_STATE = OFP_N_REGS,
	META_CT_ZONE,
	META_CT_MARK,
	META_CT_LABEL,
	META_CONJ_ID,
};

static const char *const ct_flag_names[8] = {
	"new", "est", "rel", "rpl", "inv", "trk", "snat", "dnat",
};

/* 128-bit value: 0x and up to 32 hex digits, or a decimal up to 2^64-1. */
bool
ofp_parse_u128(const char *s, uint64_t v[2])
{
	size_t n;

	v[0] = v[1] = 0;
	if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X')) {
		uint64_t x;
		if (!ofp_parse_uint(s, UINT64_MAX, &x))
			return false;
		v[1] = x;
		return true;
	}
	s += 2;
	n = strlen(s);
	if (!n || n > 32 || s[strspn(s, "0123456789abcdefABCDEF")])
		return false;
	for (; *s; s++) {
		unsigned d = isdigit((unsigned char)*s)
				     ? (unsigned)(*s - '0')
				     : (unsigned)(tolower((unsigned char)*s) - 'a' + 10);
		v[0] = (v[0] << 4) | (v[1] >> 60);
		v[1] = (v[1] << 4) | d;
	}
	return true;
}

static int
ct_flag_bit(const char *name, size_t len)
{
	for (int i = 0; i < 8; i++)
		if (strlen(ct_flag_names[i]) == len &&
		    !strncmp(name, ct_flag_names[i], len))
			return 1 << i;
	return 0;
}

#define CT_FLAG_HINT " (new, est, rel, rpl, inv, trk, snat, dnat)"

/* +trk+new-est: each flag once, the mask is the flags named. */
static int
ct_state_signed(struct parser *p, const char *s, uint32_t *v, uint32_t *m)
{
	*v = *m = 0;
	while (*s) {
		bool plus = *s == '+';
		const char *name;
		size_t len;
		int bit;

		if (*s != '+' && *s != '-')
			return ofp_fail(p, "ct_state: expected '+' or '-' at "
					"'%s'", s);
		name = ++s;
		len = strcspn(name, "+-");
		bit = ct_flag_bit(name, len);
		if (!bit)
			return ofp_fail(p, "ct_state: unknown flag '%.*s'%s",
					(int)len, name, CT_FLAG_HINT);
		if (*m & (uint32_t)bit)
			return ofp_fail(p, "ct_state: flag '%.*s' given twice",
					(int)len, name);
		*m |= (uint32_t)bit;
		if (plus)
			*v |= (uint32_t)bit;
		s = name + len;
	}
	return 0;
}

/* new|trk (what dump-flows prints for an exact match) */
static int
ct_state_names(struct parser *p, const char *s, uint32_t *v, uint32_t *m)
{
	*v = 0;
	*m = UINT32_MAX;
	while (*s) {
		size_t len = strcspn(s, "|");
		int bit = ct_flag_bit(s, len);

		if (!bit)
			return ofp_fail(p, "ct_state: unknown flag '%.*s'%s",
					(int)len, s, CT_FLAG_HINT);
		*v |= (uint32_t)bit;
		s += len + (s[len] == '|');
	}
	return 0;
}

static int
parse_ct_state(struct parser *p, char *s, uint32_t *v, uint32_t *m)
{
	char *mask;
	uint64_t x, y = UINT32_MAX;

	if (s[0] == '+' || s[0] == '-')
		return ct_state_signed(p, s, v, m);
	if (!isdigit((unsigned char)s[0]))
		return ct_state_names(p, s, v, m);
	mask = strchr(s, '/');
	if (mask)
		*mask++ = '\0';
	if (!ofp_parse_uint(s, UINT32_MAX, &x) ||
	    (mask && !ofp_parse_uint(mask, UINT32_MAX, &y)))
		return ofp_fail(p, "ct_state: bad value '%s%s%s'", s,
				mask ? "/" : "", mask ? mask : "");
	if ((x & y & ~(uint64_t)OFP_CS_ALL) ||
	    (y != UINT32_MAX && (y & ~(uint64_t)OFP_CS_ALL)))
		return ofp_fail(p, "ct_state: unknown flag bits in '%s%s%s'"
				" (known: 0xff)", s, mask ? "/" : "",
				mask ? mask : "");
	*v = (uint32_t)(x & y);
	*m = (uint32_t)y;
	return 0;
}

/* V[/M] of up to 32 bits */
static int
parse_u32_masked(struct parser *p, const char *key, char *s, uint32_t *v,
		 uint32_t *m)
{
	char *mask = strchr(s, '/');
	uint64_t x, y = UINT32_MAX;

	if (mask)
		*mask++ = '\0';
	if (!ofp_parse_uint(s, UINT32_MAX, &x))
		return ofp_fail(p, "%s: bad number '%s' (max 0xffffffff)",
				key, s);
	if (mask && !ofp_parse_uint(mask, UINT32_MAX, &y))
		return ofp_fail(p, "%s: bad mask '%s' (max 0xffffffff)", key,
				mask);
	*v = (uint32_t)(x & y);
	*m = (uint32_t)y;
	return 0;
}

static int
parse_label(struct parser *p, char *s, uint64_t v[2], uint64_t m[2])
{
	char *mask = strchr(s, '/');

	if (mask)
		*mask++ = '\0';
	if (!ofp_parse_u128(s, v))
		return ofp_fail(p, "ct_label: bad value '%s' (up to 128 bits, "
				"0x...)", s);
	m[0] = m[1] = UINT64_MAX;
	if (mask && !ofp_parse_u128(mask, m))
		return ofp_fail(p, "ct_label: bad mask '%s'", mask);
	v[0] &= m[0];
	v[1] &= m[1];
	return 0;
}

static int
meta_id_of(const char *key)
{
	if (!strncmp(key, "reg", 3) && key[3] >= '0' &&
	    key[3] < '0' + OFP_N_REGS && !key[4])
		return META_REG0 + key[3] - '0';
	if (!strcmp(key, "ct_state"))
		return META_CT_STATE;
	if (!strcmp(key, "ct_zone"))
		return META_CT_ZONE;
	if (!strcmp(key, "ct_mark"))
		return META_CT_MARK;
	if (!strcmp(key, "ct_label"))
		return META_CT_LABEL;
	if (!strcmp(key, "conj_id"))
		return META_CONJ_ID;
	return -1;
}

/* Where field id lies in struct ofp_meta. */
static void
meta_span(int id, size_t *off, size_t *len)
{
	switch (id) {
	case META_CT_STATE:
		*off = offsetof(struct ofp_meta, ct_state), *len = 4;
		return;
	case META_CT_ZONE:
		*off = offsetof(struct ofp_meta, ct_zone), *len = 2;
		return;
	case META_CT_MARK:
		*off = offsetof(struct ofp_meta, ct_mark), *len = 4;
		return;
	case META_CT_LABEL:
		*off = offsetof(struct ofp_meta, ct_label), *len = 16;
		return;
	case META_CONJ_ID:
		*off = offsetof(struct ofp_meta, conj_id), *len = 4;
		return;
	default:
		*off = offsetof(struct ofp_meta, regs) + 4 * (size_t)id;
		*len = 4;
	}
}

int
ofp_parse_meta_token(struct parser *p, const char *key, char *value)
{
	struct ofp_meta v, m;
	struct ofp_meta *rv = &p->rule->meta_match, *rm = &p->rule->meta_mask;
	int id = meta_id_of(key);
	char token[160];
	uint64_t zone;
	int rc = 0;

	if (id < 0)
		return 1;
	if (!value)
		return ofp_fail(p, "missing value for '%s' ('%s=...')", key,
				key);
	snprintf(token, sizeof token, "%s=%s", key, value);
	memset(&v, 0, sizeof v);
	memset(&m, 0, sizeof m);
	if (id < OFP_N_REGS) {
		rc = parse_u32_masked(p, key, value, &v.regs[id], &m.regs[id]);
	} else if (id == META_CT_STATE) {
		rc = parse_ct_state(p, value, &v.ct_state, &m.ct_state);
	} else if (id == META_CT_ZONE) {
		if (!ofp_parse_uint(value, UINT16_MAX, &zone))
			return ofp_fail(p, "ct_zone: bad zone '%s' (0..65535, "
					"no mask)", value);
		v.ct_zone = (uint16_t)zone;
		m.ct_zone = UINT16_MAX;
	} else if (id == META_CT_MARK) {
		rc = parse_u32_masked(p, key, value, &v.ct_mark, &m.ct_mark);
	} else if (id == META_CONJ_ID) {
		if (!ofp_parse_uint(value, UINT32_MAX, &zone))
			return ofp_fail(p, "conj_id: bad id '%s' (no mask)",
					value);
		v.conj_id = (uint32_t)zone;
		m.conj_id = UINT32_MAX;
	} else {
		rc = parse_label(p, value, v.ct_label, m.ct_label);
	}
	if (rc)
		return -1;
	if (p->meta_set & (1u << id)) {
		/* given again: fine only with the same value and mask */
		size_t off, len;
		meta_span(id, &off, &len);
		if (memcmp((uint8_t *)&v + off, (uint8_t *)rv + off, len) ||
		    memcmp((uint8_t *)&m + off, (uint8_t *)rm + off, len))
			return ofp_fail(p, "conflicting values for %s ('%s')",
					key, token);
		return 0;
	}
	p->meta_set |= 1u << id;
	for (int w = 0; w < 8; w++) {
		rv->w[w] |= v.w[w];
		rm->w[w] |= m.w[w];
	}
	return 0;
}

/* ---- subfields: NXM_NX_REG6[0..15], NXM_NX_CT_MARK[], reg6[] ----------- */

static bool
subfield_name(const char *name, size_t len, struct ofp_subfield *sf)
{
	char buf[24];

	if (len >= sizeof buf)
		return false;
	memcpy(buf, name, len);
	buf[len] = '\0';
	for (int i = 0; i < OFP_N_REGS; i++) {
		char nxm[16], oxm[8];
		snprintf(nxm, sizeof nxm, "NXM_NX_REG%d", i);
		snprintf(oxm, sizeof oxm, "reg%d", i);
		if (!strcmp(buf, nxm) || !strcmp(buf, oxm)) {
			sf->field = (uint8_t)(OFP_MF_REG0 + i);
			sf->width = 32;
			return true;
		}
	}
	if (!strcmp(buf, "NXM_NX_CT_MARK") || !strcmp(buf, "ct_mark")) {
		sf->field = OFP_MF_CT_MARK;
		sf->width = 32;
		return true;
	}
	if (!strcmp(buf, "NXM_NX_CT_LABEL") || !strcmp(buf, "ct_label")) {
		sf->field = OFP_MF_CT_LABEL;
		sf->width = 128;
		return true;
	}
	return false;
}

/* FIELD[], FIELD[a], FIELD[a..b] */
int
ofp_parse_subfield(struct parser *p, const char *what, const char *s,
	       struct ofp_subfield *sf)
{
	const char *br = strchr(s, '[');
	size_t n = strlen(s);
	unsigned a, b;
	char tail;

	if (!br || n < 2 || s[n - 1] != ']' ||
	    !subfield_name(s, (size_t)(br - s), sf))
		return ofp_fail(p, "%s: bad field '%s' (NXM_NX_REG0..7[...]"
				", NXM_NX_CT_MARK[], NXM_NX_CT_LABEL[])",
				what, s);
	if (!strcmp(br, "[]")) {
		sf->ofs = 0;
		sf->nbits = sf->width == 128 ? 0 : sf->width;
		return 0;
	}
	if (sscanf(br, "[%u..%u%c", &a, &b, &tail) == 3 && tail == ']') {
	} else if (sscanf(br, "[%u%c", &a, &tail) == 2 && tail == ']') {
		b = a;
	} else {
		return ofp_fail(p, "%s: bad bit range in '%s'", what, s);
	}
	if (a > b || b >= sf->width || (sf->width == 128 && b - a >= 64))
		return ofp_fail(p, "%s: bits %u..%u do not fit '%s'", what,
				a, b, s);
	sf->ofs = (uint8_t)a;
	sf->nbits = (uint8_t)(b - a + 1);
	return 0;
}

/* ---- loads: load:V->SUBFIELD, set_field:V->FIELD ---------------------- */

static int
fill_load(struct parser *p, const char *what, const char *value,
	  const struct ofp_subfield *sf, bool set_field, struct ofp_load *l)
{
	uint64_t v[2];

	if (!ofp_parse_u128(value, v))
		return ofp_fail(p, "%s: bad value '%s'", what, value);
	unsigned bits = sf->nbits ? sf->nbits : sf->width;
	bool fits = bits >= 128 ||
		    (!v[0] && (bits >= 64 || v[1] < (1ull << bits)));
	if (!fits)
		return ofp_fail(p, "%s: value %s does not fit into %u bits",
				what, value, bits);
	memset(l, 0, sizeof *l);
	l->field = sf->field;
	l->ofs = sf->ofs;
	l->nbits = sf->nbits == sf->width ? 0 : sf->nbits;
	l->set_field = set_field;
	l->value[0] = v[0];
	l->value[1] = v[1];
	return 0;
}

/* "V->DST" split; returns the DST text or NULL. */
static char *
split_arrow(char *s)
{
	char *arrow = strstr(s, "->");

	if (!arrow)
		return NULL;
	*arrow = '\0';
	return arrow + 2;
}

/* load:V->DST or set_field:V->FIELD into a struct ofp_load. */
int
ofp_parse_load(struct parser *p, const char *what, char *arg, bool set_field,
	   struct ofp_load *l)
{
	char *dst = split_arrow(arg);
	struct ofp_subfield sf;
	char full[32];

	if (!dst)
		return ofp_fail(p, "%s: expected VALUE->FIELD, got '%s'", what,
				arg);
	if (set_field) {
		if (strchr(arg, '/'))
			return ofp_fail(p, "set_field: masks are not supported "
					"('%s')", arg);
		snprintf(full, sizeof full, "%.24s[]", dst);
		if (!subfield_name(dst, strlen(dst), &sf))
			return ofp_fail(p, "set_field: unsupported field '%s'",
					dst);
		if (ofp_parse_subfield(p, what, full, &sf))
			return -1;
	} else if (ofp_parse_subfield(p, what, dst, &sf)) {
		return -1;
	}
	return fill_load(p, what, arg, &sf, set_field, l);
}

static int
load_to_action(struct parser *p, const struct ofp_load *l,
	       struct ofp_action *a)
{
	if (l->field >= OFP_N_REGS)
		return ofp_fail(p, "%s: ct_mark and ct_label are written only "
				"inside ct(commit,exec(...))",
				l->set_field ? "set_field" : "load");
	a->type = OFPACT_LOAD;
	a->slot = l->field;
	a->u32 = (uint32_t)l->value[1];
	a->ofs = l->ofs;
	a->nbits = l->nbits;
	a->form = l->set_field;
	return 0;
}

int
ofp_parse_set_reg(struct parser *p, const char *value, const char *field,
		  struct ofp_action *a)
{
	struct ofp_subfield sf;
	struct ofp_load l;
	char buf[128];

	if (!subfield_name(field, strlen(field), &sf) ||
	    sf.field >= OFP_N_REGS)
		return 1;
	snprintf(buf, sizeof buf, "%s->%s", value, field);
	if (ofp_parse_load(p, "set_field", buf, true, &l))
		return -1;
	return load_to_action(p, &l, a);
}

/* ---- resubmit, goto_table ---------------------------------------------- */

int
ofp_parse_table_number(struct parser *p, const char *what, const char *s,
		   uint8_t *t)
{
	uint64_t v;

	if (!ofp_parse_uint(s, OFP_N_TABLES - 1, &v))
		return ofp_fail(p, "%s: bad table '%s' (0..%d)", what, s,
				OFP_N_TABLES - 1);
	*t = (uint8_t)v;
	return 0;
}

static int
resubmit_port(struct parser *p, const char *s, uint32_t *port)
{
	if (!*s || !strcasecmp(s, "in_port")) {
		*port = OFPP_IN_PORT;
		return 0;
	}
	*port = ofp_resolve_port(p->ports, s);
	if (!*port)
		return ofp_fail(p, "resubmit: unknown port '%s'", s);
	if (*port > FLOW_IN_PORT_MAX)	/* it becomes the key's in_port */
		return ofp_fail(p, "resubmit: port out of range '%s' "
				"(ofports are 1..65279)", s);
	return 0;
}

/* resubmit:PORT (arg after ':') or resubmit(PORT,TABLE) (arg inside) */
static int
parse_resubmit(struct parser *p, char *arg, bool paren,
	       struct ofp_action *a)
{
	char *comma = paren ? strchr(arg, ',') : NULL;

	a->type = OFPACT_RESUBMIT;
	a->table = OFP_TABLE_ALL;
	if (!paren) {
		if (resubmit_port(p, arg, &a->port))
			return -1;
		if (a->port == OFPP_IN_PORT)
			return ofp_fail(p, "resubmit: 'resubmit:%s' names no "
					"other port and no table", arg);
		return 0;
	}
	if (!comma)
		return ofp_fail(p, "resubmit: expected (PORT,TABLE), got "
				"'resubmit(%s)'", arg);
	*comma = '\0';
	if (!*arg && !comma[1])
		return ofp_fail(p, "resubmit: give a port or a table "
				"('resubmit(,)')");
	if (strchr(comma + 1, ','))
		return ofp_fail(p, "resubmit: unsupported argument in "
				"'resubmit(%s,%s)'", arg, comma + 1);
	if (resubmit_port(p, arg, &a->port))
		return -1;
	if (comma[1] && ofp_parse_table_number(p, "resubmit", comma + 1, &a->table))
		return -1;
	if (a->port == OFPP_IN_PORT && a->table == OFP_TABLE_ALL)
		return ofp_fail(p, "resubmit: 'resubmit(%s,)' names no other "
				"port and no table", arg);
	return 0;
}

/* ---- entry points ------------------------------------------------------ */

/* conjunction(ID,K/N), as OVS: clause K of N (2 <= N <= 64) */
static int
parse_conjunction(struct parser *p, const char *s, struct ofp_action *a)
{
	const char *text = s;
	unsigned long id, k, n;
	char *end;

	errno = 0;
	id = strtoul(s, &end, 0);
	if (end == s || *end != ',' || errno || id > UINT32_MAX)
		goto bad;
	s = end + 1;
	k = strtoul(s, &end, 10);
	if (end == s || *end != '/')
		goto bad;
	s = end + 1;
	n = strtoul(s, &end, 10);
	if (end == s || *end)
		goto bad;
	if (n < 2 || n > 64 || k < 1 || k > n)
		return ofp_fail(p, "conjunction: clause %lu/%lu: the number "
				"of clauses is 2..64 and the clause 1..that",
				k, n);
	a->type = OFPACT_CONJUNCTION;
	a->u32 = (uint32_t)id;
	a->ofs = (uint8_t)k;
	a->nbits = (uint8_t)n;
	return 0;
bad:
	return ofp_fail(p, "conjunction: expected conjunction(ID,K/N), got "
			"'conjunction(%s)'", text);
}

int
ofp_parse_pipeline_action(struct parser *p, char *name, char *arg,
			  struct ofp_action *a)
{
	size_t n;
	struct ofp_load l;

	/* name(args...) arrives as name "x(args...)" with no ':' split */
	if (!arg && strchr(name, '(')) {
		char *open = strchr(name, '(');
		n = strlen(name);
		if (name[n - 1] != ')')
			return ofp_fail(p, "unbalanced parentheses in '%s'",
					name);
		*open = '\0';
		name[n - 1] = '\0';
		if (!strcmp(name, "resubmit"))
			return parse_resubmit(p, open + 1, true, a);
		if (!strcmp(name, "ct") || !strcmp(name, "sg"))
			return ofp_parse_ct(p, open + 1, name[0] == 's', a);
		if (!strcmp(name, "conjunction"))
			return parse_conjunction(p, open + 1, a);
		*open = '(';
		name[n - 1] = ')';
		return 1;
	}
	if (!strcmp(name, "ct") && !arg)	/* bare "ct" */
		return ofp_parse_ct(p, name + 2, false, a);
	if (!arg)
		return 1;
	if (!strcmp(name, "resubmit"))
		return parse_resubmit(p, arg, false, a);
	if (!strcmp(name, "goto_table")) {
		a->type = OFPACT_GOTO_TABLE;
		return ofp_parse_table_number(p, "goto_table", arg, &a->table);
	}
	if (!strcmp(name, "load")) {
		if (ofp_parse_load(p, "load", arg, false, &l))
			return -1;
		return load_to_action(p, &l, a);
	}
	return 1;
}

static bool
rule_is_ip(const struct ofp_rule *r)
{
	return r->mask.dl_type &&
	       r->match.dl_type == rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
}

/* ct() and sg() need either family (OVS's ct prerequisite) */
static bool
rule_is_ip_any(const struct ofp_rule *r)
{
	return rule_is_ip(r) ||
	       (r->mask.dl_type &&
		r->match.dl_type == rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6));
}

int
ofp_check_pipeline_actions(struct parser *p)
{
	const struct ofp_rule *r = p->rule;

	for (int i = 0; i < r->n_actions; i++) {
		const struct ofp_action *a = &r->actions[i];
		if ((a->type == OFPACT_CONJUNCTION) !=
		    (r->actions[0].type == OFPACT_CONJUNCTION))
			return ofp_fail(p, "conjunction() cannot be mixed with "
					"other actions");
		if (a->type == OFPACT_CONJUNCTION && r->meta_mask.conj_id)
			return ofp_fail(p, "a conjunction() rule cannot match "
					"conj_id");
		if (a->type == OFPACT_GOTO_TABLE) {
			if (i != r->n_actions - 1)
				return ofp_fail(p, "goto_table:%u must be the "
						"last action", a->table);
			if (a->table <= r->table_id)
				return ofp_fail(p, "goto_table:%u must go to a "
						"later table than this rule's "
						"(table=%u)", a->table,
						r->table_id);
		}
		if ((a->type == OFPACT_CT || a->type == OFPACT_SG) &&
		    !rule_is_ip_any(r))
			return ofp_fail(p, "%s() requires ip or ipv6 (add 'ip' "
					"or 'ipv6')",
					a->type == OFPACT_CT ? "ct" : "sg");
	}
	/* an IPv4 range on an ip rule only, an IPv6 one on an ipv6 rule
	 * only (OVS's check_NAT: OFPBAC_MATCH_INCONSISTENT) */
	for (int i = 0; i < r->n_ct; i++)
		if ((r->ct[i].nat.ip_min && !rule_is_ip(r)) ||
		    (r->ct[i].nat.v6 && rule_is_ip(r)))
			return ofp_fail(p, "%s(nat(src|dst=ADDRESS)): an IPv%c "
					"range requires %s (actions are invalid "
					"with specified match, "
					"OFPBAC_MATCH_INCONSISTENT)",
					r->ct[i].is_sg ? "sg" : "ct",
					r->ct[i].nat.v6 ? '6' : '4',
					r->ct[i].nat.v6 ? "ipv6" : "ip");
	return 0;
}
