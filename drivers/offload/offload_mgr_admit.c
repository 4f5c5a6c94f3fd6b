/* SPDX-License-Identifier: BSD-3-Clause
 * The offload manager's side of admission: ADDs and REFRESHes off the ring
 * into the candidate set (offload_admit.c ranks them), and what admission
 * asks of the manager (struct admit_ops): claim a mark for a candidate,
 * insert it, evict a rule, an installed rule's rate.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <rte_common.h>
#include "offload_mgr_priv.h"

/* A pending rule's rank: what its holders carry together. */
void
pend_rerank(struct offload_mgr *m, uint32_t mark)
{
	admit_set_weight(&m->adm, admit_find(&m->adm, mark, 0, 0),
			 omt_packets(m->omt, mark));
}

void
pend_refresh(struct offload_mgr *m, const struct offload_req *r)
{
	struct offload_admit *a = &m->adm;

	for (unsigned i = 0; i < a->n; i++) {
		struct offload_req *q = &a->cand[i];
		struct omt_holder *h = omt_holder_of(m->omt, q->mark, r->pmd,
						     r->megaflow_id);
		if (!q->mark && q->pmd == r->pmd &&
		    q->megaflow_id == r->megaflow_id) {
			admit_set_weight(a, (int)i, r->weight);
			return;
		}
		if (h) {
			h->n_packets = r->weight;
			pend_rerank(m, q->mark);
			return;
		}
	}
}

/* ice's duplicate key held by a rule of ours of another pattern (the
 * same inner destination behind another VNI or VTEP): the NIC would
 * refuse this one (EEXIST), so it stays in software, no create and no
 * token spent, until that rule goes. True if r was failed so. */
static bool
ice_key_collides(struct offload_mgr *m, const struct offload_req *r,
		 const struct offload_pattern *pat)
{
	uint32_t other = omt_ice_key_holder(m->omt, pat);
	char msg[64];

	if (!other)
		return false;
	snprintf(msg, sizeof msg, "ice key held by mark %u", other);
	offload_fail_log_set(&m->fail_log, OFFLOAD_FAIL_COLLISION, EEXIST,
			     msg);
	mgr_fail(m, r, OFFLOAD_FAIL_COLLISION);
	return true;
}

/* An ADD off the ring: a holder of the rule of its pattern, pending or
 * installed (answered at once), or a new candidate: with a mark of its
 * own (fifo, or weight while there is room) or, in weight mode, unclaimed
 * (admit_run() claims one when its turn comes, or evicts for it). */
void
pend_add(struct offload_mgr *m, const struct offload_req *r)
{
	struct offload_rule rule;
	struct offload_pattern pat;
	bool weight = m->p.admission == OFFLOAD_ADMIT_WEIGHT;

	/* built with a placeholder mark: a non-canonical flow has no pattern
	 * and uses no mark; it waits its turn (mark 0) and fails then */
	if (mgr_build(m, r, 1, &rule)) {
		int i = admit_find(&m->adm, 0, r->pmd, r->megaflow_id);
		if (i >= 0)
			admit_set_weight(&m->adm, i, r->weight);
		else
			admit_push(&m->adm, r, 0, false);
		return;
	}
	offload_pattern_of(&rule, &pat);
	uint32_t mark = omt_lookup(m->omt, &pat);
	if (mark && weight && admit_is_evicting(&m->adm, mark))
		mark = 0;	/* going: wait for it to go, then ask anew */
	if (mark) {
		int rc = omt_hold(m->omt, mark, r->pmd, r->megaflow_id,
				  r->weight);
		if (rc < 0) {
			mgr_fail(m, r, OFFLOAD_FAIL_CAPACITY);
			return;
		}
		if (omt_entry(m->omt, mark)->state == OMT_INSTALLED) {
			if (rc == 1)
				ST_ADD(m->st_shared, 1);
			mgr_post(m, r->pmd, r->megaflow_id, mark, OFFLOAD_OP_ADD,
			     OFFLOAD_OK);
		} else {
			pend_rerank(m, mark);
		}
		mgr_publish(m);
		return;
	}
	if (ice_key_collides(m, r, &pat))
		return;
	if (weight) {
		int i = admit_find(&m->adm, 0, r->pmd, r->megaflow_id);
		if (i >= 0)	/* offered again: a newer rate */
			admit_set_weight(&m->adm, i, r->weight);
		else
			admit_push(&m->adm, r, 0, true);
		return;
	}
	mark = omt_claim(m->omt, &pat);
	if (mark && omt_hold(m->omt, mark, r->pmd, r->megaflow_id,
			     r->weight) < 0) {
		omt_drop(m->omt, mark, true);
		mark = 0;
	}
	if (!mark) {
		mgr_fail(m, r, OFFLOAD_FAIL_CAPACITY);
		return;
	}
	admit_push(&m->adm, r, mark, false);
	mgr_publish(m);
}

