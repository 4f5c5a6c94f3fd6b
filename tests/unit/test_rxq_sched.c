/* SPDX-License-Identifier: BSD-3-Clause
 * OVS's rx queue scheduling (app/pmd/pmd_rxq_sched.h) against OVS's own
 * examples (Documentation/topics/dpdk/pmd.rst, v3.1) and its rules:
 * roundrobin, cycles (up and down), group (lowest load), pinning with
 * pmd-rxq-isolate on and off, a queue pinned to a core that is no PMD,
 * NUMA nodes, the log lines; the auto load balancer's dry run (variance
 * now and after, improvement, the verdict), its overload counter and
 * timer; the measurement window.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "ds.h"
#include "pmd_rxq_sched.h"
#include "unit_test.h"

#define Q(port_, qid_, name_, load_)                                       \
	{ .port = (port_), .qid = (qid_), .name = (name_), .numa = 0,       \
	  .pinned_lcore = -1, .load = (load_), .cur_pmd = -1 }
#define PMD(core) { .lcore = (core), .numa = 0, .window_cycles = 1000 }

static const struct rxq_sched_opts roundrobin = { CFG_RXQ_ASSIGN_ROUNDROBIN,
						  true };
static const struct rxq_sched_opts cycles = { CFG_RXQ_ASSIGN_CYCLES, true };
static const struct rxq_sched_opts group = { CFG_RXQ_ASSIGN_GROUP, true };

/* The core each queue went to, as "3 7 8 ...", -1 for none. */
static const char *
cores(const struct rxq_sched_q *q, size_t n, const struct rxq_sched_pmd *p)
{
	static char buf[256];
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n; i++)
		off += snprintf(buf + off, sizeof buf - off, "%s%d",
				i ? " " : "",
				q[i].pmd < 0 ? -1 : (int)p[q[i].pmd].lcore);
	return buf;
}

#define CHECK_CORES(q, p, want)                                            \
	do {                                                               \
		const char *got_ = cores(q, RTE_DIM(q), p);                \
		CHECK(strcmp(got_, want) == 0, "cores '%s', want '%s'",    \
		      got_, want);                                         \
	} while (0)

#define CHECK_LOG(log, text)                                               \
	CHECK(strstr(ds_cstr(&(log)), text) != NULL,                       \
	      "log lacks \"%s\":\n%s", text, ds_cstr(&(log)))

/* OVS's example: P0Q0 P0Q1 P1Q0 P1Q1 P1Q2 on cores 3, 7, 8 give
 * 3: P0Q0 P1Q1, 7: P0Q1 P1Q2, 8: P1Q0, whatever the loads. The PMDs are
 * given out of core order: the scheduler sorts them. */
static void
test_roundrobin(void)
{
	struct rxq_sched_q q[] = { Q(0, 0, "p0", 5), Q(0, 1, "p0", 900),
				   Q(1, 0, "p1", 0), Q(1, 1, "p1", 7),
				   Q(1, 2, "p1", 1) };
	struct rxq_sched_pmd p[] = { PMD(8), PMD(3), PMD(7) };
	struct ds log;

	ds_init(&log);
	CHECK_EXPR(rxq_sched_assign(q, RTE_DIM(q), p, RTE_DIM(p), &roundrobin,
				    &log) == 0);
	CHECK_CORES(q, p, "3 7 8 3 7");
	CHECK(p[1].n_rxqs == 2 && p[2].n_rxqs == 2 && p[0].n_rxqs == 1,
	      "counts %u %u %u", p[1].n_rxqs, p[2].n_rxqs, p[0].n_rxqs);
	CHECK_EXPR(p[1].load == 5 + 7 && p[2].load == 900 + 1 &&
		   p[0].load == 0);
	/* roundrobin logs no cycles */
	CHECK_LOG(log, "Performing pmd to rx queue assignment using "
		       "roundrobin algorithm.\n");
	CHECK_LOG(log, "Core  3 on numa node 0 assigned port 'p0' rx queue "
		       "0.\n");
	CHECK_EXPR(strstr(ds_cstr(&log), "measured") == NULL);
	ds_destroy(&log);
}

/* 4 queues of loads 100, 50, 30, 10 on cores 1 and 2: highest first,
 * cores up then down (1, 2, 2, 1): 1 gets 100 + 10, 2 gets 50 + 30. */
