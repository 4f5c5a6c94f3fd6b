/* SPDX-License-Identifier: BSD-3-Clause
 * The software E810 Flow Director (drivers/offload/fdir_model.c): the
 * accept/reject table, capacity (guaranteed share + shared pool), one input
 * set per flow type, duplicates, marking of crafted packets, and inserts
 * and deletes from one thread while another marks (RCU).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_malloc.h>
#include <rte_rcu_qsbr.h>
#include <rte_udp.h>
#include "fdir_model.h"
#include "ice_fdir_msgs.h"
#include "unit_test.h"

#include "fdir_model_test.h"

static struct fdir_model *
model(uint32_t guar, uint32_t pool_size, struct fdir_model_pool **pp,
      struct rte_rcu_qsbr *q)
{
	struct fdir_model_limits lim = { .guar = guar, .n_rxq = 8 };

	if (pp) {
		*pp = fdir_model_pool_create(pool_size);
		lim.pool = *pp;
	}
	struct fdir_model *m = fdir_model_create(UINT16_MAX, &lim, q);

	/* as offload_init() does: VXLAN rules need it */
	CHECK(m && fdir_model_udp_tunnel_port_add(m, 4789) == 0, "model");
	return m;
}

/* ---- tests ---- */

static void
expect_reject(struct fdir_model *m, struct offload_rule *r, int code,
	      const char *what)
{
	struct rte_flow_error e = { 0 };
	int v = fdir_model_validate(m, r, &e);
	struct fdir_model_rule *h = fdir_model_create_rule(m, r, &e);

	if (code == EINVAL)
		CHECK(v == -EINVAL, "%s: validate %d", what, v);
	CHECK(!h && rte_errno == code, "%s: create %p errno %d want %d (%s)",
	      what, (void *)h, rte_errno, code, e.message ? e.message : "");
	if (h)
		fdir_model_destroy_rule(m, h, NULL);
}

static void
expect_accept(struct fdir_model *m, struct offload_rule *r, const char *what)
{
	struct rte_flow_error e = { 0 };
	int v = fdir_model_validate(m, r, &e);

	CHECK(v == 0, "%s: validate %d (%s)", what, v,
	      e.message ? e.message : "");
	struct fdir_model_rule *h = fdir_model_create_rule(m, r, &e);

	CHECK(h, "%s: create failed errno %d (%s)", what, rte_errno,
	      e.message ? e.message : "");
	if (h)
		CHECK(fdir_model_destroy_rule(m, h, NULL) == 0, "%s: destroy",
		      what);
}

