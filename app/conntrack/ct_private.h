/* SPDX-License-Identifier: BSD-3-Clause
 * Inside the connection tracker: the session, the table, and what the
 * files of app/conntrack/ call of each other (one job per file: ct_table
 * the table and the execute path, ct_tcp the TCP state machine, ct_other
 * UDP/ICMP/other, ct_nat NAT, ct_expiry the sweeper/flush/RCU, ct_dump the
 * dump, counters, limits and policies).
 */
#ifndef VXS_CT_PRIVATE_H
#define VXS_CT_PRIVATE_H

#include <netinet/in.h>
#include <sys/queue.h>
#include <pthread.h>
#include <string.h>
#include <rte_hash.h>
#include <rte_mempool.h>
#include <rte_ring.h>
#include <rte_spinlock.h>
#include "conntrack.h"
#include "siphash.h"

/* The hash key: one direction of a session. 16 bytes, no holes. An IPv6
 * key (v6 set) has in src:dst a 64-bit keyed digest of its source and
 * destination addresses (ct_key6_set_addrs): IPv4 keep their 16-byte
 * key, one table and every path built for it (session caches, lane,
 * sweeper), and an IPv6 session costs no more memory; the session keeps
 * the addresses (ct_conn.ip6) and a hit on an IPv6 key compares them
 * (ct_conn_v6_matches), so even a digest collision, which nobody can aim
 * at without the digest's secret key, never joins two flows. */
struct ct_key {
	rte_be32_t src;
	rte_be32_t dst;
	rte_be16_t sport;	/* ICMP: the echo id */
	rte_be16_t dport;	/* ICMP: the type (code 0) */
	uint16_t zone;
	uint8_t proto;
	uint8_t v6;		/* 1: an IPv6 key */
};

/* The addresses an IPv6 key was made of, in its direction. */
struct ct_addr6 {
	uint8_t src[16];
	uint8_t dst[16];
};
_Static_assert(sizeof(struct ct_key) == 16, "ct_key is 16 bytes");

/* The hash of a key, for the table, the session caches and the NAT port
 * search: SipHash-1-3 under a random key drawn once per process
 * (conntrack_create), so no tenant can choose keys that collide
 * (siphash.h says why CRC32c, seeded or not, could not do that). */
extern struct siphash_key ct_hash_key;
/* The IPv6 address pairs' digest (ct_v6.c): a secret of its own. */
extern struct siphash_key ct_addr6_key;

static inline uint32_t
ct_key_hash(const struct ct_key *k)
{
	uint64_t w[2];

	memcpy(w, k, sizeof w);
	return siphash13_16_u32(&ct_hash_key, w[0], w[1]);
}

/* Recently exhausted NAT ranges remembered (ct_nat.c). */
#define CT_NAT_EXHAUSTED_SLOTS 64

/* Timeout classes (OVS's CT_TM_*); each maps to a policy attribute. */
enum ct_tm {
	CT_TM_TCP_FIRST_PACKET,
	CT_TM_TCP_OPENING,
	CT_TM_TCP_ESTABLISHED,
	CT_TM_TCP_CLOSING,
	CT_TM_TCP_FIN_WAIT,
	CT_TM_TCP_CLOSED,
	CT_TM_OTHER_FIRST,
	CT_TM_OTHER_MULTIPLE,
	CT_TM_OTHER_BIDIR,
	CT_TM_ICMP_FIRST,
	CT_TM_ICMP_REPLY,
	CT_TM_N
};
extern const uint8_t ct_tm_attr[CT_TM_N];

struct ct_tcp_peer {
	uint32_t seqlo;		/* max sequence number sent */
	uint32_t seqhi;		/* max the other end acked + its window */
	uint16_t max_win;	/* largest window seen, unscaled */
	uint8_t wscale;		/* CT_WSCALE_* flags | factor */
	uint8_t state;		/* enum ct_tcp_state */
};

enum ct_other_state { CT_OTHER_FIRST, CT_OTHER_MULTIPLE, CT_OTHER_BIDIR };

/* VALID_NEW: valid, but no reply seen yet (a retransmitted SYN or first
 * datagram): the packet stays +new, as in OVS 3.x and Linux. */
enum ct_update {
	CT_UPDATE_VALID,
	CT_UPDATE_VALID_NEW,
	CT_UPDATE_INVALID,
	CT_UPDATE_NEW,
};

/* A session. key[0] is the original direction, key[1] the reply
 * direction as packets will carry it (after NAT). The established lane
 * (ct_est.h) reads the first line (keys, generation, expiration, UDP's
 * state) and, for TCP, the second (the peers, mark and label). */
