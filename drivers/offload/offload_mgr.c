/* SPDX-License-Identifier: BSD-3-Clause
 * The offload manager (offload_mgr.h): request ring, offload thread, rate
 * limit, completions, insert latency. Rules, their marks and holders by
 * pattern: offload_mark_table.c.
 */
#include "offload_mgr.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_log.h>
#include <rte_flow.h>
#include <rte_malloc.h>
#include <rte_ring.h>
#include <rte_ring_elem.h>
#include "fdir_model.h"
#include "offload_engine.h"
#include "offload_lat.h"
#include "offload_mark_table.h"

/* "vxswitch.offload": the daemon's vlog part of that name (app/lib/vlog.h)
 * is the same DPDK log type. */
RTE_LOG_REGISTER_SUFFIX(offload_mgr_logtype, offload, INFO);

/* One request on the ring: a fixed-size value. */
struct offload_req {
	struct flow_key outer_key, outer_mask;
	struct flow_key inner_key, inner_mask;
	uint64_t megaflow_id;
	uint64_t n_packets;
	uint32_t mark;		/* DEL: the PMD's; pending ADD: its rule's */
	uint16_t pmd;
	uint8_t op;		/* enum offload_op */
	uint8_t has_inner;
	uint8_t deferred;	/* thread-side: counted in rate_deferred */
	uint8_t pad[47];
};
_Static_assert(sizeof(struct offload_req) % 4 == 0, "ring elem size");

struct compl_backlog {
	struct offload_completion *v;
	unsigned n, cap;
};

struct offload_mgr {
	struct offload_mgr_params p;
	struct rte_ring *req;
	struct rte_ring **compl;
	struct compl_backlog *backlog;	/* per PMD, thread-only */

	pthread_t thread;
	bool thread_started;
	volatile bool stop;

	/* thread-only */
	struct offload_req *pending;	/* one per pending rule (pattern) */
	unsigned n_pending, pending_cap;
	bool pending_dirty;
	struct offload_mark_table *omt;
	double tokens;
	uint64_t last_refill;
	uint64_t tsc_hz;

	/* stats: written by the thread (requests/dropped by the PMDs), read
	 * by anyone with relaxed atomics */
	uint64_t st_created, st_destroyed, st_requests, st_dropped;
	uint64_t st_failed[OFFLOAD_RESULT_N];
	uint64_t st_deferred;
	uint64_t st_shared, st_holders;
	uint32_t st_pending, st_marks_in_use;
	struct offload_lat lat;		/* rte_flow_create, timed */
	struct offload_fail_log fail_log;	/* last errno + message */
};

#define ST_ADD(x, v) __atomic_fetch_add(&(x), (v), __ATOMIC_RELAXED)
#define ST_SET(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
#define ST_GET(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)

static unsigned mgr_seq;

/* ---- completions ---- */

static bool
backlog_push(struct compl_backlog *b, const struct offload_completion *c)
{
	if (b->n == b->cap) {
		unsigned cap = b->cap ? b->cap * 2 : 16;
		void *v = realloc(b->v, cap * sizeof *b->v);
		if (!v)
			return false;
		b->v = v;
		b->cap = cap;
	}
	b->v[b->n++] = *c;
	return true;
}

/* Flushes a PMD's backlog in order; true if empty after. */
static bool
backlog_flush(struct offload_mgr *m, uint16_t pmd)
{
	struct compl_backlog *b = &m->backlog[pmd];
	unsigned done = 0;

	while (done < b->n &&
	       rte_ring_sp_enqueue_elem(m->compl[pmd], &b->v[done],
					sizeof b->v[0]) == 0)
		done++;
	if (done) {
		memmove(b->v, b->v + done, (b->n - done) * sizeof *b->v);
		b->n -= done;
	}
	return b->n == 0;
}

static void
post(struct offload_mgr *m, uint16_t pmd, uint64_t mfid, uint32_t mark,
     enum offload_op op, enum offload_result res)
{
	struct offload_completion c = {
		.megaflow_id = mfid, .mark = mark, .op = op, .result = res,
		.pmd = pmd,
	};

