/* SPDX-License-Identifier: BSD-3-Clause
 * Live changes to what the PMDs poll (pmd_reconf.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include "dp_snapshot.h"
#include <rte_ethdev.h>
#include "clock.h"
#include "ds.h"
#include "pmd_reconf.h"
#include "pmd_watch.h"
#include "pmd_rxq_sched.h"
#include "vlog.h"

struct pmd_port_stats *pmd_retired_port_stats;
struct pmd_stats pmd_retired_stats;
struct rxq_sched_opts pmd_sched_opts = { .assign = CFG_RXQ_ASSIGN_CYCLES,
					 .isolate = true };
struct pmd_auto_lb pmd_alb;
uint64_t pmd_rxq_moves;

void
pmd_sched_configure(const struct vxs_config *cfg)
{
	pmd_sched_opts.assign = cfg->pmd_rxq_assign;
	pmd_sched_opts.isolate = cfg->pmd_rxq_isolate;
	pmd_alb.on = cfg->pmd_auto_lb;
	pmd_alb.interval_ms = cfg->pmd_auto_lb_rebal_interval_ms;
	pmd_alb.params.load_threshold = cfg->pmd_auto_lb_load_threshold;
	pmd_alb.params.improvement_threshold =
		cfg->pmd_auto_lb_improvement_threshold;
}

/* One queue's place before and after: PMD indexes, -1 for none. */
struct rxq_move {
	struct port *port;
	uint16_t qid;
	int from, to;
	bool carried;
	struct pmd_rxq carry;		/* its counters, on the way */
};

struct rxq_plan {
	struct rxq_move *m;
	uint32_t n;
	int phase;			/* 1: let go; 2: take */
};

static struct rxq_move *
plan_find(struct rxq_plan *pl, const struct port *p, uint16_t qid)
{
	for (uint32_t i = 0; i < pl->n; i++)
		if (pl->m[i].port == p && pl->m[i].qid == qid)
			return &pl->m[i];
	return NULL;
}

static void
rxq_init(struct pmd_rxq *q, struct port *p, uint16_t qid)
{
	*q = (struct pmd_rxq){ .port = p, .qid = qid };
	/* Only vhost queues are scheduled: the NIC's is the hot one, and
	 * its rx descriptors must be refilled, so it is polled every round. */
	pmd_poll_q_init(&q->poll, p->kind == PORT_VHOST);
}

/* In the PMD, between two bursts. */
static void
plan_apply_req(struct pmd_request *req)
{
	struct rxq_plan *pl = req->arg;
	struct pmd *pmd = req->pmd;
	int me = pmd->idx;

	if (pl->phase == 1) {
		uint16_t k = 0;
		for (uint16_t i = 0; i < pmd->n_rxqs; i++) {
			struct rxq_move *m = plan_find(pl, pmd->rxqs[i].port,
						       pmd->rxqs[i].qid);
			if (m && m->to != me) {
				m->carry = pmd->rxqs[i];
				m->carried = true;
				continue;
			}
			pmd->rxqs[k++] = pmd->rxqs[i];
		}
		if (k != pmd->n_rxqs)	/* reloaded: see below */
			pmd->load.overload.intervals = 0;
		pmd->n_rxqs = k;
		return;
	}
	for (uint32_t i = 0; i < pl->n; i++) {
		struct rxq_move *m = &pl->m[i];
		if (m->to != me || m->from == me)
			continue;
		/* OVS resets a reloaded PMD's overload count (pmd_thread_main:
		 * pmd_overloaded), so the auto-lb waits a whole window of the
		 * new assignment before it judges it. */
		pmd->load.overload.intervals = 0;
		struct pmd_rxq *q = &pmd->rxqs[pmd->n_rxqs++];
		if (m->carried) {
			/* Its counters and its load history go with it (OVS
			 * keeps an rxq's cycles_intrvl[] across a reload and
			 * clears only the current interval): were the history
			 * cleared, the next rebalance would see the queue
			 * idle and move it back (cycles: ping-pong). */
			*q = m->carry;
			q->intrvl_cycles = 0;
			pmd_poll_q_init(&q->poll, m->port->kind == PORT_VHOST);
		} else {
			rxq_init(q, m->port, m->qid);
		}
	}
}

