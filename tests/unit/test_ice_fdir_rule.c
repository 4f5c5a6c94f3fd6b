/* SPDX-License-Identifier: BSD-3-Clause
 * The E810 Flow Director rule builder (drivers/offload/ice_fdir_rule.c):
 *  (a) the seed's two rules (Intel's 32-VM VXLAN study, "Rte_flow
 *      semantics of outer flow and inner flow"), item by item, in the
 *      form the ice FDIR accepts; every place where OVS's rule differs
 *      from ours is asserted and explained;
 *  (b) what must stay in software;
 *  (c) attr.group as the port's probe found it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <rte_byteorder.h>
#include <rte_ip.h>
#include "flow_key.h"
#include "ice_fdir_rule.h"
#include "offload_engine.h"
#include "seed_flows.h"
#include "unit_test.h"

#define IP4 SEED_IP4

static const uint32_t NIC_PORT = 1, VXLAN_PORT = 3;

/* what offload_probe.c finds: the group per ice release, and whether the
 * VXLAN port could be registered */
static const struct ice_fdir_target TGT_G0 = { .group = 0,
					       .tunnel_port = 4789 };
static const struct ice_fdir_target TGT_G2 = { .group = 2,
					       .tunnel_port = 4789 };
static const struct ice_fdir_target TGT_NOTUN = { .group = 0,
						  .tunnel_port = 0 };

static void
outer_flow(struct flow_key *k, struct flow_key *m, rte_be32_t vtep_ip,
	   uint16_t tp_dst)
{
	seed_outer_flow(k, m, NIC_PORT, vtep_ip, tp_dst);
}

static void
inner_flow(struct flow_key *k, struct flow_key *m, uint32_t vni,
	   rte_be32_t dst)
{
	seed_inner_flow(k, m, VXLAN_PORT, vni, dst);
}

static bool
zero(const void *p, size_t n)
{
	const uint8_t *b = p;
	for (size_t i = 0; i < n; i++)
		if (b[i])
			return false;
	return true;
}

/* items/actions point into the rule itself (no dangling pointers). */
static bool
self_contained(const struct offload_rule *r)
{
	const char *lo = (const char *)r, *hi = lo + sizeof *r;
	for (int i = 0; i < OFFLOAD_MAX_ITEMS; i++) {
		const char *s = r->items[i].spec, *m = r->items[i].mask;
		if ((s && (s < lo || s >= hi)) || (m && (m < lo || m >= hi)))
			return false;
	}
	for (int i = 0; i < OFFLOAD_MAX_ACTIONS; i++) {
		const char *c = r->actions[i].conf;
		if (c && (c < lo || c >= hi))
			return false;
	}
	return true;
}

static void
check_attr(const struct offload_rule *r, uint32_t group)
{
	/* seed: ingress=1, egress=0, prio=0, group=0, transfer=0 */
	CHECK_EXPR(r->attr.ingress == 1);
	CHECK_EXPR(r->attr.egress == 0);
	CHECK_EXPR(r->attr.transfer == 0);
	CHECK_EXPR(r->attr.priority == 0);
	CHECK_EXPR(r->attr.group == group);
}

