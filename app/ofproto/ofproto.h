/* SPDX-License-Identifier: BSD-3-Clause
 * The control plane's tables - OpenFlow rules, neighbours (tnl/arp),
 * routes (ovs/route) - owned by the control thread alone. Every change
 * ends in ofproto_publish(), which freezes them into a new dp_snapshot for
 * the PMDs. A batch of changes is validated whole before anything is
 * applied, so a bad flow in a list changes nothing.
 */
#ifndef VXS_OFPROTO_H
#define VXS_OFPROTO_H

#include <stdbool.h>
#include <stdint.h>
#include <rte_rcu_qsbr.h>
#include "config.h"
#include "dp_snapshot.h"
#include "ofp_rule.h"
#include "ofp_wire.h"

struct ofproto_rule_stats {
	uint64_t packets, bytes;	/* of megaflows already retired */
	uint64_t created_ms;
	uint64_t modified_ms;		/* created, add-flow again, mod-flows:
					 * hard_age, hard_timeout */
	uint64_t used_ms;		/* last packet known to the control
					 * side (retired megaflows, or
					 * ofproto_note_used); 0: none yet */
};

int ofproto_init(const struct vxs_config *cfg, struct rte_rcu_qsbr *qsbr,
		 char *err, size_t errlen);
void ofproto_fini(void);

/* Makes the current tables visible to the PMDs; returns the generation.
 * Every megaflow is revalidated. */
uint64_t ofproto_publish(void);
/* The same after a change of rules alone (flow_table.c): the PMDs
 * revalidate only the megaflows that looked up a table that changed
 * (dp_snapshot.h tables_changed), unless something else changed too. */
uint64_t ofproto_publish_rules(void);
/* Bursts of rule changes (the OpenFlow channel's flow_mods), few
 * publishes: between ofproto_publish_hold() and ofproto_publish_release()
 * (nested: the outermost), a rule change publishes nothing; what waits is
 * published by the release or by ofproto_tick() once the first change
 * has waited OFPROTO_HOLD_MAX_MS (so a PMD sees a rule from a flow_mod
 * within about that and the control loop's 20 ms poll), by
 * ofproto_publish_flush() at once, or by any other publish. As OVS, whose
 * barrier reply says a change is in the classifier, not yet in the
 * datapath's flows (its revalidators follow). */
#define OFPROTO_HOLD_MAX_MS 10
void ofproto_publish_hold(void);
void ofproto_publish_release(void);
void ofproto_publish_flush(void);

/* add-flow / add-flows: all or nothing. A rule with the same priority and
 * match as an existing one replaces its actions (as ovs-ofctl add-flow). On
 * error *bad is the index of the offending flow, or -1 when the batch as a
 * whole would pass the rule limit (datapath max-flows). */
int ofproto_add_flows(const char *const *flows, int n, int *bad, char *err,
		      size_t errlen);
/* del-flows [--strict] [FLOW]; returns the number of rules removed. */
int ofproto_del_flows(const char *filter, bool strict, char *err,
		      size_t errlen);
/* mod-flows [--strict] FLOW: the matching rules get FLOW's actions (and
 * its cookie if it gives one without a mask), keeping their counters and
 * timeouts, as ovs-ofctl mod-flows; returns how many changed. */
int ofproto_mod_flows(const char *flow, bool strict, char *err,
		      size_t errlen);

/* The same from rules already decoded (an OpenFlow flow_mod,
 * ofp_wire_decode_flow_mod): add (all or nothing), delete by a filter,
 * modify the rules a filter selects. On a refusal *why (if not NULL) is
 * the OpenFlow error OVS gives for it: OFPFMFC_OVERLAP (check_overlap),
 * OFPFMFC_TABLE_FULL (max-flows, the ct_label limit, memory),
 * OFPFMFC_BAD_TABLE_ID, OFPBAC_BAD_ARGUMENT (actions the datapath cannot
 * run). OpenFlow 1.0's modify that selects nothing is an add: the
 * caller's (ofproto_mod_rules returns 0 then). */
int ofproto_add_rules(const struct ofp_rule *batch, int n, int *bad,
		      enum ofp_wire_error *why, char *err, size_t errlen);
/* returns how many were removed; -1: out of memory, nothing removed */
int ofproto_del_rules(const struct ofp_rule *filter, bool strict);
int ofproto_mod_rules(const struct ofp_rule *filter, bool strict,
		      enum ofp_wire_error *why, char *err, size_t errlen);

/* The OpenFlow bridge's name (datapath: bridge:, default br-int). */
const char *ofproto_bridge(void);

/* Rule timeouts (ovs-ofctl idle_timeout/hard_timeout). The control loop
 * calls ofproto_expire_rules() with the time; it removes the rules past
 * their hard timeout, and those idle past their idle timeout by what it
 * knows of their use, which the caller refreshes first from the PMDs'
 * live megaflows (ofproto_note_used) when ofproto_idle_candidates() says
 * some rule may be due. Returns the number removed. */
bool ofproto_idle_candidates(uint64_t now_ms);
void ofproto_note_used(uint32_t uid, uint64_t used_ms);
uint32_t ofproto_expire_rules(uint64_t now_ms);
/* rules removed by their timeouts, since start: idle, hard */
void ofproto_expired_counts(uint64_t *idle, uint64_t *hard);

uint32_t ofproto_n_rules(void);
const struct ofp_rule *ofproto_rule(uint32_t i);	/* in table order */
const struct ofproto_rule_stats *ofproto_rule_stats(uint32_t i);
void ofproto_account_retired(uint32_t uid, uint64_t packets, uint64_t bytes,
			     uint64_t used_ms);

/* Publication. A rule or route change publishes at once and revalidates
 * every megaflow (ofproto_publish). Neighbour changes (neigh.c) are noted
 * with ofproto_neigh_changed and revalidate only the megaflows whose next
 * hop changed: operator changes publish at once (ofproto_publish_neigh),
 * learned ones and aging at most once per publish interval
 * (ofproto_tick, called by the main loop). */
#define OFPROTO_PUBLISH_INTERVAL_DEFAULT_MS 100

struct ofproto_publish_stats {
	uint64_t publishes;		/* snapshots published */
	uint64_t neigh_only;		/* of which for neighbour changes */
	uint64_t by_table;		/* of which revalidating by table */
	uint64_t neigh_changes;		/* neighbour changes noted */
	/* replaced snapshots whose grace period had not ended by the end
	 * of their publish (a PMD not answering): freed later */
	uint64_t deferred_frees;
	/* the last publish: building its snapshot, and all of it (with the
	 * wait for the old snapshot's grace period and the frees), us */
	uint64_t last_build_us, last_publish_us;
};

uint64_t ofproto_publish_neigh(void);
void ofproto_neigh_changed(uint32_t digest);	/* neigh_addr_digest */
void ofproto_tick(void);
/* Publishes the neighbour changes still waiting for their interval: a
 * command that shows the table makes what it shows the datapath's. */
void ofproto_publish_pending(void);
void ofproto_set_publish_interval_ms(uint32_t ms);
uint32_t ofproto_publish_interval_ms(void);
const struct ofproto_publish_stats *ofproto_get_publish_stats(void);
/* datapath max-flows: add-flow(s) beyond it are refused whole */
uint32_t ofproto_max_rules(void);
/* new rules of the add-flow(s) batches refused by that limit */
uint64_t ofproto_rules_refused(void);

#endif