static int
plan_apply(struct rxq_plan *pl, char *err, size_t errlen)
{
	/* room first: nothing moves if a PMD would be over its limit */
	for (uint16_t i = 0; i < n_pmds; i++) {
		int n = pmds[i].n_rxqs;
		for (uint32_t k = 0; k < pl->n; k++)
			n += (pl->m[k].to == i) - (pl->m[k].from == i);
		if (n > PMD_MAX_RXQS) {
			snprintf(err, errlen, "pmd on core %u: more than %d rx "
				 "queues", pmds[i].lcore, PMD_MAX_RXQS);
			return -1;
		}
	}
	/* and every PMD answering: a plan half applied would lose queues */
	for (uint16_t i = 0; i < n_pmds; i++)
		if (!pmd_answering(&pmds[i])) {
			struct ds s;
			ds_init(&s);
			pmd_silence_text(&pmds[i], &s);
			snprintf(err, errlen, "%s: no rx queue moved", ds_cstr(&s));
			ds_destroy(&s);
			return -1;
		}
	for (pl->phase = 1; pl->phase <= 2; pl->phase++)
		for (uint16_t i = 0; i < n_pmds; i++)
			if (pmd_call(&pmds[i], plan_apply_req, pl)) {
				snprintf(err, errlen, "pmd on core %u does not "
					 "answer", pmds[i].lcore);
				return -1;
			}
	return 0;
}

struct rxqs_copy {
	struct pmd_rxq *out;
	uint16_t n;
};

static void
rxqs_copy_req(struct pmd_request *req)
{
	struct rxqs_copy *c = req->arg;

	c->n = req->pmd->n_rxqs;
	memcpy(c->out, req->pmd->rxqs, c->n * sizeof *c->out);
}

uint16_t
pmd_rxqs_copy(struct pmd *pmd, struct pmd_rxq *out)
{
	struct rxqs_copy c = { .out = out };

	if (pmd_call(pmd, rxqs_copy_req, &c))
		rxqs_copy_req(&(struct pmd_request){ .pmd = pmd, .arg = &c });
	return c.n;
}

struct pmd *
pmd_of_rxq(const struct port *p, uint16_t qid)
{
	for (uint16_t i = 0; i < n_pmds; i++)
		for (uint16_t k = 0; k < pmds[i].n_rxqs; k++)
			if (pmds[i].rxqs[k].port == p &&
			    pmds[i].rxqs[k].qid == qid)
				return &pmds[i];
	return NULL;
}

static int
pinned_pmd(const struct port *p, uint16_t qid)
{
	const struct cfg_port *c = p->cfg;

	for (uint16_t a = 0; a < c->n_affinity; a++)
		if (c->affinity[a].queue == qid) {
			struct pmd *pmd = pmd_by_core(c->affinity[a].core);
			if (!pmd)
				VLOG_WARN(pmd, "%s rx queue %u: core %u "
					"is not a PMD core: assigned as if not "
					"pinned\n", p->name, qid,
					c->affinity[a].core);
			return pmd ? pmd->idx : -1;
		}
	return -1;
}

int
pmd_rxqs_add_port(struct port *p, char *err, size_t errlen)
{
	struct rxq_plan pl = { 0 };
	uint16_t load[CFG_MAX_CORES];
	struct rxq_move *m;
	int rc;

	if (!p->n_rxq || !n_pmds)
		return 0;
	m = pl.m = calloc(p->n_rxq, sizeof *m);
	if (!m) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (uint16_t i = 0; i < n_pmds; i++)
		load[i] = pmds[i].n_rxqs;
	for (uint16_t q = 0; q < p->n_rxq; q++) {
		int to = pinned_pmd(p, q);
		if (to < 0)	/* the least loaded PMD that is not isolated */
			for (uint16_t i = 0; i < n_pmds; i++)
				if (!pmds[i].isolated &&
				    (to < 0 || load[i] < load[to]))
					to = i;
		if (to < 0)
			to = 0;	/* every PMD isolated: OVS would leave it
				 * unpolled; polled rather than lost */
		load[to]++;
		m[pl.n++] = (struct rxq_move){ .port = p, .qid = q,
					       .from = -1, .to = to };
	}
	rc = plan_apply(&pl, err, errlen);
	free(m);
	return rc;
}

