/* SPDX-License-Identifier: BSD-3-Clause
 * The connection tracker on real PMD-like EAL lcores, with their
 * per-lcore session caches (ct_cache.h; a thread merely registered has
 * none): as many worker lcores as the machine has CPUs (at least 3, at
 * most 8; VXS_CT_WORKERS sets it), mapped onto the CPUs this process may
 * use, hammer
 *  - TCP connections: handshake, data in both directions at once from two
 *    lcores (the driving one sends A->B, the next one B->A, each acking
 *    what the other has sent, within the window), FIN/FIN/ACK closes from
 *    either side or a RST from either side, re-opened on the same tuple
 *    (the closed session replaced) or a new one, window scaling now and
 *    then, and now and then a segment far out of the window either way
 *    (+inv, the session unchanged). Established data from two lcores
 *    through their session caches is what an established-TCP fast lane
 *    takes, when there is one, and must judge as the full path does;
 *  - ICMP echo requests and replies;
 *  - UDP datagrams in 3 IPv4 fragments, in a random order, through the
 *    fragment store (ct_ipf.h) and the tracker as the datapath does
 *    (dp_ipf.c): the reassembled packet tracked, its fragments out,
 * in three zones, in bursts through conntrack_execute_mixed or (sg()'s
 * way) conntrack_execute_flows, while the main lcore sweeps with tracker
 * time running fast (sessions of every class expire, fragments too) and
 * flushes now and then: all, a zone (with the zone's fragments), one TCP
 * tuple, or TCP of a zone by a partial match.
 *
 * Checked: every packet gets exactly the state its direction and step
 * allow (+new for a SYN or the first query, +est / +est+rpl after) while
 * nothing could have touched its session (no flush since the connection
 * opened, under 25 s of tracker time since its last packet: every
 * timeout is 30 s or more); any other packet gets a state OVS can give
 * (those sessions go on, loosely checked, until they re-open); the
 * counters add up (sessions created - expired - flushed = in the table;
 * +inv verdicts = the invalid counter; every fragment taken by the store
 * comes out completed, invalid, expired or purged); nothing leaks (after
 * a flush the table takes max_conns sessions again; every mbuf back).
 * Run in the ASan/UBSan build too (meson test there). The seed is printed
 * (VXS_FUZZ_SEED replays the packet choices, not the interleaving). The
 * flows' scripts are in ct_lcores_flows.h; the last line is a row of the
 * conntrack fuzz table (a crash or a sanitizer report ends the run before
 * it).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sched.h>
#include <stdlib.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_random.h>
#include "ct_lcores_flows.h"
#include "flow_key.h"

/* ------------------------------------------------------------ worker */

static void
flow_of_meta(struct flow_key *k, const struct ct_pkt_meta *mt)
{
	memset(k, 0, sizeof *k);
	k->dl_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	k->nw_src = mt->nw_src;
	k->nw_dst = mt->nw_dst;
	k->nw_proto = mt->nw_proto;
	k->nw_frag = mt->nw_frag;
	k->tp_src = mt->tp_src;
	k->tp_dst = mt->tp_dst;
}

static void
judge(struct worker *w, struct pinfo *p, uint8_t st, uint32_t e0,
      uint32_t e1, uint64_t t1)
{
	struct flow *f = p->f;
	bool strict = e0 == e1 && !(e0 & 1) && f->open_epoch == e0 &&
		      !__atomic_load_n(&f->tainted, __ATOMIC_RELAXED) &&
		      t1 - p->prev_tsc < QUIET;

	w->inv += st == TRK_INV;
	if (!state_possible(st))
		w->impossible++;
	if (!strict) {
		__atomic_store_n(&f->tainted, 1, __ATOMIC_RELAXED);
		w->loose++;
		return;
	}
	w->strict++;
	if (st != p->expect && !w->wrong++) {
		/* what it was: TCP phase 0-6 (HS0...CL2) or h, the helper's
		 * data; I ICMP; F a datagram */
		w->first_wrong[0] = p->expect;
		w->first_wrong[1] = st;
		w->first_wrong[2] = p->ic ? 'I' : p->ff ? 'F' :
				    p->helper ? 'h' :
				    (uint8_t)('0' + p->tc->phase);
	}
}

