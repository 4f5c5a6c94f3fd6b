/* SPDX-License-Identifier: BSD-3-Clause
 * The pipeline and connection-tracking half of the rule formatter, byte for
 * byte as ovs-ofctl prints it (lib/match.c, lib/ofp-actions.c in OVS):
 * ct_state as +new-est+trk (masked) or new|trk (exact), ct_mark and regN
 * as %#x, ct_label as the shortest hex of its 128 bits, ct(commit,table=,
 * zone=,nat(...),exec(...)), resubmit(,T) / resubmit:PORT, goto_table:T,
 * load:V->NXM_NX_REGn[a..b] / set_field:V->regN. sg(...) is vxswitch's
 * own: sg(allow|deny[,zone=N][,commit][,nat(...)]).
 */
#include <netinet/in.h>
#include <inttypes.h>
#include <stdio.h>

#include "ofp_format_priv.h"

static const char *const ct_flag_names[8] = {
	"new", "est", "rel", "rpl", "inv", "trk", "snat", "dnat",
};

static void
put_ct_state(struct sbuf *b, uint32_t v, uint32_t m)
{
	if (!m)
		return;
	item(b, "ct_state=");
	if (m == UINT32_MAX) {
		const char *sep = "";
		if (!v)
			put(b, "0");
		for (int i = 0; i < 8; i++)
			if (v & (1u << i)) {
				put(b, "%s%s", sep, ct_flag_names[i]);
				sep = "|";
			}
		return;
	}
	for (int i = 0; i < 8; i++)
		if (m & (1u << i))
			put(b, "%c%s", v & (1u << i) ? '+' : '-',
			    ct_flag_names[i]);
}

/* %#x as OVS's format_uint32_masked: "0", "0x2", "0x2/0xff" */
static void
put_u32_masked(struct sbuf *b, const char *name, uint32_t v, uint32_t m)
{
	if (!m)
		return;
	item(b, "%s=%#" PRIx32, name, v);
	if (m != UINT32_MAX)
		put(b, "/%#" PRIx32, m);
}

/* The shortest hex of a 128-bit value, "0" for zero (OVS's ds_put_hex). */
static void
put_u128(struct sbuf *b, const uint64_t v[2])
{
	if (v[0])
		put(b, "0x%" PRIx64 "%016" PRIx64, v[0], v[1]);
	else if (v[1])
		put(b, "0x%" PRIx64, v[1]);
	else
		put(b, "0");
}

void
put_meta_ct(struct sbuf *b, const struct ofp_meta *v, const struct ofp_meta *m)
{
	if (m->conj_id)		/* OVS prints it first */
		item(b, "conj_id=%u", v->conj_id);
	put_ct_state(b, v->ct_state, m->ct_state);
	if (m->ct_zone)
		item(b, "ct_zone=%u", v->ct_zone);
	put_u32_masked(b, "ct_mark", v->ct_mark, m->ct_mark);
	if (m->ct_label[0] || m->ct_label[1]) {
		item(b, "ct_label=");
		put_u128(b, v->ct_label);
		if (~m->ct_label[0] || ~m->ct_label[1]) {
			put(b, "/");
			put_u128(b, m->ct_label);
		}
	}
}

void
put_meta_regs(struct sbuf *b, const struct ofp_meta *v,
	      const struct ofp_meta *m)
{
	char name[8];

	for (int i = 0; i < OFP_N_REGS; i++) {
		snprintf(name, sizeof name, "reg%d", i);
		put_u32_masked(b, name, v->regs[i], m->regs[i]);
	}
}

/* ---- actions ---------------------------------------------------------- */

static void
put_field_name(struct sbuf *b, uint8_t field, bool nxm)
{
	if (field < OFP_N_REGS)
		put(b, nxm ? "NXM_NX_REG%u" : "reg%u", field);
	else if (field == OFP_MF_CT_MARK)
		put(b, nxm ? "NXM_NX_CT_MARK" : "ct_mark");
	else
		put(b, nxm ? "NXM_NX_CT_LABEL" : "ct_label");
}

/* NXM_NX_REG6[], NXM_NX_REG6[5], NXM_NX_REG6[0..15] */
static void
put_subfield(struct sbuf *b, uint8_t field, uint8_t ofs, uint8_t nbits)
{
	put_field_name(b, field, true);
	if (!nbits)
		put(b, "[]");
	else if (nbits == 1)
		put(b, "[%u]", ofs);
	else
		put(b, "[%u..%u]", ofs, ofs + nbits - 1);
}

static void
put_load(struct sbuf *b, const struct ofp_load *l)
{
	if (l->set_field) {
		put(b, "set_field:");
		put_u128(b, l->value);
		put(b, "->");
		put_field_name(b, l->field, false);
		return;
	}
	put(b, "load:");
	put_u128(b, l->value);
	put(b, "->");
	put_subfield(b, l->field, l->ofs, l->nbits);
}