	if (pmd >= m->p.n_pmds)
		return;
	/* keep the order: behind whatever is already backlogged */
	if (backlog_flush(m, pmd) &&
	    rte_ring_sp_enqueue_elem(m->compl[pmd], &c, sizeof c) == 0)
		return;
	if (!backlog_push(&m->backlog[pmd], &c))
		rte_log(RTE_LOG_ERR, offload_mgr_logtype,
			"offload_mgr: completion lost (ENOMEM)\n");
}

static void
fail(struct offload_mgr *m, const struct offload_req *r,
     enum offload_result res)
{
	ST_ADD(m->st_failed[res], 1);
	post(m, r->pmd, r->megaflow_id, 0, OFFLOAD_OP_ADD, res);
}

/* What the control thread reads of the table. */
static void
publish(struct offload_mgr *m)
{
	ST_SET(m->st_marks_in_use, omt_marks_in_use(m->omt));
	ST_SET(m->st_holders, omt_holders(m->omt));
}

/* ---- the thread's work ---- */

static int
build(const struct offload_mgr *m, const struct offload_req *r,
      uint32_t mark, struct offload_rule *rule)
{
	return ice_fdir_rule_build(&r->outer_key, &r->outer_mask,
				   r->has_inner ? &r->inner_key : NULL,
				   r->has_inner ? &r->inner_mask : NULL,
				   mark, &m->p.target, rule, NULL);
}

/* The pending rule of mark (its index in m->pending), or -1. Mark 0:
 * the non-canonical ADD of (pmd, megaflow_id). */
static int
pend_find(const struct offload_mgr *m, uint32_t mark, uint16_t pmd,
	  uint64_t megaflow_id)
{
	for (unsigned i = 0; i < m->n_pending; i++) {
		const struct offload_req *q = &m->pending[i];
		if (q->mark == mark && (mark || (q->pmd == pmd &&
						 q->megaflow_id == megaflow_id)))
			return (int)i;
	}
	return -1;
}

static void
pend_remove(struct offload_mgr *m, int i)
{
	if (i >= 0) {
		m->pending[i] = m->pending[--m->n_pending];
		m->pending_dirty = true;
	}
}

/* A pending rule's rank: what its holders carried together. */
static void
pend_rerank(struct offload_mgr *m, uint32_t mark)
{
	int i = pend_find(m, mark, 0, 0);

	if (i >= 0) {
		m->pending[i].n_packets = omt_packets(m->omt, mark);
		m->pending_dirty = true;
	}
}

/* Every holder of a rule that did not make it to the NIC gets res; the
 * mark goes back. */
static void
fail_holders(struct offload_mgr *m, uint32_t mark, enum offload_result res)
{
	struct omt_entry *e = omt_entry(m->omt, mark);

	for (uint16_t i = 0; i < e->n_holders; i++) {
		ST_ADD(m->st_failed[res], 1);
		post(m, e->holders[i].pmd, e->holders[i].megaflow_id, 0,
		     OFFLOAD_OP_ADD, res);
	}
	omt_drop(m->omt, mark, true);
	publish(m);
}

