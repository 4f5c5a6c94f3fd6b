/* SPDX-License-Identifier: BSD-3-Clause
 * The offload manager's failure reasons on the software Flow Director
 * model (drivers/offload/offload_mgr.c, offload_engine.c,
 * offload_mark_table.c):
 *  - collision: ice's duplicate key is the flow type, the inner fields and
 *    the tunnel type, not the VNI nor the outer IP, so two tenants' flows
 *    to the same inner address on two VNIs cannot both have a rule. The
 *    first is installed; the second fails at once as `collision` (no
 *    create on the NIC, no rate-limit token) and stays in software; once
 *    the first rule is gone, a new request for the second installs;
 *  - exists: an EEXIST from the NIC for a key we do not hold;
 *  - profile: the flow type's profile holds another input set (EINVAL
 *    "Profile configure failed.");
 *  - capacity: the table full; each with the engine's errno and message
 *    kept as the reason's last failure.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "offload_engine.h"
#include "offload_test.h"
#include "unit_test.h"

#define VNI_B 1002

static int
add_vni(struct offload_mgr *m, uint64_t id, uint32_t vni, rte_be32_t dst)
{
	struct flow_key ok, om, ik, im;

	outer_flow(&ok, &om);
	seed_inner_flow(&ik, &im, VXLAN_OFPORT, vni, dst);
	return offload_mgr_request_add(m, 0, id, &ok, &om, &ik, &im, 10);
}

/* The mark the model gives a VXLAN packet on vni to dst: 0 = none. */
static uint32_t
mark_vni(struct fdir_model *md, uint32_t vni, rte_be32_t dst)
{
	struct rte_mbuf *p = vxlan_pkt(dst);
	uint32_t mark = 0;

	if (!p)
		return UINT32_MAX;
	/* outer eth 14 + ipv4 20 + udp 8: the VXLAN header */
	struct rte_vxlan_hdr *v = rte_pktmbuf_mtod_offset(
		p, struct rte_vxlan_hdr *, 14 + 20 + 8);
	v->vx_vni = rte_cpu_to_be_32(vni << 8);
	fdir_model_rx_mark(md, 0, &p, 1);
	if (p->ol_flags & RTE_MBUF_F_RX_FDIR_ID)
		mark = p->hash.fdir.hi;
	rte_pktmbuf_free(p);
	return mark;
}

static struct fdir_model *
model_vxlan(uint32_t guar, uint32_t pool_size, struct fdir_model_pool **pp)
{
	struct fdir_model *md = model(guar, pool_size, pp);

	if (md && fdir_model_udp_tunnel_port_add(md, 4789))
		CHECK(0, "tunnel port refused");
	return md;
}

