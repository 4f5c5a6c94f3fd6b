/* SPDX-License-Identifier: BSD-3-Clause
 * Translation of a flow key into a megaflow (mask + datapath actions).
 *
 * Two bridges, as in the seed's OVS set-up:
 *  - the underlay (br-phy): fixed function. VXLAN to our VTEP is popped,
 *    ARP goes to the VTEP's ARP responder, anything else is not ours.
 *  - the overlay (br-int): OpenFlow rules in priority order.
 *
 * The overlay's tables are walked by xlate_pipeline.c (table 0 first,
 * resubmit and goto_table followed in the same translation); what it
 * collects is translated here as one action list. A ct(table=T) ends
 * it with ct + recirc (ct_recirc.c); the recirculated packet's own
 * translation starts in table T.
 *
 * The mask is the narrowest one that is safe: it holds every field whose
 * value decided the outcome. For the matching rule that is its whole mask;
 * for each higher-ranked rule that did not match, one field in which the
 * packet differs from it is enough (any packet agreeing with this one on
 * that field misses that rule too). in_port is always in the mask, since
 * output to the input port is suppressed, and so is dl_type (xlate()).
 */
#include <stdio.h>
#include <string.h>
#include <rte_ip.h>
#include "port.h"
#include "recirc_id.h"
#include "vxlan_tnl.h"
#include "xlate.h"

#define VTEP_TTL 64		/* Linux's default ip_default_ttl */

static void
emit_act(struct xlate_out *out, struct dp_action act)
{
	struct dp_actions *a = &out->actions;

	if (out->too_long)
		return;
	if (a->n >= DP_MAX_ACTIONS) {
		/* Too long to run: drop rather than half-execute. Rules that
		 * could get here are refused at add-flow time
		 * (xlate_check_rule); this is the last line. */
		out->too_long = true;
		a->n = 1;
		a->act[0] = (struct dp_action){ .type = DP_ACT_DROP,
						 .reason = DROP_RULE_DROP };
		return;
	}
	a->act[a->n++] = act;
}

static void
emit(struct xlate_out *out, enum dp_action_type type, uint16_t port,
     uint8_t reason)
{
	emit_act(out, (struct dp_action){ .type = type, .port = port,
					  .reason = reason });
}

static void
emit_drop(struct xlate_out *out, enum drop_reason why)
{
	emit(out, DP_ACT_DROP, 0, why);
}

/* Out of value slots: the rule is dropped whole, as one too long. */
static void
emit_overflow(struct xlate_out *out)
{
	out->actions.n = DP_MAX_ACTIONS;
	emit_drop(out, DROP_RULE_DROP);
}

/* A header rewrite with its own value slot: rewrites are per output. */
static void
emit_set_mac(struct xlate_out *out, enum dp_action_type type,
	     const struct rte_ether_addr *mac)
{
	struct dp_actions *a = &out->actions;

	if (a->n_macs >= DP_MAX_MACS) {
		emit_overflow(out);
		return;
	}
	a->macs[a->n_macs] = *mac;
	emit(out, type, a->n_macs++, 0);
}

/* A rule's nat()s always fit; a pipeline walk (resubmits) collecting
 * more is dropped whole, as one with too many rewrites. */
_Static_assert(DP_MAX_NATS >= OFP_MAX_CT, "a rule's nat()s fit");

/* The slot bits of an sg() or ct() with c's nat(...), in its own value
 * slot (0 without nat, or out of slots: then the rule is dropped whole). */
static uint8_t
nat_slot(struct xlate_out *out, const struct ofp_ct *c)
{
	struct dp_actions *a = &out->actions;
	const struct ofp_nat *n = &c->nat;

	if (n->kind == OFP_NAT_NONE)
		return 0;
	if (a->n_nats >= DP_MAX_NATS) {
		emit_overflow(out);
		return 0;
	}
	struct dp_nat *d = &a->nats[a->n_nats];
	memset(d, 0, sizeof *d);
	/* bare `nat` (or one with no address): the session's own NAT only */
	if (n->kind != OFP_NAT_PLAIN && (n->ip_min || n->v6)) {
		d->snat = n->kind == OFP_NAT_SRC;
		d->v6 = n->v6;
		if (n->v6) {
			memcpy(d->ip6[0], n->ip6_min, 16);
			memcpy(d->ip6[1], n->ip6_max, 16);
		} else {
			d->ip_min = rte_be_to_cpu_32(n->ip_min);
			d->ip_max = n->ip_max ? rte_be_to_cpu_32(n->ip_max)
					      : d->ip_min;
		}
		d->port_min = n->port_min;
		d->port_max = n->port_max ? n->port_max : n->port_min;
	}
	return (uint8_t)(DP_CT_NAT | a->n_nats++ << DP_NAT_SLOT_SHIFT);
}