/* The pending rule at the top of the queue goes to the NIC. */
static void
do_add(struct offload_mgr *m, const struct offload_req *r)
{
	struct offload_rule rule;
	uint32_t mark = r->mark;

	struct offload_engine_error ee = { 0 };
	enum offload_result res;

	if (!mark) {		/* did not build when it was queued */
		res = offload_engine_build_refusal(&m->p.target, &r->outer_key,
			&r->outer_mask, r->has_inner ? &r->inner_key : NULL,
			r->has_inner ? &r->inner_mask : NULL, &ee);
		offload_fail_log_set(&m->fail_log, res, ee.err, ee.msg);
		fail(m, r, res);
		return;
	}
	if (build(m, r, mark, &rule)) {
		fail_holders(m, mark, OFFLOAD_FAIL_NOT_CANONICAL);
		return;
	}
	if (offload_engine_validate(&m->p, &rule, &ee) != 0) {
		offload_fail_log_set(&m->fail_log, OFFLOAD_FAIL_VALIDATE,
				     ee.err, ee.msg);
		fail_holders(m, mark, OFFLOAD_FAIL_VALIDATE);
		return;
	}
	uint64_t t0 = rte_rdtsc();
	void *h = offload_engine_create(&m->p, &rule, &ee);
	offload_lat_record(&m->lat, rte_rdtsc() - t0, m->tsc_hz);
	if (!h) {
		res = offload_engine_classify(&ee);
		offload_fail_log_set(&m->fail_log, res, ee.err, ee.msg);
		fail_holders(m, mark, res);
		return;
	}
	omt_installed(m->omt, mark, h);
	ST_ADD(m->st_created, 1);
	struct omt_entry *e = omt_entry(m->omt, mark);
	/* ADDs that joined the rule while it was pending: satisfied by it */
	ST_ADD(m->st_shared, e->n_holders - 1u);
	for (uint16_t i = 0; i < e->n_holders; i++)
		post(m, e->holders[i].pmd, e->holders[i].megaflow_id, mark,
		     OFFLOAD_OP_ADD, OFFLOAD_OK);
	publish(m);
}

static void
do_del(struct offload_mgr *m, const struct offload_req *r)
{
	uint32_t mark = r->mark;
	int i = pend_find(m, 0, r->pmd, r->megaflow_id);

	if (i >= 0) {		/* a non-canonical ADD still queued */
		ST_ADD(m->st_failed[OFFLOAD_FAIL_CANCELLED], 1);
		post(m, r->pmd, r->megaflow_id, 0, OFFLOAD_OP_ADD,
		     OFFLOAD_FAIL_CANCELLED);
		pend_remove(m, i);
		return;
	}
	if (!omt_holder_of(m->omt, mark, r->pmd, r->megaflow_id))
		mark = omt_find_holder(m->omt, r->pmd, r->megaflow_id);
	if (!mark)
		return;		/* never installed (failed, or already gone) */
	struct omt_entry *e = omt_entry(m->omt, mark);
	bool pending = e->state == OMT_PENDING;

	omt_release(m->omt, mark, r->pmd, r->megaflow_id);
	if (pending) {
		/* cancelled for this holder only */
		ST_ADD(m->st_failed[OFFLOAD_FAIL_CANCELLED], 1);
		post(m, r->pmd, r->megaflow_id, 0, OFFLOAD_OP_ADD,
		     OFFLOAD_FAIL_CANCELLED);
		if (e->n_holders) {
			pend_rerank(m, mark);
		} else {
			pend_remove(m, pend_find(m, mark, 0, 0));
			omt_drop(m->omt, mark, true);
		}
		publish(m);
		return;
	}
	if (!e->n_holders) {	/* the last holder: the rule goes */
		int rc = offload_engine_destroy(&m->p, e->handle);
		if (rc) {
			/* the NIC may still mark: keep the mark out of
			 * circulation rather than hand it to another flow */
			rte_log(RTE_LOG_ERR, offload_mgr_logtype,
				"offload_mgr: destroy of mark %u "
				"failed: %d; mark retired\n", mark, rc);
			omt_retire(m->omt, mark);
		} else {
			omt_drop(m->omt, mark, false);
		}
		ST_ADD(m->st_destroyed, 1);
	}
	publish(m);
	post(m, r->pmd, r->megaflow_id, mark, OFFLOAD_OP_DEL, OFFLOAD_OK);
}

static void
pend_refresh(struct offload_mgr *m, const struct offload_req *r)
{
	for (unsigned i = 0; i < m->n_pending; i++) {
		struct offload_req *q = &m->pending[i];
		struct omt_holder *h = omt_holder_of(m->omt, q->mark, r->pmd,
						     r->megaflow_id);
		if (!q->mark && q->pmd == r->pmd &&
		    q->megaflow_id == r->megaflow_id) {
			q->n_packets = r->n_packets;
			m->pending_dirty = true;
			return;
		}
		if (h) {
			h->n_packets = r->n_packets;
			pend_rerank(m, m->pending[i].mark);
			return;
		}
	}
}

