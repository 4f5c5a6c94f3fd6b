/* SPDX-License-Identifier: BSD-3-Clause
 * The software Flow Director against the ice PMD, release by release
 * (fdir_model.h's profiles; the ice file:line of each behaviour is in
 * fdir_model.h and ice_fdir_msgs.h): the seed's two rules accepted or
 * refused per attr.group, overlapping inner destinations across VNIs and
 * VTEPs, the tunnel port (none until registered), a full table, ranges,
 * VLAN tags, and the plain UDP profile taking over VXLAN packets.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include "fdir_model.h"
#include "ice_fdir_msgs.h"
#include "ice_fdir_rule.h"
#include "seed_flows.h"
#include "unit_test.h"

#include "fdir_model_test.h"

static struct fdir_model *
model_of(enum fdir_model_profile p, uint32_t guar, bool tunnel)
{
	struct fdir_model_limits lim = { .profile = p, .guar = guar,
					 .n_rxq = 8 };
	static struct fdir_model_pool *empty;

	if (!empty)
		empty = fdir_model_pool_create(0);
	lim.pool = empty;
	struct fdir_model *m = fdir_model_create(UINT16_MAX, &lim, NULL);

	CHECK(m, "model %s", fdir_model_profile_name(p));
	if (m && tunnel)
		CHECK(fdir_model_udp_tunnel_port_add(m, 4789) == 0, "tnl");
	return m;
}

static bool
msg_is(const struct rte_flow_error *e, const char *want)
{
	return e->message && !strcmp(e->message, want);
}

/* validate and create; want NULL: both succeed, else both fail with
 * EINVAL and want */
static void
expect(struct fdir_model *m, const struct offload_rule *r, const char *want,
       const char *what)
{
	struct rte_flow_error e = { 0 };
	int v = fdir_model_validate(m, r, &e);

	if (!want)
		CHECK(v == 0, "%s: validate %d (%s)", what, v,
		      e.message ? e.message : "");
	else
		CHECK(v == -EINVAL && msg_is(&e, want),
		      "%s: validate %d (%s) want %s", what, v,
		      e.message ? e.message : "", want);
	memset(&e, 0, sizeof e);
	struct fdir_model_rule *h = fdir_model_create_rule(m, r, &e);

	if (!want)
		CHECK(h, "%s: create errno %d (%s)", what, rte_errno,
		      e.message ? e.message : "");
	else
		CHECK(!h && rte_errno == EINVAL && msg_is(&e, want),
		      "%s: create errno %d (%s) want %s", what, rte_errno,
		      e.message ? e.message : "", want);
	if (h)
		fdir_model_destroy_rule(m, h, NULL);
}

/* The seed's rules as the builder makes them for a target: the VXLAN one
 * (outer tnl_pop + inner megaflow) and the outer one alone, which the
 * builder makes only where 4789 is not a tunnel port. */
static void
seed_rules(uint32_t group, struct offload_rule *vx, struct offload_rule *pl)
{
	struct flow_key ok, om, ik, im;
	struct ice_fdir_target t = { .group = group, .tunnel_port = 4789 };
	const char *why = NULL;

	seed_outer_flow(&ok, &om, 1, VTEP, 4789);
	seed_inner_flow(&ik, &im, 2, 1001, IP(192, 1, 0, 1));
	CHECK(ice_fdir_rule_build(&ok, &om, &ik, &im, 5, &t, vx, &why) == 0,
	      "build vxlan: %s", why);
	t.tunnel_port = 0;
	CHECK(ice_fdir_rule_build(&ok, &om, NULL, NULL, 6, &t, pl, &why) == 0,
	      "build plain: %s", why);
}

