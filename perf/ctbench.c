/* SPDX-License-Identifier: BSD-3-Clause
 * In-process connection tracker benchmark: for 1k / 100k / 1M sessions,
 * connection setups per second (UDP, commit: one packet creates a
 * session; TCP, the three packets of a handshake) and cycles per packet
 * of lookups of established sessions picked at random (tcp: the same
 * ACK again, which moves no window; tcp bulk: data segments and their
 * ACKs, each moving one) (the tracker's part: the cost of refreshing the
 * burst's headers, measured alone, is subtracted), on one thread, bursts
 * of 32, as a PMD calls it.
 *
 *   build/perf/ctbench [--sizes 1000,100000,1000000] [--lookups N]
 *                      [--work udp,tcp,bulk] [--setups N] [--threads]
 *                      [-- EAL args]
 * Default EAL: --in-memory --no-pci -l 0 -m 2048 (hugepages); with
 * --threads (two lcores on one tracker: ctbench_threads.c) -l 0,1.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_tcp.h>
#include <rte_udp.h>
#include "conntrack.h"
#include "ctbench.h"

#define RNG_SEED 0x9e3779b97f4a7c15ull

struct rte_mempool *mbufs;
static uint64_t rng = RNG_SEED;

static inline uint32_t
rnd(void)
{
	return rnd_next(&rng);
}

static void
set_tcp(struct rte_mbuf *m, uint8_t flags, uint32_t seq, uint32_t ack)
{
	struct rte_tcp_hdr *t = rte_pktmbuf_mtod_offset(m, struct rte_tcp_hdr *,
		sizeof(struct rte_ether_hdr) + sizeof(struct rte_ipv4_hdr));
	t->tcp_flags = flags;
	t->sent_seq = rte_cpu_to_be_32(seq);
	t->recv_ack = rte_cpu_to_be_32(ack);
	t->cksum = 0;	/* the tracker checks it, as OVS */
	t->cksum = rte_ipv4_udptcp_cksum(rte_pktmbuf_mtod_offset(m,
		const struct rte_ipv4_hdr *, sizeof(struct rte_ether_hdr)), t);
}

/* Sends packets of sessions [0, n) (or random ones) through ct; returns
 * TSC cycles spent. step: 0 UDP orig (new), 1 UDP reply, 2..4 TCP
 * handshake, 5 TCP ACK (established), 6 UDP orig (established). exec
 * false: only the header refresh. */
static uint64_t
run(struct conntrack *ct, struct rte_mbuf **pk, struct ct_pkt_meta *mt,
    uint32_t n_sess, uint64_t count, bool random, int step, bool exec,
    uint64_t *bad)
{
	uint8_t st[BURST];
	uint64_t cycles = 0;
	bool reply = step == 1 || step == 3;
	uint8_t want = step == 0 || step == 2 ? (CS_TRACKED | CS_NEW) :
		       reply ? (CS_TRACKED | CS_ESTABLISHED | CS_REPLY_DIR) :
		       (CS_TRACKED | CS_ESTABLISHED);

	for (uint64_t done = 0; done < count; done += BURST) {
		uint64_t t0 = rte_rdtsc();
		for (int i = 0; i < BURST; i++) {
			uint32_t s = random ? rnd() % n_sess
					    : (uint32_t)((done + i) % n_sess);
			set_tuple(pk[i], &mt[i], s, reply);
			if (step == 2)
				set_tcp(pk[i], RTE_TCP_SYN_FLAG, 1000, 0);
			else if (step == 3)
				set_tcp(pk[i], RTE_TCP_SYN_FLAG |
					RTE_TCP_ACK_FLAG, 5000, 1001);
			else if (step == 4 || step == 5)
				set_tcp(pk[i], RTE_TCP_ACK_FLAG, 1001, 5001);
		}
		if (exec)
			conntrack_execute(ct, pk, mt, BURST, 1, step != 1, NULL,
					  t0, st, NULL);
		cycles += rte_rdtsc() - t0;
		if (exec && bad)
			for (int i = 0; i < BURST; i++)
				*bad += st[i] != want;
	}
	return cycles;
}

/* TCP bulk transfer on established sessions picked at random: a burst of
 * 100-byte data segments (each moves its sender's window), then a burst
 * of the receiver's ACKs of them (each moves the other window): what the
 * lane does under the session's lock. snd[s]: session s's next sequence.
 * Returns the cycles of count packets; exec false: the header refresh
 * alone (on a copy of snd, so both runs send the same segments). */
