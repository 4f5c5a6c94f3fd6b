/* SPDX-License-Identifier: BSD-3-Clause
 * One NIC rule per pattern, shared by the PMDs that hold it
 * (drivers/offload/offload_mark_table.c through offload_mgr.c, on the
 * software Flow Director model). Two fake PMDs (0 and 1) in the test
 * thread each have a megaflow of the same pattern (one VM's inner flow):
 *  - installed: the second ADD is answered OK with the first's mark, the
 *    model has one rule, `shared` counts it and it costs no mark (with
 *    max_marks 1 another pattern is refused meanwhile); the first DEL
 *    leaves the rule (the model still marks), the second destroys it and
 *    frees the mark for the other pattern;
 *  - pending (rate limit): both answered by the one insert;
 *  - cancel while pending: a DEL from one holder cancels its ADD only
 *    (either holder, either order); from both, nothing is installed and
 *    the mark comes back.
 */
#include <errno.h>
#include <rte_eal.h>
#include "offload_test.h"
#include "unit_test.h"

#define SHARED_VM 1
#define BLOCKER_VM 9
#define OTHER_VM 2
#define ID0 100		/* the megaflow on PMD 0 */
#define ID1 200		/* the same pattern's megaflow on PMD 1 */

struct rig {
	struct fdir_model_pool *pp;
	struct fdir_model *md;
	struct offload_mgr *m;
};

static bool
rig_up(struct rig *r, uint32_t max_marks, uint32_t rate)
{
	r->md = model(64, 64, &r->pp);
	r->m = r->md ? mgr(r->md, max_marks, rate, 64, 2) : NULL;
	CHECK(r->md && r->m, "create");
	return r->m != NULL;
}

static void
rig_down(struct rig *r)
{
	offload_mgr_destroy(r->m);
	fdir_model_free(r->md);
	fdir_model_pool_free(r->pp);
}

static unsigned
model_rules(struct rig *r)
{
	struct fdir_model_stats ms;

	fdir_model_get_stats(r->md, &ms);
	return ms.installed;
}

/* One completion for pmd, checked: its op, megaflow and result; returns
 * its mark (0 if it did not come or differs). */
static uint32_t
answer(struct rig *r, uint16_t pmd, uint8_t op, uint64_t id,
       enum offload_result res, const char *what)
{
	struct offload_completion c;
	unsigned n = wait_compl(r->m, pmd, &c, 1);

	CHECK(n == 1 && c.op == op && c.megaflow_id == id &&
	      c.result == res && c.pmd == pmd,
	      "%s: pmd %u got %u completions (op %u megaflow %lu %s), want "
	      "op %u megaflow %lu %s", what, pmd, n, n ? c.op : 0,
	      n ? (unsigned long)c.megaflow_id : 0UL,
	      n ? offload_result_name(c.result) : "-", op, (unsigned long)id,
	      offload_result_name(res));
	return n == 1 && c.op == op && c.result == res ? c.mark : 0;
}

static void
no_more(struct rig *r, const char *what)
{
	struct offload_completion c;

	for (uint16_t pmd = 0; pmd < 2; pmd++)
		CHECK(offload_mgr_poll_completions(r->m, pmd, &c, 1) == 0,
		      "%s: pmd %u has an extra completion (megaflow %lu %s)",
		      what, pmd, (unsigned long)c.megaflow_id,
		      offload_result_name(c.result));
}

static void
stats_are(struct rig *r, uint64_t installed, uint32_t marks,
	  uint64_t holders, uint64_t shared, const char *what)
{
	struct offload_mgr_stats st;

	offload_mgr_get_stats(r->m, &st);
	CHECK(st.installed == installed && st.marks_in_use == marks &&
	      st.holders == holders && st.shared == shared &&
	      model_rules(r) == installed,
	      "%s: installed %lu (model %u) marks %u holders %lu shared %lu, "
	      "want %lu %u %lu %lu", what, (unsigned long)st.installed,
	      model_rules(r), st.marks_in_use, (unsigned long)st.holders,
	      (unsigned long)st.shared, (unsigned long)installed, marks,
	      (unsigned long)holders, (unsigned long)shared);
}