static void
test_seed_per_release(void)
{
	/* [profile][group 0, group 2]: NULL = accepted */
	static const char *const want[FDIR_PROFILE_N][2] = {
		[FDIR_PROFILE_ICE_2211] = { NULL, ICE_FDIR_MSG_GROUP_2211 },
		[FDIR_PROFILE_ICE_2311_0] = { ICE_FDIR_MSG_SWITCH_ACTION,
					      NULL },
		[FDIR_PROFILE_ICE_2311_4] = { NULL, NULL },
		[FDIR_PROFILE_ICE_2607] = { NULL, ICE_FDIR_MSG_GROUP_2607 },
	};
	struct offload_rule vx, pl;

	for (int p = 0; p < FDIR_PROFILE_N; p++) {
		struct fdir_model *m = model_of(p, 16, true);
		struct fdir_model_stats st;
		char what[64];

		for (int g = 0; g < 2; g++) {
			seed_rules(g * 2, &vx, &pl);
			snprintf(what, sizeof what, "%s group %d vxlan",
				 fdir_model_profile_name(p), g * 2);
			expect(m, &vx, want[p][g], what);
			snprintf(what, sizeof what, "%s group %d plain",
				 fdir_model_profile_name(p), g * 2);
			expect(m, &pl, want[p][g], what);
		}
		unsigned refused = 2 * ((want[p][0] != NULL) +
					(want[p][1] != NULL));

		fdir_model_get_stats(m, &st);
		CHECK(st.rejected[FDIR_REJ_GROUP] == refused &&
		      st.created == 4 - refused,
		      "%s: group rejects %lu created %lu",
		      fdir_model_profile_name(p),
		      (unsigned long)st.rejected[FDIR_REJ_GROUP],
		      (unsigned long)st.created);
		fdir_model_free(m);
	}
	/* 23.11.0: group 1 is ACL (off on a PF), 3+ has no parser;
	 * 23.11.4: any group is ignored */
	struct fdir_model *m = model_of(FDIR_PROFILE_ICE_2311_0, 16, true);

	seed_rules(1, &vx, &pl);
	expect(m, &vx, ICE_FDIR_MSG_ENGINE_OFF, "23.11.0 group 1");
	seed_rules(3, &vx, &pl);
	expect(m, &vx, ICE_FDIR_MSG_NO_PARSER, "23.11.0 group 3");
	fdir_model_free(m);
	m = model_of(FDIR_PROFILE_ICE_2311_4, 16, true);
	expect(m, &vx, NULL, "23.11.4 group 3");
	fdir_model_free(m);
}

/* ice's duplicate key has the inner IPv4, not the VTEP nor the VNI */
static void
test_overlap_across_vnis(void)
{
	for (int p = 0; p < FDIR_PROFILE_N; p++) {
		struct fdir_model *m = model_of(p, 16, true);
		struct offload_rule r;
		struct rte_flow_error e = { 0 };
		struct fdir_model_rule *h1, *h2, *h3;
		struct fdir_model_stats st;
		const char *n = fdir_model_profile_name(p);

		rule_group = p == FDIR_PROFILE_ICE_2311_0 ? 2 : 0;
		rule_vxlan(&r, 1001, IP(192, 1, 0, 1), 1);
		h1 = fdir_model_create_rule(m, &r, &e);
		CHECK(h1, "%s: tenant A", n);
		rule_vxlan(&r, 1002, IP(192, 1, 0, 1), 2);
		CHECK(fdir_model_validate(m, &r, &e) == 0,
		      "%s: validate never sees duplicates", n);
		CHECK(!fdir_model_create_rule(m, &r, &e) &&
		      rte_errno == EEXIST && msg_is(&e, ICE_FDIR_MSG_EXISTS),
		      "%s: same inner dst, other VNI: errno %d", n, rte_errno);
		rule_vxlan(&r, 1001, IP(192, 1, 0, 1), 3);
		r.ipv4_spec.hdr.dst_addr = IP(172, 1, 0, 101);
		CHECK(!fdir_model_create_rule(m, &r, &e) &&
		      rte_errno == EEXIST, "%s: other VTEP: errno %d", n,
		      rte_errno);
		rule_vxlan(&r, 1002, IP(192, 1, 0, 2), 4);
		h2 = fdir_model_create_rule(m, &r, &e);
		CHECK(h2, "%s: other inner dst", n);
		/* a plain rule is another flow type and tunnel type */
		rule_udp(&r, IP(192, 1, 0, 1), 6000, 5);
		h3 = fdir_model_create_rule(m, &r, &e);
		CHECK(h3, "%s: plain rule, same address", n);
		fdir_model_get_stats(m, &st);
		CHECK(st.rejected[FDIR_REJ_EXIST] == 2 && st.installed == 3,
		      "%s: exists %lu installed %u", n,
		      (unsigned long)st.rejected[FDIR_REJ_EXIST],
		      st.installed);
		/* the first one gone, the other tenant's rule goes in */
		fdir_model_destroy_rule(m, h1, NULL);
		rule_vxlan(&r, 1002, IP(192, 1, 0, 1), 2);
		CHECK(fdir_model_create_rule(m, &r, &e), "%s: after destroy",
		      n);
		fdir_model_free(m);
	}
	rule_group = 0;
}