static void
pend_push(struct offload_mgr *m, const struct offload_req *r, uint32_t mark)
{
	m->pending[m->n_pending] = *r;
	m->pending[m->n_pending].mark = mark;
	m->pending[m->n_pending].deferred = 0;
	m->n_pending++;
	m->pending_dirty = true;
}

/* An ADD off the ring: a holder of the rule of its pattern, pending or
 * installed (answered at once), or a new pending rule. */
static void
pend_add(struct offload_mgr *m, const struct offload_req *r)
{
	struct offload_rule rule;
	struct offload_pattern pat;

	/* built with a placeholder mark: a non-canonical flow has no pattern
	 * and uses no mark; it waits its turn (mark 0) and fails then */
	if (build(m, r, 1, &rule)) {
		int i = pend_find(m, 0, r->pmd, r->megaflow_id);
		if (i >= 0)
			m->pending[i].n_packets = r->n_packets;
		else
			pend_push(m, r, 0);
		m->pending_dirty = true;
		return;
	}
	offload_pattern_of(&rule, &pat);
	uint32_t mark = omt_lookup(m->omt, &pat);
	if (mark) {
		int rc = omt_hold(m->omt, mark, r->pmd, r->megaflow_id,
				  r->n_packets);
		if (rc < 0) {
			fail(m, r, OFFLOAD_FAIL_CAPACITY);
			return;
		}
		if (omt_entry(m->omt, mark)->state == OMT_INSTALLED) {
			if (rc == 1)
				ST_ADD(m->st_shared, 1);
			post(m, r->pmd, r->megaflow_id, mark, OFFLOAD_OP_ADD,
			     OFFLOAD_OK);
		} else {
			pend_rerank(m, mark);
		}
		publish(m);
		return;
	}
	/* ice's duplicate key held by a rule of ours of another pattern: the
	 * NIC would refuse this one (EEXIST); it stays in software, no token
	 * spent, until that rule goes */
	uint32_t other = omt_ice_key_holder(m->omt, &pat);
	if (other) {
		char msg[64];
		snprintf(msg, sizeof msg, "ice key held by mark %u", other);
		offload_fail_log_set(&m->fail_log, OFFLOAD_FAIL_COLLISION,
				     EEXIST, msg);
		fail(m, r, OFFLOAD_FAIL_COLLISION);
		return;
	}
	mark = omt_claim(m->omt, &pat);
	if (mark && omt_hold(m->omt, mark, r->pmd, r->megaflow_id,
			     r->n_packets) < 0) {
		omt_drop(m->omt, mark, true);
		mark = 0;
	}
	if (!mark) {
		fail(m, r, OFFLOAD_FAIL_CAPACITY);
		return;
	}
	pend_push(m, r, mark);
	publish(m);
}

static int
by_packets_asc(const void *a, const void *b)
{
	const struct offload_req *x = a, *y = b;
	/* ascending, so the busiest is last (popped from the end) */
	if (x->n_packets != y->n_packets)
		return x->n_packets < y->n_packets ? -1 : 1;
	/* equal: older megaflow ids first, i.e. last */
	return x->megaflow_id > y->megaflow_id ? -1 :
	       x->megaflow_id < y->megaflow_id ? 1 : 0;
}

static void
refill(struct offload_mgr *m)
{
	if (!m->p.max_inserts_per_sec)
		return;
	uint64_t now = rte_rdtsc();
	double add = (double)(now - m->last_refill) *
		     m->p.max_inserts_per_sec / (double)m->tsc_hz;
	m->last_refill = now;
	m->tokens += add;
	if (m->tokens > m->p.insert_burst)
		m->tokens = m->p.insert_burst;
}

static bool
take_token(struct offload_mgr *m)
{
	if (!m->p.max_inserts_per_sec)
		return true;
	if (m->tokens >= 1.0) {
		m->tokens -= 1.0;
		return true;
	}
	return false;
}

#define DRAIN_BURST 32

