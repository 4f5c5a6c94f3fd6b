/* SPDX-License-Identifier: BSD-3-Clause
 * Rule builder for the E810 Flow Director (DPDK ice PMD). See the header.
 *
 * Every rule below is checked against the ice PMD's sources; citations are
 *   [F22] drivers/net/ice/ice_fdir_filter.c  DPDK 22.11.11 (Debian 12's
 *         dpdk_22.11.11 source package; line numbers from that file)
 *   [G22] drivers/net/ice/ice_generic_flow.c DPDK 22.11.11 (same)
 *   [F+]  drivers/net/ice/ice_fdir_filter.c  post-23.11 main (rjarry/dpdk
 *         @67130e49): the same supported-pattern rows and input sets as
 *         [F22] for everything used here
 *   [G23] "net/ice: map group to pipeline stage" (Qi Zhang, dev@dpdk.org,
 *         Sep 2023, msg274936; the 23.11 rte_flow refactor that also
 *         removed the pipeline-mode devarg, msg274934): group 0 -> switch
 *         filter, 1 -> ACL (DCF only), 2 -> FDIR (PF only).
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include "ice_fdir_rule.h"

static int
fail(const char **why, const char *reason)
{
	if (why)
		*why = reason;
	return -ENOTSUP;
}

/* Item layout per flow type; spec/mask NULL where nothing is matched. */
enum {
	IT_ETH, IT_IPV4, IT_UDP, IT_VXLAN, IT_IETH, IT_IIPV4, IT_N
};

static void
set_item(struct rte_flow_item *it, enum rte_flow_item_type type,
	 const void *spec, const void *mask)
{
	it->type = type;
	it->spec = spec;
	it->last = NULL;	/* ranges: [F22] ice_fdir_parse_pattern:1852-1858
				 * "Not support range" (except ipv4/frag) */
	it->mask = mask;
}

void
ice_fdir_rule_relink(struct offload_rule *r)
{
	struct rte_flow_item *it = r->items;
	bool vxlan = r->type == OFFLOAD_FT_VXLAN_IPV4;

	/* ETH with no spec/mask: [F22] ice_fdir_parse_pattern:1977
	 * "if (!(eth_spec && eth_mask)) break;" matches any MAC. We never
	 * match the ethertype: with an item after ETH the 22.11 parser ignores
	 * the type ([F22]:1986 "Ignore this field except for
	 * ICE_FLTR_PTYPE_NON_IP_L2"), and as the last item it rejects 0x0800
	 * and 0x86DD ([F22]:1990-1998 "Unsupported ether_type."). IPv4 is
	 * implied by the IPV4 item (flow type NONF_IPV4_*). */
	set_item(it++, RTE_FLOW_ITEM_TYPE_ETH, NULL, NULL);
	set_item(it++, RTE_FLOW_ITEM_TYPE_IPV4, &r->ipv4_spec, &r->ipv4_mask);
	if (!vxlan) {
		set_item(it++, RTE_FLOW_ITEM_TYPE_UDP, &r->udp_spec,
			 &r->udp_mask);
	} else {
		/* Outer UDP unmatched: the VXLAN rows' outer input set is
		 * ICE_FDIR_INSET_ETH_IPV4_VXLAN = eth | ipv4 | VNI, no L4
		 * ports ([F22]:75-77, rows :125-132; [F+] same), so a UDP dst
		 * mask would fail ice_fdir_parse's "Invalid input set"
		 * ([F22]:2492-2498). 4789 is implied by the VXLAN ptype. */
		set_item(it++, RTE_FLOW_ITEM_TYPE_UDP, NULL, NULL);
		set_item(it++, RTE_FLOW_ITEM_TYPE_VXLAN, &r->vxlan_spec,
			 &r->vxlan_mask);
		set_item(it++, RTE_FLOW_ITEM_TYPE_ETH, NULL, NULL);
		set_item(it++, RTE_FLOW_ITEM_TYPE_IPV4, &r->iipv4_spec,
			 &r->iipv4_mask);
	}
	set_item(it, RTE_FLOW_ITEM_TYPE_END, NULL, NULL);
	while (++it < r->items + OFFLOAD_MAX_ITEMS)
		set_item(it, RTE_FLOW_ITEM_TYPE_END, NULL, NULL);

	struct rte_flow_action *a = r->actions;
	a->type = RTE_FLOW_ACTION_TYPE_MARK;
	a->conf = &r->mark;
	a++;
	if (r->rss.queue_num) {
		r->rss.queue = r->rss_queues;
		a->type = RTE_FLOW_ACTION_TYPE_RSS;
		a->conf = &r->rss;
		a++;
	}
	for (; a < r->actions + OFFLOAD_MAX_ACTIONS; a++) {
		a->type = RTE_FLOW_ACTION_TYPE_END;
		a->conf = NULL;
	}
}