static bool
marks(struct fdir_model *m, const struct pkt_spec *s, uint32_t mark)
{
	struct rte_mbuf *p = mkpkt(s);
	bool ok;

	if (!p)
		return false;
	fdir_model_rx_mark(m, 0, &p, 1);
	ok = mark ? is_marked(p, mark) : untouched(p);
	rte_pktmbuf_free(p);
	return ok;
}

static struct pkt_spec vx_pkt;	/* main() fills it */

/* No tunnel port until registered: VXLAN rules validate but fail to
 * create, 4789 is plain UDP; then the plain profile, programmed after the
 * VXLAN one, reads the inner UDP of VXLAN packets, and keeps them after
 * its last rule. */
static void
test_tunnel_port(void)
{
	struct fdir_model *m = model_of(FDIR_PROFILE_ICE_2211, 16, false);
	struct offload_rule r;
	struct rte_flow_error e = { 0 };
	struct fdir_model_rule *hp, *hv;
	struct fdir_model_stats st;
	struct pkt_spec s;

	rule_vxlan(&r, 1001, IP(192, 1, 0, 1), 7);
	CHECK(fdir_model_validate(m, &r, &e) == 0, "no port: validate");
	CHECK(!fdir_model_create_rule(m, &r, &e) && rte_errno == EINVAL &&
	      msg_is(&e, ICE_FDIR_MSG_NO_TUNNEL), "no port: create %d (%s)",
	      rte_errno, e.message ? e.message : "");
	fdir_model_get_stats(m, &st);
	CHECK(st.rejected[FDIR_REJ_NO_TUNNEL] == 1 && st.guar_used == 0,
	      "no-tunnel count %lu, used %u",
	      (unsigned long)st.rejected[FDIR_REJ_NO_TUNNEL], st.guar_used);

	/* 4789 is plain UDP: a plain rule on it matches VXLAN packets */
	rule_udp(&r, VTEP, 4789, 50);
	hp = fdir_model_create_rule(m, &r, &e);
	CHECK(hp, "plain on 4789 before registration");
	CHECK(marks(m, &vx_pkt, 50), "unregistered: 4789 is plain UDP");

	CHECK(fdir_model_udp_tunnel_port_add(m, 4789) == 0, "register");
	CHECK(fdir_model_udp_tunnel_port_add(m, 4789) == 0, "again: a ref");
	CHECK(fdir_model_udp_tunnel_port_add(m, 4790) == -13,
	      "no second VXLAN entry: ICE_ERR_OUT_OF_RANGE");
	CHECK(fdir_model_udp_tunnel_port_add(m, 0) == -EINVAL, "port 0");

	/* now a tunnel packet: the plain profile (programmed after the
	 * VXLAN one) reads its outer IPv4 and its INNER UDP ports */
	CHECK(marks(m, &vx_pkt, 0), "registered: inner dport 5000 != 4789");
	s = vx_pkt;
	s.i_dport = 4789;
	CHECK(marks(m, &s, 50), "plain rule matches inner udp dst 4789");

	/* the VXLAN rule now creates, in the VXLAN profile programmed
	 * before the plain one: inner-UDP packets stay the plain
	 * profile's, others are the VXLAN rule's */
	rule_vxlan(&r, 1001, IP(192, 1, 0, 1), 7);
	hv = fdir_model_create_rule(m, &r, &e);
	CHECK(hv, "vxlan after registration: %d", rte_errno);
	CHECK(marks(m, &vx_pkt, 0), "inner UDP: taken over by plain");
	s = vx_pkt;
	s.i_proto = IPPROTO_ICMP;
	CHECK(marks(m, &s, 7), "inner ICMP: vxlan rule");
	/* the plain profile stays without rules */
	fdir_model_destroy_rule(m, hp, NULL);
	CHECK(marks(m, &vx_pkt, 0), "empty plain profile still owns");
	fdir_model_free(m);

	/* 26.07 removes the profile with its last rule */
	m = model_of(FDIR_PROFILE_ICE_2607, 16, true);
	rule_vxlan(&r, 1001, IP(192, 1, 0, 1), 7);
	hv = fdir_model_create_rule(m, &r, &e);
	rule_udp(&r, VTEP, 6000, 52);
	hp = fdir_model_create_rule(m, &r, &e);
	CHECK(hv && hp, "26.07 rules");
	CHECK(marks(m, &vx_pkt, 0), "26.07: plain programmed last owns");
	fdir_model_destroy_rule(m, hp, NULL);
	CHECK(marks(m, &vx_pkt, 7), "26.07: profile gone with its rule");
	fdir_model_free(m);

	/* the other order: plain profile first, VXLAN programmed last */
	m = model_of(FDIR_PROFILE_ICE_2211, 16, true);
	rule_udp(&r, VTEP, 5000, 51);
	hp = fdir_model_create_rule(m, &r, &e);
	rule_vxlan(&r, 1001, IP(192, 1, 0, 1), 7);
	hv = fdir_model_create_rule(m, &r, &e);
	CHECK(hp && hv, "rules");
	CHECK(marks(m, &vx_pkt, 7), "vxlan profile programmed last owns");
	s = vx_pkt;
	s.dport = 5000;
	s.vxlan = false;
	CHECK(marks(m, &s, 51), "plain UDP to 5000 still plain");
	fdir_model_free(m);
}

