/* SPDX-License-Identifier: BSD-3-Clause
 * The OpenFlow rule table and the one flow_mod path every source takes
 * (topology flows:, vxswitch-ctl and unixctl add-flow(s), mod-flows,
 * del-flows), with OVS's semantics (ofproto/ofproto.c, add_flow_start,
 * modify_flows_start__, delete_flows_start__): an add on an identical
 * rule replaces it, check_overlap refuses an overlap, strict modify and
 * delete name one rule per table, loose ones every rule a filter covers.
 * Each rule is an object of its own, found by identity through a hash
 * (rule_index.h); the table keeps pointers to them in the order the
 * snapshot wants (ofproto.c publishes it after each change). A rule
 * object is immutable once published: the snapshots share it (by table,
 * dp_rule_table.h), so a replace or modify makes a new one (counters and
 * stamps stay in the slot) and the one it replaces, like a deleted one,
 * is handed to the next publish, which frees it after its grace period.
 * Rule timeouts are flow_expiry.c's, on the state of flow_table_priv.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "clock.h"
#include "ct_label_pred.h"
#include "dp_rule_table.h"
#include "flow_table.h"
#include "flow_table_priv.h"
#include "ofproto.h"
#include "port.h"
#include "rule_index.h"
#include "xlate.h"

struct flow_table ft;

static int
slot_ptr_cmp(const void *a, const void *b)
{
	return ofp_rule_order((*(struct rule_slot *const *)a)->rule,
			      (*(struct rule_slot *const *)b)->rule);
}

static void
table_dirty(uint8_t t)
{
	ft.dirty[t >> 6] |= 1ull << (t & 63);
}

/* Room for n more dropped rules, taken before a change, so that dropping
 * never fails half way. */
static int
dropped_reserve(uint32_t n)
{
	if (ft.n_dropped + n <= ft.cap_dropped)
		return 0;
	uint32_t cap = RTE_MAX(ft.n_dropped + n, 2 * ft.cap_dropped);
	struct ofp_rule **d = realloc(ft.dropped, cap * sizeof *d);
	if (!d)
		return -1;
	ft.dropped = d;
	ft.cap_dropped = cap;
	return 0;
}

/* r leaves the table: a PMD may still read it in the current snapshot */
static void
rule_drop(struct ofp_rule *r)
{
	table_dirty(r->table_id);
	ft.dropped[ft.n_dropped++] = r;
}

static struct ofp_rule *
rule_new(const struct ofp_rule *r)
{
	struct ofp_rule *n = malloc(sizeof *n);

	if (n)
		*n = *r;
	return n;
}

static int
rules_reserve(uint32_t n)
{
	if (n <= ft.cap_rules)
		return 0;
	uint32_t cap = RTE_MAX(n, ft.cap_rules * 2);
	struct rule_slot **r = realloc(ft.rules, cap * sizeof *r);
	if (!r)
		return -1;
	ft.rules = r;
	ft.cap_rules = cap;
	return 0;
}

/* The rules from n_old on were appended: sorted, then merged with the
 * first n_old (already in order), O(n) instead of a sort of all. */
static void
rules_merge_tail(uint32_t n_old)
{
	uint32_t n = ft.n_rules;
	struct rule_slot **tmp;

	if (n_old == n)		/* nothing new (ft.rules may be NULL) */
		return;
	qsort(ft.rules + n_old, n - n_old, sizeof *ft.rules, slot_ptr_cmp);
	if (!n_old ||
	    slot_ptr_cmp(&ft.rules[n_old - 1], &ft.rules[n_old]) < 0)
		return;
	if (n - n_old <= 16) {	/* a few: each to its place, no merge pass
				 * reading every rule */
		for (uint32_t k = n_old; k < n; k++) {
			struct rule_slot *s = ft.rules[k];
			uint32_t lo = 0, hi = k;
			while (lo < hi) {
				uint32_t mid = lo + (hi - lo) / 2;
				if (slot_ptr_cmp(&ft.rules[mid], &s) < 0)
					lo = mid + 1;
				else
					hi = mid;
			}
			memmove(ft.rules + lo + 1, ft.rules + lo,
				(k - lo) * sizeof *ft.rules);
			ft.rules[lo] = s;
		}
		return;
	}
	tmp = malloc(n * sizeof *tmp);
	if (!tmp) {	/* no room to merge: sort in place */
		qsort(ft.rules, n, sizeof *ft.rules, slot_ptr_cmp);
		return;
	}
	for (uint32_t i = 0, j = n_old, k = 0; k < n; k++)
		tmp[k] = j >= n || (i < n_old &&
			 slot_ptr_cmp(&ft.rules[i], &ft.rules[j]) < 0) ?
			 ft.rules[i++] : ft.rules[j++];
	memcpy(ft.rules, tmp, n * sizeof *tmp);
	free(tmp);
}

