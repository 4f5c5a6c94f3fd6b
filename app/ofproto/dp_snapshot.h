/* SPDX-License-Identifier: BSD-3-Clause
 * What the slow path needs to translate a packet, frozen: the OpenFlow
 * rules and the VTEP's addresses (routes and neighbours: dp_snapshot_route
 * and dp_snapshot_neigh read shared, lock-free tables). The control thread
 * builds a new snapshot for every change and publishes it with one atomic
 * pointer store; PMDs read it without locks and report quiescent states
 * (rte_rcu_qsbr) once per loop, after which the old one is freed. The
 * generation number tells a PMD its megaflows need revalidating.
 *
 * The snapshot pointer is the rules' version: rules are immutable objects
 * the table and the snapshots share (a change makes a new object), each
 * table an array of pointers to them (struct dp_rule_table) that
 * snapshots share while the table is unchanged. A batch (an add-flows
 * file, one flow_mod) is built into one snapshot, so a PMD sees all of it
 * or none. A rule object a publish drops is freed with the snapshot that
 * last held it, after that snapshot's grace period.
 * The slow path's: ofproto.c builds and publishes it, neigh.c, route.c
 * and ofproto.c answer its lookups; the datapath, above, reads it.
 */
#ifndef VXS_DP_SNAPSHOT_H
#define VXS_DP_SNAPSHOT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <rte_ether.h>
#include <rte_hash_crc.h>
#include "ofp_rule.h"

/* Neighbour and route addresses of both families in one 16-byte form, as
 * OVS's tnl-neigh-cache: an IPv4 address a.b.c.d is ::ffff:a.b.c.d. */
static inline struct flow_in6_addr
neigh_addr_from4(rte_be32_t ip)
{
	struct flow_in6_addr a = { { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
				     0xff, 0xff } };

	memcpy(&a.a[12], &ip, 4);
	return a;
}

static inline bool
neigh_addr_is4(const struct flow_in6_addr *a)
{
	static const uint8_t mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
					    0xff, 0xff };
	return memcmp(a->a, mapped, sizeof mapped) == 0;
}

/* The IPv4 address of a mapped one. */
static inline rte_be32_t
neigh_addr_to4(const struct flow_in6_addr *a)
{
	rte_be32_t ip;

	memcpy(&ip, &a->a[12], 4);
	return ip;
}

static inline bool
neigh_addr_is_zero(const struct flow_in6_addr *a)
{
	static const struct flow_in6_addr zero;
	return memcmp(a, &zero, sizeof zero) == 0;
}

/* What megaflows' nexthop[] and the snapshot's neigh_changed[] hold: a
 * 32-bit digest of a neighbour's address, never 0 (0: none). An IPv4
 * address is its own digest (an IPv4 next hop is never 0.0.0.0), so
 * nothing changed for IPv4; an IPv6 one is hashed, and a collision only
 * revalidates a megaflow needlessly. */
static inline uint32_t
neigh_addr_digest(const struct flow_in6_addr *a)
{
	if (neigh_addr_is4(a))
		return neigh_addr_to4(a);
	uint32_t d = rte_hash_crc(a->a, sizeof a->a, 0x6e6236);
	return d ? d : 1;
}

/* addr, mac never change once an entry is visible (a new MAC is a new
 * entry); is_static and updated_ms are the control thread's alone. */
struct neigh_entry {
	struct flow_in6_addr addr;	/* IPv4 mapped */
	struct rte_ether_addr mac;
	bool is_static;			/* tnl/arp/set or topology */
	uint64_t updated_ms;		/* learned: last confirmed */
};

/* One table for both families: an IPv4 route's prefix and gateway are
 * mapped, its plen is IPv4's (0..32). */
struct route_entry {
	struct flow_in6_addr prefix;
	struct flow_in6_addr gateway;	/* all zero: directly connected */
	uint8_t plen;			/* the family's: 0..32 or 0..128 */
	bool is_ipv4;
	uint16_t port_idx;		/* egress (underlay) port */
	bool connected;			/* from the VTEP's own prefix */
};

static inline bool
route_has_gateway(const struct route_entry *r)
{
	return !neigh_addr_is_zero(&r->gateway);
}

/* One ct_label=V/M that rules match, as a predicate on a session's label:
 * (label & mask) == value, value already masked. [0] the high, [1] the
 * low 64 bits, as struct ofp_meta's ct_label. */
struct ct_label_pred {
	uint64_t value[2], mask[2];
};

