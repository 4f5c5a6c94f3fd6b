/* SPDX-License-Identifier: BSD-3-Clause
 * Transmit routes: which tx queue each sender uses on a port, and whether
 * it must take that queue's lock (port.h, port_tx_burst).
 *
 * Sender s uses queue s % n_txq; a queue with one sender is used without a
 * lock, a queue with several is locked by all of them (OVS's XPS takes the
 * lock on every queue once any is shared; per queue, a NIC with 2 queues
 * for 2 PMDs and the control thread locks only the one the control thread
 * shares).
 *
 * Changing the routes while PMDs send (a guest enabling or disabling queue
 * pairs) must never leave two senders on one queue with one of them not
 * locking. A PMD reads its route once per burst and is quiescent (RCU)
 * between bursts, so the routes move in three steps, each published only
 * once every PMD has passed a quiescent state since the previous one:
 *   1. every route locked, on its old queue;
 *   2. every route locked, on its new queue;
 *   3. the new routes (locked only where shared).
 * During 1 and 2 any two senders on one queue both lock; after the grace
 * period following 2 no sender is left on an old queue. Steps that change
 * nothing are skipped, and so is their wait.
 */
#include <rte_cycles.h>
#include <rte_pause.h>
#include <rte_rcu_qsbr.h>
#include "port.h"

static void
routes_compute(uint32_t *routes, uint16_t n_senders, uint16_t n_txq,
	       bool force_lock)
{
	uint16_t users[PORT_MAX_QUEUES] = { 0 };

	n_txq = RTE_MAX(RTE_MIN(n_txq, PORT_MAX_QUEUES), 1);
	for (uint16_t s = 0; s < n_senders; s++)
		users[s % n_txq]++;
	for (uint16_t s = 0; s < n_senders; s++) {
		uint16_t q = s % n_txq;
		routes[s] = q | (force_lock || users[q] > 1 ? PORT_TX_LOCKED
							     : 0);
	}
}

/* Publishes routes; returns whether any changed. */
static bool
routes_store(struct port *p, const uint32_t *routes)
{
	bool changed = false;

	for (uint16_t s = 0; s < p->n_senders; s++) {
		if (p->tx_route[s] == routes[s])
			continue;
		__atomic_store_n(&p->tx_route[s], routes[s], __ATOMIC_RELEASE);
		changed = true;
	}
	return changed;
}

/* Whether the grace period after the last step stored has ended, waiting
 * for it at most PORT_TX_GRACE_WAIT_US (a PMD not answering, pmd_watch.h,
 * must not hang the control thread). */
static bool
grace_ended(struct port *p, struct rte_rcu_qsbr *qsbr)
{
	uint64_t until = rte_rdtsc() + rte_get_tsc_hz() / 1000000 *
				       PORT_TX_GRACE_WAIT_US;

	while (p->tx_grace_pending) {
		if (rte_rcu_qsbr_check(qsbr, p->tx_grace_token, false) == 1)
			p->tx_grace_pending = false;
		else if (rte_rdtsc() > until)
			return false;
		else
			rte_pause();
	}
	return true;
}

/* One step: stored once the previous one's grace period has ended, then
 * its own waited for. */
static bool
routes_step(struct port *p, const uint32_t *routes, struct rte_rcu_qsbr *qsbr)
{
	if (!grace_ended(p, qsbr))
		return false;
	if (routes_store(p, routes)) {
		p->tx_grace_token = rte_rcu_qsbr_start(qsbr);
		p->tx_grace_pending = true;
	}
	return grace_ended(p, qsbr);
}

static bool
routes_move(struct port *p, const uint32_t *next, struct rte_rcu_qsbr *qsbr)
{
	uint32_t step[PORT_MAX_SENDERS];

	if (qsbr) {
		for (uint16_t s = 0; s < p->n_senders; s++)
			step[s] = p->tx_route[s] | PORT_TX_LOCKED;
		if (!routes_step(p, step, qsbr))
			return false;
		for (uint16_t s = 0; s < p->n_senders; s++)
			step[s] = next[s] | PORT_TX_LOCKED;
		if (!routes_step(p, step, qsbr))
			return false;
	}
	routes_store(p, next);
	return true;
}

void
port_tx_init(struct port *p, uint16_t n_txq, uint16_t n_senders)
{
	p->n_senders = RTE_MIN(n_senders, PORT_MAX_SENDERS);
	p->ctl_sender = p->n_senders ? p->n_senders - 1 : 0;
	p->n_txq = RTE_MAX(RTE_MIN(n_txq, PORT_MAX_QUEUES), 1);
	routes_compute(p->tx_route, p->n_senders, p->n_txq, p->tx_lock_forced);
	p->ctl_txq = port_txq_for(p, p->ctl_sender);
}

bool
port_tx_set_queues(struct port *p, uint16_t n_txq, struct rte_rcu_qsbr *qsbr)
{
	uint32_t next[PORT_MAX_SENDERS];

	n_txq = RTE_MAX(RTE_MIN(n_txq, PORT_MAX_QUEUES), 1);
	routes_compute(next, p->n_senders, n_txq, p->tx_lock_forced);
	if (!routes_move(p, next, qsbr))
		return false;
	p->n_txq = n_txq;
	p->ctl_txq = port_txq_for(p, p->ctl_sender);
	return true;
}

void
port_tx_force_lock(struct port *p, bool on)
{
	p->tx_lock_forced = on;
	routes_compute(p->tx_route, p->n_senders, p->n_txq, on);
}

bool
port_tx_shared(const struct port *p)
{
	for (uint16_t s = 0; s < p->n_senders; s++)
		if (port_tx_route(p, s) & PORT_TX_LOCKED)
			return true;
	return false;
}
