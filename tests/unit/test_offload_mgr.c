/* SPDX-License-Identifier: BSD-3-Clause
 * The offload manager (drivers/offload/offload_mgr.c) on the software Flow
 * Director model: a fake PMD in the test thread asks for the seed's per-VM
 * decap megaflows, gets distinct marks back, and the model marks crafted
 * packets with them; non-canonical megaflows and capacity exhaustion fail
 * by reason with no mark used; DEL stops the marking and recycles the mark;
 * with a rate limit the busiest pending flows go first; a full request
 * ring never blocks.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_udp.h>
#include <rte_version.h>
#include "offload_test.h"
#include "unit_test.h"

/* ---- tests ---- */

static void
test_seed_vms(void)
{
	struct fdir_model_pool *pp;
	struct fdir_model *md = model(64, 64, &pp);
	struct offload_mgr *m = mgr(md, 1024, 0, 64, 2);
	struct offload_completion c[16];
	uint32_t mark[8] = { 0 };
	struct offload_mgr_stats st;

	CHECK(md && m, "create");
	if (!md || !m)
		return;
	/* VMs 1..4 from two PMDs: megaflow id 100 + vm on pmd vm % 2 */
	for (unsigned vm = 1; vm <= 4; vm++)
		CHECK(add_vm(m, vm % 2, 100 + vm, vm, 10 * vm) == 0, "add %u",
		      vm);
	for (uint16_t pmd = 0; pmd < 2; pmd++) {
		unsigned n = wait_compl(m, pmd, c, 2);
		CHECK(n == 2, "pmd %u: %u completions", pmd, n);
		for (unsigned i = 0; i < n; i++) {
			unsigned vm = (unsigned)(c[i].megaflow_id - 100);
			CHECK(vm >= 1 && vm <= 4 && vm % 2 == pmd,
			      "pmd %u got megaflow %lu", pmd,
			      (unsigned long)c[i].megaflow_id);
			CHECK(c[i].op == OFFLOAD_OP_ADD &&
			      c[i].result == OFFLOAD_OK && c[i].pmd == pmd,
			      "vm %u: op %u result %s", vm, c[i].op,
			      offload_result_name(c[i].result));
			CHECK(c[i].mark != 0 &&
			      c[i].mark != ICE_FDIR_MARK_INVALID,
			      "mark %u", c[i].mark);
			if (vm >= 1 && vm <= 4)
				mark[vm] = c[i].mark;
		}
	}
	for (unsigned a = 1; a <= 4; a++)
		for (unsigned b = a + 1; b <= 4; b++)
			CHECK(mark[a] != mark[b], "marks %u %u equal", a, b);
	/* the model marks each VM's packets with exactly its mark */
	for (unsigned vm = 1; vm <= 4; vm++)
		CHECK(mark_of(md, vm) == mark[vm], "vm %u marked %u want %u",
		      vm, mark_of(md, vm), mark[vm]);
	CHECK(mark_of(md, 9) == 0, "unknown VM marked");

	/* not canonical: inner nw_dst /24 */
	struct flow_key ok, om, ik, im;
	outer_flow(&ok, &om);
	inner_flow(&ik, &im, IP(192, 1, 0, 0));
	im.nw_dst = RTE_BE32(0xffffff00);
	CHECK(offload_mgr_request_add(m, 0, 200, &ok, &om, &ik, &im, 1000) ==
	      0, "add /24");
	CHECK(wait_compl(m, 0, c, 1) == 1 && c[0].megaflow_id == 200 &&
	      c[0].result == OFFLOAD_FAIL_NOT_CANONICAL && c[0].mark == 0,
	      "/24: result %s mark %u", offload_result_name(c[0].result),
	      c[0].mark);
	offload_mgr_get_stats(m, &st);
	CHECK(st.marks_in_use == 4 && st.installed == 4,
	      "after /24: marks %u installed %lu", st.marks_in_use,
	      (unsigned long)st.installed);
	CHECK(st.failed[OFFLOAD_FAIL_NOT_CANONICAL] == 1, "not canonical %lu",
	      (unsigned long)st.failed[OFFLOAD_FAIL_NOT_CANONICAL]);

	/* DEL VM 1 (pmd 1): the model stops marking, the mark comes back */
	CHECK(offload_mgr_request_del(m, 1, 101, mark[1]) == 0, "del");
	CHECK(wait_compl(m, 1, c, 1) == 1 && c[0].op == OFFLOAD_OP_DEL &&
	      c[0].megaflow_id == 101 && c[0].mark == mark[1],
	      "del completion");
	CHECK(mark_of(md, 1) == 0, "vm 1 still marked after DEL");
	CHECK(mark_of(md, 2) == mark[2], "vm 2 lost its mark");
	/* freed marks queue up behind the never-used ones (FIFO): the mark
	 * just freed is not handed straight to another flow */
	CHECK(add_vm(m, 0, 105, 5, 1) == 0, "add vm 5");
	uint32_t mark5 = 0;
	CHECK(wait_compl(m, 0, c, 1) == 1 && c[0].result == OFFLOAD_OK &&
	      (mark5 = c[0].mark) != 0 && mark5 != mark[1] &&
	      mark5 != mark[2] && mark5 != mark[3] && mark5 != mark[4],
	      "vm 5: %s mark %u, want a fresh one (not %u)",
	      offload_result_name(c[0].result), c[0].mark, mark[1]);
	CHECK(mark_of(md, 5) == mark5, "vm 5 not marked with %u", mark5);

	/* DEL with the mark not known yet (0): found by megaflow id */
	CHECK(offload_mgr_request_del(m, 0, 105, 0) == 0, "del by id");
	CHECK(wait_compl(m, 0, c, 1) == 1 && c[0].op == OFFLOAD_OP_DEL &&
	      c[0].mark == mark5, "del by id completion");
	CHECK(mark_of(md, 5) == 0, "vm 5 still marked");

	offload_mgr_get_stats(m, &st);
	CHECK(st.installed == 3 && st.marks_in_use == 3 &&
	      st.destroyed == 2 && st.queue_depth == 0,
	      "stats: installed %lu marks %u destroyed %lu depth %u",
	      (unsigned long)st.installed, st.marks_in_use,
	      (unsigned long)st.destroyed, st.queue_depth);
	CHECK(st.lat_samples == 5 && st.lat_p50_us <= st.lat_p99_us &&
	      st.lat_p99_us <= st.lat_max_us && st.lat_max_us > 0,
	      "latency n %lu p50 %.2f p99 %.2f max %.2f",
	      (unsigned long)st.lat_samples, st.lat_p50_us, st.lat_p99_us,
	      st.lat_max_us);
	printf("seed: marks %u %u %u %u, insert p50 %.2f us p99 %.2f us "
	       "max %.2f us\n", mark[1], mark[2], mark[3], mark[4],
	       st.lat_p50_us, st.lat_p99_us, st.lat_max_us);

	/* destroy removes every rule */
	offload_mgr_destroy(m);
	struct fdir_model_stats ms;
	fdir_model_get_stats(md, &ms);
	CHECK(ms.installed == 0, "model still has %u rules", ms.installed);
	CHECK(mark_of(md, 2) == 0, "marked after destroy");
	fdir_model_free(md);
	fdir_model_pool_free(pp);
}

