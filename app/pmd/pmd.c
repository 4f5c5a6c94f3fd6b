/* SPDX-License-Identifier: BSD-3-Clause
 * PMD threads: the poll loop, rx queue assignment, the mailbox. What a
 * burst goes through is the datapath's (datapath.h), run on the PMD's own
 * context (pmd->dp).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <sys/prctl.h>
#include <rte_cycles.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_random.h>
#include "dp_snapshot.h"
#include "dpcls.h"
#include "pmd.h"
#include "pmd_reconf.h"
#include "pmd_watch.h"
#include "vlog.h"

struct pmd *pmds;
uint16_t n_pmds;
struct rte_mempool *pktmbuf_pool;
struct rte_rcu_qsbr *pmd_qsbr;
struct conntrack *pmd_conntrack;
struct ct_ipf *pmd_ipf;
struct rte_ring *ctl_event_ring;

#define PMD_SWEEP_INTERVAL_MS 100	/* idle expiry, subtable ranking */

/* ---- requests ---------------------------------------------------------- */

void
pmd_flush_flows(struct pmd *pmd)
{
	dp_flush_flows(&pmd->dp);
}

void
pmd_set_opts(struct pmd_request *req)
{
	dp_set_opts(&req->pmd->dp, (uint32_t)(uintptr_t)req->arg);
}

void
pmd_clear_stats(struct pmd *pmd)
{
	dp_tx_flush_all(&pmd->dp);	/* the accounting starts with none in flight */
	memset(&pmd->stats, 0, sizeof pmd->stats);
	memset(pmd->port_stats, 0, PORT_MAX * sizeof *pmd->port_stats);
	for (uint16_t i = 0; i < pmd->n_rxqs; i++) {
		pmd->rxqs[i].packets = pmd->rxqs[i].busy_cycles = 0;
		pmd_poll_q_clear_stats(&pmd->rxqs[i].poll);
	}
}

/* ---- mailbox ----------------------------------------------------------- */

static void
pmd_serve_mailbox(struct pmd *pmd)
{
	struct pmd_request *req = __atomic_load_n(&pmd->req, __ATOMIC_ACQUIRE);

	/* Claim it first: the caller may be withdrawing it on timeout. */
	if (!req || !__atomic_compare_exchange_n(&pmd->req, &req, NULL, false,
						 __ATOMIC_ACQ_REL,
						 __ATOMIC_ACQUIRE))
		return;
	dp_where_set(&pmd->dp.io_where, DP_IN_CALL, 0);
	req->fn(req);
	__atomic_store_n(&req->done, 1, __ATOMIC_RELEASE);
}

