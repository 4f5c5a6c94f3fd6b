/* SPDX-License-Identifier: BSD-3-Clause
 * ct_hostile's two PMDs (see ct_hostile.c):
 *
 *   the victim (zone 1), on the main lcore: established sessions, half TCP
 *   (handshake through the tracker first, then 64-byte data segments both
 *   ways, each acknowledging the other side's last one, so the window
 *   checks run on every packet) and half UDP (both directions seen:
 *   bidir), looked up in bursts of 32 (one TCP burst, one UDP burst, ...)
 *   with commit, as sg() calls the tracker; every --new-us a new
 *   connection (SYN / SYN-ACK / ACK, or a new UDP datagram and its
 *   answer), admitted if the tracker committed it and its answer came
 *   back +est+rpl;
 *
 *   the attacker (zone 2), on the other lcore, as fast as it can: new UDP
 *   5-tuples with commit, the same under nat(src=one address:a small port
 *   range), or keys that collide under the old CRC32c table hash.
 *
 * Building the packets (headers and checksums written in full) is outside
 * the victim's cycles per packet and inside its packets per second.
 */
#include <stdio.h>
#include <stdlib.h>
#include <rte_cycles.h>
#include <rte_ip.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_tcp.h>
#include <rte_udp.h>
#include "ct_hostile.h"

#define PAYLOAD 64	/* victim's data segments and datagrams */
#define EST (CS_TRACKED | CS_ESTABLISHED)
#define EST_RPL (CS_TRACKED | CS_ESTABLISHED | CS_REPLY_DIR)
#define NEW (CS_TRACKED | CS_NEW)

void
hb_build(struct rte_mbuf *m, struct ct_pkt_meta *mt, const struct hb_pkt *p)
{
	bool tcp = p->proto == IPPROTO_TCP;
	uint16_t l4 = tcp ? sizeof(struct rte_tcp_hdr)
			  : sizeof(struct rte_udp_hdr);
	uint16_t iplen = (uint16_t)(sizeof(struct rte_ipv4_hdr) + l4 +
				    p->payload);

	rte_pktmbuf_reset(m);
	uint8_t *b = (uint8_t *)rte_pktmbuf_append(m, RTE_ETHER_HDR_LEN +
						    iplen);
	memset(b, 0, RTE_ETHER_HDR_LEN + iplen);
	((struct rte_ether_hdr *)b)->ether_type =
		rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(b +
							  RTE_ETHER_HDR_LEN);
	ip->version_ihl = 0x45;
	ip->total_length = rte_cpu_to_be_16(iplen);
	ip->time_to_live = 64;
	ip->next_proto_id = p->proto;
	ip->src_addr = rte_cpu_to_be_32(p->src);
	ip->dst_addr = rte_cpu_to_be_32(p->dst);
	if (tcp) {
		struct rte_tcp_hdr *t = (struct rte_tcp_hdr *)(ip + 1);
		t->src_port = rte_cpu_to_be_16(p->sport);
		t->dst_port = rte_cpu_to_be_16(p->dport);
		t->sent_seq = rte_cpu_to_be_32(p->seq);
		t->recv_ack = rte_cpu_to_be_32(p->ack);
		t->data_off = 5 << 4;
		t->tcp_flags = p->tcp_flags;
		t->rx_win = rte_cpu_to_be_16(65535);
		t->cksum = rte_ipv4_udptcp_cksum(ip, t);
	} else {
		struct rte_udp_hdr *u = (struct rte_udp_hdr *)(ip + 1);
		u->src_port = rte_cpu_to_be_16(p->sport);
		u->dst_port = rte_cpu_to_be_16(p->dport);
		u->dgram_len = rte_cpu_to_be_16((uint16_t)(l4 + p->payload));
		if (p->l4_csum)
			u->dgram_cksum = rte_ipv4_udptcp_cksum(ip, u);
	}
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	ct_pkt_meta_parse(m, mt);
}

