/* SPDX-License-Identifier: BSD-3-Clause
 * ct_label through the real slow path (pipeline_rig.h), as predicates
 * (ct_label_pred.h):
 *  - the snapshot holds one slot per distinct ct_label=V/M of the rules,
 *    and dp_snapshot_label_bits turns a session's label into the key's
 *    ct_label_bits;
 *  - a recirculated key's bits decide the ct_label rules, and the
 *    megaflow's mask gets only the bits of the predicates looked at
 *    (one megaflow per outcome, never per label value); a first pass
 *    reads label 0 and adds no bit;
 *  - exec(set_field:V->ct_label) and load:V->NXM_NX_CT_LABEL[a..b] give
 *    the ct() its label slot (value and mask in the tracker's order);
 *  - dump-flows' form: ct_label(0x1/0x1), ct_label_pred(...), label=;
 *  - a PMD's megaflows: a new predicate (a free slot taken) keeps those
 *    matching label bits, a freed slot retires them all (their bits
 *    were numbered by a table that is gone), first-pass ones stay;
 *  - the 17th distinct predicate is refused at add-flow, naming it,
 *    counted, and nothing is added; del-flows frees a slot (the others
 *    keep theirs) and marks the table renumbered for the PMDs.
 */
#include <stdio.h>
#include <string.h>
#include "ct_label_pred.h"
#include "dp_stages.h"
#include "dpcls.h"
#include "unit_test.h"
#include "pipeline_rig.h"
#include "xlate.h"

#define N_VMS 3

static int
write_topology(char *path, size_t len)
{
	FILE *f = pipeline_rig_topology(path, len, "test_ct_label", "");
	static const char *const flows[] = {
		"table=0,priority=10,ip,in_port=vm0,actions=ct(table=1,zone=1)",
		"table=0,priority=10,ip,in_port=vm1,actions=ct(commit,zone=1,"
		"exec(set_field:0x1->ct_label)),output:vm0",
		"table=0,priority=10,ip,in_port=vm2,actions=ct(commit,zone=1,"
		"exec(load:0x1->NXM_NX_CT_LABEL[64],"
		"load:0x3->NXM_NX_CT_LABEL[4..5])),output:vm0",
		"table=1,priority=100,ct_state=+trk+est,ct_label=0x1/0x1,ip,"
		"actions=drop",
		"table=1,priority=90,ct_state=+trk,ct_label=0x2/0x6,ip,"
		"actions=output:vm2",
		"table=1,priority=10,ip,actions=output:vm1",
	};

	return pipeline_rig_finish(f, "ctlbl", N_VMS, flows,
				   RTE_DIM(flows));
}

static struct port *vm[N_VMS];

static void
ip_key(struct flow_key *k, uint32_t in_port)
{
	flow_key_zero(k);
	k->in_port = (uint16_t)in_port;
	k->dl_type = RTE_BE16(RTE_ETHER_TYPE_IPV4);
	k->nw_src = RTE_BE32(0x0a000001);
	k->nw_dst = RTE_BE32(0x0a000002);
	k->nw_proto = IPPROTO_UDP;
}

static void
predicates(const struct dp_snapshot *s)
{
	const struct ct_label_pred *p = s->label_preds;
	uint64_t l3[2] = { 3, 0 }, l5[2] = { 5, 0 }, l0[2] = { 0, 0 };
	uint64_t hi[2] = { 1, 1 };	/* tracker order: [0] low */

	CHECK(s->label_preds_used == 0x3, "used %#x", s->label_preds_used);
	CHECK(p[0].value[1] == 1 && p[0].mask[1] == 1 && !p[0].mask[0] &&
	      p[1].value[1] == 2 && p[1].mask[1] == 6, "slots %#lx/%#lx "
	      "%#lx/%#lx", p[0].value[1], p[0].mask[1], p[1].value[1],
	      p[1].mask[1]);
	CHECK_EXPR(dp_snapshot_label_bits(s, l3) == 0x3);
	CHECK_EXPR(dp_snapshot_label_bits(s, l5) == 0x1);
	CHECK_EXPR(dp_snapshot_label_bits(s, l0) == 0);
	CHECK_EXPR(dp_snapshot_label_bits(s, hi) == 0x1);
}

