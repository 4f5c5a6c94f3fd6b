/* SPDX-License-Identifier: BSD-3-Clause
 * The translation of a Neutron-style pipeline (registers loaded before
 * ct(table=,zone=NXM_NX_REG6[0..15]), conjunction() over the resumed
 * pass, ct(commit,exec(set_field->ct_mark))), through the real slow path
 * (pipeline_rig.h):
 *  - the first pass ends in ct(zone=644) + recirc(id): the zone is reg6's
 *    value (as sg(zone=NXM_NX_REG6[0..15])'s), the id names a frozen state (one per port: the registers
 *    differ);
 *  - the recirculated pass resumes with the port's registers: vm1's
 *    packets meet reg5=2 rules; a conjunction whose both clauses match
 *    outputs to vm0, one clause only does not; vm2's walk, resubmitted
 *    as from vm0, resumes with in_port vm0;
 *  - the exec() mark is the megaflow's (value 1, mask all), beside the
 *    same ct()'s nat(src=...) in its own slot bits (dp_actions.h);
 *  - soundness, as dpcls_oracle does it for the classifier: for random
 *    keys (first and recirculated passes), every key that agrees with one
 *    under its megaflow's mask translates to the same actions;
 *  - with every id in use, a new state is refused and counted, and its
 *    packets drop as recirc_limit; a state already there still works;
 *  - every recirc id is given back when the outcomes are.
 */
#include <stdio.h>
#include <string.h>
#include <rte_random.h>
#include "recirc_id.h"
#include "unit_test.h"
#include "pipeline_rig.h"
#include "xlate.h"

/* RTE_IPV4 shifts an int: 192 << 24 overflows it (UBSan) */
#define IPV4(a, b, c, d) ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | \
			  (uint32_t)(c) << 8 | (uint32_t)(d))
#define N_VMS 3
#define N_KEYS 20000

static int
write_topology(char *path, size_t len)
{
	FILE *f = pipeline_rig_topology(path, len, "test_xlate_frozen", "");
	static const char *const flows[] = {
		"table=0,priority=100,in_port=vm0,actions=set_field:0x1->reg5,"
		"set_field:0x284->reg6,resubmit(,71)",
		"table=0,priority=100,in_port=vm1,actions=set_field:0x2->reg5,"
		"set_field:0x284->reg6,resubmit(,71)",
		/* sg() takes its zone from a register too */
		"table=0,priority=200,udp,in_port=vm0,actions=set_field:"
		"0x285->reg6,sg(allow,zone=NXM_NX_REG6[0..15]),output:vm1",
		/* vm2's walk goes on as if from vm0 (in_port changed) */
		"table=0,priority=100,in_port=vm2,actions=set_field:0x3->reg5,"
		"resubmit(vm0,71)",
		"table=71,priority=65,ct_state=-trk,ip,reg5=0x3,"
		"actions=ct(table=72,zone=7)",
		"table=72,priority=80,ct_state=+trk,in_port=vm0,reg5=0x3,"
		"actions=output:vm1",
		"table=71,priority=65,ct_state=-trk,ip,reg5=0x1,"
		"actions=ct(table=72,zone=NXM_NX_REG6[0..15])",
		"table=71,priority=65,ct_state=-trk,ip,reg5=0x2,"
		"actions=ct(table=72,zone=NXM_NX_REG6[0..15])",
		/* vm1 (reg5=2) takes TCP 80 or 8080 from 10.0.0.1/10.0.0.2 */
		"table=72,priority=73,ct_state=+new-est,ip,reg6=0x284,"
		"nw_src=10.0.0.1,actions=conjunction(23,1/2)",
		"table=72,priority=73,ct_state=+new-est,ip,reg6=0x284,"
		"nw_src=10.0.0.2,actions=conjunction(23,1/2),"
		"conjunction(24,1/2)",
		"table=72,priority=73,ct_state=+new-est,tcp,reg5=0x2,tp_dst=80,"
		"actions=conjunction(23,2/2)",
		"table=72,priority=73,ct_state=+new-est,tcp,reg5=0x2,"
		"tp_dst=8080,actions=conjunction(23,2/2)",
		"table=72,priority=73,conj_id=23,ip,reg5=0x2,"
		"actions=ct(commit,zone=NXM_NX_REG6[0..15]),output:vm0",
		/* id 24 has no 2/2 clause: never completes */
		"table=72,priority=73,conj_id=24,ip,actions=output:vm2",
		"table=72,priority=40,ct_state=+est,ip,reg5=0x2,"
		"actions=ct(commit,zone=NXM_NX_REG6[0..15],"
		"nat(src=203.0.113.7),exec(set_field:0x1->ct_mark))",
		"table=72,priority=30,ct_state=+new-est,ip,reg5=0x1,"
		"actions=output:vm2",
		"table=72,priority=0,actions=drop",
	};

	return pipeline_rig_finish(f, "xf", N_VMS, flows, RTE_DIM(flows));
}

