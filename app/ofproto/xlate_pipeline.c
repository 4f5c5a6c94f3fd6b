/* SPDX-License-Identifier: BSD-3-Clause
 * The OpenFlow pipeline of one translation: lookups start in table 0,
 * resubmit(,T) / resubmit(PORT,T) / goto_table:T continue in the same
 * translation, as OVS does (no recirculation), and the actions met on the
 * way - outputs and header rewrites, each with the in_port in force at it
 * - are collected in order into one flat list that xlate.c turns into
 * datapath actions exactly as it does for a single rule. So a policy
 * split over several tables forwards as the same policy in one table.
 *
 * Registers (reg0..reg7) are translation state, zero at the start: load
 * and set_field write them, later lookups match them. Their values follow
 * from the rules already matched, whose fields are in the megaflow's mask,
 * so they never widen the mask. A rule whose registers do not match adds
 * nothing to the mask for the same reason.
 *
 * Rewrites change the working key that later tables look up (mod_dl_dst
 * then resubmit matches the new dl_dst). The mask bits a later lookup adds
 * for such a field are then about the packet's original value: narrower
 * than needed, never wrong.
 *
 * Limits, as OVS: a chain deeper than 64 resubmits or longer than 4096 in
 * all drops the packet under resubmit_limit.
 *
 * ct(table=T) ends the walk: the packet is recirculated (ct_recirc.c) and
 * a later translation of its recirculated key starts in table T, with
 * ct_state/ct_zone/ct_mark from that key. Only the table is carried over
 * (the recirc id is T + 1), so a walk that would need more frozen -
 * registers set, in_port or tunnel fields changed, actions after the
 * ct(table=) - is dropped (recirc_limit) rather than run differently.
 * The ct_* fields a rule matches are packet state, unlike registers:
 * every rule looked at adds its ct_* mask bits to the megaflow's mask.
 */
#include <stdio.h>
#include <string.h>
#include "xlate.h"

#define RESUBMIT_MAX_DEPTH 64
#define RESUBMIT_MAX_TOTAL 4096

struct walk {
	const struct dp_snapshot *s;
	const struct flow_key *orig;	/* the packet as looked up */
	struct flow_key key;		/* the packet as rewritten so far */
	struct ofp_meta meta;		/* registers */
	struct flow_key *mask;		/* the megaflow's */
	struct xlate_pipeline *out;
	unsigned depth, resubmits;
};

static void
mask_or_field(struct flow_key *mask, const struct flow_key *rule_mask,
	      enum mf_id f)
{
	uint8_t *m = (uint8_t *)mask + mf_fields[f].offset;
	const uint8_t *r = (const uint8_t *)rule_mask + mf_fields[f].offset;
	for (unsigned i = 0; i < mf_fields[f].len; i++)
		m[i] |= r[i];
}

static bool
meta_matches(const struct ofp_meta *meta, const struct ofp_rule *r)
{
	uint64_t diff = 0;

	for (int w = 0; w < 8; w++)
		diff |= (meta->w[w] & r->meta_mask.w[w]) ^ r->meta_match.w[w];
	return diff == 0;
}

