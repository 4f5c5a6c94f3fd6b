/* SPDX-License-Identifier: BSD-3-Clause
 * dpif-netdev/pmd-rxq-show [-pmd CORE] [-secs SECS], in OVS 3.1's shape
 * (lib/dpif-netdev.c pmd_info_show_rxq): per PMD, by core, its queues by
 * port name and queue id, each with its share of the PMD's cycles over the
 * last SECS seconds of the load window (app/pmd/pmd_load.c; default and
 * most: the whole window, RXQ_SCHED_INTERVAL_MAX intervals of
 * pmd-load-interval-ms), then the PMD's busy cycles in no queue
 * (overhead). --json: one object per queue, with the poll scheduler's
 * counters (pmd_poll.h), which the text leaves out to keep OVS's shape.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rte_lcore.h>
#include "cmd_util.h"
#include "control.h"
#include "json_out.h"
#include "cmd_pmd_ovs.h"
#include "pmd.h"
#include "pmd_reconf.h"
#include "stats_read.h"

struct rxq_show_args {
	int core;			/* -pmd; -1: every PMD */
	unsigned intervals;		/* of the window to show */
};

/* What one PMD's window says, and each of its queues' share of it. */
struct rxq_window {
	uint64_t total;			/* TSC cycles of the intervals shown;
					 * 0: not measured yet */
	uint64_t busy;			/* the PMD's busy cycles in them */
	uint64_t in_queues;		/* its queues' busy cycles summed */
};

static unsigned
interval_ms(const struct pmd *pmd)
{
	uint64_t hz = rte_get_tsc_hz() / 1000;
	return hz ? (unsigned)(pmd->load.interval_tsc / hz) : 0;
}

static int
parse_args(int argc, const char *argv[], struct rxq_show_args *a,
	   struct ds *out)
{
	unsigned ms = n_pmds ? interval_ms(&pmds[0]) : 0;
	struct pmd_ovs_args o;

	if (pmd_ovs_args_parse(argc, argv, true, &o, out))
		return -1;
	a->core = o.core;
	a->intervals = RXQ_SCHED_INTERVAL_MAX;
	if (o.secs && ms)	/* 0 or past the window: all of it */
		a->intervals = (unsigned)(((uint64_t)o.secs * 1000 + ms - 1) /
					  ms);
	if (a->intervals > RXQ_SCHED_INTERVAL_MAX)
		a->intervals = RXQ_SCHED_INTERVAL_MAX;
	return 0;
}

static const struct pmd *sort_pmd;	/* qsort has no context argument */

static int
cmp_rxq(const void *a_, const void *b_)
{
	const struct pmd_rxq *a = &sort_pmd->rxqs[*(const uint16_t *)a_];
	const struct pmd_rxq *b = &sort_pmd->rxqs[*(const uint16_t *)b_];
	int c = strcmp(a->port->name, b->port->name);

	return c ? c : (int)a->qid - (int)b->qid;
}

static bool
rxq_enabled(const struct pmd_rxq *q)
{
	return port_rxq_enabled(q->port, q->qid);
}

/* OVS's arithmetic: the last interval's length times the intervals shown
 * (the window's intervals are equal but for jitter), busy capped at it. */
static void
window_of(const struct pmd *pmd, unsigned intervals, struct rxq_window *w)
{
	w->total = __atomic_load_n(&pmd->load.intrvl_cycles, __ATOMIC_RELAXED) *
		   intervals;
	w->busy = rxq_sched_hist_sum(&pmd->load.busy, intervals);
	if (w->busy > w->total)
		w->busy = w->total;
	w->in_queues = 0;
}

static void
put_pct(struct ds *out, bool json, uint64_t part, uint64_t total)
{
	if (json) {
		if (total)
			jw_double(out, 100.0 * part / total);
		else
			jw_null(out);
	} else if (total) {
		ds_put_format(out, "%2lu %%", part * 100 / total);
	} else {
		ds_put_cstr(out, "NOT AVAIL");
	}
}