static uint64_t
run_bulk(struct conntrack *ct, struct rte_mbuf **data, struct rte_mbuf **ack,
	 struct ct_pkt_meta *mtd, struct ct_pkt_meta *mta, uint32_t *snd,
	 uint32_t n_sess, uint64_t count, bool exec, uint64_t *bad)
{
	uint8_t st[BURST];
	uint32_t pick[BURST];
	uint64_t cycles = 0;
	uint64_t saved = rng;

	for (uint64_t done = 0; done < count; done += 2 * BURST) {
		uint64_t t0 = rte_rdtsc();
		for (int i = 0; i < BURST; i++) {
			/* distinct sessions in a burst: a segment's ACK
			 * follows it */
			pick[i] = (rnd() % (n_sess / BURST)) * BURST + i;
			set_tuple(data[i], &mtd[i], pick[i], false);
			set_tcp(data[i], RTE_TCP_ACK_FLAG | RTE_TCP_PSH_FLAG,
				snd[pick[i]], 5001);
			if (exec)
				snd[pick[i]] += 100;
		}
		if (exec)
			conntrack_execute(ct, data, mtd, BURST, 1, true, NULL,
					  t0, st, NULL);
		for (int i = 0; exec && bad && i < BURST; i++)
			*bad += st[i] != (CS_TRACKED | CS_ESTABLISHED);
		for (int i = 0; i < BURST; i++) {
			set_tuple(ack[i], &mta[i], pick[i], true);
			set_tcp(ack[i], RTE_TCP_ACK_FLAG, 5001,
				snd[pick[i]] + (exec ? 0 : 100));
		}
		if (exec)
			conntrack_execute(ct, ack, mta, BURST, 1, false, NULL,
					  t0, st, NULL);
		for (int i = 0; exec && bad && i < BURST; i++)
			*bad += st[i] != (CS_TRACKED | CS_ESTABLISHED |
					  CS_REPLY_DIR);
		cycles += rte_rdtsc() - t0;
	}
	if (!exec)
		rng = saved;	/* the timed run picks the same sessions */
	return cycles;
}