static void
test_full_table(void)
{
	struct fdir_model *m = model_of(FDIR_PROFILE_ICE_2607, 2, true);
	struct offload_rule r;
	struct rte_flow_error e = { 0 };
	struct fdir_model_stats st;

	for (int i = 0; i < 2; i++) {
		rule_vxlan(&r, 1001, IP(192, 1, 0, i + 1), i + 1);
		CHECK(fdir_model_create_rule(m, &r, &e), "rule %d", i);
	}
	rule_vxlan(&r, 1001, IP(192, 1, 0, 9), 9);
	CHECK(fdir_model_validate(m, &r, &e) == 0, "full: validate");
	CHECK(!fdir_model_create_rule(m, &r, &e) && rte_errno == EINVAL &&
	      msg_is(&e, ICE_FDIR_MSG_NOSPC), "full: errno %d (%s)",
	      rte_errno, e.message ? e.message : "");
	fdir_model_get_stats(m, &st);
	CHECK(st.rejected[FDIR_REJ_NOSPC] == 1 &&
	      st.rejected[FDIR_REJ_NO_TUNNEL] == 0, "counted as no-space");
	fdir_model_free(m);
}

/* item->last: ignored up to 26.03, refused by 26.07 */
static void
test_ranges(void)
{
	for (int p = 0; p < FDIR_PROFILE_N; p++) {
		struct fdir_model *m = model_of(p, 16, true);
		struct offload_rule r;
		struct rte_flow_item_udp last = { 0 };
		struct rte_flow_error e = { 0 };
		struct fdir_model_rule *h;
		const char *n = fdir_model_profile_name(p);

		rule_group = p == FDIR_PROFILE_ICE_2311_0 ? 2 : 0;
		rule_udp(&r, VTEP, 6000, 1);
		last.hdr.dst_port = RTE_BE16(6010);
		r.items[2].last = &last;
		h = fdir_model_create_rule(m, &r, &e);
		if (p == FDIR_PROFILE_ICE_2607) {
			CHECK(!h && rte_errno == EINVAL &&
			      msg_is(&e, ICE_FDIR_MSG_RANGE), "%s: range", n);
		} else {
			/* accepted, the range ignored, ice's text left in
			 * error */
			CHECK(h && msg_is(&e, ICE_FDIR_MSG_RANGE),
			      "%s: range ignored", n);
			struct pkt_spec s = { .o_src = IP(10, 0, 0, 1),
					      .o_dst = VTEP, .sport = 1,
					      .dport = 6005 };

			CHECK(marks(m, &s, 0), "%s: 6005 not in the rule", n);
			s.dport = 6000;
			CHECK(marks(m, &s, 1), "%s: 6000 is", n);
		}
		/* an IPv4 last of zeros is ignored everywhere, one with an
		 * address is "Invalid IPv4 last." */
		struct rte_flow_item_ipv4 l4 = { 0 };

		rule_udp(&r, VTEP, 6001, 2);
		r.items[1].last = &l4;
		expect(m, &r, NULL, "ipv4 last zero");
		l4.hdr.dst_addr = IP(172, 1, 0, 200);
		expect(m, &r, "Invalid IPv4 last.", "ipv4 last address");
		if (h)
			fdir_model_destroy_rule(m, h, NULL);
		fdir_model_free(m);
	}
	rule_group = 0;
}

