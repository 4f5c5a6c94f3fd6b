/* SPDX-License-Identifier: BSD-3-Clause
 * OpenFlow rule table and its publication to the PMDs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <rte_cycles.h>
#include "clock.h"
#include "ct_label_pred.h"
#include "neigh.h"
#include "ofproto.h"
#include "port.h"
#include "route.h"
#include "xlate.h"
#include "vlog.h"

struct rule_slot {
	struct ofp_rule rule;
	struct ofproto_rule_stats stats;
};

static struct {
	struct rule_slot *rules;
	uint32_t n_rules, cap_rules;
	uint32_t next_uid;

	uint32_t max_rules;		/* datapath max-flows */
	uint64_t rules_refused;		/* rules of add-flow(s) refused by it */
	uint64_t expired_idle, expired_hard;	/* rules their timeouts took */

	/* neighbours changed since the last publish (neigh.c reports them) */
	uint32_t *neigh_changed;	/* neigh_addr_digest()s */
	uint32_t n_neigh_changed, cap_neigh_changed;
	bool neigh_overflow;		/* too many: revalidate everything */
	uint64_t last_publish_ms;
	uint32_t publish_interval_ms;

	const struct vxs_config *cfg;
	struct rte_rcu_qsbr *qsbr;
	uint64_t gen;
	struct ofproto_publish_stats pstats;

	/* Replaced snapshots a PMD may still read, oldest first, each with
	 * its grace period's token: a publish waits at most
	 * PUBLISH_GRACE_WAIT_US for its old snapshot's grace period, so it
	 * never hangs on a PMD stuck in a driver call; what it could not free
	 * is freed by a later publish or tick (retired_reclaim). */
	struct retired_snapshot {
		struct dp_snapshot *s;
		uint64_t token;
	} *retired;
	uint32_t n_retired, cap_retired;
} of;

/* Healthy PMDs pass a quiescent state every iteration (microseconds; a
 * sleeping one is offline): a longer wait means a PMD is busy revalidating
 * or not answering. */
#define PUBLISH_GRACE_WAIT_US 20000

struct dp_snapshot *dp_snapshot_current;

/* ---- snapshot ---------------------------------------------------------- */