static void
test_capacity(void)
{
	struct fdir_model_pool *pp;
	/* 2 guaranteed + 1 in the shared pool */
	struct fdir_model *md = model(2, 1, &pp);
	struct offload_mgr *m = mgr(md, 1024, 0, 64, 1);
	struct offload_completion c[16];
	struct offload_mgr_stats st;
	struct fdir_model_stats ms;

	CHECK(md && m, "create");
	if (!md || !m)
		return;
	for (unsigned vm = 1; vm <= 6; vm++)
		add_vm(m, 0, vm, vm, 100 - vm);	/* installed in vm order */
	unsigned n = wait_compl(m, 0, c, 6), ok = 0, cap = 0;
	CHECK(n == 6, "%u completions", n);
	for (unsigned i = 0; i < n; i++) {
		if (c[i].result == OFFLOAD_OK)
			ok++;
		else if (c[i].result == OFFLOAD_FAIL_CAPACITY && !c[i].mark)
			cap++;
	}
	CHECK(ok == 3 && cap == 3, "ok %u capacity %u", ok, cap);
	fdir_model_get_stats(md, &ms);
	offload_mgr_get_stats(m, &st);
	CHECK(ms.installed == 3 && st.installed == 3 && st.marks_in_use == 3,
	      "model %u mgr %lu marks %u", ms.installed,
	      (unsigned long)st.installed, st.marks_in_use);
	CHECK(st.failed[OFFLOAD_FAIL_CAPACITY] == 3, "capacity %lu",
	      (unsigned long)st.failed[OFFLOAD_FAIL_CAPACITY]);
	for (unsigned vm = 4; vm <= 6; vm++)
		CHECK(mark_of(md, vm) == 0, "vm %u marked beyond capacity", vm);
	offload_mgr_destroy(m);
	fdir_model_free(md);
	fdir_model_pool_free(pp);

	/* mark ids exhausted: capacity too, nothing installed beyond */
	md = model(64, 64, &pp);
	m = mgr(md, 2, 0, 64, 1);
	for (unsigned vm = 1; vm <= 3; vm++)
		add_vm(m, 0, vm, vm, 100 - vm);
	n = wait_compl(m, 0, c, 3);
	/* a mark is taken when the ADD is queued: the third is refused
	 * before the first two are installed */
	ok = cap = 0;
	for (unsigned i = 0; i < n; i++) {
		if (c[i].result == OFFLOAD_OK && c[i].megaflow_id <= 2)
			ok++;
		else if (c[i].result == OFFLOAD_FAIL_CAPACITY &&
			 c[i].mark == 0 && c[i].megaflow_id == 3)
			cap++;
	}
	CHECK(n == 3 && ok == 2 && cap == 1,
	      "max_marks 2: %u completions, ok %u capacity %u", n, ok, cap);
	fdir_model_get_stats(md, &ms);
	CHECK(ms.installed == 2, "model has %u", ms.installed);
	offload_mgr_destroy(m);
	fdir_model_free(md);
	fdir_model_pool_free(pp);
}