/* In the PMD: p is gone from the snapshot; drop every reference to it. */
static void
forget_port_req(struct pmd_request *req)
{
	struct pmd *pmd = req->pmd;
	struct port *p = req->arg;
	const struct dp_snapshot *held = pmd->dp.snap;
	uint16_t k = 0;

	for (uint16_t i = 0; i < pmd->n_rxqs; i++)
		if (pmd->rxqs[i].port != p)
			pmd->rxqs[k++] = pmd->rxqs[i];
	pmd->n_rxqs = k;
	/* Its megaflows translated again without p, then what is already
	 * buffered for p sent: nothing will name p's slot after this. */
	pmd->dp.snap = dp_snapshot_get();
	if (pmd->dp.snap && pmd->dp.snap->gen != pmd->dp.seen_gen) {
		dp_revalidate(&pmd->dp);
		pmd->dp.seen_gen = pmd->dp.snap->gen;
	}
	dp_tx_flush_all(&pmd->dp);
	pmd->dp.snap = held ? pmd->dp.snap : NULL;
	memset(&pmd->port_stats[p->idx], 0, sizeof pmd->port_stats[p->idx]);
}

void
pmd_rxqs_forget_port(struct port *p)
{
	for (uint16_t i = 0; i < n_pmds; i++)
		pmd_call(&pmds[i], forget_port_req, p);
	memset(&pmd_retired_port_stats[p->idx], 0,
	       sizeof pmd_retired_port_stats[p->idx]);
}

static int
pinned_lcore(const struct port *p, uint16_t qid)
{
	for (uint16_t a = 0; a < p->cfg->n_affinity; a++)
		if (p->cfg->affinity[a].queue == qid)
			return p->cfg->affinity[a].core;
	return -1;
}

static int
port_numa(const struct port *p)
{
	return p->kind == PORT_ETHDEV ? rte_eth_dev_socket_id(p->eth_port_id)
				      : -1;
}

static uint64_t
rxq_load(const struct port *p, uint16_t qid)
{
	struct pmd *pmd = pmd_of_rxq(p, qid);

	for (uint16_t k = 0; pmd && k < pmd->n_rxqs; k++)
		if (pmd->rxqs[k].port == p && pmd->rxqs[k].qid == qid)
			return rxq_sched_hist_sum(&pmd->rxqs[k].hist,
						  RXQ_SCHED_INTERVAL_MAX);
	return 0;
}

/* The scheduler's view of the queues in m[] and of the PMDs. */
static void
sched_inputs(const struct rxq_move *m, uint32_t n, struct rxq_sched_q *q,
	     struct rxq_sched_pmd *ps)
{
	for (uint32_t i = 0; i < n; i++)
		q[i] = (struct rxq_sched_q){
			.port = m[i].port->ofport, .qid = m[i].qid,
			.name = m[i].port->name, .numa = port_numa(m[i].port),
			.pinned_lcore = pinned_lcore(m[i].port, m[i].qid),
			.load = rxq_load(m[i].port, m[i].qid),
			.cur_pmd = m[i].from, .pmd = -1 };
	for (uint16_t k = 0; k < n_pmds; k++)
		ps[k] = (struct rxq_sched_pmd){
			.lcore = pmds[k].lcore,
			.numa = (int)rte_lcore_to_socket_id(pmds[k].lcore),
			.window_cycles = __atomic_load_n(
				&pmds[k].load.intrvl_cycles, __ATOMIC_RELAXED) *
				RXQ_SCHED_INTERVAL_MAX,
			.overloaded = rxq_sched_overloaded(
				&pmds[k].load.overload) };
}

