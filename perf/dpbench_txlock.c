/* SPDX-License-Identifier: BSD-3-Clause
 * dpbench --tx-lock, contended part: what port_tx_burst costs a sender
 * when it takes the queue's lock and another lcore sends to the same
 * queue, next to the same senders on their own queues. The port is a null
 * port (transmit = free the burst), so the figure is the lock's and the
 * free's, nothing of a driver's.
 */
#include <stdio.h>
#include <rte_cycles.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include "dpbench.h"

#define TXLOCK_REPS 5

struct sender {
	struct port *port;
	struct rte_mempool *pool;
	uint16_t idx;			/* sender index: its route */
	uint64_t bursts;
	uint64_t cycles;		/* in port_tx_burst */
	int rc;
};

static volatile bool go;

static int
sender_loop(void *arg)
{
	struct sender *s = arg;
	struct rte_mbuf *pkts[BATCH_MAX];

	while (!go)
		rte_pause();
	for (uint64_t i = 0; i < s->bursts; i++) {
		if (rte_pktmbuf_alloc_bulk(s->pool, pkts, BATCH_MAX)) {
			s->rc = -1;
			return -1;
		}
		uint64_t t0 = rte_rdtsc();
		port_tx_burst(s->port, s->idx, pkts, BATCH_MAX);
		s->cycles += rte_rdtsc() - t0;
	}
	return 0;
}

/* Runs n_senders senders (sender 0 on this lcore, 1 on the next worker)
 * over p's current routes; cycles per packet of each into cpp[]. */
static int
run_senders(struct port *p, struct rte_mempool *pool, uint64_t bursts,
	    int n_senders, double *cpp)
{
	struct sender s[2] = {
		{ .port = p, .pool = pool, .idx = 0, .bursts = bursts },
		{ .port = p, .pool = pool, .idx = 1, .bursts = bursts },
	};
	unsigned worker = rte_get_next_lcore(-1, 1, 0);

	go = false;
	if (n_senders > 1 &&
	    (worker >= RTE_MAX_LCORE ||
	     rte_eal_remote_launch(sender_loop, &s[1], worker)))
		return -1;
	go = true;
	sender_loop(&s[0]);
	if (n_senders > 1)
		rte_eal_wait_lcore(worker);
	for (int i = 0; i < n_senders; i++) {
		if (s[i].rc)
			return -1;
		cpp[i] = (double)s[i].cycles / (bursts * BATCH_MAX);
	}
	return 0;
}

int
txlock_contended(struct port *p, struct rte_mempool *pool, uint64_t bursts)
{
	static const struct {
		const char *what;
		int senders;
		uint16_t queues;
		bool lock;
	} rows[] = {
		{ "1 sender, own queue, no lock", 1, 2, false },
		{ "1 sender, own queue, lock", 1, 2, true },
		{ "2 senders, own queues, no lock", 2, 2, false },
		{ "2 senders, one queue, lock", 2, 1, false },
	};
	uint16_t n_txq = p->n_txq;

	printf("\ntx lock, contended: cycles per packet in port_tx_burst "
	       "(null port: lock + free of a burst of %d), lcores %u and %u\n",
	       BATCH_MAX, rte_lcore_id(), rte_get_next_lcore(-1, 1, 0));
	printf("(best of %d runs of %lu bursts)\n", TXLOCK_REPS, bursts);
	printf("%-34s %10s %10s\n", "senders", "sender 0", "sender 1");
	for (unsigned r = 0; r < RTE_DIM(rows); r++) {
		double cpp[2] = { 0, 0 };
		/* no sender runs here: the routes may be rewritten at will */
		port_tx_force_lock(p, false);
		port_tx_set_queues(p, rows[r].queues, NULL);
		port_tx_force_lock(p, rows[r].lock);
		/* the best of TXLOCK_REPS: on a shared host the others'
		 * load only ever adds cycles */
		int rc = 0;
		for (int rep = 0; rep < TXLOCK_REPS && !rc; rep++) {
			double c[2] = { 0, 0 };
			rc = run_senders(p, pool, bursts, rows[r].senders, c);
			for (int i = 0; i < 2; i++)
				cpp[i] = rep ? RTE_MIN(cpp[i], c[i]) : c[i];
		}
		if (rc) {
			fprintf(stderr, "dpbench: tx lock run failed (no second "
				"lcore, or out of mbufs)\n");
			port_tx_force_lock(p, false);
			port_tx_set_queues(p, n_txq, NULL);
			return -1;
		}
		printf("%-34s %10.2f", rows[r].what, cpp[0]);
		if (rows[r].senders == 2)
			printf(" %10.2f", cpp[1]);
		printf("\n");
	}
	port_tx_force_lock(p, false);
	port_tx_set_queues(p, n_txq, NULL);
	return 0;
}
