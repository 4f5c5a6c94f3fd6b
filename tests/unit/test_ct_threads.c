/* SPDX-License-Identifier: BSD-3-Clause
 * Two PMD-like threads (registered lcores, QSBR readers) hammer the two
 * directions of the same sessions while the sweeper expires and frees
 * them and time runs fast: no crash (run it in the ASan build too), every
 * packet gets a state its direction allows, the counters add up, and no
 * session or key slot leaks (the table fills to its limit afterwards).
 */
#include <pthread.h>
#include <stdlib.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include "ct_test.h"

#define A IP(10, 0, 0, 1)
#define B IP(10, 0, 0, 2)
#define N_PORTS 3000
#define MAX_CONNS 1024
#define BURST 32

static struct conntrack *ct;
static struct rte_rcu_qsbr *qsbr;
static volatile uint64_t now_tsc;
static volatile int stop;

struct worker {
	pthread_t tid;
	unsigned qid;
	bool reply;		/* sends B->A (not committing) */
	uint64_t pkts, odd, new_, est;
};

static void *
worker_main(void *arg)
{
	struct worker *w = arg;
	struct rte_mbuf *pk[BURST];
	struct ct_pkt_meta mt[BURST];
	uint8_t st[BURST];
	uint32_t port = w->reply ? 7 : 0;

	if (rte_thread_register() < 0) {
		w->odd = ~0ull;
		return NULL;
	}
	rte_rcu_qsbr_thread_register(qsbr, w->qid);
	rte_rcu_qsbr_thread_online(qsbr, w->qid);
	while (!stop) {
		for (int i = 0; i < BURST; i++) {
			/* a window of 256 ports that moves on every 10 s
			 * of tracker time: the ones left behind expire */
			uint64_t base = now_tsc / SEC(10) * 256;
			uint16_t p = 1000 + (base + port++ % 256) % N_PORTS;
			pk[i] = w->reply ? pkt_udp(B, A, 53, p)
					 : pkt_udp(A, B, p, 53);
			ct_pkt_meta_parse(pk[i], &mt[i]);
		}
		conntrack_execute(ct, pk, mt, BURST, 3, !w->reply, NULL,
				  now_tsc, st, NULL);
		for (int i = 0; i < BURST; i++) {
			rte_pktmbuf_free(pk[i]);
			/* orig: new (first datagrams) or est; reply: est+rpl
			 * with a session, new without one. Never invalid. */
			if (st[i] == TRK_NEW)
				w->new_++;
			else if (st[i] == (w->reply ? TRK_RPL : TRK_EST))
				w->est++;
			else
				w->odd++;
		}
		w->pkts += BURST;
		rte_rcu_qsbr_quiescent(qsbr, w->qid);
	}
	rte_rcu_qsbr_thread_offline(qsbr, w->qid);
	rte_rcu_qsbr_thread_unregister(qsbr, w->qid);
	rte_thread_unregister();
	return NULL;
}

int
main(void)
{
	struct worker w[2] = { { .qid = 0, .reply = false },
			       { .qid = 1, .reply = true } };
	struct ct_stats s;

	if (ct_test_init("test_ct_threads") < 0)
		return 1;
	size_t sz = rte_rcu_qsbr_get_memsize(2);
	qsbr = rte_zmalloc("ct_test_qsbr", sz, RTE_CACHE_LINE_SIZE);
	rte_rcu_qsbr_init(qsbr, 2);
	ct = ct_test_new("ct_thr", MAX_CONNS, qsbr);
	CHECK_EXPR(ct != NULL);
	if (!ct)
		return unit_test_report();

	for (int i = 0; i < 2; i++)
		pthread_create(&w[i].tid, NULL, worker_main, &w[i]);
	/* 1.5 s of wall clock; time advances 1 s per sweep step, so the
	 * sessions (udp 30-60 s) expire under the workers' feet. */
	uint64_t end = rte_get_timer_cycles() + rte_get_timer_hz() * 3 / 2;
	uint32_t removed = 0, sweeps = 0;
	while (rte_get_timer_cycles() < end) {
		now_tsc += SEC(1) / 4;
		removed += conntrack_sweep(ct, now_tsc, 200);
		sweeps++;
		rte_delay_us_sleep(500);
	}
	stop = 1;
	for (int i = 0; i < 2; i++)
		pthread_join(w[i].tid, NULL);

	conntrack_get_stats(ct, &s);
	printf("orig: %lu pkts (%lu new, %lu est), reply: %lu pkts (%lu new,"
	       " %lu est+rpl); created %lu expired %lu refused_full %lu, "
	       "%u sweeps\n",
	       (unsigned long)w[0].pkts, (unsigned long)w[0].new_,
	       (unsigned long)w[0].est, (unsigned long)w[1].pkts,
	       (unsigned long)w[1].new_, (unsigned long)w[1].est,
	       (unsigned long)s.created, (unsigned long)s.expired,
	       (unsigned long)s.refused_full, sweeps);
	CHECK(w[0].odd == 0 && w[1].odd == 0, "odd states %lu %lu",
	      (unsigned long)w[0].odd, (unsigned long)w[1].odd);
	CHECK(w[0].pkts > 1000 && w[1].pkts > 1000, "too few packets");
	/* both directions really met the same sessions */
	CHECK(w[1].est > 0 && w[0].est > 0, "no established traffic");
	CHECK(s.expired > 0 && removed > 0 && s.refused_full > 0,
	      "expired %lu removed %u", (unsigned long)s.expired, removed);
	CHECK(s.created - s.expired - s.flushed == s.n_conns,
	      "created %lu expired %lu flushed %lu n %lu",
	      (unsigned long)s.created, (unsigned long)s.expired,
	      (unsigned long)s.flushed, (unsigned long)s.n_conns);
	CHECK_EXPR(s.n_conns <= MAX_CONNS);
	CHECK_EXPR(s.invalid == 0);

	/* No leak: after a flush and a reclaim the table takes max_conns
	 * sessions again (mempool and key slots all back). */
	conntrack_flush(ct);
	conntrack_sweep(ct, now_tsc, 1);
	CHECK_EXPR(conntrack_get_nconns(ct) == 0);
	for (int i = 0; i < MAX_CONNS; i++)
		ct_run(ct, pkt_udp(A + 1, B, (uint16_t)i, 53), 4, true, NULL,
		       now_tsc);
	CHECK(conntrack_get_nconns(ct) == MAX_CONNS, "refill %u",
	      conntrack_get_nconns(ct));
	conntrack_destroy(ct);
	rte_free(qsbr);
	return unit_test_report();
}
