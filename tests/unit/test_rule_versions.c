/* SPDX-License-Identifier: BSD-3-Clause
 * Publishing without copying rules and revalidating by table (issue 26
 * step 5), in the real pipeline (pipeline_rig.h, a PMD driven from this
 * thread):
 *  - a table's rules reach the snapshot as pointers in priority order
 *    (then age), and the lookup takes the highest priority that matches;
 *  - a batch is invisible until its publish: the snapshot a PMD holds
 *    keeps the rules it had, even the ones the batch replaced (a new rule
 *    object: copy on write), and those are freed only after the grace
 *    period, which a PMD that does not answer defers without blocking;
 *  - snapshots share the arrays of the tables that did not change;
 *  - a rule change revalidates only the megaflows that looked up the
 *    table it changed, counted as skipped for the others; a change that
 *    is not one of rules revalidates them all.
 */
#include <stdio.h>
#include <string.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include "unit_test.h"
#include "pipeline_rig.h"
#include "dp_rule_table.h"
#include "dpcls.h"
#include "xlate.h"

static struct rte_mempool *pool;
static struct port *nic, *vm_port[2];
static struct pmd *pmd;

/* vm0's packets look up tables 0 and 1, vm1's table 0 only */
static const char *const flows[] = {
	"table=0,priority=10,in_port=vm0,actions=resubmit(,1)",
	"table=0,priority=10,in_port=vm1,actions=output:vm0",
	"table=1,priority=10,actions=output:vm1",
};

static int
write_topology(char *path, size_t len)
{
	return pipeline_rig_finish(pipeline_rig_topology(path, len,
							 "test_rule_versions",
							 ""),
				   "rv", 2, flows, RTE_DIM(flows));
}

/* An IPv4/UDP frame from VM vm. */
static struct rte_mbuf *
vm_frame(int vm)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint8_t *p = m ? (uint8_t *)rte_pktmbuf_append(m, 64) : NULL;

	if (!p)
		return m;
	memset(p, 0, 64);
	struct rte_ether_hdr *e = (struct rte_ether_hdr *)p;
	e->dst_addr = (struct rte_ether_addr){ { 0x52, 0x54, 0, 0, 0, 9 } };
	e->src_addr = (struct rte_ether_addr){ { 0x52, 0x54, 0, 0, 0,
						 (uint8_t)vm } };
	e->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV4);
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(p + 14);
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->total_length = RTE_BE16(50);
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = RTE_BE32(0xc0020001);
	ip->dst_addr = RTE_BE32(0xc0010009);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	return m;
}

static void
send_from(int vm)
{
	struct pkt_batch b = { .n = 1 };

	b.pkts[0] = vm_frame(vm);
	dp_process_burst(&pmd->dp, vm_port[vm], &b);
	dp_tx_flush_all(&pmd->dp);
}

static unsigned
drain(int vm)
{
	struct rte_mbuf *rx[32];
	uint16_t k = rte_eth_rx_burst(vm_port[vm]->eth_port_id, 0, rx, 32);

	for (uint16_t i = 0; i < k; i++)
		rte_pktmbuf_free(rx[i]);
	return k;
}

/* What the PMD's loop does when it sees a new generation. */
static void
pmd_sees_publish(void)
{
	pmd->dp.snap = dp_snapshot_get();
	if (pmd->dp.snap->gen != pmd->dp.seen_gen) {
		dp_revalidate(&pmd->dp);
		pmd->dp.seen_gen = pmd->dp.snap->gen;
	}
}

static int
add(const char *flow)
{
	char err[256];
	int bad;
	int rc = ofproto_add_flows(&flow, 1, &bad, err, sizeof err);

	CHECK(rc == 0, "%s: %s", flow, err);
	return rc;
}

/* A hand-made snapshot: the arrays are in priority order whatever the
 * order given, same priorities by age, and the lookup takes the highest
 * priority that matches. */