/* A recirculated pass (after vm0's ct(table=1)) with bits */
static void
recirc_xlate(const struct dp_snapshot *s, uint8_t id, uint8_t state,
	     uint16_t bits, struct xlate_out *xo)
{
	struct flow_key k;

	ip_key(&k, vm[0]->ofport);
	k.recirc_id = id;
	k.ct_state = state;
	k.ct_zone = 1;
	k.ct_label_bits = bits;
	xlate(s, &k, xo);
}

static void
masks_and_outcomes(const struct dp_snapshot *s)
{
	struct xlate_out first, xo;
	struct flow_key k;
	uint8_t est = OFP_CS_TRK | OFP_CS_EST;

	ip_key(&k, vm[0]->ofport);
	xlate(s, &k, &first);
	CHECK(first.actions.n == 2 &&
	      first.actions.act[1].type == DP_ACT_RECIRC &&
	      first.mask.ct_label_bits == 0, "first pass: n %u mask %#x",
	      first.actions.n, first.mask.ct_label_bits);
	uint8_t id = (uint8_t)first.actions.act[1].port;

	/* labelled, established: dropped; only predicate 0 decided it */
	recirc_xlate(s, id, est, 0x1, &xo);
	CHECK(xo.actions.n == 1 && xo.actions.act[0].type == DP_ACT_DROP &&
	      xo.mask.ct_label_bits == 0x1, "est+label: n %u mask %#x",
	      xo.actions.n, xo.mask.ct_label_bits);
	CHECK_EXPR(xo.mask.in_port == UINT16_MAX && !xo.mask.tun_id);
	xlate_out_release(&xo);

	/* every label value with the same bits takes the same megaflow:
	 * bits 0x1 whatever bit 1 says, since rule 1 is never reached */
	recirc_xlate(s, id, est, 0x3, &xo);
	CHECK(xo.actions.act[0].type == DP_ACT_DROP &&
	      xo.mask.ct_label_bits == 0x1, "bits 3: mask %#x",
	      xo.mask.ct_label_bits);
	xlate_out_release(&xo);

	/* unlabelled: both predicates looked at, to vm1 */
	recirc_xlate(s, id, est, 0, &xo);
	CHECK(pipeline_rig_outputs_to(&xo.actions, vm[1]) &&
	      xo.mask.ct_label_bits == 0x3,
	      "est: mask %#x", xo.mask.ct_label_bits);
	xlate_out_release(&xo);

	/* predicate 1 (label & 6 == 2): to vm2 */
	recirc_xlate(s, id, est, 0x2, &xo);
	CHECK(pipeline_rig_outputs_to(&xo.actions, vm[2]) &&
	      xo.mask.ct_label_bits == 0x3,
	      "pred 1: mask %#x", xo.mask.ct_label_bits);
	xlate_out_release(&xo);

	/* +new: rule 0's ct_state already fails, no bit 0 */
	recirc_xlate(s, id, OFP_CS_TRK | OFP_CS_NEW, 0x1, &xo);
	CHECK(pipeline_rig_outputs_to(&xo.actions, vm[1]) &&
	      xo.mask.ct_label_bits == 0x2,
	      "new: mask %#x", xo.mask.ct_label_bits);
	xlate_out_release(&xo);
	xlate_out_release(&first);
}

/* dump-flows' match of the megaflow a recirculated key with state and
 * bits gets; with only_bits, its mask's ct_label_bits cut to them */
static const char *
format_megaflow(const struct dp_snapshot *s, uint8_t id, uint8_t state,
		uint16_t bits, uint16_t only_bits)
{
	static char buf[512];
	struct xlate_out xo;
	struct flow_key k;

	recirc_xlate(s, id, state, bits, &xo);
	ip_key(&k, vm[0]->ofport);
	k.ct_label_bits = bits;
	if (only_bits)
		xo.mask.ct_label_bits = only_bits;
	xlate_format_megaflow_match(&k, &xo.mask, buf, sizeof buf);
	xlate_out_release(&xo);
	return buf;
}