/* Neighbour Discovery for our VTEP's IPv6 address: NS and NA to our MAC,
 * our solicited-node MAC or all-nodes go to the responder (it judges
 * them: nd_responder.c), which the ARP action hands them to. The untagged
 * ones never get here (arp_steer_batch takes them first). */
static bool
xlate_underlay_nd(const struct dp_snapshot *s, const struct flow_key *key,
		  bool to_us, struct xlate_out *out)
{
	static const struct rte_ether_addr all_nodes = {
		{ 0x33, 0x33, 0, 0, 0, 1 } };

	if (!to_us && !rte_is_same_ether_addr(&key->dl_dst,
					      &s->vtep_ip6_snmac) &&
	    !rte_is_same_ether_addr(&key->dl_dst, &all_nodes))
		return false;
	/* the ICMPv6 type only once the key is ICMPv6: VXLAN to our MAC
	 * comes through here too, and a mask on its UDP source port (the
	 * sender's inner-flow hash) would make a megaflow, and an upcall,
	 * per inner flow */
	flow_mask_set_field(&out->mask, MFF_NW_PROTO);
	if (key->nw_proto != IPPROTO_ICMPV6)
		return false;
	flow_mask_set_field(&out->mask, MFF_TP_SRC);
	if (key->tp_src != RTE_BE16(135) && key->tp_src != RTE_BE16(136))
		return false;
	emit(out, DP_ACT_ARP_RESPOND, s->underlay_idx, 0);
	return true;
}

/* The underlay match's end for either family, once the caller has masked
 * the destination address (to_vtep: it is our VTEP's), nw_proto and
 * nw_frag: UDP to our tunnel port, not a fragment (no reassembly: see
 * drop_reason.h), pops with flags (DP_TNL_POP_*). */
static void
underlay_pop(const struct dp_snapshot *s, const struct flow_key *key,
	     bool to_vtep, uint8_t flags, struct xlate_out *out)
{
	if (!to_vtep || key->nw_proto != IPPROTO_UDP) {
		emit_drop(out, DROP_NOT_VTEP);
		return;
	}
	if (key->nw_frag) {
		emit_drop(out, DROP_OUTER_FRAG);
		return;
	}
	flow_mask_set_field(&out->mask, MFF_TP_DST);
	if (key->tp_dst != rte_cpu_to_be_16(s->tnl_dst_port)) {
		emit_drop(out, DROP_NOT_VTEP);
		return;
	}
	emit_act(out, (struct dp_action){ .type = DP_ACT_TNL_POP,
					  .port = s->tnl_idx, .slot = flags });
}

/* VXLAN to our VTEP's IPv6 address: the same match as IPv4's below, on
 * the IPv6 fields (OVS's tnl-ports entry for an IPv6 address: ipv6_dst,
 * UDP, the port), and a pop that knows the family. An IPv6 fragment is
 * outer_frag as an IPv4 one. */