static void
test_cycles(void)
{
	struct rxq_sched_q q[] = { Q(0, 0, "dpdk0", 30), Q(0, 1, "dpdk0", 100),
				   Q(1, 0, "vh0", 10), Q(2, 0, "vh1", 50) };
	struct rxq_sched_pmd p[] = { PMD(1), PMD(2) };
	struct ds log;

	ds_init(&log);
	CHECK_EXPR(rxq_sched_assign(q, RTE_DIM(q), p, RTE_DIM(p), &cycles,
				    &log) == 0);
	CHECK_CORES(q, p, "2 1 1 2");
	CHECK(p[0].load == 110 && p[1].load == 80, "loads %" PRIu64
	      " %" PRIu64, p[0].load, p[1].load);
	CHECK_LOG(log, "Core  1 on numa node 0 assigned port 'dpdk0' rx queue"
		       " 1 (measured processing cycles 100).\n");
	CHECK_LOG(log, "Core  1 on numa node 0 assigned port 'vh0' rx queue 0"
		       " (measured processing cycles 10).\n");
	ds_destroy(&log);

	/* OVS's example: Q0 30 %, Q1 80, Q3 60, Q4 70, Q5 10 on 3, 7, 8 give
	 * 3: Q1, 7: Q4 Q5, 8: Q3 Q0. */
	struct rxq_sched_q d[] = { Q(0, 0, "p", 30), Q(0, 1, "p", 80),
				   Q(0, 3, "p", 60), Q(0, 4, "p", 70),
				   Q(0, 5, "p", 10) };
	struct rxq_sched_pmd dp[] = { PMD(3), PMD(7), PMD(8) };
	rxq_sched_assign(d, RTE_DIM(d), dp, RTE_DIM(dp), &cycles, NULL);
	CHECK_CORES(d, dp, "8 3 8 7 7");

	/* equal loads: by port number, then queue id (OVS's tie-break) */
	struct rxq_sched_q e[] = { Q(5, 1, "b", 0), Q(5, 0, "b", 0),
				   Q(2, 0, "a", 0) };
	struct rxq_sched_pmd ep[] = { PMD(1), PMD(2) };
	rxq_sched_assign(e, RTE_DIM(e), ep, RTE_DIM(ep), &cycles, NULL);
	CHECK_CORES(e, ep, "2 2 1");	/* a0 -> 1, b0 -> 2, b1 -> 2 */
}

/* OVS's example: Q0 10 %, Q1 80, Q3 50, Q4 70, Q5 10 on 3, 7, 8 give
 * 3: Q1, 7: Q4, 8: Q3 Q0 Q5 (each to the lowest load so far). */
static void
test_group(void)
{
	struct rxq_sched_q q[] = { Q(0, 0, "p", 10), Q(0, 1, "p", 80),
				   Q(0, 3, "p", 50), Q(0, 4, "p", 70),
				   Q(0, 5, "p", 10) };
	struct rxq_sched_pmd p[] = { PMD(3), PMD(7), PMD(8) };

	rxq_sched_assign(q, RTE_DIM(q), p, RTE_DIM(p), &group, NULL);
	CHECK_CORES(q, p, "8 3 8 7 8");
	CHECK_EXPR(p[0].load == 80 && p[1].load == 70 && p[2].load == 70);

	/* no measured load: the fewest queues, the first core on ties */
	struct rxq_sched_q z[] = { Q(0, 0, "p", 0), Q(0, 1, "p", 0),
				   Q(0, 2, "p", 0), Q(0, 3, "p", 0),
				   Q(0, 4, "p", 0) };
	struct rxq_sched_pmd zp[] = { PMD(1), PMD(2) };
	rxq_sched_assign(z, RTE_DIM(z), zp, RTE_DIM(zp), &group, NULL);
	CHECK_CORES(z, zp, "1 2 1 2 1");
}

