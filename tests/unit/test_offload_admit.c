/* SPDX-License-Identifier: BSD-3-Clause
 * Admission by weight (drivers/offload/offload_admit.c) on the software
 * Flow Director model, with a fake PMD in the test thread: under the rate
 * limit the highest rates go first; with the table full a candidate waits
 * without a mark, a slightly hotter one never evicts, a much hotter one
 * evicts the coldest rule only once that rule has been installed for the
 * minimum residency, and the rule stays on the NIC until its holder has
 * let go (its DEL); the counters say so; a candidate within the rates'
 * noise never evicts; a destroy does not wait for the PMDs' grace period.
 * fifo admission refuses for good.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_malloc.h>
#include <rte_rcu_qsbr.h>
#include "offload_test.h"
#include "unit_test.h"

static struct offload_mgr *
mgr_weight(struct fdir_model *md, uint32_t max_marks, uint32_t rate,
	   uint32_t resident_ms)
{
	return mgr_admit(md, max_marks, rate, 64, 1, OFFLOAD_ADMIT_WEIGHT,
			 resident_ms);
}

/* Completions for pmd 0 within ms; none expected. */
static unsigned
quiet_for(struct offload_mgr *m, unsigned ms, struct offload_completion *c)
{
	usleep(ms * 1000);
	return offload_mgr_poll_completions(m, 0, c, 4);
}

static void
test_order_by_rate(void)
{
	struct fdir_model_pool *pp;
	struct fdir_model *md = model(64, 64, &pp);
	/* 20 inserts/s, burst 1: one every 50 ms */
	struct offload_mgr *m = mgr_weight(md, 64, 20, 1000);
	struct offload_completion c[16];
	struct offload_mgr_stats st;

	CHECK(md && m, "create");
	if (!md || !m)
		return;
	add_vm(m, 0, 1, 1, 5);		/* takes the only token */
	CHECK(wait_compl(m, 0, c, 1) == 1 && c[0].result == OFFLOAD_OK,
	      "blocker");
	/* rates in a scrambled order: the highest pps first */
	for (unsigned i = 0; i < 8; i++)
		CHECK(add_vm(m, 0, 10 + i, 10 + i, ((i * 3) % 8 + 1) * 1000) ==
		      0, "add %u", i);
	/* the slowest is refreshed to the top before its turn */
	uint64_t slow = 10 + 5;		/* (5 * 3) % 8 + 1 = 8 -> hottest */
	for (unsigned i = 0; i < 8; i++)
		if (((i * 3) % 8 + 1) == 1)
			slow = 10 + i;
	CHECK(offload_mgr_request_refresh(m, 0, slow, 100000) == 0, "refresh");
	unsigned n = wait_compl(m, 0, c, 8);
	CHECK(n == 8, "%u completions", n);
	CHECK(n && c[0].megaflow_id == slow, "first %lu, want refreshed %lu",
	      (unsigned long)c[0].megaflow_id, (unsigned long)slow);
	uint64_t prev = UINT64_MAX;
	bool ordered = true;
	for (unsigned i = 1; i < n; i++) {
		unsigned k = (unsigned)(c[i].megaflow_id - 10);
		uint64_t pps = ((k * 3) % 8 + 1) * 1000;
		if (pps > prev || c[i].result != OFFLOAD_OK)
			ordered = false;
		prev = pps;
	}
	CHECK(ordered, "not by rate");
	offload_mgr_get_stats(m, &st);
	CHECK(st.admission == OFFLOAD_ADMIT_WEIGHT && st.threshold_pps == 0 &&
	      st.evictions == 0 && st.candidates == 0 && st.installed == 9,
	      "admission %s threshold %lu evictions %lu candidates %u "
	      "installed %lu", offload_admission_name(st.admission),
	      (unsigned long)st.threshold_pps, (unsigned long)st.evictions,
	      st.candidates, (unsigned long)st.installed);
	offload_mgr_destroy(m);
	fdir_model_free(md);
	fdir_model_pool_free(pp);
}

