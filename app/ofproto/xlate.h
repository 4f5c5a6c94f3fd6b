/* SPDX-License-Identifier: BSD-3-Clause
 * The slow path's translation: a packet's flow key -> the megaflow that
 * covers it (the narrowest safe wildcard mask) and its datapath actions.
 * Pure: reads only the snapshot and the port table, so a PMD runs it on an
 * upcall and again, on the same key, to revalidate after a change.
 */
#ifndef VXS_XLATE_H
#define VXS_XLATE_H

#include "dp_actions.h"
#include "dp_snapshot.h"
#include "flow_key.h"
#include "ofp_rule.h"

struct xlate_out {
	struct flow_key mask;
	struct dp_actions actions;
	uint32_t rule_uid;		/* 0: no OpenFlow rule involved */
	/* next hop to resolve (ARP or ND: IPv4 mapped), all zero = none */
	struct flow_in6_addr need_neigh;
	uint32_t nexthop[DP_MAX_TNLS];	/* the neighbours the outcome
					 * depends on (resolved or not), one
					 * per tunnel output, by
					 * neigh_addr_digest; 0 = none */
	bool too_long;			/* more actions than the datapath
					 * runs: dropped whole */
	/* Recirculation ids this outcome holds a reference on
	 * (recirc_id.h): [0] the one its key matches, [1] the one its
	 * recirc() action names; 0 none. Whoever keeps the outcome keeps
	 * them (the megaflow), else xlate_out_release gives them back. */
	uint8_t recirc_refs[2];
	/* The tables the translation looked up, bit table % 64: only a
	 * change to one of them can change it (megaflow.c's revalidation) */
	uint64_t tables;
};

void xlate(const struct dp_snapshot *s, const struct flow_key *key,
	   struct xlate_out *out);
/* Gives back the recirculation ids out holds. */
void xlate_out_release(struct xlate_out *out);

/* The actions one packet meets in the tables (xlate_pipeline.c): outputs
 * and rewrites in order, each with the in_port in force at it (resubmit
 * with a port changes it). More than XLATE_MAX_PIPELINE_ACTIONS, or past
 * the resubmit limits, sets limit_hit: the packet is dropped whole. */
#define XLATE_MAX_PIPELINE_ACTIONS 64
#define XLATE_MAX_PIPELINE_CT 8

struct xlate_pipeline {
	uint16_t n;
	bool limit_hit;
	bool unexecutable;		/* met what add-flow refuses */
	bool unfreezable;		/* a ct(table=) whose state a
					 * recirculation would not carry
					 * (xlate_pipeline.c): dropped */
	bool recirc;			/* ended at a ct(table=T) */
	uint8_t recirc_id;		/* its frozen state's id, with a
					 * reference (recirc_id.h); 0 none */
	uint64_t tables;		/* looked up: bit table % 64 */
	struct ofp_action act[XLATE_MAX_PIPELINE_ACTIONS];
	uint32_t in_port[XLATE_MAX_PIPELINE_ACTIONS];
	struct ofp_ct ct[XLATE_MAX_PIPELINE_CT];	/* sg()/ct()'s parameters:
						 * act[i].slot indexes them */
	uint8_t n_ct;
};

/* Looks key up from table 0 on (a recirculated key: from the table of
 * its frozen state, resume, with resume's registers; key then carries
 * the frozen in_port and tunnel fields), following resubmit/goto_table;
 * ORs the deciding fields into mask. Returns the first table's rule,
 * NULL on a miss. */
struct recirc_frozen;
const struct ofp_rule *xlate_pipeline(const struct dp_snapshot *s,
				      const struct flow_key *key,
				      const struct recirc_frozen *resume,
				      struct flow_key *mask,
				      struct xlate_pipeline *out);

/* "in_port(vxlan),tunnel(...),eth_type(0x0800),ipv4(dst=...)" and
 * "tnl_push(...),dpdk-phy" as ovs-appctl dpctl/dump-flows writes them. */
/* Refuses, at add-flow time, a rule whose translation could need more
 * datapath actions or value slots than struct dp_actions holds
 * (DP_MAX_ACTIONS, DP_MAX_MACS, DP_MAX_TNLS), with a message naming the
 * limit. is_tunnel says whether an output port is the VXLAN port
 * (output:in_port is counted as one). 0 if it fits. */
int xlate_check_rule(const struct ofp_rule *r,
		     bool (*is_tunnel)(uint32_t ofport, void *aux), void *aux,
		     char *err, size_t errlen);

/* Refuses, at add-flow time, what the datapath cannot run: a rule whose
 * ct() write ct_label more than DP_MAX_CT_LABELS times (its value slots).
 * ct_label matches run as predicate bits (ct_label_pred.h), whose limit
 * ct_label_preds_admit checks. 0 if runnable. */
int xlate_check_executable(const struct ofp_rule *r, char *err,
			   size_t errlen);

int xlate_format_megaflow_match(const struct flow_key *key,
				const struct flow_key *mask, char *buf,
				size_t len);
int xlate_format_actions(const struct dp_actions *a, char *buf, size_t len);

#endif