/* Queue 0 of dpdk0 pinned to core 1 (of 1, 2) and 3 queues unpinned. */
static void
test_isolate(void)
{
	struct rxq_sched_q q[] = { Q(0, 0, "dpdk0", 10), Q(0, 1, "dpdk0", 40),
				   Q(1, 0, "vh0", 30), Q(2, 0, "vh1", 20) };
	struct rxq_sched_pmd p[] = { PMD(1), PMD(2) };
	struct rxq_sched_opts o = group;
	struct ds log;

	q[0].pinned_lcore = 1;
	ds_init(&log);
	/* isolate (default): core 1 polls its pinned queue only */
	rxq_sched_assign(q, RTE_DIM(q), p, RTE_DIM(p), &cycles, &log);
	CHECK_CORES(q, p, "1 2 2 2");
	CHECK_EXPR(q[0].pinned && !q[1].pinned);
	CHECK_EXPR(p[0].isolated && !p[1].isolated);
	CHECK_EXPR(p[0].n_rxqs == 1 && p[1].n_rxqs == 3 && p[1].load == 90);
	CHECK_LOG(log, "Core  1 on numa node 0 is pinned with port 'dpdk0' rx"
		       " queue 0 (measured processing cycles 10)\n");

	/* isolate off (group only): core 1 takes unpinned ones too; loads
	 * 40 -> 2 (1 has 10), 30 -> 1 (10 < 40), 20 -> 1 (40 = 40: the
	 * first in core order; OVS breaks no tie by queue count) */
	o.isolate = false;
	rxq_sched_assign(q, RTE_DIM(q), p, RTE_DIM(p), &o, NULL);
	CHECK_CORES(q, p, "1 2 1 1");
	CHECK_EXPR(!p[0].isolated && p[0].load == 60 && p[1].load == 40);

	/* isolate off is for group only: with cycles it stays on */
	ds_clear(&log);
	o = cycles;
	o.isolate = false;
	rxq_sched_assign(q, RTE_DIM(q), p, RTE_DIM(p), &o, &log);
	CHECK_CORES(q, p, "1 2 2 2");
	CHECK_LOG(log, "pmd-rxq-isolate can only be set false when using "
		       "pmd-rxq-assign=group\n");

	/* every PMD isolated: the unpinned queues are not polled */
	ds_clear(&log);
	q[1].pinned_lcore = 2;
	rxq_sched_assign(q, RTE_DIM(q), p, RTE_DIM(p), &cycles, &log);
	CHECK_CORES(q, p, "1 2 -1 -1");
	CHECK_LOG(log, "No non-isolated pmd on any numa available for port "
		       "'vh0' rx queue 0 (measured processing cycles 30). This"
		       " rx queue will not be polled.\n");
	ds_destroy(&log);
}

/* Pinned to core 5, which is no PMD: scheduled as unpinned, a warning,
 * and the PMD it lands on stays non-isolated. */
static void
test_pinned_not_pmd(void)
{
	struct rxq_sched_q q[] = { Q(0, 0, "vh0", 10), Q(0, 1, "vh0", 20) };
	struct rxq_sched_pmd p[] = { PMD(1), PMD(2) };
	struct ds log;

	q[0].pinned_lcore = 5;
	ds_init(&log);
	rxq_sched_assign(q, RTE_DIM(q), p, RTE_DIM(p), &cycles, &log);
	CHECK_CORES(q, p, "2 1");
	CHECK_EXPR(!q[0].pinned && !p[0].isolated && !p[1].isolated);
	CHECK_LOG(log, "Core  5 cannot be pinned with port 'vh0' rx queue 0."
		       " Use pmd-cpu-mask to enable a pmd on core 5. An "
		       "alternative core will be assigned.\n");
	ds_destroy(&log);
}

/* Two nodes: a queue goes to its port's node; when that node has no
 * non-isolated PMD, to another, with OVS's warning. */
static void
test_numa(void)
{
	struct rxq_sched_q q[] = { Q(0, 0, "n1", 10), Q(1, 0, "n0", 20),
				   Q(0, 1, "n1", 5) };
	struct rxq_sched_pmd p[] = { PMD(4), PMD(1), PMD(5) };
	struct ds log;

	p[0].numa = 1;
	p[2].numa = 1;
	q[0].numa = q[2].numa = 1;
	rxq_sched_assign(q, RTE_DIM(q), p, RTE_DIM(p), &cycles, NULL);
	CHECK_CORES(q, p, "4 1 5");

	q[1].pinned_lcore = 1;		/* node 0's only PMD isolated */
	q[1].numa = 1;
	q[0].numa = 0;
	ds_init(&log);
	rxq_sched_assign(q, RTE_DIM(q), p, RTE_DIM(p), &cycles, &log);
	CHECK_CORES(q, p, "4 1 5");
	CHECK_LOG(log, "There's no available (non-isolated) pmd thread on "
		       "numa node 0. Port 'n1' rx queue 0 will be assigned to "
		       "a pmd on numa node 1.");
	ds_destroy(&log);
}