/* waits up to 1 s for the thread's stats to satisfy cond */
#define WAIT_STATS(m, st, cond) do {					\
	uint64_t end_ = rte_get_tsc_cycles() + rte_get_tsc_hz();	\
	do {								\
		offload_mgr_get_stats(m, &st);				\
		if (cond)						\
			break;						\
		usleep(1000);						\
	} while (rte_get_tsc_cycles() < end_);				\
} while (0)

/* VMs 1 and 2 (megaflows 1, 2) at pps1, pps2 on an empty 2-rule table:
 * both installed, mark[megaflow] their marks. */
static bool
two_installed(struct offload_mgr *m, uint64_t pps1, uint64_t pps2,
	      uint32_t *mark)
{
	struct offload_completion c[2];

	add_vm(m, 0, 1, 1, pps1);
	add_vm(m, 0, 2, 2, pps2);
	if (wait_compl(m, 0, c, 2) != 2 || c[0].result != OFFLOAD_OK ||
	    c[1].result != OFFLOAD_OK)
		return false;
	for (unsigned i = 0; i < 2; i++)
		mark[c[i].megaflow_id] = c[i].mark;
	return true;
}

static void
test_eviction(void)
{
	struct fdir_model_pool *pp;
	struct fdir_model *md = model(2, 0, &pp);	/* 2 rules */
	struct offload_mgr *m = mgr_weight(md, 2, 0, 300);
	struct offload_completion c[8];
	struct offload_mgr_stats st;
	uint32_t mark[8] = { 0 };

	CHECK(md && m, "create");
	if (!md || !m)
		return;
	uint64_t t0 = rte_get_tsc_cycles();
	CHECK(two_installed(m, 100, 300, mark), "two installed");
	/* what the PMD's sweep publishes for installed megaflows */
	offload_mgr_publish_rate(m, 0, mark[1], 100);
	offload_mgr_publish_rate(m, 0, mark[2], 300);
	/* full: a threshold (neither rule old enough yet: the coldest of
	 * all, x 2) */
	WAIT_STATS(m, st, st.threshold_pps == 200);
	CHECK(st.threshold_pps == 200, "threshold %lu, want 200",
	      (unsigned long)st.threshold_pps);

	/* much hotter, but the rules are younger than 300 ms */
	add_vm(m, 0, 4, 4, 5000);
	/* slightly hotter than the coldest (150 < 100 x 2): never evicts */
	add_vm(m, 0, 3, 3, 150);
	unsigned n = quiet_for(m, 100, c);
	double ms = (rte_get_tsc_cycles() - t0) * 1000.0 / rte_get_tsc_hz();
	CHECK(n == 0 || ms >= 300, "evicted after %.0f ms (minimum 300): %u "
	      "completions", ms, n);
	offload_mgr_get_stats(m, &st);
	CHECK(st.candidates == 2 && st.installed == 2,
	      "candidates %u installed %lu", st.candidates,
	      (unsigned long)st.installed);

	/* past the residency: an EVICT for the coldest (vm 1), only */
	n = wait_compl(m, 0, c, 1);
	ms = (rte_get_tsc_cycles() - t0) * 1000.0 / rte_get_tsc_hz();
	CHECK(n == 1 && c[0].op == OFFLOAD_OP_EVICT &&
	      c[0].megaflow_id == 1 && c[0].mark == mark[1] && ms >= 300,
	      "evict: n %u op %u megaflow %lu mark %u after %.0f ms", n,
	      c[0].op, (unsigned long)c[0].megaflow_id, c[0].mark, ms);
	/* the rule stays on the NIC until its holder lets go */
	CHECK(quiet_for(m, 50, c) == 0, "completions before the DEL");
	CHECK(mark_of(md, 1) == mark[1], "vm 1's rule gone before its DEL");
	offload_mgr_get_stats(m, &st);
	CHECK(st.evictions == 1 && st.installed == 2,
	      "evictions %lu installed %lu", (unsigned long)st.evictions,
	      (unsigned long)st.installed);

	/* the PMD clears its mark entry, then sends the DEL */
	offload_mgr_publish_rate(m, 0, mark[1], 0);
	CHECK(offload_mgr_request_del(m, 0, 1, mark[1]) == 0, "del");
	n = wait_compl(m, 0, c, 2);
	CHECK(n == 2 && c[0].op == OFFLOAD_OP_DEL && c[0].megaflow_id == 1 &&
	      c[1].op == OFFLOAD_OP_ADD && c[1].megaflow_id == 4 &&
	      c[1].result == OFFLOAD_OK && c[1].mark == mark[1],
	      "after the DEL: n %u, %u/%lu then %u/%lu %s mark %u", n,
	      c[0].op, (unsigned long)c[0].megaflow_id, c[1].op,
	      (unsigned long)c[1].megaflow_id,
	      offload_result_name(c[1].result), c[1].mark);
	CHECK(mark_of(md, 1) == 0 && mark_of(md, 4) == mark[1] &&
	      mark_of(md, 2) == mark[2], "model: vm1 %u vm4 %u vm2 %u",
	      mark_of(md, 1), mark_of(md, 4), mark_of(md, 2));
	offload_mgr_publish_rate(m, 0, mark[1], 5000);
	/* vm 2 (300 pps) is now the coldest, old enough: 600 to beat; vm 3
	 * (150) still waits and evicts nothing */
	WAIT_STATS(m, st, st.threshold_pps == 600);
	CHECK(st.threshold_pps == 600 && st.candidates == 1 &&
	      st.evictions == 1 && st.created == 3 && st.destroyed == 1,
	      "threshold %lu candidates %u evictions %lu created %lu "
	      "destroyed %lu", (unsigned long)st.threshold_pps,
	      st.candidates, (unsigned long)st.evictions,
	      (unsigned long)st.created, (unsigned long)st.destroyed);
	n = quiet_for(m, 50, c);
	CHECK(n == 0, "vm 3 got an answer: %u: op %u megaflow %lu %s mark %u",
	      n, c[0].op, (unsigned long)c[0].megaflow_id,
	      offload_result_name(c[0].result), c[0].mark);
	/* a waiting candidate's DEL cancels it */
	CHECK(offload_mgr_request_del(m, 0, 3, 0) == 0, "del vm 3");
	CHECK(wait_compl(m, 0, c, 1) == 1 && c[0].megaflow_id == 3 &&
	      c[0].result == OFFLOAD_FAIL_CANCELLED, "vm 3: %s",
	      offload_result_name(c[0].result));
	offload_mgr_get_stats(m, &st);
	CHECK(st.candidates == 0, "candidates %u", st.candidates);
	offload_mgr_destroy(m);
	fdir_model_free(md);
	fdir_model_pool_free(pp);
}