static void
formats(const struct dp_snapshot *s)
{
	struct xlate_out first;
	struct flow_key k;
	const char *buf;

	ip_key(&k, vm[0]->ofport);
	xlate(s, &k, &first);
	uint8_t id = (uint8_t)first.actions.act[1].port;
	buf = format_megaflow(s, id, OFP_CS_TRK | OFP_CS_EST, 0x1, 0);
	CHECK(strstr(buf, "ct_label(0x1/0x1),"), "%s", buf);
	/* bit 0 clear (one-bit mask: label bit 0 is 0), bit 1 clear (a
	 * two-bit mask: not one value) */
	buf = format_megaflow(s, id, OFP_CS_TRK | OFP_CS_EST, 0, 0);
	CHECK(strstr(buf, "ct_label_pred(0/0x3),"), "%s", buf);
	/* bit 0 clear alone: stated */
	buf = format_megaflow(s, id, OFP_CS_TRK | OFP_CS_NEW, 0, 0x1);
	CHECK(strstr(buf, "ct_label(0/0x1),"), "%s", buf);
	xlate_out_release(&first);
}

static void
exec_slots(const struct dp_snapshot *s)
{
	struct xlate_out xo;
	struct flow_key k;
	char buf[512];

	ip_key(&k, vm[1]->ofport);
	xlate(s, &k, &xo);
	const struct dp_action *ct = &xo.actions.act[0];
	const struct dp_ct_label *l = &xo.actions.ct_labels[0];
	CHECK(ct->type == DP_ACT_CT && DP_CT_LABEL_SLOT(ct->slot) == 1 &&
	      !DP_CT_MARK_SLOT(ct->slot) && !(ct->slot & DP_CT_NAT) &&
	      l->value[0] == 1 &&
	      !l->value[1] && l->mask[0] == UINT64_MAX &&
	      l->mask[1] == UINT64_MAX, "set_field: slot %#x", ct->slot);
	xlate_format_actions(&xo.actions, buf, sizeof buf);
	CHECK(strstr(buf, "ct(commit,zone=1,label=0x1/0xffffffffffffffff"
		     "ffffffffffffffff)"), "%s", buf);
	xlate_out_release(&xo);

	ip_key(&k, vm[2]->ofport);
	xlate(s, &k, &xo);
	l = &xo.actions.ct_labels[0];
	/* bit 64 and bits 4-5: value 0x30 low, 1 high */
	CHECK(l->value[0] == 0x30 && l->value[1] == 1 &&
	      l->mask[0] == 0x30 && l->mask[1] == 1, "load: %#lx %#lx / "
	      "%#lx %#lx", l->value[1], l->value[0], l->mask[1], l->mask[0]);
	xlate_out_release(&xo);
}

/* The PMD is not launched: the test takes the new snapshot for it and
 * revalidates as its loop would. */
static void
pmd_revalidate(struct pmd *pmd)
{
	pmd->dp.snap = dp_snapshot_get();
	dp_revalidate(&pmd->dp);
	pmd->dp.seen_gen = pmd->dp.snap->gen;
}

static void
renumbering(struct pmd *pmd)
{
	struct dp_ctx *ctx = &pmd->dp;
	struct xlate_out first;
	struct flow_key k;
	char err[256];
	int bad;

	ip_key(&k, vm[0]->ofport);
	xlate(ctx->snap, &k, &first);
	uint8_t id = (uint8_t)first.actions.act[1].port;	/* held */
	CHECK_EXPR(dp_upcall(ctx, &k, NULL) != NULL);
	k.recirc_id = id;
	k.ct_zone = 1;
	k.ct_state = OFP_CS_TRK | OFP_CS_EST;
	k.ct_label_bits = 0x1;
	CHECK_EXPR(dp_upcall(ctx, &k, NULL) != NULL);
	k.ct_state = OFP_CS_TRK | OFP_CS_NEW;
	k.ct_label_bits = 0;
	CHECK_EXPR(dp_upcall(ctx, &k, NULL) != NULL);
	CHECK(dpcls_count(ctx->cls) == 3, "%u", dpcls_count(ctx->cls));

	/* a third predicate, below every other rule: nothing changes */
	const char *add[] = { "table=1,priority=5,ct_label=0x8/0x8,ip,"
			      "actions=drop" };
	CHECK_EXPR(!ofproto_add_flows(add, 1, &bad, err, sizeof err));
	pmd_revalidate(pmd);
	CHECK(dpcls_count(ctx->cls) == 3 && ctx->snap->label_preds_used == 7,
	      "%u megaflows, used %#x", dpcls_count(ctx->cls),
	      ctx->snap->label_preds_used);
	/* its slot freed: the megaflows matching label bits go */
	CHECK_EXPR(ofproto_del_flows("table=1,priority=5,ct_label=0x8/0x8,ip",
				     true, err, sizeof err) == 1);
	pmd_revalidate(pmd);
	CHECK(dpcls_count(ctx->cls) == 1 && ctx->snap->label_preds_used == 3,
	      "%u megaflows, used %#x", dpcls_count(ctx->cls),
	      ctx->snap->label_preds_used);
	dp_flush_flows(ctx);
	xlate_out_release(&first);
}