static void
test_shared_installed(void)
{
	struct rig r;

	/* one mark only: sharing must not take a second */
	if (!rig_up(&r, 1, 0))
		return;
	CHECK(add_vm(r.m, 0, ID0, SHARED_VM, 10) == 0, "add pmd 0");
	uint32_t mark = answer(&r, 0, OFFLOAD_OP_ADD, ID0, OFFLOAD_OK,
			       "first ADD");
	CHECK(add_vm(r.m, 1, ID1, SHARED_VM, 5) == 0, "add pmd 1");
	uint32_t mark1 = answer(&r, 1, OFFLOAD_OP_ADD, ID1, OFFLOAD_OK,
				"second ADD, same pattern");
	CHECK(mark && mark1 == mark, "marks %u and %u", mark, mark1);
	stats_are(&r, 1, 1, 2, 1, "both hold it");
	CHECK(mark_of(r.md, SHARED_VM) == mark, "not marked with %u", mark);
	/* another pattern: no mark left while the shared one is held */
	CHECK(add_vm(r.m, 0, ID0 + 1, OTHER_VM, 1) == 0, "add other");
	answer(&r, 0, OFFLOAD_OP_ADD, ID0 + 1, OFFLOAD_FAIL_CAPACITY,
	       "other pattern, marks exhausted");
	/* a repeated ADD from a holder is answered again, not shared */
	CHECK(add_vm(r.m, 1, ID1, SHARED_VM, 50) == 0, "add pmd 1 again");
	CHECK(answer(&r, 1, OFFLOAD_OP_ADD, ID1, OFFLOAD_OK, "repeated ADD")
	      == mark, "repeated ADD: another mark");
	stats_are(&r, 1, 1, 2, 1, "after the repeated ADD");

	/* PMD 0 lets go: the rule stays for PMD 1 */
	CHECK(offload_mgr_request_del(r.m, 0, ID0, mark) == 0, "del pmd 0");
	CHECK(answer(&r, 0, OFFLOAD_OP_DEL, ID0, OFFLOAD_OK, "first DEL") ==
	      mark, "first DEL: mark");
	stats_are(&r, 1, 1, 1, 1, "one holder left");
	CHECK(mark_of(r.md, SHARED_VM) == mark, "first DEL removed the rule");
	/* a DEL from a megaflow that holds nothing changes nothing */
	CHECK(offload_mgr_request_del(r.m, 0, ID0, mark) == 0, "del again");
	usleep(20000);
	no_more(&r, "DEL of a released hold");
	stats_are(&r, 1, 1, 1, 1, "after a stray DEL");

	/* PMD 1 lets go (mark not known yet: found by megaflow id) */
	CHECK(offload_mgr_request_del(r.m, 1, ID1, 0) == 0, "del pmd 1");
	CHECK(answer(&r, 1, OFFLOAD_OP_DEL, ID1, OFFLOAD_OK, "last DEL") ==
	      mark, "last DEL: mark");
	stats_are(&r, 0, 0, 0, 1, "no holder left");
	CHECK(mark_of(r.md, SHARED_VM) == 0, "still marked after the last DEL");
	/* the mark is free: the other pattern gets it now */
	CHECK(add_vm(r.m, 0, ID0 + 2, OTHER_VM, 1) == 0, "add other again");
	CHECK(answer(&r, 0, OFFLOAD_OP_ADD, ID0 + 2, OFFLOAD_OK,
		     "other pattern, mark free") == mark, "mark not recycled");
	CHECK(mark_of(r.md, OTHER_VM) == mark, "other pattern not marked");
	no_more(&r, "end");
	rig_down(&r);
}

/* PMD 0's and PMD 1's ADDs of one pattern behind a blocker that took the
 * bucket's token (10 inserts/s: the next one in ~100 ms). */
static bool
two_pending(struct rig *r)
{
	if (!rig_up(r, 16, 10))
		return false;
	CHECK(add_vm(r->m, 0, 1, BLOCKER_VM, 1) == 0, "add blocker");
	answer(r, 0, OFFLOAD_OP_ADD, 1, OFFLOAD_OK, "blocker");
	CHECK(add_vm(r->m, 0, ID0, SHARED_VM, 10) == 0 &&
	      add_vm(r->m, 1, ID1, SHARED_VM, 10) == 0, "add both");
	CHECK(offload_mgr_queue_depth(r->m) > 0, "not pending");
	return true;
}