/* ---- what admission asks of the manager (struct admit_ops) ---- */

static void
ops_insert(void *mgr, const struct offload_req *r)
{
	mgr_do_add(mgr, r);
}

static enum admit_claim
ops_claim(void *mgr, struct offload_req *r)
{
	struct offload_mgr *m = mgr;
	struct offload_rule rule;
	struct offload_pattern pat;

	if (mgr_build(m, r, 1, &rule))
		return ADMIT_CLAIMED;	/* cannot happen: it built at ADD */
	offload_pattern_of(&rule, &pat);
	uint32_t mark = omt_lookup(m->omt, &pat);
	if (mark) {
		struct omt_entry *e = omt_entry(m->omt, mark);
		/* another PMD's megaflow of the pattern got there first */
		if (e->state != OMT_INSTALLED ||
		    admit_is_evicting(&m->adm, mark))
			return ADMIT_NO_ROOM;
		if (omt_hold(m->omt, mark, r->pmd, r->megaflow_id,
			     r->weight) < 0)
			mgr_fail(m, r, OFFLOAD_FAIL_CAPACITY);
		else
			mgr_post(m, r->pmd, r->megaflow_id, mark, OFFLOAD_OP_ADD,
			     OFFLOAD_OK);
		ST_ADD(m->st_shared, 1);
		mgr_publish(m);
		return ADMIT_JOINED;
	}
	if (ice_key_collides(m, r, &pat))
		return ADMIT_JOINED;	/* done with: failed */
	mark = omt_claim(m->omt, &pat);
	if (!mark)
		return ADMIT_NO_ROOM;
	if (omt_hold(m->omt, mark, r->pmd, r->megaflow_id, r->weight) < 0) {
		omt_drop(m->omt, mark, true);
		return ADMIT_NO_ROOM;
	}
	r->mark = mark;
	mgr_publish(m);
	return ADMIT_CLAIMED;
}

static void
ops_evict(void *mgr, uint32_t mark)
{
	struct offload_mgr *m = mgr;
	struct omt_entry *e = omt_entry(m->omt, mark);

	for (uint16_t i = 0; i < e->n_holders; i++)
		mgr_post(m, e->holders[i].pmd, e->holders[i].megaflow_id, mark,
		     OFFLOAD_OP_EVICT, OFFLOAD_OK);
}

static uint64_t
ops_rule_rate(void *mgr, uint32_t mark)
{
	struct offload_mgr *m = mgr;
	struct omt_entry *e = omt_entry(m->omt, mark);
	uint64_t pps = 0;

	for (uint16_t i = 0; i < e->n_holders; i++)
		pps += __atomic_load_n(&m->rates[(size_t)e->holders[i].pmd *
						 (m->p.max_marks + 1) + mark],
				       __ATOMIC_RELAXED);
	return pps;
}

static void
ops_shed(void *mgr, const struct offload_req *r)
{
	mgr_fail(mgr, r, OFFLOAD_FAIL_CAPACITY);
}

static bool
ops_installed(void *mgr, uint32_t mark)
{
	struct offload_mgr *m = mgr;

	return omt_entry(m->omt, mark)->state == OMT_INSTALLED;
}

static bool
ops_has_room(void *mgr)
{
	struct offload_mgr *m = mgr;

	return omt_marks_in_use(m->omt) < m->p.max_marks;
}

static bool
ops_ring_busy(void *mgr)
{
	struct offload_mgr *m = mgr;

	return rte_ring_count(m->req) != 0;
}

const struct admit_ops offload_mgr_admit_ops = {
	.insert = ops_insert, .claim = ops_claim, .evict = ops_evict,
	.rule_rate = ops_rule_rate, .shed = ops_shed,
	.installed = ops_installed, .has_room = ops_has_room,
	.ring_busy = ops_ring_busy,
};

const char *
offload_admission_name(enum offload_admission a)
{
#define OFFLOAD_X_NAME(e, name) [e] = name,
	static const char *const names[OFFLOAD_ADMISSION_N] = {
		OFFLOAD_ADMISSIONS(OFFLOAD_X_NAME)
	};
#undef OFFLOAD_X_NAME
	return (unsigned)a < OFFLOAD_ADMISSION_N ? names[a] : "?";
}

int
offload_admission_parse(const char *s, enum offload_admission *out)
{
	for (int a = 0; s && a < OFFLOAD_ADMISSION_N; a++)
		if (!strcmp(s, offload_admission_name(a))) {
			*out = a;
			return 0;
		}
	return -EINVAL;
}