static int
worker_main(void *arg)
{
	struct worker *w = arg;
	struct worker *drv = &workers[(w->idx + n_workers - 1) % n_workers];
	struct rte_mbuf *pk[BURST];
	struct ct_pkt_meta mt[BURST];
	struct pinfo pi[BURST];
	struct flow_key fk[BURST];
	const struct flow_key *fkp[BURST];
	uint16_t zones[BURST];
	uint64_t commits[1];
	uint8_t st[BURST];
	unsigned hs = 0;

	rte_rcu_qsbr_thread_register(qsbr, w->idx);
	rte_rcu_qsbr_thread_online(qsbr, w->idx);
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		uint32_t e0 = __atomic_load_n(&flush_epoch, __ATOMIC_ACQUIRE);
		uint64_t t0 = now_tsc;
		uint16_t n = 0;

		commits[0] = 0;
		/* the lanes of one burst: up to 8 own TCP connections, up
		 * to 8 of the driver's DATA, an echo, maybe a datagram */
		for (unsigned i = 0; i < 8 && n < BURST; i++) {
			unsigned s = w->tcp_next++ % N_TCP;
			memset(&pi[n], 0, sizeof pi[n]);
			pi[n].prev_tsc = __atomic_load_n(&w->tcp[s].f.last_tsc,
							 __ATOMIC_RELAXED);
			pk[n] = tcp_driver_pkt(w, &w->tcp[s], &pi[n]);
			if (pk[n]) {
				/* A's side commits; B's half the time */
				bool a = pi[n].expect != TRK_RPL;
				if (a || rnd(w, 2))
					commits[0] |= 1ull << n;
				n++;
			}
		}
		for (unsigned i = 0; i < 8 && n < BURST; i++) {
			struct tcp_conn *c = &drv->tcp[hs++ % N_TCP];
			memset(&pi[n], 0, sizeof pi[n]);
			pi[n].prev_tsc = __atomic_load_n(&c->f.last_tsc,
							 __ATOMIC_RELAXED);
			pk[n] = tcp_helper_pkt(w, c, &pi[n]);
			if (pk[n]) {
				if (rnd(w, 2))
					commits[0] |= 1ull << n;
				n++;
			}
		}
		if (rnd(w, 8) == 0) {
			struct icmp_flow *ic = &w->icmp[rnd(w, N_ICMP)];
			memset(&pi[n], 0, sizeof pi[n]);
			pi[n].prev_tsc = ic->f.last_tsc;
			pk[n] = icmp_pkt(ic, &pi[n]);
			commits[0] |= (uint64_t)!ic->reply_next << n;
			n++;
		}
		if (rnd(w, 64) == 0 && n < BURST) {
			struct frag_flow *ff = &w->frag[rnd(w, N_FRAG)];
			memset(&pi[n], 0, sizeof pi[n]);
			pi[n].prev_tsc = ff->f.last_tsc;
			pk[n] = frag_pkt(w, ff, &pi[n]);
			if (pk[n]) {
				commits[0] |= (uint64_t)!ff->reply_next << n;
				n++;
			} else {
				frag_after(w, ff, pi[n].dg, false);
			}
		}
		if (!n) {
			rte_rcu_qsbr_quiescent(qsbr, w->idx);
			continue;
		}
		for (uint16_t i = 0; i < n; i++) {
			zones[i] = pi[i].f->zone;
			if (ct_pkt_meta_parse(pk[i], &mt[i]) < 0)
				abort();	/* built right: cannot be */
			flow_of_meta(&fk[i], &mt[i]);
			fkp[i] = &fk[i];
		}
		if (rnd(w, 4) == 0) {	/* sg()'s way: by flow keys */
			const struct ct_flow_call call = { .zones = zones,
							   .commits = commits };
			conntrack_execute_flows(ct, pk, fkp, n, &call, t0, st);
			w->flows_bursts++;
		} else {
			conntrack_execute_mixed(ct, pk, mt, n, zones, commits,
						NULL, t0, st);
		}
		uint32_t e1 = __atomic_load_n(&flush_epoch, __ATOMIC_ACQUIRE);
		uint64_t t1 = now_tsc;
		for (uint16_t i = 0; i < n; i++) {
			struct pinfo *p = &pi[i];
			judge(w, p, st[i], e0, e1, t1);
			flow_touch(p->f, t0);
			rte_pktmbuf_free(pk[i]);	/* a reassembled one
							 * before its frags */
			if (p->tc)
				tcp_after(w, p);
			else if (p->ic)
				icmp_after(w, p->ic);
			else
				frag_after(w, p->ff, p->dg, true);
		}
		w->pkts += n;
		/* expired and purged fragments: this PMD drops them */
		while (ct_ipf_n_draining(ipf)) {
			struct rte_mbuf *d[BURST];
			bool purged;
			uint16_t k = ct_ipf_drain(ipf, d, BURST, &purged);
			if (!k)
				break;
			w->frags_drained += k;
			rte_pktmbuf_free_bulk(d, k);
		}
		rte_rcu_qsbr_quiescent(qsbr, w->idx);
	}
	rte_rcu_qsbr_thread_offline(qsbr, w->idx);
	rte_rcu_qsbr_thread_unregister(qsbr, w->idx);
	return 0;
}