/* Seed rule 1: outer eth / ipv4 / udp, MARK id=0 + RSS queue_num=4. */
static void
test_seed_outer(void)
{
	struct flow_key k, m;
	struct offload_rule r;
	const char *why = NULL;

	/* The seed's rule matches udp dst 4789 as a plain UDP rule: refused
	 * on a port with 4789 registered as VXLAN (the NIC would read the
	 * inner UDP port of those packets) ... */
	outer_flow(&k, &m, IP4(172, 1, 0, 100), 4789);
	CHECK_EXPR(ice_fdir_rule_build(&k, &m, NULL, NULL, 0, &TGT_G0,
				  &r, &why) == -ENOTSUP);
	CHECK_EXPR(why && strstr(why, "tunnel port"));
	/* ... and what the seed means on a port with no tunnel port */
	CHECK_EXPR(ice_fdir_rule_build(&k, &m, NULL, NULL, 0, &TGT_NOTUN,
				  &r, &why) == 0);
	CHECK_EXPR(r.type == OFFLOAD_FT_IPV4_UDP);
	check_attr(&r, 0);	/* seed: group=0, which is also 22.11's */
	CHECK_EXPR(self_contained(&r));

	CHECK_EXPR(r.items[0].type == RTE_FLOW_ITEM_TYPE_ETH);
	/* DIFFERENCE: the seed's eth item has src=10:00:00:00:00:02,
	 * dst=10:00:00:00:00:01 fully masked and type=0x0800/0xffff. Our
	 * megaflow does not match MACs (the tnl_pop megaflow is in_port,
	 * dl_type, nw_dst, nw_proto, nw_frag, tp_dst), and the ice FDIR does
	 * not take an IPv4 ethertype as an ETH match (22.11 ignores it before
	 * an IPV4 item, refuses it as the last item): eth spec/mask empty. */
	CHECK_EXPR(r.items[0].spec == NULL && r.items[0].mask == NULL);

	CHECK_EXPR(r.items[1].type == RTE_FLOW_ITEM_TYPE_IPV4);
	const struct rte_flow_item_ipv4 *is = r.items[1].spec,
					*im = r.items[1].mask;
	/* seed: dst=172.1.0.100 / 255.255.255.255: equal. */
	CHECK_EXPR(is->hdr.dst_addr == IP4(172, 1, 0, 100));
	CHECK_EXPR(im->hdr.dst_addr == RTE_BE32(0xffffffff));
	/* seed masks: tos=0, ttl=0, proto=0, src=0.0.0.0: equal (the seed's
	 * spec values ttl=40, proto=0x11, src=172.1.0.200 are under a zero
	 * mask; ours leaves them zero: same match). */
	CHECK_EXPR(im->hdr.type_of_service == 0 && im->hdr.time_to_live == 0);
	CHECK_EXPR(im->hdr.next_proto_id == 0 && im->hdr.src_addr == 0);
	CHECK_EXPR(zero(&r.ipv4_mask, sizeof r.ipv4_mask) == false);
	{
		struct rte_flow_item_ipv4 want = { 0 };
		want.hdr.dst_addr = RTE_BE32(0xffffffff);
		CHECK_EXPR(memcmp(im, &want, sizeof want) == 0);
	}

	CHECK_EXPR(r.items[2].type == RTE_FLOW_ITEM_TYPE_UDP);
	const struct rte_flow_item_udp *us = r.items[2].spec,
				       *um = r.items[2].mask;
	/* seed: dst_port=4789 / 0xffff, src_port mask 0x0: equal (the
	 * seed's src_port=1000 is under a zero mask). */
	CHECK_EXPR(us->hdr.dst_port == RTE_BE16(4789));
	CHECK_EXPR(um->hdr.dst_port == RTE_BE16(0xffff));
	CHECK_EXPR(um->hdr.src_port == 0);
	CHECK_EXPR(um->hdr.dgram_len == 0 && um->hdr.dgram_cksum == 0);

	CHECK_EXPR(r.items[3].type == RTE_FLOW_ITEM_TYPE_END);

	/* seed: MARK id=0: equal. */
	CHECK_EXPR(r.actions[0].type == RTE_FLOW_ACTION_TYPE_MARK);
	CHECK_EXPR(((const struct rte_flow_action_mark *)r.actions[0].conf)->id
	      == 0);
	/* DIFFERENCE: the seed adds RSS queue_num=4. Ours is MARK alone by
	 * default (PASSTHRU: packets keep the port's RSS); an ice FDIR RSS
	 * is a contiguous power-of-two queue region, available as an option
	 * - with it, the seed's queue_num=4 is reproduced. */
	CHECK_EXPR(r.actions[1].type == RTE_FLOW_ACTION_TYPE_END);
	CHECK_EXPR(ice_fdir_rule_add_rss(&r, 0, 4, 4, &why) == 0);
	CHECK_EXPR(r.actions[1].type == RTE_FLOW_ACTION_TYPE_RSS);
	const struct rte_flow_action_rss *rss = r.actions[1].conf;
	CHECK_EXPR(rss->queue_num == 4);
	for (unsigned i = 0; i < rss->queue_num; i++)
		CHECK_EXPR(rss->queue[i] == i);
	CHECK_EXPR(r.actions[2].type == RTE_FLOW_ACTION_TYPE_END);
	CHECK_EXPR(self_contained(&r));

	/* a copy re-pointed into itself */
	static struct offload_rule copy;
	memcpy(&copy, &r, sizeof r);
	ice_fdir_rule_relink(&copy);
	CHECK_EXPR(self_contained(&copy));
	CHECK_EXPR(((const struct rte_flow_item_ipv4 *)copy.items[1].spec)
	      ->hdr.dst_addr == IP4(172, 1, 0, 100));
	CHECK_EXPR(((const struct rte_flow_action_rss *)copy.actions[1].conf)
	      ->queue[3] == 3);
}

