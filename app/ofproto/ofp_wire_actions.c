/* SPDX-License-Identifier: BSD-3-Clause
 * OpenFlow actions and instructions -> struct ofp_rule's action list, for
 * what vxswitch executes: output (ports, in_port, LOCAL), set_field and
 * Nicira's reg_load/reg_load2 (registers; tun_id, tun_src/dst and their
 * IPv6 forms, eth_src/dst), set_tunnel(64), mod_dl_src/dst (1.0),
 * resubmit and resubmit_table, conjunction, ct with its nested nat and
 * exec set_field/reg_load to ct_mark/ct_label, and the goto_table
 * instruction. Everything else is refused with the error OVS gives an
 * action it does not know (OFPBAC_BAD_TYPE, OFPBAC_BAD_EXP_TYPE,
 * OFPBAC_BAD_EXPERIMENTER, OFPBIC_UNSUP_INST...), so a controller learns
 * at once that the rule was not taken. Lengths are checked before every
 * read (OVS's errors: OFPBAC_BAD_LEN, OFPBIC_BAD_LEN).
 */
#include <string.h>

#include "ofp_wire_priv.h"

#define OFPAT10_OUTPUT 0
#define OFPAT10_SET_DL_SRC 4
#define OFPAT10_SET_DL_DST 5
#define OFPAT_SET_FIELD 25
#define OFPAT_EXPERIMENTER 0xffff

#define NXAST_RESUBMIT 1
#define NXAST_SET_TUNNEL 2
#define NXAST_REG_LOAD 7
#define NXAST_SET_TUNNEL64 9
#define NXAST_RESUBMIT_TABLE 14
#define NXAST_REG_LOAD2 33
#define NXAST_CONJUNCTION 34
#define NXAST_CT 35
#define NXAST_NAT 36

#define NX_CT_F_COMMIT 1
#define NX_NAT_F_SRC 1
#define NX_NAT_F_DST 2

struct act_ctx {
	struct ofp_rule *r;
	uint8_t version;
	struct ofp_ct *ct;	/* inside NXAST_CT's nested actions */
	/* A tunnel IPv6 address written in parts (1.0 sends it as two
	 * 64-bit REG_LOADs): the action being filled and the bits so far. */
	struct ofp_action *partial;
	uint8_t partial_bits[16];
};

static enum ofp_wire_error
new_action(struct act_ctx *c, struct ofp_action **a)
{
	if (c->r->n_actions == OFP_MAX_ACTIONS)
		return OFPW_BAC_TOO_MANY;
	*a = &c->r->actions[c->r->n_actions++];
	memset(*a, 0, sizeof **a);
	return 0;
}

/* 1.0's 16-bit port, or 1.1+'s 32-bit one, as an ofport, OFPP_IN_PORT or
 * LOCAL (65534); 0 for what vxswitch cannot output to. */
static uint32_t
wire_port(uint32_t port, bool wide)
{
	if (wide) {
		if (port >= OFPP11_OFFSET + 0xff00)
			port -= OFPP11_OFFSET;
		else if (port > FLOW_IN_PORT_MAX)
			return 0;
	}
	if (port == OFPP10_IN_PORT)
		return OFPP_IN_PORT;
	if (port == OFPP10_LOCAL)
		return OFPP_LOCAL_NUM;
	return port <= FLOW_IN_PORT_MAX ? port : 0;
}

/* ---- set_field, reg_load, reg_load2 ------------------------------------ */

/* A contiguous mask of width*8 bits (big-endian bytes) as ofs/nbits;
 * false if it is not contiguous or zero. */
static bool
mask_span(const uint8_t *m, unsigned width, unsigned *ofs, unsigned *nbits)
{
	unsigned bits = width * 8, lo = bits, hi = 0;

	for (unsigned b = 0; b < bits; b++) {
		bool set = m[width - 1 - b / 8] & (1u << (b % 8));
		if (set) {
			if (lo == bits)
				lo = b;
			if (hi && hi != b)
				return false;
			hi = b + 1;
		}
	}
	if (lo == bits)
		return false;
	*ofs = lo;
	*nbits = hi - lo;
	return true;
}

