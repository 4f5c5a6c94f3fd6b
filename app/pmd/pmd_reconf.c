/* SPDX-License-Identifier: BSD-3-Clause
 * Live changes to what the PMDs poll (pmd_reconf.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include "dp_snapshot.h"
#include "pmd_reconf.h"

struct pmd_port_stats *pmd_retired_port_stats;
struct pmd_stats pmd_retired_stats;

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
		pmd->n_rxqs = k;
		return;
	}
	for (uint32_t i = 0; i < pl->n; i++) {
		struct rxq_move *m = &pl->m[i];
		if (m->to != me || m->from == me)
			continue;
		struct pmd_rxq *q = &pmd->rxqs[pmd->n_rxqs++];
		if (m->carried) {
			*q = m->carry;
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
	for (pl->phase = 1; pl->phase <= 2; pl->phase++)
		for (uint16_t i = 0; i < n_pmds; i++)
			if (pmd_call(&pmds[i], plan_apply_req, pl)) {
				snprintf(err, errlen, "pmd on core %u does not "
					 "answer", pmds[i].lcore);
				return -1;
			}
	return 0;
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
				RTE_LOG(WARNING, USER1, "%s rx queue %u: core %u "
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
		if (to < 0) {
			to = 0;
			for (uint16_t i = 1; i < n_pmds; i++)
				if (load[i] < load[to])
					to = i;
		}
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

/* Until pmd_rxq_sched.c: pinned queues to their PMD, the rest round-robin
 * over the PMDs with the fewest queues, as OVS's roundrobin. */
static void
assign_simple(struct rxq_move *m, uint32_t n)
{
	uint16_t load[CFG_MAX_CORES] = { 0 };

	for (uint32_t i = 0; i < n; i++) {
		m[i].to = pinned_pmd(m[i].port, m[i].qid);
		if (m[i].to >= 0)
			load[m[i].to]++;
	}
	for (uint32_t i = 0; i < n; i++) {
		if (m[i].to >= 0)
			continue;
		int to = 0;
		for (uint16_t k = 1; k < n_pmds; k++)
			if (load[k] < load[to])
				to = k;
		m[i].to = to;
		load[to]++;
	}
}

int
pmd_rxqs_rebalance(const char *why, char *err, size_t errlen)
{
	uint32_t cap = 0, n = 0;
	struct port *p;
	int moved = 0;

	if (!n_pmds)
		return 0;
	PORTS_FOREACH(p)
		if (!p->removing)
			cap += p->n_rxq;
	struct rxq_move *m = calloc(cap + 1, sizeof *m);
	if (!m) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	PORTS_FOREACH(p) {
		if (p->removing)
			continue;
		for (uint16_t q = 0; q < p->n_rxq; q++) {
			struct pmd *cur = pmd_of_rxq(p, q);
			m[n++] = (struct rxq_move){ .port = p, .qid = q,
						    .from = cur ? cur->idx : -1 };
		}
	}
	assign_simple(m, n);
	for (uint32_t i = 0; i < n; i++)
		moved += m[i].from >= 0 && m[i].from != m[i].to;
	struct rxq_plan pl = { .m = m, .n = n };
	int rc = plan_apply(&pl, err, errlen);
	if (!rc && why && moved)
		RTE_LOG(INFO, USER1, "pmd-rxq-rebalance (%s): %d queues "
			"moved\n", why, moved);
	free(m);
	return rc ? -1 : moved;
}