/* Every queue of every port in use, where it is polled now. */
static struct rxq_move *
gather_rxqs(uint32_t *n)
{
	uint32_t cap = 0;
	struct port *p;
	struct rxq_move *m;

	PORTS_FOREACH(p)
		if (!p->removing)
			cap += p->n_rxq;
	m = calloc(cap + 1, sizeof *m);
	*n = 0;
	if (!m)
		return NULL;
	PORTS_FOREACH(p) {
		if (p->removing)
			continue;
		for (uint16_t q = 0; q < p->n_rxq; q++) {
			struct pmd *cur = pmd_of_rxq(p, q);
			m[(*n)++] = (struct rxq_move){ .port = p, .qid = q,
						       .from = cur ? cur->idx : -1,
						       .to = -1 };
		}
	}
	return m;
}

static void
log_lines(const char *text)
{
	while (text && *text) {
		size_t len = strcspn(text, "\n");
		VLOG_INFO(pmd, "%.*s\n", (int)len, text);
		text += len + (text[len] == '\n');
	}
}

int
pmd_rxqs_rebalance(const char *why, char *err, size_t errlen)
{
	struct rxq_sched_pmd ps[CFG_MAX_CORES];
	struct rxq_sched_q *q;
	struct rxq_move *m;
	struct ds log;
	uint32_t n;
	int moved = 0, rc;

	if (!n_pmds)
		return 0;
	m = gather_rxqs(&n);
	q = calloc(n + 1, sizeof *q);
	if (!m || !q) {
		free(m);
		free(q);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	sched_inputs(m, n, q, ps);
	ds_init(&log);
	rc = rxq_sched_assign(q, n, ps, n_pmds, &pmd_sched_opts, &log);
	if (!rc) {
		for (uint32_t i = 0; i < n; i++) {
			m[i].to = q[i].pmd;
			moved += m[i].from >= 0 && m[i].from != m[i].to;
		}
		struct rxq_plan pl = { .m = m, .n = n };
		rc = plan_apply(&pl, err, errlen);
	} else {
		snprintf(err, errlen, "out of memory");
	}
	if (!rc) {
		for (uint16_t k = 0; k < n_pmds; k++)
			__atomic_store_n(&pmds[k].isolated, ps[k].isolated,
					 __ATOMIC_RELAXED);
		if (why)
			log_lines(ds_cstr(&log));
		if (why && moved)
			VLOG_INFO(pmd, "pmd-rxq-rebalance (%s): %d "
				"queues moved\n", why, moved);
		if (why && moved)
			pmd_rxq_moves += moved;
	}
	ds_destroy(&log);
	free(q);
	free(m);
	return rc ? -1 : moved;
}

/* ---- pmd-auto-lb --------------------------------------------------------- */

void
pmd_auto_lb_tick(void)
{
	static struct rxq_sched_timer timer;
	static bool was_on;
	struct rxq_sched_pmd ps[CFG_MAX_CORES];
	struct rxq_sched_dry_run dr;
	struct rxq_sched_q *q;
	struct rxq_move *m;
	char err[128];
	uint32_t n;

	if (!pmd_alb.on || n_pmds < 2) {
		was_on = false;
		return;
	}
	if (!was_on) {		/* OVS counts overloaded intervals while on */
		for (uint16_t k = 0; k < n_pmds; k++)
			pmds[k].load.overload.intervals = 0;
		was_on = true;
	}
	if (!rxq_sched_timer_due(&timer, vxs_now_ms(), pmd_alb.interval_ms))
		return;
	m = gather_rxqs(&n);
	q = calloc(n + 1, sizeof *q);
	if (m && q) {
		sched_inputs(m, n, q, ps);
		if (rxq_sched_dry_run(q, n, ps, n_pmds, &pmd_sched_opts,
				      &pmd_alb.params, &dr, NULL) == 0) {
			pmd_alb.last = dr;
			pmd_alb.dry_runs++;
			if (dr.rebalance) {
				VLOG_INFO(pmd, "pmd-auto-lb: variance %lu "
					"-> %lu (%lu %% better): rebalancing\n",
					dr.cur_variance, dr.est_variance,
					dr.improvement);
				if (pmd_rxqs_rebalance("pmd-auto-lb", err,
						       sizeof err) >= 0)
					pmd_alb.rebalances++;
			}
		}
	}
	free(q);
	free(m);
}