static void
xlate_underlay6(const struct dp_snapshot *s, const struct flow_key *key,
		struct xlate_out *out)
{
	flow_mask_set_field(&out->mask, MFF_IPV6_DST);
	flow_mask_set_field(&out->mask, MFF_NW_PROTO);
	flow_mask_set_field(&out->mask, MFF_NW_FRAG);
	underlay_pop(s, key, !memcmp(&key->ipv6_dst, &s->vtep_ip6,
				     sizeof key->ipv6_dst),
		     DP_TNL_POP_IPV6 | (s->tnl_udp6_zero_csum_ok ?
					DP_TNL_POP_ZERO_CSUM6 : 0), out);
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
	if (s->has_vtep_ip6 && key->dl_type == RTE_BE16(RTE_ETHER_TYPE_IPV6) &&
	    xlate_underlay_nd(s, key, to_us, out))
		return;
	if (!to_us) {
		emit_drop(out, DROP_FOREIGN_MAC);
		return;
	}
	if (s->has_vtep_ip6 && s->has_tunnel &&
	    key->dl_type == RTE_BE16(RTE_ETHER_TYPE_IPV6)) {
		xlate_underlay6(s, key, out);
		return;
	}
	if (key->dl_type != RTE_BE16(RTE_ETHER_TYPE_IPV4) || !s->has_tunnel) {
		emit_drop(out, DROP_NOT_VTEP);
		return;
	}
	flow_mask_set_field(&out->mask, MFF_NW_DST);
	flow_mask_set_field(&out->mask, MFF_NW_PROTO);
	flow_mask_set_field(&out->mask, MFF_NW_FRAG);
	underlay_pop(s, key, key->nw_dst == s->vtep_ip, 0, out);
}

struct tnl_state {
	uint32_t tun_id;
	rte_be32_t tun_src, tun_dst;
	struct flow_in6_addr tun_ipv6_src, tun_ipv6_dst;
	bool id_set, src_set, dst_set, src6_set, dst6_set;
};

/* A tunnel output that cannot send: the last output drops the packets,
 * an earlier one only the copy it would have sent. */
static void
tunnel_output_drop(struct xlate_out *out, bool last, enum drop_reason why)
{
	emit(out, last ? DP_ACT_DROP : DP_ACT_DROP_COPY, 0, why);
}

static void
note_nexthop(struct xlate_out *out, uint32_t nexthop)
{
	for (int i = 0; i < DP_MAX_TNLS; i++) {
		if (out->nexthop[i] == nexthop)
			return;
		if (!out->nexthop[i]) {
			out->nexthop[i] = nexthop;
			return;
		}
	}
}

/* Where a tunnel output sends: the remote and local addresses in force
 * (either family, IPv4 mapped), and whether they are IPv6. remote_ip=flow
 * takes tun_dst if set, else tun_ipv6_dst, as OVS's flow_tnl_dst; the
 * fields the rule did not set came from the packet's tunnel metadata and
 * so decided the outcome: they go into the mask. Returns false (no
 * remote: no route) when the flow names none. */
static bool
tunnel_ends(const struct dp_snapshot *s, const struct tnl_state *t,
	    struct xlate_out *out, struct flow_in6_addr *dst,
	    struct flow_in6_addr *src, bool *v6)
{
	if (s->tnl_remote_flow) {
		if (!t->dst_set)
			flow_mask_set_field(&out->mask, MFF_TUN_DST);
		if (!t->tun_dst && !t->dst6_set)
			flow_mask_set_field(&out->mask, MFF_TUN_IPV6_DST);
		*v6 = !t->tun_dst;
		if (*v6 && neigh_addr_is_zero(&t->tun_ipv6_dst))
			return false;
		*dst = *v6 ? t->tun_ipv6_dst : neigh_addr_from4(t->tun_dst);
	} else {
		*v6 = s->tnl_remote_v6;
		*dst = *v6 ? s->tnl_remote_ip6
			   : neigh_addr_from4(s->tnl_remote_ip);
	}
	if (*v6 ? !s->has_vtep_ip6 : !s->vtep_ip)
		return false;	/* nothing of that family to send from */
	if (!s->tnl_local_flow) {
		/* a local_ip of the other family: the VTEP's own of this */
		*src = *v6 ? s->tnl_local_ip6 : neigh_addr_from4(s->tnl_local_ip);
		if (neigh_addr_is_zero(src) || (!*v6 && !s->tnl_local_ip))
			*src = *v6 ? s->vtep_ip6 : neigh_addr_from4(s->vtep_ip);
	} else if (*v6) {
		if (!t->src6_set)
			flow_mask_set_field(&out->mask, MFF_TUN_IPV6_SRC);
		*src = neigh_addr_is_zero(&t->tun_ipv6_src) ? s->vtep_ip6
							    : t->tun_ipv6_src;
	} else {
		if (!t->src_set)
			flow_mask_set_field(&out->mask, MFF_TUN_SRC);
		*src = neigh_addr_from4(t->tun_src ? t->tun_src : s->vtep_ip);
	}
	return true;
}