struct ct_conn {
	struct ct_key key[2];
	rte_spinlock_t lock;	/* the protocol state, expiration, mark */
	uint8_t tm;		/* timeout class now (under lock) */
	uint8_t list_tm;	/* expiry list it is on (sweeper only) */
	uint8_t nat;		/* CS_SRC_NAT / CS_DST_NAT */
	uint8_t dead;		/* keys gone from the table (under lock;
				 * read without it by ct_cache.h) */
	uint8_t on_list;	/* sweeper only */
	uint8_t other;		/* UDP/ICMP/other: enum ct_other_state */
	uint8_t pad;
	uint32_t gen;		/* bumped when freed; survives reuse
				 * (ct_cache.h) */
	uint64_t expiration;	/* tsc; written under lock */
	uint32_t tcp_wseq;	/* p.tcp's seqlock: odd while a writer
				 * (under lock) changes the peers; the TCP
				 * lane reads them without the lock
				 * (ct_tcp_lane); survives reuse */
	uint32_t pad2;
	union {
		struct ct_tcp_peer tcp[2];	/* [0] original sender */
	} p;
	uint32_t mark;
	uint64_t label[2];
	uint64_t retire_token;	/* QSBR token when retired (sweeper) */
	int32_t pos[2];		/* key slots to free (set when removed) */
	TAILQ_ENTRY(ct_conn) exp; /* expiry list, then retire list */
	struct ct_addr6 ip6;	/* an IPv6 session's key[0] addresses */
	uint8_t nat6[16];	/* an IPv6 NATed session's translated
				 * address (the reply's destination for
				 * SNAT, its source for DNAT) */
} __rte_cache_aligned;
_Static_assert(sizeof(struct ct_conn) == 3 * 64,
	       "IPv6 addresses fit the session's third line");

_Static_assert(offsetof(struct ct_conn, expiration) + 8 <= 64 &&
	       offsetof(struct ct_conn, other) < 64 &&
	       offsetof(struct ct_conn, tcp_wseq) + 4 <= 64,
	       "the established lane reads the session's first line");
_Static_assert(offsetof(struct ct_conn, p) == 64 &&
	       offsetof(struct ct_conn, label) + 16 <= 128,
	       "the TCP lane reads the peers, mark and label in the second");

TAILQ_HEAD(ct_conn_list, ct_conn);

/* A hash entry's data: the session, its low bit the direction. */
#define CT_DIR_REPLY 1ul

struct ct_cache;

/* Counters written by PMDs: per-lcore, summed on read. */
struct ct_pmd_counters {
	uint64_t invalid;
	uint64_t refused_full;
	uint64_t refused_zone_limit;
	uint64_t refused_nat;
	uint64_t refused_collision;
	uint64_t lane;			/* packets the established lane took */
	uint64_t lane_tcp_locked;	/* of them, TCP segments that moved
					 * a window (under the lock) */
} __rte_cache_aligned;

struct conntrack {
	struct rte_hash *table;
	struct rte_mempool *pool;
	struct rte_ring *new_ring;	/* created sessions for the sweeper */
	struct rte_rcu_qsbr *qsbr;
	uint32_t pool_size;
	uint64_t tsc_hz;
	uint64_t refresh_slack_tsc;	/* ct_est.h: 1 ms */

	/* The table lock: creation and removal of keys, the counts below. */
	rte_spinlock_t lock;
	uint32_t max_conns;
	uint32_t n_conns;
	uint32_t default_zone_limit;
	uint64_t created;		/* under lock */
	uint64_t expired;		/* under lock */
	uint64_t flushed;		/* under lock */
	uint32_t *zone_limit;		/* [65536] */
	uint32_t *zone_count;		/* [65536], under lock */
	/* NAT ranges a pick found exhausted towards a peer lately, so the
	 * next new sessions like it are refused without the lock (ct_nat.c,
	 * ct_nat_exhausted); written under lock, read without */
	struct ct_nat_exhausted {
		uint64_t until;		/* TSC; 0: empty */
		uint64_t what;		/* ct_nat_exhausted_key() */
	} nat_exhausted[CT_NAT_EXHAUSTED_SLOTS];

	uint8_t *zone_policy;		/* [65536] */
	uint64_t tm_tsc[CT_MAX_POLICIES][CT_TM_N];
	uint32_t policy_secs[CT_MAX_POLICIES][CT_TP_N];

	struct ct_pmd_counters cnt[RTE_MAX_LCORE + 1];
	struct ct_cache *cache[RTE_MAX_LCORE];	/* EAL lcores' (ct_cache.h) */