static void
test_priority(void)
{
	struct fdir_model_pool *pp;
	struct fdir_model *md = model(64, 64, &pp);
	/* 20 inserts/s, burst 1: one every 50 ms */
	struct offload_mgr *m = mgr(md, 1024, 20, 64, 1);
	struct offload_completion c[16];
	struct offload_mgr_stats st;

	CHECK(md && m, "create");
	if (!md || !m)
		return;
	/* a first flow takes the bucket's only token */
	add_vm(m, 0, 1, 1, 1);
	CHECK(wait_compl(m, 0, c, 1) == 1 && c[0].result == OFFLOAD_OK,
	      "blocker");
	/* 10 flows with different packet counts, in a scrambled order */
	for (unsigned i = 0; i < 10; i++) {
		uint64_t pk = ((i * 7) % 10 + 1) * 100;
		CHECK(add_vm(m, 0, 10 + i, 10 + i, pk) == 0, "add %u", i);
	}
	unsigned n = wait_compl(m, 0, c, 10);
	CHECK(n == 10, "%u completions", n);
	uint64_t prev = UINT64_MAX;
	bool ordered = true;
	for (unsigned i = 0; i < n; i++) {
		unsigned k = (unsigned)(c[i].megaflow_id - 10);
		uint64_t pk = ((k * 7) % 10 + 1) * 100;
		if (pk > prev || c[i].result != OFFLOAD_OK)
			ordered = false;
		prev = pk;
	}
	CHECK(ordered, "not busiest first");
	offload_mgr_get_stats(m, &st);
	CHECK(st.rate_deferred >= 9, "deferred %lu",
	      (unsigned long)st.rate_deferred);
	CHECK(st.installed == 11, "installed %lu", (unsigned long)st.installed);

	/* asked for at their first packet (count 1 each, as a PMD's upcall
	 * does), then refreshed with what they carried since: the order
	 * follows the refreshed counts */
	add_vm(m, 0, 2, 2, 1);
	CHECK(wait_compl(m, 0, c, 1) == 1 && c[0].result == OFFLOAD_OK,
	      "blocker 2");
	for (unsigned i = 0; i < 8; i++)
		CHECK(add_vm(m, 0, 30 + i, 30 + i, 1) == 0, "add %u", i);
	for (unsigned i = 0; i < 8; i++)
		CHECK(offload_mgr_request_refresh(m, 0, 30 + i,
						  ((i * 5) % 8 + 1) * 10) == 0,
		      "refresh %u", i);
	CHECK(offload_mgr_queue_depth(m) > 0, "no backlog seen");
	/* a refresh for a megaflow with no pending ADD changes nothing */
	CHECK(offload_mgr_request_refresh(m, 0, 999, 1000000) == 0,
	      "refresh unknown");
	n = wait_compl(m, 0, c, 8);
	CHECK(n == 8, "%u completions after refresh", n);
	prev = UINT64_MAX;
	ordered = true;
	for (unsigned i = 0; i < n; i++) {
		unsigned k = (unsigned)(c[i].megaflow_id - 30);
		uint64_t pk = ((k * 5) % 8 + 1) * 10;
		if (k >= 8 || pk > prev || c[i].result != OFFLOAD_OK)
			ordered = false;
		prev = pk;
	}
	CHECK(ordered, "refreshed counts not busiest first");
	CHECK(wait_compl(m, 0, c, 1) == 0, "refresh made a completion");
	offload_mgr_get_stats(m, &st);
	CHECK(st.installed == 20, "installed %lu", (unsigned long)st.installed);
	offload_mgr_destroy(m);
	fdir_model_free(md);
	fdir_model_pool_free(pp);
}