/* Mask bits of field f: 0 none, 1 all, -1 some (a prefix or a stray bit). */
static int
field_mask_state(const struct flow_key *mask, enum mf_id f)
{
	const uint8_t *m = (const uint8_t *)mask + mf_fields[f].offset;
	unsigned n_ff = 0, n_00 = 0;
	for (unsigned i = 0; i < mf_fields[f].len; i++) {
		n_ff += m[i] == 0xff;
		n_00 += m[i] == 0x00;
	}
	if (n_00 == mf_fields[f].len)
		return 0;
	if (n_ff == mf_fields[f].len)
		return 1;
	return -1;
}

static bool
mask_is(const struct flow_key *mask, const enum mf_id *fields, int n)
{
	struct flow_key want, got = *mask;
	flow_key_zero(&want);
	for (int i = 0; i < n; i++)
		flow_mask_set_field(&want, fields[i]);
	/* every megaflow matches its pass (recirc_id); only first-pass ones
	 * are offered (dp_offload.c), and the NIC's packets are first-pass */
	got.recirc_id = 0;
	for (int i = 0; i < FLOW_KEY_WORDS; i++)
		if (want.w[i] != got.w[i])
			return false;
	return true;
}

/* The outer (underlay, tnl_pop) megaflow of xlate_underlay():
 * in_port, dl_type, nw_dst, nw_proto, nw_frag, tp_dst. */
static const enum mf_id outer_canon[] = {
	MFF_IN_PORT, MFF_DL_TYPE, MFF_NW_DST, MFF_NW_PROTO, MFF_NW_FRAG,
	MFF_TP_DST,
};

/* The inner (in_port=vxlan) megaflow: in_port, tun_id, dl_type, nw_dst. */
static const enum mf_id inner_canon[] = {
	MFF_IN_PORT, MFF_TUN_ID, MFF_DL_TYPE, MFF_NW_DST,
};

static int
check_outer(const struct flow_key *k, const struct flow_key *m, bool vxlan,
	    const struct ice_fdir_target *tgt, const char **why)
{
	/* No eth/vlan/ipv4 rows in the FDIR pattern list ([F22]:109-139,
	 * [F+] same): a VLAN match cannot be offloaded. */
	if (field_mask_state(m, MFF_VLAN_TCI))
		return fail(why, "outer VLAN: ice FDIR has no eth/vlan/ipv4 "
			    "pattern");
	/* A VXLAN flow over an IPv6 underlay: the ipv6 VXLAN patterns of
	 * ice_generic_flow.c are in no engine's list ([F22]:109-138, and
	 * the same in every release to 26.07), so ice would answer
	 * "Unsupported pattern"; refused here, before any rte_flow call.
	 * (An outer-only IPv6 flow stays "outer not IPv4": eth/ipv6/udp
	 * exists, [F22]:118, but is not what we offload.) */
	if (vxlan && field_mask_state(m, MFF_DL_TYPE) == 1 &&
	    k->dl_type == RTE_BE16(RTE_ETHER_TYPE_IPV6))
		return fail(why, ICE_FDIR_WHY_OUTER_IPV6);
	if (field_mask_state(m, MFF_DL_TYPE) != 1 ||
	    k->dl_type != RTE_BE16(RTE_ETHER_TYPE_IPV4))
		return fail(why, "outer not IPv4");
	/* [F22] ice_fdir_parse_pattern:2051-2056 "Mask for IPv4 src/dst
	 * addrs not supported": a partial mask returns an error. */
	if (field_mask_state(m, MFF_NW_DST) < 0 ||
	    field_mask_state(m, MFF_NW_SRC) < 0)
		return fail(why, "nw_dst prefix: FDIR matches IPv4 addresses "
			    "fully or not at all");
	/* [F22] ice_fdir_parse_pattern:2247-2253 "Mask for UDP src/dst ports
	 * not supported". */
	if (field_mask_state(m, MFF_TP_DST) < 0 ||
	    field_mask_state(m, MFF_TP_SRC) < 0)
		return fail(why, "tp_dst mask: FDIR matches L4 ports fully or "
			    "not at all");
	/* xlate_underlay() also matches the outer dl_dst (our VTEP MAC): the
	 * rule leaves it out and the PMD's mark path checks it in software
	 * (a rule may match fewer fields than the megaflow, never more). */
	struct flow_key m_no_dst = *m;
	if (field_mask_state(m, MFF_DL_DST) == 1)
		memset(&m_no_dst.dl_dst, 0, sizeof m_no_dst.dl_dst);
	if (!mask_is(&m_no_dst, outer_canon, RTE_DIM(outer_canon)))
		return fail(why, "outer mask not canonical (ipv4 dst + udp "
			    "dst)");
	if (k->nw_proto != IPPROTO_UDP)
		return fail(why, "outer not UDP");
	/* A fragment is flow type FRAG_IPV4, not NONF_IPV4_UDP
	 * ([F22]:2076-2087): only non-fragments are matched. */
	if (k->nw_frag)
		return fail(why, "outer fragment: FDIR UDP flow type is "
			    "non-fragmented only");
	/* ice knows VXLAN only by a registered tunnel port: without one
	 * validate passes and every create fails (EINVAL "Add filter rule
	 * failed.", the same text as a full table: research s. 3.1), so the
	 * rule is not worth asking for. */
	if (vxlan && !tgt->tunnel_port)
		return fail(why, "no VXLAN tunnel port registered on the port");
	if (vxlan && k->tp_dst != rte_cpu_to_be_16(tgt->tunnel_port))
		return fail(why, "outer udp dst is not the registered VXLAN "
			    "port");
	/* Packets to a registered tunnel port are parsed by the NIC as
	 * tunnel packets: a plain eth/ipv4/udp rule's profile then reads
	 * their innermost UDP port, so a rule "udp dst 4789" would match
	 * inner datagrams to 4789, never the VXLAN packets it means. */
	if (!vxlan && tgt->tunnel_port &&
	    k->tp_dst == rte_cpu_to_be_16(tgt->tunnel_port))
		return fail(why, "plain udp rule on the VXLAN tunnel port");
	return 0;
}