	/* The sweeper's: expiry lists, cursors, the retire FIFO. */
	pthread_mutex_t sweep_mutex;
	struct ct_conn_list exp_list[CT_TM_N];
	struct ct_conn *cursor[CT_TM_N];
	uint32_t sweep_tm;
	struct ct_conn_list retired;
	uint32_t n_retired;
	char name[32];
};

#define CT_WSCALE_FLAG 0x80
#define CT_WSCALE_UNKNOWN 0x40
#define CT_WSCALE_MASK 0x0f

static inline struct ct_pmd_counters *
ct_counters(struct conntrack *ct)
{
	unsigned lc = rte_lcore_id();
	return &ct->cnt[lc < RTE_MAX_LCORE ? lc : RTE_MAX_LCORE];
}

/* The timeout of class tm for c: its zone's policy now (add-zone-tp,
 * del-zone-tp), not one remembered at creation, so a policy deleted
 * leaves its sessions on the defaults, as OVS (a deleted tp_id falls back
 * to the default), and a policy id used again for another zone never
 * hands them that zone's timeouts. */
static inline uint64_t
ct_conn_timeout_tsc(const struct conntrack *ct, const struct ct_conn *c,
		    enum ct_tm tm)
{
	uint8_t id = __atomic_load_n(&ct->zone_policy[c->key[0].zone],
				     __ATOMIC_RELAXED);
	return __atomic_load_n(&ct->tm_tsc[id][tm], __ATOMIC_RELAXED);
}

/* Sets the session's expiration for class tm; under conn->lock. */
static inline void
ct_conn_update_expiration(struct conntrack *ct, struct ct_conn *c,
			  enum ct_tm tm, uint64_t now)
{
	c->tm = tm;
	__atomic_store_n(&c->expiration, now + ct_conn_timeout_tsc(ct, c, tm),
			 __ATOMIC_RELAXED);
}

static inline bool
ct_conn_expired(const struct ct_conn *c, uint64_t now)
{
	return now >= __atomic_load_n(&c->expiration, __ATOMIC_RELAXED);
}

static inline void
ct_key_reverse(struct ct_key *r, const struct ct_key *k)
{
	r->src = k->dst;
	r->dst = k->src;
	r->sport = k->dport;
	r->dport = k->sport;
	r->zone = k->zone;
	r->proto = k->proto;
	r->v6 = 0;	/* an IPv6 key's reverse: ct_key6_reply */
}

/* ct_tcp.c */
bool ct_tcp_valid_new(const struct rte_mbuf *m, const struct ct_pkt_meta *mt);
void ct_tcp_new(struct conntrack *ct, struct ct_conn *c,
		const struct rte_mbuf *m, const struct ct_pkt_meta *mt,
		uint64_t now);
enum ct_update ct_tcp_update(struct conntrack *ct, struct ct_conn *c,
			     const struct rte_mbuf *m,
			     const struct ct_pkt_meta *mt, bool reply,
			     uint64_t now);
/* The established lane's TCP segment of session c (ct_tcp.c says which):
 * its ct_state, or 0 for the full path. l4_ofs, l4_len: its TCP header
 * and length (ct_l4_sane). */
uint8_t ct_tcp_lane(struct conntrack *ct, struct ct_conn *c, bool reply,
		    const struct rte_mbuf *m, uint16_t l4_ofs, uint16_t l4_len,
		    uint64_t now);
/* The single state dumps show for a TCP session (OVS's is the max). */
/* The one TCP state OVS prints without -m (dump-conntrack, ct-stats-show):
 * the greater peer's, FIN_WAIT_2 as TIME_WAIT and SYN_RECV as ESTABLISHED
 * (ct-dpif.c, coalesce_tcp_state: as the kernel's tracker names them). */
enum ct_tcp_state ct_tcp_coalesced(uint8_t orig, uint8_t reply);
enum ct_tcp_state ct_tcp_show_state(const struct ct_conn *c);
extern const char *const ct_tcp_state_names[CT_TCPS_N];

/* ct_other.c: keys, UDP/other and ICMP. */
/* Builds the lookup key of a packet. Returns false for a packet the
 * tracker cannot key (malformed, fragment): +inv. *related is set for an
 * ICMP error whose key is then the reversed inner tuple. */
/* The checks ct_key_extract makes of a UDP packet (IPv4 header checksum,
 * lengths, UDP checksum unless 0), for the keys the established lane
 * builds without it. */