static void
test_whitelist(void)
{
	struct fdir_model *m = model(16, 0, NULL, NULL);
	struct offload_rule r;
	struct rte_flow_item_eth eth_m = { 0 }, eth_s = { 0 };

	rule_udp(&r, VTEP, 4789, 1);
	expect_accept(m, &r, "udp");
	rule_vxlan(&r, 1001, IP(192, 1, 0, 1), 2);
	expect_accept(m, &r, "vxlan");
	rule_udp(&r, VTEP, 4789, 1);
	add_rss(&r, 0, 4);
	expect_accept(m, &r, "udp+rss4");
	rule_vxlan(&r, 1001, IP(192, 1, 0, 1), 2);
	add_rss(&r, 4, 4);
	expect_accept(m, &r, "vxlan+rss 4..7");
	rule_udp(&r, VTEP, 4789, 0);
	expect_accept(m, &r, "mark 0");
	/* src+dst masks: ice accepts, so do we */
	rule_udp(&r, VTEP, 4789, 1);
	r.ipv4_mask.hdr.src_addr = UINT32_MAX;
	r.udp_mask.hdr.src_port = UINT16_MAX;
	expect_accept(m, &r, "udp 4-tuple");

	/* attr */
	rule_udp(&r, VTEP, 4789, 1);
	r.attr.egress = 1;
	expect_reject(m, &r, EINVAL, "egress");
	rule_udp(&r, VTEP, 4789, 1);
	r.attr.ingress = 0;
	expect_reject(m, &r, EINVAL, "no ingress");
	rule_udp(&r, VTEP, 4789, 1);
	r.attr.transfer = 1;
	expect_reject(m, &r, EINVAL, "transfer");
	rule_udp(&r, VTEP, 4789, 1);
	r.attr.priority = 1;
	expect_reject(m, &r, EINVAL, "priority");
	rule_udp(&r, VTEP, 4789, 1);
	r.attr.group = rule_group + 1;
	expect_reject(m, &r, EINVAL, "group");

	/* pattern */
	rule_udp(&r, VTEP, 4789, 1);
	r.ipv4_mask.hdr.dst_addr = RTE_BE32(0xffffff00);
	expect_reject(m, &r, EINVAL, "ipv4 dst prefix");
	rule_udp(&r, VTEP, 4789, 1);
	r.ipv4_mask.hdr.src_addr = RTE_BE32(0xffff0000);
	expect_reject(m, &r, EINVAL, "ipv4 src prefix");
	rule_udp(&r, VTEP, 4789, 1);
	r.ipv4_mask.hdr.time_to_live = 0xff;
	expect_reject(m, &r, EINVAL, "ipv4 ttl");
	rule_udp(&r, VTEP, 4789, 1);
	r.ipv4_mask.hdr.version_ihl = 0xff;
	expect_reject(m, &r, EINVAL, "ipv4 ihl");
	rule_udp(&r, VTEP, 4789, 1);
	r.udp_mask.hdr.dst_port = RTE_BE16(0xff00);
	expect_reject(m, &r, EINVAL, "udp port range");
	rule_udp(&r, VTEP, 4789, 1);
	r.udp_mask.hdr.dgram_len = 0xffff;
	expect_reject(m, &r, EINVAL, "udp len");
	rule_udp(&r, VTEP, 4789, 1);
	eth_s.hdr.ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV4);
	eth_m.hdr.ether_type = RTE_BE16(0xffff);
	r.items[0].spec = &eth_s;
	r.items[0].mask = &eth_m;
	expect_reject(m, &r, EINVAL, "eth type ipv4");
	rule_udp(&r, VTEP, 4789, 1);
	memset(&eth_m, 0, sizeof eth_m);
	eth_m.hdr.dst_addr.addr_bytes[0] = 0xff;
	r.items[0].spec = &eth_s;
	r.items[0].mask = &eth_m;
	expect_reject(m, &r, EINVAL, "eth dmac");
	rule_udp(&r, VTEP, 4789, 1);
	r.items[1].last = &r.ipv4_spec;
	expect_reject(m, &r, EINVAL, "range");
	rule_udp(&r, VTEP, 4789, 1);
	r.ipv4_mask.hdr.dst_addr = 0;
	r.udp_mask.hdr.dst_port = 0;
	expect_reject(m, &r, EINVAL, "empty input set");
	rule_udp(&r, VTEP, 4789, 1);
	r.items[2].type = RTE_FLOW_ITEM_TYPE_TCP;
	expect_reject(m, &r, EINVAL, "tcp");
	/* VXLAN over an IPv6 underlay: ice's "Unsupported pattern", at
	 * validate and at create (create's refusal counted as a pattern
	 * one; validate counts nothing) */
	{
		struct rte_flow_item_ipv6 o6_s = { 0 }, o6_m = { 0 };
		struct rte_flow_error e = { 0 };
		struct fdir_model_stats st0, st1;

		fdir_model_get_stats(m, &st0);

		memset(o6_m.hdr.dst_addr, 0xff, sizeof o6_m.hdr.dst_addr);
		o6_s.hdr.dst_addr[0] = 0x20;
		o6_s.hdr.dst_addr[15] = 1;
		rule_vxlan(&r, 1001, IP(192, 1, 0, 1), 2);
		r.items[1].type = RTE_FLOW_ITEM_TYPE_IPV6;
		r.items[1].spec = &o6_s;
		r.items[1].mask = &o6_m;
		expect_reject(m, &r, EINVAL, "vxlan over ipv6");
		CHECK(fdir_model_validate(m, &r, &e) == -EINVAL &&
		      e.message && !strcmp(e.message, "Unsupported pattern") &&
		      e.type == RTE_FLOW_ERROR_TYPE_ITEM,
		      "vxlan over ipv6: '%s'", e.message ? e.message : "");
		fdir_model_get_stats(m, &st1);
		CHECK(st1.rejected[FDIR_REJ_PATTERN] ==
		      st0.rejected[FDIR_REJ_PATTERN] + 1,
		      "vxlan over ipv6: create not counted as a pattern refusal");
	}
	rule_udp(&r, VTEP, 4789, 1);
	r.items[2].type = RTE_FLOW_ITEM_TYPE_END;
	expect_reject(m, &r, EINVAL, "eth/ipv4 only");
	rule_vxlan(&r, 1001, IP(192, 1, 0, 1), 2);
	r.vxlan_mask.hdr.vx_flags = RTE_BE32(0xff000000);
	expect_reject(m, &r, EINVAL, "vxlan flags");
	rule_vxlan(&r, 1001, IP(192, 1, 0, 1), 2);
	r.vxlan_mask.hdr.vx_vni = RTE_BE32(0xffff0000);
	expect_reject(m, &r, EINVAL, "vni partial");
	rule_vxlan(&r, 1001, IP(192, 1, 0, 1), 2);
	r.udp_spec.hdr.dst_port = RTE_BE16(4789);
	r.udp_mask.hdr.dst_port = UINT16_MAX;
	set_item(&r.items[2], RTE_FLOW_ITEM_TYPE_UDP, &r.udp_spec,
		 &r.udp_mask);
	expect_reject(m, &r, EINVAL, "vxlan with outer udp dst");
	rule_vxlan(&r, 1001, IP(192, 1, 0, 1), 2);
	r.items[4] = r.items[5];
	r.items[5].type = RTE_FLOW_ITEM_TYPE_END;
	expect_reject(m, &r, EINVAL, "vxlan/ipv4 without inner eth");
	rule_vxlan(&r, 1001, IP(192, 1, 0, 1), 2);
	r.type = OFFLOAD_FT_IPV4_UDP;
	expect_reject(m, &r, EINVAL, "type/pattern mismatch");

	/* actions */
	rule_udp(&r, VTEP, 4789, UINT32_MAX);
	expect_reject(m, &r, EINVAL, "mark 0xFFFFFFFF");
	rule_udp(&r, VTEP, 4789, 1);
	r.actions[0].type = RTE_FLOW_ACTION_TYPE_END;
	expect_reject(m, &r, EINVAL, "no actions");
	rule_udp(&r, VTEP, 4789, 1);
	r.actions[1] = r.actions[0];
	r.actions[2].type = RTE_FLOW_ACTION_TYPE_END;
	expect_reject(m, &r, EINVAL, "two marks");
	rule_udp(&r, VTEP, 4789, 1);
	r.actions[0].type = RTE_FLOW_ACTION_TYPE_DROP;
	expect_reject(m, &r, EINVAL, "drop");
	rule_udp(&r, VTEP, 4789, 1);
	add_rss(&r, 0, 1);
	expect_reject(m, &r, EINVAL, "rss 1 queue");
	rule_udp(&r, VTEP, 4789, 1);
	add_rss(&r, 0, 3);
	expect_reject(m, &r, EINVAL, "rss 3 queues");
	rule_udp(&r, VTEP, 4789, 1);
	add_rss(&r, 6, 4);
	expect_reject(m, &r, EINVAL, "rss past nb_rx_queues");
	rule_udp(&r, VTEP, 4789, 1);
	add_rss(&r, 0, 4);
	r.rss_queues[2] = 5;
	expect_reject(m, &r, EINVAL, "rss discontiguous");
	rule_udp(&r, VTEP, 4789, 1);
	add_rss(&r, 0, 2);
	r.actions[2] = r.actions[1];
	r.actions[3].type = RTE_FLOW_ACTION_TYPE_END;
	expect_reject(m, &r, EINVAL, "two rss");

	struct fdir_model_stats st;

	fdir_model_get_stats(m, &st);
	CHECK(st.installed == 0 && st.guar_used == 0, "all destroyed: %u %u",
	      st.installed, st.guar_used);
	CHECK(st.rejected[FDIR_REJ_ATTR] == 4 &&
	      st.rejected[FDIR_REJ_GROUP] == 1, "attr rejects %lu group %lu",
	      (unsigned long)st.rejected[FDIR_REJ_ATTR],
	      (unsigned long)st.rejected[FDIR_REJ_GROUP]);
	fdir_model_free(m);
}