/* The first rule of table t (rules are sorted by table first). */
static uint32_t
table_start(const struct dp_snapshot *s, uint8_t t)
{
	uint32_t lo = 0, hi = s->n_rules;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (s->rules[mid].table_id < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The highest-priority rule of table t matching, with the mask bits that
 * decided it (see xlate.c's header). */
static const struct ofp_rule *
classify(struct walk *w, uint8_t t)
{
	const struct dp_snapshot *s = w->s;

	for (uint32_t i = table_start(s, t);
	     i < s->n_rules && s->rules[i].table_id == t; i++) {
		const struct ofp_rule *r = &s->rules[i];
		/* the ct_* fields come from the packet's key: they decide */
		w->mask->ct_state |= (uint8_t)r->meta_mask.ct_state;
		w->mask->ct_zone |= r->meta_mask.ct_zone;
		w->mask->ct_mark |= r->meta_mask.ct_mark;
		if (!meta_matches(&w->meta, r))
			continue;
		if (flow_key_match(&w->key, &r->match, &r->mask)) {
			for (int k = 0; k < FLOW_KEY_WORDS; k++)
				w->mask->w[k] |= r->mask.w[k];
			return r;
		}
		for (int f = 0; f < MFF_N_IDS; f++) {
			if (flow_field_differs(&w->key, &r->match, &r->mask,
					       f)) {
				mask_or_field(w->mask, &r->mask, f);
				break;
			}
		}
	}
	return NULL;
}

static void
load_reg(struct ofp_meta *meta, const struct ofp_action *a)
{
	uint32_t *reg = &meta->regs[a->slot % OFP_N_REGS];
	uint32_t bits = a->nbits && a->nbits < 32 ?
			((1u << a->nbits) - 1) << a->ofs : UINT32_MAX;

	*reg = (*reg & ~bits) | ((a->u32 << a->ofs) & bits);
}

/* Rewrites later tables see. */
static void
rewrite_key(struct flow_key *key, const struct ofp_action *a)
{
	switch (a->type) {
	case OFPACT_SET_ETH_SRC:
		key->dl_src = a->mac;
		break;
	case OFPACT_SET_ETH_DST:
		key->dl_dst = a->mac;
		break;
	case OFPACT_SET_TUNNEL:
		key->tun_id = a->u32;
		break;
	case OFPACT_SET_TUN_SRC:
		key->tun_src = a->ip;
		break;
	case OFPACT_SET_TUN_DST:
		key->tun_dst = a->ip;
		break;
	default:
		break;
	}
}

static void walk_actions(struct walk *w, const struct ofp_rule *r);

/* Can a recirculation carry this walk's state? Only the table is. */
static bool
freezable(const struct walk *w)
{
	uint64_t regs = 0;

	for (int i = 0; i < OFP_N_REGS / 2; i++)
		regs |= w->meta.w[i];
	return !regs && w->key.w[0] == w->orig->w[0] &&
	       w->key.w[1] == w->orig->w[1];
}

static void
collect_ct(struct walk *w, const struct ofp_rule *r,
	   const struct ofp_action *a)
{
	struct xlate_pipeline *out = w->out;

	if (out->n == XLATE_MAX_PIPELINE_ACTIONS ||
	    out->n_ct == XLATE_MAX_PIPELINE_CT) {
		out->limit_hit = true;
		return;
	}
	out->ct[out->n_ct] = r->ct[a->slot];
	out->act[out->n] = *a;
	out->act[out->n].slot = out->n_ct++;
	out->in_port[out->n++] = w->key.in_port;
	if (a->type == OFPACT_CT && r->ct[a->slot].table != OFP_TABLE_ALL) {
		out->recirc = true;
		if (!freezable(w))
			out->unfreezable = out->limit_hit = true;
	}
}

static void
resubmit(struct walk *w, uint32_t port, uint8_t table)
{
	uint32_t saved_in_port = w->key.in_port;
	const struct ofp_rule *r;

	if (w->depth >= RESUBMIT_MAX_DEPTH ||
	    ++w->resubmits > RESUBMIT_MAX_TOTAL) {
		w->out->limit_hit = true;
		return;
	}
	if (port != OFPP_IN_PORT)
		w->key.in_port = port;
	w->depth++;
	r = classify(w, table);
	if (r)		/* a miss in a resubmit does nothing, as in OVS */
		walk_actions(w, r);
	w->depth--;
	w->key.in_port = saved_in_port;
}

static void
walk_actions(struct walk *w, const struct ofp_rule *r)
{
	struct xlate_pipeline *out = w->out;

	for (int i = 0; i < r->n_actions && !out->limit_hit; i++) {
		const struct ofp_action *a = &r->actions[i];
		if (out->recirc) {	/* an action after ct(table=) */
			out->unfreezable = out->limit_hit = true;
			break;
		}
		switch (a->type) {
		case OFPACT_RESUBMIT:
			resubmit(w, a->port, a->table == OFP_TABLE_ALL ?
					     r->table_id : a->table);
			break;
		case OFPACT_GOTO_TABLE:
			resubmit(w, OFPP_IN_PORT, a->table);
			break;
		case OFPACT_LOAD:
			load_reg(&w->meta, a);
			break;
		case OFPACT_CT:
		case OFPACT_SG:
			collect_ct(w, r, a);
			break;
		default:
			if (out->n == XLATE_MAX_PIPELINE_ACTIONS) {
				out->limit_hit = true;
				break;
			}
			out->act[out->n] = *a;
			out->in_port[out->n++] = w->key.in_port;
			rewrite_key(&w->key, a);
			break;
		}
	}
}

const struct ofp_rule *
xlate_pipeline(const struct dp_snapshot *s, const struct flow_key *key,
	       struct flow_key *mask, struct xlate_pipeline *out)
{
	struct walk w = { .s = s, .orig = key, .key = *key, .mask = mask,
			  .out = out };
	const struct ofp_rule *r;

	out->n = out->n_ct = 0;
	out->limit_hit = out->unexecutable = false;
	out->unfreezable = out->recirc = false;
	memset(&w.meta, 0, sizeof w.meta);
	w.meta.ct_state = key->ct_state;
	w.meta.ct_zone = key->ct_zone;
	w.meta.ct_mark = key->ct_mark;
	/* a recirculated packet: not one for table 254 + 1 (no such id) */
	r = classify(&w, key->recirc_id ? (uint8_t)(key->recirc_id - 1) : 0);
	if (r)
		walk_actions(&w, r);
	return r;
}

/* What this datapath cannot run yet. Such a rule parses, formats and
 * round-trips, but add-flow refuses it rather than run it half. */
int
xlate_check_executable(const struct ofp_rule *r, char *err, size_t errlen)
{
	const struct ofp_meta *m = &r->meta_mask;
	static const char *const why = "not executable by this datapath yet "
				       "(issue 12)";

	for (int i = 0; i < r->n_actions; i++) {
		const struct ofp_action *a = &r->actions[i];
		/* exec() needs a value slot per write, a register zone
		 * the register's value in the datapath: next. nat() runs
		 * (sg_filter.c, ct_recirc.c). */
		if (a->type != OFPACT_CT && a->type != OFPACT_SG)
			continue;
		const struct ofp_ct *c = &r->ct[a->slot];
		const char *what = a->type == OFPACT_CT ? "ct" : "sg";
		const char *part = c->zone_reg >= 0 ? "zone=register" :
				   c->n_exec ? "exec" : NULL;
		if (part) {
			snprintf(err, errlen, "%s(%s): %s", what, part, why);
			return -1;
		}
	}
	if (m->ct_label[0] || m->ct_label[1]) {
		snprintf(err, errlen, "ct_label: %s", why);
		return -1;
	}
	return 0;
}