static void
test_collision(void)
{
	struct fdir_model_pool *pp;
	struct fdir_model *md = model_vxlan(64, 64, &pp);
	/* 2 inserts/s, burst 1: an ADD that needed a token would wait */
	struct offload_mgr *m = mgr(md, 64, 2, 64, 1);
	struct offload_completion c[4];
	struct offload_mgr_stats st;
	struct fdir_model_stats ms;
	const rte_be32_t x = IP(192, 1, 0, 7), y = IP(192, 1, 0, 8);
	char msg[OFFLOAD_ENGINE_MSG_MAX];
	int err;

	CHECK(md && m, "create");
	if (!md || !m)
		return;
	/* tenant A: VNI 1001 -> x; installed (the bucket's token) */
	add_vni(m, 1, VNI, x);
	CHECK(wait_compl(m, 0, c, 1) == 1 && c[0].result == OFFLOAD_OK &&
	      c[0].megaflow_id == 1, "first: %s",
	      offload_result_name(c[0].result));
	uint32_t mark_a = c[0].mark;
	/* tenant B: VNI 1002 -> x, ice's key taken: collision at once, no
	 * token (the bucket is empty for another 500 ms) */
	uint64_t t0 = rte_get_tsc_cycles();
	add_vni(m, 2, VNI_B, x);
	CHECK(wait_compl(m, 0, c, 1) == 1 && c[0].megaflow_id == 2 &&
	      c[0].result == OFFLOAD_FAIL_COLLISION && c[0].mark == 0,
	      "second: %s mark %u", offload_result_name(c[0].result),
	      c[0].mark);
	double ms_taken = (rte_get_tsc_cycles() - t0) * 1000.0 /
			  rte_get_tsc_hz();
	CHECK(ms_taken < 300, "collision answered after %.0f ms (waited for "
	      "a token)", ms_taken);
	fdir_model_get_stats(md, &ms);
	CHECK(ms.created == 1 && model_rejected(md) == 0,
	      "the NIC was asked: created %lu rejected %lu",
	      (unsigned long)ms.created, (unsigned long)model_rejected(md));
	offload_mgr_get_stats(m, &st);
	CHECK(st.failed[OFFLOAD_FAIL_COLLISION] == 1 &&
	      st.failed[OFFLOAD_FAIL_EXISTS] == 0 && st.marks_in_use == 1 &&
	      st.rate_deferred == 0, "collision %lu exists %lu marks %u "
	      "deferred %lu", (unsigned long)st.failed[OFFLOAD_FAIL_COLLISION],
	      (unsigned long)st.failed[OFFLOAD_FAIL_EXISTS], st.marks_in_use,
	      (unsigned long)st.rate_deferred);
	char want[64];
	snprintf(want, sizeof want, "ice key held by mark %u", mark_a);
	CHECK(offload_mgr_last_failure(m, OFFLOAD_FAIL_COLLISION, &err, msg,
				       sizeof msg) && err == EEXIST &&
	      !strcmp(msg, want), "last collision: %d '%s'", err, msg);
	CHECK(mark_vni(md, VNI, x) == mark_a, "tenant A not marked");
	CHECK(mark_vni(md, VNI_B, x) == 0, "tenant B marked");

	/* another inner dst on VNI 1002: no collision (waits its token) */
	add_vni(m, 3, VNI_B, y);
	CHECK(wait_compl(m, 0, c, 1) == 1 && c[0].megaflow_id == 3 &&
	      c[0].result == OFFLOAD_OK, "vni 1002 -> y: %s",
	      offload_result_name(c[0].result));
	CHECK(mark_vni(md, VNI_B, y) == c[0].mark, "y not marked");

	/* tenant A's flow goes: its rule, and ice's key, are free; tenant B
	 * asks again (a new megaflow) and gets a rule */
	CHECK(offload_mgr_request_del(m, 0, 1, mark_a) == 0, "del");
	CHECK(wait_compl(m, 0, c, 1) == 1 && c[0].op == OFFLOAD_OP_DEL,
	      "del completion");
	add_vni(m, 4, VNI_B, x);
	CHECK(wait_compl(m, 0, c, 1) == 1 && c[0].megaflow_id == 4 &&
	      c[0].result == OFFLOAD_OK && c[0].mark, "after del: %s",
	      offload_result_name(c[0].result));
	CHECK(mark_vni(md, VNI_B, x) == c[0].mark && c[0].mark,
	      "tenant B not marked with %u", c[0].mark);
	CHECK(mark_vni(md, VNI, x) == 0, "tenant A still marked");
	/* and now tenant A collides */
	add_vni(m, 5, VNI, x);
	CHECK(wait_compl(m, 0, c, 1) == 1 && c[0].megaflow_id == 5 &&
	      c[0].result == OFFLOAD_FAIL_COLLISION, "A again: %s",
	      offload_result_name(c[0].result));
	offload_mgr_get_stats(m, &st);
	CHECK(st.failed[OFFLOAD_FAIL_COLLISION] == 2 && st.installed == 2,
	      "collision %lu installed %lu",
	      (unsigned long)st.failed[OFFLOAD_FAIL_COLLISION],
	      (unsigned long)st.installed);
	CHECK(model_rejected(md) == 0, "the NIC refused %lu",
	      (unsigned long)model_rejected(md));
	offload_mgr_destroy(m);
	fdir_model_free(md);
	fdir_model_pool_free(pp);
}

/* A rule put on the NIC by someone else (straight on the model). */
static void *
foreign_rule(struct fdir_model *md, uint32_t vni, rte_be32_t dst,
	     rte_be32_t inner_src)
{
	struct flow_key ok, om, ik, im;
	struct ice_fdir_target tgt = { .group = ICE_FDIR_GROUP_DEFAULT,
				       .tunnel_port = 4789 };
	struct offload_rule r;
	struct rte_flow_error e;

	outer_flow(&ok, &om);
	seed_inner_flow(&ik, &im, VXLAN_OFPORT, vni, dst);
	if (ice_fdir_rule_build(&ok, &om, &ik, &im, 60, &tgt, &r, NULL))
		return NULL;
	if (inner_src) {	/* another inner input set: src + dst */
		r.iipv4_spec.hdr.src_addr = inner_src;
		r.iipv4_mask.hdr.src_addr = RTE_BE32(UINT32_MAX);
	}
	return fdir_model_create_rule(md, &r, &e);
}