int
pmd_call(struct pmd *pmd, void (*fn)(struct pmd_request *), void *arg)
{
	struct pmd_request req = { .fn = fn, .pmd = pmd, .arg = arg };
	struct timespec ts = { 0, 20000 };

	if (!__atomic_load_n(&pmd->running, __ATOMIC_ACQUIRE)) {
		fn(&req);
		return 0;
	}
	/* One already silent is not waited on again: a command that calls
	 * it several times answers at once (pmd_watch.h). */
	if (!pmd_answering(pmd))
		return -ETIMEDOUT;
	__atomic_store_n(&pmd->req, &req, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&req.done, __ATOMIC_ACQUIRE)) {
		if (!pmd_answering(pmd))
			break;
		nanosleep(&ts, NULL);
	}
	if (__atomic_load_n(&req.done, __ATOMIC_ACQUIRE))
		return 0;
	struct pmd_request *expected = &req;
	if (__atomic_compare_exchange_n(&pmd->req, &expected, NULL, false,
					__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return -ETIMEDOUT;
	/* The PMD took it: it will finish, and req lives on our stack. */
	while (!__atomic_load_n(&req.done, __ATOMIC_ACQUIRE))
		nanosleep(&ts, NULL);
	return 0;
}

/* ---- the loop ---------------------------------------------------------- */

/* One round over the PMD's rx queues, its stage chain (dp_stats.h) starting at
 * t_start; ends with the due (or, if nothing came, every) tx flush and a
 * TSC read in *t_end. Returns whether the round was busy: it received or
 * sent packets. *got: the packets received. */
static bool
pmd_poll_once(struct pmd *pmd, uint64_t t_start, uint64_t *t_end,
	      uint32_t *got_out)
{
	struct pmd_stats *s = &pmd->stats;
	struct dp_ctx *dp = &pmd->dp;
	struct pkt_batch b;
	uint64_t t_prev = t_start, t_q, t_rx, empty = 0;
	uint32_t got = 0;
	bool timed = dp->opts & DP_OPT_BIT(DP_OPT_IO_TIMING), busy;
	/* While backed off, a round is cheap next to the sleep: poll all. */
	bool adaptive = (dp->opts & DP_OPT_BIT(DP_OPT_ADAPTIVE_POLLING)) &&
			!pmd->backoff.sleeping;
	bool rx_ask = dp->opts & DP_OPT_BIT(DP_OPT_VHOST_RX_ASK);
	bool prefetch = dp->opts & DP_OPT_BIT(DP_OPT_RX_PREFETCH);

	for (uint16_t i = 0; i < pmd->n_rxqs; i++) {
		struct pmd_rxq *q = &pmd->rxqs[i];
		/* the poll scheduler: which rxq this round? */
		if (!pmd_poll_due(&q->poll, adaptive))
			continue;
		t_q = t_prev;
		/* the next queue's ring line, loading while this one is read
		 * (whether or not it is due: a prefetch is cheap) */
		if (prefetch && i + 1 < pmd->n_rxqs)
			port_rx_prefetch(pmd->rxqs[i + 1].port,
					 pmd->rxqs[i + 1].qid);
		/* a packed-ring guest is asked for about what it has
		 * (pmd_poll_ask_next): rte_vhost allocates the whole ask */
		bool ask = rx_ask && port_vhost_packed(q->port);
		uint16_t burst = ask ? q->poll.ask : BATCH_MAX;
		/* nothing may wait in a tx buffer while the PMD waits in
		 * a driver (net_pcap on a FIFO) */
		if (unlikely(q->port->rx_may_block))
			dp_tx_flush_all(dp);
		dp_where_set(&dp->io_where, DP_IN_RX, q->port->idx);
		b.n = port_rx_burst(q->port, q->qid, pktmbuf_pool, b.pkts,
				    burst);
		/* the schedule as with a full ask: a small ask answered in
		 * full would reset the threshold, poll the queue every round
		 * and so make the bursts smaller still (measured) */
		pmd_poll_done(&q->poll, b.n, BATCH_MAX);
		if (ask)
			pmd_poll_ask_next(&q->poll, b.n, BATCH_MAX);
		s->polls++;
		if (!b.n) {
			s->polls_empty++;
			if (timed) {	/* counted only if the round is busy */
				t_rx = rte_rdtsc();
				empty += t_rx - t_prev;
				t_prev = t_rx;
			}
			continue;
		}
		/* untimed (io-timing off), the rx call falls into "other" */
		t_rx = rte_rdtsc();
		dp_where_set(&dp->io_where, DP_IN_DATAPATH, q->port->idx);
		bool vhost = port_io_vhost(q->port);
		if (timed)
			s->stage_cycles[vhost ? PMD_STAGE_RX_VHOST :
				       PMD_STAGE_RX_NIC] += t_rx - t_prev;
		if (vhost) {
			s->rx_bursts_vhost++;
			s->rx_packets_vhost += b.n;
		}
		got += b.n;
		q->packets += b.n;
		dp_process_burst_at(dp, q->port, &b, t_rx);
		/* its last stage boundary: where the chain goes on */
		t_prev = dp->stage_tsc;
		q->busy_cycles += t_prev - t_q;
		q->intrvl_cycles += t_prev - t_q;
	}
	if (got) {
		dp_tx_flush_due(dp, t_prev);	/* chained from t_prev */
	} else if (timed) {	/* nothing came: nothing to wait for */
		dp_tx_flush_all_at(dp, t_prev);
	} else {		/* the empty polls untimed: in "other" */
		dp->stage_tsc = t_prev;
		dp_tx_flush_all(dp);
	}
	*t_end = rte_rdtsc();
	/* an idle round that flushed packets did work: busy */
	busy = got || dp->stage_tsc != t_prev;
	if (busy) {
		s->stage_cycles[PMD_STAGE_POLL_EMPTY] += empty;
		/* the scan after the last burst (all of it if none was due) */
		s->stage_cycles[PMD_STAGE_FLUSH] += *t_end - dp->stage_tsc;
		s->busy_cycles += *t_end - t_start;
	} else {
		s->idle_cycles += *t_end - t_start;
	}
	s->iterations++;
	*got_out = got;
	return busy;
}

/* Idle back-off: sleeps between rounds once every queue has been empty
 * for PMD_POLL_IDLE_ROUNDS rounds (pmd_poll.h). Called at the end of an
 * iteration, after the quiescent state: the tx buffers are flushed, the
 * mailbox served, and the PMD holds no snapshot. It goes RCU-offline for
 * the sleep, so grace periods (rule changes) never wait on a sleeping PMD;
 * a mailbox request waits at most one sleep. */
static void
pmd_idle_sleep(struct pmd *pmd)
{
	uint64_t t0;

	dp_tx_flush_all(&pmd->dp);		/* never sleep on buffered packets */
	dp_where_set(&pmd->dp.io_where, DP_IN_SLEEP, 0);
	rte_rcu_qsbr_thread_offline(pmd_qsbr, pmd->idx);
	t0 = rte_rdtsc();
	rte_delay_us_sleep(pmd->idle_backoff_us);
	pmd->stats.sleep_cycles += rte_rdtsc() - t0;
	pmd->stats.sleeps++;
	rte_rcu_qsbr_thread_online(pmd_qsbr, pmd->idx);
}

static void
pmd_housekeeping(struct pmd *pmd)
{
	uint64_t now = rte_rdtsc();

	if (now >= pmd->load.next_tsc)
		pmd_load_roll(pmd, now);
	/* every round (one load when there is nothing): expired fragments
	 * hold mbufs */
	dp_ipf_drain(&pmd->dp);
	if (now < pmd->next_sweep_tsc)
		return;
	pmd->next_sweep_tsc = now + rte_get_tsc_hz() / 1000 *
					    PMD_SWEEP_INTERVAL_MS;
	dp_expire_idle(&pmd->dp, now);
	dpcls_rank_subtables(pmd->dp.cls);
}

static int
pmd_main(void *arg)
{
	struct pmd *pmd = arg;

	/* The idle back-off's sleeps are tens of microseconds: the default
	 * 50 us timer slack would double them (and the wake-up latency). */
	prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
	pmd->thread = pthread_self();	/* for pmd_interrupt */
	pmd->silent_logged = false;
	__atomic_store_n(&pmd->heartbeat_tsc, rte_rdtsc(), __ATOMIC_RELAXED);
	rte_rcu_qsbr_thread_register(pmd_qsbr, pmd->idx);
	rte_rcu_qsbr_thread_online(pmd_qsbr, pmd->idx);
	__atomic_store_n(&pmd->running, true, __ATOMIC_RELEASE);

	/* Every cycle of an iteration is busy or idle (or sleep): the
	 * rounds' from pmd_poll_once, the rest (revalidation, housekeeping,
	 * offload poll, mailbox, RCU) as the loop stage of a busy round. */
	uint64_t t_top = rte_rdtsc(), t_end, t_round, sleep0;
	uint32_t got;
	while (!__atomic_load_n(&pmd->stop, __ATOMIC_RELAXED)) {
		/* alive, at the top of the loop (pmd_watch.h) */
		__atomic_store_n(&pmd->heartbeat_tsc, t_top, __ATOMIC_RELAXED);
		dp_where_set(&pmd->dp.io_where, DP_IN_LOOP, 0);
		pmd->dp.snap = dp_snapshot_get();
		t_round = t_top;
		if (unlikely(pmd->dp.snap->gen != pmd->dp.seen_gen)) {
			dp_revalidate(&pmd->dp);
			pmd->dp.seen_gen = pmd->dp.snap->gen;
			t_round = rte_rdtsc();
		}
		bool busy = pmd_poll_once(pmd, t_round, &t_end, &got);
		pmd_housekeeping(pmd);
		if (pmd->dp.offload)
			dp_offload_poll(&pmd->dp);
		if (unlikely(__atomic_load_n(&pmd->req, __ATOMIC_RELAXED)))
			pmd_serve_mailbox(pmd);
		pmd->dp.snap = NULL;
		rte_rcu_qsbr_quiescent(pmd_qsbr, pmd->idx);
		sleep0 = pmd->stats.sleep_cycles;
		if (pmd_backoff_round(&pmd->backoff, got, pmd->dp.opts &
				      DP_OPT_BIT(DP_OPT_IDLE_BACKOFF)))
			pmd_idle_sleep(pmd);
		uint64_t t_next = rte_rdtsc();
		uint64_t slept = pmd->stats.sleep_cycles - sleep0;
		/* the revalidation before the round and all after it */
		uint64_t loop = (t_round - t_top) + (t_next - t_end) - slept;
		if (busy) {
			pmd->stats.stage_cycles[PMD_STAGE_LOOP] += loop;
			pmd->stats.busy_cycles += loop;
		} else {
			pmd->stats.idle_cycles += loop;
		}
		t_top = t_next;
	}
	dp_tx_flush_all(&pmd->dp);
	__atomic_store_n(&pmd->running, false, __ATOMIC_RELEASE);
	rte_rcu_qsbr_thread_offline(pmd_qsbr, pmd->idx);
	rte_rcu_qsbr_thread_unregister(pmd_qsbr, pmd->idx);
	return 0;
}

/* ---- set-up ------------------------------------------------------------ */

struct pmd *
pmd_by_core(uint16_t core)
{
	for (uint16_t i = 0; i < n_pmds; i++)
		if (pmds[i].lcore == core)
			return &pmds[i];
	return NULL;
}

static int
pmd_alloc(struct pmd *pmd, const struct vxs_config *cfg, uint32_t opts,
	  char *err, size_t errlen)
{
	int socket = rte_lcore_to_socket_id(pmd->lcore);
	char why[128];

	/* Kept across set-pmd-cores (pmd.h): allocated once per slot. */
	if (!pmd->port_stats)
		pmd->port_stats = rte_zmalloc_socket(
			"port_stats", PORT_MAX * sizeof *pmd->port_stats, 64,
			socket);
	if (!pmd->rxqs)
		pmd->rxqs = rte_zmalloc_socket("pmd_rxqs", PMD_MAX_RXQS *
					       sizeof *pmd->rxqs, 64, socket);
	memset(&pmd->dp, 0, sizeof pmd->dp);
	pmd->dp.idx = pmd->idx;
	pmd->dp.stats = &pmd->stats;
	pmd->dp.port_stats = pmd->port_stats;
	pmd->dp.mbuf_pool = pktmbuf_pool;
	pmd->dp.events = ctl_event_ring;
	pmd->dp.ct = pmd_conntrack;
	pmd->dp.ipf = pmd_ipf;
	pmd->dp.rand_state = 0x9e3779b9u ^ pmd->lcore;
	int rc = dp_ctx_init(&pmd->dp, cfg, PORT_MAX, socket, why, sizeof why);
	if (!rc && (!pmd->port_stats || !pmd->rxqs)) {
		snprintf(why, sizeof why, "out of memory (%u megaflows)",
			 pmd->dp.max_flows);
		rc = -1;
	}
	if (rc) {
		snprintf(err, errlen, "pmd on core %u: %s", pmd->lcore, why);
		return -1;
	}
	if (opts != cfg->dp_opts)
		dp_set_opts(&pmd->dp, opts);
	pmd->idle_backoff_us = cfg->pmd_idle_backoff_us;
	pmd_load_init(&pmd->load, cfg);
	return 0;
}

int
pmds_init(char *err, size_t errlen)
{
	size_t sz = rte_rcu_qsbr_get_memsize(CFG_MAX_CORES);

	pmds = rte_zmalloc("pmds", CFG_MAX_CORES * sizeof *pmds, 64);
	pmd_qsbr = rte_zmalloc("pmd_qsbr", sz, RTE_CACHE_LINE_SIZE);
	ctl_event_ring = rte_ring_create_elem("ctl_events",
					      sizeof(struct ctl_event), 4096,
					      SOCKET_ID_ANY, RING_F_SC_DEQ);
	pmd_retired_port_stats = rte_zmalloc(
		"retired_port_stats", PORT_MAX * sizeof *pmd_retired_port_stats,
		64);
	if (!pmds || !pmd_qsbr || !ctl_event_ring || !pmd_retired_port_stats ||
	    rte_rcu_qsbr_init(pmd_qsbr, CFG_MAX_CORES)) {
		snprintf(err, errlen, "out of memory creating PMDs");
		return -1;
	}
	return 0;
}

int
pmds_create(const struct vxs_config *cfg, uint32_t opts, char *err,
	    size_t errlen)
{
	for (uint16_t i = 0; i < cfg->n_pmd_cores; i++) {
		unsigned core = cfg->pmd_cores[i];
		if (!rte_lcore_is_enabled(core) ||
		    core == rte_get_main_lcore()) {
			snprintf(err, errlen, "pmd core %u is not a worker "
				 "lcore of the EAL (check eal.lcores)", core);
			return -1;
		}
	}
	for (uint16_t i = 0; i < cfg->n_pmd_cores; i++) {
		struct pmd *pmd = &pmds[i];
		pmd->lcore = cfg->pmd_cores[i];
		pmd->idx = i;
		pmd->n_rxqs = 0;
		pmd->stop = false;
		pmd->req = NULL;
		memset(&pmd->stats, 0, sizeof pmd->stats);
		memset(&pmd->backoff, 0, sizeof pmd->backoff);
		pmd->next_sweep_tsc = 0;
		n_pmds = i + 1;		/* pmds_destroy frees what exists */
		if (pmd_alloc(pmd, cfg, opts, err, errlen))
			return -1;
		memset(pmd->port_stats, 0, PORT_MAX * sizeof *pmd->port_stats);
	}
	pmd_sched_configure(cfg);
	return pmd_rxqs_rebalance("start", err, errlen) < 0 ? -1 : 0;
}

int
pmds_start(void)
{
	for (uint16_t i = 0; i < n_pmds; i++) {
		pmds[i].stop = false;
		if (rte_eal_get_lcore_state(pmds[i].lcore) != WAIT)
			continue;	/* a failed pmds_stop left it running */
		if (rte_eal_remote_launch(pmd_main, &pmds[i], pmds[i].lcore))
			return -1;
	}
	/* Wait until each is online, so RCU grace periods include it. */
	for (uint16_t i = 0; i < n_pmds; i++)
		while (!__atomic_load_n(&pmds[i].running, __ATOMIC_ACQUIRE))
			rte_pause();
	return 0;
}

/* The PMDs that have not left their loop yet. */
static unsigned
pmds_running(void)
{
	unsigned n = 0;

	for (uint16_t i = 0; i < n_pmds; i++)
		n += __atomic_load_n(&pmds[i].running, __ATOMIC_ACQUIRE);
	return n;
}

unsigned
pmds_stop(void)
{
	const struct timespec tick = { 0, 1000000 };	/* 1 ms */
	unsigned left;

	for (uint16_t i = 0; i < n_pmds; i++)
		__atomic_store_n(&pmds[i].stop, true, __ATOMIC_RELAXED);
	/* A PMD sees the flag within an iteration; one that does not is
	 * inside a call that blocks: interrupted every PMD_INTERRUPT_MS. */
	for (unsigned ms = 1; (left = pmds_running()) && ms < PMD_STOP_MS;
	     ms++) {
		nanosleep(&tick, NULL);
		if (ms % PMD_INTERRUPT_MS)
			continue;
		for (uint16_t i = 0; i < n_pmds; i++)
			pmd_interrupt(&pmds[i]);
	}
	for (uint16_t i = 0; i < n_pmds; i++) {
		struct pmd *pmd = &pmds[i];
		if (!__atomic_load_n(&pmd->running, __ATOMIC_ACQUIRE)) {
			rte_eal_wait_lcore(pmd->lcore);
			continue;
		}
		struct ds s;
		ds_init(&s);
		pmd_silence_text(pmd, &s);
		VLOG_ERR(pmd, "%s: did not stop within %.1f s of being asked "
			 "(interrupted every %d ms)\n", ds_cstr(&s),
			 PMD_STOP_MS / 1000.0, PMD_INTERRUPT_MS);
		ds_destroy(&s);
	}
	return left;
}

void
pmds_destroy(void)
{
	for (uint16_t i = 0; pmds && i < n_pmds; i++) {
		dp_ctx_fini(&pmds[i].dp);
		pmds[i].n_rxqs = 0;
	}
	n_pmds = 0;
}

void
pmds_fini(void)
{
	pmds_destroy();
	for (uint16_t i = 0; pmds && i < CFG_MAX_CORES; i++) {
		rte_free(pmds[i].port_stats);
		rte_free(pmds[i].rxqs);
	}
	rte_free(pmds);
	pmds = NULL;
	rte_free(pmd_retired_port_stats);
	pmd_retired_port_stats = NULL;
	rte_ring_free(ctl_event_ring);
	ctl_event_ring = NULL;
	rte_free(pmd_qsbr);
	pmd_qsbr = NULL;
}