/* Noise does not evict: the PMDs' rates are Poisson counts over about
 * 1.6 s, so at a few pps a candidate at 2.4x the coldest rule's rate (12
 * vs 5 pps) is within the noise (4 sigma of the difference: 22 pps to
 * beat 5) and waits; at 25 pps it evicts. */
static void
test_noise_does_not_evict(void)
{
	struct fdir_model_pool *pp;
	struct fdir_model *md = model(2, 0, &pp);	/* 2 rules */
	struct offload_mgr *m = mgr_weight(md, 2, 0, 50);
	struct offload_completion c[8];
	struct offload_mgr_stats st;
	uint32_t mark[4] = { 0 };

	CHECK(md && m, "create");
	if (!md || !m)
		return;
	CHECK(two_installed(m, 5, 300, mark), "two installed");
	offload_mgr_publish_rate(m, 0, mark[1], 5);
	offload_mgr_publish_rate(m, 0, mark[2], 300);
	usleep(60 * 1000);		/* past the minimum residency */
	/* what beats 5 pps: 5 + 16 / 3.2 + sqrt(8 x 1.6 x 16 x 5 + 256) /
	 * 3.2 = 21.2, not 2 x 5 */
	WAIT_STATS(m, st, st.threshold_pps == 22);
	CHECK(st.threshold_pps == 22, "threshold %lu, want 22",
	      (unsigned long)st.threshold_pps);
	add_vm(m, 0, 3, 3, 12);		/* 2.4x the coldest: noise */
	unsigned n = quiet_for(m, 200, c);
	offload_mgr_get_stats(m, &st);
	CHECK(n == 0 && st.evictions == 0 && st.candidates == 1,
	      "a 12 pps candidate evicted a 5 pps rule: %u completions, "
	      "evictions %lu candidates %u", n, (unsigned long)st.evictions,
	      st.candidates);
	/* evidence: 25 pps evicts the 5 pps rule, not the 300 pps one */
	CHECK(offload_mgr_request_refresh(m, 0, 3, 25) == 0, "refresh");
	n = wait_compl(m, 0, c, 1);
	CHECK(n == 1 && c[0].op == OFFLOAD_OP_EVICT &&
	      c[0].megaflow_id == 1 && c[0].mark == mark[1],
	      "25 pps: n %u op %u megaflow %lu mark %u", n, c[0].op,
	      (unsigned long)c[0].megaflow_id, c[0].mark);
	offload_mgr_publish_rate(m, 0, mark[1], 0);
	CHECK(offload_mgr_request_del(m, 0, 1, mark[1]) == 0, "del");
	n = wait_compl(m, 0, c, 2);
	CHECK(n == 2 && c[1].op == OFFLOAD_OP_ADD && c[1].megaflow_id == 3 &&
	      c[1].result == OFFLOAD_OK && c[1].mark == mark[1],
	      "vm 3 after the DEL: n %u megaflow %lu %s mark %u", n,
	      (unsigned long)c[1].megaflow_id,
	      offload_result_name(c[1].result), c[1].mark);
	offload_mgr_get_stats(m, &st);
	CHECK(st.evictions == 1, "evictions %lu", (unsigned long)st.evictions);
	offload_mgr_destroy(m);
	fdir_model_free(md);
	fdir_model_pool_free(pp);
}