static void *
offload_thread(void *arg)
{
	struct offload_mgr *m = arg;
	struct offload_req batch[DRAIN_BURST];

	while (!__atomic_load_n(&m->stop, __ATOMIC_ACQUIRE)) {
		bool busy = false;

		for (uint16_t i = 0; i < m->p.n_pmds; i++)
			if (m->backlog[i].n)
				backlog_flush(m, i);

		/* drain the ring while the pending set has room */
		while (m->n_pending < m->pending_cap) {
			unsigned room = m->pending_cap - m->n_pending;
			unsigned n = rte_ring_sc_dequeue_burst_elem(
				m->req, batch, sizeof batch[0],
				RTE_MIN(room, (unsigned)DRAIN_BURST), NULL);
			if (!n)
				break;
			busy = true;
			for (unsigned i = 0; i < n; i++) {
				if (batch[i].op == OFFLOAD_OP_DEL)
					do_del(m, &batch[i]);
				else if (batch[i].op == OFFLOAD_OP_REFRESH)
					pend_refresh(m, &batch[i]);
				else
					pend_add(m, &batch[i]);
			}
		}

		if (m->pending_dirty) {
			qsort(m->pending, m->n_pending, sizeof *m->pending,
			      by_packets_asc);
			m->pending_dirty = false;
		}
		refill(m);
		while (m->n_pending) {
			struct offload_req *top = &m->pending[m->n_pending - 1];
			if (!take_token(m)) {
				for (unsigned i = 0; i < m->n_pending; i++)
					if (!m->pending[i].deferred) {
						m->pending[i].deferred = 1;
						ST_ADD(m->st_deferred, 1);
					}
				break;
			}
			m->n_pending--;
			do_add(m, top);
			busy = true;
			/* let DELs and busier ADDs in between inserts */
			if (rte_ring_count(m->req))
				break;
		}
		ST_SET(m->st_pending, m->n_pending);
		if (!busy)
			usleep(100);
	}
	return NULL;
}

/* ---- public ---- */

const char *
offload_result_name(enum offload_result r)
{
	static const char *const names[OFFLOAD_RESULT_N] = {
		[OFFLOAD_OK] = "ok",
		[OFFLOAD_FAIL_NOT_CANONICAL] = "not_canonical",
		[OFFLOAD_FAIL_CAPACITY] = "capacity",
		[OFFLOAD_FAIL_VALIDATE] = "validate",
		[OFFLOAD_FAIL_EXISTS] = "exists",
		[OFFLOAD_FAIL_CANCELLED] = "cancelled",
		[OFFLOAD_FAIL_PROFILE] = "profile",
		[OFFLOAD_FAIL_COLLISION] = "collision",
		[OFFLOAD_FAIL_NO_TUNNEL] = "no_tunnel_port",
	};
	return (unsigned)r < OFFLOAD_RESULT_N ? names[r] : "?";
}