static void
test_capacity(void)
{
	/* two ports of one card: 4 guaranteed each, 6 shared */
	struct fdir_model_pool *pool6;
	struct fdir_model *a = model(4, 6, &pool6, NULL);
	struct fdir_model_limits lim = { .guar = 4, .n_rxq = 8,
					 .pool = pool6 };
	struct fdir_model *b = fdir_model_create(UINT16_MAX, &lim, NULL);

	CHECK(b && fdir_model_udp_tunnel_port_add(b, 4789) == 0, "b");
	struct fdir_model_rule *ha[16] = { 0 }, *hb[16] = { 0 };
	struct offload_rule r;
	struct fdir_model_stats st;
	unsigned na = 0, nb = 0;

	for (unsigned i = 0; i < 8; i++) {	/* a: 4 guar + 4 pool */
		rule_udp(&r, IP(10, 0, 0, i + 1), 4789, i + 1);
		ha[na] = fdir_model_create_rule(a, &r, NULL);
		CHECK(ha[na], "a rule %u", i);
		na++;
	}
	for (unsigned i = 0; i < 6; i++) {	/* b: 4 guar + 2 pool */
		rule_udp(&r, IP(10, 1, 0, i + 1), 4789, i + 1);
		hb[nb] = fdir_model_create_rule(b, &r, NULL);
		CHECK(hb[nb], "b rule %u", i);
		nb++;
	}
	CHECK(fdir_model_pool_used(pool6) == 6, "pool used %u",
	      fdir_model_pool_used(pool6));
	rule_udp(&r, IP(10, 1, 0, 99), 4789, 99);
	struct rte_flow_error fe = { 0 };

	CHECK(!fdir_model_create_rule(b, &r, &fe) && rte_errno == EINVAL &&
	      fe.message && !strcmp(fe.message, ICE_FDIR_MSG_NOSPC),
	      "b full: errno %d (%s)", rte_errno, fe.message);
	rule_udp(&r, IP(10, 0, 0, 99), 4789, 99);
	CHECK(!fdir_model_create_rule(a, &r, NULL) && rte_errno == EINVAL,
	      "a full: errno %d", rte_errno);
	fdir_model_get_stats(a, &st);
	CHECK(st.installed == 8 && st.guar_used == 4 && st.pool_used == 4 &&
	      st.rejected[FDIR_REJ_NOSPC] == 1, "a stats %u %u %u",
	      st.installed, st.guar_used, st.pool_used);

	/* a frees a pool rule (the last made): b can take the slot */
	CHECK(fdir_model_destroy_rule(a, ha[7], NULL) == 0, "destroy");
	ha[7] = NULL;
	rule_udp(&r, IP(10, 1, 0, 99), 4789, 99);
	hb[nb] = fdir_model_create_rule(b, &r, NULL);
	CHECK(hb[nb], "b after a freed: errno %d", rte_errno);
	nb++;
	/* a frees a guaranteed rule: a gets a guaranteed slot again */
	CHECK(fdir_model_destroy_rule(a, ha[0], NULL) == 0, "destroy");
	ha[0] = NULL;
	rule_udp(&r, IP(10, 0, 0, 98), 4789, 98);
	ha[0] = fdir_model_create_rule(a, &r, NULL);
	CHECK(ha[0], "a guaranteed again: errno %d", rte_errno);
	fdir_model_get_stats(a, &st);
	CHECK(st.guar_used == 4 && st.pool_used == 3, "a %u %u",
	      st.guar_used, st.pool_used);

	/* freeing the model returns its pool share */
	fdir_model_free(a);
	CHECK(fdir_model_pool_used(pool6) == 3, "pool after free %u",
	      fdir_model_pool_used(pool6));
	fdir_model_free(b);
	CHECK(fdir_model_pool_used(pool6) == 0, "pool empty");
	fdir_model_pool_free(pool6);

	/* the default private pool: 16384 - n_ports * guar */
	struct fdir_model_limits l2 = { .guar = FDIR_E810_GUAR_4PORT,
					.n_ports = 4, .n_rxq = 4 };
	struct fdir_model *c = fdir_model_create(UINT16_MAX, &l2, NULL);

	fdir_model_get_stats(c, &st);
	CHECK(st.guar == 1024 && st.pool_size == 16384 - 4096,
	      "default pool %u %u", st.guar, st.pool_size);
	fdir_model_free(c);
}