static void
test_priority_order(void)
{
	static const char *const txt[] = {
		"priority=5,ip,actions=output:3",
		"priority=50,ip,nw_dst=10.0.0.1,actions=output:1",
		"priority=20,ip,actions=output:2",
		"priority=20,ip,nw_src=10.9.9.9,actions=output:4",
		"table=3,priority=60,ip,actions=output:5",
	};
	struct ofp_rule r[RTE_DIM(txt)];
	struct dp_snapshot s;
	struct xlate_out out;
	struct flow_key k;
	char err[256];

	memset(&s, 0, sizeof s);
	for (unsigned i = 0; i < RTE_DIM(txt); i++) {
		CHECK(ofp_parse_flow(txt[i], OFP_PARSE_ADD, NULL, &r[i], err,
				     sizeof err) == 0, "%s", err);
		r[i].uid = 10 + i;
	}
	CHECK_EXPR(dp_snapshot_set_rules(&s, r, RTE_DIM(txt)) == 0);
	const struct dp_rule_table *t0 = s.tables[0];
	CHECK(t0 && t0->n_rules == 4 && t0->rules[0]->priority == 50 &&
	      t0->rules[1]->uid == 12 && t0->rules[2]->uid == 13 &&
	      t0->rules[3]->priority == 5,
	      "table 0 in order: %u rules", t0 ? t0->n_rules : 0);
	CHECK_EXPR(s.tables[3] && s.tables[3]->n_rules == 1 && !s.tables[1]);

	flow_key_zero(&k);
	k.in_port = 7;
	k.dl_type = RTE_BE16(RTE_ETHER_TYPE_IPV4);
	k.nw_dst = RTE_BE32(0x0a000001);
	xlate(&s, &k, &out);
	CHECK(out.rule_uid == 11 && out.tables == 1, "nw_dst: rule %u tables "
	      "%#lx", out.rule_uid, (unsigned long)out.tables);
	xlate_out_release(&out);
	k.nw_dst = RTE_BE32(0x0a000002);
	xlate(&s, &k, &out);
	CHECK(out.rule_uid == 12, "priority 20, the older: rule %u",
	      out.rule_uid);
	xlate_out_release(&out);
	dp_snapshot_tables_release(&s);
}

/* The switch's own tables: a batch's rules in their place, in order. */
static void
test_table_order(void)
{
	const char *batch[] = {
		"table=2,priority=5,ip,actions=drop",
		"table=2,priority=50,ip,nw_dst=10.0.0.1,actions=drop",
		"table=2,priority=20,ip,nw_dst=10.0.0.2,actions=drop",
	};
	char err[256];
	int bad;

	CHECK_EXPR(ofproto_add_flows(batch, 3, &bad, err, sizeof err) == 0);
	CHECK_EXPR(add("table=2,priority=20,ip,nw_dst=10.0.0.3,actions=drop")
		   == 0);
	const struct dp_rule_table *t = dp_snapshot_get()->tables[2];
	CHECK(t && t->n_rules == 4 && t->rules[0]->priority == 50 &&
	      t->rules[1]->priority == 20 && t->rules[2]->priority == 20 &&
	      t->rules[1]->uid < t->rules[2]->uid &&
	      t->rules[3]->priority == 5, "table 2: %u rules",
	      t ? t->n_rules : 0);
	CHECK_EXPR(dp_snapshot_get()->n_rules == ofproto_n_rules());
}

/* While the PMD (online, not answering) holds the old snapshot, a batch
 * changes nothing it reads; the new one shares the untouched tables. */
static void
test_batch_and_sharing(void)
{
	const char *batch[] = {
		"table=1,priority=10,actions=output:vm0",	/* replaces */
		"table=3,priority=1,actions=drop",		/* new */
	};
	const struct ofproto_publish_stats *ps = ofproto_get_publish_stats();
	char err[256];
	int bad;

	rte_rcu_qsbr_thread_register(pmd_qsbr, pmd->idx);
	rte_rcu_qsbr_thread_online(pmd_qsbr, pmd->idx);
	const struct dp_snapshot *old = dp_snapshot_get();
	const struct ofp_rule *old_t1 = old->tables[1]->rules[0];
	uint32_t old_uid = old_t1->uid;
	uint64_t deferred = ps->deferred_frees;

	CHECK_EXPR(ofproto_add_flows(batch, 2, &bad, err, sizeof err) == 0);
	const struct dp_snapshot *s = dp_snapshot_get();
	/* the old snapshot, still readable: none of the batch */
	CHECK(old->tables[1]->rules[0] == old_t1 && old_t1->uid == old_uid &&
	      old_t1->actions[0].port == vm_port[1]->ofport && !old->tables[3],
	      "the old snapshot saw part of the batch");
	/* the new one: all of it, the replaced rule a new object */
	CHECK(s->tables[1]->rules[0] != old_t1 &&
	      s->tables[1]->rules[0]->uid == old_uid &&
	      s->tables[1]->rules[0]->actions[0].port == vm_port[0]->ofport &&
	      s->tables[3] && s->tables[3]->n_rules == 1,
	      "the new snapshot lacks part of the batch");
	CHECK(s->tables[0] == old->tables[0] &&
	      s->tables[2] == old->tables[2] &&
	      s->tables[0]->refs == 2 && s->tables[1] != old->tables[1],
	      "tables 0 and 2 shared, 1 not");
	CHECK(s->tables_changed == ((1u << 1) | (1u << 3)) && !s->reval_all,
	      "changed %#lx reval_all %d", (unsigned long)s->tables_changed,
	      s->reval_all);
	CHECK(ps->deferred_frees == deferred + 1, "the old snapshot's free "
	      "not deferred: %lu", (unsigned long)ps->deferred_frees);
	/* the PMD answers: the old snapshot and the replaced rule go */
	rte_rcu_qsbr_quiescent(pmd_qsbr, pmd->idx);
	ofproto_tick();
	CHECK_EXPR(s->tables[0]->refs == 1);
	rte_rcu_qsbr_thread_offline(pmd_qsbr, pmd->idx);
	rte_rcu_qsbr_thread_unregister(pmd_qsbr, pmd->idx);
	/* back as it was */
	CHECK_EXPR(add("table=1,priority=10,actions=output:vm1") == 0);
	CHECK_EXPR(ofproto_del_flows("table=3", false, err, sizeof err) == 1);
}

