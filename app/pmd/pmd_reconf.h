/* SPDX-License-Identifier: BSD-3-Clause
 * Changing what the PMDs poll while they run (pmd_reconf.c): rx queues
 * handed out, moved and taken back between two bursts of the PMDs
 * concerned (pmd_call), never stopping the others; and the PMD set itself
 * (set-pmd-cores), which does stop them all for the few milliseconds a
 * new set takes to start.
 *
 * A queue moves in two steps, so that no two PMDs ever poll it at once:
 * every PMD first drops what it loses (its counters and poll state travel
 * with the queue), then every PMD takes what it gains. In between the
 * queue is not polled for a few microseconds: its packets wait in its
 * ring, none is lost.
 */
#ifndef VXS_PMD_RECONF_H
#define VXS_PMD_RECONF_H

#include <stdbool.h>
#include <stdint.h>
#include "pmd.h"

/* Gives the queues of port p (new, not polled yet) to PMDs: pinned ones
 * (its pmd-rxq-affinity) to their core, the rest to the least loaded PMDs;
 * no other queue moves. */
int pmd_rxqs_add_port(struct port *p, char *err, size_t errlen);
/* Every PMD lets go of port p: stops polling its queues, revalidates its
 * megaflows against the current snapshot (p is no longer in it), sends
 * what it had buffered for p and zeroes its counters for p's slot. */
void pmd_rxqs_forget_port(struct port *p);
/* Assigns every queue again by pmd-rxq-assign (pmd_rxq_sched.c) and moves
 * those whose PMD changes. Returns the number moved, or -1 and err. */
int pmd_rxqs_rebalance(const char *why, char *err, size_t errlen);
/* A copy of the PMD's queues (PMD_MAX_RXQS room), taken between two of
 * its bursts; returns how many. */
uint16_t pmd_rxqs_copy(struct pmd *pmd, struct pmd_rxq *out);
/* The PMD now polling port p's queue qid, or NULL. */
struct pmd *pmd_of_rxq(const struct port *p, uint16_t qid);

/* set-pmd-cores: the PMDs on these lcores (EAL worker lcores, not the
 * main one), keeping every megaflow's rule and every port: all PMDs stop,
 * their counters are folded into pmd_retired, new ones start with the
 * queues assigned afresh. */
int pmd_set_cores(const uint16_t *cores, uint16_t n, char *err,
		  size_t errlen);

/* pmd-rxq-assign, pmd-rxq-isolate and the auto-lb's settings, from the
 * topology (pmds_create) or set at run time. */
#include "pmd_rxq_sched.h"
extern struct rxq_sched_opts pmd_sched_opts;
struct pmd_auto_lb {
	bool on;
	uint32_t interval_ms;
	struct rxq_sched_alb_params params;
	struct rxq_sched_dry_run last;	/* the latest dry run */
	uint64_t dry_runs, rebalances;
};
extern struct pmd_auto_lb pmd_alb;
extern uint64_t pmd_rxq_moves;		/* queues moved by rebalances */
void pmd_sched_configure(const struct vxs_config *cfg);
/* From the control loop: the auto load balancer's timer, dry run and,
 * when it pays, a rebalance (OVS pmd-auto-lb). */
void pmd_auto_lb_tick(void);

/* Counters of PMDs that no longer exist (set-pmd-cores), so totals never
 * go backwards: ports' per-slot counters and the accounting's terms. */
extern struct pmd_port_stats *pmd_retired_port_stats;	/* PORT_MAX */
extern struct pmd_stats pmd_retired_stats;

#endif