static void
test_variance(void)
{
	uint64_t a[] = { 98, 1 }, b[] = { 50, 49 }, c[] = { 0, 0, 0 };

	CHECK_EXPR(rxq_sched_variance(a, 2) == 2352);	/* mean 49 */
	CHECK_EXPR(rxq_sched_variance(b, 2) == 0);	/* mean 49: 1/2 */
	CHECK_EXPR(rxq_sched_variance(c, 3) == 0);
	CHECK_EXPR(rxq_sched_variance(a, 0) == 0);
}

/* Two PMDs, windows of 1000 cycles; core 1 polls loads a and b, core 2
 * polls c; core 1 overloaded as given. */
static int
dry_run(uint64_t a, uint64_t b, uint64_t c, bool overloaded,
	const struct rxq_sched_opts *o, unsigned improvement,
	struct rxq_sched_dry_run *r, struct ds *log)
{
	struct rxq_sched_q q[] = { Q(0, 0, "vh0", a), Q(1, 0, "vh1", b),
				   Q(2, 0, "vh2", c) };
	struct rxq_sched_pmd p[] = { PMD(1), PMD(2) };
	struct rxq_sched_alb_params alb = { 95, improvement };

	q[0].cur_pmd = q[1].cur_pmd = 0;
	q[2].cur_pmd = 1;
	p[0].overloaded = overloaded;
	int rc = rxq_sched_dry_run(q, RTE_DIM(q), p, RTE_DIM(p), o, &alb, r,
				   log);
	/* the inputs are left as they were */
	CHECK_EXPR(q[0].cur_pmd == 0 && q[2].cur_pmd == 1 &&
		   p[0].n_rxqs == 0 && p[0].load == 0);
	return rc;
}

static void
test_auto_lb(void)
{
	struct rxq_sched_dry_run r;
	struct ds log;

	ds_init(&log);
	/* clearly unbalanced: 98 % and 1 % now, 50 % and 49 % after */
	CHECK_EXPR(dry_run(500, 480, 10, true, &cycles, 25, &r, &log) == 0);
	CHECK_EXPR(r.overloaded && r.worth_trying && !r.cross_numa);
	CHECK(r.cur_variance == 2352 && r.est_variance == 0 &&
	      r.improvement == 100 && r.rebalance,
	      "cur %" PRIu64 " est %" PRIu64 " imp %" PRIu64 " %d",
	      r.cur_variance, r.est_variance, r.improvement, r.rebalance);
	CHECK_LOG(log, "Numa node 0. Current variance 2352 Estimated variance"
		       " 0. Variance improvement 100%.\n");
	CHECK_LOG(log, "PMD load variance improvement threshold 25% is met.");
	CHECK_EXPR(r.numa == 0);

	/* 98/1 -> 90/9: variance 2352 -> 1640, 30 %: yes at 25, no at 35 */
	dry_run(900, 80, 10, true, &cycles, 25, &r, NULL);
	CHECK(r.cur_variance == 2352 && r.est_variance == 1640 &&
	      r.improvement == 30 && r.rebalance, "est %" PRIu64 " imp %"
	      PRIu64, r.est_variance, r.improvement);
	ds_clear(&log);
	dry_run(900, 80, 10, true, &cycles, 35, &r, &log);
	CHECK_EXPR(r.improvement == 30 && !r.rebalance);
	CHECK_LOG(log, "threshold 35% is not met.");
	/* group estimates the same here */
	dry_run(900, 80, 10, true, &group, 30, &r, NULL);
	CHECK_EXPR(r.est_variance == 1640 && r.rebalance);

	/* no PMD over the load threshold for the whole window: no */
	ds_clear(&log);
	dry_run(500, 480, 10, false, &cycles, 25, &r, &log);
	CHECK_EXPR(!r.overloaded && r.worth_trying && !r.rebalance);
	CHECK_LOG(log, "nothing to do, no PMD over the load threshold");
	CHECK_EXPR(r.improvement == 0 && r.numa == -1);

	/* roundrobin: never */
	dry_run(500, 480, 10, true, &roundrobin, 25, &r, NULL);
	CHECK_EXPR(!r.worth_trying && !r.rebalance);

	/* already balanced: no improvement */
	dry_run(480, 10, 500, true, &cycles, 25, &r, NULL);	/* 49/50 */
	CHECK_EXPR(r.worth_trying && r.improvement == 0 && !r.rebalance);
	ds_destroy(&log);

	/* one queue per PMD, or one non-isolated PMD: nothing to move */
	struct rxq_sched_q q[] = { Q(0, 0, "a", 990), Q(1, 0, "b", 10) };
	struct rxq_sched_pmd p[] = { PMD(1), PMD(2) };
	struct rxq_sched_alb_params alb = { 95, 25 };
	q[0].cur_pmd = 0;
	q[1].cur_pmd = 1;
	p[0].overloaded = true;
	rxq_sched_dry_run(q, 2, p, 2, &cycles, &alb, &r, NULL);
	CHECK_EXPR(!r.worth_trying && !r.rebalance);

	/* an isolated PMD's overload does not count, nor its variance */
	struct rxq_sched_q iq[] = { Q(0, 0, "a", 990), Q(1, 0, "b", 10),
				    Q(2, 0, "c", 10) };
	struct rxq_sched_pmd ip[] = { PMD(1), PMD(2), PMD(3) };
	iq[0].pinned_lcore = 1;
	iq[0].cur_pmd = 0;
	iq[1].cur_pmd = iq[2].cur_pmd = 1;
	ip[0].overloaded = true;
	rxq_sched_dry_run(iq, 3, ip, 3, &cycles, &alb, &r, NULL);
	CHECK_EXPR(!r.overloaded && !r.rebalance);
}