static int
check_inner(const struct flow_key *k, const struct flow_key *m,
	    const char **why)
{
	/* VXLAN rows are IPv4 outer and IPv4 inner only ([F22]:125-132;
	 * the ipv6 VXLAN patterns of ice_generic_flow.c are not in the FDIR
	 * list). */
	if (field_mask_state(m, MFF_DL_TYPE) == 1 &&
	    k->dl_type != RTE_BE16(RTE_ETHER_TYPE_IPV4))
		return fail(why, "inner not IPv4: ice FDIR VXLAN is "
			    "IPv4-in-IPv4 only");
	if (field_mask_state(m, MFF_NW_DST) < 0 ||
	    field_mask_state(m, MFF_NW_SRC) < 0)
		return fail(why, "nw_dst prefix: FDIR matches IPv4 addresses "
			    "fully or not at all");
	if (field_mask_state(m, MFF_VLAN_TCI))
		return fail(why, "inner VLAN: ice FDIR has no VXLAN/eth/vlan "
			    "pattern");
	if (!mask_is(m, inner_canon, RTE_DIM(inner_canon)))
		return fail(why, "inner mask not canonical (vni + inner dst "
			    "/32)");
	if (k->tun_id > 0xffffffu)
		return fail(why, "vni wider than 24 bits");
	return 0;
}

int
ice_fdir_rule_build(const struct flow_key *outer_key,
		    const struct flow_key *outer_mask,
		    const struct flow_key *inner_key,
		    const struct flow_key *inner_mask,
		    uint32_t mark, const struct ice_fdir_target *tgt,
		    struct offload_rule *out, const char **why)
{
	bool vxlan = inner_key != NULL;
	int ret;

	if (!outer_key || !outer_mask || !out || !tgt ||
	    (vxlan && !inner_mask)) {
		if (why)
			*why = "NULL argument";
		return -EINVAL;
	}
	/* The flow id 0xFFFFFFFF is what the E810 reports for "no FDIR
	 * match"; the mark table never hands it out and neither do we. */
	if (mark == ICE_FDIR_MARK_INVALID)
		return fail(why, "mark 0xFFFFFFFF is the NIC's no-match id");
	ret = check_outer(outer_key, outer_mask, vxlan, tgt, why);
	if (ret)
		return ret;
	if (vxlan) {
		ret = check_inner(inner_key, inner_mask, why);
		if (ret)
			return ret;
	}

	memset(out, 0, sizeof *out);
	out->type = vxlan ? OFFLOAD_FT_VXLAN_IPV4 : OFFLOAD_FT_IPV4_UDP;