/* bits ofs..ofs+nbits-1 of the big-endian v[width] as two 64-bit words
 * ([0] high), shifted down to bit 0 */
static void
extract_bits(const uint8_t *v, unsigned width, unsigned ofs, unsigned nbits,
	     uint64_t out[2])
{
	out[0] = out[1] = 0;
	for (unsigned i = 0; i < nbits; i++) {
		unsigned b = ofs + i;
		if (v[width - 1 - b / 8] & (1u << (b % 8)))
			out[i / 64 ? 0 : 1] |= 1ull << (i % 64);
	}
}

/* Part of a tunnel IPv6 address: merged into the action the previous
 * part started; the list is refused if it ends with the address not
 * whole (pull_list). */
static enum ofp_wire_error
set_partial_ip6(struct act_ctx *c, enum wire_set_target t, const uint8_t *v,
		const uint8_t *m)
{
	enum ofp_action_type type = t == WST_TUN6_SRC ? OFPACT_SET_TUN_IPV6_SRC
						      : OFPACT_SET_TUN_IPV6_DST;
	struct ofp_action *a = c->partial;
	enum ofp_wire_error err;
	bool whole = true;

	if (!a || a->type != type) {
		if (c->partial)
			return OFPW_BAC_BAD_SET_TYPE;
		if ((err = new_action(c, &a)))
			return err;
		a->type = type;
		memset(c->partial_bits, 0, sizeof c->partial_bits);
		c->partial = a;
	}
	for (int i = 0; i < 16; i++) {
		if (c->partial_bits[i] & m[i])
			return OFPW_BAC_BAD_SET_TYPE;	/* bits written twice */
		a->ip6.a[i] |= v[i] & m[i];
		c->partial_bits[i] |= m[i];
		whole &= c->partial_bits[i] == 0xff;
	}
	if (whole)
		c->partial = NULL;
	return 0;
}

/* The high half of a ct_label written whole: OpenFlow 1.0 has no
 * set_field, and OVS sends one as two 64-bit REG_LOADs, low bits first.
 * The previous exec load, of bits 0..63, becomes the whole label. */
static bool
label_completes(struct ofp_ct *ct, unsigned ofs, unsigned nbits,
		bool set_field, const uint64_t val[2])
{
	struct ofp_load *l;

	if (!ct->n_exec || set_field || ofs != 64 || nbits != 64)
		return false;
	l = &ct->exec[ct->n_exec - 1];
	if (l->field != OFP_MF_CT_LABEL || l->set_field || l->ofs ||
	    l->nbits != 64)
		return false;
	l->nbits = 0;
	l->value[0] = val[1];
	return true;
}

/* Writes value v (and mask m, or NULL: whole) of a set target. form:
 * 1 = written as set_field, else as load. */