static struct port *vm[N_VMS];

static void
tcp_key(struct flow_key *k, uint32_t in_port, uint32_t src, uint16_t dport)
{
	flow_key_zero(k);
	k->in_port = in_port;
	k->dl_type = RTE_BE16(RTE_ETHER_TYPE_IPV4);
	k->nw_src = rte_cpu_to_be_32(src);
	k->nw_dst = rte_cpu_to_be_32(IPV4(192, 1, 0, 11));
	k->nw_proto = IPPROTO_TCP;
	k->tp_src = RTE_BE16(40000);
	k->tp_dst = rte_cpu_to_be_16(dport);
}

/* The first pass from vm i: ct(zone=644) then recirc(id); the id, with
 * the reference in *keep. */
static uint8_t
first_pass(const struct dp_snapshot *s, int i, struct xlate_out *keep)
{
	struct flow_key k;

	tcp_key(&k, vm[i]->ofport, IPV4(10, 0, 0, 1), 80);
	xlate(s, &k, keep);
	const struct dp_actions *a = &keep->actions;
	CHECK(a->n == 2 && a->act[0].type == DP_ACT_CT &&
	      a->act[0].port == 0x284 && a->act[1].type == DP_ACT_RECIRC,
	      "vm%d: n %u type %u zone %u", i, a->n, a->act[0].type,
	      a->act[0].port);
	CHECK_EXPR(keep->recirc_refs[1] == a->act[1].port);
	return (uint8_t)a->act[1].port;
}