static void
test_inset_and_dup(void)
{
	struct fdir_model *m = model(64, 0, NULL, NULL);
	struct offload_rule r;
	struct rte_flow_error e;
	struct fdir_model_rule *h1, *h2, *h3;

	rule_udp(&r, VTEP, 4789, 1);
	h1 = fdir_model_create_rule(m, &r, &e);
	CHECK(h1, "first");
	rule_udp(&r, VTEP, 4789, 2);	/* same pattern, other mark */
	CHECK(!fdir_model_create_rule(m, &r, &e) && rte_errno == EEXIST &&
	      !strcmp(e.message, ICE_FDIR_MSG_EXISTS), "dup: %d", rte_errno);
	CHECK(fdir_model_validate(m, &r, &e) == 0,
	      "validate does not see duplicates");
	rule_udp(&r, VTEP, 4790, 2);
	h2 = fdir_model_create_rule(m, &r, &e);
	CHECK(h2, "same input set, other port");
	/* other input set (dst ip only) for the same flow type */
	rule_udp(&r, IP(1, 2, 3, 4), 0, 3);
	r.udp_mask.hdr.dst_port = 0;
	CHECK(!fdir_model_create_rule(m, &r, &e) && rte_errno == EINVAL &&
	      !strcmp(e.message, ICE_FDIR_MSG_PROFILE),
	      "input set conflict: %d", rte_errno);
	/* the other flow type has its own profile */
	rule_vxlan(&r, 5, IP(192, 1, 0, 1), 4);
	h3 = fdir_model_create_rule(m, &r, &e);
	CHECK(h3, "vxlan alongside");
	/* once the flow type is empty, its profile can change */
	fdir_model_destroy_rule(m, h1, NULL);
	fdir_model_destroy_rule(m, h2, NULL);
	rule_udp(&r, IP(1, 2, 3, 4), 0, 3);
	r.udp_mask.hdr.dst_port = 0;
	h1 = fdir_model_create_rule(m, &r, &e);
	CHECK(h1, "new input set on an empty flow type: %d", rte_errno);

	struct fdir_model_stats st;

	fdir_model_get_stats(m, &st);
	CHECK(st.rejected[FDIR_REJ_EXIST] == 1 &&
	      st.rejected[FDIR_REJ_INSET] == 1, "reasons %lu %lu",
	      (unsigned long)st.rejected[FDIR_REJ_EXIST],
	      (unsigned long)st.rejected[FDIR_REJ_INSET]);
	fdir_model_free(m);
}