/* A destroy does not wait for the PMDs' grace period: this thread, a
 * reader of the model registered on its qsbr, stays online (mid-burst)
 * and the DEL is answered, the rule gone from the NIC at once; the rule's
 * memory goes once the reader has been quiescent (ASan: neither leaked
 * nor read after free). */
static void
test_destroy_does_not_wait(void)
{
	size_t sz = rte_rcu_qsbr_get_memsize(1);
	struct rte_rcu_qsbr *q = rte_zmalloc("admit_qsbr", sz,
					     RTE_CACHE_LINE_SIZE);
	struct fdir_model_limits lim = { .guar = 2, .n_rxq = 8 };
	struct fdir_model *md = NULL;
	struct offload_mgr *m = NULL;
	struct offload_completion c[4];

	CHECK(q && rte_rcu_qsbr_init(q, 1) == 0 &&
	      rte_rcu_qsbr_thread_register(q, 0) == 0, "qsbr");
	if (!q)
		return;
	rte_rcu_qsbr_thread_online(q, 0);
	md = fdir_model_create(UINT16_MAX, &lim, q);
	if (md && fdir_model_udp_tunnel_port_add(md, 4789)) {
		fdir_model_free(md);
		md = NULL;
	}
	m = md ? mgr(md, 2, 0, 64, 1) : NULL;
	CHECK(md && m, "create");
	if (m) {
		add_vm(m, 0, 1, 1, 1);
		CHECK(wait_compl(m, 0, c, 1) == 1 &&
		      c[0].result == OFFLOAD_OK && mark_of(md, 1) == c[0].mark,
		      "installed");
		uint64_t t0 = rte_get_tsc_cycles();
		CHECK(offload_mgr_request_del(m, 0, 1, c[0].mark) == 0, "del");
		unsigned n = wait_compl(m, 0, c, 1);
		double ms = (rte_get_tsc_cycles() - t0) * 1000.0 /
			    rte_get_tsc_hz();
		CHECK(n == 1 && c[0].op == OFFLOAD_OP_DEL && ms < 500,
		      "DEL answered: n %u after %.0f ms, this reader online",
		      n, ms);
		CHECK(mark_of(md, 1) == 0, "the rule still marks");
		rte_rcu_qsbr_quiescent(q, 0);
		add_vm(m, 0, 2, 2, 1);	/* a create frees the retired */
		CHECK(wait_compl(m, 0, c, 1) == 1 &&
		      c[0].result == OFFLOAD_OK, "vm 2");
	}
	/* offline first: a destroy that waits would hang the teardown */
	rte_rcu_qsbr_thread_offline(q, 0);
	offload_mgr_destroy(m);
	fdir_model_free(md);
	rte_rcu_qsbr_thread_unregister(q, 0);
	rte_free(q);
}

