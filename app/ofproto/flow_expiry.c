/* SPDX-License-Identifier: BSD-3-Clause
 * Rule timeouts (ovs-ofctl idle_timeout, hard_timeout; ofproto.h): which
 * rules are due, from their stamps and what the PMDs' megaflows say of
 * their use, removed through the table's own sweep (flow_table_priv.h).
 */
#include <rte_common.h>
#include "flow_table_priv.h"

/* Idle: unused (nor modified) for its idle_timeout at now_ms. */
static bool
rule_idle(const struct rule_slot *s, uint64_t now_ms)
{
	return s->rule->idle_timeout &&
	       now_ms >= RTE_MAX(s->stats.used_ms, s->stats.modified_ms) +
			 s->rule->idle_timeout * 1000ull;
}

/* Counts the rule it finds expired, hard first. */
static bool
rule_expired(const struct rule_slot *s, uint64_t now_ms)
{
	const struct ofp_rule *r = s->rule;
	bool hard = r->hard_timeout && now_ms >= s->stats.modified_ms +
						 r->hard_timeout * 1000ull;
	bool idle = !hard && rule_idle(s, now_ms);

	ft.expired_hard += hard;
	ft.expired_idle += idle;
	return hard || idle;
}

bool
ofproto_idle_candidates(uint64_t now_ms)
{
	for (uint32_t i = 0; i < ft.n_rules; i++)
		if (rule_idle(ft.rules[i], now_ms))
			return true;
	return false;
}

void
ofproto_note_used(uint32_t uid, uint64_t used_ms)
{
	struct rule_slot *s = slot_by_uid(uid);

	if (s)
		s->stats.used_ms = RTE_MAX(s->stats.used_ms, used_ms);
}

uint32_t
ofproto_expire_rules(uint64_t now_ms)
{
	for (uint32_t i = 0; i < ft.n_rules; i++)
		if (rule_expired(ft.rules[i], now_ms))
			ft.rules[i]->doomed = true;
	int64_t removed = rules_sweep();	/* out of memory: next tick */
	if (removed > 0)
		ofproto_publish_rules();
	return removed > 0 ? (uint32_t)removed : 0;
}

void
ofproto_expired_counts(uint64_t *idle, uint64_t *hard)
{
	*idle = ft.expired_idle;
	*hard = ft.expired_hard;
}