static void
test_marking(void)
{
	struct fdir_model *m = model(64, 0, NULL, NULL);
	struct offload_rule r;
	struct fdir_model_rule *hv, *hu;

	/* the plain profile first: the VXLAN profile, programmed after it,
	 * owns the VXLAN packets with inner UDP (test_fdir_model_ice.c has
	 * the other order) */
	rule_udp(&r, IP(10, 9, 9, 9), 6000, 8);
	hu = fdir_model_create_rule(m, &r, NULL);
	rule_vxlan(&r, 1001, IP(192, 1, 0, 1), 7);
	add_rss(&r, 0, 2);
	hv = fdir_model_create_rule(m, &r, NULL);
	CHECK(hv && hu, "rules");

	struct pkt_spec vx = { .o_src = IP(172, 1, 0, 200), .o_dst = VTEP,
			       .sport = 34233, .dport = 4789, .vxlan = true,
			       .vni = 1001, .i_src = IP(192, 1, 0, 200),
			       .i_dst = IP(192, 1, 0, 1) };
	struct pkt_spec ud = { .o_src = IP(10, 0, 0, 1),
			       .o_dst = IP(10, 9, 9, 9), .sport = 1000,
			       .dport = 6000 };
	struct pkt_spec s;
	struct rte_mbuf *p[16];
	unsigned n = 0;

	p[n++] = mkpkt(&vx);			/* 0 match 7 */
	p[n++] = mkpkt(&ud);			/* 1 match 8 */
	s = vx; s.vni = 1002;
	p[n++] = mkpkt(&s);			/* 2 other VNI */
	s = vx; s.i_dst = IP(192, 1, 0, 2);
	p[n++] = mkpkt(&s);			/* 3 other inner dst */
	s = vx; s.o_dst = IP(172, 1, 0, 101);
	p[n++] = mkpkt(&s);			/* 4 other VTEP */
	s = ud; s.dport = 6001;
	p[n++] = mkpkt(&s);			/* 5 other port */
	s = vx; s.frag = true;
	p[n++] = mkpkt(&s);			/* 6 outer fragment */
	s = vx; s.vlan = true;
	p[n++] = mkpkt(&s);			/* 7 vlan tagged: match */
	s = ud; s.o_dst = VTEP; s.dport = 4789;
	p[n++] = mkpkt(&s);			/* 8 4789 but not VXLAN-able */
	s = vx; s.ihl = 6;
	p[n++] = mkpkt(&s);			/* 9 outer IPv4 options */
	s = vx; s.sport = 1;
	p[n++] = mkpkt(&s);			/* 10 other src port: match */
	for (unsigned i = 0; i < n; i++)
		CHECK(p[i], "alloc");
	fdir_model_rx_mark(m, 3, p, n);
	CHECK(is_marked(p[0], 7), "vxlan match");
	CHECK(is_marked(p[1], 8), "udp match");
	for (unsigned i = 2; i <= 8; i++)
		if (i != 7)
			CHECK(untouched(p[i]), "pkt %u must not be marked", i);
	/* the NIC parses over the tag: the mark path must check the outer
	 * shape itself (app/datapath/mark_path.c) */
	CHECK(is_marked(p[7], 7), "802.1Q-tagged vxlan match");
	CHECK(is_marked(p[9], 7), "options parsed over");
	CHECK(is_marked(p[10], 7), "src port is not in the input set");

	struct fdir_model_stats st;

	fdir_model_get_stats(m, &st);
	CHECK(st.pkts_marked == 5 && st.rss_misqueued == 4,
	      "marked %lu misqueued %lu", (unsigned long)st.pkts_marked,
	      (unsigned long)st.rss_misqueued);

	/* truncated copies of the matching packet: never marked, no
	 * out-of-bounds read (ASan) */
	uint32_t full = rte_pktmbuf_pkt_len(p[0]);

	for (uint32_t len = 0; len < 14 + 20 + 8 + 8 + 14 + 20; len++) {
		struct rte_mbuf *t = rte_pktmbuf_alloc(pool);

		if (!t)
			break;
		if (len)
			memcpy(rte_pktmbuf_append(t, len),
			       rte_pktmbuf_mtod(p[0], void *), len);
		fdir_model_rx_mark(m, 0, &t, 1);
		CHECK(untouched(t), "truncated to %u marked", len);
		rte_pktmbuf_free(t);
	}
	(void)full;

	/* destroy: marking stops at once */
	for (unsigned i = 0; i < n; i++)
		rte_pktmbuf_free(p[i]);
	fdir_model_destroy_rule(m, hv, NULL);
	p[0] = mkpkt(&vx);
	fdir_model_rx_mark(m, 0, p, 1);
	CHECK(untouched(p[0]), "destroyed rule still marks");
	rte_pktmbuf_free(p[0]);
	fdir_model_destroy_rule(m, hu, NULL);
	fdir_model_free(m);
}