int
main(int argc, char **argv)
{
	char *eal_def[] = { argv[0], "--in-memory", "--no-pci", "-l", "0",
			    "-m", "2048",
			    "--log-level=error" };
	uint32_t sizes[8] = { 1000, 100000, 1000000 };
	int n_sizes = 3;
	uint64_t lookups = 20000000;
	bool threads = false;
	const char *work = "udp,tcp,bulk";	/* which lookups are timed */
	uint64_t setups = 2000000;	/* at least, timed per size */
	int dd = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			dd = i;
			break;
		}
		threads |= !strcmp(argv[i], "--threads");
	}
	if (threads)
		eal_def[4] = "0,1";
	int r = dd ? rte_eal_init(argc - dd, argv + dd)
		   : rte_eal_init(RTE_DIM(eal_def), eal_def);
	if (r < 0) {
		fprintf(stderr, "EAL init failed\n");
		return 1;
	}
	for (int i = 1; i < (dd ? dd : argc); i++) {
		if (!strcmp(argv[i], "--sizes") && i + 1 < argc) {
			n_sizes = 0;
			for (char *t = strtok(argv[++i], ","); t && n_sizes < 8;
			     t = strtok(NULL, ","))
				sizes[n_sizes++] = (uint32_t)atoi(t);
		} else if (!strcmp(argv[i], "--setups") && i + 1 < argc) {
			setups = strtoull(argv[++i], NULL, 0);
		} else if (!strcmp(argv[i], "--work") && i + 1 < argc) {
			work = argv[++i];
		} else if (!strcmp(argv[i], "--lookups") && i + 1 < argc) {
			lookups = strtoull(argv[++i], NULL, 0);
		}
	}
	mbufs = rte_pktmbuf_pool_create("ctbench", 1023, 0, 0,
					RTE_MBUF_DEFAULT_BUF_SIZE,
					SOCKET_ID_ANY);
	struct rte_mbuf *udp[BURST], *tcp[BURST], *tcpd[BURST], *tcpa[BURST];
	struct ct_pkt_meta mu[BURST], mtc[BURST], mtd[BURST], mta[BURST];
	for (int i = 0; i < BURST; i++) {
		udp[i] = make_pkt(IPPROTO_UDP, &mu[i]);
		tcp[i] = make_pkt(IPPROTO_TCP, &mtc[i]);
		tcpd[i] = make_pkt_len(IPPROTO_TCP, &mtd[i], 100);
		tcpa[i] = make_pkt(IPPROTO_TCP, &mta[i]);
	}
	double hz = (double)rte_get_tsc_hz();

	if (threads)
		return ctbench_threads(sizes, n_sizes, lookups);
	printf("conntrack, one thread, bursts of %d, TSC %.2f GHz, %" PRIu64
	       " random lookups per size\n", BURST, hz / 1e9, lookups);
	printf("%10s %14s %16s %14s %14s %15s %10s\n", "sessions",
	       "udp setups/s", "tcp handshakes/s", "udp cyc/pkt",
	       "tcp cyc/pkt", "tcp bulk cyc/pkt", "bad");
	for (int z = 0; z < n_sizes; z++) {
		uint32_t n = sizes[z];
		char name[32];
		snprintf(name, sizeof name, "ctb%d", z);
		/* UDP and TCP sessions of the same tuples: two trackers */
		struct ct_params p = { .max_conns = n, .socket_id = SOCKET_ID_ANY,
				       .name = name };
		struct conntrack *cu = conntrack_create(&p);
		snprintf(name, sizeof name, "ctt%d", z);
		struct conntrack *cti = conntrack_create(&p);
		if (!cu || !cti) {
			fprintf(stderr, "no memory for %u sessions\n", n);
			return 1;
		}
		uint64_t bad = 0;
		uint64_t cnt = RTE_ALIGN_CEIL(n, BURST);
		/* Setups: create all n, flush (not timed), again, until
		 * --setups (2M) were timed; the last round stays for the
		 * lookups. */
		uint64_t c_udp = 0, c_tcp = 0, rounds = 0;
		do {
			if (rounds++) {
				conntrack_flush(cu);
				conntrack_flush(cti);
				conntrack_sweep(cu, rte_rdtsc(), 1);
				conntrack_sweep(cti, rte_rdtsc(), 1);
			}
			c_udp += run(cu, udp, mu, n, cnt, false, 0, true, &bad)
				 - run(cu, udp, mu, n, cnt, false, 0, false,
				       NULL);
			for (int step = 2; step <= 4; step++)
				c_tcp += run(cti, tcp, mtc, n, cnt, false, step,
					     true, &bad) -
					 run(cti, tcp, mtc, n, cnt, false, step,
					     false, NULL);
		} while (rounds * cnt < setups);
		run(cu, udp, mu, n, cnt, false, 1, true, &bad);
		cnt *= rounds;
		/* random established lookups, less the header refresh */
		uint64_t lu = 0, lt = 0, lb = 0;
		if (strstr(work, "udp"))
			lu = run(cu, udp, mu, n, lookups, true, 6, true, &bad)
			     - run(cu, udp, mu, n, lookups, true, 6, false,
				   NULL);
		if (strstr(work, "tcp"))
			lt = run(cti, tcp, mtc, n, lookups, true, 5, true,
				 &bad) -
			     run(cti, tcp, mtc, n, lookups, true, 5, false,
				 NULL);
		/* bulk data and ACKs, less the header refresh (the random
		 * picks of the two runs are the same) */
		uint32_t *snd = malloc(sizeof *snd * n);
		for (uint32_t s = 0; s < n; s++)
			snd[s] = 1001;
		if (strstr(work, "bulk")) {
			lb = run_bulk(cti, tcpd, tcpa, mtd, mta, snd, n,
				      lookups, false, NULL);
			lb = run_bulk(cti, tcpd, tcpa, mtd, mta, snd, n,
				      lookups, true, &bad) - lb;
		}
		free(snd);
		printf("%10u %14.0f %16.0f %14.1f %14.1f %15.1f %10" PRIu64
		       "\n", n, (double)cnt * hz / (double)c_udp,
		       (double)cnt * hz / (double)c_tcp,
		       (double)lu / (double)lookups,
		       (double)lt / (double)lookups,
		       (double)lb / (double)lookups, bad);
		conntrack_destroy(cu);
		conntrack_destroy(cti);
	}
	return 0;
}