static void
expected_outcomes(const struct dp_snapshot *s, uint8_t id1)
{
	struct flow_key k;
	struct xlate_out xo;

	/* both clauses of 23: to vm0, committed in zone 644 */
	tcp_key(&k, vm[1]->ofport, IPV4(10, 0, 0, 2), 8080);
	k.recirc_id = id1;
	k.ct_state = OFP_CS_TRK | OFP_CS_NEW;
	xlate(s, &k, &xo);
	CHECK(pipeline_rig_outputs_to(&xo.actions, vm[0]) &&
	      xo.actions.act[0].type == DP_ACT_CT &&
	      xo.actions.act[0].port == 0x284, "conj 23: n %u",
	      xo.actions.n);
	CHECK_EXPR(xo.recirc_refs[0] == id1);
	xlate_out_release(&xo);
	/* a source outside the group: clause 1 missing, dropped */
	k.nw_src = rte_cpu_to_be_32(IPV4(10, 0, 0, 3));
	xlate(s, &k, &xo);
	CHECK(xo.actions.n == 1 && xo.actions.act[0].type == DP_ACT_DROP,
	      "10.0.0.3: n %u", xo.actions.n);
	xlate_out_release(&xo);
	/* 24 has only its first clause: never complete, not to vm2 */
	k.nw_src = rte_cpu_to_be_32(IPV4(10, 0, 0, 2));
	k.tp_dst = RTE_BE16(22);
	xlate(s, &k, &xo);
	CHECK_EXPR(!pipeline_rig_outputs_to(&xo.actions, vm[2]));
	xlate_out_release(&xo);
	/* vm2's frozen in_port: vm0 */
	struct xlate_out first;
	tcp_key(&k, vm[2]->ofport, IPV4(10, 0, 0, 1), 80);
	xlate(s, &k, &first);
	CHECK(first.actions.n == 2 &&
	      first.actions.act[1].type == DP_ACT_RECIRC,
	      "vm2 first pass: n %u", first.actions.n);
	k.recirc_id = (uint8_t)first.actions.act[1].port;
	k.ct_state = OFP_CS_TRK | OFP_CS_NEW;
	xlate(s, &k, &xo);
	CHECK_EXPR(pipeline_rig_outputs_to(&xo.actions, vm[1]));
	xlate_out_release(&xo);
	xlate_out_release(&first);

	/* sg(zone=reg6) */
	tcp_key(&k, vm[0]->ofport, IPV4(10, 0, 0, 1), 53);
	k.nw_proto = IPPROTO_UDP;
	xlate(s, &k, &xo);
	CHECK(xo.actions.n == 2 && xo.actions.act[0].type == DP_ACT_SG &&
	      xo.actions.act[0].port == 0x285, "sg: n %u zone %u",
	      xo.actions.n, xo.actions.act[0].port);
	xlate_out_release(&xo);

	/* vm1, established without a rule: committed in reg6's zone,
	 * SNATed and marked 1, each in its own slot bits */
	tcp_key(&k, vm[1]->ofport, IPV4(10, 0, 0, 2), 22);
	k.recirc_id = id1;
	k.ct_state = OFP_CS_TRK | OFP_CS_EST;
	xlate(s, &k, &xo);
	const struct dp_action *ct = &xo.actions.act[0];
	const struct dp_nat *nat = dp_action_nat(&xo.actions, ct);
	CHECK(xo.actions.n == 1 && ct->type == DP_ACT_CT &&
	      ct->port == 0x284 && (ct->slot & DP_CT_COMMIT) &&
	      DP_CT_MARK_SLOT(ct->slot) == 1 &&
	      xo.actions.ct_marks[0].value == 1 &&
	      xo.actions.ct_marks[0].mask == UINT32_MAX, "mark: n %u",
	      xo.actions.n);
	CHECK(nat && nat->snat && nat->ip_min == IPV4(203, 0, 113, 7) &&
	      xo.actions.n_nats == 1, "nat: slot %#x", ct->slot);
	char text[256];
	xlate_format_actions(&xo.actions, text, sizeof text);
	CHECK(strstr(text, "ct(commit,zone=644,mark=0x1/0xffffffff,"
			   "nat(src=203.0.113.7))"), "%s", text);
	xlate_out_release(&xo);
}

static void
random_key(struct flow_key *k, const uint8_t ids[2])
{
	static const uint32_t srcs[] = { IPV4(10, 0, 0, 1),
		IPV4(10, 0, 0, 2), IPV4(10, 0, 0, 3) };
	static const uint16_t dports[] = { 80, 8080, 22, 81 };
	static const uint8_t states[] = { 0, OFP_CS_TRK | OFP_CS_NEW,
		OFP_CS_TRK | OFP_CS_EST, OFP_CS_TRK | OFP_CS_EST | OFP_CS_RPL,
		OFP_CS_TRK | OFP_CS_INV };
	uint64_t r = rte_rand();

	tcp_key(k, vm[r % 3]->ofport, srcs[(r >> 8) % 3], dports[(r >> 16) % 4]);
	if ((r >> 24) % 4 == 0)
		k->nw_proto = IPPROTO_UDP;
	if ((r >> 28) % 2) {
		k->recirc_id = ids[(r >> 32) % 2];
		k->ct_state = states[(r >> 40) % RTE_DIM(states)];
		k->ct_zone = 0x284;
	}
	k->tp_src = (rte_be16_t)(r >> 48);
}

