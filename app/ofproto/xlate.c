/* SPDX-License-Identifier: BSD-3-Clause
 * Translation of a flow key into a megaflow (mask + datapath actions).
 *
 * Two bridges, as in the seed's OVS set-up:
 *  - the underlay (br-phy): fixed function. VXLAN to our VTEP is popped,
 *    ARP goes to the VTEP's ARP responder, anything else is not ours.
 *  - the overlay (br-int): OpenFlow rules in priority order.
 *
 * The mask is the narrowest one that is safe: it holds every field whose
 * value decided the outcome. For the matching rule that is its whole mask;
 * for each higher-ranked rule that did not match, one field in which the
 * packet differs from it is enough (any packet agreeing with this one on
 * that field misses that rule too). in_port is always in the mask, since
 * output to the input port is suppressed.
 */
#include <stdio.h>
#include <string.h>
#include <rte_ip.h>
#include "port.h"
#include "vxlan_tnl.h"
#include "xlate.h"

#define VTEP_TTL 64		/* Linux's default ip_default_ttl */

static void
mask_or_field(struct flow_key *mask, const struct flow_key *rule_mask,
	      enum mf_id f)
{
	uint8_t *m = (uint8_t *)mask + mf_fields[f].offset;
	const uint8_t *r = (const uint8_t *)rule_mask + mf_fields[f].offset;
	for (unsigned i = 0; i < mf_fields[f].len; i++)
		m[i] |= r[i];
}

static const struct ofp_rule *
classify(const struct dp_snapshot *s, const struct flow_key *key,
	 struct flow_key *mask)
{
	for (uint32_t i = 0; i < s->n_rules; i++) {
		const struct ofp_rule *r = &s->rules[i];
		if (flow_key_match(key, &r->match, &r->mask)) {
			for (int w = 0; w < FLOW_KEY_WORDS; w++)
				mask->w[w] |= r->mask.w[w];
			return r;
		}
		for (int f = 0; f < MFF_N_IDS; f++) {
			if (flow_field_differs(key, &r->match, &r->mask, f)) {
				mask_or_field(mask, &r->mask, f);
				break;
			}
		}
	}
	return NULL;
}

static void
emit(struct xlate_out *out, enum dp_action_type type, uint16_t port,
     uint8_t reason)
{
	struct dp_actions *a = &out->actions;
	if (a->n >= DP_MAX_ACTIONS) {
		/* Too long to run: drop rather than half-execute. */
		a->n = 1;
		a->act[0] = (struct dp_action){ .type = DP_ACT_DROP,
						 .reason = DROP_RULE_DROP };
		return;
	}
	a->act[a->n++] = (struct dp_action){ .type = type, .port = port,
					     .reason = reason };
}

static void
emit_drop(struct xlate_out *out, enum drop_reason why)
{
	emit(out, DP_ACT_DROP, 0, why);
}

/* A header rewrite with its own value slot: rewrites are per output. */
static void
emit_set_mac(struct xlate_out *out, enum dp_action_type type,
	     const struct rte_ether_addr *mac)
{
	struct dp_actions *a = &out->actions;

	if (a->n_macs >= DP_MAX_MACS) {
		a->n = DP_MAX_ACTIONS;	/* too long to run: emit() drops */
		emit_drop(out, DROP_RULE_DROP);
		return;
	}
	a->macs[a->n_macs] = *mac;
	emit(out, type, a->n_macs++, 0);
}

/* The Ethernet addresses a packet has at one point of a rule's actions,
 * [0] source and [1] destination: set[] says which ones an action
 * rewrote. */
struct eth_state {
	struct rte_ether_addr mac[2];
	bool set[2];
};

/* Encap runs after every other output (xlate_rule_actions), so later
 * rewrites must be undone for it: the addresses the packet had at its
 * tunnel output are written back (the packet's own, from the key, when
 * nothing had rewritten them then: then the key's field decided). */