/* ------------------------------------------------------------- main */

/* The EAL with 1 + n lcores on the CPUs this process may use (several
 * lcores a CPU when it has fewer). */
static int
eal_init(unsigned n)
{
	cpu_set_t cs;
	char cpus[256] = "", lc[320], prefix[96];
	size_t len = 0;

	if (sched_getaffinity(0, sizeof cs, &cs) < 0)
		return -1;
	for (int c = 0; c < CPU_SETSIZE && len + 8 < sizeof cpus; c++)
		if (CPU_ISSET(c, &cs))
			len += (size_t)snprintf(cpus + len, sizeof cpus - len,
						"%s%d", len ? "," : "", c);
	snprintf(lc, sizeof lc, "--lcores=(0-%u)@(%s)", n, cpus);
	snprintf(prefix, sizeof prefix, "--file-prefix=ct_lcores_%d",
		 (int)getpid());
	char *args[] = { "test_ct_lcores", "--no-huge", "--no-pci", "-m",
			 "512", "--no-shconf", "--no-telemetry",
			 "--log-level=error", prefix, lc };
	if (rte_eal_init(RTE_DIM(args), args) < 0)
		return -1;
	mbufs = rte_pktmbuf_pool_create("ct_test_mbufs", 8191, 64, 0,
					RTE_MBUF_DEFAULT_BUF_SIZE,
					SOCKET_ID_ANY);
	return mbufs ? 0 : -1;
}

static uint32_t
flush_something(uint64_t r)
{
	uint16_t zone = (uint16_t)(1 + r % N_ZONES);

	switch ((r >> 8) % 5) {
	case 0:
		ct_ipf_purge_all(ipf);
		return conntrack_flush(ct);
	case 1:
		ct_ipf_purge_zone(ipf, zone);
		return conntrack_flush_zone(ct, zone);
	case 2: case 3: {	/* one TCP connection's tuple */
		struct worker *w = &workers[(r >> 16) % n_workers];
		struct tcp_conn *c = &w->tcp[(r >> 24) % N_TCP];
		struct ct_tuple t = {
			.src = rte_cpu_to_be_32(c->a_ip), .dst =
			rte_cpu_to_be_32(B_IP), .sport =
			rte_cpu_to_be_16(c->sport), .dport =
			rte_cpu_to_be_16(80), .proto = IPPROTO_TCP };
		return conntrack_flush_tuple(ct, c->f.zone, &t);
	}
	default: {		/* TCP to B:80 in a zone */
		struct ct_flush_match m = {
			.zone = zone, .proto = IPPROTO_TCP,
			.tuple[0] = { .set = CT_FM_DPORT,
				      .dport = rte_cpu_to_be_16(80) } };
		return conntrack_flush_match(ct, &m);
	}
	}
}