/* The NIC parses over VLAN tags: a tagged packet is marked as the
 * untagged one (the mark path must check the outer shape itself) */
static void
test_vlan(void)
{
	struct fdir_model *m = model_of(FDIR_PROFILE_ICE_2211, 16, true);
	struct offload_rule r;
	struct pkt_spec s = vx_pkt;

	rule_vxlan(&r, 1001, IP(192, 1, 0, 1), 7);
	CHECK(fdir_model_create_rule(m, &r, NULL), "rule");
	s.vlan = true;
	CHECK(marks(m, &s, 7), "802.1Q");
	s.qinq = 1;
	CHECK(marks(m, &s, 7), "802.1ad + 802.1Q");
	s.qinq = 2;
	CHECK(marks(m, &s, 0), "three tags: not parsed");
	fdir_model_free(m);
}

int
main(int argc, char **argv)
{
	(void)argc, (void)argv;
	if (unit_test_eal_init("test_fdir_model_ice", "64"))
		return 1;
	pool = rte_pktmbuf_pool_create("fdir_ice", 256, 0, 0,
				       RTE_MBUF_DEFAULT_BUF_SIZE,
				       SOCKET_ID_ANY);
	if (!pool) {
		printf("pool create failed\n0 passed, 1 failed\n");
		return 1;
	}
	vx_pkt = (struct pkt_spec){
		.o_src = IP(172, 1, 0, 200), .o_dst = VTEP, .sport = 40000,
		.dport = 4789, .vxlan = true, .vni = 1001,
		.i_src = IP(192, 1, 0, 200), .i_dst = IP(192, 1, 0, 1),
		.i_dport = 5000,
	};
	test_seed_per_release();
	test_overlap_across_vnis();
	test_tunnel_port();
	test_full_table();
	test_ranges();
	test_vlan();
	rte_mempool_free(pool);
	rte_eal_cleanup();
	return unit_test_report();
}