static void
restore_eth(const struct flow_key *key, const struct eth_state *now,
	    const struct eth_state *then, struct xlate_out *out)
{
	static const enum mf_id field[2] = { MFF_DL_SRC, MFF_DL_DST };
	static const enum dp_action_type set[2] = { DP_ACT_SET_ETH_SRC,
						    DP_ACT_SET_ETH_DST };
	const struct rte_ether_addr *own[2] = { &key->dl_src, &key->dl_dst };

	for (int i = 0; i < 2; i++) {
		if (!now->set[i] || (then->set[i] &&
		    rte_is_same_ether_addr(&now->mac[i], &then->mac[i])))
			continue;
		if (!then->set[i])
			flow_mask_set_field(&out->mask, field[i]);
		emit_set_mac(out, set[i],
			     then->set[i] ? &then->mac[i] : own[i]);
	}
}

static void
xlate_underlay(const struct dp_snapshot *s, const struct flow_key *key,
	       struct xlate_out *out)
{
	bool to_us = rte_is_same_ether_addr(&key->dl_dst, &s->vtep_mac);

	/* Only frames to our VTEP MAC are ours (ARP also when broadcast),
	 * before any decap: OVS's br-phy matches the bridge MAC too. */
	flow_mask_set_field(&out->mask, MFF_DL_TYPE);
	flow_mask_set_field(&out->mask, MFF_DL_DST);
	if (key->dl_type == RTE_BE16(RTE_ETHER_TYPE_ARP) &&
	    (to_us || rte_is_broadcast_ether_addr(&key->dl_dst))) {
		emit(out, DP_ACT_ARP_RESPOND, s->underlay_idx, 0);
		return;
	}
	if (!to_us) {
		emit_drop(out, DROP_FOREIGN_MAC);
		return;
	}
	if (key->dl_type != RTE_BE16(RTE_ETHER_TYPE_IPV4) || !s->has_tunnel) {
		emit_drop(out, DROP_NOT_VTEP);
		return;
	}
	flow_mask_set_field(&out->mask, MFF_NW_DST);
	flow_mask_set_field(&out->mask, MFF_NW_PROTO);
	flow_mask_set_field(&out->mask, MFF_NW_FRAG);
	if (key->nw_dst != s->vtep_ip || key->nw_proto != IPPROTO_UDP) {
		emit_drop(out, DROP_NOT_VTEP);
		return;
	}
	if (key->nw_frag) {	/* no reassembly: see drop_reason.h */
		emit_drop(out, DROP_OUTER_FRAG);
		return;
	}
	flow_mask_set_field(&out->mask, MFF_TP_DST);
	if (key->tp_dst != rte_cpu_to_be_16(s->tnl_dst_port)) {
		emit_drop(out, DROP_NOT_VTEP);
		return;
	}
	emit(out, DP_ACT_TNL_POP, s->tnl_idx, 0);
}

struct tnl_state {
	uint32_t tun_id;
	rte_be32_t tun_src, tun_dst;
	bool id_set, src_set, dst_set;
};

static void
xlate_tunnel_output(const struct dp_snapshot *s, const struct flow_key *key,
		    const struct tnl_state *t, struct xlate_out *out)
{
	rte_be32_t dst, src, nexthop;
	uint32_t vni;

	/* Tunnel fields the rule did not set come from the packet's own
	 * tunnel metadata: then they decided the outcome. */
	if (s->tnl_remote_flow && !t->dst_set)
		flow_mask_set_field(&out->mask, MFF_TUN_DST);
	if (s->tnl_local_flow && !t->src_set)
		flow_mask_set_field(&out->mask, MFF_TUN_SRC);
	if (s->tnl_key_flow && !t->id_set)
		flow_mask_set_field(&out->mask, MFF_TUN_ID);

	dst = s->tnl_remote_flow ? t->tun_dst : s->tnl_remote_ip;
	src = s->tnl_local_flow ? (t->tun_src ? t->tun_src : s->vtep_ip)
				: s->tnl_local_ip;
	vni = s->tnl_key_flow ? t->tun_id : s->tnl_key;
	(void)key;

	const struct route_entry *rt = dst ? dp_snapshot_route(s, dst) : NULL;
	if (!rt || !s->has_underlay) {
		emit_drop(out, DROP_NO_ROUTE);
		return;
	}
	nexthop = rt->gateway ? rt->gateway : dst;
	out->nexthop = nexthop;
	const struct neigh_entry *n = dp_snapshot_neigh(s, nexthop);
	if (!n) {
		out->need_arp = nexthop;
		emit_drop(out, DROP_NO_NEIGH);
		return;
	}
	vxlan_tnl_template_build(&out->actions.tnl, &s->vtep_mac, &n->mac, src,
				 dst, vni, s->tnl_dst_port, VTEP_TTL, false);
	emit(out, DP_ACT_TNL_PUSH, 0, 0);
	emit(out, DP_ACT_OUTPUT, rt->port_idx, 0);
}