/* Seed rule 2: eth / ipv4 / udp / vxlan / eth / ipv4, MARK + RSS. */
static void
test_seed_vxlan(void)
{
	struct flow_key ok, om, ik, im;
	struct offload_rule r;
	const char *why = NULL;

	outer_flow(&ok, &om, IP4(172, 1, 0, 100), 4789);
	inner_flow(&ik, &im, 1001, IP4(192, 1, 0, 1));
	CHECK_EXPR(ice_fdir_rule_build(&ok, &om, &ik, &im, 0, &TGT_G0,
				  &r, &why) == 0);
	CHECK_EXPR(r.type == OFFLOAD_FT_VXLAN_IPV4);
	check_attr(&r, 0);
	CHECK_EXPR(self_contained(&r));

	/* seed: outer eth spec = null, mask = null: equal. */
	CHECK_EXPR(r.items[0].type == RTE_FLOW_ITEM_TYPE_ETH);
	CHECK_EXPR(r.items[0].spec == NULL && r.items[0].mask == NULL);

	CHECK_EXPR(r.items[1].type == RTE_FLOW_ITEM_TYPE_IPV4);
	const struct rte_flow_item_ipv4 *os = r.items[1].spec,
					*omk = r.items[1].mask;
	/* seed: dst=172.1.0.100 / 255.255.255.255: equal. */
	CHECK_EXPR(os->hdr.dst_addr == IP4(172, 1, 0, 100));
	CHECK_EXPR(omk->hdr.dst_addr == RTE_BE32(0xffffffff));
	/* DIFFERENCE: the seed also matches src=172.1.0.0/255.255.255.255
	 * and tos=0x0/0xff. Our canonical VXLAN key is outer dst + VNI +
	 * inner dst (the decap megaflow does not match tun_src or the outer
	 * tos), one input set for every VXLAN rule: src and tos unmasked. */
	CHECK_EXPR(omk->hdr.src_addr == 0);
	CHECK_EXPR(omk->hdr.type_of_service == 0);
	CHECK_EXPR(omk->hdr.time_to_live == 0 && omk->hdr.next_proto_id == 0);

	/* seed: udp mask src_port=0x0, dst_port=0x0 (spec 34233/4789 under a
	 * zero mask): same match as ours, which leaves spec/mask empty - the
	 * ice FDIR cannot put outer UDP ports in a VXLAN rule's input set;
	 * 4789 is implied by the VXLAN packet type. */
	CHECK_EXPR(r.items[2].type == RTE_FLOW_ITEM_TYPE_UDP);
	CHECK_EXPR(r.items[2].spec == NULL && r.items[2].mask == NULL);

	CHECK_EXPR(r.items[3].type == RTE_FLOW_ITEM_TYPE_VXLAN);
	const struct rte_flow_item_vxlan *vs = r.items[3].spec,
					 *vm = r.items[3].mask;
	/* seed: vni=1001: equal. */
	CHECK_EXPR(vs->hdr.vx_vni == RTE_BE32(1001u << 8));
	CHECK_EXPR(vs->vni[0] == 0x00 && vs->vni[1] == 0x03 && vs->vni[2] == 0xe9);
	/* DIFFERENCE: the seed prints the vni mask as 0xffffffff; the VNI is
	 * 24 bits and the byte after it is reserved, so ours is the 24-bit
	 * mask (rte_flow_item_vxlan_mask's). Flags unmasked: the ice FDIR
	 * refuses a VXLAN flags mask. */
	CHECK_EXPR(vm->hdr.vx_vni == RTE_BE32(0xffffff00));
	CHECK_EXPR(vm->hdr.vx_flags == 0);
	CHECK_EXPR(vm->vni[0] == 0xff && vm->vni[1] == 0xff && vm->vni[2] == 0xff);
	CHECK_EXPR(vm->rsvd1 == 0);

	/* DIFFERENCE: the seed's inner eth has dst=a0:00:00:00:00:01/ff..ff
	 * and type=0x0800/0xffff. Our decap megaflow does not match the inner
	 * MAC, and the IPv4 ethertype is not an ETH match the ice FDIR takes:
	 * inner eth spec/mask empty. */
	CHECK_EXPR(r.items[4].type == RTE_FLOW_ITEM_TYPE_ETH);
	CHECK_EXPR(r.items[4].spec == NULL && r.items[4].mask == NULL);

	CHECK_EXPR(r.items[5].type == RTE_FLOW_ITEM_TYPE_IPV4);
	const struct rte_flow_item_ipv4 *ins = r.items[5].spec,
					*inm = r.items[5].mask;
	/* seed: dst=192.1.0.1/255.255.255.255, masks tos/ttl/proto/src 0:
	 * equal (spec src=192.1.0.200, ttl=40, proto=0x11 are unmasked). */
	CHECK_EXPR(ins->hdr.dst_addr == IP4(192, 1, 0, 1));
	{
		struct rte_flow_item_ipv4 want = { 0 };
		want.hdr.dst_addr = RTE_BE32(0xffffffff);
		CHECK_EXPR(memcmp(inm, &want, sizeof want) == 0);
	}
	CHECK_EXPR(r.items[6].type == RTE_FLOW_ITEM_TYPE_END);

	/* seed: MARK id=0 (+ RSS queue_num=4, see rule 1) */
	CHECK_EXPR(r.actions[0].type == RTE_FLOW_ACTION_TYPE_MARK);
	CHECK_EXPR(((const struct rte_flow_action_mark *)r.actions[0].conf)->id
	      == 0);
	CHECK_EXPR(r.actions[1].type == RTE_FLOW_ACTION_TYPE_END);
	CHECK_EXPR(ice_fdir_rule_add_rss(&r, 4, 4, 8, &why) == 0);
	CHECK_EXPR(((const struct rte_flow_action_rss *)r.actions[1].conf)
	      ->queue_num == 4);
	CHECK_EXPR(((const struct rte_flow_action_rss *)r.actions[1].conf)
	      ->queue[0] == 4);
}