static void
test_overload_and_timer(void)
{
	struct rxq_sched_overload o = { 0 };
	struct rxq_sched_timer t = { 0 };

	for (int i = 0; i < RXQ_SCHED_INTERVAL_MAX - 1; i++)
		CHECK_EXPR(rxq_sched_overload_update(&o, 96, 100, 95) == 96);
	CHECK_EXPR(!rxq_sched_overloaded(&o));	/* 11 of 12 intervals */
	rxq_sched_overload_update(&o, 95, 100, 95);	/* "at or over" */
	CHECK_EXPR(rxq_sched_overloaded(&o));
	rxq_sched_overload_update(&o, 100, 100, 95);
	CHECK_EXPR(rxq_sched_overloaded(&o));
	CHECK_EXPR(rxq_sched_overload_update(&o, 94, 100, 95) == 94);
	CHECK_EXPR(!rxq_sched_overloaded(&o) && o.intervals == 0);
	CHECK_EXPR(rxq_sched_overload_update(&o, 5, 0, 95) == 0);

	/* 3000 ms (0.05 min): armed at 1000, due after 4000, re-armed */
	CHECK_EXPR(!rxq_sched_timer_due(&t, 1000, 3000));
	CHECK_EXPR(!rxq_sched_timer_due(&t, 4000, 3000));
	CHECK_EXPR(rxq_sched_timer_due(&t, 4001, 3000));
	CHECK_EXPR(!rxq_sched_timer_due(&t, 5000, 3000));
	CHECK_EXPR(rxq_sched_timer_due(&t, 7002, 3000));
}

static void
test_hist(void)
{
	struct rxq_sched_hist h = { 0 };
	uint64_t want = 0;

	CHECK_EXPR(rxq_sched_hist_sum(&h, RXQ_SCHED_INTERVAL_MAX) == 0);
	for (uint64_t v = 1; v <= 14; v++)
		rxq_sched_hist_push(&h, v);
	for (uint64_t v = 3; v <= 14; v++)	/* the newest 12 */
		want += v;
	CHECK_EXPR(rxq_sched_hist_sum(&h, 1) == 14);
	CHECK_EXPR(rxq_sched_hist_sum(&h, 2) == 27);
	CHECK_EXPR(rxq_sched_hist_sum(&h, RXQ_SCHED_INTERVAL_MAX) == want);
	CHECK_EXPR(rxq_sched_hist_sum(&h, 100) == want);
}

int
main(void)
{
	test_roundrobin();
	test_cycles();
	test_group();
	test_isolate();
	test_pinned_not_pmd();
	test_numa();
	test_variance();
	test_auto_lb();
	test_overload_and_timer();
	test_hist();
	return unit_test_report();
}