/* One tunnel output with the tunnel fields in force at it (t), in its
 * own template slot: the last output encapsulates the packets
 * themselves, an earlier one copies (OVS commits the set actions before
 * each output). */
static void
xlate_tunnel_output(const struct dp_snapshot *s, const struct tnl_state *t,
		    bool last, struct xlate_out *out)
{
	struct dp_actions *a = &out->actions;
	struct flow_in6_addr dst, src, nexthop;
	bool v6;

	if (s->tnl_key_flow && !t->id_set)
		flow_mask_set_field(&out->mask, MFF_TUN_ID);
	uint32_t vni = s->tnl_key_flow ? t->tun_id : s->tnl_key;

	const struct route_entry *rt = NULL;
	if (s->has_underlay && tunnel_ends(s, t, out, &dst, &src, &v6))
		rt = v6 ? dp_snapshot_route6(s, &dst)
			: dp_snapshot_route(s, neigh_addr_to4(&dst));
	if (!rt) {
		tunnel_output_drop(out, last, DROP_NO_ROUTE);
		return;
	}
	nexthop = route_has_gateway(rt) ? rt->gateway : dst;
	note_nexthop(out, neigh_addr_digest(&nexthop));
	const struct neigh_entry *n = dp_snapshot_neigh6(s, &nexthop);
	if (!n) {
		if (neigh_addr_is_zero(&out->need_neigh))
			out->need_neigh = nexthop;
		tunnel_output_drop(out, last, DROP_NO_NEIGH);
		return;
	}
	if (a->n_tnls >= DP_MAX_TNLS) {
		emit_overflow(out);
		return;
	}
	uint8_t slot = a->n_tnls++;
	if (v6)
		vxlan_tnl_template_build6(&a->tnls[slot], &s->vtep_mac, &n->mac,
					  &src, &dst, vni, s->tnl_dst_port,
					  VTEP_TTL, 0);
	else
		vxlan_tnl_template_build(&a->tnls[slot], &s->vtep_mac, &n->mac,
					 neigh_addr_to4(&src),
					 neigh_addr_to4(&dst), vni,
					 s->tnl_dst_port, VTEP_TTL, false);
	/* the egress port's MTU: encap's length check (dp_pmtud.h) */
	const struct port *egress = port_at(rt->port_idx);
	vxlan_tnl_template_set_max_frame(&a->tnls[slot], egress ?
					 egress->tx_max_frame : UINT32_MAX);
	if (last) {
		emit_act(out, (struct dp_action){ .type = DP_ACT_TNL_PUSH,
						  .slot = slot });
		emit(out, DP_ACT_OUTPUT, rt->port_idx, 0);
	} else {
		emit_act(out, (struct dp_action){ .type = DP_ACT_TNL_CLONE,
						  .slot = slot,
						  .port = rt->port_idx });
	}
}

/* ct(exec(load/set_field->ct_mark)): the mark's value and mask */
static bool
ct_exec_mark(const struct ofp_ct *ct, struct dp_ct_mark *m)
{
	bool any = false;

	m->value = m->mask = 0;
	for (int i = 0; i < ct->n_exec; i++) {
		const struct ofp_load *l = &ct->exec[i];
		if (l->field != OFP_MF_CT_MARK)	/* ct_label: below */
			continue;
		uint32_t bits = l->nbits && l->nbits < 32 ?
				((1u << l->nbits) - 1) << l->ofs : UINT32_MAX;
		m->mask |= bits;
		m->value = (m->value & ~bits) |
			   ((uint32_t)(l->value[1] << l->ofs) & bits);
		any = true;
	}
	return any;
}

/* ct(exec(set_field:V->ct_label / load:V->NXM_NX_CT_LABEL[a..b])): the
 * label's value and mask, in the tracker's word order ([0] low). */
