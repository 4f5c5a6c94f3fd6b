/* SPDX-License-Identifier: BSD-3-Clause
 * The load window (pmd.h, struct pmd_load), rolled by the PMD itself once
 * per interval, as OVS's dp_netdev_pmd_try_optimize does: each queue's
 * busy cycles of the interval go into its history, the PMD's busy cycles
 * into its own, and the interval's busy share feeds the auto load
 * balancer's overload count. Readers (pmd-rxq-show, the scheduler) read
 * the histories with relaxed atomics while the PMD runs.
 */
#include <string.h>
#include <rte_cycles.h>
#include "pmd.h"

void
pmd_load_init(struct pmd_load *l, const struct vxs_config *cfg)
{
	memset(l, 0, sizeof *l);
	l->interval_tsc = rte_get_tsc_hz() / 1000 * cfg->pmd_load_interval_ms;
	l->next_tsc = rte_rdtsc() + l->interval_tsc;
	l->load_threshold = cfg->pmd_auto_lb_load_threshold;
}

/* The counter's growth since *prev (0 after a pmd-stats-clear), and
 * *prev moved on. */
static uint64_t
since(uint64_t now, uint64_t *prev)
{
	uint64_t d = now >= *prev ? now - *prev : 0;

	*prev = now;
	return d;
}

void
pmd_load_roll(struct pmd *pmd, uint64_t now)
{
	struct pmd_load *l = &pmd->load;
	uint64_t busy = since(pmd->stats.busy_cycles, &l->prev_busy);
	uint64_t idle = since(pmd->stats.idle_cycles, &l->prev_idle);
	uint64_t sleep = since(pmd->stats.sleep_cycles, &l->prev_sleep);

	/* Isolated PMDs are left out of the auto-lb, as in OVS. */
	if (!pmd->isolated)
		l->load_pct = rxq_sched_overload_update(&l->overload, busy,
							busy + idle + sleep,
							l->load_threshold);
	for (uint16_t i = 0; i < pmd->n_rxqs; i++) {
		struct pmd_rxq *q = &pmd->rxqs[i];
		rxq_sched_hist_push(&q->hist, q->intrvl_cycles);
		q->intrvl_cycles = 0;
	}
	if (l->prev_tsc)
		__atomic_store_n(&l->intrvl_cycles, now - l->prev_tsc,
				 __ATOMIC_RELAXED);
	rxq_sched_hist_push(&l->busy, busy);
	l->prev_tsc = now;
	l->next_tsc = now + l->interval_tsc;
}
