/* SPDX-License-Identifier: BSD-3-Clause
 * The offload manager's start-up on a port (drivers/offload/
 * offload_engine.c): the attr.group probe against each model profile (the
 * ice releases: 22.11 refuses a non-zero group, 23.11.0 needs group 2 for
 * the FDIR, 23.11.4 ignores it, 26.07 refuses it: 0/2/0/0), each followed
 * by a rule installed with the probed group and packets marked; a port
 * whose engine refuses both groups (an ethdev without rte_flow) gives no
 * group and the reason; the VXLAN tunnel port refused -> VXLAN requests
 * fail as no_tunnel_port (not not_canonical, and nothing reaches the
 * engine); the create-failure classification by errno and message.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <rte_dev.h>
#include <rte_ethdev.h>
#include "offload_engine.h"
#include "offload_test.h"
#include "unit_test.h"

static struct fdir_model *
model_of(enum fdir_model_profile prof, struct fdir_model_pool **pp)
{
	struct fdir_model_limits lim = { .profile = prof, .guar = 64,
					 .n_rxq = 8 };

	*pp = fdir_model_pool_create(64);
	lim.pool = *pp;
	return fdir_model_create(UINT16_MAX, &lim, NULL);
}

static struct offload_mgr_params
model_params(struct fdir_model *md)
{
	struct offload_mgr_params p = {
		.name = "probe", .engine = OFFLOAD_ENGINE_MODEL,
		.eth_port_id = UINT16_MAX, .model = md, .max_marks = 64,
		.req_ring_size = 64, .compl_ring_size = 64, .n_pmds = 1,
	};
	return p;
}

/* Each profile: tunnel port registered, the probe's group, and a rule
 * created with it marks the VM's packets. */
static void
probe_profile(enum fdir_model_profile prof, uint32_t want_group)
{
	const char *name = fdir_model_profile_name(prof);
	struct fdir_model_pool *pp;
	struct fdir_model *md = model_of(prof, &pp);
	struct offload_mgr_params p = model_params(md);
	struct offload_tunnel_port tp;
	struct offload_probe pr;
	struct offload_completion c[2];

	CHECK(md != NULL, "%s: model", name);
	if (!md)
		return;
	CHECK(offload_engine_tunnel_port_add(&p, 4789, &tp) == 0 &&
	      tp.registered && tp.udp_port == 4789 && tp.err == 0,
	      "%s: tunnel port: registered %d err %d", name, tp.registered,
	      tp.err);
	CHECK(offload_engine_probe(&p, 4789, &pr) == 0, "%s: probe", name);
	CHECK(pr.ok && pr.group == want_group, "%s: ok %d group %u, want %u "
	      "(%s)", name, pr.ok, pr.group, want_group, pr.why);
	if (want_group == 0) {
		CHECK(!pr.group0_refused && !strcmp(pr.why, "FDIR group 0"),
		      "%s: why '%s'", name, pr.why);
	} else {
		char want[64];
		snprintf(want, sizeof want, "FDIR group %u (group 0 refused: ",
			 want_group);
		CHECK(pr.group0_refused && pr.refused0.err &&
		      pr.refused0.msg[0] && !strncmp(pr.why, want, strlen(want)),
		      "%s: group 0 refusal errno %d '%s', why '%s'", name,
		      pr.refused0.err, pr.refused0.msg, pr.why);
	}
	printf("%s: %s\n", name, pr.why);

	p.target.group = pr.group;
	p.target.tunnel_port = 4789;
	struct offload_mgr *m = offload_mgr_create(&p);
	CHECK(m != NULL, "%s: mgr", name);
	if (m) {
		add_vm(m, 0, 1, 1, 10);
		CHECK(wait_compl(m, 0, c, 1) == 1 && c[0].result == OFFLOAD_OK,
		      "%s: rule with group %u: %s", name, pr.group,
		      offload_result_name(c[0].result));
		CHECK(mark_of(md, 1) == c[0].mark && c[0].mark,
		      "%s: not marked with %u", name, c[0].mark);
		offload_mgr_destroy(m);
	}
	fdir_model_free(md);
	fdir_model_pool_free(pp);
}