struct offload_mgr *
offload_mgr_create(const struct offload_mgr_params *p)
{
	struct offload_mgr *m;
	char name[RTE_RING_NAMESIZE];

	if (!p || !p->n_pmds ||
	    (p->engine == OFFLOAD_ENGINE_MODEL && !p->model) ||
	    (p->engine != OFFLOAD_ENGINE_MODEL &&
	     p->engine != OFFLOAD_ENGINE_ETHDEV) ||
	    p->max_marks >= ICE_FDIR_MARK_INVALID) {
		rte_errno = EINVAL;
		return NULL;
	}
	m = calloc(1, sizeof *m);
	if (!m) {
		rte_errno = ENOMEM;
		return NULL;
	}
	m->p = *p;
	if (!m->p.max_marks)
		m->p.max_marks = FDIR_E810_TOTAL_FILTERS;
	if (!m->p.insert_burst)
		m->p.insert_burst = 1;
	if (!m->p.req_ring_size)
		m->p.req_ring_size = 1024;
	if (!m->p.compl_ring_size)
		m->p.compl_ring_size = 1024;
	offload_fail_log_init(&m->fail_log);
	m->tsc_hz = rte_get_tsc_hz();
	m->tokens = m->p.insert_burst;
	m->last_refill = rte_rdtsc();

	unsigned seq = __atomic_fetch_add(&mgr_seq, 1, __ATOMIC_RELAXED);
	snprintf(name, sizeof name, "ofl_req_%u_%d", seq, (int)getpid() % 100000);
	m->req = rte_ring_create_elem(name, sizeof(struct offload_req),
				      m->p.req_ring_size, SOCKET_ID_ANY,
				      RING_F_SC_DEQ | RING_F_EXACT_SZ);
	m->compl = calloc(m->p.n_pmds, sizeof *m->compl);
	m->backlog = calloc(m->p.n_pmds, sizeof *m->backlog);
	m->pending_cap = 2 * m->p.req_ring_size;
	if (m->pending_cap < DRAIN_BURST)
		m->pending_cap = DRAIN_BURST;
	m->pending = calloc(m->pending_cap, sizeof *m->pending);
	m->omt = omt_create(m->p.max_marks);
	if (!m->req || !m->compl || !m->backlog || !m->pending || !m->omt)
		goto err;
	for (uint16_t i = 0; i < m->p.n_pmds; i++) {
		snprintf(name, sizeof name, "ofl_cmp_%u_%u", seq, i);
		m->compl[i] = rte_ring_create_elem(
			name, sizeof(struct offload_completion),
			m->p.compl_ring_size, SOCKET_ID_ANY,
			RING_F_SP_ENQ | RING_F_SC_DEQ | RING_F_EXACT_SZ);
		if (!m->compl[i])
			goto err;
	}
	if (pthread_create(&m->thread, NULL, offload_thread, m) != 0) {
		rte_errno = EAGAIN;
		goto err_keep_errno;
	}
	m->thread_started = true;
	return m;
err:
	rte_errno = rte_errno ? rte_errno : ENOMEM;
err_keep_errno:;
	int e = rte_errno;
	offload_mgr_destroy(m);
	rte_errno = e;
	return NULL;
}

void
offload_mgr_destroy(struct offload_mgr *m)
{
	if (!m)
		return;
	if (m->thread_started) {
		__atomic_store_n(&m->stop, true, __ATOMIC_RELEASE);
		pthread_join(m->thread, NULL);
	}
	for (uint32_t i = 1; m->omt && i <= m->p.max_marks; i++) {
		struct omt_entry *e = omt_entry(m->omt, i);
		if (e->state == OMT_INSTALLED || e->state == OMT_RETIRED) {
			offload_engine_destroy(&m->p, e->handle);
			ST_ADD(m->st_destroyed, 1);
		}
	}
	if (m->compl)
		for (uint16_t i = 0; i < m->p.n_pmds; i++)
			rte_ring_free(m->compl[i]);
	if (m->backlog)
		for (uint16_t i = 0; i < m->p.n_pmds; i++)
			free(m->backlog[i].v);
	rte_ring_free(m->req);
	free(m->compl);
	free(m->backlog);
	free(m->pending);
	omt_free(m->omt);
	pthread_mutex_destroy(&m->fail_log.lock);
	free(m);
}

/* A request for the ring; false if the arguments are bad. */
static bool
req_init(const struct offload_mgr *m, struct offload_req *r, uint16_t pmd,
	 uint64_t megaflow_id, enum offload_op op)
{
	if (!m || pmd >= m->p.n_pmds)
		return false;
	memset(r, 0, sizeof *r);
	r->megaflow_id = megaflow_id;
	r->pmd = pmd;
	r->op = op;
	return true;
}

static int
enqueue(struct offload_mgr *m, const struct offload_req *r)
{
	if (rte_ring_mp_enqueue_elem(m->req, (void *)r, sizeof *r) != 0) {
		ST_ADD(m->st_dropped, 1);
		return -ENOBUFS;
	}
	ST_ADD(m->st_requests, 1);
	return 0;
}