/* The checks ct_key_extract() makes (OVS's), for the lane's UDP and TCP
 * packets, whose key comes from the flow key: true if sane; TCP's also
 * sets *l4_ofs and *l4_len (its lane reads the header). Two functions, not
 * one with the protocol as an argument: that cost UDP's lane 27
 * instructions a packet (callgrind). */
bool ct_udp_sane(const struct rte_mbuf *m, uint16_t l3_ofs);
bool ct_tcp_sane(const struct rte_mbuf *m, uint16_t l3_ofs, uint16_t *l4_ofs,
		 uint16_t *l4_len);

/* Either, by protocol. */
static inline bool
ct_l4_sane(const struct rte_mbuf *m, uint16_t l3_ofs, uint8_t proto,
	   uint16_t *l4_ofs, uint16_t *l4_len)
{
	return proto == IPPROTO_UDP ? ct_udp_sane(m, l3_ofs)
				    : ct_tcp_sane(m, l3_ofs, l4_ofs, l4_len);
}
bool ct_key_extract(const struct rte_mbuf *m, const struct ct_pkt_meta *mt,
		    uint16_t zone, struct ct_key *k, bool *related);
bool ct_key_reply(const struct ct_key *k, struct ct_key *r);
bool ct_other_valid_new(const struct ct_key *k);
void ct_other_new(struct conntrack *ct, struct ct_conn *c, uint64_t now);
enum ct_update ct_other_update(struct conntrack *ct, struct ct_conn *c,
			       bool reply, uint64_t now);

/* ct_v6.c: IPv6 keys. */
/* Walks the extension headers of the IPv6 header at ip6, of which end
 * bytes may be read, as OVS's parse_ipv6_ext_hdrs (at most 16 of them,
 * as the flow extract): *proto the first that is not one, *ofs where it
 * starts, *frag FLOW_NW_FRAG_* (an atomic Fragment header, offset 0 and
 * M clear, is walked past: not a fragment; a later fragment stops the
 * walk with *proto IPPROTO_FRAGMENT, *ofs past its Fragment header).
 * fh (NULL: not wanted): the offsets of the Fragment header that made
 * the packet a fragment (the last, as OVS) and of the next-header byte
 * naming it, set only when there is one. -1 if a header is cut short. */
int ct_ipv6_walk(const uint8_t *ip6, uint32_t end, uint8_t *proto,
		 uint8_t *frag, uint32_t *ofs, uint32_t fh[2]);
/* Sets k->src:dst to the digest of the pair (src, dst) and k->v6. */
void ct_key6_set_addrs(struct ct_key *k, const uint8_t src[16],
		       const uint8_t dst[16]);
/* ct_key_extract for an IPv6 packet (mt->is_ipv6); a6: the addresses
 * of the key it builds. */
bool ct_key_extract6(const struct rte_mbuf *m, const struct ct_pkt_meta *mt,
		     uint16_t zone, struct ct_key *k, struct ct_addr6 *a6,
		     bool *related);
/* The reply key of IPv6 key k made of a6 (ct_key_reply's). */
bool ct_key6_reply(const struct ct_key *k, const struct ct_addr6 *a6,
		   struct ct_key *r);
/* The addresses of IPv6 session c's packets in direction reply, as
 * its key of that direction has them (key[1]'s carry the NAT address). */
static inline void
ct_conn_addrs6(const struct ct_conn *c, bool reply, const uint8_t **s,
	       const uint8_t **d)
{
	*s = reply ? c->ip6.dst : c->ip6.src;
	*d = reply ? c->ip6.src : c->ip6.dst;
	if (reply && c->nat) {
		if (c->nat == CS_SRC_NAT)
			*d = c->nat6;
		else
			*s = c->nat6;
	}
}
/* Whether session c (IPv6) is the one of a packet whose key, made of a6,
 * found it in direction reply. */
static inline bool
ct_conn_v6_matches(const struct ct_conn *c, bool reply,
		   const struct ct_addr6 *a6)
{
	const uint8_t *s, *d;

	ct_conn_addrs6(c, reply, &s, &d);
	return !memcmp(s, a6->src, 16) && !memcmp(d, a6->dst, 16);
}
/* The established lane's key of an IPv6 packet from its flow key (UDP
 * or TCP, not a fragment), and its L4 checks (ct_l4_sane's for IPv6:
 * the extension headers walked, lengths, the checksum). */
bool ct_flow_est_key6(struct ct_key *k, const struct flow_key *f,
		      uint16_t zone);
bool ct_l4_sane6(const struct rte_mbuf *m, uint16_t l3_ofs, uint8_t proto,
		 uint16_t *l4_ofs, uint16_t *l4_len);