static int
u32_order(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

bool
dp_snapshot_neigh_changed(const struct dp_snapshot *s, uint32_t digest)
{
	return s->n_neigh_changed &&
	       bsearch(&digest, s->neigh_changed, s->n_neigh_changed,
		       sizeof digest, u32_order) != NULL;
}

bool
dp_snapshot_vni_known(const struct dp_snapshot *s, uint32_t vni)
{
	if (!s->n_vnis)
		return true;
	for (uint16_t i = 0; i < s->n_vnis; i++)
		if (s->vnis[i] == vni)
			return true;
	return false;
}

static void
vni_add(uint32_t *vnis, uint16_t *n, uint32_t vni)
{
	for (uint16_t i = 0; i < *n; i++)
		if (vnis[i] == vni)
			return;
	if (*n < CFG_MAX_VNIS)
		vnis[(*n)++] = vni;
}

/* The VNIs the tunnel port accepts: configured, or else every VNI the
 * rules mention (matched with an exact tun_id, or set on output). */
static uint16_t
collect_vnis(uint32_t *vnis)
{
	const struct port *t = port_vxlan();
	uint16_t n = 0;

	if (!t)
		return 0;
	if (t->cfg->n_vnis) {
		for (uint16_t i = 0; i < t->cfg->n_vnis; i++)
			vni_add(vnis, &n, t->cfg->vnis[i]);
		return n;
	}
	if (!t->cfg->key_flow)
		vni_add(vnis, &n, t->cfg->key);
	for (uint32_t i = 0; i < of.n_rules; i++) {
		const struct ofp_rule *r = &of.rules[i].rule;
		if (r->mask.tun_id == UINT32_MAX)
			vni_add(vnis, &n, r->match.tun_id);
		for (int a = 0; a < r->n_actions; a++)
			if (r->actions[a].type == OFPACT_SET_TUNNEL)
				vni_add(vnis, &n, r->actions[a].u32);
	}
	return n;
}

/* Sorts and de-duplicates the neighbour changes; returns how many. */
static uint32_t
neigh_changes_take(void)
{
	uint32_t n = 0;

	qsort(of.neigh_changed, of.n_neigh_changed, sizeof(uint32_t),
	      u32_order);
	for (uint32_t i = 0; i < of.n_neigh_changed; i++)
		if (!n || of.neigh_changed[n - 1] != of.neigh_changed[i])
			of.neigh_changed[n++] = of.neigh_changed[i];
	return n;
}

static struct dp_snapshot *
snapshot_build(bool reval_all)
{
	uint32_t vnis[CFG_MAX_VNIS];
	uint16_t n_vnis = collect_vnis(vnis);
	uint32_t n_changed = reval_all ? 0 : neigh_changes_take();
	size_t sz = sizeof(struct dp_snapshot) +
		    of.n_rules * sizeof(struct ofp_rule) +
		    n_vnis * sizeof(uint32_t) +
		    n_changed * sizeof(uint32_t) + 64;
	struct dp_snapshot *s = aligned_alloc(64, RTE_ALIGN_CEIL(sz, 64));
	if (!s)
		return NULL;
	memset(s, 0, sizeof *s);

	uint8_t *p = (uint8_t *)(s + 1);
	s->rules = (struct ofp_rule *)RTE_PTR_ALIGN_CEIL(p, 64);
	s->n_rules = of.n_rules;
	for (uint32_t i = 0; i < of.n_rules; i++)
		s->rules[i] = of.rules[i].rule;
	p = (uint8_t *)(s->rules + s->n_rules);
	s->vnis = (uint32_t *)p;
	s->n_vnis = n_vnis;
	memcpy(s->vnis, vnis, n_vnis * sizeof *vnis);
	p += n_vnis * sizeof *vnis;
	s->reval_all = reval_all;
	s->neigh_changed = (uint32_t *)p;
	s->n_neigh_changed = n_changed;
	if (n_changed)
		memcpy(s->neigh_changed, of.neigh_changed,
		       n_changed * sizeof(uint32_t));

	const struct vxs_config *cfg = of.cfg;
	const struct port *u = port_underlay();
	if (u) {
		s->has_underlay = true;
		s->underlay_idx = u->idx;
		s->underlay_ofport = u->ofport;
		s->vtep_ip = cfg->vtep_ip;
		s->vtep_plen = cfg->vtep_plen;
		s->vtep_mac = cfg->vtep_mac_set ? cfg->vtep_mac : u->mac;
		s->has_vtep_ip6 = cfg->vtep_ip6_set;
		memcpy(s->vtep_ip6.a, cfg->vtep_ip6, sizeof s->vtep_ip6.a);
		s->vtep_plen6 = cfg->vtep_plen6;
		s->underlay_tx_udp_csum = u->tx_udp_csum;
		/* RFC 4291 2.7.1, RFC 2464 7: 33:33 + ff02::1:ffXX:XXXX */
		s->vtep_ip6_snmac = (struct rte_ether_addr){ {
			0x33, 0x33, 0xff, cfg->vtep_ip6[13],
			cfg->vtep_ip6[14], cfg->vtep_ip6[15] } };
	}
	const struct port *t = port_vxlan();
	static uint32_t last_tnl_ofport;
	if (!t && !port_by_ofport(last_tnl_ofport))
		s->gone_tnl_ofport = last_tnl_ofport;
	if (t) {
		last_tnl_ofport = t->ofport;
		s->has_tunnel = true;
		s->tnl_idx = t->idx;
		s->tnl_ofport = t->ofport;
		s->tnl_dst_port = t->cfg->dst_port ? t->cfg->dst_port : 4789;
		s->tnl_remote_flow = t->cfg->remote_ip_flow;
		s->tnl_local_flow = t->cfg->local_ip_flow;
		s->tnl_key_flow = t->cfg->key_flow;
		s->tnl_remote_ip = t->cfg->remote_ip;
		s->tnl_local_ip = t->cfg->local_ip;
		s->tnl_remote_v6 = t->cfg->remote_ipv6;
		memcpy(s->tnl_remote_ip6.a, t->cfg->remote_ip6, 16);
		memcpy(s->tnl_local_ip6.a, t->cfg->local_ipv6 ?
		       t->cfg->local_ip6 : cfg->vtep_ip6, 16);
		s->tnl_udp6_zero_csum_ok = !t->cfg->udp6_zero_csum_refused;
		s->tnl_key = t->cfg->key;
	}
	s->gen = ++of.gen;
	ct_label_preds_publish(s);
	return s;
}

/* Frees the retired snapshots whose grace period has ended (all, with
 * force: the PMDs are gone). */
static void
retired_reclaim(bool force)
{
	uint32_t k = 0;

	while (k < of.n_retired && (force || !of.qsbr ||
	       rte_rcu_qsbr_check(of.qsbr, of.retired[k].token, false) == 1))
		free(of.retired[k++].s);
	if (!k)
		return;
	memmove(of.retired, of.retired + k,
		(of.n_retired - k) * sizeof *of.retired);
	of.n_retired -= k;
}

/* After old stopped being current: freed once no PMD can be reading it. */
static void
retire_snapshot(struct dp_snapshot *old)
{
	uint64_t token = rte_rcu_qsbr_start(of.qsbr);
	uint64_t until = rte_rdtsc() + rte_get_tsc_hz() / 1000000 *
				       PUBLISH_GRACE_WAIT_US;

	retired_reclaim(false);
	while (rte_rcu_qsbr_check(of.qsbr, token, false) != 1) {
		if (rte_rdtsc() > until) {
			if (of.n_retired == of.cap_retired) {
				uint32_t cap = of.cap_retired ? 2 * of.cap_retired
							      : 16;
				void *r = realloc(of.retired,
						  cap * sizeof *of.retired);
				if (!r) {	/* rather a hang than a crash */
					rte_rcu_qsbr_synchronize(
						of.qsbr, RTE_QSBR_THRID_INVALID);
					break;
				}
				of.retired = r;
				of.cap_retired = cap;
			}
			of.retired[of.n_retired++] =
				(struct retired_snapshot){ old, token };
			of.pstats.deferred_frees++;
			return;
		}
		rte_pause();
	}
	free(old);
}

static uint64_t
publish(bool reval_all)
{
	struct dp_snapshot *s, *old;

	reval_all |= of.neigh_overflow;
	s = snapshot_build(reval_all);
	if (!s) {
		VLOG_ERR(ofproto, "out of memory publishing tables");
		return of.gen;
	}
	of.n_neigh_changed = 0;
	of.neigh_overflow = false;
	of.last_publish_ms = vxs_now_ms();
	of.pstats.publishes++;
	of.pstats.neigh_only += !reval_all;
	old = __atomic_exchange_n(&dp_snapshot_current, s, __ATOMIC_ACQ_REL);
	/* Once every PMD has passed a quiescent state, none can still be
	 * translating with the old snapshot. */
	if (old && of.qsbr)
		retire_snapshot(old);
	else
		free(old);
	return s->gen;
}

uint64_t
ofproto_publish(void)
{
	return publish(true);
}

uint64_t
ofproto_publish_neigh(void)
{
	return publish(false);
}

/* At most NEIGH_CHANGES_MAX addresses wait for a publish; past that the
 * publish revalidates every megaflow (still one publish per interval). */
#define NEIGH_CHANGES_MAX (1u << 20)

void
ofproto_neigh_changed(uint32_t digest)
{
	if (of.n_neigh_changed == of.cap_neigh_changed) {
		uint32_t cap = of.cap_neigh_changed ?
			       of.cap_neigh_changed * 2 : 1024;
		uint32_t *n = NULL;
		if (cap <= NEIGH_CHANGES_MAX)
			n = realloc(of.neigh_changed, cap * sizeof *n);
		if (!n) {
			of.neigh_overflow = true;
			of.n_neigh_changed = 0;
		} else {
			of.neigh_changed = n;
			of.cap_neigh_changed = cap;
		}
	}
	if (!of.neigh_overflow)
		of.neigh_changed[of.n_neigh_changed++] = digest;
	of.pstats.neigh_changes++;
}

void
ofproto_publish_pending(void)
{
	if (of.n_neigh_changed || of.neigh_overflow)
		ofproto_publish_neigh();
}

void
ofproto_tick(void)
{
	uint64_t now = vxs_now_ms();

	if (of.n_retired)
		retired_reclaim(false);
	neigh_age(now);
	if ((of.n_neigh_changed || of.neigh_overflow) &&
	    now - of.last_publish_ms >= of.publish_interval_ms)
		ofproto_publish_neigh();
}

void
ofproto_set_publish_interval_ms(uint32_t ms)
{
	of.publish_interval_ms = ms;
}

uint32_t
ofproto_publish_interval_ms(void)
{
	return of.publish_interval_ms;
}

const struct ofproto_publish_stats *
ofproto_get_publish_stats(void)
{
	return &of.pstats;
}

/* ---- rules ------------------------------------------------------------- */

/* By table (the translation finds a table's rules by binary search), then
 * priority descending, then age. */
static int
rule_order(const struct ofp_rule *a, const struct ofp_rule *b)
{
	if (a->table_id != b->table_id)
		return a->table_id < b->table_id ? -1 : 1;
	if (a->priority != b->priority)
		return a->priority > b->priority ? -1 : 1;
	return a->uid < b->uid ? -1 : a->uid > b->uid;
}

static int
rule_slot_cmp(const void *a, const void *b)
{
	return rule_order(&((const struct rule_slot *)a)->rule,
			  &((const struct rule_slot *)b)->rule);
}

static int
rules_reserve(uint32_t n)
{
	if (n <= of.cap_rules)
		return 0;
	uint32_t cap = RTE_MAX(n, of.cap_rules * 2);
	struct rule_slot *r = realloc(of.rules, cap * sizeof *r);
	if (!r)
		return -1;
	of.rules = r;
	of.cap_rules = cap;
	return 0;
}

/* How many of the batch's rules would be new (not replacing the actions
 * of an existing rule, nor of an earlier one in the batch). */
static uint32_t
rules_new(const struct ofp_rule *batch, int n)
{
	uint32_t n_new = 0;

	for (int i = 0; i < n; i++) {
		bool known = false;
		for (uint32_t j = 0; j < of.n_rules && !known; j++)
			known = ofp_rule_same_match(&of.rules[j].rule,
						    &batch[i]);
		for (int j = 0; j < i && !known; j++)
			known = ofp_rule_same_match(&batch[j], &batch[i]);
		n_new += !known;
	}
	return n_new;
}

static void
rule_upsert(const struct ofp_rule *nr)
{
	for (uint32_t i = 0; i < of.n_rules; i++) {
		struct ofp_rule *r = &of.rules[i].rule;
		if (ofp_rule_same_match(r, nr)) {
			/* ovs-ofctl add-flow on an existing match: new
			 * actions, same identity and counters. */
			r->n_actions = nr->n_actions;
			memcpy(r->actions, nr->actions, sizeof r->actions);
			/* the sg()/ct() specs the actions point into */
			r->n_ct = nr->n_ct;
			memcpy(r->ct, nr->ct, sizeof r->ct);
			r->cookie = nr->cookie;
			r->idle_timeout = nr->idle_timeout;
			r->hard_timeout = nr->hard_timeout;
			of.rules[i].stats.modified_ms = vxs_now_ms();
			return;
		}
	}
	struct rule_slot *slot = &of.rules[of.n_rules++];
	slot->rule = *nr;
	slot->rule.uid = ++of.next_uid;
	memset(&slot->stats, 0, sizeof slot->stats);
	slot->stats.created_ms = vxs_now_ms();
	slot->stats.modified_ms = slot->stats.created_ms;
}

static bool
port_is_tunnel(uint32_t ofport, void *aux)
{
	(void)aux;
	const struct port *p = port_by_ofport(ofport);
	return p && p->kind == PORT_VXLAN;
}

/* Parsed, runnable, and its translation fits the datapath's per-rule
 * slots. */
static int
parse_rule(const char *text, struct ofp_rule *r, char *err, size_t errlen)
{
	if (ofp_parse_flow(text, OFP_PARSE_ADD, ports_ofp_map_adding(), r, err,
			   errlen) ||
	    xlate_check_executable(r, err, errlen))
		return -1;
	return xlate_check_rule(r, port_is_tunnel, NULL, err, errlen);
}

int
ofproto_add_flows(const char *const *flows, int n, int *bad, char *err,
		  size_t errlen)
{
	struct ofp_rule *parsed = calloc(n ? n : 1, sizeof *parsed);
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
	uint32_t n_new = rules_new(parsed, n);
	if (n_new > of.max_rules - of.n_rules) {
		snprintf(err, errlen, "flow table full: %u rules + %u new, the "
			 "limit (datapath max-flows) is %u; nothing added",
			 of.n_rules, n_new, of.max_rules);
		of.rules_refused += n_new;
		*bad = -1;
		free(parsed);
		return -1;
	}
	if (rules_reserve(of.n_rules + n_new)) {
		snprintf(err, errlen, "out of memory");
		free(parsed);
		return -1;
	}
	/* last: a refusal here is counted (limits/show) */
	if (ct_label_preds_admit(parsed, n, bad, err, errlen)) {
		free(parsed);
		return -1;
	}
	for (int i = 0; i < n; i++)
		rule_upsert(&parsed[i]);
	qsort(of.rules, of.n_rules, sizeof *of.rules, rule_slot_cmp);
	free(parsed);
	ofproto_publish();
	return 0;
}

static bool
rule_selected(const struct ofp_rule *r, const struct ofp_rule *f, bool strict)
{
	return strict ? ofp_rule_strict_match(r, f) : ofp_rule_covered_by(r, f);
}

/* Idle: unused (nor modified) for its idle_timeout at now_ms. */
static bool
rule_idle(const struct rule_slot *s, uint64_t now_ms)
{
	return s->rule.idle_timeout &&
	       now_ms >= RTE_MAX(s->stats.used_ms, s->stats.modified_ms) +
			 s->rule.idle_timeout * 1000ull;
}

/* Counts the rule it finds expired, hard first. */
static bool
rule_expired(const struct rule_slot *s, uint64_t now_ms)
{
	const struct ofp_rule *r = &s->rule;
	bool hard = r->hard_timeout && now_ms >= s->stats.modified_ms +
						 r->hard_timeout * 1000ull;
	bool idle = !hard && rule_idle(s, now_ms);

	of.expired_hard += hard;
	of.expired_idle += idle;
	return hard || idle;
}

/* Drops the rules filter selects or, with none, those expired at now_ms;
 * keeps the rest in order, republishes if any went; how many went. */
static uint32_t
rules_compact(const struct ofp_rule *filter, bool strict, uint64_t now_ms)
{
	uint32_t kept = 0, removed;

	for (uint32_t i = 0; i < of.n_rules; i++)
		if (!(filter ? rule_selected(&of.rules[i].rule, filter, strict)
			     : rule_expired(&of.rules[i], now_ms)))
			of.rules[kept++] = of.rules[i];
	removed = of.n_rules - kept;
	of.n_rules = kept;
	if (removed)
		ofproto_publish();
	return removed;
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
	return (int)rules_compact(&f, strict, 0);
}

int
ofproto_mod_flows(const char *flow, bool strict, char *err, size_t errlen)
{
	struct ofp_rule f;
	int changed = 0;

	if (ofp_parse_flow(flow, OFP_PARSE_MODIFY, ports_ofp_map(), &f, err,
			   errlen) ||
	    xlate_check_executable(&f, err, errlen))
		return -1;
	/* the new actions are checked against each rule they land in (its
	 * table decides what resubmit and ct(table=) may reach): all of
	 * them first, so a refusal changes nothing */
	for (int pass = 0; pass < 2; pass++) {
		for (uint32_t i = 0; i < of.n_rules; i++) {
			struct ofp_rule *r = &of.rules[i].rule;
			if (!rule_selected(r, &f, strict))
				continue;
			struct ofp_rule t = *r;
			t.n_actions = f.n_actions;
			memcpy(t.actions, f.actions, sizeof t.actions);
			t.n_ct = f.n_ct;
			memcpy(t.ct, f.ct, sizeof t.ct);
			if (f.cookie_given)
				t.cookie = f.cookie;
			if (pass == 0) {
				if (xlate_check_rule(&t, port_is_tunnel, NULL,
						     err, errlen))
					return -1;
				continue;
			}
			*r = t;
			of.rules[i].stats.modified_ms = vxs_now_ms();
			changed++;
		}
	}
	if (changed)
		ofproto_publish();
	return changed;
}

const char *
ofproto_bridge(void)
{
	return of.cfg ? of.cfg->bridge : "br-int";
}

/* ---- rule timeouts ---------------------------------------------------- */

bool
ofproto_idle_candidates(uint64_t now_ms)
{
	for (uint32_t i = 0; i < of.n_rules; i++)
		if (rule_idle(&of.rules[i], now_ms))
			return true;
	return false;
}

void
ofproto_note_used(uint32_t uid, uint64_t used_ms)
{
	for (uint32_t i = 0; i < of.n_rules; i++)
		if (of.rules[i].rule.uid == uid) {
			of.rules[i].stats.used_ms =
				RTE_MAX(of.rules[i].stats.used_ms, used_ms);
			return;
		}
}

uint32_t
ofproto_expire_rules(uint64_t now_ms)
{
	return rules_compact(NULL, false, now_ms);
}

void
ofproto_expired_counts(uint64_t *idle, uint64_t *hard)
{
	*idle = of.expired_idle;
	*hard = of.expired_hard;
}

uint32_t
ofproto_n_rules(void)
{
	return of.n_rules;
}

const struct ofp_rule *
ofproto_rule(uint32_t i)
{
	return i < of.n_rules ? &of.rules[i].rule : NULL;
}

const struct ofproto_rule_stats *
ofproto_rule_stats(uint32_t i)
{
	return i < of.n_rules ? &of.rules[i].stats : NULL;
}

void
ofproto_account_retired(uint32_t uid, uint64_t packets, uint64_t bytes,
			uint64_t used_ms)
{
	for (uint32_t i = 0; i < of.n_rules; i++) {
		if (of.rules[i].rule.uid == uid) {
			of.rules[i].stats.packets += packets;
			of.rules[i].stats.bytes += bytes;
			of.rules[i].stats.used_ms =
				RTE_MAX(of.rules[i].stats.used_ms, used_ms);
			return;
		}
	}
}

/* ---- init -------------------------------------------------------------- */

static int
init_tables(const struct vxs_config *cfg, char *err, size_t errlen)
{
	const struct port *u = port_underlay();

	if (neigh_init(cfg->max_neighbours, cfg->neigh_aging_s, of.qsbr) ||
	    route_init(cfg->max_routes, of.qsbr)) {
		snprintf(err, errlen, "out of memory for the neighbour and "
			 "route tables (datapath max-neighbours, max-routes)");
		return -1;
	}
	if (route_load_config(cfg, u ? u->idx : UINT16_MAX, err, errlen) ||
	    neigh_load_config(cfg, err, errlen))
		return -1;
	return 0;
}

int
ofproto_init(const struct vxs_config *cfg, struct rte_rcu_qsbr *qsbr,
	     char *err, size_t errlen)
{
	char perr[CFG_ERR_MAX];

	of.cfg = cfg;
	of.qsbr = qsbr;
	of.max_rules = cfg->max_flows ? cfg->max_flows : CFG_MAX_FLOWS_DEFAULT;
	of.publish_interval_ms = cfg->publish_interval_ms ?
		cfg->publish_interval_ms : OFPROTO_PUBLISH_INTERVAL_DEFAULT_MS;
	if (init_tables(cfg, err, errlen))
		return -1;
	if (cfg->n_flows > of.max_rules) {
		snprintf(err, errlen, "%s: %u flows, more than datapath "
			 "max-flows (%u)", cfg->file, cfg->n_flows,
			 of.max_rules);
		return -1;
	}
	struct ofp_rule *parsed = calloc(cfg->n_flows + 1, sizeof *parsed);
	if (!parsed || rules_reserve(cfg->n_flows + 1)) {
		free(parsed);
		return -1;
	}
	int bad = -1;
	for (uint16_t i = 0; i < cfg->n_flows && bad < 0; i++)
		if (parse_rule(cfg->flows[i].text, &parsed[i], perr,
			       sizeof perr))
			bad = i;
	if (bad < 0)
		ct_label_preds_admit(parsed, cfg->n_flows, &bad, perr,
				     sizeof perr);
	if (bad >= 0) {
		snprintf(err, errlen, "%s:%d:%d: %s", cfg->file,
			 cfg->flows[bad].line, cfg->flows[bad].col, perr);
		free(parsed);
		return -1;
	}
	for (uint16_t i = 0; i < cfg->n_flows; i++)
		rule_upsert(&parsed[i]);
	free(parsed);
	qsort(of.rules, of.n_rules, sizeof *of.rules, rule_slot_cmp);
	ofproto_publish();
	return 0;
}

void
ofproto_fini(void)
{
	free(dp_snapshot_current);
	dp_snapshot_current = NULL;
	retired_reclaim(true);
	free(of.retired);
	free(of.rules);
	free(of.neigh_changed);
	neigh_fini();
	route_fini();
	ct_label_preds_reset();
	memset(&of, 0, sizeof of);
}

uint64_t
ofproto_rules_refused(void)
{
	return of.rules_refused;
}

uint32_t
ofproto_max_rules(void)
{
	return of.max_rules;
}
