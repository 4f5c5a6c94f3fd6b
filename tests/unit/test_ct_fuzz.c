/* SPDX-License-Identifier: BSD-3-Clause
 * The connection tracker fuzzed: two PMD-like threads (registered
 * lcores, QSBR readers) send random and mutated TCP, UDP, ICMP (queries
 * and errors quoting random packets), GRE and fragment packets, IPv4 and
 * IPv6 (ICMPv6, extension-header chains of random bytes, lying payload
 * lengths, Fragment headers), of few
 * hosts and ports so that sessions are met again and again, in two zones,
 * committed or not, with and without SNAT to a small port range, while
 * the main thread runs the sweeper with time racing ahead and flushes
 * the table now and then. Run in the ASan/UBSan build too (meson test
 * there): a memory error is a crash there.
 *
 * Checked: every verdict is a state OVS can give (+trk; +inv alone;
 * never +new with +est, +rpl without +est or +rel, NAT bits without
 * NAT); the counters add up; after a flush nothing is left and the table
 * takes max_conns sessions again (no session, key slot or NAT tuple
 * leaked); every mbuf is back. The seed is printed (VXS_FUZZ_SEED sets
 * it) so a failure can be replayed.
 */
#include <pthread.h>
#include <stdlib.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_random.h>
#include "ct_test6.h"

#define MAX_CONNS 2048
#define BURST 32
#define N_HOSTS 4
#define N_PORTS 6

static struct conntrack *ct;
static struct rte_rcu_qsbr *qsbr;
static volatile uint64_t now_tsc;
static volatile int stop;

struct worker {
	pthread_t tid;
	unsigned qid;
	uint64_t rng;
	uint64_t pkts, bad_state;
	uint8_t first_bad;
};

static uint32_t
rnd(struct worker *w, uint32_t n)
{
	return (uint32_t)(unit_xorshift64s(&w->rng) >> 33) % n;
}

static const uint8_t tcp_flags[] = {
	F_SYN, F_SYN | F_ACK, F_ACK, F_ACK | F_PSH, F_FIN | F_ACK, F_RST,
	F_RST | F_ACK, F_FIN, 0, F_SYN | F_FIN, F_SYN | F_RST,
};

static uint32_t
host(struct worker *w)
{
	return IP(10, 0, 0, 1 + rnd(w, N_HOSTS));
}

static uint16_t
port(struct worker *w)
{
	return (uint16_t)(1000 + rnd(w, N_PORTS));
}

static void
host6(struct worker *w, uint8_t a[16])
{
	static const uint8_t pfx[16] = { 0x20, 0x01, 0x0d, 0xb8 };

	memcpy(a, pfx, 16);
	a[15] = (uint8_t)(1 + rnd(w, N_HOSTS));
}

/* One random IPv6 packet, mutated one time in three: a byte of its
 * header, extension headers or L4 (checksum left), a payload length that
 * lies, an extension-header chain of random bytes, a Fragment header. */
static struct rte_mbuf *
random_packet6(struct worker *w)
{
	uint8_t s[16], d[16], ext[24];
	struct rte_mbuf *m;
	uint16_t extlen = 0;
	uint8_t nh0 = 0;

	host6(w, s);
	host6(w, d);
	switch (rnd(w, 3) ? 4 : rnd(w, 4)) {
	case 2:		/* hop-by-hop and random bytes, its length right */
		for (unsigned i = 0; i < sizeof ext; i++)
			ext[i] = (uint8_t)rnd(w, 256);
		extlen = 8 * (1 + rnd(w, 3));
		ext[1] = (uint8_t)(extlen / 8 - 1);
		nh0 = 0;
		if (rnd(w, 2))
			ext[0] = rnd(w, 2) ? IPPROTO_UDP : IPPROTO_TCP;
		break;
	case 3:		/* a Fragment header, any offset and M */
		memset(ext, 0, 8);
		ext[0] = rnd(w, 2) ? IPPROTO_UDP : IPPROTO_TCP;
		ext[2] = (uint8_t)rnd(w, 256);
		ext[3] = (uint8_t)rnd(w, 256);
		extlen = 8;
		nh0 = 44;
		break;
	}
	switch (rnd(w, 5)) {
	case 0: case 1: {
		uint32_t seq = rnd(w, 4) ? 1000 + rnd(w, 3) * 100 : rnd(w, ~0u);
		m = tcp6(s, d, port(w), port(w),
			 tcp_flags[rnd(w, sizeof tcp_flags)], seq,
			 rnd(w, 2) ? 5000 + rnd(w, 3) * 100 : rnd(w, ~0u));
		break;
	}
	case 2:
		m = udp6x(s, d, port(w), port(w), ext, extlen, nh0);
		break;
	case 3:
		m = icmp6(s, d, rnd(w, 3) ? 128 + rnd(w, 2) : rnd(w, 256),
			  (uint16_t)rnd(w, 3));
		break;
	default: {
		uint8_t r[16];
		host6(w, r);
		m = icmp6_error(s, d, (uint8_t)(1 + rnd(w, 4)),
				rnd(w, 2) ? udp6(d, r, port(w), port(w))
					  : tcp6(d, r, port(w), port(w), F_SYN,
						 1000, 0));
		break;
	}
	}
	uint8_t *ip = rte_pktmbuf_mtod_offset(m, uint8_t *, RTE_ETHER_HDR_LEN);
	uint32_t len = m->data_len - RTE_ETHER_HDR_LEN;
	switch (rnd(w, 6)) {
	case 0:		/* any byte, checksums left */
		ip[rnd(w, len)] ^= (uint8_t)(1 + rnd(w, 255));
		break;
	case 1:		/* a payload length that lies */
		ip[4] = (uint8_t)rnd(w, 8);
		ip[5] = (uint8_t)rnd(w, 256);
		break;
	}
	return m;
}