static bool
ct_exec_label(const struct ofp_ct *ct, struct dp_ct_label *d)
{
	__extension__ typedef unsigned __int128 u128;
	u128 value = 0, mask = 0;
	bool any = false;

	for (int i = 0; i < ct->n_exec; i++) {
		const struct ofp_load *l = &ct->exec[i];
		if (l->field != OFP_MF_CT_LABEL)
			continue;
		u128 v = (u128)l->value[0] << 64 | l->value[1];
		u128 bits = ~(u128)0;
		if (l->nbits && l->nbits < 128)
			bits = (((u128)1 << l->nbits) - 1) << l->ofs;
		mask |= bits;
		value = (value & ~bits) | ((v << l->ofs) & bits);
		any = true;
	}
	d->value[0] = (uint64_t)value;
	d->value[1] = (uint64_t)(value >> 64);
	d->mask[0] = (uint64_t)mask;
	d->mask[1] = (uint64_t)(mask >> 64);
	return any;
}

/* ct() [+ recirc(id) when it has table=: the last one], its nat(...),
 * exec(->ct_mark) and exec(->ct_label) in their value slots */
static void
emit_ct(struct xlate_out *out, const struct ofp_ct *ct, uint8_t recirc_id)
{
	struct dp_actions *a = &out->actions;
	uint8_t slot = (ct->commit ? DP_CT_COMMIT : 0) | nat_slot(out, ct);
	struct dp_ct_mark m;

	if (ct_exec_mark(ct, &m)) {
		if (a->n_ct_marks >= DP_MAX_CT_MARKS) {
			emit_overflow(out);
			return;
		}
		a->ct_marks[a->n_ct_marks++] = m;
		slot |= DP_CT_WITH_MARK(a->n_ct_marks);
	}
	struct dp_ct_label l;
	if (ct_exec_label(ct, &l)) {
		uint8_t n_labels = 0;	/* the ct()s before this one's */
		for (int i = 0; i < a->n; i++)
			if (a->act[i].type == DP_ACT_CT &&
			    DP_CT_LABEL_SLOT(a->act[i].slot))
				n_labels++;
		if (n_labels >= DP_MAX_CT_LABELS) {
			emit_overflow(out);
			return;
		}
		a->ct_labels[n_labels] = l;
		slot |= DP_CT_WITH_LABEL(n_labels + 1);
	}
	emit_act(out, (struct dp_action){ .type = DP_ACT_CT, .slot = slot,
					  .port = ct->zone });
	if (ct->table != OFP_TABLE_ALL)
		emit(out, DP_ACT_RECIRC, recirc_id, 0);
}

/* The port an output action sends to; NULL when it sends nowhere (no
 * such port, the underlay, or back to the input port: then *looped). */
static const struct port *
output_port(const struct ofp_action *a, uint32_t in_port, bool *looped)
{
	const struct port *in = port_by_ofport(in_port);
	const struct port *p = a->port == OFPP_IN_PORT ?
		in : port_by_ofport(a->port);

	if (!p || p->is_underlay)
		return NULL;
	if (p == in && a->port != OFPP_IN_PORT) {
		*looped = true;	/* as OpenFlow: not to in_port */
		return NULL;
	}
	return p;
}

/* The actions in pipeline order, each output seeing the rewrites before
 * it. The last output takes the packets themselves, earlier ones copies;
 * rewrites after the last output change nothing and are left out. */