static void
xlate_rule_actions(const struct dp_snapshot *s, const struct flow_key *key,
		   const struct ofp_rule *r, struct xlate_out *out)
{
	struct tnl_state t = { .tun_id = key->tun_id, .tun_src = key->tun_src,
			       .tun_dst = key->tun_dst };
	const struct port *in = port_by_ofport(key->in_port);
	bool tunnel_out = false, looped = false;
	struct tnl_state tunnel_at_output = { 0 };
	struct eth_state eth = { 0 }, eth_at_tunnel = { 0 };

	for (int i = 0; i < r->n_actions; i++) {
		const struct ofp_action *a = &r->actions[i];
		switch (a->type) {
		case OFPACT_SET_TUNNEL:
			t.tun_id = a->u32, t.id_set = true;
			break;
		case OFPACT_SET_TUN_SRC:
			t.tun_src = a->ip, t.src_set = true;
			break;
		case OFPACT_SET_TUN_DST:
			t.tun_dst = a->ip, t.dst_set = true;
			break;
		case OFPACT_SET_ETH_SRC:
			eth.mac[0] = a->mac, eth.set[0] = true;
			emit_set_mac(out, DP_ACT_SET_ETH_SRC, &a->mac);
			break;
		case OFPACT_SET_ETH_DST:
			eth.mac[1] = a->mac, eth.set[1] = true;
			emit_set_mac(out, DP_ACT_SET_ETH_DST, &a->mac);
			break;
		case OFPACT_OUTPUT: {
			const struct port *p = a->port == OFPP_IN_PORT ?
				in : port_by_ofport(a->port);
			if (!p || p->is_underlay)
				break;
			if (p == in && a->port != OFPP_IN_PORT) {
				looped = true;	/* as OpenFlow: not to in_port */
				break;
			}
			if (p->kind == PORT_VXLAN) {
				/* Encap changes the packet: do it last, once
				 * every plain output has its copy. */
				if (!tunnel_out) {
					tunnel_at_output = t;
					eth_at_tunnel = eth;
				}
				tunnel_out = true;
				break;
			}
			emit(out, DP_ACT_OUTPUT, p->idx, 0);
			break;
		}
		}
	}
	if (tunnel_out) {
		restore_eth(key, &eth, &eth_at_tunnel, out);
		xlate_tunnel_output(s, key, &tunnel_at_output, out);
	}

	struct dp_actions *acts = &out->actions;
	if (!acts->n || (acts->act[acts->n - 1].type != DP_ACT_OUTPUT &&
			 acts->act[acts->n - 1].type != DP_ACT_DROP))
		emit_drop(out, looped ? DROP_LOOP : DROP_RULE_DROP);
}

void
xlate(const struct dp_snapshot *s, const struct flow_key *key,
      struct xlate_out *out)
{
	memset(out, 0, sizeof *out);
	flow_mask_set_field(&out->mask, MFF_IN_PORT);

	if (s->has_underlay && key->in_port == s->underlay_ofport) {
		xlate_underlay(s, key, out);
		return;
	}
	if (s->has_tunnel && key->in_port == s->tnl_ofport) {
		flow_mask_set_field(&out->mask, MFF_TUN_ID);
		if (!dp_snapshot_vni_known(s, key->tun_id)) {
			emit_drop(out, DROP_UNKNOWN_VNI);
			return;
		}
	}
	const struct ofp_rule *r = classify(s, key, &out->mask);
	if (!r) {
		emit_drop(out, DROP_NO_RULE);
		return;
	}
	out->rule_uid = r->uid;
	xlate_rule_actions(s, key, r, out);
}