/* One random packet, mutated one time in five. */
static struct rte_mbuf *
random_packet(struct worker *w)
{
	uint32_t s = host(w), d = host(w);
	struct rte_mbuf *m, *q;
	uint8_t *l4;

	if (rnd(w, 4) == 0)
		return random_packet6(w);
	switch (rnd(w, 10)) {
	case 0: case 1: case 2: case 3: case 4:
		m = pkt_tcp(s, d, port(w), port(w),
			    tcp_flags[rnd(w, sizeof tcp_flags)],
			    rnd(w, 4) ? 1000 + rnd(w, 3) * 100 : rnd(w, ~0u),
			    rnd(w, 2) ? 5000 + rnd(w, 3) * 100 : rnd(w, ~0u),
			    rnd(w, 2) ? 65535 : rnd(w, 65536),
			    rnd(w, 3) ? -1 : (int)rnd(w, 16),
			    (uint16_t)(rnd(w, 3) ? 0 : rnd(w, 200)));
		break;
	case 5: case 6:
		m = pkt_udp(s, d, port(w), port(w));
		break;
	case 7:
		m = pkt_icmp(s, d, rnd(w, 2) ? 8 : 0, (uint16_t)rnd(w, 3));
		break;
	case 8:
		q = rnd(w, 2) ? pkt_udp(d, host(w), port(w), port(w))
			      : pkt_tcp(d, host(w), port(w), port(w), F_SYN,
					1000, 0, 65535, -1, 0);
		m = pkt_icmp_error(s, d, rnd(w, 2) ? 3 : 11, q);
		break;
	default:
		m = pkt_ip(s, d, 47, 8, &l4);
		pkt_csum(m);
		break;
	}
	if (rnd(w, 5))
		return m;
	struct rte_ipv4_hdr *ip = pkt_iph(m);
	uint8_t *bytes = (uint8_t *)ip;
	uint32_t len = rte_be_to_cpu_16(ip->total_length);
	switch (rnd(w, 4)) {
	case 0:		/* any byte of the IP datagram, checksums left */
		bytes[rnd(w, len)] ^= (uint8_t)(1 + rnd(w, 255));
		break;
	case 1:		/* the same, checksums made right again */
		bytes[20 + rnd(w, len - 20)] ^= (uint8_t)(1 + rnd(w, 255));
		pkt_csum(m);
		break;
	case 2:		/* a fragment */
		ip->fragment_offset = rte_cpu_to_be_16(
			rnd(w, 2) ? RTE_IPV4_HDR_MF_FLAG : (uint16_t)rnd(w, 64));
		pkt_csum(m);
		break;
	default:	/* a total length that lies, in a right header */
		ip->total_length = rte_cpu_to_be_16((uint16_t)rnd(w, 2000));
		ip->hdr_checksum = 0;
		ip->hdr_checksum = rte_ipv4_cksum(ip);
		break;
	}
	return m;
}

/* A state OVS's tracker can give; nat: the call NATed. */
static bool
state_possible(uint8_t st, bool nat)
{
	if (!(st & CS_TRACKED))
		return false;
	if (st & CS_INVALID)
		return st == (CS_TRACKED | CS_INVALID);
	if ((st & CS_NEW) && (st & CS_ESTABLISHED))
		return false;
	if (!(st & (CS_NEW | CS_ESTABLISHED | CS_RELATED)))
		return false;
	if ((st & CS_REPLY_DIR) && !(st & (CS_ESTABLISHED | CS_RELATED)))
		return false;
	if ((st & (CS_SRC_NAT | CS_DST_NAT)) && !nat)
		return false;
	return true;
}

