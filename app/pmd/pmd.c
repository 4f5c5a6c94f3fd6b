/* SPDX-License-Identifier: BSD-3-Clause
 * PMD threads: the poll loop, rx queue assignment, and the PMD's own
 * megaflow lifecycle (upcall install, revalidation, idle expiry).
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
#include "dp_execute.h"
#include "dp_offload.h"
#include "dpcls.h"
#include "emc.h"
#include "offload_mgr.h"
#include "pmd.h"
#include "xlate.h"

struct pmd *pmds;
uint16_t n_pmds;
struct rte_mempool *pktmbuf_pool;
struct rte_rcu_qsbr *pmd_qsbr;
struct rte_ring *ctl_event_ring;

#define PMD_SWEEP_INTERVAL_MS 100	/* idle expiry, subtable ranking */
/* How long a megaflow that drops for want of a neighbour's MAC lives,
 * used or not: its upcall is what asks the control thread for an ARP
 * request, and while it is installed nothing else does. If that ARP (or its
 * reply) was lost, traffic that keeps hitting it would otherwise never
 * expire it. The control thread rate-limits the requests to one per
 * second per address (ctl_events.c); OVS gets the same retry from its
 * revalidators re-translating datapath flows. */
#define PMD_NEIGH_MISS_RETRY_MS 1000

/* ---- megaflow lifecycle ------------------------------------------------ */

static struct megaflow *
flow_alloc(struct pmd *pmd)
{
	return pmd->n_free ? pmd->flow_free[--pmd->n_free] : NULL;
}

static void
flow_free(struct pmd *pmd, struct megaflow *f)
{
	pmd->flow_free[pmd->n_free++] = f;
}

void
pmd_push_event(struct pmd *pmd, const struct ctl_event *ev)
{
	/* If the control thread is that far behind, drop the message (an ARP
	 * will be retried, and lost counters are only counters), but count
	 * it: an ARP flood shows here. */
	if (rte_ring_mp_enqueue_elem(ctl_event_ring, (void *)ev, sizeof *ev))
		pmd->stats.ctl_events_lost++;
}

void
pmd_push_events(struct pmd *pmd, const struct ctl_event *ev, unsigned n)
{
	if (n)
		pmd->stats.ctl_events_lost += n -
			rte_ring_mp_enqueue_burst_elem(ctl_event_ring,
						       (const void *)ev,
						       sizeof *ev, n, NULL);
}

struct megaflow *
dp_upcall(struct pmd *pmd, const struct flow_key *key)
{
	struct xlate_out xo;
	struct flow_key masked;
	struct megaflow *f;

	xlate(pmd->snap, key, &xo);
	if (xo.need_arp) {
		struct ctl_event ev = { .type = CTL_EV_NEIGH_MISS,
					.ip = xo.need_arp };
		pmd_push_event(pmd, &ev);
	}
	flow_key_mask(&masked, key, &xo.mask);
	/* An earlier packet of this burst may have installed it already. */
	f = dpcls_find(pmd->cls, &masked, &xo.mask);
	if (f)
		return f;
	f = flow_alloc(pmd);
	if (!f)
		return NULL;
	memset(f, 0, sizeof *f);
	f->key = masked;
	f->mask = xo.mask;
	f->actions = xo.actions;
	f->upcall_key = *key;
	f->rule_uid = xo.rule_uid;
	f->neigh_miss = xo.need_arp != 0;
	memcpy(f->nexthop, xo.nexthop, sizeof f->nexthop);
	f->id = ++pmd->next_flow_id;
	f->created_tsc = rte_rdtsc();
	if (dpcls_insert(pmd->cls, f)) {
		flow_free(pmd, f);
		return NULL;
	}
	dp_offload_request(pmd, f);
	return f;
}

/* Unlinks f; the caller frees it after emc_purge_dead(). */
void
pmd_megaflow_retire(struct pmd *pmd, struct megaflow *f)
{
	if (f->rule_uid && f->n_packets) {
		struct ctl_event ev = { .type = CTL_EV_RULE_STATS,
					.rule_uid = f->rule_uid,
					.packets = f->n_packets,
					.bytes = f->n_bytes };
		pmd_push_event(pmd, &ev);
	}
	dp_offload_retire(pmd, f);	/* its mark first: no packet uses it */
	dpcls_remove(pmd->cls, f);
	f->dead = true;
}

