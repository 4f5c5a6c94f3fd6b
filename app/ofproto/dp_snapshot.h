/* SPDX-License-Identifier: BSD-3-Clause
 * What the slow path needs to translate a packet, frozen: the OpenFlow
 * rules and the VTEP's addresses (routes and neighbours: dp_snapshot_route
 * and dp_snapshot_neigh read shared, lock-free tables). The control thread
 * builds a new snapshot for every change and publishes it with one atomic
 * pointer store; PMDs read it without locks and report quiescent states
 * (rte_rcu_qsbr) once per loop, after which the old one is freed. The
 * generation number tells a PMD its megaflows need revalidating.
 * The slow path's: ofproto.c builds and publishes it, neigh.c, route.c
 * and ofproto.c answer its lookups; the datapath, above, reads it.
 */
#ifndef VXS_DP_SNAPSHOT_H
#define VXS_DP_SNAPSHOT_H

#include <stdbool.h>
#include <stdint.h>
#include <rte_ether.h>
#include "ofp_rule.h"

/* ip and mac never change once an entry is visible (a new MAC is a new
 * entry); is_static and updated_ms are the control thread's alone. */
struct neigh_entry {
	rte_be32_t ip;
	struct rte_ether_addr mac;
	bool is_static;			/* tnl/arp/set or topology */
	uint64_t updated_ms;		/* learned: last confirmed */
};

struct route_entry {
	rte_be32_t prefix;
	uint8_t plen;
	rte_be32_t gateway;		/* 0: directly connected */
	uint16_t port_idx;		/* egress (underlay) port */
	bool connected;			/* from the VTEP's own prefix */
};

/* One ct_label=V/M that rules match, as a predicate on a session's label:
 * (label & mask) == value, value already masked. [0] the high, [1] the
 * low 64 bits, as struct ofp_meta's ct_label. */
struct ct_label_pred {
	uint64_t value[2], mask[2];
};

struct dp_snapshot {
	uint64_t gen;

	uint32_t n_rules;
	struct ofp_rule *rules;		/* by table, then priority
					 * descending, then by uid */

	/* underlay / VTEP */
	bool has_underlay;
	uint16_t underlay_idx;
	uint32_t underlay_ofport;
	rte_be32_t vtep_ip;
	uint8_t vtep_plen;
	struct rte_ether_addr vtep_mac;

	/* the vxlan port */
	bool has_tunnel;
	uint16_t tnl_idx;
	uint32_t tnl_ofport;
	uint16_t tnl_dst_port;
	bool tnl_remote_flow, tnl_local_flow, tnl_key_flow;
	rte_be32_t tnl_remote_ip, tnl_local_ip;
	uint32_t tnl_key;
	uint16_t n_vnis;		/* 0: accept every VNI */
	uint32_t *vnis;

	/* What changed since the previous generation. Routes and neighbours
	 * are not copied here: they are shared tables PMDs read without
	 * locks (route.h, neigh.h). A PMD that saw the previous generation
	 * and finds reval_all false revalidates only the megaflows whose next
	 * hop is in neigh_changed; otherwise it revalidates all of them. */
	bool reval_all;
	uint32_t n_neigh_changed;
	rte_be32_t *neigh_changed;	/* sorted ascending (as uint32_t) */

	/* The distinct ct_label=V/M matches of the rules (ct_label_pred.c):
	 * slot i, if bit i of label_preds_used is set, is bit i of a
	 * recirculated key's ct_label_bits (flow_key.h). A slot keeps its
	 * predicate while rules use it. label_preds_gen: the generation in
	 * which a slot last lost or changed its predicate; a PMD that
	 * revalidates from an older one retires every megaflow whose mask
	 * has ct_label_bits (their bits may mean something else now). */
	uint16_t label_preds_used;
	uint64_t label_preds_gen;
	struct ct_label_pred label_preds[FLOW_CT_LABEL_PREDS];
};

/* A session's ct_label (the tracker's order: [0] low, [1] high 64 bits;
 * all zero for a packet without a committed session) as the key's
 * ct_label_bits under s's predicates. */
static inline uint16_t
dp_snapshot_label_bits(const struct dp_snapshot *s, const uint64_t label[2])
{
	uint16_t bits = 0;

	for (uint32_t used = s->label_preds_used; used; used &= used - 1) {
		unsigned i = (unsigned)__builtin_ctz(used);
		const struct ct_label_pred *p = &s->label_preds[i];
		if ((label[1] & p->mask[0]) == p->value[0] &&
		    (label[0] & p->mask[1]) == p->value[1])
			bits |= (uint16_t)(1u << i);
	}
	return bits;
}

extern struct dp_snapshot *dp_snapshot_current;

static inline const struct dp_snapshot *
dp_snapshot_get(void)
{
	return __atomic_load_n(&dp_snapshot_current, __ATOMIC_ACQUIRE);
}

const struct neigh_entry *dp_snapshot_neigh(const struct dp_snapshot *s,
					    rte_be32_t ip);
const struct route_entry *dp_snapshot_route(const struct dp_snapshot *s,
					    rte_be32_t dst);
/* Whether ip is one of the neighbours that changed in this generation. */
bool dp_snapshot_neigh_changed(const struct dp_snapshot *s, rte_be32_t ip);
bool dp_snapshot_vni_known(const struct dp_snapshot *s, uint32_t vni);

#endif