static void
rxq_json(struct ds *out, const struct pmd *pmd, const struct pmd_rxq *q,
	 uint64_t cycles, const struct rxq_window *w)
{
	jw_begin_object(out);
	jw_key(out, "core"); jw_u64(out, pmd->lcore);
	jw_key(out, "numa_id"); jw_u64(out, rte_lcore_to_socket_id(pmd->lcore));
	jw_key(out, "isolated"); jw_bool(out, pmd->isolated);
	jw_key(out, "port"); jw_string(out, q->port->name);
	jw_key(out, "queue"); jw_u64(out, q->qid);
	jw_key(out, "enabled"); jw_bool(out, rxq_enabled(q));
	jw_key(out, "packets"); jw_u64(out, counter_ld(&q->packets));
	/* over the window shown: the queue's busy cycles, the PMD's cycles */
	jw_key(out, "cycles"); jw_u64(out, cycles);
	jw_key(out, "pmd_cycles"); jw_u64(out, w->total);
	jw_key(out, "usage_pct"); put_pct(out, true, cycles, w->total);
	jw_key(out, "polls"); jw_u64(out, counter_ld(&q->poll.polls));
	jw_key(out, "empty_polls");
	jw_u64(out, counter_ld(&q->poll.empty_polls));
	/* adaptive: scheduled by the poll scheduler; threshold: rounds
	 * skipped between polls */
	jw_key(out, "adaptive"); jw_bool(out, q->poll.adaptive);
	jw_key(out, "threshold");
	jw_u64(out, __atomic_load_n(&q->poll.threshold, __ATOMIC_RELAXED));
	jw_end_object(out);
}

static void
pmd_rxqs(struct ds *out, bool json, const struct pmd *pmd,
	 unsigned intervals)
{
	uint16_t order[PMD_MAX_RXQS], n = pmd->n_rxqs;
	struct rxq_window w;

	window_of(pmd, intervals, &w);
	for (uint16_t i = 0; i < n; i++)
		order[i] = i;
	sort_pmd = pmd;
	qsort(order, n, sizeof order[0], cmp_rxq);
	if (!json)
		ds_put_format(out, "pmd thread numa_id %u core_id %u:\n"
			      "  isolated : %s\n",
			      rte_lcore_to_socket_id(pmd->lcore), pmd->lcore,
			      pmd->isolated ? "true" : "false");
	for (uint16_t i = 0; i < n; i++) {
		const struct pmd_rxq *q = &pmd->rxqs[order[i]];
		uint64_t cycles = rxq_sched_hist_sum(&q->hist, intervals);
		w.in_queues += cycles;
		if (json) {
			rxq_json(out, pmd, q, cycles, &w);
			continue;
		}
		ds_put_format(out, "  port: %-16s  queue-id: %2u %s  pmd usage: ",
			      q->port->name, q->qid,
			      rxq_enabled(q) ? "(enabled) " : "(disabled)");
		put_pct(out, false, cycles, w.total);
		ds_put_char(out, '\n');
	}
	if (!json && n) {
		ds_put_cstr(out, "  overhead: ");
		put_pct(out, false, w.busy > w.in_queues ? w.busy - w.in_queues
							 : 0, w.total);
		ds_put_char(out, '\n');
	}
}

static int
cmd_pmd_rxq_show(int argc, const char *argv[], bool json, struct ds *out,
		 void *aux)
{
	uint16_t order[CFG_MAX_CORES];
	struct rxq_show_args a;

	(void)aux;
	if (parse_args(argc, argv, &a, out))
		return -1;
	pmd_ovs_order(order);
	if (json)
		jw_begin_array(out);
	else
		ds_put_format(out, "Displaying last %u seconds pmd usage %%\n",
			      n_pmds ? a.intervals * interval_ms(&pmds[0]) / 1000
				     : 0);
	static struct pmd_rxq copy[PMD_MAX_RXQS];
	static struct pmd snap;
	for (uint16_t i = 0; i < n_pmds; i++) {
		if (a.core >= 0 && pmds[order[i]].lcore != (unsigned)a.core)
			continue;
		/* its queues as of one moment between two bursts: the PMD
		 * changes the list (pmd_reconf.c) and the counters */
		snap = pmds[order[i]];
		snap.rxqs = copy;
		snap.n_rxqs = pmd_rxqs_copy(&pmds[order[i]], copy);
		pmd_rxqs(out, json, &snap, a.intervals);
	}
	if (json)
		jw_end_array(out);
	return 0;
}

void
cmd_pmd_rxq_register(void)
{
	control_register("dpif-netdev/pmd-rxq-show",
			 "[-pmd CORE] [-secs SECS] [DP]", 0, 5, cmd_pmd_rxq_show,
			 NULL);
}