static struct rule_slot *
find_identical(const struct ofp_rule *r, uint32_t hash)
{
	struct rule_index_node *n = rule_index_find(&ft.index, r, hash);
	return n ? (struct rule_slot *)((char *)n -
					offsetof(struct rule_slot, node)) : NULL;
}

/* ---- add ---------------------------------------------------------------- */

/* The batch's own identities, to count each new rule once: open
 * addressing over 2n slots of batch indices. */
struct batch_seen {
	int *slot;
	uint32_t mask;
};

static int
batch_seen_init(struct batch_seen *bs, int n)
{
	uint32_t cap = 16;

	while (cap < 2u * (uint32_t)n)
		cap <<= 1;
	bs->slot = malloc(cap * sizeof *bs->slot);
	if (!bs->slot)
		return -1;
	memset(bs->slot, 0xff, cap * sizeof *bs->slot);
	bs->mask = cap - 1;
	return 0;
}

/* true if an earlier rule of the batch has i's identity; else notes i */
static bool
batch_seen_add(struct batch_seen *bs, const struct ofp_rule *batch,
	       const uint32_t *hash, int i)
{
	for (uint32_t k = hash[i] & bs->mask;; k = (k + 1) & bs->mask) {
		int j = bs->slot[k];
		if (j < 0) {
			bs->slot[k] = i;
			return false;
		}
		if (hash[j] == hash[i] &&
		    ofp_rule_same_match(&batch[j], &batch[i]))
			return true;
	}
}

/* The first rule of r's table and priority or after, in the order (a
 * binary search: the order is by table, then priority descending). */