void
hb_build_key(struct rte_mbuf *m, struct ct_pkt_meta *mt,
	     const struct ct_key *k, bool l4_csum)
{
	const struct hb_pkt p = {
		.src = rte_be_to_cpu_32(k->src),
		.dst = rte_be_to_cpu_32(k->dst),
		.sport = rte_be_to_cpu_16(k->sport),
		.dport = rte_be_to_cpu_16(k->dport),
		.proto = k->proto,
		.l4_csum = l4_csum,
	};

	hb_build(m, mt, &p);
}

void
sched_ns(uint64_t *run, uint64_t *wait)
{
	FILE *f = fopen("/proc/thread-self/schedstat", "r");
	unsigned long long r = 0, w = 0;

	if (f) {
		if (fscanf(f, "%llu %llu", &r, &w) != 2)
			r = w = 0;
		fclose(f);
	}
	*run = r;
	*wait = w;
}

void
refusals_of(struct conntrack *ct, unsigned lcore, struct refusals *r)
{
	const struct ct_pmd_counters *c = &ct->cnt[lcore];

	r->zone = c->refused_zone_limit;
	r->full = c->refused_full;
	r->nat = c->refused_nat;
	r->collision = c->refused_collision;
}

void
refusals_sub(struct refusals *d, const struct refusals *a,
	     const struct refusals *b)
{
	d->zone = a->zone - b->zone;
	d->full = a->full - b->full;
	d->nat = a->nat - b->nat;
	d->collision = a->collision - b->collision;
}

/* Established session i of the victim (server side replies). */
static struct hb_pkt
udp_sess(uint32_t i, bool reply)
{
	struct hb_pkt p = {
		.src = VICTIM_IP, .dst = IP4(192, 168, 0, 2),
		.sport = (uint16_t)(20000 + i), .dport = 53,
		.proto = IPPROTO_UDP, .payload = PAYLOAD, .l4_csum = true,
	};
	if (reply) {
		p.src = IP4(192, 168, 0, 2);
		p.dst = VICTIM_IP;
		p.sport = 53;
		p.dport = (uint16_t)(20000 + i);
	}
	return p;
}

static struct hb_pkt
tcp_sess(uint32_t i, bool reply, uint8_t flags, uint32_t seq, uint32_t ack,
	 uint16_t payload)
{
	struct hb_pkt p = {
		.src = VICTIM_IP, .dst = IP4(192, 168, 0, 1),
		.sport = (uint16_t)(10000 + i), .dport = 443,
		.proto = IPPROTO_TCP, .tcp_flags = flags,
		.seq = seq, .ack = ack, .payload = payload,
	};
	if (reply) {
		p.src = IP4(192, 168, 0, 1);
		p.dst = VICTIM_IP;
		p.sport = 443;
		p.dport = (uint16_t)(10000 + i);
	}
	return p;
}

static uint8_t
exec1(struct conntrack *ct, struct rte_mbuf *m, const struct hb_pkt *p,
      uint16_t zone, struct ct_conn_ref *ref, uint64_t *cycles)
{
	struct ct_pkt_meta mt;

	hb_build(m, &mt, p);
	uint64_t t0 = rte_rdtsc();
	uint8_t st = conntrack_execute_one(ct, m, &mt, zone, true, NULL, t0,
					   ref);
	*cycles += rte_rdtsc() - t0;
	return st;
}

int
victim_init(struct victim *v, struct conntrack *ct,
	    struct rte_rcu_qsbr *qsbr, uint32_t n_udp, uint32_t n_tcp,
	    double new_us)
{
	memset(v, 0, sizeof *v);
	v->ct = ct;
	v->qsbr = qsbr;
	v->n_udp = n_udp;
	v->n_tcp = n_tcp;
	v->rng = 0x9e3779b97f4a7c15ull;
	v->new_period = (uint64_t)(new_us * 1e-6 * (double)rte_get_tsc_hz());
	v->udp = calloc(2 * (size_t)n_udp + 1, sizeof *v->udp);
	v->udp_mt = calloc(2 * (size_t)n_udp + 1, sizeof *v->udp_mt);
	v->tcp = calloc((size_t)n_tcp + 1, sizeof *v->tcp);
	v->nc = rte_pktmbuf_alloc(mbufs);
	if (!v->udp || !v->udp_mt || !v->tcp || !v->nc ||
	    rte_pktmbuf_alloc_bulk(mbufs, v->pk, BURST) ||
	    rte_pktmbuf_alloc_bulk(mbufs, v->udp, 2 * n_udp))
		return -1;
	for (uint32_t i = 0; i < 2 * n_udp; i++) {
		struct hb_pkt p = udp_sess(i / 2, i & 1);
		hb_build(v->udp[i], &v->udp_mt[i], &p);
	}
	return 0;
}

