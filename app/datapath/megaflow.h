/* SPDX-License-Identifier: BSD-3-Clause
 * A megaflow: a wildcarded flow (masked key + mask) with the datapath
 * actions the slow path computed for it, and its counters. Owned by one PMD:
 * only that PMD inserts, hits, revalidates and frees it, so none of these
 * fields needs atomics; the control plane sees them through the PMD's
 * request mailbox (pmd.h).
 */
#ifndef VXS_MEGAFLOW_H
#define VXS_MEGAFLOW_H

#include <stdbool.h>
#include <stdint.h>
#include "flow_key.h"
#include "dp_actions.h"

struct dpcls_subtable;

struct megaflow {
	struct flow_key key;		/* already masked */
	/* no mask of its own: dpcls files a megaflow in the subtable of its
	 * mask, so while it is in a classifier its mask is its subtable's
	 * (megaflow_mask(), dpcls.h) */
	struct dp_actions actions;
	/* The key of the packet it was translated from: revalidation
	 * translates it again and keeps the flow only if mask and actions
	 * come out the same. */
	struct flow_key upcall_key;

	uint64_t n_packets;
	uint64_t n_bytes;
	uint64_t used_tsc;		/* last hit, 0 = never */
	uint64_t created_tsc;

	uint32_t hash;			/* subtable hash of key (dpcls-owned) */
	uint32_t rule_uid;		/* OpenFlow rule it was made from, 0 none */
	uint64_t id;			/* unique per PMD, shown as ufid */
	bool dead;			/* removed; EMC entries must not use it */
	uint8_t offload;		/* enum mf_offload (dp_offload.h) */
	uint32_t mark;			/* NIC mark while offloaded, else 0 */
	uint8_t offload_outer;		/* its tnl_pop's megaflow in the PMD's
					 * offload outers, + 1; 0: none */
	uint32_t offload_rate;		/* pps x 16, EWMA over the sweeps
					 * (dp_offload.c) */
	uint64_t offload_pkts;		/* n_packets at the last sweep */
	uint8_t batch_group;		/* its group in the burst of ... */
	uint32_t batch_epoch;		/* ... this epoch (dp_pipeline.c) */
	bool neigh_miss;		/* drops for want of a next hop's MAC:
					 * short-lived, so that traffic still
					 * coming upcalls and re-sends ARP */
	rte_be32_t nexthop[DP_MAX_TNLS];	/* xlate_out.nexthop: a change
						 * to one of these neighbours
						 * revalidates it */
	uint8_t recirc_refs[2];		/* xlate_out.recirc_refs: held until
					 * it is freed (recirc_id.h) */

	struct dpcls_subtable *subtable;	/* dpcls-owned */
	struct megaflow *next;			/* dpcls-owned hash chain */
	uint64_t tables;		/* xlate_out.tables: a change to one of
					 * these OpenFlow tables revalidates it */
};

/* 1024 bytes, 16 cache lines: key 0..191 (three lines: flow_key.h),
 * actions 192..703 (tnls[4] of 76-byte templates for either underlay
 * family), upcall key 704..895, counters, next hops, links and the
 * tables it looked up 896..1023 (the last 8 bytes were padding).
 * The mask it no longer copies saved a key's worth, the IPv6-sized
 * templates took 88 bytes of it (doc/design-ipv6-underlay.md). */
_Static_assert(sizeof(struct megaflow) == 1024, "megaflow size");

#endif