static enum ofp_wire_error
set_target(struct act_ctx *c, enum wire_set_target t, int reg,
	   unsigned width, const uint8_t *v, const uint8_t *m, bool set_field)
{
	unsigned ofs = 0, nbits = width * 8;
	struct ofp_action *a;
	enum ofp_wire_error err;
	uint64_t val[2];

	if (m && !mask_span(m, width, &ofs, &nbits))
		return OFPW_BAC_BAD_SET_ARGUMENT;
	/* OVS shows a set_field of part of a field as load:V->F[a..b] */
	set_field = set_field && nbits == width * 8;
	extract_bits(v, width, ofs, nbits, val);
	if (t == WST_CT_MARK || t == WST_CT_LABEL) {
		struct ofp_load *l;

		if (!c->ct)	/* written only inside ct(exec(...)) */
			return OFPW_BAC_BAD_SET_ARGUMENT;
		if (t == WST_CT_LABEL && label_completes(c->ct, ofs, nbits,
							 set_field, val))
			return 0;
		if (c->ct->n_exec == OFP_MAX_CT_EXEC)
			return OFPW_BAC_TOO_MANY;
		l = &c->ct->exec[c->ct->n_exec++];
		memset(l, 0, sizeof *l);
		l->field = t == WST_CT_MARK ? OFP_MF_CT_MARK : OFP_MF_CT_LABEL;
		l->ofs = (uint8_t)ofs;
		l->nbits = nbits == width * 8 ? 0 : (uint8_t)nbits;
		l->set_field = set_field;
		l->value[0] = val[0];
		l->value[1] = val[1];
		return 0;
	}
	if (c->ct)
		return OFPW_BAC_BAD_ARGUMENT;
	if ((t == WST_TUN6_SRC || t == WST_TUN6_DST) && m &&
	    nbits != width * 8)
		return set_partial_ip6(c, t, v, m);
	/* the rest set a whole field (vxswitch keeps no partial writes of
	 * tunnel or Ethernet fields) */
	if (t != WST_REG && nbits != width * 8)
		return OFPW_BAC_BAD_SET_TYPE;
	err = new_action(c, &a);
	if (err)
		return err;
	switch (t) {
	case WST_REG:
		a->type = OFPACT_LOAD;
		a->slot = (uint8_t)reg;
		a->u32 = (uint32_t)val[1];
		a->ofs = (uint8_t)ofs;
		a->nbits = nbits == 32 ? 0 : (uint8_t)nbits;
		a->form = set_field;
		return 0;
	case WST_TUN_ID:
		if (val[1] >> 32)	/* vxswitch's tunnel ids: 32 bits */
			return OFPW_BAC_BAD_SET_ARGUMENT;
		a->type = OFPACT_SET_TUNNEL;
		a->u32 = (uint32_t)val[1];
		return 0;
	case WST_TUN_SRC:
	case WST_TUN_DST:
		a->type = t == WST_TUN_SRC ? OFPACT_SET_TUN_SRC
					   : OFPACT_SET_TUN_DST;
		memcpy(&a->ip, v, 4);
		return 0;
	case WST_TUN6_SRC:
	case WST_TUN6_DST:
		a->type = t == WST_TUN6_SRC ? OFPACT_SET_TUN_IPV6_SRC
					    : OFPACT_SET_TUN_IPV6_DST;
		memcpy(a->ip6.a, v, 16);
		return 0;
	case WST_ETH_SRC:
	case WST_ETH_DST:
		a->type = t == WST_ETH_SRC ? OFPACT_SET_ETH_SRC
					   : OFPACT_SET_ETH_DST;
		memcpy(&a->mac, v, 6);
		return 0;
	default:
		break;
	}
	return OFPW_BAC_BAD_SET_TYPE;
}

/* An OXM TLV: set_field (mask only in 1.5) or NXAST_REG_LOAD2. */
static enum ofp_wire_error
pull_set_field(struct act_ctx *c, const uint8_t *p, size_t len, bool reg_load2)
{
	enum wire_set_target t;
	unsigned width, plen;
	uint32_t h;
	bool hasmask;
	int reg;

	if (len < 4)
		return OFPW_BAC_BAD_SET_LEN;
	h = be_get32(p);
	plen = h & 0xff;
	hasmask = h & 0x100;
	if ((h >> 16) == 0xffff)
		return OFPW_BAC_BAD_SET_TYPE;
	t = ofp_wire_set_target(h, &reg, &width);
	if (t == WST_NONE)
		return OFPW_BAC_BAD_SET_TYPE;
	if (plen != (hasmask ? 2 : 1) * width || 4 + plen > len)
		return OFPW_BAC_BAD_SET_LEN;
	/* the rest of the action is padding */
	if (!all_zero(p + 4 + plen, len - 4 - plen))
		return OFPW_BAC_BAD_ARGUMENT;
	if (hasmask && !reg_load2 && c->version < OFP15_VERSION)
		return OFPW_BAC_BAD_SET_ARGUMENT;
	if (hasmask)
		for (unsigned i = 0; i < width; i++)
			if (p[4 + i] & ~p[4 + width + i])
				return OFPW_BAC_BAD_SET_ARGUMENT;
	return set_target(c, t, reg, width, p + 4,
			  hasmask ? p + 4 + width : NULL, !reg_load2);
}