uint64_t
victim_establish(struct victim *v)
{
	struct ct_conn_ref ref;
	uint64_t bad = 0, cyc = 0;

	for (uint32_t i = 0; i < v->n_udp; i++) {
		uint8_t st0 = conntrack_execute_one(v->ct, v->udp[2 * i],
						    &v->udp_mt[2 * i],
						    ZONE_VICTIM, true, NULL,
						    rte_rdtsc(), &ref);
		uint8_t st1 = conntrack_execute_one(v->ct, v->udp[2 * i + 1],
						    &v->udp_mt[2 * i + 1],
						    ZONE_VICTIM, true, NULL,
						    rte_rdtsc(), NULL);
		bad += st0 != NEW || !ref.conn || st1 != EST_RPL;
	}
	for (uint32_t i = 0; i < v->n_tcp; i++) {
		uint32_t c = 1000u + i * 7919u, s = 500000u + i * 104729u;
		struct hb_pkt syn = tcp_sess(i, false, RTE_TCP_SYN_FLAG, c, 0,
					     0);
		struct hb_pkt synack = tcp_sess(i, true, RTE_TCP_SYN_FLAG |
						RTE_TCP_ACK_FLAG, s, c + 1, 0);
		struct hb_pkt ack = tcp_sess(i, false, RTE_TCP_ACK_FLAG,
					     c + 1, s + 1, 0);
		uint8_t st0 = exec1(v->ct, v->pk[0], &syn, ZONE_VICTIM, &ref,
				    &cyc);
		bool ok = st0 == NEW && ref.conn;
		ok &= exec1(v->ct, v->pk[0], &synack, ZONE_VICTIM, NULL,
			    &cyc) == EST_RPL;
		ok &= exec1(v->ct, v->pk[0], &ack, ZONE_VICTIM, NULL, &cyc) ==
		      EST;
		bad += !ok;
		v->tcp[i].cseq = c + 1;
		v->tcp[i].sseq = s + 1;
	}
	return bad;
}

/* One new connection of the victim: TCP and UDP in turn, each on a
 * 5-tuple of its own (source VICTIM_NEW_IP, so victim_flush_new finds
 * them). */
static void
victim_new_conn(struct victim *v)
{
	uint32_t s = v->new_seq++, n = s / 2;
	bool tcp = s & 1;
	struct hb_pkt p = {
		.src = VICTIM_NEW_IP,
		.dst = IP4(192, 168, 1, 1) + n / 60000,
		.sport = (uint16_t)(1024 + n % 60000),
		.dport = tcp ? 80 : 5353,
		.proto = tcp ? IPPROTO_TCP : IPPROTO_UDP,
		.tcp_flags = RTE_TCP_SYN_FLAG, .seq = 7000, .l4_csum = true,
		.payload = tcp ? 0 : PAYLOAD,
	};
	struct hb_pkt r = p;
	struct ct_conn_ref ref;
	uint64_t cyc = 0;
	uint8_t st0 = exec1(v->ct, v->nc, &p, ZONE_VICTIM, &ref, &cyc);
	bool ok = st0 == NEW && ref.conn;

	r.src = p.dst;
	r.dst = p.src;
	r.sport = p.dport;
	r.dport = p.sport;
	r.tcp_flags = RTE_TCP_SYN_FLAG | RTE_TCP_ACK_FLAG;
	r.seq = 90000;
	r.ack = 7001;
	ok &= exec1(v->ct, v->nc, &r, ZONE_VICTIM, NULL, &cyc) == EST_RPL;
	if (tcp) {
		p.tcp_flags = RTE_TCP_ACK_FLAG;
		p.seq = 7001;
		p.ack = 90001;
		ok &= exec1(v->ct, v->nc, &p, ZONE_VICTIM, NULL, &cyc) == EST;
	}
	v->new_tried++;
	if (v->n_lat < LAT_MAX)
		v->lat[v->n_lat++] = (uint32_t)RTE_MIN(cyc, (uint64_t)UINT32_MAX);
	if (ok)
		v->new_ok++;
	else if (st0 == NEW && !ref.conn)
		v->new_refused++;
	else
		v->new_bad++;
}