static void
xlate_actions(const struct dp_snapshot *s, const struct flow_key *key,
	      const struct xlate_pipeline *pl, struct xlate_out *out)
{
	struct tnl_state t = { .tun_id = key->tun_id, .tun_src = key->tun_src,
			       .tun_dst = key->tun_dst,
			       .tun_ipv6_src = key->tun_ipv6_src,
			       .tun_ipv6_dst = key->tun_ipv6_dst };
	bool looped = false;
	int last = -1;

	/* a ct() is a destination too: it commits, or recirculates */
	for (int i = 0; i < pl->n; i++)
		if ((pl->act[i].type == OFPACT_OUTPUT &&
		     output_port(&pl->act[i], pl->in_port[i], &looped)) ||
		    pl->act[i].type == OFPACT_CT)
			last = i;
	if (last < 0) {
		emit_drop(out, looped ? DROP_LOOP : DROP_RULE_DROP);
		return;
	}
	for (int i = 0; i <= last; i++) {
		const struct ofp_action *a = &pl->act[i];
		const struct port *p;
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
		case OFPACT_SET_TUN_IPV6_SRC:
			t.tun_ipv6_src = a->ip6, t.src6_set = true;
			break;
		case OFPACT_SET_TUN_IPV6_DST:
			t.tun_ipv6_dst = a->ip6, t.dst6_set = true;
			break;
		case OFPACT_SET_ETH_SRC:
			emit_set_mac(out, DP_ACT_SET_ETH_SRC, &a->mac);
			break;
		case OFPACT_SET_ETH_DST:
			emit_set_mac(out, DP_ACT_SET_ETH_DST, &a->mac);
			break;
		case OFPACT_SG: {
			const struct ofp_ct *sg = &pl->ct[a->slot];
			emit_act(out, (struct dp_action){
				.type = DP_ACT_SG,
				.slot = (sg->allow ? DP_SG_ALLOW : 0) |
					nat_slot(out, sg),
				.port = sg->zone });
			break;
		}
		case OFPACT_CT:
			emit_ct(out, &pl->ct[a->slot], pl->recirc_id);
			break;
		case OFPACT_OUTPUT:
			p = output_port(a, pl->in_port[i], &looped);
			if (!p)
				break;
			/* the snapshot's tunnel: not one add-port is
			 * making, or del-port removing, since it was built */
			if (p->kind == PORT_VXLAN && s->has_tunnel &&
			    p->ofport == s->tnl_ofport)
				xlate_tunnel_output(s, &t, i == last, out);
			else if (p->kind != PORT_VXLAN)
				emit(out, DP_ACT_OUTPUT, p->idx, 0);
			break;
		default:	/* the pipeline keeps only the above */
			break;
		}
	}
}

/* Worst case over every packet: each rewrite before an output and each
 * output one action and value slot, the last tunnel output two actions
 * (push, output). Outputs that turn out to send nowhere only use less. */
int
xlate_check_rule(const struct ofp_rule *r,
		 bool (*is_tunnel)(uint32_t ofport, void *aux), void *aux,
		 char *err, size_t errlen)
{
	int last = -1, n_macs = 0, n_tnls = 0, n_plain = 0, n_sg = 0;

	for (int i = 0; i < r->n_actions; i++)
		if (r->actions[i].type == OFPACT_OUTPUT ||
		    r->actions[i].type == OFPACT_CT)
			last = i;
	for (int i = 0; i <= last; i++) {
		const struct ofp_action *a = &r->actions[i];
		if (a->type == OFPACT_SET_ETH_SRC ||
		    a->type == OFPACT_SET_ETH_DST)
			n_macs++;
		else if (a->type == OFPACT_SG)
			n_sg++;
		else if (a->type == OFPACT_CT)	/* ct, and recirc */
			n_sg += r->ct[a->slot].table != OFP_TABLE_ALL ? 2 : 1;
		else if (a->type != OFPACT_OUTPUT)
			continue;
		else if (a->port == OFPP_IN_PORT || is_tunnel(a->port, aux))
			n_tnls++;
		else
			n_plain++;
	}
	int n_acts = n_macs + n_plain + n_tnls + (n_tnls > 0) + n_sg;
	if (n_tnls > DP_MAX_TNLS) {
		snprintf(err, errlen, "%d tunnel outputs (output:in_port counts "
			 "as one): the datapath takes at most %d per rule",
			 n_tnls, DP_MAX_TNLS);
		return -1;
	}
	if (n_macs > DP_MAX_MACS) {
		snprintf(err, errlen, "%d Ethernet address rewrites before an "
			 "output: the datapath takes at most %d per rule",
			 n_macs, DP_MAX_MACS);
		return -1;
	}
	if (n_acts > DP_MAX_ACTIONS) {
		snprintf(err, errlen, "needs up to %d datapath actions (one per "
			 "rewrite and output, two for the last tunnel output): "
			 "the datapath takes at most %d per rule", n_acts,
			 DP_MAX_ACTIONS);
		return -1;
	}
	return 0;
}

