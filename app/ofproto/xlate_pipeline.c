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
 * conjunction(ID,K/N) rules, as OVS's classifier: they never match as
 * themselves. When, at one priority, a matching rule of every clause
 * 1..N of ID has been seen, the table is looked up again with conj_id =
 * ID (conjunction rules left out) and what that finds is the match; else
 * the lookup goes on to lower priorities. Every conjunction rule looked at
 * adds its mask bits as any other rule does, so the megaflow covers the
 * clause outcomes. More than CONJ_MAX_IDS ids matched at one priority is
 * dropped under resubmit_limit rather than decided on part of them.
 *
 * ct(table=T) ends the walk: the packet is recirculated (ct_recirc.c) and
 * a later translation of its recirculated key starts in table T, with
 * ct_state/ct_zone/ct_mark from that key. What the walk has that the
 * packet does not carry is frozen under the recirc id (recirc_id.h, as
 * OVS's frozen state): the table, the registers, and the in_port and the
 * tunnel fields if the walk changed them; the recirculated translation
 * starts from them. Actions after the ct(table=) (OVS runs them on an
 * untracked copy) are not run: such a walk is dropped (recirc_limit)
 * rather than run differently, as is one whose state finds no free id.
 *
 * A ct() without table= (a commit, say) runs in the datapath and the
 * walk goes on with the packet untracked: the rules after it see
 * ct_state, ct_zone, ct_mark and ct_label 0, as in OVS.
 *
 * ct(zone=NXM_NX_REGn[a..b]) takes the register's value at that point of
 * the walk: registers are translation state, so the datapath's ct gets a
 * constant zone. exec(load/set_field->ct_mark) becomes the mark value and
 * mask the datapath's ct writes into committed sessions.
 *
 * The ct_* fields a rule matches are packet state, unlike registers:
 * every rule looked at adds its ct_* mask bits to the megaflow's mask.
 * ct_label is not in the key: a rule's ct_label=V/M is a predicate whose
 * slot in the snapshot's table (ct_label_pred.h) is a bit of a
 * recirculated key's ct_label_bits, and a rule whose other fields match
 * adds just that bit. In a first pass the label is 0 (untracked, as in
 * OVS) and the recirc_id every megaflow matches decides it: no bit.
 * exec(->ct_label) becomes the label value and mask the datapath's ct
 * writes into committed sessions, as for ct_mark.
 */
#include <stdio.h>
#include <string.h>
#include "ct_label_pred.h"
#include "recirc_id.h"
#include "xlate.h"

#define RESUBMIT_MAX_DEPTH 64
#define RESUBMIT_MAX_TOTAL 4096

struct walk {
	const struct dp_snapshot *s;
	const struct flow_key *orig;	/* the packet as looked up */
	struct flow_key key;		/* the packet as rewritten so far */
	struct ofp_meta meta;		/* registers */
	bool ct_cleared;		/* a ct() without table= ran */
	struct flow_key *mask;		/* the megaflow's */
	struct xlate_pipeline *out;
	unsigned depth, resubmits;
};

/* ORs rule_mask's bits of field f into the megaflow's mask. An IPv6
 * field (the label in w7, the second line) takes ext_line with it, as
 * flow_mask_set_field does: a mask that reads line 2 without it would
 * let an IPv4 key's stale second line decide (the dpcls refuses such a
 * mask). Only IPv6 keys get here with one: the rule's dl_type, earlier
 * in mf_fields' order, differs first for any other. */
static void
mask_or_field(struct flow_key *mask, const struct flow_key *rule_mask,
	      enum mf_id f)
{
	uint8_t *m = (uint8_t *)mask + mf_fields[f].offset;
	const uint8_t *r = (const uint8_t *)rule_mask + mf_fields[f].offset;
	for (unsigned i = 0; i < mf_fields[f].len; i++)
		m[i] |= r[i];
	mask->ext_line |= flow_field_ext_bit(mf_fields[f].offset);
}

/* The registers, ct_state, ct_mark, ct_zone and conj_id: words 0-5 of
 * struct ofp_meta; ct_label (words 6-7) is label_matches' */
#define META_WORDS_BUT_LABEL 6
_Static_assert(offsetof(struct ofp_meta, ct_label) ==
	       META_WORDS_BUT_LABEL * 8, "ct_label is ofp_meta's last words");

static bool
meta_matches(const struct ofp_meta *meta, const struct ofp_rule *r)
{
	uint64_t diff = 0;

	for (int w = 0; w < META_WORDS_BUT_LABEL; w++)
		diff |= (meta->w[w] & r->meta_mask.w[w]) ^ r->meta_match.w[w];
	return diff == 0;
}

/* r's ct_label match, if any, for a packet its other fields match: in a
 * first pass the label is 0; after a recirculation its predicate's bit
 * in the key decides, and goes into the mask. */
static bool
label_matches(struct walk *w, const struct ofp_rule *r)
{
	struct ct_label_pred p;
	int k;

	if (!ct_label_pred_of(r, &p))
		return true;
	if (!w->orig->recirc_id || w->ct_cleared)
		return !p.value[0] && !p.value[1];
	k = ct_label_pred_find(w->s, &p);
	if (k < 0)		/* not in the table: add-flow prevents it */
		return false;
	w->mask->ct_label_bits |= (uint16_t)(1u << k);
	return (w->key.ct_label_bits >> k) & 1;
}

#define CONJ_MAX_IDS 32

/* The conjunctions seen at one priority: which clauses of each matched */
struct conj_seen {
	uint16_t n;
	uint16_t priority;
	uint32_t id[CONJ_MAX_IDS];
	uint64_t clauses[CONJ_MAX_IDS];
	uint8_t n_clauses[CONJ_MAX_IDS];
};

static bool
is_conjunctive(const struct ofp_rule *r)
{
	return r->n_actions && r->actions[0].type == OFPACT_CONJUNCTION;
}

static void
conj_note(struct walk *w, struct conj_seen *cs, const struct ofp_rule *r)
{
	for (int i = 0; i < r->n_actions; i++) {
		const struct ofp_action *a = &r->actions[i];
		uint16_t j = 0;
		while (j < cs->n && cs->id[j] != a->u32)
			j++;
		if (j == cs->n) {
			if (cs->n == CONJ_MAX_IDS) {
				w->out->limit_hit = true;
				return;
			}
			cs->id[j] = a->u32;
			cs->clauses[j] = 0;
			cs->n_clauses[j] = a->nbits;
			cs->n++;
		}
		if (a->nbits == cs->n_clauses[j])
			cs->clauses[j] |= 1ull << (a->ofs - 1);
	}
}

/* A conjunction with every clause seen: its id in *id. */
static bool
conj_complete(const struct conj_seen *cs, uint32_t *id)
{
	for (uint16_t j = 0; j < cs->n; j++) {
		uint8_t n = cs->n_clauses[j];
		uint64_t all = n >= 64 ? UINT64_MAX : (1ull << n) - 1;
		if (cs->clauses[j] == all) {
			*id = cs->id[j];
			return true;
		}
	}
	return false;
}

static const struct ofp_rule *classify(struct walk *w, uint8_t t,
				       bool conj);

/* A completed conjunction: the table again, with conj_id = id. */
static const struct ofp_rule *
conj_lookup(struct walk *w, uint8_t t, uint32_t id)
{
	const struct ofp_rule *r;

	w->meta.conj_id = id;
	r = classify(w, t, false);
	w->meta.conj_id = 0;
	return r;
}

/* The highest-priority rule of table t matching, with the mask bits that
 * decided it (see xlate.c's header); with conj, conjunction() rules take
 * part (above), else they are left out (the conj_id lookup). */
static const struct ofp_rule *
classify(struct walk *w, uint8_t t, bool conj)
{
	const struct dp_rule_table *rt = t < OFP_N_TABLES ? w->s->tables[t]
							   : NULL;
	struct conj_seen cs = { .n = 0 };
	uint32_t id;

	/* a change to this table can change this translation: revalidation
	 * by table (megaflow.c) */
	w->out->tables |= 1ull << (t % 64);
	for (uint32_t i = 0; rt && i < rt->n_rules; i++) {
		const struct ofp_rule *r = rt->rules[i];
		if (cs.n && r->priority != cs.priority) {
			if (conj_complete(&cs, &id))
				return conj_lookup(w, t, id);
			cs.n = 0;
		}
		if (!conj && is_conjunctive(r))
			continue;
		/* the ct_* fields come from the packet's key: they decide */
		w->mask->ct_state |= (uint8_t)r->meta_mask.ct_state;
		w->mask->ct_zone |= r->meta_mask.ct_zone;
		w->mask->ct_mark |= r->meta_mask.ct_mark;
		if (!meta_matches(&w->meta, r))
			continue;
		if (flow_key_match(&w->key, &r->match, &r->mask)) {
			if (!label_matches(w, r))
				continue;
			/* all sixteen words: a rule on an IPv6 field has
			 * ext_line in its mask (ofp_parse_match.c), so the
			 * megaflow's has it too */
			for (int k = 0; k < FLOW_KEY_WORDS; k++)
				w->mask->w[k] |= r->mask.w[k];
			if (!is_conjunctive(r))
				return r;
			cs.priority = r->priority;
			conj_note(w, &cs, r);
			continue;
		}
		for (int f = 0; f < MFF_N_IDS; f++) {
			if (flow_field_differs(&w->key, &r->match, &r->mask,
					       f)) {
				mask_or_field(w->mask, &r->mask, f);
				break;
			}
		}
	}
	if (cs.n && conj_complete(&cs, &id))
		return conj_lookup(w, t, id);
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
	/* the third line becomes the walk key's: later tables match it */
	case OFPACT_SET_TUN_IPV6_SRC:
		key->tun_ipv6_src = a->ip6;
		key->ext_line |= FLOW_EXT_TUN6;
		break;
	case OFPACT_SET_TUN_IPV6_DST:
		key->tun_ipv6_dst = a->ip6;
		key->ext_line |= FLOW_EXT_TUN6;
		break;
	default:
		break;
	}
}

