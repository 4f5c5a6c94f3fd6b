/* SPDX-License-Identifier: BSD-3-Clause
 * What the files of ct_hostile share (ct_hostile.c: options, phases and
 * the report; ct_hostile_load.c: the victim's and the attacker's lcore
 * loops and their packets; ct_hostile_keys.c: keys that collide under
 * the old CRC32c table hash, and what they cost a table).
 */
#ifndef VXS_CT_HOSTILE_H
#define VXS_CT_HOSTILE_H

#include <stdbool.h>
#include <stdint.h>
#include <rte_rcu_qsbr.h>
#include "conntrack.h"
#include "ct_private.h"	/* struct ct_key (what the table hashes), the
			 * per-lcore refusal counters, the table */
#include "ctbench.h"	/* BURST, rnd_next, mbufs */

#define ZONE_VICTIM 1
#define ZONE_ATTACKER 2
#define ZONE_CONTROL 3	/* random keys beside the colliding ones */

/* host-order IPv4 addresses */
#define IP4(a, b, c, d) ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | \
			 (uint32_t)(c) << 8 | (uint32_t)(d))
#define VICTIM_IP	IP4(10, 1, 0, 2)	/* established sessions */
#define VICTIM_NEW_IP	IP4(10, 1, 0, 3)	/* its new connections */
#define ATTACKER_IP	IP4(10, 2, 0, 2)
#define NAT_IP		IP4(100, 64, 0, 1)

/* One packet's headers (host order). payload: bytes after the L4
 * header; l4_csum false: UDP checksum 0 (none), as a sender may. */
struct hb_pkt {
	uint32_t src, dst;
	uint16_t sport, dport;
	uint8_t proto;
	uint8_t tcp_flags;
	uint32_t seq, ack;
	uint16_t payload;
	bool l4_csum;
};

/* Writes the whole frame into m (Ethernet, IPv4, TCP/UDP, payload,
 * valid checksums) and fills mt as the datapath would. */
void hb_build(struct rte_mbuf *m, struct ct_pkt_meta *mt,
	      const struct hb_pkt *p);
/* The same from a tracker key (network order, as the table holds it). */
void hb_build_key(struct rte_mbuf *m, struct ct_pkt_meta *mt,
		  const struct ct_key *k, bool l4_csum);

/* Keys whose CRC32c (rte_hash_crc(key, 16, 0), the table's hash until
 * commit 8572e1c) is one value: a base key and the basis of the
 * subspace of differences that keep it (CRC is affine), over the fields
 * a VM chooses behind anti-spoofing (destination address, both ports);
 * key i is the base xor the basis vectors of gray(i). */
#define COLL_MAX_DIM 64
struct coll_gen {
	struct ct_key base;
	struct ct_key basis[COLL_MAX_DIM];
	unsigned dim;
	uint32_t crc;		/* every key's */
	uint64_t i;		/* next index */
	struct ct_key cur;	/* key i - 1 */
};
int coll_init(struct coll_gen *g, uint16_t zone, uint32_t src);
/* The next key (a Gray code: one basis vector per step). */
const struct ct_key *coll_next(struct coll_gen *g);

/* What the attacker lcore does in a phase. */
enum att_mode {
	ATT_IDLE,
	ATT_SPIN,	/* builds (a)'s packets, no tracker: the control */
	ATT_NEW,	/* (a) new UDP 5-tuples, commit */
	ATT_NAT,	/* (b) the same under nat(src=one address:ports) */
	ATT_COLL,	/* (c) keys colliding under CRC32c, commit */
};

/* Refusals as the tracker counts them, one lcore's. */
struct refusals {
	uint64_t zone, full, nat, collision;
};
void refusals_of(struct conntrack *ct, unsigned lcore, struct refusals *r);
void refusals_sub(struct refusals *d, const struct refusals *a,
		  const struct refusals *b);

/* This thread's time on a CPU and waiting for one, ns (schedstat). */
void sched_ns(uint64_t *run, uint64_t *wait);

#define LAT_MAX 65536	/* new connections timed per phase */
/* The victim's bursts by cycles in conntrack_execute, HIST_STEP wide
 * bins (the last one: that much or more): medians that a preempted
 * burst does not move, on a shared host. */
#define HIST_STEP 4
#define HIST_N 16384

struct tcp_sess {
	uint32_t cseq, sseq;	/* next sequence number of each side */
};

struct victim {
	struct conntrack *ct;
	struct rte_rcu_qsbr *qsbr;
	uint32_t n_udp, n_tcp;
	struct rte_mbuf **udp;		/* [2 * n_udp]: orig, reply */
	struct ct_pkt_meta *udp_mt;
	struct tcp_sess *tcp;
	struct rte_mbuf *pk[BURST];	/* the TCP bursts' */
	struct ct_pkt_meta mt[BURST];
	struct rte_mbuf *nc;		/* new connections' */
	uint64_t new_period;		/* TSC between new connections */
	uint64_t rng;
	uint32_t new_seq;		/* new connections opened, ever */
	/* one phase's */
	uint64_t pkts, cycles, bad, wall;
	uint64_t pkts_tcp, cycles_tcp;
	uint64_t new_tried, new_ok, new_refused, new_bad;
	uint64_t new_wall;		/* TSC in victim_new_conn */
	uint64_t run_ns, wait_ns;	/* on a CPU, runnable but not */
	uint32_t n_lat;
	uint32_t lat[LAT_MAX];		/* cycles in the tracker, each */
	uint32_t hist[2][HIST_N];	/* [0] UDP bursts, [1] TCP */
};
/* The median cycles per packet of the bursts in hist (both kinds when
 * kind < 0). */
double victim_median_cyc(const struct victim *v, int kind);

struct attacker {
	struct conntrack *ct;
	struct rte_rcu_qsbr *qsbr;
	enum att_mode mode;
	struct ct_nat_spec nat;
	struct coll_gen coll;
	uint64_t seq;			/* new tuples, ever */
	struct rte_mbuf *pk[BURST];
	struct ct_pkt_meta mt[BURST];
	volatile bool *stop;
	/* one phase's */
	uint64_t pkts, wall;
	uint64_t with_conn;	/* +new with a session (created, or the
				 * first direction of one again) */
	uint64_t refused;	/* +new, commit refused */
	uint64_t other;		/* not +new */
	uint64_t run_ns, wait_ns;
};

int victim_init(struct victim *v, struct conntrack *ct,
		struct rte_rcu_qsbr *qsbr, uint32_t n_udp, uint32_t n_tcp,
		double new_us);
/* The handshakes of every established session; returns the sessions
 * that did not come out established. */
uint64_t victim_establish(struct victim *v);
/* Runs for `seconds`, then sets *stop. */
void victim_run(struct victim *v, double seconds, volatile bool *stop);
int attacker_init(struct attacker *a, struct conntrack *ct,
		  struct rte_rcu_qsbr *qsbr, uint16_t nat_ports);
int attacker_main(void *arg);	/* the attacker lcore's */
/* Removes the victim's new connections (their own source address). */
uint32_t victim_flush_new(struct conntrack *ct);

/* ct_hostile_keys.c: the lookup cost of n colliding keys against n
 * random ones, in the tracker's table (SipHash) and in a table hashed
 * as the old one was (CRC32c); printed. */
int coll_report(struct conntrack *ct, uint32_t n_ct, uint32_t n_crc,
		double hz);

#endif