uint32_t
victim_flush_new(struct conntrack *ct)
{
	struct ct_flush_match m = {
		.zone = ZONE_VICTIM,
		.tuple[0] = { .set = CT_FM_SRC,
			      .src = rte_cpu_to_be_32(VICTIM_NEW_IP) },
	};

	return conntrack_flush_match(ct, &m);
}

/* A burst of 16 TCP sessions, each a data segment from the client then
 * one from the server acknowledging it. */
static void
tcp_burst(struct victim *v, uint8_t want[BURST])
{
	for (int j = 0; j < BURST; j += 2) {
		uint32_t i = rnd_next(&v->rng) % v->n_tcp;
		struct tcp_sess *t = &v->tcp[i];
		uint8_t fl = RTE_TCP_ACK_FLAG | RTE_TCP_PSH_FLAG;
		struct hb_pkt c = tcp_sess(i, false, fl, t->cseq, t->sseq,
					   PAYLOAD);
		t->cseq += PAYLOAD;
		struct hb_pkt s = tcp_sess(i, true, fl, t->sseq, t->cseq,
					   PAYLOAD);
		t->sseq += PAYLOAD;
		hb_build(v->pk[j], &v->mt[j], &c);
		hb_build(v->pk[j + 1], &v->mt[j + 1], &s);
		want[j] = EST;
		want[j + 1] = EST_RPL;
	}
}

void
victim_run(struct victim *v, double seconds, volatile bool *stop)
{
	struct rte_mbuf *pk[BURST];
	struct ct_pkt_meta mt[BURST];
	uint8_t st[BURST], want[BURST];
	unsigned lc = rte_lcore_id();
	uint64_t start = rte_rdtsc();
	uint64_t end = start + (uint64_t)(seconds * (double)rte_get_tsc_hz());
	uint64_t next_new = start + v->new_period;

	uint64_t run0, wait0;

	v->pkts = v->cycles = v->bad = v->pkts_tcp = v->cycles_tcp = 0;
	v->new_tried = v->new_ok = v->new_refused = v->new_bad = 0;
	v->new_wall = 0;
	v->n_lat = 0;
	memset(v->hist, 0, sizeof v->hist);
	sched_ns(&run0, &wait0);
	rte_rcu_qsbr_thread_online(v->qsbr, lc);
	for (uint64_t b = 0;; b++) {
		uint64_t now = rte_rdtsc();
		if (now >= end)
			break;
		if (v->new_period && now >= next_new) {
			victim_new_conn(v);
			v->new_wall += rte_rdtsc() - now;
			next_new += v->new_period;
			if (next_new < now)	/* descheduled: no catching up */
				next_new = now + v->new_period;
		}
		bool tcp = v->n_tcp && (!v->n_udp || (b & 1));
		struct rte_mbuf **bp = pk;
		struct ct_pkt_meta *bm = mt;
		if (tcp) {
			tcp_burst(v, want);
			bp = v->pk;
			bm = v->mt;
		} else {
			for (int j = 0; j < BURST; j++) {
				uint32_t r = rnd_next(&v->rng);
				uint32_t k = 2 * ((r >> 1) % v->n_udp) + (r & 1);
				pk[j] = v->udp[k];
				mt[j] = v->udp_mt[k];
				want[j] = (r & 1) ? EST_RPL : EST;
			}
		}
		uint64_t t0 = rte_rdtsc();
		conntrack_execute(v->ct, bp, bm, BURST, ZONE_VICTIM, true,
				  NULL, t0, st, NULL);
		uint64_t c = rte_rdtsc() - t0;
		v->cycles += c;
		for (int j = 0; j < BURST; j++)
			v->bad += st[j] != want[j];
		v->pkts += BURST;
		if (tcp) {
			v->cycles_tcp += c;
			v->pkts_tcp += BURST;
		}
		v->hist[tcp][RTE_MIN(c / HIST_STEP, (uint64_t)HIST_N - 1)]++;
		rte_rcu_qsbr_quiescent(v->qsbr, lc);
	}
	*stop = true;
	v->wall = rte_rdtsc() - start;
	rte_rcu_qsbr_thread_offline(v->qsbr, lc);
	sched_ns(&v->run_ns, &v->wait_ns);
	v->run_ns -= run0;
	v->wait_ns -= wait0;
}