static void
limit_and_slots(void)
{
	char err[256], flow[160];
	const char *flows[16];
	char texts[16][160];
	struct ct_label_pred_stats st;
	int bad = -2;
	uint32_t n_rules = ofproto_n_rules();

	/* 2 in use: 14 more fit, a 15th (the 17th in all) does not */
	for (int i = 0; i < 15; i++) {
		snprintf(texts[i], sizeof texts[i], "table=1,priority=50,"
			 "ct_label=0x%x/0xff00,ip,actions=output:vm1",
			 (i + 1) << 8);
		flows[i] = texts[i];
	}
	CHECK(ofproto_add_flows(flows, 15, &bad, err, sizeof err) == -1 &&
	      bad == 14 && strstr(err, "ct_label=0xf00/0xff00: too many "
				  "distinct ct_label matches"), "bad %d: %s",
	      bad, err);
	ct_label_preds_get_stats(&st);
	CHECK(st.in_use == 2 && st.refused == 1 &&
	      ofproto_n_rules() == n_rules, "in use %u refused %lu",
	      st.in_use, st.refused);
	CHECK_EXPR(!ofproto_add_flows(flows, 14, &bad, err, sizeof err));
	ct_label_preds_get_stats(&st);
	CHECK(st.in_use == 16, "in use %u", st.in_use);
	snprintf(flow, sizeof flow, "%s", flows[14]);
	flows[0] = flow;
	CHECK_EXPR(ofproto_add_flows(flows, 1, &bad, err, sizeof err) == -1);
	/* a rule reusing a predicate in use still fits */
	flows[0] = "table=1,priority=51,ct_label=0x1/0x1,udp,actions=drop";
	CHECK_EXPR(!ofproto_add_flows(flows, 1, &bad, err, sizeof err));

	/* del-flows frees slot 1 (0x2/0x6): the others keep their slots */
	const struct dp_snapshot *s = dp_snapshot_get();
	uint16_t used = s->label_preds_used;
	struct ct_label_pred p0 = s->label_preds[0];
	CHECK_EXPR(used == 0xffff);
	CHECK_EXPR(ofproto_del_flows("table=1,priority=90,ct_state=+trk,"
				     "ct_label=0x2/0x6,ip", true, err,
				     sizeof err) == 1);
	s = dp_snapshot_get();
	CHECK(s->label_preds_used == 0xfffd &&
	      s->label_preds_gen == s->gen &&
	      !memcmp(&s->label_preds[0], &p0, sizeof p0),
	      "used %#x gen %lu/%lu", s->label_preds_used, s->label_preds_gen,
	      s->gen);
	/* the next new predicate takes the free slot */
	flows[0] = flow;
	uint64_t gen = s->label_preds_gen;
	CHECK_EXPR(!ofproto_add_flows(flows, 1, &bad, err, sizeof err));
	s = dp_snapshot_get();
	CHECK(s->label_preds_used == 0xffff &&
	      s->label_preds[1].value[1] == 0xf00 &&
	      s->label_preds_gen == gen, "used %#x", s->label_preds_used);
}

int
main(void)
{
	struct vxs_config cfg;
	struct rte_mempool *pool;
	struct pmd *pmd;
	struct port *nic;

	if (pipeline_rig_up("test_ct_label", write_topology, &cfg, &pool,
			    &pmd, &nic, vm, N_VMS))
		return 1;
	const struct dp_snapshot *s = pmd->dp.snap;

	predicates(s);
	masks_and_outcomes(s);
	formats(s);
	exec_slots(s);
	renumbering(pmd);
	limit_and_slots();

	pipeline_rig_down(&cfg, pool);
	return unit_test_report();
}