struct sweep {
	struct pmd *pmd;
	struct megaflow **dead;
	uint32_t n_dead;
	uint64_t now;
	bool all;			/* flush */
	bool revalidate;
	bool neigh_only;	/* revalidate only those whose next hop changed */
	bool expire;
	bool offload_refresh;	/* the offload thread has a backlog */
};

static bool
nexthop_changed(const struct dp_snapshot *snap, const struct megaflow *f)
{
	for (int i = 0; i < DP_MAX_TNLS && f->nexthop[i]; i++)
		if (dp_snapshot_neigh_changed(snap, f->nexthop[i]))
			return true;
	return false;
}

static void
sweep_one(struct megaflow *f, void *aux)
{
	struct sweep *s = aux;
	bool retire = s->all;

	if (!retire && s->expire) {
		uint64_t last = RTE_MAX(f->used_tsc, f->created_tsc);
		retire = s->now - last > s->pmd->max_idle_tsc ||
			 (f->neigh_miss && s->now - f->created_tsc >
			  rte_get_tsc_hz() / 1000 * PMD_NEIGH_MISS_RETRY_MS);
		s->pmd->stats.megaflows_expired += retire;
	}
	if (!retire && s->revalidate &&
	    (!s->neigh_only ||
	     nexthop_changed(s->pmd->snap, f))) {
		struct xlate_out xo;
		s->pmd->stats.megaflows_revalidated++;
		xlate(s->pmd->snap, &f->upcall_key, &xo);
		retire = memcmp(&xo.mask, &f->mask, sizeof xo.mask) ||
			 !dp_actions_equal(&xo.actions, &f->actions);
		s->pmd->stats.megaflows_revalidated_out += retire;
	}
	if (retire) {
		pmd_megaflow_retire(s->pmd, f);
		s->dead[s->n_dead++] = f;
	} else if (s->offload_refresh) {
		dp_offload_refresh(s->pmd, f);
	}
}

static void
sweep_flows(struct pmd *pmd, bool all, bool revalidate, bool neigh_only,
	    bool expire)
{
	struct sweep s = { .pmd = pmd, .all = all, .revalidate = revalidate,
			   .neigh_only = neigh_only, .expire = expire,
			   .now = rte_rdtsc() };

	/* the periodic sweep also re-ranks this PMD's pending offloads */
	s.offload_refresh = expire && pmd->offload &&
			    offload_mgr_queue_depth(pmd->offload) > 0;

	if (!dpcls_count(pmd->cls))
		return;
	s.dead = rte_malloc("sweep", dpcls_count(pmd->cls) * sizeof *s.dead,
			    0);
	if (!s.dead)
		return;
	dpcls_foreach(pmd->cls, sweep_one, &s);
	if (s.n_dead) {
		emc_purge_dead(pmd->emc);
		for (uint32_t i = 0; i < s.n_dead; i++)
			flow_free(pmd, s.dead[i]);
	}
	rte_free(s.dead);
}

void
pmd_revalidate(struct pmd *pmd)
{
	const struct dp_snapshot *s = pmd->snap;
	/* Only neighbours changed since the generation this PMD last saw:
	 * retranslate only the megaflows that used one of them. */
	bool neigh_only = s && !s->reval_all && s->gen == pmd->seen_gen + 1;

	pmd->stats.revalidations++;
	pmd->stats.revalidations_neigh += neigh_only;
	if (neigh_only && !s->n_neigh_changed)
		return;
	sweep_flows(pmd, false, true, neigh_only, false);
}

void
pmd_expire_idle(struct pmd *pmd, uint64_t now)
{
	(void)now;
	sweep_flows(pmd, false, false, false, true);
}

void
pmd_flush_flows(struct pmd *pmd)
{
	sweep_flows(pmd, true, false, false, false);
	emc_clear(pmd->emc);
}

void
pmd_set_opts(struct pmd_request *req)
{
	struct pmd *pmd = req->pmd;
	uint32_t opts = (uint32_t)(uintptr_t)req->arg;
	uint32_t changed = pmd->opts ^ opts;

	pmd->opts = opts;
	if (changed & DP_OPT_BIT(DP_OPT_SPECIALISED_DPCLS)) {
		/* A subtable's lookup is chosen when it is created. */
		dpcls_force_generic(pmd->cls,
				    !(opts & DP_OPT_BIT(DP_OPT_SPECIALISED_DPCLS)));
		pmd_flush_flows(pmd);
	}
}