double
victim_median_cyc(const struct victim *v, int kind)
{
	uint64_t n = 0, seen = 0;

	for (int k = 0; k < 2; k++)
		for (int i = 0; i < HIST_N && (kind < 0 || kind == k); i++)
			n += v->hist[k][i];
	for (int i = 0; i < HIST_N && n; i++) {
		for (int k = 0; k < 2; k++)
			if (kind < 0 || kind == k)
				seen += v->hist[k][i];
		if (2 * seen >= n)
			return (i + 0.5) * HIST_STEP / BURST;
	}
	return 0;
}

int
attacker_init(struct attacker *a, struct conntrack *ct,
	      struct rte_rcu_qsbr *qsbr, uint16_t nat_ports)
{
	memset(a, 0, sizeof *a);
	a->ct = ct;
	a->qsbr = qsbr;
	a->nat = (struct ct_nat_spec){
		.snat = true, .ip_min = NAT_IP, .ip_max = NAT_IP,
		.port_min = 10000,
		.port_max = (uint16_t)(10000 + nat_ports - 1),
	};
	if (coll_init(&a->coll, ZONE_ATTACKER, ATTACKER_IP) < 0)
		return -1;
	return rte_pktmbuf_alloc_bulk(mbufs, a->pk, BURST);
}

int
attacker_main(void *arg)
{
	struct attacker *a = arg;
	struct ct_conn_ref ref[BURST];
	uint8_t st[BURST];
	unsigned lc = rte_lcore_id();
	const struct ct_nat_spec *nat = a->mode == ATT_NAT ? &a->nat : NULL;
	uint64_t start = rte_rdtsc(), run0, wait0;

	a->pkts = a->with_conn = a->refused = a->other = 0;
	sched_ns(&run0, &wait0);
	rte_rcu_qsbr_thread_online(a->qsbr, lc);
	while (!*a->stop) {
		for (int j = 0; j < BURST; j++) {
			if (a->mode == ATT_COLL) {
				hb_build_key(a->pk[j], &a->mt[j],
					     coll_next(&a->coll), false);
				continue;
			}
			/* (b): one destination, so every new session
			 * wants a port of the one NAT range (its reply
			 * tuple is unique per destination address and
			 * port); after 64,000 source ports, again */
			uint64_t s = a->seq++;
			struct hb_pkt p = {
				.src = ATTACKER_IP,
				.dst = IP4(11, 0, 0, 0) +
				       (a->mode == ATT_NAT ? 0
					: (uint32_t)(s / 64000)),
				.sport = (uint16_t)(1024 + s % 64000),
				.dport = 53, .proto = IPPROTO_UDP,
			};
			hb_build(a->pk[j], &a->mt[j], &p);
		}
		a->pkts += BURST;
		if (a->mode == ATT_SPIN)
			continue;
		conntrack_execute(a->ct, a->pk, a->mt, BURST, ZONE_ATTACKER,
				  true, nat, rte_rdtsc(), st, ref);
		for (int j = 0; j < BURST; j++) {
			if (!(st[j] & CS_NEW))
				a->other++;
			else if (ref[j].conn)
				a->with_conn++;
			else
				a->refused++;
		}
		rte_rcu_qsbr_quiescent(a->qsbr, lc);
	}
	a->wall = rte_rdtsc() - start;
	rte_rcu_qsbr_thread_offline(a->qsbr, lc);
	sched_ns(&a->run_ns, &a->wait_ns);
	a->run_ns -= run0;
	a->wait_ns -= wait0;
	return 0;
}