int
offload_mgr_request_add(struct offload_mgr *m, uint16_t pmd,
			uint64_t megaflow_id,
			const struct flow_key *outer_key,
			const struct flow_key *outer_mask,
			const struct flow_key *inner_key,
			const struct flow_key *inner_mask, uint64_t n_packets)
{
	struct offload_req r;

	if (!outer_key || !outer_mask || (!inner_key) != (!inner_mask) ||
	    !req_init(m, &r, pmd, megaflow_id, OFFLOAD_OP_ADD))
		return -EINVAL;
	r.outer_key = *outer_key;
	r.outer_mask = *outer_mask;
	if (inner_key) {
		r.inner_key = *inner_key;
		r.inner_mask = *inner_mask;
		r.has_inner = 1;
	}
	r.n_packets = n_packets;
	return enqueue(m, &r);
}

int
offload_mgr_request_del(struct offload_mgr *m, uint16_t pmd,
			uint64_t megaflow_id, uint32_t mark)
{
	struct offload_req r;

	if (!req_init(m, &r, pmd, megaflow_id, OFFLOAD_OP_DEL))
		return -EINVAL;
	r.mark = mark;
	return enqueue(m, &r);
}

int
offload_mgr_request_refresh(struct offload_mgr *m, uint16_t pmd,
			    uint64_t megaflow_id, uint64_t n_packets)
{
	struct offload_req r;

	if (!req_init(m, &r, pmd, megaflow_id, OFFLOAD_OP_REFRESH))
		return -EINVAL;
	/* Refreshes only re-rank: they never take the ring's second half,
	 * which stays for ADDs and DELs (a DEL or ADD lost to a flood of
	 * refreshes would leave a flow in software for good). */
	if (rte_ring_free_count(m->req) < rte_ring_get_capacity(m->req) / 2)
		return -ENOBUFS;
	r.n_packets = n_packets;
	if (rte_ring_mp_enqueue_elem(m->req, &r, sizeof r) != 0)
		return -ENOBUFS;	/* not a lost request: not counted */
	return 0;
}

uint32_t
offload_mgr_max_in_flight(const struct offload_mgr *m)
{
	return rte_ring_get_capacity(m->req) + m->pending_cap;
}

uint32_t
offload_mgr_queue_depth(const struct offload_mgr *m)
{
	return rte_ring_count(m->req) +
	       __atomic_load_n(&m->st_pending, __ATOMIC_RELAXED);
}

unsigned
offload_mgr_poll_completions(struct offload_mgr *m, uint16_t pmd,
			     struct offload_completion *out, unsigned n)
{
	if (!m || pmd >= m->p.n_pmds || !n)
		return 0;
	return rte_ring_sc_dequeue_burst_elem(m->compl[pmd], out, sizeof *out,
					      n, NULL);
}

void
offload_mgr_get_stats(const struct offload_mgr *m_, struct offload_mgr_stats *st)
{
	struct offload_mgr *m = (struct offload_mgr *)m_;

	memset(st, 0, sizeof *st);
	st->created = ST_GET(m->st_created);
	st->destroyed = ST_GET(m->st_destroyed);
	st->installed = st->created - st->destroyed;
	st->requests = ST_GET(m->st_requests);
	st->dropped_requests = ST_GET(m->st_dropped);
	for (unsigned i = 0; i < OFFLOAD_RESULT_N; i++)
		st->failed[i] = ST_GET(m->st_failed[i]);
	st->rate_deferred = ST_GET(m->st_deferred);
	st->queue_depth = rte_ring_count(m->req) + ST_GET(m->st_pending);
	st->marks_in_use = ST_GET(m->st_marks_in_use);
	st->shared = ST_GET(m->st_shared);
	st->holders = ST_GET(m->st_holders);
	st->max_marks = m->p.max_marks;
	offload_lat_read(&m->lat, &st->lat_samples, &st->lat_p50_us,
			 &st->lat_p99_us, &st->lat_max_us);
}

bool
offload_mgr_last_failure(struct offload_mgr *m, enum offload_result r,
			 int *err, char *msg, size_t len)
{
	struct offload_engine_error e;

	if (!m || !offload_fail_log_get(&m->fail_log, r, &e))
		return false;
	*err = e.err;
	snprintf(msg, len, "%s", e.msg);
	return true;
}