static void
test_shared_pending(void)
{
	struct rig r;

	if (!two_pending(&r))
		return;
	uint32_t m0 = answer(&r, 0, OFFLOAD_OP_ADD, ID0, OFFLOAD_OK, "pmd 0");
	uint32_t m1 = answer(&r, 1, OFFLOAD_OP_ADD, ID1, OFFLOAD_OK, "pmd 1");
	CHECK(m0 && m0 == m1, "pending: marks %u and %u", m0, m1);
	stats_are(&r, 2, 2, 3, 1, "one insert for both");
	CHECK(mark_of(r.md, SHARED_VM) == m0, "not marked");
	struct offload_mgr_stats st;
	offload_mgr_get_stats(r.m, &st);
	CHECK(st.created == 2 && st.failed[OFFLOAD_FAIL_EXISTS] == 0,
	      "created %lu exists %lu", (unsigned long)st.created,
	      (unsigned long)st.failed[OFFLOAD_FAIL_EXISTS]);
	no_more(&r, "pending");
	rig_down(&r);
}

/* Cancel while pending: `first` DELs before the insert; if both, both. */
static void
cancel_case(uint16_t first, bool both)
{
	struct rig r;
	uint64_t id[2] = { ID0, ID1 };
	uint16_t other = 1 - first;
	char what[64];

	snprintf(what, sizeof what, "cancel by pmd %u%s", first,
		 both ? " and pmd 1" : "");
	if (!two_pending(&r))
		return;
	CHECK(offload_mgr_request_del(r.m, first, id[first], 0) == 0, "del");
	answer(&r, first, OFFLOAD_OP_ADD, id[first], OFFLOAD_FAIL_CANCELLED,
	       what);
	if (both) {
		CHECK(offload_mgr_request_del(r.m, other, id[other], 0) == 0,
		      "del other");
		answer(&r, other, OFFLOAD_OP_ADD, id[other],
		       OFFLOAD_FAIL_CANCELLED, what);
		usleep(300000);		/* past the next token */
		stats_are(&r, 1, 1, 1, 0, what);	/* the blocker */
		CHECK(mark_of(r.md, SHARED_VM) == 0, "%s: marked", what);
		CHECK(offload_mgr_queue_depth(r.m) == 0, "%s: still queued",
		      what);
	} else {
		uint32_t mk = answer(&r, other, OFFLOAD_OP_ADD, id[other],
				     OFFLOAD_OK, what);
		CHECK(mk && mark_of(r.md, SHARED_VM) == mk,
		      "%s: the other holder's rule not marking (%u)", what, mk);
		stats_are(&r, 2, 2, 2, 0, what);
	}
	struct offload_mgr_stats st;
	offload_mgr_get_stats(r.m, &st);
	CHECK(st.failed[OFFLOAD_FAIL_CANCELLED] == (both ? 2u : 1u),
	      "%s: cancelled %lu", what,
	      (unsigned long)st.failed[OFFLOAD_FAIL_CANCELLED]);
	no_more(&r, what);
	rig_down(&r);
}

static void
test_cancel_pending(void)
{
	cancel_case(0, false);	/* the first asker goes */
	cancel_case(1, false);	/* the one that joined goes */
	cancel_case(0, true);	/* both go */
}

int
main(int argc, char **argv)
{
	(void)argc, (void)argv;
	if (unit_test_eal_init("test_offload_shared", "128"))
		return 1;
	pool = rte_pktmbuf_pool_create("ofl_shared", 256, 0, 0,
				       RTE_MBUF_DEFAULT_BUF_SIZE,
				       SOCKET_ID_ANY);
	if (!pool) {
		printf("pool create failed\n0 passed, 1 failed\n");
		return 1;
	}
	test_shared_installed();
	test_shared_pending();
	test_cancel_pending();
	rte_mempool_free(pool);
	rte_eal_cleanup();
	return unit_test_report();
}