void
pmd_clear_stats(struct pmd *pmd)
{
	dp_tx_flush_all(pmd);	/* the accounting starts with none in flight */
	memset(&pmd->stats, 0, sizeof pmd->stats);
	memset(pmd->port_stats, 0, n_ports * sizeof *pmd->port_stats);
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
	__atomic_store_n(&pmd->req, &req, __ATOMIC_RELEASE);
	for (int i = 0; i < 100000; i++) {	/* ~2 s and more */
		if (__atomic_load_n(&req.done, __ATOMIC_ACQUIRE))
			return 0;
		nanosleep(&ts, NULL);
	}
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

/* One round over the PMD's rx queues; returns the packets received. */
static uint32_t
pmd_poll_once(struct pmd *pmd)
{
	struct pkt_batch b;
	uint64_t t_start = rte_rdtsc(), t_prev = t_start, t_now;
	uint32_t got = 0;
	/* While backed off, a round is cheap next to the sleep: poll all. */
	bool adaptive = (pmd->opts & DP_OPT_BIT(DP_OPT_ADAPTIVE_POLLING)) &&
			!pmd->backoff.sleeping;

	for (uint16_t i = 0; i < pmd->n_rxqs; i++) {
		struct pmd_rxq *q = &pmd->rxqs[i];
		/* the poll scheduler: which rxq this round? */
		if (!pmd_poll_due(&q->poll, adaptive))
			continue;
		b.n = port_rx_burst(q->port, q->qid, pktmbuf_pool, b.pkts,
				    BATCH_MAX);
		pmd_poll_done(&q->poll, b.n, BATCH_MAX);
		if (!b.n)
			continue;
		got += b.n;
		q->packets += b.n;
		dp_process_burst(pmd, q->port, &b);
		t_now = rte_rdtsc();
		q->busy_cycles += t_now - t_prev;
		t_prev = t_now;
	}
	t_now = rte_rdtsc();
	if (got)
		dp_tx_flush_due(pmd, t_now);
	else
		dp_tx_flush_all(pmd);	/* nothing came: nothing to wait for */
	t_now = rte_rdtsc();
	if (got)
		pmd->stats.busy_cycles += t_now - t_start;
	else
		pmd->stats.idle_cycles += t_now - t_start;
	pmd->stats.iterations++;
	return got;
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

	dp_tx_flush_all(pmd);		/* never sleep on buffered packets */
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

	if (now < pmd->next_sweep_tsc)
		return;
	pmd->next_sweep_tsc = now + rte_get_tsc_hz() / 1000 *
					    PMD_SWEEP_INTERVAL_MS;
	pmd_expire_idle(pmd, now);
	dpcls_rank_subtables(pmd->cls);
}

static int
pmd_main(void *arg)
{
	struct pmd *pmd = arg;
	uint32_t got;

	/* The idle back-off's sleeps are tens of microseconds: the default
	 * 50 us timer slack would double them (and the wake-up latency). */
	prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
	rte_rcu_qsbr_thread_register(pmd_qsbr, pmd->idx);
	rte_rcu_qsbr_thread_online(pmd_qsbr, pmd->idx);
	__atomic_store_n(&pmd->running, true, __ATOMIC_RELEASE);

	while (!__atomic_load_n(&pmd->stop, __ATOMIC_RELAXED)) {
		pmd->snap = dp_snapshot_get();
		if (unlikely(pmd->snap->gen != pmd->seen_gen)) {
			pmd_revalidate(pmd);
			pmd->seen_gen = pmd->snap->gen;
		}
		got = pmd_poll_once(pmd);
		pmd_housekeeping(pmd);
		if (pmd->offload)
			dp_offload_poll(pmd);
		if (unlikely(__atomic_load_n(&pmd->req, __ATOMIC_RELAXED)))
			pmd_serve_mailbox(pmd);
		pmd->snap = NULL;
		rte_rcu_qsbr_quiescent(pmd_qsbr, pmd->idx);
		if (pmd_backoff_round(&pmd->backoff, got, pmd->opts &
				      DP_OPT_BIT(DP_OPT_IDLE_BACKOFF)))
			pmd_idle_sleep(pmd);
	}
	dp_tx_flush_all(pmd);
	__atomic_store_n(&pmd->running, false, __ATOMIC_RELEASE);
	rte_rcu_qsbr_thread_offline(pmd_qsbr, pmd->idx);
	rte_rcu_qsbr_thread_unregister(pmd_qsbr, pmd->idx);
	return 0;
}

/* ---- set-up ------------------------------------------------------------ */

static struct pmd *
pmd_by_core(uint16_t core)
{
	for (uint16_t i = 0; i < n_pmds; i++)
		if (pmds[i].lcore == core)
			return &pmds[i];
	return NULL;
}

static struct pmd *
pmd_least_loaded(void)
{
	struct pmd *best = &pmds[0];
	for (uint16_t i = 1; i < n_pmds; i++)
		if (pmds[i].n_rxqs < best->n_rxqs)
			best = &pmds[i];
	return best;
}

/* Pinned queues first (pmd-rxq-affinity), then the rest spread over the
 * PMDs with the fewest queues, as OVS's round-robin assignment does. */
static int
assign_rxqs(char *err, size_t errlen)
{
	for (int pinned = 1; pinned >= 0; pinned--) {
		for (uint16_t p = 0; p < n_ports; p++) {
			struct port *port = ports[p];
			for (uint16_t q = 0; q < port->n_rxq; q++) {
				const struct cfg_port *c = port->cfg;
				struct pmd *pmd = NULL;
				for (uint16_t a = 0; a < c->n_affinity; a++)
					if (c->affinity[a].queue == q)
						pmd = pmd_by_core(
							c->affinity[a].core);
				if ((pmd != NULL) != pinned)
					continue;
				if (!pmd)
					pmd = pmd_least_loaded();
				if (pmd->n_rxqs == PMD_MAX_RXQS) {
					snprintf(err, errlen,
						 "pmd on core %u: more than %d "
						 "rx queues", pmd->lcore,
						 PMD_MAX_RXQS);
					return -1;
				}
				pmd->rxqs[pmd->n_rxqs] = (struct pmd_rxq){
					.port = port, .qid = q };
				/* Only vhost queues are scheduled: the NIC's
				 * is the hot one, and its rx descriptors
				 * must be refilled, so it is polled every
				 * round. */
				pmd_poll_q_init(&pmd->rxqs[pmd->n_rxqs++].poll,
						port->kind == PORT_VHOST);
			}
		}
	}
	return 0;
}

static int
pmd_alloc(struct pmd *pmd, const struct vxs_config *cfg, char *err,
	  size_t errlen)
{
	int socket = rte_lcore_to_socket_id(pmd->lcore);

	pmd->max_flows = cfg->max_megaflows ? cfg->max_megaflows : 65536;
	pmd->emc = emc_create(socket);
	pmd->cls = dpcls_create(socket, pmd->max_flows);
	pmd->flow_pool = rte_zmalloc_socket("megaflows", pmd->max_flows *
					    sizeof *pmd->flow_pool, 64, socket);
	pmd->flow_free = rte_malloc_socket("megaflow_free", pmd->max_flows *
					   sizeof *pmd->flow_free, 0, socket);
	pmd->txbufs = rte_zmalloc_socket("txbufs", n_ports *
					 sizeof *pmd->txbufs, 64, socket);
	pmd->port_stats = rte_zmalloc_socket("port_stats", n_ports *
					     sizeof *pmd->port_stats, 64,
					     socket);
	if (!pmd->emc || !pmd->cls || !pmd->flow_pool || !pmd->flow_free ||
	    !pmd->txbufs || !pmd->port_stats) {
		snprintf(err, errlen, "pmd on core %u: out of memory (%u "
			 "megaflows)", pmd->lcore, pmd->max_flows);
		return -1;
	}
	for (uint32_t i = 0; i < pmd->max_flows; i++)
		pmd->flow_free[i] = &pmd->flow_pool[pmd->max_flows - 1 - i];
	pmd->n_free = pmd->max_flows;
	pmd->opts = cfg->dp_opts;
	pmd->tx_flush_tsc = rte_get_tsc_hz() / 1000000 *
			    cfg->tx_flush_interval_us;
	pmd->idle_backoff_us = cfg->pmd_idle_backoff_us;
	arp_policer_init(&pmd->arp_policer, cfg->arp_rate, cfg->arp_burst,
			 rte_get_tsc_hz(), rte_rdtsc());
	dpcls_force_generic(pmd->cls,
			    !(pmd->opts & DP_OPT_BIT(DP_OPT_SPECIALISED_DPCLS)));
	pmd->emc_insert_inv_prob = cfg->emc_insert_inv_prob;
	pmd->rand_state = 0x9e3779b9u ^ pmd->lcore;
	/* Outer IPv4 ids count up from a random start, as the kernel's
	 * ip_idents do: PMDs, each with its own counter, then do not send
	 * the same ids to a VTEP in step (DF is off, so ids must tell
	 * fragments apart), and a restart does not replay them from 0. */
	pmd->ip_id = (uint16_t)rte_rand();
	pmd->max_idle_tsc = rte_get_tsc_hz() / 1000 *
			    (cfg->flow_max_idle_ms ? cfg->flow_max_idle_ms
						   : 10000);
	return 0;
}

int
pmds_create(const struct vxs_config *cfg, char *err, size_t errlen)
{
	size_t sz;

	n_pmds = cfg->n_pmd_cores;
	pmds = rte_zmalloc("pmds", n_pmds * sizeof *pmds, 64);
	sz = rte_rcu_qsbr_get_memsize(n_pmds);
	pmd_qsbr = rte_zmalloc("pmd_qsbr", sz, RTE_CACHE_LINE_SIZE);
	ctl_event_ring = rte_ring_create_elem("ctl_events",
					      sizeof(struct ctl_event), 4096,
					      SOCKET_ID_ANY, RING_F_SC_DEQ);
	if (!pmds || !pmd_qsbr || !ctl_event_ring ||
	    rte_rcu_qsbr_init(pmd_qsbr, n_pmds)) {
		snprintf(err, errlen, "out of memory creating PMDs");
		return -1;
	}
	for (uint16_t i = 0; i < n_pmds; i++) {
		unsigned core = cfg->pmd_cores[i];
		if (!rte_lcore_is_enabled(core) ||
		    core == rte_get_main_lcore()) {
			snprintf(err, errlen, "pmd core %u is not a worker "
				 "lcore of the EAL (check eal.lcores)", core);
			return -1;
		}
		pmds[i].lcore = core;
		pmds[i].idx = i;
		if (pmd_alloc(&pmds[i], cfg, err, errlen))
			return -1;
	}
	return assign_rxqs(err, errlen);
}

int
pmds_start(void)
{
	for (uint16_t i = 0; i < n_pmds; i++) {
		pmds[i].stop = false;
		if (rte_eal_remote_launch(pmd_main, &pmds[i], pmds[i].lcore))
			return -1;
	}
	/* Wait until each is online, so RCU grace periods include it. */
	for (uint16_t i = 0; i < n_pmds; i++)
		while (!__atomic_load_n(&pmds[i].running, __ATOMIC_ACQUIRE))
			rte_pause();
	return 0;
}

void
pmds_stop(void)
{
	for (uint16_t i = 0; i < n_pmds; i++)
		__atomic_store_n(&pmds[i].stop, true, __ATOMIC_RELAXED);
	for (uint16_t i = 0; i < n_pmds; i++)
		rte_eal_wait_lcore(pmds[i].lcore);
}

void
pmds_destroy(void)
{
	for (uint16_t i = 0; pmds && i < n_pmds; i++) {
		struct pmd *pmd = &pmds[i];
		if (pmd->cls)
			pmd_flush_flows(pmd);
		dpcls_destroy(pmd->cls);
		emc_destroy(pmd->emc);
		rte_free(pmd->flow_pool);
		rte_free(pmd->flow_free);
		rte_free(pmd->txbufs);
		rte_free(pmd->port_stats);
	}
	rte_free(pmds);
	pmds = NULL;
	n_pmds = 0;
	rte_ring_free(ctl_event_ring);
	ctl_event_ring = NULL;
	rte_free(pmd_qsbr);
	pmd_qsbr = NULL;
}