/* NXAST_REG_LOAD: ofs_nbits, a header, a 64-bit value */
static enum ofp_wire_error
pull_reg_load(struct act_ctx *c, const uint8_t *p)
{
	uint16_t ofs_nbits = be_get16(p + 10);
	unsigned ofs = ofs_nbits >> 6, nbits = (ofs_nbits & 63) + 1, width;
	uint64_t value = be_get64(p + 16);
	uint8_t v[16] = { 0 }, m[16] = { 0 };
	enum wire_set_target t;
	int reg;

	t = ofp_wire_set_target(be_get32(p + 12), &reg, &width);
	if (t == WST_NONE)
		return OFPW_BAC_BAD_SET_TYPE;
	if (ofs + nbits > width * 8)
		return OFPW_BAC_BAD_SET_LEN;
	if (nbits < 64 && value >> nbits)
		return OFPW_BAC_BAD_ARGUMENT;
	for (unsigned i = 0; i < nbits; i++) {
		unsigned b = ofs + i;
		m[width - 1 - b / 8] |= (uint8_t)(1u << (b % 8));
		if (i < 64 && (value >> i) & 1)
			v[width - 1 - b / 8] |= (uint8_t)(1u << (b % 8));
	}
	return set_target(c, t, reg, width, v, m, false);
}

/* ---- ct and nat --------------------------------------------------------- */

static enum ofp_wire_error pull_list(struct act_ctx *c, const uint8_t *p,
				     size_t len);

static enum ofp_wire_error
pull_nat(struct act_ctx *c, const uint8_t *p, size_t len)
{
	struct ofp_nat *nat;
	uint16_t flags, present;
	size_t at = 16;

	if (!c->ct)		/* nat only inside ct() */
		return OFPW_BAC_BAD_ARGUMENT;
	nat = &c->ct->nat;
	if (nat->kind != OFP_NAT_NONE)
		return OFPW_BAC_BAD_ARGUMENT;
	if (be_get16(p + 10))
		return OFPW_NXBAC_MUST_BE_ZERO;
	flags = be_get16(p + 12);
	present = be_get16(p + 14);
	if ((flags & ~(NX_NAT_F_SRC | NX_NAT_F_DST)) ||
	    (flags & NX_NAT_F_SRC && flags & NX_NAT_F_DST) ||
	    (present & ~0x3fu) || (!flags && present))
		return OFPW_BAC_BAD_ARGUMENT;
	nat->kind = flags & NX_NAT_F_SRC ? OFP_NAT_SRC :
		    flags & NX_NAT_F_DST ? OFP_NAT_DST : OFP_NAT_PLAIN;
#define TAKE(n) (at + (n) <= len ? (at += (n), p + at - (n)) : NULL)
	const uint8_t *q;
	if (present & 0x1) {
		if (!(q = TAKE(4)))
			return OFPW_BAC_BAD_LEN;
		memcpy(&nat->ip_min, q, 4);
		nat->ip_max = nat->ip_min;
	}
	if (present & 0x2) {
		if (!(q = TAKE(4)))
			return OFPW_BAC_BAD_LEN;
		memcpy(&nat->ip_max, q, 4);
	}
	if (present & 0x4) {
		if (!(q = TAKE(16)))
			return OFPW_BAC_BAD_LEN;
		memcpy(nat->ip6_min, q, 16);
		memcpy(nat->ip6_max, q, 16);
		nat->v6 = true;
	}
	if (present & 0x8) {
		if (!(q = TAKE(16)))
			return OFPW_BAC_BAD_LEN;
		memcpy(nat->ip6_max, q, 16);
	}
	if (present & 0x10) {
		if (!(q = TAKE(2)))
			return OFPW_BAC_BAD_LEN;
		nat->port_min = nat->port_max = be_get16(q);
	}
	if (present & 0x20) {
		if (!(q = TAKE(2)))
			return OFPW_BAC_BAD_LEN;
		nat->port_max = be_get16(q);
	}
#undef TAKE
	if ((present & 0x3) && (present & 0xc))
		return OFPW_BAC_BAD_ARGUMENT;
	if ((present & 0x2 && !(present & 0x1)) ||
	    (present & 0x8 && !(present & 0x4)) ||
	    (present & 0x20 && !(present & 0x10)) ||
	    rte_be_to_cpu_32(nat->ip_max) < rte_be_to_cpu_32(nat->ip_min) ||
	    memcmp(nat->ip6_max, nat->ip6_min, 16) < 0 ||
	    nat->port_max < nat->port_min ||
	    ((present & 0x10) && !nat->port_min))
		return OFPW_BAC_BAD_ARGUMENT;
	return 0;
}