static void
soundness(const struct dp_snapshot *s, const uint8_t ids[2])
{
	unsigned bad = 0;

	for (int n = 0; n < N_KEYS; n++) {
		struct flow_key k1, k2;
		struct xlate_out x1, x2;
		random_key(&k1, ids);
		xlate(s, &k1, &x1);
		random_key(&k2, ids);
		for (int w = 0; w < FLOW_KEY_WORDS; w++)
			k2.w[w] = (k2.w[w] & ~x1.mask.w[w]) |
				  (k1.w[w] & x1.mask.w[w]);
		xlate(s, &k2, &x2);
		if (!dp_actions_equal(&x1.actions, &x2.actions) && bad++ < 5)
			printf("key %d: the same megaflow, other actions\n", n);
		xlate_out_release(&x1);
		xlate_out_release(&x2);
	}
	CHECK(bad == 0, "%u of %d keys", bad, N_KEYS);
}

/* Every id in use (ids[] held): vm2's state is refused, vm1's found. */
static void
table_full(const struct dp_snapshot *s, const uint8_t ids[2])
{
	struct recirc_id_stats st0, st;
	struct recirc_frozen f;
	struct xlate_out xo;
	struct flow_key k;
	uint8_t filler[RECIRC_ID_MAX];
	unsigned n = 0;

	recirc_id_get_stats(&st0);
	memset(&f, 0, sizeof f);
	f.table = 200;
	while (st0.in_use + n < RECIRC_ID_MAX) {
		f.regs[0] = n;
		filler[n++] = recirc_id_get(&f);
	}
	tcp_key(&k, vm[2]->ofport, IPV4(10, 0, 0, 1), 80);
	xlate(s, &k, &xo);
	CHECK(xo.actions.n == 1 && xo.actions.act[0].type == DP_ACT_DROP &&
	      xo.actions.act[0].reason == DROP_RECIRC_LIMIT,
	      "full: n %u type %u", xo.actions.n, xo.actions.act[0].type);
	CHECK_EXPR(!xo.recirc_refs[1]);
	xlate_out_release(&xo);
	recirc_id_get_stats(&st);
	CHECK(st.refused == st0.refused + 1 && st.in_use == RECIRC_ID_MAX,
	      "refused %lu in use %u", (unsigned long)st.refused, st.in_use);
	tcp_key(&k, vm[1]->ofport, IPV4(10, 0, 0, 1), 80);
	xlate(s, &k, &xo);
	CHECK_EXPR(xo.recirc_refs[1] == ids[1]);
	xlate_out_release(&xo);
	for (unsigned i = 0; i < n; i++)
		recirc_id_unref(filler[i]);
}

int
main(void)
{
	struct vxs_config cfg;
	struct rte_mempool *pool;
	struct pmd *pmd;
	struct port *nic;
	struct xlate_out keep[2];
	struct recirc_id_stats st;
	uint8_t ids[2];

	if (pipeline_rig_up("test_xlate_frozen", write_topology, &cfg, &pool,
			    &pmd, &nic, vm, N_VMS))
		return 1;
	const struct dp_snapshot *s = pmd->dp.snap;

	ids[0] = first_pass(s, 0, &keep[0]);
	ids[1] = first_pass(s, 1, &keep[1]);
	CHECK(ids[0] && ids[1] && ids[0] != ids[1], "ids %u %u", ids[0],
	      ids[1]);
	expected_outcomes(s, ids[1]);
	soundness(s, ids);
	table_full(s, ids);

	recirc_id_get_stats(&st);
	CHECK(st.in_use == 2, "in use %u", st.in_use);
	xlate_out_release(&keep[0]);
	xlate_out_release(&keep[1]);
	recirc_id_get_stats(&st);
	CHECK(st.in_use == 0, "in use %u", st.in_use);

	pipeline_rig_down(&cfg, pool);
	return unit_test_report();
}