int
main(void)
{
	const char *env = getenv("VXS_CT_WORKERS");
	const char *seed_env = getenv("VXS_FUZZ_SEED");
	cpu_set_t cs;
	struct ct_stats s;
	uint32_t max_conns;
	struct ct_ipf_status is;

	n_workers = sched_getaffinity(0, sizeof cs, &cs) == 0
		    ? (unsigned)CPU_COUNT(&cs) : 2;
	n_workers = RTE_MAX(3u, RTE_MIN(n_workers, (unsigned)MAX_W));
	if (env)
		n_workers = RTE_MAX(2u, RTE_MIN((unsigned)atoi(env),
						(unsigned)MAX_W));
	if (eal_init(n_workers) < 0) {
		printf("test_ct_lcores: EAL init failed\n0 passed, 1 failed\n");
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	CHECK(rte_lcore_count() == n_workers + 1, "%u lcores",
	      rte_lcore_count());
	uint64_t seed = seed_env ? strtoull(seed_env, NULL, 0) : rte_rand();
	printf("seed %#llx (VXS_FUZZ_SEED=%#llx replays the choices), %u "
	       "worker lcores\n", (unsigned long long)seed,
	       (unsigned long long)seed, n_workers);
	unsigned avail0 = rte_mempool_avail_count(mbufs);
	size_t sz = rte_rcu_qsbr_get_memsize(n_workers);
	qsbr = rte_zmalloc("ct_lcores_qsbr", sz, RTE_CACHE_LINE_SIZE);
	rte_rcu_qsbr_init(qsbr, n_workers);
	max_conns = RTE_MIN(CONNS_PER_WORKER * n_workers, 65536u);
	ct = ct_test_new("ct_lcores", max_conns, qsbr);
	ipf = ct_ipf_create(SOCKET_ID_ANY, HZ);
	CHECK_EXPR(ct != NULL && ipf != NULL);
	if (!ct || !ipf)
		return unit_test_report();
	/* room for the datagrams that lost a fragment until they expire */
	CHECK_EXPR(ct_ipf_set_max_nfrags(ipf, CT_IPF_MAX_NFRAGS_UBOUND) == 0);
	now_tsc = SEC(1000);

	for (unsigned i = 0; i < n_workers; i++) {
		struct worker *w = &workers[i];
		w->idx = i;
		w->rng = (seed ^ (0x9e3779b97f4a7c15ull * (i + 1))) | 1;
		for (unsigned s = 0; s < N_TCP; s++)
			tcp_setup(w, s, true);
		for (unsigned s = 0; s < N_ICMP; s++) {
			w->icmp[s].a_ip = IP(10, 100 + i, s, 1);
			w->icmp[s].id = (uint16_t)(i * 1000 + s * 100);
			flow_open(&w->icmp[s].f, (uint16_t)(1 + s % N_ZONES));
		}
		for (unsigned s = 0; s < N_FRAG; s++) {
			w->frag[s].a_ip = IP(10, 150 + i, s, 1);
			w->frag[s].sport = (uint16_t)(2000 + s * 1000);
			w->frag[s].ip_id = (uint16_t)(s * 10000);
			flow_open(&w->frag[s].f, (uint16_t)(1 + s % N_ZONES));
		}
	}
	unsigned lc, wi = 0;
	RTE_LCORE_FOREACH_WORKER(lc) {
		if (wi < n_workers)
			rte_eal_remote_launch(worker_main, &workers[wi++], lc);
	}
	/* RUN_MS of wall clock; tracker time 0.25 s a step (a step about
	 * half a millisecond): TCP's 30-45 s closing timeouts, UDP's and
	 * ICMP's 30-60 s and the fragments' 15 s pass within the run; a
	 * flush every 20 steps */
	uint64_t end = rte_get_timer_cycles() +
		       rte_get_timer_hz() * RUN_MS / 1000;
	uint32_t steps = 0, flushes = 0, flushed = 0, swept = 0, peak = 0;
	while (rte_get_timer_cycles() < end) {
		now_tsc += SEC(1) / 4;
		swept += conntrack_sweep(ct, now_tsc, 512);
		peak = RTE_MAX(peak, conntrack_get_nconns(ct));
		ct_ipf_sweep(ipf, now_tsc, 64);
		if (++steps % 20 == 0) {
			__atomic_fetch_add(&flush_epoch, 1, __ATOMIC_ACQ_REL);
			flushed += flush_something(rte_rand());
			__atomic_fetch_add(&flush_epoch, 1, __ATOMIC_ACQ_REL);
			flushes++;
		}
		rte_delay_us_sleep(500);
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	rte_eal_mp_wait_lcore();

	struct worker t = { 0 };
	for (unsigned i = 0; i < n_workers; i++) {
		struct worker *w = &workers[i];
		printf("lcore %u: %lu pkts (%lu strict, %lu loose), %lu wrong, "
		       "%lu impossible, %lu TCP opens, data %lu/%lu, %lu "
		       "echoes, %lu datagrams (%lu lost), %lu bursts by "
		       "flow key\n", i, (unsigned long)w->pkts,
		       (unsigned long)w->strict, (unsigned long)w->loose,
		       (unsigned long)w->wrong, (unsigned long)w->impossible,
		       (unsigned long)w->tcp_opens,
		       (unsigned long)w->tcp_data[0],
		       (unsigned long)w->tcp_data[1], (unsigned long)w->echoes,
		       (unsigned long)w->dgrams, (unsigned long)w->dgrams_lost,
		       (unsigned long)w->flows_bursts);
		if (w->wrong)
			printf("  first wrong: expected %#x, got %#x (%c)\n",
			       w->first_wrong[0], w->first_wrong[1],
			       w->first_wrong[2]);
#define ADD(x) t.x += w->x;
		ADD(pkts) ADD(strict) ADD(loose) ADD(wrong) ADD(impossible)
		ADD(inv) ADD(tcp_opens) ADD(tcp_data[0]) ADD(tcp_data[1])
		ADD(echoes) ADD(dgrams) ADD(frags_made) ADD(frags_refused)
		ADD(frags_out) ADD(frags_drained) ADD(flows_bursts)
#undef ADD
	}
	conntrack_get_stats(ct, &s);
	CHECK(t.wrong == 0 && t.impossible == 0, "%lu wrong, %lu impossible",
	      (unsigned long)t.wrong, (unsigned long)t.impossible);
	printf("%u main steps, %u sessions at most (table %u)\n", steps, peak,
	       max_conns);
	CHECK(t.strict > 10000 && t.strict > t.loose,
	      "strict %lu loose %lu", (unsigned long)t.strict,
	      (unsigned long)t.loose);
	CHECK(t.tcp_data[0] > 1000 && t.tcp_data[1] > 1000 &&
	      t.tcp_opens > 100 && t.echoes > 100 && t.dgrams > 20 &&
	      t.flows_bursts > 10, "too little of something");
	CHECK(s.created - s.expired - s.flushed == s.n_conns,
	      "created %lu expired %lu flushed %lu n %lu",
	      (unsigned long)s.created, (unsigned long)s.expired,
	      (unsigned long)s.flushed, (unsigned long)s.n_conns);
	CHECK(s.invalid == t.inv, "invalid counter %lu, +inv verdicts %lu",
	      (unsigned long)s.invalid, (unsigned long)t.inv);
	CHECK(s.expired > 0 && s.flushed > 0 && s.refused_full == 0,
	      "expired %lu flushed %lu refused_full %lu",
	      (unsigned long)s.expired, (unsigned long)s.flushed,
	      (unsigned long)s.refused_full);

	/* fragments: purge what is held, drop it here as a PMD would */
	ct_ipf_purge_all(ipf);
	for (;;) {
		struct rte_mbuf *d[BURST];
		bool purged;
		uint16_t k = ct_ipf_drain(ipf, d, BURST, &purged);
		if (!k)
			break;
		t.frags_drained += k;
		rte_pktmbuf_free_bulk(d, k);
	}
	ct_ipf_get_status(ipf, &is);
	uint64_t *v = is.v4;
	CHECK(is.nfrag == 0 && is.n_dgrams == 0, "%u held", is.nfrag);
	CHECK(v[CT_IPF_ACCEPTED] == v[CT_IPF_COMPLETED] + v[CT_IPF_INVALID] +
	      v[CT_IPF_EXPIRED] + v[CT_IPF_PURGED],
	      "accepted %lu completed %lu invalid %lu expired %lu purged %lu",
	      (unsigned long)v[CT_IPF_ACCEPTED],
	      (unsigned long)v[CT_IPF_COMPLETED],
	      (unsigned long)v[CT_IPF_INVALID],
	      (unsigned long)v[CT_IPF_EXPIRED],
	      (unsigned long)v[CT_IPF_PURGED]);
	CHECK(t.frags_made == t.frags_refused + t.frags_out + t.frags_drained,
	      "fragments made %lu, refused %lu, out %lu, dropped %lu",
	      (unsigned long)t.frags_made, (unsigned long)t.frags_refused,
	      (unsigned long)t.frags_out, (unsigned long)t.frags_drained);
	CHECK_EXPR(v[CT_IPF_COMPLETED] + v[CT_IPF_INVALID] == t.frags_out);

	/* no leak: flushed and reclaimed, the table takes max_conns
	 * sessions again (pool and key slots all back) */
	conntrack_flush(ct);
	conntrack_sweep(ct, now_tsc, 1);
	uint32_t left = conntrack_get_nconns(ct);
	for (uint32_t i = 0; i < max_conns; i++)
		ct_run(ct, pkt_udp(IP(10, 250, i >> 8, i & 0xff), B_IP, 7, 53),
		       4, true, NULL, now_tsc);
	uint32_t refill = conntrack_get_nconns(ct);
	conntrack_destroy(ct);
	ct_ipf_destroy(ipf);
	rte_free(qsbr);
	unsigned lost = avail0 - rte_mempool_avail_count(mbufs);
	CHECK_EXPR(left == 0);
	CHECK(refill == max_conns, "refill %u", refill);
	CHECK(lost == 0, "%u mbufs lost", lost);

	printf("| lcores | inputs | verdicts wrong | impossible | sessions "
	       "created | flushes (sessions) | expired | fragments in/out "
	       "| sessions left | refill | mbufs lost |\n");
	printf("| %u | %lu | %lu of %lu strict | %lu | %lu | %u (%u) | %lu "
	       "| %lu/%lu | %u | %u/%u | %u |\n", n_workers,
	       (unsigned long)t.pkts, (unsigned long)t.wrong,
	       (unsigned long)t.strict, (unsigned long)t.impossible,
	       (unsigned long)s.created, flushes, flushed,
	       (unsigned long)s.expired, (unsigned long)t.frags_made,
	       (unsigned long)(t.frags_out + t.frags_refused +
			       t.frags_drained), left, refill, max_conns,
	       lost);
	(void)swept;
	return unit_test_report();
}