/* The one's-complement sum of m's L4 bytes (mt's) and its IPv6
 * pseudo-header: 0xffff when the checksum is right. */
uint16_t ct_l4_sum6(const struct rte_mbuf *m, const struct ct_pkt_meta *mt);
/* Walks the extension headers of the IPv6 packet at ip6 (len bytes of
 * it): its L4 protocol and offset; false if cut short or a fragment. */
bool ct_ip6_l4(const uint8_t *ip6, uint32_t len, uint8_t *proto,
	       uint32_t *ofs);
/* ICMPv6's query types, as ct_other.c's ICMP ones. */
bool ct_icmp6_is_query(uint8_t type);
/* ct_other.c: the ports of an L4 header (len bytes), or an ICMP (IPv4)
 * or ICMPv6 (v6) query's id (sport) and type (dport); false if cut short
 * or not a query. */
bool ct_l4_ports(const uint8_t *l4, uint32_t len, uint8_t proto, bool v6,
		 struct ct_key *k);
int ct_icmp6_reply_type(uint8_t type);

/* ct_nat.c */
/* Picks a free reply key for a new session under nat (table lock held);
 * false if none is free. */
bool ct_nat_pick(struct conntrack *ct, const struct ct_nat_spec *nat,
		 const struct ct_key *orig, struct ct_key *reply);
/* Whether a pick for nat and orig failed less than a millisecond ago
 * (read without the lock); ct_nat_pick records its failures. */
bool ct_nat_exhausted(const struct conntrack *ct,
		      const struct ct_nat_spec *nat, const struct ct_key *orig,
		      uint64_t now);
void ct_nat_exhausted_note(struct conntrack *ct,
			   const struct ct_nat_spec *nat,
			   const struct ct_key *orig, uint64_t now);
/* Rewrites packet m of session c travelling in direction reply (an IPv6
 * session's: ct_nat_packet6, and ct_nat_icmp_error6 for an error). */
void ct_nat_packet(const struct ct_conn *c, struct rte_mbuf *m,
		   const struct ct_pkt_meta *mt, bool reply);
/* An ICMP error related to a NATed session c, travelling in direction
 * reply: its outer address and the packet it quotes translated as OVS
 * 3.1's nat_packet(related) does, with the IPv4, quoted L4 and ICMP
 * checksums. */
void ct_nat_icmp_error(const struct ct_conn *c, struct rte_mbuf *m,
		       const struct ct_pkt_meta *mt, bool reply);
bool ct_table_has_key(struct conntrack *ct, const struct ct_key *k);
/* A free port in [pmin, pmax] for reply (through *port, a field of it),
 * from start on, OVS's schedule (table lock held). */
bool ct_nat_pick_port(struct conntrack *ct, struct ct_key *reply,
		      rte_be16_t *port, uint16_t pmin, uint16_t pmax,
		      uint32_t start);

/* ct_nat6.c: NAT66, as ct_nat.c's for IPv6 sessions. */
/* ct_nat_pick for IPv6 key orig made of a6: the reply key and, through
 * addr, the translated address. */
bool ct_nat_pick6(struct conntrack *ct, const struct ct_nat_spec *nat,
		  const struct ct_key *orig, const struct ct_addr6 *a6,
		  struct ct_key *reply, uint8_t addr[16]);
void ct_nat_packet6(const struct ct_conn *c, struct rte_mbuf *m,
		    const struct ct_pkt_meta *mt, bool reply);
void ct_nat_icmp_error6(const struct ct_conn *c, struct rte_mbuf *m,
			const struct ct_pkt_meta *mt, bool reply);
/* A packet NATed already in the zone (natted) whose flipped key, made of
 * a6, found IPv6 session c in direction reply: if a6 are that
 * direction's addresses, a6 become those of the other one, the
 * direction the packet is tracked in (else it is refused there). */
void ct_nat6_natted_addrs(const struct ct_conn *c, bool reply,
			  struct ct_addr6 *a6);
/* The reverse of IPv6 key k made of a6, both reversed in place (the
 * burst's key_flip for IPv6). */
void ct_key6_flip(struct ct_key *k, struct ct_addr6 *a6);

/* ct_expiry.c */
/* Removes c's keys (table lock held); the sweeper frees it later. False
 * if it was gone already. */
bool ct_conn_kill_locked(struct conntrack *ct, struct ct_conn *c);
void ct_expiry_init(struct conntrack *ct);
void ct_expiry_fini(struct conntrack *ct);

#endif