static uint32_t
first_at(const struct ofp_rule *r)
{
	uint32_t lo = 0, hi = ft.n_rules;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		const struct ofp_rule *m = ft.rules[mid]->rule;
		if (m->table_id < r->table_id ||
		    (m->table_id == r->table_id && m->priority > r->priority))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* check_overlap (OVS's OFPFMFC_OVERLAP): a rule of the table, or an
 * earlier one of the batch, at the same priority that a packet could
 * match as well. Only the rules of that table and priority are looked
 * at, and only for rules that ask for it. */
static int
check_overlaps(const struct ofp_rule *batch, int n, int *bad, char *err,
	       size_t errlen)
{
	for (int i = 0; i < n; i++) {
		const struct ofp_rule *r = &batch[i];
		bool hit = false;

		if (!(r->flags & OFP_FF_CHECK_OVERLAP))
			continue;
		for (uint32_t j = first_at(r); j < ft.n_rules && !hit &&
		     ft.rules[j]->rule->table_id == r->table_id &&
		     ft.rules[j]->rule->priority == r->priority; j++)
			hit = ofp_rule_overlaps(ft.rules[j]->rule, r);
		for (int j = 0; j < i && !hit; j++)
			hit = ofp_rule_overlaps(&batch[j], r);
		if (hit) {
			*bad = i;
			snprintf(err, errlen, "OFPFMFC_OVERLAP: a rule of "
				 "table %u at priority %u overlaps it "
				 "(check_overlap)", r->table_id, r->priority);
			return -1;
		}
	}
	return 0;
}

/* How many of the batch are new rules (no identical one in the table nor
 * earlier in the batch); -1 out of memory. */
static int64_t
count_new(const struct ofp_rule *batch, const uint32_t *hash, int n)
{
	struct batch_seen bs;
	int64_t n_new = 0;

	if (batch_seen_init(&bs, n))
		return -1;
	for (int i = 0; i < n; i++)
		if (!batch_seen_add(&bs, batch, hash, i) &&
		    !find_identical(&batch[i], hash[i]))
			n_new++;
	free(bs.slot);
	return n_new;
}

/* OVS's add on an identical rule: the new rule replaces it (actions,
 * cookie, timeouts, flags, importance, a new creation time); its counters
 * carry over unless reset_counts. Returns 1 when the rule's place in the
 * order changed (a new uid), 0 if not, -1 out of memory (nothing done). */
static int
rule_replace(struct rule_slot *s, const struct ofp_rule *nr)
{
	uint32_t uid = s->rule->uid;
	bool reset = nr->flags & OFP_FF_RESET_COUNTS;
	struct ofp_rule *r = rule_new(nr);

	if (!r)
		return -1;
	/* a new uid: the live megaflows' counts, kept by uid, stay with the
	 * rule that was */
	if (reset)
		rule_index_remove(&ft.index, &s->node);
	r->uid = reset ? ++ft.next_uid : uid;
	rule_drop(s->rule);
	s->rule = r;
	s->node.rule = r;
	if (reset)
		rule_index_insert(&ft.index, &s->node);
	s->stats.created_ms = vxs_now_ms();
	s->stats.modified_ms = s->stats.created_ms;
	if (reset) {
		s->stats.packets = s->stats.bytes = 0;
		s->stats.used_ms = 0;
	}
	return reset;
}

static int
rule_insert(const struct ofp_rule *nr, uint32_t hash)
{
	struct rule_slot *s = malloc(sizeof *s);

	if (!s || !(s->rule = rule_new(nr))) {
		free(s);
		return -1;
	}
	s->rule->uid = ++ft.next_uid;
	s->doomed = false;
	table_dirty(nr->table_id);
	memset(&s->stats, 0, sizeof s->stats);
	s->stats.created_ms = vxs_now_ms();
	s->stats.modified_ms = s->stats.created_ms;
	s->node.rule = s->rule;
	s->node.hash = hash;
	rule_index_insert(&ft.index, &s->node);
	ft.rules[ft.n_rules++] = s;
	return 0;
}

static bool
port_is_tunnel(uint32_t ofport, void *aux)
{
	(void)aux;
	const struct port *p = port_by_ofport(ofport);
	return p && p->kind == PORT_VXLAN;
}

/* Runnable, and its translation fits the datapath's per-rule slots. */
static int
check_rule(const struct ofp_rule *r, char *err, size_t errlen)
{
	if (xlate_check_executable(r, err, errlen))
		return -1;
	return xlate_check_rule(r, port_is_tunnel, NULL, err, errlen);
}

static int
parse_rule(const char *text, struct ofp_rule *r, char *err, size_t errlen)
{
	if (ofp_parse_flow(text, OFP_PARSE_ADD, ports_ofp_map_adding(), r, err,
			   errlen))
		return -1;
	return check_rule(r, err, errlen);
}

static void
set_why(enum ofp_wire_error *why, enum ofp_wire_error e)
{
	if (why)
		*why = e;
}

/* All or nothing: checks the whole batch, then applies it in order (a
 * later rule of the batch replaces an earlier identical one). */
static int
apply_adds(const struct ofp_rule *batch, int n, int *bad,
	   enum ofp_wire_error *why, char *err, size_t errlen)
{
	uint32_t *hash = malloc((n ? n : 1) * sizeof *hash);
	int rc = -1;

	/* OVS's word for a rule it has no room for, the limits' refusals
	 * and memory among them */
	set_why(why, OFPW_FMFC_TABLE_FULL);
	if (!hash) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (int i = 0; i < n; i++)
		hash[i] = rule_index_hash(&batch[i]);
	if (check_overlaps(batch, n, bad, err, errlen)) {
		set_why(why, OFPW_FMFC_OVERLAP);
		goto out;
	}
	int64_t n_new = count_new(batch, hash, n);
	if (n_new < 0 || rules_reserve(ft.n_rules + (uint32_t)n_new) ||
	    dropped_reserve((uint32_t)(n - n_new))) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	if (n_new > ft.max_rules - ft.n_rules) {
		snprintf(err, errlen, "flow table full: %u rules + %u new, the "
			 "limit (datapath max-flows) is %u; nothing added",
			 ft.n_rules, (uint32_t)n_new, ft.max_rules);
		ft.rules_refused += (uint64_t)n_new;
		*bad = -1;
		goto out;
	}
	/* last: a refusal here is counted (limits/show) */
	if (ct_label_preds_admit(batch, n, bad, err, errlen))
		goto out;
	uint32_t n_old = ft.n_rules;
	bool resort = false;
	rc = 0;
	for (int i = 0; i < n; i++) {
		struct rule_slot *s = find_identical(&batch[i], hash[i]);
		int rr = s ? rule_replace(s, &batch[i]) : 0;
		resort |= rr > 0;
		if (rr < 0 || (!s && rule_insert(&batch[i], hash[i]))) {
			/* malloc failed after the checks: what went in stays,
			 * in order, and is published */
			snprintf(err, errlen, "out of memory (flow %d)", i + 1);
			*bad = i;
			rc = -1;
			break;
		}
	}
	if (resort)
		qsort(ft.rules, ft.n_rules, sizeof *ft.rules, slot_ptr_cmp);
	else
		rules_merge_tail(n_old);
	ofproto_publish_rules();
out:
	free(hash);
	return rc;
}

int
ofproto_add_flows(const char *const *flows, int n, int *bad, char *err,
		  size_t errlen)
{
	struct ofp_rule *parsed = calloc(n ? n : 1, sizeof *parsed);
	int rc;

	if (!parsed) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (int i = 0; i < n; i++) {
		if (parse_rule(flows[i], &parsed[i], err, errlen)) {
			*bad = i;
			free(parsed);
			return -1;
		}
	}
	rc = apply_adds(parsed, n, bad, NULL, err, errlen);
	free(parsed);
	return rc;
}

int
ofproto_add_rules(const struct ofp_rule *batch, int n, int *bad,
		  enum ofp_wire_error *why, char *err, size_t errlen)
{
	for (int i = 0; i < n; i++) {
		if (batch[i].table_id >= OFP_N_TABLES) {
			*bad = i;
			set_why(why, OFPW_FMFC_BAD_TABLE_ID);
			snprintf(err, errlen, "table %u: tables are 0..%d",
				 batch[i].table_id, OFP_N_TABLES - 1);
			return -1;
		}
		if (check_rule(&batch[i], err, errlen)) {
			*bad = i;
			/* what the datapath cannot run: an argument of an
			 * action it refuses */
			set_why(why, OFPW_BAC_BAD_ARGUMENT);
			return -1;
		}
	}
	return apply_adds(batch, n, bad, why, err, errlen);
}

int
flow_table_load(const struct vxs_config *cfg, char *err, size_t errlen)
{
	char perr[CFG_ERR_MAX];
	int bad = -1;

	ft.max_rules = cfg->max_flows ? cfg->max_flows : CFG_MAX_FLOWS_DEFAULT;
	if (rule_index_init(&ft.index, ft.max_rules)) {
		snprintf(err, errlen, "out of memory for the rule index");
		return -1;
	}
	if (cfg->n_flows > ft.max_rules) {
		snprintf(err, errlen, "%s: %u flows, more than datapath "
			 "max-flows (%u)", cfg->file, cfg->n_flows,
			 ft.max_rules);
		return -1;
	}
	struct ofp_rule *parsed = calloc(cfg->n_flows + 1, sizeof *parsed);
	if (!parsed) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (uint16_t i = 0; i < cfg->n_flows && bad < 0; i++)
		if (parse_rule(cfg->flows[i].text, &parsed[i], perr,
			       sizeof perr))
			bad = i;
	int rc = bad >= 0 ? -1 :
		 apply_adds(parsed, cfg->n_flows, &bad, NULL, perr,
			    sizeof perr);
	free(parsed);
	if (rc && bad >= 0)
		snprintf(err, errlen, "%s:%d:%d: %s", cfg->file,
			 cfg->flows[bad].line, cfg->flows[bad].col, perr);
	else if (rc)
		snprintf(err, errlen, "%s: %s", cfg->file, perr);
	return rc;
}

/* ---- modify, delete ----------------------------------------------------- */

/* Rules a filter selects, each once: strict, by identity in the filter's
 * table or every table (OFP_TABLE_ALL); loose, those it covers (a scan).
 * Calls fn(slot, aux) for each in table order; fn returning nonzero
 * stops. */
static int
select_rules(const struct ofp_rule *f, bool strict,
	     int (*fn)(struct rule_slot *, void *), void *aux)
{
	if (!strict) {
		for (uint32_t i = 0; i < ft.n_rules; i++)
			if (ofp_rule_covered_by(ft.rules[i]->rule, f)) {
				int rc = fn(ft.rules[i], aux);
				if (rc)
					return rc;
			}
		return 0;
	}
	struct ofp_rule key = *f;
	int t0 = f->table_id == OFP_TABLE_ALL ? 0 : f->table_id;
	int t1 = f->table_id == OFP_TABLE_ALL ? OFP_N_TABLES - 1 : t0;
	for (int t = t0; t <= t1; t++) {
		key.table_id = (uint8_t)t;
		struct rule_slot *s = find_identical(&key,
						     rule_index_hash(&key));
		if (s && ofp_rule_strict_match(s->rule, f)) {
			int rc = fn(s, aux);
			if (rc)
				return rc;
		}
	}
	return 0;
}

/* Drops the rules marked (doomed) from the order and frees their slots,
 * their rule objects after the next publish; -1 (none removed, none left
 * marked) when out of memory for that. */
int64_t
rules_sweep(void)
{
	uint32_t kept = 0, removed = 0;

	for (uint32_t i = 0; i < ft.n_rules; i++)
		removed += ft.rules[i]->doomed;
	if (dropped_reserve(removed)) {
		for (uint32_t i = 0; i < ft.n_rules; i++)
			ft.rules[i]->doomed = false;
		return -1;
	}
	for (uint32_t i = 0; i < ft.n_rules; i++) {
		struct rule_slot *s = ft.rules[i];
		if (!s->doomed) {
			ft.rules[kept++] = s;
			continue;
		}
		rule_index_remove(&ft.index, &s->node);
		rule_drop(s->rule);
		free(s);
	}
	removed = ft.n_rules - kept;
	ft.n_rules = kept;
	return removed;
}

static int
mark_deleted(struct rule_slot *s, void *aux)
{
	(void)aux;
	s->doomed = true;
	return 0;
}

int
ofproto_del_rules(const struct ofp_rule *filter, bool strict)
{
	select_rules(filter, strict, mark_deleted, NULL);
	int64_t removed = rules_sweep();	/* -1: nothing deleted */
	if (removed > 0)
		ofproto_publish_rules();
	return (int)removed;
}

int
ofproto_del_flows(const char *filter, bool strict, char *err, size_t errlen)
{
	struct ofp_rule f;

	memset(&f, 0, sizeof f);
	f.priority = OFP_DEFAULT_PRIORITY;
	f.table_id = OFP_TABLE_ALL;
	if (filter && *filter &&
	    ofp_parse_flow(filter, OFP_PARSE_MATCH, ports_ofp_map(), &f, err,
			   errlen))
		return -1;
	int removed = ofproto_del_rules(&f, strict);
	if (removed < 0)
		snprintf(err, errlen, "out of memory; nothing deleted");
	return removed;
}

struct mod_ctx {
	const struct ofp_rule *f;	/* the new actions, cookie */
	bool apply;			/* else check only */
	int changed;
	uint32_t selected;		/* by the check */
	char *err;
	size_t errlen;
};

/* The rule with the flow_mod's actions (and cookie, if it gives one:
 * ovs-ofctl(8)); timeouts, flags, importance and counters its own, as
 * OVS's modify keeps them. */
static void
modified(const struct ofp_rule *r, const struct ofp_rule *f,
	 struct ofp_rule *t)
{
	*t = *r;
	t->n_actions = f->n_actions;
	memcpy(t->actions, f->actions, sizeof t->actions);
	t->n_ct = f->n_ct;
	memcpy(t->ct, f->ct, sizeof t->ct);
	if (f->cookie_given)
		t->cookie = f->cookie;
}

static int
mod_one(struct rule_slot *s, void *aux)
{
	struct mod_ctx *c = aux;
	struct ofp_rule t;

	modified(s->rule, c->f, &t);
	/* the new actions are checked against each rule they land in (its
	 * table decides what resubmit and ct(table=) may reach) */
	if (!c->apply) {
		c->selected++;
		return xlate_check_rule(&t, port_is_tunnel, NULL, c->err,
					c->errlen);
	}
	struct ofp_rule *r = rule_new(&t);
	if (!r) {	/* after the checks: what changed stays, published */
		snprintf(c->err, c->errlen, "out of memory");
		return -1;
	}
	/* the identity is unchanged: the index holds */
	rule_drop(s->rule);
	s->rule = r;
	s->node.rule = r;
	s->stats.modified_ms = vxs_now_ms();
	c->changed++;
	return 0;
}

int
ofproto_mod_rules(const struct ofp_rule *filter, bool strict,
		  enum ofp_wire_error *why, char *err, size_t errlen)
{
	struct ofp_rule f = *filter;
	struct mod_ctx c = { .f = &f, .err = err, .errlen = errlen };

	set_why(why, OFPW_BAC_BAD_ARGUMENT);
	if (xlate_check_executable(&f, err, errlen))
		return -1;
	/* OpenFlow's modify takes no out_port (OVS passes OFPP_ANY) */
	f.out_port = 0;
	/* all checked first, so a refusal changes nothing */
	if (select_rules(&f, strict, mod_one, &c))
		return -1;
	if (dropped_reserve(c.selected)) {
		snprintf(err, errlen, "out of memory; nothing modified");
		return -1;
	}
	c.apply = true;
	int rc = select_rules(&f, strict, mod_one, &c);
	if (c.changed)
		ofproto_publish_rules();
	return rc ? -1 : c.changed;
}

int
ofproto_mod_flows(const char *flow, bool strict, char *err, size_t errlen)
{
	struct ofp_rule f;

	if (ofp_parse_flow(flow, OFP_PARSE_MODIFY, ports_ofp_map(), &f, err,
			   errlen))
		return -1;
	return ofproto_mod_rules(&f, strict, NULL, err, errlen);
}

struct rule_slot *
slot_by_uid(uint32_t uid)
{
	struct rule_index_node *n = uid ? rule_index_find_uid(&ft.index, uid)
				       : NULL;
	return n ? (struct rule_slot *)((char *)n -
					offsetof(struct rule_slot, node)) : NULL;
}

/* ---- the snapshot's tables --------------------------------------------- */

void
flow_table_dirty(uint64_t dirty[4])
{
	memcpy(dirty, ft.dirty, sizeof ft.dirty);
}

void
flow_table_dirty_clear(void)
{
	memset(ft.dirty, 0, sizeof ft.dirty);
}

uint32_t
flow_table_take_dropped(struct ofp_rule ***dropped)
{
	uint32_t n = ft.n_dropped;

	*dropped = ft.dropped;
	ft.dropped = NULL;
	ft.n_dropped = ft.cap_dropped = 0;
	return n;
}

/* ---- access ------------------------------------------------------------- */

uint32_t
ofproto_n_rules(void)
{
	return ft.n_rules;
}

const struct ofp_rule *
ofproto_rule(uint32_t i)
{
	return i < ft.n_rules ? ft.rules[i]->rule : NULL;
}

const struct ofproto_rule_stats *
ofproto_rule_stats(uint32_t i)
{
	return i < ft.n_rules ? &ft.rules[i]->stats : NULL;
}

void
ofproto_account_retired(uint32_t uid, uint64_t packets, uint64_t bytes,
			uint64_t used_ms)
{
	struct rule_slot *s = slot_by_uid(uid);

	if (!s)
		return;
	s->stats.packets += packets;
	s->stats.bytes += bytes;
	s->stats.used_ms = RTE_MAX(s->stats.used_ms, used_ms);
}

uint64_t
ofproto_rules_refused(void)
{
	return ft.rules_refused;
}

uint32_t
ofproto_max_rules(void)
{
	return ft.max_rules;
}

void
flow_table_fini(void)
{
	for (uint32_t i = 0; i < ft.n_rules; i++) {
		free(ft.rules[i]->rule);
		free(ft.rules[i]);
	}
	free(ft.rules);
	for (uint32_t i = 0; i < ft.n_dropped; i++)
		free(ft.dropped[i]);
	free(ft.dropped);
	rule_index_fini(&ft.index);
	memset(&ft, 0, sizeof ft);
}