static void
test_revalidate_by_table(void)
{
	struct pmd_stats *st = &pmd->stats;
	char err[256];

	pmd_sees_publish();
	pmd_flush_flows(pmd);
	send_from(0);
	send_from(1);
	CHECK(drain(1) == 1 && drain(0) == 1, "forwarding");
	CHECK_EXPR(dpcls_count(pmd->dp.cls) == 2);

	/* table 5: neither megaflow looked it up */
	uint64_t reval = st->megaflows_revalidated;
	uint64_t skipped = st->megaflows_reval_skipped;
	CHECK_EXPR(add("table=5,priority=1,actions=drop") == 0);
	pmd_sees_publish();
	CHECK(st->megaflows_revalidated == reval &&
	      st->megaflows_reval_skipped == skipped + 2 &&
	      dpcls_count(pmd->dp.cls) == 2, "table 5: revalidated %lu "
	      "skipped %lu", (unsigned long)(st->megaflows_revalidated - reval),
	      (unsigned long)(st->megaflows_reval_skipped - skipped));

	/* table 1: vm0's megaflow only, which goes (new actions) */
	reval = st->megaflows_revalidated;
	skipped = st->megaflows_reval_skipped;
	uint64_t out = st->megaflows_revalidated_out;
	CHECK_EXPR(ofproto_mod_flows("table=1,actions=drop", false, err,
				     sizeof err) == 1);
	pmd_sees_publish();
	CHECK(st->megaflows_revalidated == reval + 1 &&
	      st->megaflows_reval_skipped == skipped + 1 &&
	      st->megaflows_revalidated_out == out + 1 &&
	      dpcls_count(pmd->dp.cls) == 1, "table 1: revalidated %lu "
	      "skipped %lu", (unsigned long)(st->megaflows_revalidated - reval),
	      (unsigned long)(st->megaflows_reval_skipped - skipped));
	send_from(0);
	CHECK(drain(0) == 0 && drain(1) == 0 &&
	      st->drops[DROP_RULE_DROP] > 0,
	      "table 1's new actions");

	/* not a rule change: every megaflow */
	reval = st->megaflows_revalidated;
	skipped = st->megaflows_reval_skipped;
	ofproto_publish();
	pmd_sees_publish();
	CHECK(st->megaflows_revalidated == reval + 2 &&
	      st->megaflows_reval_skipped == skipped, "reval_all: %lu",
	      (unsigned long)(st->megaflows_revalidated - reval));

	/* a PMD that missed a generation revalidates everything */
	reval = st->megaflows_revalidated;
	CHECK_EXPR(add("table=6,priority=1,actions=drop") == 0);
	CHECK_EXPR(add("table=7,priority=1,actions=drop") == 0);
	pmd_sees_publish();
	CHECK(st->megaflows_revalidated == reval + 2, "a generation missed: "
	      "%lu", (unsigned long)(st->megaflows_revalidated - reval));
	CHECK_EXPR(add("table=1,priority=10,actions=output:vm1") == 0);
	pmd_sees_publish();
}

int
main(void)
{
	struct vxs_config cfg;

	test_priority_order();
	if (pipeline_rig_up("test_rule_versions", write_topology, &cfg, &pool,
			    &pmd, &nic, vm_port, 2))
		return 1;
	test_table_order();
	test_batch_and_sharing();
	test_revalidate_by_table();
	pmd_flush_flows(pmd);
	pipeline_rig_down(&cfg, pool);
	return unit_test_report();
}