static void walk_actions(struct walk *w, const struct ofp_rule *r);

/* What a ct(table=) at this point of the walk freezes, and its id. */
static uint8_t
freeze(const struct walk *w, uint8_t table)
{
	struct recirc_frozen f;

	memset(&f, 0, sizeof f);
	memcpy(f.regs, w->meta.regs, sizeof f.regs);
	if (w->key.in_port != w->orig->in_port) {
		f.set_in_port = true;
		f.in_port = w->key.in_port;
	}
	if (w->key.tun_id != w->orig->tun_id ||
	    w->key.tun_src != w->orig->tun_src ||
	    w->key.tun_dst != w->orig->tun_dst ||
	    memcmp(w->key.line3, w->orig->line3, sizeof w->key.line3)) {
		f.set_tunnel = true;
		f.tun_id = w->key.tun_id;
		f.tun_src = w->key.tun_src;
		f.tun_dst = w->key.tun_dst;
		memcpy(f.tun_ipv6_src, w->key.tun_ipv6_src.a, 16);
		memcpy(f.tun_ipv6_dst, w->key.tun_ipv6_dst.a, 16);
	}
	f.table = table;
	return recirc_id_get(&f);
}

/* zone=NXM_NX_REGn[a..b]: the register's value now */
static void
resolve_ct(const struct walk *w, struct ofp_ct *c)
{
	if (c->zone_reg < 0)
		return;
	uint32_t v = w->meta.regs[c->zone_reg % OFP_N_REGS] >> c->zone_ofs;
	if (c->zone_nbits < 32)
		v &= (1u << c->zone_nbits) - 1;
	c->zone = (uint16_t)v;
	c->zone_reg = -1;
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
	resolve_ct(w, &out->ct[out->n_ct]);
	out->act[out->n] = *a;
	out->act[out->n].slot = out->n_ct++;
	out->in_port[out->n++] = w->key.in_port;
	if (a->type == OFPACT_CT && r->ct[a->slot].table != OFP_TABLE_ALL) {
		out->recirc = true;
		out->recirc_id = freeze(w, r->ct[a->slot].table);
		if (!out->recirc_id)	/* every id in use: counted there */
			out->unfreezable = out->limit_hit = true;
	} else if (a->type == OFPACT_CT) {
		/* the rules after a ct() without table= see the packet
		 * untracked, as OVS's compose_conntrack_action leaves it
		 * (flow_clear_conntrack): its ct_* fields are those of the
		 * table= chain only */
		w->meta.ct_state = 0;
		w->meta.ct_zone = 0;
		w->meta.ct_mark = 0;
		w->ct_cleared = true;
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
	r = classify(w, table, true);
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
		case OFPACT_CONJUNCTION:	/* classify never returns one */
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
	       const struct recirc_frozen *resume, struct flow_key *mask,
	       struct xlate_pipeline *out)
{
	struct walk w = { .s = s, .orig = key, .key = *key, .mask = mask,
			  .out = out };
	const struct ofp_rule *r;

	out->n = out->n_ct = 0;
	out->limit_hit = out->unexecutable = false;
	out->unfreezable = out->recirc = false;
	out->recirc_id = 0;
	out->tables = 0;
	memset(&w.meta, 0, sizeof w.meta);
	if (resume)
		memcpy(w.meta.regs, resume->regs, sizeof w.meta.regs);
	w.meta.ct_state = key->ct_state;
	w.meta.ct_zone = key->ct_zone;
	w.meta.ct_mark = key->ct_mark;
	r = classify(&w, resume ? resume->table : 0, true);
	if (r)
		walk_actions(&w, r);
	return r;
}

/* What this datapath cannot run. Such a rule parses, formats and
 * round-trips, but add-flow refuses it rather than run it half. Every
 * ct_label match runs (as a predicate bit, above; the table's limit is
 * ct_label_preds_admit's), and exec(->ct_label) has one value slot per
 * translation (DP_MAX_CT_LABELS): a rule writing the label in two ct()
 * would not fit. */
int
xlate_check_executable(const struct ofp_rule *r, char *err, size_t errlen)
{
	int n_label_writers = 0;

	for (int i = 0; i < r->n_actions; i++) {
		const struct ofp_action *a = &r->actions[i];
		if (a->type != OFPACT_CT && a->type != OFPACT_SG)
			continue;
		const struct ofp_ct *c = &r->ct[a->slot];
		bool writes_label = false;
		for (int e = 0; e < c->n_exec; e++)
			writes_label |= c->exec[e].field == OFP_MF_CT_LABEL;
		n_label_writers += writes_label;
	}
	if (n_label_writers > DP_MAX_CT_LABELS) {
		snprintf(err, errlen, "ct(exec(->ct_label)): %d ct() write "
			 "ct_label: the datapath takes at most %d per rule",
			 n_label_writers, DP_MAX_CT_LABELS);
		return -1;
	}
	return 0;
}