static enum ofp_wire_error
pull_ct(struct act_ctx *c, const uint8_t *p, size_t len)
{
	struct ofp_rule *r = c->r;
	struct ofp_action *a;
	struct ofp_ct *ct;
	uint16_t flags = be_get16(p + 10);
	uint32_t zone_src = be_get32(p + 12);
	enum ofp_wire_error err;

	if (len < 24)
		return OFPW_BAC_BAD_LEN;
	if (c->ct)
		return OFPW_BAC_BAD_ARGUMENT;
	if (r->n_ct == OFP_MAX_CT)
		return OFPW_BAC_TOO_MANY;
	/* force, and an ALG helper, are not vxswitch's */
	if (flags & ~NX_CT_F_COMMIT || be_get16(p + 22))
		return OFPW_BAC_BAD_ARGUMENT;
	if (!all_zero(p + 19, 3))
		return OFPW_NXBAC_MUST_BE_ZERO;
	ct = &r->ct[r->n_ct];
	memset(ct, 0, sizeof *ct);
	ct->commit = flags & NX_CT_F_COMMIT;
	ct->table = p[18];	/* 0xff: NX_CT_RECIRC_NONE, OFP_TABLE_ALL */
	ct->zone_reg = -1;
	if (!zone_src) {
		ct->zone = be_get16(p + 16);
	} else {
		unsigned width, ofs = be_get16(p + 16) >> 6;
		unsigned nbits = (be_get16(p + 16) & 63) + 1;
		int reg;

		if (ofp_wire_set_target(zone_src, &reg, &width) != WST_REG ||
		    nbits != 16 || ofs + nbits > 32)
			return OFPW_BAC_BAD_ARGUMENT;
		ct->zone_reg = (int8_t)reg;
		ct->zone_ofs = (uint8_t)ofs;
		ct->zone_nbits = (uint8_t)nbits;
	}
	c->ct = ct;
	err = pull_list(c, p + 24, len - 24);
	c->ct = NULL;
	if (err)
		return err;
	if (ct->n_exec && !ct->commit)
		return OFPW_BAC_BAD_ARGUMENT;
	if ((ct->nat.kind == OFP_NAT_SRC || ct->nat.kind == OFP_NAT_DST) &&
	    !ct->commit)
		return OFPW_BAC_BAD_ARGUMENT;
	err = new_action(c, &a);
	if (err)
		return err;
	a->type = OFPACT_CT;
	a->slot = r->n_ct++;
	return 0;
}

/* ---- one action ---------------------------------------------------------- */