void
xlate_out_release(struct xlate_out *out)
{
	for (int i = 0; i < 2; i++) {
		recirc_id_unref(out->recirc_refs[i]);
		out->recirc_refs[i] = 0;
	}
}

static void
xlate_clean(const struct dp_snapshot *s, const struct flow_key *pkt_key,
	    struct xlate_out *out)
{
	struct recirc_frozen frozen;
	struct flow_key resumed;
	const struct flow_key *key = pkt_key;

	memset(out, 0, sizeof *out);
	flow_mask_set_field(&out->mask, MFF_IN_PORT);
	/* Always dl_type, as OVS's xlate_wc_init: a megaflow that matches an
	 * L3 or L4 field says for which ethertype (ODP can only express
	 * ipv4(...) under an eth_type, so dump-flows shows the whole mask),
	 * and the shapes stay few (dpcls_lookup.c: each has its w3 form). */
	flow_mask_set_field(&out->mask, MFF_DL_TYPE);
	/* a megaflow is for one pass: the first (0) or one recirculation */
	out->mask.recirc_id = UINT8_MAX;

	if (pkt_key->recirc_id) {
		/* The megaflow that recirculated the packet holds the id
		 * until its PMD frees it between bursts: a miss here is a
		 * packet no pass should have sent. */
		if (!recirc_id_ref(pkt_key->recirc_id, &frozen)) {
			emit_drop(out, DROP_RECIRC_LIMIT);
			return;
		}
		out->recirc_refs[0] = pkt_key->recirc_id;
		resumed = *pkt_key;
		if (frozen.set_in_port)
			resumed.in_port = frozen.in_port;
		if (frozen.set_tunnel) {
			resumed.tun_id = frozen.tun_id;
			resumed.tun_src = frozen.tun_src;
			resumed.tun_dst = frozen.tun_dst;
			memcpy(resumed.tun_ipv6_src.a, frozen.tun_ipv6_src, 16);
			memcpy(resumed.tun_ipv6_dst.a, frozen.tun_ipv6_dst, 16);
			if (memcmp(resumed.line3, pkt_key->line3,
				   sizeof resumed.line3))
				resumed.ext_line |= FLOW_EXT_TUN6;
		}
		key = &resumed;
	}
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
	} else if (s->gone_tnl_ofport && key->in_port == s->gone_tnl_ofport) {
		emit_drop(out, DROP_NOT_VTEP);	/* the tunnel port went */
		return;
	}
	struct xlate_pipeline pl;
	const struct ofp_rule *r = xlate_pipeline(s, key, pkt_key->recirc_id ?
						  &frozen : NULL,
						  &out->mask, &pl);
	out->tables = pl.tables;
	if (!r) {
		emit_drop(out, DROP_NO_RULE);
		return;
	}
	out->rule_uid = r->uid;
	if (pl.unfreezable || pl.limit_hit) {
		recirc_id_unref(pl.recirc_id);	/* no recirc() emitted */
		emit_drop(out, pl.unfreezable ? DROP_RECIRC_LIMIT
					      : DROP_RESUBMIT_LIMIT);
		return;
	}
	out->recirc_refs[1] = pl.recirc_id;
	xlate_actions(s, key, &pl, out);
}

/* The datapath leaves the lines a key lacks as it found them (flow_key.h):
 * the slow path, which reads any word a rule names, sees them as zero.
 * A rule on a field of such a line (tun_ipv6_src on a packet from an IPv4
 * underlay, which OVS allows) then adds the line's ext_line bit to the
 * mask and nothing else: "the key has no such line" decides the megaflow,
 * which keeps it out of the subtables that only see keys with the line. */
void
xlate(const struct dp_snapshot *s, const struct flow_key *pkt_key,
      struct xlate_out *out)
{
	struct flow_key key = *pkt_key;

	if (!flow_key_has_line2(&key))
		memset(key.line2, 0, sizeof key.line2);
	if (!flow_key_has_line3(&key))
		memset(key.line3, 0, sizeof key.line3);
	xlate_clean(s, &key, out);
	if (!flow_key_has_line2(&key))
		memset(out->mask.line2, 0, sizeof out->mask.line2);
	if (!flow_key_has_line3(&key))
		memset(out->mask.line3, 0, sizeof out->mask.line3);
}
