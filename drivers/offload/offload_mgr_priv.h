/* SPDX-License-Identifier: BSD-3-Clause
 * The offload manager's insides, shared by its files: offload_mgr.c (the
 * ring, the thread, rules to and from the NIC, completions) and
 * offload_mgr_admit.c (ADDs into the candidate set, and what admission,
 * offload_admit.c, asks of the manager). Thread-only unless said.
 */
#ifndef VXS_OFFLOAD_MGR_PRIV_H
#define VXS_OFFLOAD_MGR_PRIV_H

#include <pthread.h>
#include <rte_ring.h>
#include "offload_admit.h"
#include "offload_engine.h"
#include "offload_lat.h"
#include "offload_mark_table.h"
#include "offload_mgr.h"
#include "offload_rule.h"

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
	struct offload_admit adm;	/* the candidates, waiting */
	struct offload_mark_table *omt;
	uint64_t tsc_hz;
	/* [pmd * (max_marks + 1) + mark]: the pps each PMD's megaflow on
	 * an installed rule carries, written by that PMD */
	uint32_t *rates;

	/* stats: written by the thread (requests/dropped by the PMDs), read
	 * by anyone with relaxed atomics */
	uint64_t st_created, st_destroyed, st_requests, st_dropped;
	uint64_t st_failed[OFFLOAD_RESULT_N];
	uint64_t st_shared, st_holders;
	uint32_t st_pending, st_marks_in_use;
	struct offload_lat lat;		/* rte_flow_create, timed */
	struct offload_fail_log fail_log;	/* last errno + message */
};

#define ST_ADD(x, v) __atomic_fetch_add(&(x), (v), __ATOMIC_RELAXED)
#define ST_SET(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
#define ST_GET(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)

/* A completion to pmd, in order behind its backlog. */
void mgr_post(struct offload_mgr *m, uint16_t pmd, uint64_t mfid,
	      uint32_t mark, enum offload_op op, enum offload_result res);
/* The requester of r gets the failure res (counted). */
void mgr_fail(struct offload_mgr *m, const struct offload_req *r,
	      enum offload_result res);
/* What the control thread reads of the mark table. */
void mgr_publish(struct offload_mgr *m);
/* r's rule, with mark; 0 or -ENOTSUP (not canonical). */
int mgr_build(const struct offload_mgr *m, const struct offload_req *r,
	      uint32_t mark, struct offload_rule *rule);
/* The candidate r (it has a mark) to the NIC. */
void mgr_do_add(struct offload_mgr *m, const struct offload_req *r);

/* offload_mgr_admit.c */
void pend_rerank(struct offload_mgr *m, uint32_t mark);
void pend_add(struct offload_mgr *m, const struct offload_req *r);
void pend_refresh(struct offload_mgr *m, const struct offload_req *r);
extern const struct admit_ops offload_mgr_admit_ops;

#endif
