/* SPDX-License-Identifier: BSD-3-Clause
 * The offload manager (offload_mgr.h): request ring, offload thread,
 * completions, insert latency. Rules, their marks and holders by pattern:
 * offload_mark_table.c; which candidate goes next (ranking, rate limit,
 * eviction): offload_admit.c.
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
#include "offload_admit.h"
#include "offload_engine.h"
#include "offload_lat.h"
#include "offload_mark_table.h"
#include "offload_mgr_priv.h"

/* "vxswitch.offload": the daemon's vlog part of that name (app/lib/vlog.h)
 * is the same DPDK log type. */
RTE_LOG_REGISTER_SUFFIX(offload_mgr_logtype, offload, INFO);

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

void
mgr_post(struct offload_mgr *m, uint16_t pmd, uint64_t mfid, uint32_t mark,
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

void
mgr_fail(struct offload_mgr *m, const struct offload_req *r,
     enum offload_result res)
{
	ST_ADD(m->st_failed[res], 1);
	mgr_post(m, r->pmd, r->megaflow_id, 0, OFFLOAD_OP_ADD, res);
}

/* What the control thread reads of the table. */
void
mgr_publish(struct offload_mgr *m)
{
	ST_SET(m->st_marks_in_use, omt_marks_in_use(m->omt));
	ST_SET(m->st_holders, omt_holders(m->omt));
}

/* ---- the thread's work ---- */

int
mgr_build(const struct offload_mgr *m, const struct offload_req *r,
      uint32_t mark, struct offload_rule *rule)
{
	return ice_fdir_rule_build(&r->outer_key, &r->outer_mask,
				   r->has_inner ? &r->inner_key : NULL,
				   r->has_inner ? &r->inner_mask : NULL,
				   mark, &m->p.target, rule, NULL);
}

/* Every holder of a rule that did not make it to the NIC gets res; the
 * mark goes back. */
static void
fail_holders(struct offload_mgr *m, uint32_t mark, enum offload_result res)
{
	struct omt_entry *e = omt_entry(m->omt, mark);

	for (uint16_t i = 0; i < e->n_holders; i++) {
		ST_ADD(m->st_failed[res], 1);
		mgr_post(m, e->holders[i].pmd, e->holders[i].megaflow_id, 0,
		     OFFLOAD_OP_ADD, res);
	}
	omt_drop(m->omt, mark, true);
	mgr_publish(m);
}

/* The pending rule at the top of the queue goes to the NIC. */
void
mgr_do_add(struct offload_mgr *m, const struct offload_req *r)
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
		mgr_fail(m, r, res);
		return;
	}
	if (mgr_build(m, r, mark, &rule)) {
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
		/* the NIC is full (not a duplicate nor a profile clash): the
		 * admission learns its real size */
		if (res == OFFLOAD_FAIL_CAPACITY)
			admit_on_nic_full(&m->adm);
		return;
	}
	omt_installed(m->omt, mark, h);
	admit_on_installed(&m->adm, mark);
	ST_ADD(m->st_created, 1);
	struct omt_entry *e = omt_entry(m->omt, mark);
	/* ADDs that joined the rule while it was pending: satisfied by it */
	ST_ADD(m->st_shared, e->n_holders - 1u);
	for (uint16_t i = 0; i < e->n_holders; i++)
		mgr_post(m, e->holders[i].pmd, e->holders[i].megaflow_id, mark,
		     OFFLOAD_OP_ADD, OFFLOAD_OK);
	mgr_publish(m);
}