static void
expect_reject(const struct flow_key *ok, const struct flow_key *om,
	      const struct flow_key *ik, const struct flow_key *im,
	      uint32_t mark, const char *needle, int line)
{
	struct offload_rule r;
	const char *why = NULL;
	int ret = ice_fdir_rule_build(ok, om, ik, im, mark, &TGT_G2,
				      &r, &why);
	bool ok_ = ret == -ENOTSUP && why && strstr(why, needle);
	CHECK(ok_, "line %d: ret %d why '%s', want '%s'", line, ret,
	      why ? why : "(null)", needle);
}
#define REJECT(ok, om, ik, im, mark, needle) \
	expect_reject(ok, om, ik, im, mark, needle, __LINE__)

static void
test_rejections(void)
{
	struct flow_key ok, om, ik, im, k2, m2;
	rte_be32_t vtep = IP4(172, 1, 0, 100);

	/* prefixes */
	outer_flow(&ok, &om, vtep, 4789);
	om.nw_dst = RTE_BE32(0xffffff00);
	ok.nw_dst &= om.nw_dst;
	REJECT(&ok, &om, NULL, NULL, 1, "nw_dst prefix");

	outer_flow(&ok, &om, vtep, 4789);
	inner_flow(&ik, &im, 1001, IP4(192, 1, 0, 0));
	im.nw_dst = RTE_BE32(0xffffff00);
	REJECT(&ok, &om, &ik, &im, 1, "nw_dst prefix");

	outer_flow(&ok, &om, vtep, 4789);
	om.tp_dst = RTE_BE16(0xff00);
	REJECT(&ok, &om, NULL, NULL, 1, "L4 ports fully or not at all");

	/* non-canonical masks */
	outer_flow(&ok, &om, vtep, 4789);
	flow_mask_set_field(&om, MFF_NW_SRC);	/* full, but not ours */
	REJECT(&ok, &om, NULL, NULL, 1, "outer mask not canonical");

	outer_flow(&ok, &om, vtep, 4789);
	flow_mask_set_field(&om, MFF_DL_SRC);
	REJECT(&ok, &om, NULL, NULL, 1, "outer mask not canonical");

	outer_flow(&ok, &om, vtep, 4789);
	inner_flow(&ik, &im, 1001, IP4(192, 1, 0, 1));
	flow_mask_set_field(&im, MFF_TP_DST);
	REJECT(&ok, &om, &ik, &im, 1,
	       "inner mask not canonical (vni + inner dst /32)");

	inner_flow(&ik, &im, 1001, IP4(192, 1, 0, 1));
	flow_mask_set_field(&im, MFF_TUN_SRC);
	REJECT(&ok, &om, &ik, &im, 1, "inner mask not canonical");

	inner_flow(&ik, &im, 1001, IP4(192, 1, 0, 1));
	im.tun_id = 0;				/* no VNI in the mask */
	REJECT(&ok, &om, &ik, &im, 1, "inner mask not canonical");

	inner_flow(&ik, &im, 1001, IP4(192, 1, 0, 1));
	im.nw_dst = 0;				/* VNI only */
	REJECT(&ok, &om, &ik, &im, 1, "inner mask not canonical");

	/* mark 0xFFFFFFFF */
	inner_flow(&ik, &im, 1001, IP4(192, 1, 0, 1));
	REJECT(&ok, &om, &ik, &im, 0xFFFFFFFFu, "mark 0xFFFFFFFF");
	REJECT(&ok, &om, NULL, NULL, 0xFFFFFFFFu, "mark 0xFFFFFFFF");

	/* non-IPv4 inner */
	inner_flow(&ik, &im, 1001, IP4(192, 1, 0, 1));
	ik.dl_type = RTE_BE16(RTE_ETHER_TYPE_IPV6);
	ik.nw_dst = 0;
	REJECT(&ok, &om, &ik, &im, 1, "inner not IPv4");
	inner_flow(&ik, &im, 1001, IP4(192, 1, 0, 1));
	ik.dl_type = RTE_BE16(RTE_ETHER_TYPE_ARP);
	REJECT(&ok, &om, &ik, &im, 1, "inner not IPv4");

	/* outer VLAN */
	outer_flow(&ok, &om, vtep, 4789);
	flow_mask_set_field(&om, MFF_VLAN_TCI);
	ok.vlan_tci = RTE_BE16(FLOW_VLAN_CFI | 100);
	REJECT(&ok, &om, NULL, NULL, 1, "outer VLAN");
	inner_flow(&ik, &im, 1001, IP4(192, 1, 0, 1));
	REJECT(&ok, &om, &ik, &im, 1, "outer VLAN");

	/* outer not IPv4 / not UDP / fragment / not 4789 for VXLAN */
	outer_flow(&ok, &om, vtep, 4789);
	ok.dl_type = RTE_BE16(RTE_ETHER_TYPE_IPV6);
	REJECT(&ok, &om, NULL, NULL, 1, "outer not IPv4");
	/* a VXLAN flow over an IPv6 underlay: the design's reason, whole */
	outer_flow(&ok, &om, vtep, 4789);
	ok.dl_type = RTE_BE16(RTE_ETHER_TYPE_IPV6);
	ok.nw_dst = 0;
	inner_flow(&ik, &im, 1001, IP4(192, 1, 0, 1));
	{
		struct offload_rule r6;
		const char *why6 = NULL;
		CHECK(ice_fdir_rule_build(&ok, &om, &ik, &im, 1, &TGT_G2, &r6,
					  &why6) == -ENOTSUP && why6 &&
		      !strcmp(why6, "outer IPv6: ice FDIR has no "
			      "eth/ipv6/udp/vxlan pattern (22.11 to 26.07)"),
		      "IPv6 underlay: '%s'", why6 ? why6 : "(null)");
		CHECK(ice_fdir_rule_build(&ok, &om, &ik, &im, 1, &TGT_NOTUN,
					  &r6, &why6) == -ENOTSUP && why6 &&
		      !strcmp(why6, ICE_FDIR_WHY_OUTER_IPV6),
		      "IPv6 underlay, no tunnel port: '%s'", why6);
		/* what the manager records for offload/show, for an ice and
		 * a model port alike, and counts (not_canonical) */
		struct offload_engine_error ee = { 0 };
		CHECK(offload_engine_build_refusal(&TGT_G2, &ok, &om, &ik, &im,
						   &ee) ==
		      OFFLOAD_FAIL_NOT_CANONICAL && ee.err == ENOTSUP &&
		      !strcmp(ee.msg, ICE_FDIR_WHY_OUTER_IPV6),
		      "refusal %d '%s'", ee.err, ee.msg);
		CHECK(offload_engine_build_refusal(&TGT_NOTUN, &ok, &om, &ik,
						   &im, &ee) ==
		      OFFLOAD_FAIL_NOT_CANONICAL &&
		      !strcmp(ee.msg, ICE_FDIR_WHY_OUTER_IPV6),
		      "refusal without a tunnel port: '%s'", ee.msg);
	}
	outer_flow(&ok, &om, vtep, 4789);
	ok.nw_proto = IPPROTO_TCP;
	REJECT(&ok, &om, NULL, NULL, 1, "outer not UDP");
	outer_flow(&ok, &om, vtep, 4789);
	ok.nw_frag = FLOW_NW_FRAG_ANY;
	REJECT(&ok, &om, NULL, NULL, 1, "fragment");
	outer_flow(&ok, &om, vtep, 8472);
	REJECT(&ok, &om, &ik, &im, 1, "registered VXLAN port");

	/* the outer-only flow of another UDP port is fine */
	outer_flow(&k2, &m2, vtep, 8472);
	struct offload_rule r;
	const char *why = NULL;
	CHECK_EXPR(ice_fdir_rule_build(&k2, &m2, NULL, NULL, 7, &TGT_G2,
				  &r, &why) == 0);
	CHECK_EXPR(((const struct rte_flow_item_udp *)r.items[2].spec)
	      ->hdr.dst_port == RTE_BE16(8472));
	/* NULL arguments */
	CHECK_EXPR(ice_fdir_rule_build(NULL, &m2, NULL, NULL, 7,
				  &TGT_G2, &r, &why) == -EINVAL);
	CHECK_EXPR(ice_fdir_rule_build(&k2, &m2, &ik, NULL, 7,
				  &TGT_G2, &r, &why) == -EINVAL);
}