	/* attr: [G22] ice_flow_valid_attr:2019-2076 needs ingress, refuses
	 * egress/transfer and any group ("Not support group."), and outside
	 * pipeline mode allows priority 0/1 only; [F22] ice_fdir_parse:2476
	 * refuses priority >= 1 outside pipeline mode. With group 0 the
	 * 22.11 front end tries the distributor parsers in order
	 * ([G22] ice_parse_engine_create:2337-2367, list built by
	 * ice_register_parser:1941-1990: ACL, switch, FDIR); the switch
	 * filter has no MARK (ice_switch_filter.c ice_switch_parse_action:
	 * RSS/QUEUE/DROP/VOID only), so a MARK rule lands in FDIR.
	 * From 23.11.0 to 23.11.3 (and 24.03-24.11.1) the group picks the
	 * engine ([G23]): 2 = FDIR, while group 0 goes to the switch filter
	 * and fails on MARK; later releases choose by trial again and 26.07
	 * refuses a non-zero group: the port's probe (offload_probe.c)
	 * found which one works. */
	out->attr.ingress = 1;
	out->attr.priority = 0;
	out->attr.group = tgt->group;

	/* Outer IPv4: dst only, fully masked ([F22]:2059-2060 sets
	 * ICE_INSET_IPV4_DST for a 0xffffffff mask; allowed outer input set
	 * of both rows includes it). version_ihl/total_length/checksum
	 * masks must be zero ([F22]:2025-2033); packet_id unmasked
	 * ([F22]:2076-2094). */
	out->ipv4_spec.hdr.dst_addr = outer_key->nw_dst;
	out->ipv4_mask.hdr.dst_addr = RTE_BE32(UINT32_MAX);

	if (!vxlan) {
		/* UDP dst only, fully masked; dgram_len/cksum masks zero
		 * ([F22]:2238-2246, 2254-2257). Row pattern_eth_ipv4_udp,
		 * ICE_FDIR_INSET_ETH_IPV4_UDP ([F22]:29-31, 113). */
		out->udp_spec.hdr.dst_port = outer_key->tp_dst;
		out->udp_mask.hdr.dst_port = RTE_BE16(UINT16_MAX);
	} else {
		/* VNI: flags unmaskable ([F22] ice_fdir_parse_pattern:
		 * 2327-2333 "Invalid vxlan field"); any vx_vni mask adds
		 * ICE_INSET_VXLAN_VNI to the outer input set (:2335-2336).
		 * The VNI is the top 24 bits of vx_vni; the reserved byte
		 * stays unmasked, as in rte_flow_item_vxlan_mask. */
		out->vxlan_spec.hdr.vx_vni =
			rte_cpu_to_be_32(inner_key->tun_id << 8);
		out->vxlan_mask.hdr.vx_vni = RTE_BE32(0xffffff00);
		/* Inner IPv4 dst: inner input set ICE_FDIR_INSET_ETH_IPV4
		 * of row pattern_eth_ipv4_udp_vxlan_eth_ipv4
		 * ([F22]:130; flow type NONF_IPV4_UDP_VXLAN_IPV4_OTHER,
		 * :2443-2445). */
		out->iipv4_spec.hdr.dst_addr = inner_key->nw_dst;
		out->iipv4_mask.hdr.dst_addr = RTE_BE32(UINT32_MAX);
	}

	/* MARK alone: [F22] ice_fdir_parse_action:1732-1737 sets fltr_id;
	 * with no destination action the rule is PASSTHRU
	 * ([F22]:1784-1787), so packets keep the port's normal RSS. */
	out->mark.id = mark;
	ice_fdir_rule_relink(out);
	return 0;
}

int
ice_fdir_rule_add_rss(struct offload_rule *r, uint16_t first_queue,
		      uint16_t n_queues, uint16_t nb_rx_queues,
		      const char **why)
{
	const char *reason = NULL;

	/* [F22] ice_fdir_parse_action_qregion:1620-1675: queue_num 0/1
	 * refused, queues contiguous, last < nb_rx_queues, power of two up
	 * to ICE_FDIR_MAX_QREGION_SIZE (128). One destination action only
	 * (:1756-1761), so at most one RSS. */
	if (!r)
		reason = "NULL rule";
	else if (r->rss.queue_num)
		reason = "rule already has an RSS action";
	else if (n_queues < ICE_FDIR_QREGION_MIN ||
		 n_queues > ICE_FDIR_QREGION_MAX)
		reason = "RSS queue region must be 2..128 queues";
	else if (!rte_is_power_of_2(n_queues))
		reason = "RSS queue region must be a power of two";
	else if ((uint32_t)first_queue + n_queues > nb_rx_queues)
		reason = "RSS queue region beyond the port's rx queues";
	if (reason) {
		if (why)
			*why = reason;
		return -EINVAL;
	}
	r->rss.func = RTE_ETH_HASH_FUNCTION_DEFAULT;
	r->rss.level = 0;
	r->rss.types = 0;
	r->rss.key_len = 0;
	r->rss.key = NULL;
	for (uint16_t i = 0; i < n_queues; i++)
		r->rss_queues[i] = first_queue + i;
	r->rss.queue_num = n_queues;
	ice_fdir_rule_relink(r);
	return 0;
}
