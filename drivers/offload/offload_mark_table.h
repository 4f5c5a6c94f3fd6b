/* SPDX-License-Identifier: BSD-3-Clause
 * The offload thread's table of NIC rules by pattern (OVS's
 * megaflow_to_mark, with a reference count): one rule, one mark, per rule
 * pattern, however many PMDs hold a megaflow of that pattern.
 *
 * Each PMD has its own classifier, so a flow whose packets reach two PMDs
 * (two rx queues of the NIC) makes two megaflows of the same pattern; the
 * NIC can hold only one rule for it (a second create fails with EEXIST).
 * The pattern is what the NIC compares: the rule's item specs and masks
 * as ice_fdir_rule_build() made them (offload_pattern_of()), not the
 * megaflow keys, which may differ in fields the rule does not match.
 *
 *   pattern --rte_hash--> mark --entries[mark]--> {state, rule handle,
 *                                                  holders (pmd, megaflow)}
 *
 * A mark is allocated when its pattern is first asked for (the entry is
 * PENDING until the rule is created), so a second ADD of the same pattern
 * finds it pending or INSTALLED and becomes one more holder. The rule goes
 * and its mark is recycled when the last holder goes. Bounded by the marks:
 * max_marks patterns at most. Used by the offload thread only: no locks.
 */
#ifndef VXS_OFFLOAD_MARK_TABLE_H
#define VXS_OFFLOAD_MARK_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <rte_flow.h>
#include "offload_rule.h"

/* The part of a built rule the NIC compares: flow type, item specs and
 * masks (the builder zeroes the whole rule first, so padding is zero and
 * the value can be hashed and compared as bytes). */
struct offload_pattern {
	uint32_t type;		/* enum offload_flow_type */
	uint8_t items[offsetof(struct offload_rule, mark) -
		      offsetof(struct offload_rule, eth_spec)];
};

/* ice's duplicate-rule key (ice_fdir_extract_fltr_key(): struct
 * ice_fdir_fltr_pattern): the flow type and the innermost headers' fields
 * with their masks, and the tunnel type (the flow type says it). NOT the
 * outer IPv4 nor the VNI: two VXLAN rules to the same inner destination
 * on two VNIs (two tenants' overlapping address spaces) or two VTEPs have
 * the same key, and ice refuses the second with EEXIST "Rule already
 * exists!" (drivers/offload/README.md, "Collisions"). For our two rule
 * shapes: VXLAN: the inner eth and ipv4 items; plain: eth, ipv4, udp. */
struct offload_ice_key {
	uint32_t type;		/* enum offload_flow_type */
	struct rte_flow_item_eth eth_spec, eth_mask;
	struct rte_flow_item_ipv4 ipv4_spec, ipv4_mask;
	struct rte_flow_item_udp udp_spec, udp_mask;
};

enum omt_state {
	OMT_FREE,		/* mark on the free list */
	OMT_PENDING,		/* mark taken, rule not created yet */
	OMT_INSTALLED,		/* rule on the NIC */
	OMT_RETIRED,		/* destroy failed: the NIC may still mark, the
				 * mark stays out of circulation */
};

struct omt_holder {
	uint64_t megaflow_id;
	uint64_t n_packets;	/* its last count: ranks a pending rule */
	uint16_t pmd;
};

struct omt_entry {
	void *handle;		/* struct rte_flow * or fdir_model_rule * */
	struct omt_holder *holders;
	uint16_t n_holders, cap_holders;
	uint8_t state;		/* enum omt_state */
	int32_t key_pos;	/* its pattern's position in the hash */
	int32_t ice_key_pos;	/* its ice key's, in the ice key index */
};

struct offload_mark_table;

/* NULL on error (rte_errno). Marks 1..max_marks. */
struct offload_mark_table *omt_create(uint32_t max_marks);
void omt_free(struct offload_mark_table *t);

void offload_pattern_of(const struct offload_rule *r,
			struct offload_pattern *out);

/* p's ice duplicate key (zeroed padding: hashed and compared as bytes). */
void offload_ice_key_of(const struct offload_pattern *p,
			struct offload_ice_key *out);
/* The mark of a pending or installed rule whose ice key is p's, or 0.
 * Another pattern with the same ice key would be refused by the NIC as a
 * duplicate (EEXIST), so it is not asked for: a collision. */
uint32_t omt_ice_key_holder(const struct offload_mark_table *t,
			    const struct offload_pattern *p);

/* The mark of a pending or installed rule with that pattern, or 0. */
uint32_t omt_lookup(const struct offload_mark_table *t,
		    const struct offload_pattern *p);
/* A new PENDING entry for p (not in the table): its mark, or 0 when
 * every mark is taken, p's ice key is held (callers check
 * omt_ice_key_holder() first, to count that as a collision) or a hash
 * refused. Indexes both the pattern and its ice key; both leave the
 * indexes with the entry (omt_drop, omt_retire). */
uint32_t omt_claim(struct offload_mark_table *t,
		   const struct offload_pattern *p);
/* The entry of mark (1..max_marks), whatever its state; NULL if out of
 * range. */
struct omt_entry *omt_entry(struct offload_mark_table *t, uint32_t mark);

/* Adds (pmd, megaflow_id) to mark's holders; if already there, updates
 * its n_packets. 1: added, 0: was there, -ENOMEM. */
int omt_hold(struct offload_mark_table *t, uint32_t mark, uint16_t pmd,
	     uint64_t megaflow_id, uint64_t n_packets);
/* Removes (pmd, megaflow_id) from mark's holders; false if not one. */
bool omt_release(struct offload_mark_table *t, uint32_t mark, uint16_t pmd,
		 uint64_t megaflow_id);
/* The holder record of (pmd, megaflow_id) on mark, or NULL. */
struct omt_holder *omt_holder_of(struct offload_mark_table *t, uint32_t mark,
				 uint16_t pmd, uint64_t megaflow_id);
/* The pending or installed mark that (pmd, megaflow_id) holds, or 0: a
 * scan, for DELs sent before the ADD's answer arrived. */
uint32_t omt_find_holder(struct offload_mark_table *t, uint16_t pmd,
			 uint64_t megaflow_id);
/* Sum of the holders' packet counts: how busy a pending rule is. */
uint64_t omt_packets(const struct offload_mark_table *t, uint32_t mark);

/* PENDING -> INSTALLED with the rule's handle. */
void omt_installed(struct offload_mark_table *t, uint32_t mark, void *handle);
/* The entry leaves the table. never_on_nic: its rule was never created,
 * so the mark goes back to the front of the free list (it was never seen
 * by the NIC); else the rule was destroyed and the mark goes to the back,
 * the last to be reused (packets the NIC marked with it that still sit in
 * an rx ring are long gone by then). */
void omt_drop(struct offload_mark_table *t, uint32_t mark, bool never_on_nic);
/* Destroy failed: the pattern leaves the hash (a new ADD may try the NIC
 * again), the mark and handle stay, out of circulation. */
void omt_retire(struct offload_mark_table *t, uint32_t mark);

uint32_t omt_marks_in_use(const struct offload_mark_table *t);
/* Holders of every pending and installed rule together. */
uint64_t omt_holders(const struct offload_mark_table *t);

#endif