static void
test_rss_regions(void)
{
	struct flow_key ok, om;
	struct offload_rule r;
	const char *why;

	outer_flow(&ok, &om, IP4(172, 1, 0, 100), 8472);
	CHECK_EXPR(ice_fdir_rule_build(&ok, &om, NULL, NULL, 5, &TGT_G2,
				  &r, &why) == 0);
	why = NULL;
	CHECK_EXPR(ice_fdir_rule_add_rss(&r, 0, 3, 16, &why) == -EINVAL);
	CHECK_EXPR(why && strstr(why, "power of two"));
	why = NULL;
	CHECK_EXPR(ice_fdir_rule_add_rss(&r, 0, 256, 512, &why) == -EINVAL);
	CHECK_EXPR(why && strstr(why, "2..128"));
	why = NULL;
	CHECK_EXPR(ice_fdir_rule_add_rss(&r, 0, 0, 16, &why) == -EINVAL);
	CHECK_EXPR(why && strstr(why, "2..128"));
	CHECK_EXPR(ice_fdir_rule_add_rss(&r, 0, 1, 16, &why) == -EINVAL);
	CHECK_EXPR(ice_fdir_rule_add_rss(&r, 12, 8, 16, &why) == -EINVAL);
	CHECK_EXPR(why && strstr(why, "rx queues"));
	/* rejected calls leave the rule MARK-only */
	CHECK_EXPR(r.rss.queue_num == 0);
	CHECK_EXPR(r.actions[0].type == RTE_FLOW_ACTION_TYPE_MARK);
	CHECK_EXPR(r.actions[1].type == RTE_FLOW_ACTION_TYPE_END);

	CHECK_EXPR(ice_fdir_rule_add_rss(&r, 0, 128, 128, &why) == 0);
	CHECK_EXPR(r.actions[1].type == RTE_FLOW_ACTION_TYPE_RSS);
	CHECK_EXPR(r.rss_queues[127] == 127);
	CHECK_EXPR(r.actions[2].type == RTE_FLOW_ACTION_TYPE_END);
	/* one destination action only */
	CHECK_EXPR(ice_fdir_rule_add_rss(&r, 0, 2, 128, &why) == -EINVAL);
}