static void
test_probe_profiles(void)
{
	/* the group each release ends up with (ice-pmd-sources.md s. 1) */
	static const uint32_t want[FDIR_PROFILE_N] = {
		[FDIR_PROFILE_ICE_2211] = 0,
		[FDIR_PROFILE_ICE_2311_0] = 2,
		[FDIR_PROFILE_ICE_2311_4] = 0,
		[FDIR_PROFILE_ICE_2607] = 0,
	};

	for (int prof = 0; prof < FDIR_PROFILE_N; prof++) {
		probe_profile(prof, want[prof]);
	}
}

/* An engine that refuses both groups: an ethdev whose driver has no
 * rte_flow (net_null): no group, and both refusals in the reason. */
static void
test_probe_refused(void)
{
	uint16_t port;

	CHECK(rte_dev_probe("net_null_probe") == 0 &&
	      rte_eth_dev_get_port_by_name("net_null_probe", &port) == 0,
	      "net_null vdev");
	struct offload_mgr_params p = {
		.engine = OFFLOAD_ENGINE_ETHDEV, .eth_port_id = port,
		.n_pmds = 1,
	};
	struct offload_probe pr;
	struct offload_tunnel_port tp;

	CHECK(offload_engine_probe(&p, 4789, &pr) == 0, "probe");
	CHECK(!pr.ok && pr.refused0.err && pr.refused2.err,
	      "ok %d errs %d %d", pr.ok, pr.refused0.err, pr.refused2.err);
	char want[2 * OFFLOAD_ENGINE_MSG_MAX + 64];
	snprintf(want, sizeof want, "group 0 refused: %s; group 2 refused: %s",
		 pr.refused0.msg, pr.refused2.msg);
	CHECK(!strcmp(pr.why, want) && pr.refused0.msg[0],
	      "why '%s'", pr.why);
	printf("net_null: %s\n", pr.why);
	/* and no tunnel port either: refused with the driver's errno */
	CHECK(offload_engine_tunnel_port_add(&p, 4789, &tp) < 0 &&
	      !tp.registered && tp.err == ENOTSUP, "tunnel port: %d %d",
	      tp.registered, tp.err);
	CHECK(offload_engine_probe(&p, 0, &pr) == -EINVAL, "port 0 probed");
	rte_eth_dev_close(port);
}

/* The tunnel port refused: VXLAN requests fail as no_tunnel_port before
 * any engine call; a VXLAN flow that is not canonical anyway stays
 * not_canonical. */