static void
test_exists_profile_capacity(void)
{
	struct fdir_model_pool *pp;
	struct fdir_model *md = model_vxlan(64, 64, &pp);
	struct offload_mgr *m = mgr(md, 64, 0, 64, 1);
	struct offload_completion c[4];
	struct offload_mgr_stats st;
	char msg[OFFLOAD_ENGINE_MSG_MAX];
	int err;

	CHECK(md && m, "create");
	if (!md || !m)
		return;
	/* exists: the NIC has the key, not from us */
	void *h = foreign_rule(md, VNI, IP(192, 1, 0, 9), 0);
	CHECK(h != NULL, "foreign rule");
	add_vni(m, 1, VNI, IP(192, 1, 0, 9));
	CHECK(wait_compl(m, 0, c, 1) == 1 &&
	      c[0].result == OFFLOAD_FAIL_EXISTS, "exists: %s",
	      offload_result_name(c[0].result));
	CHECK(offload_mgr_last_failure(m, OFFLOAD_FAIL_EXISTS, &err, msg,
				       sizeof msg) && err == EEXIST &&
	      !strcmp(msg, ICE_FDIR_MSG_EXISTS), "last exists: %d '%s'", err,
	      msg);
	struct rte_flow_error fe;
	fdir_model_destroy_rule(md, h, &fe);

	/* profile: a VXLAN rule with inner src + dst holds the flow type */
	h = foreign_rule(md, VNI, IP(192, 1, 0, 10), IP(10, 0, 0, 1));
	CHECK(h != NULL, "foreign rule, other input set");
	add_vni(m, 2, VNI, IP(192, 1, 0, 11));
	CHECK(wait_compl(m, 0, c, 1) == 1 &&
	      c[0].result == OFFLOAD_FAIL_PROFILE, "profile: %s",
	      offload_result_name(c[0].result));
	CHECK(offload_mgr_last_failure(m, OFFLOAD_FAIL_PROFILE, &err, msg,
				       sizeof msg) && err == EINVAL &&
	      !strcmp(msg, ICE_FDIR_MSG_PROFILE), "last profile: %d '%s'",
	      err, msg);
	fdir_model_destroy_rule(md, h, &fe);
	offload_mgr_get_stats(m, &st);
	CHECK(st.failed[OFFLOAD_FAIL_EXISTS] == 1 &&
	      st.failed[OFFLOAD_FAIL_PROFILE] == 1 &&
	      st.failed[OFFLOAD_FAIL_CAPACITY] == 0 &&
	      st.failed[OFFLOAD_FAIL_COLLISION] == 0 && st.marks_in_use == 0,
	      "exists %lu profile %lu capacity %lu marks %u",
	      (unsigned long)st.failed[OFFLOAD_FAIL_EXISTS],
	      (unsigned long)st.failed[OFFLOAD_FAIL_PROFILE],
	      (unsigned long)st.failed[OFFLOAD_FAIL_CAPACITY], st.marks_in_use);
	offload_mgr_destroy(m);
	fdir_model_free(md);
	fdir_model_pool_free(pp);

	/* capacity: one filter, two flows */
	md = model_vxlan(1, 0, &pp);
	m = mgr(md, 64, 0, 64, 1);
	add_vni(m, 1, VNI, IP(192, 1, 0, 1));
	add_vni(m, 2, VNI, IP(192, 1, 0, 2));
	unsigned n = wait_compl(m, 0, c, 2), ok = 0, cap = 0;
	for (unsigned i = 0; i < n; i++) {
		ok += c[i].result == OFFLOAD_OK;
		cap += c[i].result == OFFLOAD_FAIL_CAPACITY;
	}
	CHECK(n == 2 && ok == 1 && cap == 1, "ok %u capacity %u", ok, cap);
	CHECK(offload_mgr_last_failure(m, OFFLOAD_FAIL_CAPACITY, &err, msg,
				       sizeof msg) && err && msg[0],
	      "last capacity: %d '%s'", err, msg);
	/* the model as ice: EINVAL, not ENOSPC */
	CHECK(err == EINVAL && !strcmp(msg, ICE_FDIR_MSG_NOSPC),
	      "full table: %d '%s'", err, msg);
	printf("capacity: errno %d '%s'\n", err, msg);
	offload_mgr_destroy(m);
	fdir_model_free(md);
	fdir_model_pool_free(pp);
}

int
main(int argc, char **argv)
{
	(void)argc, (void)argv;
	if (offload_test_start("test_offload_fail"))
		return 1;
	(void)mark_of, (void)add_vm;	/* the rig's, for other tests */
	test_collision();
	test_exists_profile_capacity();
	rte_mempool_free(pool);
	rte_eal_cleanup();
	return unit_test_report();
}