static void
test_groups(void)
{
	struct flow_key ok, om, ik, im;
	struct offload_rule r;
	const char *why;

	outer_flow(&ok, &om, IP4(10, 0, 0, 1), 4789);
	inner_flow(&ik, &im, 0xffffff, IP4(10, 1, 0, 1));

	CHECK_EXPR(ice_fdir_rule_build(&ok, &om, &ik, &im, 9, &TGT_G0,
				  &r, &why) == 0);
	check_attr(&r, 0);
	CHECK_EXPR(ice_fdir_rule_build(&ok, &om, &ik, &im, 9, &TGT_G2,
				  &r, &why) == 0);
	check_attr(&r, 2);
	CHECK_EXPR(((const struct rte_flow_item_vxlan *)r.items[3].spec)
	      ->hdr.vx_vni == RTE_BE32(0xffffff00));
	/* no tunnel port: ice would validate and fail every create */
	CHECK_EXPR(ice_fdir_rule_build(&ok, &om, &ik, &im, 9, &TGT_NOTUN,
				  &r, &why) == -ENOTSUP);
	CHECK_EXPR(why && strstr(why, "no VXLAN tunnel port"));
	outer_flow(&ok, &om, IP4(10, 0, 0, 1), 8472);
	CHECK_EXPR(ice_fdir_rule_build(&ok, &om, NULL, NULL, 9, &TGT_G0,
				  &r, &why) == 0);
	check_attr(&r, 0);
	CHECK_EXPR(ice_fdir_rule_build(&ok, &om, NULL, NULL, 9, &TGT_G2,
				  &r, &why) == 0);
	check_attr(&r, 2);
	CHECK_EXPR(((const struct rte_flow_action_mark *)r.actions[0].conf)->id
	      == 9);
	/* 0xFFFFFFFE is an ordinary mark */
	CHECK_EXPR(ice_fdir_rule_build(&ok, &om, NULL, NULL, 0xFFFFFFFEu,
				  &TGT_G2, &r, &why) == 0);
}

int
main(void)
{
	test_seed_outer();
	test_seed_vxlan();
	test_rejections();
	test_rss_regions();
	test_groups();
	return unit_test_report();
}