static void
do_del(struct offload_mgr *m, const struct offload_req *r)
{
	uint32_t mark = r->mark;
	int i = admit_find(&m->adm, 0, r->pmd, r->megaflow_id);

	if (i >= 0) {	/* a non-canonical or unclaimed ADD still queued */
		ST_ADD(m->st_failed[OFFLOAD_FAIL_CANCELLED], 1);
		mgr_post(m, r->pmd, r->megaflow_id, 0, OFFLOAD_OP_ADD,
		     OFFLOAD_FAIL_CANCELLED);
		admit_remove(&m->adm, i);
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
		mgr_post(m, r->pmd, r->megaflow_id, 0, OFFLOAD_OP_ADD,
		     OFFLOAD_FAIL_CANCELLED);
		if (e->n_holders) {
			pend_rerank(m, mark);
		} else {
			admit_remove(&m->adm,
				     admit_find(&m->adm, mark, 0, 0));
			omt_drop(m->omt, mark, true);
		}
		mgr_publish(m);
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
		for (uint16_t p = 0; p < m->p.n_pmds; p++)
			offload_mgr_publish_rate(m, p, mark, 0);
		admit_on_freed(&m->adm, mark);
		ST_ADD(m->st_destroyed, 1);
	}
	mgr_publish(m);
	mgr_post(m, r->pmd, r->megaflow_id, mark, OFFLOAD_OP_DEL, OFFLOAD_OK);
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

		/* drain the ring while the candidate set has room */
		while (!admit_full(&m->adm)) {
			unsigned room = m->adm.cap - m->adm.n;
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
		busy |= admit_run(&m->adm);
		ST_SET(m->st_pending, m->adm.n);
		if (!busy)
			usleep(100);
	}
	return NULL;
}

/* ---- public ---- */

const char *
offload_result_name(enum offload_result r)
{
#define OFFLOAD_X_NAME(e, name) [e] = name,
	static const char *const names[OFFLOAD_RESULT_N] = {
		OFFLOAD_RESULTS(OFFLOAD_X_NAME)
	};
#undef OFFLOAD_X_NAME
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

	unsigned seq = __atomic_fetch_add(&mgr_seq, 1, __ATOMIC_RELAXED);
	snprintf(name, sizeof name, "ofl_req_%u_%d", seq, (int)getpid() % 100000);
	m->req = rte_ring_create_elem(name, sizeof(struct offload_req),
				      m->p.req_ring_size, SOCKET_ID_ANY,
				      RING_F_SC_DEQ | RING_F_EXACT_SZ);
	m->compl = calloc(m->p.n_pmds, sizeof *m->compl);
	m->backlog = calloc(m->p.n_pmds, sizeof *m->backlog);
	m->omt = omt_create(m->p.max_marks);
	m->rates = calloc((size_t)m->p.n_pmds * (m->p.max_marks + 1),
			  sizeof *m->rates);
	if (!m->req || !m->compl || !m->backlog || !m->omt || !m->rates ||
	    admit_init(&m->adm, &m->p,
		       RTE_MAX(2 * m->p.req_ring_size, (uint32_t)DRAIN_BURST),
		       &offload_mgr_admit_ops, m))
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
	admit_fini(&m->adm);
	free(m->rates);
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
			const struct flow_key *inner_mask, uint64_t weight)
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
	r.weight = weight;
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
			    uint64_t megaflow_id, uint64_t weight)
{
	struct offload_req r;

	if (!req_init(m, &r, pmd, megaflow_id, OFFLOAD_OP_REFRESH))
		return -EINVAL;
	/* Refreshes only re-rank: they never take the ring's second half,
	 * which stays for ADDs and DELs (a DEL or ADD lost to a flood of
	 * refreshes would leave a flow in software for good). */
	if (rte_ring_free_count(m->req) < rte_ring_get_capacity(m->req) / 2)
		return -ENOBUFS;
	r.weight = weight;
	if (rte_ring_mp_enqueue_elem(m->req, &r, sizeof r) != 0)
		return -ENOBUFS;	/* not a lost request: not counted */
	return 0;
}

enum offload_admission
offload_mgr_admission(const struct offload_mgr *m)
{
	return m->p.admission;
}

uint64_t
offload_mgr_threshold(const struct offload_mgr *m)
{
	return __atomic_load_n(&m->adm.threshold, __ATOMIC_RELAXED);
}

void
offload_mgr_publish_rate(struct offload_mgr *m, uint16_t pmd, uint32_t mark,
			 uint32_t pps)
{
	if (pmd < m->p.n_pmds && mark && mark <= m->p.max_marks)
		__atomic_store_n(&m->rates[(size_t)pmd * (m->p.max_marks + 1) +
					   mark], pps, __ATOMIC_RELAXED);
}

uint32_t
offload_mgr_max_in_flight(const struct offload_mgr *m)
{
	return rte_ring_get_capacity(m->req) + m->adm.cap;
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
	st->rate_deferred = ST_GET(m->adm.deferred);
	st->admission = m->p.admission;
	st->threshold_pps = ST_GET(m->adm.threshold);
	st->evictions = ST_GET(m->adm.evictions);
	st->candidates = ST_GET(m->st_pending);
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