/* One table's rules, by priority descending then age (uid): pointers to
 * immutable rule objects. Shared by the snapshots published while the
 * table did not change; refs is theirs, the control thread's alone
 * (dp_rule_table.h). */
struct dp_rule_table {
	uint32_t n_rules;
	uint32_t refs;			/* snapshots holding it */
	uint32_t n_label;		/* rules with a ct_label match */
	const struct ofp_rule *rules[];
};

struct dp_snapshot {
	uint64_t gen;

	uint32_t n_rules;		/* in all tables */
	struct dp_rule_table *tables[OFP_N_TABLES];	/* NULL: no rule */
	/* The rule objects the publish after this snapshot dropped: freed
	 * with it, once no PMD can read it (ofproto.c). */
	struct ofp_rule **dropped;
	uint32_t n_dropped;

	/* underlay / VTEP */
	bool has_underlay;
	uint16_t underlay_idx;
	uint32_t underlay_ofport;
	rte_be32_t vtep_ip;
	uint8_t vtep_plen;
	struct rte_ether_addr vtep_mac;
	/* the VTEP's IPv6 address (ND responder, IPv6 tunnels), when
	 * has_vtep_ip6; its solicited-node multicast MAC 33:33:ff:xx:xx:xx */
	bool has_vtep_ip6;
	struct flow_in6_addr vtep_ip6;
	uint8_t vtep_plen6;
	struct rte_ether_addr vtep_ip6_snmac;
	/* the underlay port sums outer UDP checksums (port.h tx_udp_csum) */
	bool underlay_tx_udp_csum;

	/* the vxlan port */
	bool has_tunnel;
	uint16_t tnl_idx;
	uint32_t tnl_ofport;
	uint16_t tnl_dst_port;
	bool tnl_remote_flow, tnl_local_flow, tnl_key_flow;
	rte_be32_t tnl_remote_ip, tnl_local_ip;
	/* an IPv6 remote (tnl_remote_v6) and the address it sends from */
	bool tnl_remote_v6;
	struct flow_in6_addr tnl_remote_ip6, tnl_local_ip6;
	/* DP_TNL_POP_ZERO_CSUM6 unless udp6zerocsumrx: false */
	bool tnl_udp6_zero_csum_ok;
	uint32_t tnl_key;
	uint16_t n_vnis;		/* 0: accept every VNI */
	uint32_t *vnis;
	/* no tunnel port (del-port took it): the number it had, while no
	 * port has it, so that the megaflows of its decapsulated packets
	 * translate to a drop and go (their NIC rules with them) */
	uint32_t gone_tnl_ofport;

	/* What changed since the previous generation. Routes and neighbours
	 * are not copied here: they are shared tables PMDs read without
	 * locks (route.h, neigh.h). A PMD that saw the previous generation
	 * and finds reval_all false revalidates only the megaflows whose next
	 * hop is in neigh_changed or that looked up a table of
	 * tables_changed; otherwise it revalidates all of them. reval_all is
	 * set by every change that is not one of rules (ports, routes, the
	 * tunnel port, the VNIs, the ct_label predicates). */
	bool reval_all;
	uint64_t tables_changed;	/* bit table % 64 per table changed */
	uint32_t n_neigh_changed;
	uint32_t *neigh_changed;	/* neigh_addr_digest()s, sorted
					 * ascending */

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

/* The neighbour at addr (either family, IPv4 mapped); the IPv4 one at ip. */
const struct neigh_entry *dp_snapshot_neigh6(const struct dp_snapshot *s,
					     const struct flow_in6_addr *addr);
const struct neigh_entry *dp_snapshot_neigh(const struct dp_snapshot *s,
					    rte_be32_t ip);
/* The longest prefix route to dst: an IPv4 dst (or a mapped one) probes
 * the IPv4 prefix lengths only, an IPv6 one the IPv6 lengths only. */
const struct route_entry *dp_snapshot_route(const struct dp_snapshot *s,
					    rte_be32_t dst);
const struct route_entry *dp_snapshot_route6(const struct dp_snapshot *s,
					     const struct flow_in6_addr *dst);
/* Whether a neighbour of this neigh_addr_digest() is one that changed in
 * this generation (for IPv4 the digest is the address). */
bool dp_snapshot_neigh_changed(const struct dp_snapshot *s, uint32_t digest);
bool dp_snapshot_vni_known(const struct dp_snapshot *s, uint32_t vni);

#endif