static enum ofp_wire_error
pull_nx(struct act_ctx *c, const uint8_t *p, size_t len)
{
	struct ofp_action *a;
	enum ofp_wire_error err;
	uint16_t subtype;

	if (len < 16)
		return OFPW_BAC_BAD_LEN;
	if (be_get32(p + 4) != OFP_WIRE_NX_ID)
		return OFPW_BAC_BAD_EXPERIMENTER;
	subtype = be_get16(p + 8);
	if (c->ct && subtype != NXAST_NAT && subtype != NXAST_REG_LOAD &&
	    subtype != NXAST_REG_LOAD2)
		return OFPW_BAC_BAD_ARGUMENT;
	switch (subtype) {
	case NXAST_RESUBMIT:
	case NXAST_RESUBMIT_TABLE: {
		uint32_t port = wire_port(be_get16(p + 10), false);
		uint8_t table = subtype == NXAST_RESUBMIT ? OFP_TABLE_ALL
							  : p[12];

		if (len != 16)
			return OFPW_BAC_BAD_LEN;
		if (subtype == NXAST_RESUBMIT_TABLE && !all_zero(p + 13, 3))
			return OFPW_NXBAC_MUST_BE_ZERO;
		/* the port becomes the key's in_port: an ofport; and
		 * resubmit(,) names nothing */
		if (!port || port == OFPP_LOCAL_NUM ||
		    (port == OFPP_IN_PORT && table == OFP_TABLE_ALL))
			return OFPW_BAC_BAD_ARGUMENT;
		if ((err = new_action(c, &a)))
			return err;
		a->type = OFPACT_RESUBMIT;
		a->port = port;
		a->table = table;
		return 0;
	}
	case NXAST_SET_TUNNEL:
	case NXAST_SET_TUNNEL64: {
		uint64_t id = subtype == NXAST_SET_TUNNEL ? be_get32(p + 12)
							  : 0;
		if (len != (subtype == NXAST_SET_TUNNEL ? 16u : 24u))
			return OFPW_BAC_BAD_LEN;
		if (subtype == NXAST_SET_TUNNEL64)
			id = be_get64(p + 16);
		if (id >> 32)	/* vxswitch's tunnel ids: 32 bits */
			return OFPW_BAC_BAD_ARGUMENT;
		if ((err = new_action(c, &a)))
			return err;
		a->type = OFPACT_SET_TUNNEL;
		a->u32 = (uint32_t)id;
		return 0;
	}
	case NXAST_REG_LOAD:
		if (len != 24)
			return OFPW_BAC_BAD_LEN;
		return pull_reg_load(c, p);
	case NXAST_REG_LOAD2:
		return pull_set_field(c, p + 10, len - 10, true);
	case NXAST_CONJUNCTION: {
		unsigned k = p[10] + 1u, n = p[11];

		if (len != 16)
			return OFPW_BAC_BAD_LEN;
		if (n < 2 || n > 64 || k > n)
			return OFPW_NXBAC_BAD_CONJUNCTION;
		if ((err = new_action(c, &a)))
			return err;
		a->type = OFPACT_CONJUNCTION;
		a->u32 = be_get32(p + 12);
		a->ofs = (uint8_t)k;
		a->nbits = (uint8_t)n;
		return 0;
	}
	case NXAST_CT:
		return pull_ct(c, p, len);
	case NXAST_NAT:
		return pull_nat(c, p, len);
	}
	return OFPW_BAC_BAD_EXP_TYPE;
}

static enum ofp_wire_error
pull_action(struct act_ctx *c, uint16_t type, const uint8_t *p, size_t len)
{
	bool v10 = c->version == OFP10_VERSION;
	struct ofp_action *a;
	enum ofp_wire_error err;

	if (type == OFPAT_EXPERIMENTER)
		return pull_nx(c, p, len);
	if (c->ct) {
		if (type == OFPAT_SET_FIELD && !v10)
			return pull_set_field(c, p + 4, len - 4, false);
		return OFPW_BAC_BAD_ARGUMENT;
	}
	if (type == OFPAT10_OUTPUT) {
		uint32_t port;

		if (len != (v10 ? 8u : 16u))
			return OFPW_BAC_BAD_LEN;
		port = wire_port(v10 ? be_get16(p + 4) : be_get32(p + 4), !v10);
		if (!port)
			return OFPW_BAC_BAD_OUT_PORT;
		if ((err = new_action(c, &a)))
			return err;
		a->type = OFPACT_OUTPUT;
		a->port = port;
		return 0;
	}
	if (v10 && (type == OFPAT10_SET_DL_SRC || type == OFPAT10_SET_DL_DST)) {
		if (len != 16)
			return OFPW_BAC_BAD_LEN;
		if ((err = new_action(c, &a)))
			return err;
		a->type = type == OFPAT10_SET_DL_SRC ? OFPACT_SET_ETH_SRC
						     : OFPACT_SET_ETH_DST;
		memcpy(&a->mac, p + 4, 6);
		return 0;
	}
	if (!v10 && type == OFPAT_SET_FIELD)
		return pull_set_field(c, p + 4, len - 4, false);
	return OFPW_BAC_BAD_TYPE;
}

static enum ofp_wire_error
pull_list(struct act_ctx *c, const uint8_t *p, size_t len)
{
	struct ofp_rd rd = { p, len };

	while (rd.left) {
		const uint8_t *h;
		uint16_t type, alen;
		enum ofp_wire_error err;

		if (rd.left < 8)
			return OFPW_BAC_BAD_LEN;
		type = be_get16(rd.p);
		alen = be_get16(rd.p + 2);
		if (alen < 8 || alen % 8 || alen > rd.left)
			return OFPW_BAC_BAD_LEN;
		h = rd_pull(&rd, alen);
		if (c->partial && type != OFPAT_EXPERIMENTER)
			return OFPW_BAC_BAD_SET_TYPE;
		err = pull_action(c, type, h, alen);
		if (err)
			return err;
	}
	return c->partial ? OFPW_BAC_BAD_SET_TYPE : 0;
}