static void
test_no_tunnel_port(void)
{
	struct fdir_model_pool *pp;
	struct fdir_model *md = model_of(FDIR_PROFILE_ICE_2211, &pp);
	struct offload_mgr_params p = model_params(md);
	struct offload_tunnel_port tp;
	struct offload_completion c[4];
	struct offload_mgr_stats st;
	struct fdir_model_stats ms;
	char msg[OFFLOAD_ENGINE_MSG_MAX];
	int err;

	CHECK(offload_engine_tunnel_port_add(&p, 0, &tp) == -EINVAL &&
	      !tp.registered && tp.err == EINVAL, "port 0 registered");
	p.target.tunnel_port = tp.registered ? 4789 : 0;
	struct offload_mgr *m = offload_mgr_create(&p);
	CHECK(m != NULL, "mgr");
	if (!m)
		return;
	add_vm(m, 0, 1, 1, 10);
	add_vm(m, 0, 2, 2, 10);
	struct flow_key ok, om, ik, im;
	outer_flow(&ok, &om);
	inner_flow(&ik, &im, IP(192, 1, 0, 0));
	im.nw_dst = RTE_BE32(0xffffff00);		/* a /24 */
	offload_mgr_request_add(m, 0, 3, &ok, &om, &ik, &im, 10);
	unsigned n = wait_compl(m, 0, c, 3), nt = 0, nc = 0;
	for (unsigned i = 0; i < n; i++) {
		nt += c[i].result == OFFLOAD_FAIL_NO_TUNNEL &&
		      c[i].megaflow_id <= 2 && !c[i].mark;
		nc += c[i].result == OFFLOAD_FAIL_NOT_CANONICAL &&
		      c[i].megaflow_id == 3;
	}
	CHECK(n == 3 && nt == 2 && nc == 1, "%u completions: no_tunnel %u "
	      "not_canonical %u", n, nt, nc);
	offload_mgr_get_stats(m, &st);
	CHECK(st.failed[OFFLOAD_FAIL_NO_TUNNEL] == 2 &&
	      st.failed[OFFLOAD_FAIL_NOT_CANONICAL] == 1 &&
	      st.failed[OFFLOAD_FAIL_VALIDATE] == 0 &&
	      st.failed[OFFLOAD_FAIL_CAPACITY] == 0 && st.marks_in_use == 0,
	      "failed no_tunnel %lu not_canonical %lu marks %u",
	      (unsigned long)st.failed[OFFLOAD_FAIL_NO_TUNNEL],
	      (unsigned long)st.failed[OFFLOAD_FAIL_NOT_CANONICAL],
	      st.marks_in_use);
	CHECK(offload_mgr_last_failure(m, OFFLOAD_FAIL_NO_TUNNEL, &err, msg,
				       sizeof msg) && err == ENOTSUP &&
	      !strcmp(msg, "no VXLAN tunnel port registered on the port"),
	      "last no_tunnel_port: %d '%s'", err, msg);
	CHECK(!offload_mgr_last_failure(m, OFFLOAD_FAIL_CAPACITY, &err, msg,
					sizeof msg), "a capacity failure noted");
	fdir_model_get_stats(md, &ms);
	uint64_t rej = model_rejected(md);
	CHECK(ms.created == 0 && rej == 0, "the engine was asked: created "
	      "%lu rejected %lu", (unsigned long)ms.created,
	      (unsigned long)rej);
	offload_mgr_destroy(m);
	fdir_model_free(md);
	fdir_model_pool_free(pp);
}

static void
test_classify(void)
{
	static const struct {
		int err;
		const char *msg;
		enum offload_result want;
	} cases[] = {
		{ EEXIST, ICE_FDIR_MSG_EXISTS, OFFLOAD_FAIL_EXISTS },
		{ EINVAL, ICE_FDIR_MSG_PROFILE, OFFLOAD_FAIL_PROFILE },
		{ EEXIST, "", OFFLOAD_FAIL_EXISTS },
		/* profile: EINVAL and ice's message, both */
		{ ENOMEM, ICE_FDIR_MSG_PROFILE, OFFLOAD_FAIL_CAPACITY },
		{ EINVAL, ICE_FDIR_MSG_NOSPC, OFFLOAD_FAIL_CAPACITY },
		{ ENOSPC, "Flow Director table full", OFFLOAD_FAIL_CAPACITY },
		{ EIO, "", OFFLOAD_FAIL_CAPACITY },
	};

	for (unsigned i = 0; i < RTE_DIM(cases); i++) {
		struct offload_engine_error e = { .err = cases[i].err };
		snprintf(e.msg, sizeof e.msg, "%s", cases[i].msg);
		enum offload_result got = offload_engine_classify(&e);
		CHECK(got == cases[i].want, "errno %d '%s': %s, want %s",
		      cases[i].err, cases[i].msg, offload_result_name(got),
		      offload_result_name(cases[i].want));
	}
}

int
main(int argc, char **argv)
{
	(void)argc, (void)argv;
	(void)model, (void)mgr;		/* the rig's, for other tests */
	if (offload_test_start("test_offload_probe"))
		return 1;
	test_probe_profiles();
	test_probe_refused();
	test_no_tunnel_port();
	test_classify();
	rte_mempool_free(pool);
	rte_eal_cleanup();
	return unit_test_report();
}