/* ---- concurrency ---- */

static struct rte_rcu_qsbr *qsbr;
static struct fdir_model *cm;
static volatile bool stop;
static uint64_t reader_marked, reader_bad;

static void *
reader(void *arg)
{
	struct rte_mbuf **p = arg;

	rte_rcu_qsbr_thread_register(qsbr, 0);
	rte_rcu_qsbr_thread_online(qsbr, 0);
	while (!stop) {
		for (unsigned i = 0; i < 32; i++) {
			p[i]->ol_flags = 0;
			p[i]->hash.fdir.hi = 0;
		}
		fdir_model_rx_mark(cm, 0, p, 32);
		for (unsigned i = 0; i < 32; i++) {
			if (!(p[i]->ol_flags & RTE_MBUF_F_RX_FDIR_ID))
				continue;
			reader_marked++;
			/* rule i's mark is 1000 + inner dst's last byte */
			if (p[i]->hash.fdir.hi != 1000 + i)
				reader_bad++;
		}
		rte_rcu_qsbr_quiescent(qsbr, 0);
	}
	rte_rcu_qsbr_thread_offline(qsbr, 0);
	rte_rcu_qsbr_thread_unregister(qsbr, 0);
	return NULL;
}

static void
test_concurrent(void)
{
	size_t sz = rte_rcu_qsbr_get_memsize(1);
	struct rte_mbuf *p[32];
	struct fdir_model_rule *h[32] = { 0 };
	struct offload_rule r;
	pthread_t th;

	qsbr = rte_zmalloc("fdir_test_qsbr", sz, RTE_CACHE_LINE_SIZE);
	CHECK(qsbr && rte_rcu_qsbr_init(qsbr, 1) == 0, "qsbr");
	cm = model(16, 8, NULL, qsbr);
	for (unsigned i = 0; i < 32; i++) {
		struct pkt_spec s = { .o_src = IP(172, 1, 0, 200),
				      .o_dst = VTEP, .sport = 1000 + i,
				      .dport = 4789, .vxlan = true,
				      .vni = 1001, .i_src = IP(192, 1, 0, 200),
				      .i_dst = IP(192, 1, 0, i) };
		p[i] = mkpkt(&s);
	}
	stop = false;
	CHECK(pthread_create(&th, NULL, reader, p) == 0, "thread");
	unsigned ops = 0, full = 0;

	for (unsigned round = 0; round < 1000; round++) {
		unsigned i = (round * 7) % 32;

		if (h[i]) {
			CHECK(fdir_model_destroy_rule(cm, h[i], NULL) == 0,
			      "destroy");
			h[i] = NULL;
		} else {
			rule_vxlan(&r, 1001, IP(192, 1, 0, i), 1000 + i);
			h[i] = fdir_model_create_rule(cm, &r, NULL);
			if (!h[i]) {
				CHECK(rte_errno == EINVAL, "create %d",
				      rte_errno);
				full++;
			}
		}
		ops++;
	}
	usleep(10000);
	stop = true;
	pthread_join(th, NULL);
	CHECK(reader_bad == 0, "wrong marks seen: %lu",
	      (unsigned long)reader_bad);
	CHECK(reader_marked > 0, "reader saw no marks");
	printf("concurrent: %u ops (%u full), reader marked %lu\n", ops, full,
	       (unsigned long)reader_marked);
	for (unsigned i = 0; i < 32; i++)
		rte_pktmbuf_free(p[i]);
	fdir_model_free(cm);
	rte_free(qsbr);
}

int
main(int argc, char **argv)
{
	(void)argc, (void)argv;
	if (unit_test_eal_init("test_fdir_model", "128"))
		return 1;
	pool = rte_pktmbuf_pool_create("fdir_test", 1024, 0, 0,
				       RTE_MBUF_DEFAULT_BUF_SIZE,
				       SOCKET_ID_ANY);
	if (!pool) {
		printf("pool create failed\n0 passed, 1 failed\n");
		return 1;
	}
	test_whitelist();
	test_capacity();
	test_inset_and_dup();
	test_marking();
	test_concurrent();
	rte_mempool_free(pool);
	rte_eal_cleanup();
	return unit_test_report();
}