static void
test_full_ring(void)
{
	struct fdir_model_pool *pp;
	struct fdir_model *md = model(64, 64, &pp);
	/* 1 insert/s and a ring of 4: the thread's pending set fills, then
	 * the ring, then requests are dropped */
	struct offload_mgr *m = mgr(md, 1024, 1, 4, 1);
	struct offload_mgr_stats st;
	unsigned dropped = 0, other = 0;

	CHECK(md && m, "create");
	if (!md || !m)
		return;
	uint64_t t0 = rte_get_tsc_cycles();
	for (unsigned i = 0; i < 300; i++) {
		int rc = add_vm(m, 0, 1000 + i, 1 + i, i);
		if (rc == -ENOBUFS)
			dropped++;
		else if (rc != 0)
			other++;
	}
	double ms = (rte_get_tsc_cycles() - t0) * 1000.0 / rte_get_tsc_hz();
	offload_mgr_get_stats(m, &st);
	CHECK(other == 0, "%u unexpected errors", other);
	CHECK(dropped > 0 && st.dropped_requests == dropped,
	      "dropped %u, counted %lu", dropped,
	      (unsigned long)st.dropped_requests);
	CHECK(st.requests + st.dropped_requests == 300, "requests %lu",
	      (unsigned long)st.requests);
	CHECK(ms < 500, "300 requests took %.1f ms", ms);
	CHECK(st.queue_depth > 0 && st.installed <= 2,
	      "depth %u installed %lu", st.queue_depth,
	      (unsigned long)st.installed);
	printf("full ring: %u of 300 dropped in %.2f ms, queue depth %u\n",
	       dropped, ms, st.queue_depth);
	/* the thread moves the ring into its pending set (2 x ring size),
	 * so more fit after a while, and no more than that */
	unsigned acc = 0;
	for (unsigned r = 0; r < 20; r++) {
		usleep(2000);
		for (unsigned i = 0; i < 10; i++)
			acc += add_vm(m, 0, 2000 + r * 10 + i, 1 + i, i) == 0;
	}
	offload_mgr_get_stats(m, &st);
	CHECK(acc > 4 && st.queue_depth > 4 && st.queue_depth <= 32 + 4,
	      "after drain: %u accepted, depth %u", acc, st.queue_depth);
	t0 = rte_get_tsc_cycles();
	offload_mgr_destroy(m);	/* does not wait for the rate limit */
	ms = (rte_get_tsc_cycles() - t0) * 1000.0 / rte_get_tsc_hz();
	CHECK(ms < 500, "destroy took %.1f ms", ms);
	fdir_model_free(md);
	fdir_model_pool_free(pp);
}

static void
test_cancel(void)
{
	struct fdir_model_pool *pp;
	struct fdir_model *md = model(64, 64, &pp);
	struct offload_mgr *m = mgr(md, 1024, 1, 64, 1);
	struct offload_completion c[4];
	struct fdir_model_stats ms;

	CHECK(md && m, "create");
	if (!md || !m)
		return;
	add_vm(m, 0, 1, 1, 1);		/* takes the token */
	CHECK(wait_compl(m, 0, c, 1) == 1, "first");
	add_vm(m, 0, 2, 2, 1);		/* waits ~1 s for a token */
	CHECK(offload_mgr_request_del(m, 0, 2, 0) == 0, "del pending");
	CHECK(wait_compl(m, 0, c, 1) == 1 && c[0].megaflow_id == 2 &&
	      c[0].result == OFFLOAD_FAIL_CANCELLED, "cancelled: %s",
	      offload_result_name(c[0].result));
	fdir_model_get_stats(md, &ms);
	CHECK(ms.installed == 1, "model has %u", ms.installed);
	offload_mgr_destroy(m);
	fdir_model_free(md);
	fdir_model_pool_free(pp);
}

int
main(int argc, char **argv)
{
	(void)argc, (void)argv;
	if (unit_test_eal_init("test_offload_mgr", "128"))
		return 1;
	pool = rte_pktmbuf_pool_create("ofl_test", 256, 0, 0,
				       RTE_MBUF_DEFAULT_BUF_SIZE,
				       SOCKET_ID_ANY);
	if (!pool) {
		printf("pool create failed\n0 passed, 1 failed\n");
		return 1;
	}
	test_seed_vms();
	test_capacity();
	test_priority();
	test_full_ring();
	test_cancel();
	rte_mempool_free(pool);
	rte_eal_cleanup();
	return unit_test_report();
}