static void *
worker_main(void *arg)
{
	struct worker *w = arg;
	struct rte_mbuf *pk[BURST];
	struct ct_pkt_meta mt[BURST];
	uint8_t st[BURST];

	if (rte_thread_register() < 0) {
		w->bad_state = ~0ull;
		return NULL;
	}
	rte_rcu_qsbr_thread_register(qsbr, w->qid);
	rte_rcu_qsbr_thread_online(qsbr, w->qid);
	while (!stop) {
		uint16_t n = 0;
		for (int i = 0; i < BURST; i++) {
			struct rte_mbuf *m = random_packet(w);
			if (!m)
				continue;
			if (ct_pkt_meta_parse(m, &mt[n]) < 0) {
				rte_pktmbuf_free(m);	/* not IP any more */
				continue;
			}
			pk[n++] = m;
		}
		struct ct_nat_spec snat = {
			.snat = true, .ip_min = IP(203, 0, 113, 7),
			.ip_max = IP(203, 0, 113, 8),
			.port_min = 2000, .port_max = 2007 };
		bool nat = rnd(w, 5) == 0;
		conntrack_execute(ct, pk, mt, n, (uint16_t)(1 + rnd(w, 2)),
				  rnd(w, 3) != 0, nat ? &snat : NULL, now_tsc,
				  st, NULL);
		for (uint16_t i = 0; i < n; i++) {
			rte_pktmbuf_free(pk[i]);
			if (!state_possible(st[i], nat) && !w->bad_state++)
				w->first_bad = st[i];
		}
		w->pkts += n;
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
	struct worker w[2] = { { .qid = 0 }, { .qid = 1 } };
	struct ct_stats s;
	const char *env = getenv("VXS_FUZZ_SEED");
	uint64_t seed;

	if (ct_test_init("test_ct_fuzz") < 0)
		return 1;
	setvbuf(stdout, NULL, _IOLBF, 0);
	seed = env ? strtoull(env, NULL, 0) : rte_rand();
	printf("seed %#llx (VXS_FUZZ_SEED=%#llx replays it)\n",
	       (unsigned long long)seed, (unsigned long long)seed);
	w[0].rng = seed | 1;
	w[1].rng = (seed ^ 0x9e3779b97f4a7c15ull) | 1;
	unsigned avail0 = rte_mempool_avail_count(mbufs);
	size_t sz = rte_rcu_qsbr_get_memsize(2);
	qsbr = rte_zmalloc("ct_fuzz_qsbr", sz, RTE_CACHE_LINE_SIZE);
	rte_rcu_qsbr_init(qsbr, 2);
	ct = ct_test_new("ct_fuzz", MAX_CONNS, qsbr);
	CHECK_EXPR(ct != NULL);
	if (!ct)
		return unit_test_report();

	for (int i = 0; i < 2; i++)
		pthread_create(&w[i].tid, NULL, worker_main, &w[i]);
	/* 2 s of wall clock; tracker time runs 1 s a step, so sessions of
	 * every class expire under the workers; a flush every 50 steps */
	uint64_t end = rte_get_timer_cycles() + rte_get_timer_hz() * 2;
	uint32_t steps = 0, flushes = 0;
	while (rte_get_timer_cycles() < end) {
		now_tsc += SEC(1);
		conntrack_sweep(ct, now_tsc, 256);
		if (++steps % 50 == 0) {
			conntrack_flush(ct);
			flushes++;
		}
		rte_delay_us_sleep(1000);
	}
	stop = 1;
	for (int i = 0; i < 2; i++)
		pthread_join(w[i].tid, NULL);

	conntrack_get_stats(ct, &s);
	conntrack_flush(ct);
	conntrack_sweep(ct, now_tsc, 1);
	uint32_t left = conntrack_get_nconns(ct);
	for (int i = 0; i < MAX_CONNS; i++)
		ct_run(ct, pkt_udp(IP(10, 9, 0, 1), IP(10, 9, 0, 2),
				   (uint16_t)i, 53), 5, true, NULL, now_tsc);
	uint32_t refill = conntrack_get_nconns(ct);
	conntrack_destroy(ct);
	rte_free(qsbr);
	unsigned mbufs_lost = avail0 - rte_mempool_avail_count(mbufs);

	printf("| inputs | verdicts impossible | sessions created | invalid "
	       "| flushes | sessions left | refill | mbufs lost |\n");
	printf("| %lu | %lu | %lu | %lu | %u | %u | %u/%u | %u |\n",
	       (unsigned long)(w[0].pkts + w[1].pkts),
	       (unsigned long)(w[0].bad_state + w[1].bad_state),
	       (unsigned long)s.created, (unsigned long)s.invalid, flushes,
	       left, refill, MAX_CONNS, mbufs_lost);
	CHECK(w[0].pkts > 10000 && w[1].pkts > 10000, "too few packets");
	CHECK(w[0].bad_state == 0 && w[1].bad_state == 0,
	      "impossible verdicts: %lu, first %#x",
	      (unsigned long)(w[0].bad_state + w[1].bad_state),
	      w[0].bad_state ? w[0].first_bad : w[1].first_bad);
	CHECK(s.created > 100 && s.invalid > 100, "created %lu invalid %lu",
	      (unsigned long)s.created, (unsigned long)s.invalid);
	CHECK(s.created - s.expired - s.flushed == s.n_conns,
	      "created %lu expired %lu flushed %lu n %lu",
	      (unsigned long)s.created, (unsigned long)s.expired,
	      (unsigned long)s.flushed, (unsigned long)s.n_conns);
	CHECK_EXPR(left == 0);
	CHECK(refill == MAX_CONNS, "refill %u", refill);
	CHECK(mbufs_lost == 0, "%u mbufs lost", mbufs_lost);
	return unit_test_report();
}