/* fifo: the table full, a hotter flow is refused for good, nothing
 * evicted, no threshold */
static void
test_fifo_final(void)
{
	struct fdir_model_pool *pp;
	struct fdir_model *md = model(2, 0, &pp);
	struct offload_mgr *m = mgr(md, 2, 0, 64, 1);
	struct offload_completion c[4];
	struct offload_mgr_stats st;

	CHECK(md && m, "create");
	if (!md || !m)
		return;
	add_vm(m, 0, 1, 1, 1);
	add_vm(m, 0, 2, 2, 1);
	CHECK(wait_compl(m, 0, c, 2) == 2, "two installed");
	add_vm(m, 0, 3, 3, 1000000);
	CHECK(wait_compl(m, 0, c, 1) == 1 && c[0].megaflow_id == 3 &&
	      c[0].result == OFFLOAD_FAIL_CAPACITY, "vm 3: %s",
	      offload_result_name(c[0].result));
	usleep(20000);
	offload_mgr_get_stats(m, &st);
	CHECK(st.admission == OFFLOAD_ADMIT_FIFO && st.evictions == 0 &&
	      st.threshold_pps == 0 && st.candidates == 0 &&
	      st.failed[OFFLOAD_FAIL_CAPACITY] == 1,
	      "fifo: evictions %lu threshold %lu capacity %lu",
	      (unsigned long)st.evictions, (unsigned long)st.threshold_pps,
	      (unsigned long)st.failed[OFFLOAD_FAIL_CAPACITY]);
	offload_mgr_destroy(m);
	fdir_model_free(md);
	fdir_model_pool_free(pp);
}

static void
test_names(void)
{
	enum offload_admission a = OFFLOAD_ADMISSION_N;

	CHECK(offload_admission_parse("weight", &a) == 0 &&
	      a == OFFLOAD_ADMIT_WEIGHT, "weight");
	CHECK(offload_admission_parse("fifo", &a) == 0 &&
	      a == OFFLOAD_ADMIT_FIFO, "fifo");
	CHECK(offload_admission_parse("lifo", &a) == -EINVAL &&
	      a == OFFLOAD_ADMIT_FIFO, "lifo accepted or changed the value");
	CHECK(!strcmp(offload_admission_name(OFFLOAD_ADMIT_WEIGHT), "weight"),
	      "name");
}

int
main(int argc, char **argv)
{
	(void)argc, (void)argv;
	if (unit_test_eal_init("test_offload_admit", "128"))
		return 1;
	pool = rte_pktmbuf_pool_create("ofl_admit", 256, 0, 0,
				       RTE_MBUF_DEFAULT_BUF_SIZE,
				       SOCKET_ID_ANY);
	if (!pool) {
		printf("pool create failed\n0 passed, 1 failed\n");
		return 1;
	}
	test_names();
	test_order_by_rate();
	test_eviction();
	test_noise_does_not_evict();
	test_destroy_does_not_wait();
	test_fifo_final();
	rte_mempool_free(pool);
	rte_eal_cleanup();
	return unit_test_report();
}