static void
put_nat(struct sbuf *b, const struct ofp_nat *n)
{
	put(b, "nat");
	if (n->kind != OFP_NAT_SRC && n->kind != OFP_NAT_DST)
		return;
	put(b, "(%s", n->kind == OFP_NAT_SRC ? "src" : "dst");
	if (n->v6) {
		put(b, "=");
		char r[2 * INET6_ADDRSTRLEN + 8];
		ofp_format_nat6(r, sizeof r, n->ip6_min, n->ip6_max,
				n->port_min);
		put(b, "%s", r);
	} else if (n->ip_min) {
		put(b, "=");
		put_ipv4(b, n->ip_min);
		if (n->ip_max && n->ip_max != n->ip_min) {
			put(b, "-");
			put_ipv4(b, n->ip_max);
		}
	}
	if (n->ip_min || n->v6) {
		if (n->port_min) {
			put(b, ":%u", n->port_min);
			if (n->port_max && n->port_max != n->port_min)
				put(b, "-%u", n->port_max);
		}
	}
	put(b, ")");
}

static void
put_zone(struct sbuf *b, const struct ofp_ct *ct, const char *sep)
{
	if (ct->zone_reg >= 0) {
		put(b, "%szone=", sep);
		put_subfield(b, (uint8_t)(OFP_MF_REG0 + ct->zone_reg),
			     ct->zone_ofs, ct->zone_nbits);
	} else if (ct->zone) {
		put(b, "%szone=%u", sep, ct->zone);
	}
}

/* ct(commit,table=T,zone=Z,nat(...),exec(...)): OVS's order. */
static void
put_ct(struct sbuf *b, const struct ofp_ct *ct)
{
	const char *sep = "";

	put(b, "ct(");
	if (ct->commit)
		put(b, "commit"), sep = ",";
	if (ct->table != OFP_TABLE_ALL)
		put(b, "%stable=%u", sep, ct->table), sep = ",";
	if (ct->zone_reg >= 0 || ct->zone)
		put_zone(b, ct, sep), sep = ",";
	if (ct->nat.kind != OFP_NAT_NONE) {
		put(b, "%s", sep);
		put_nat(b, &ct->nat);
		sep = ",";
	}
	if (ct->n_exec) {
		put(b, "%sexec(", sep);
		for (int i = 0; i < ct->n_exec; i++) {
			if (i)
				put(b, ",");
			put_load(b, &ct->exec[i]);
		}
		put(b, ")");
	}
	put(b, ")");
}

/* sg(allow|deny,zone=N,commit,nat(...)): the order of its syntax. */
static void
put_sg(struct sbuf *b, const struct ofp_ct *ct)
{
	put(b, "sg(%s", ct->allow ? "allow" : "deny");
	put_zone(b, ct, ",");
	if (ct->commit)
		put(b, ",commit");
	if (ct->nat.kind != OFP_NAT_NONE) {
		put(b, ",");
		put_nat(b, &ct->nat);
	}
	put(b, ")");
}

bool
put_pipeline_action(struct sbuf *b, const struct ofp_rule *r,
		    const struct ofp_action *a, const struct ofp_port_map *ports)
{
	struct ofp_load l;

	switch (a->type) {
	case OFPACT_RESUBMIT:
		if (a->port != OFPP_IN_PORT && a->table == OFP_TABLE_ALL) {
			put(b, "resubmit:");
			put_port(b, ports, a->port);
			return true;
		}
		put(b, "resubmit(");
		if (a->port != OFPP_IN_PORT)
			put_port(b, ports, a->port);
		put(b, ",");
		if (a->table != OFP_TABLE_ALL)
			put(b, "%u", a->table);
		put(b, ")");
		return true;
	case OFPACT_GOTO_TABLE:
		put(b, "goto_table:%u", a->table);
		return true;
	case OFPACT_CONJUNCTION:
		put(b, "conjunction(%u,%u/%u)", a->u32, a->ofs, a->nbits);
		return true;
	case OFPACT_LOAD:
		l = (struct ofp_load){ .field = a->slot, .ofs = a->ofs,
				       .nbits = a->nbits, .set_field = a->form,
				       .value = { 0, a->u32 } };
		put_load(b, &l);
		return true;
	case OFPACT_CT:
	case OFPACT_SG:
		if (a->slot >= OFP_MAX_CT)
			return false;
		if (a->type == OFPACT_CT)
			put_ct(b, &r->ct[a->slot]);
		else
			put_sg(b, &r->ct[a->slot]);
		return true;
	default:
		return false;
	}
}