enum ofp_wire_error
ofp_wire_pull_actions(const uint8_t *p, size_t len, uint8_t version,
		      struct ofp_rule *r)
{
	struct act_ctx c = { .r = r, .version = version };

	return pull_list(&c, p, len);
}

/* ---- instructions (1.1+) ------------------------------------------------ */

#define OFPIT_GOTO_TABLE 1
#define OFPIT_APPLY_ACTIONS 4

enum ofp_wire_error
ofp_wire_pull_instructions(const uint8_t *p, size_t len, uint8_t version,
			   struct ofp_rule *r)
{
	struct ofp_rd rd = { p, len };
	struct act_ctx c = { .r = r, .version = version };
	bool seen[8] = { false };
	int goto_table = -1;
	enum ofp_wire_error err;

	while (rd.left) {
		const uint8_t *h;
		uint16_t type, ilen;

		if (rd.left < 8)
			return OFPW_BIC_BAD_LEN;
		type = be_get16(rd.p);
		ilen = be_get16(rd.p + 2);
		if (ilen < 8 || ilen % 8 || ilen > rd.left)
			return OFPW_BIC_BAD_LEN;
		h = rd_pull(&rd, ilen);
		if (type == 0 || (type > 6 && type != 0xffff) ||
		    (type == 6 && version >= OFP15_VERSION))
			return OFPW_BIC_UNKNOWN_INST;
		if (type != OFPIT_GOTO_TABLE && type != OFPIT_APPLY_ACTIONS)
			return OFPW_BIC_UNSUP_INST;
		if (seen[type])
			return OFPW_BIC_DUP_INST;
		seen[type] = true;
		if (type == OFPIT_GOTO_TABLE) {
			if (ilen != 8)
				return OFPW_BIC_BAD_LEN;
			goto_table = h[4];
			continue;
		}
		err = pull_list(&c, h + 8, ilen - 8u);
		if (err)
			return err;
	}
	if (goto_table >= 0) {
		struct ofp_action *a;

		if (goto_table >= OFP_N_TABLES)
			return OFPW_BIC_BAD_TABLE_ID;
		if ((err = new_action(&c, &a)))
			return err;
		a->type = OFPACT_GOTO_TABLE;
		a->table = (uint8_t)goto_table;
	}
	return 0;
}

/* ---- the whole list ------------------------------------------------------ */

static bool
eth_is(const struct ofp_rule *r, uint16_t t)
{
	return r->mask.dl_type && r->match.dl_type == rte_cpu_to_be_16(t);
}

enum ofp_wire_error
ofp_wire_check_actions(const struct ofp_rule *r)
{
	bool ip4 = eth_is(r, RTE_ETHER_TYPE_IPV4);
	bool ip6 = eth_is(r, RTE_ETHER_TYPE_IPV6);

	for (int i = 0; i < r->n_actions; i++) {
		const struct ofp_action *a = &r->actions[i];

		if ((a->type == OFPACT_CONJUNCTION) !=
		    (r->actions[0].type == OFPACT_CONJUNCTION))
			return OFPW_NXBAC_BAD_CONJUNCTION;
		if (a->type == OFPACT_CONJUNCTION && r->meta_mask.conj_id)
			return OFPW_BAC_MATCH_INCONSISTENT;
		if (a->type == OFPACT_GOTO_TABLE &&
		    r->table_id != OFP_TABLE_ALL && a->table <= r->table_id)
			return OFPW_BIC_BAD_TABLE_ID;
		if (a->type == OFPACT_CT && !ip4 && !ip6)
			return OFPW_BAC_MATCH_INCONSISTENT;
	}
	for (int i = 0; i < r->n_ct; i++)
		if ((r->ct[i].nat.ip_min && !ip4) || (r->ct[i].nat.v6 && ip4))
			return OFPW_BAC_MATCH_INCONSISTENT;
	return 0;
}
