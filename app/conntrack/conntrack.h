/* SPDX-License-Identifier: BSD-3-Clause
 * The connection tracker: the contract of app/conntrack/.
 *
 * Sessions keyed by zone + 5-tuple, IPv4 or IPv6 (an IPv6 key carries a
 * keyed digest of its address pair, ct_v6.c; the session keeps the
 * addresses and every hit compares them). One session has two keys, the
 * original direction and the reply direction (after NAT), both in one
 * rte_hash with lock-free readers, so a packet of either direction finds
 * it from any PMD. The protocol state of a session sits under its own
 * spinlock (OVS's conn->lock); creation and removal of keys are
 * serialised by one table lock (OVS's ct_lock), which a PMD takes only
 * to create a session. Sessions come from a hugepage mempool sized by
 * max_conns and go back to it through the PMDs' QSBR variable, so a PMD
 * never reads a freed session.
 *
 * Behaviour follows OVS's userspace conntrack (lib/conntrack.c,
 * conntrack-tcp.c, conntrack-other.c, conntrack-icmp.c, conntrack-tp.c):
 * TCP window tracking, UDP/other first/multiple/bidir, ICMP echo by id,
 * ICMP errors related to a session, per-state timeouts with OVS's
 * defaults and per-zone timeout policies, per-zone and global limits,
 * NAT of the source or destination address and port (IPv4, and IPv6
 * as OVS 3.1's NAT66: ct_nat6.c). Fragments of
 * either family are tracked as their datagram, reassembled by the
 * fragment store (ct_ipf.h); one it refused is +inv.
 *
 * Threads: conntrack_execute*() from any number of PMDs (each one
 * registered with the QSBR variable given at creation and reporting
 * quiescent states, as the datapath does already). conntrack_sweep(),
 * conntrack_flush*(), conntrack_dump*() and the configuration setters
 * from one control thread (or the ct thread); they never hold a lock a
 * PMD needs for more than a few sessions' work. Every calling thread
 * must have an lcore id (an EAL lcore, or rte_thread_register()): the
 * table's multi-writer slot caches and the PMD counters are per lcore.
 * EAL lcores enabled at creation also get a session cache (ct_cache.h):
 * a thread registered later works, through the table alone.
 */
#ifndef VXS_CONNTRACK_H
#define VXS_CONNTRACK_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <errno.h>
#include <string.h>
#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_rcu_qsbr.h>
#include "flow_key.h"

struct conntrack;
struct ct_conn;

/* OVS's default for ct-max-conns (other_config:... / ct-set-maxconns). */
#define CT_DEFAULT_MAX_CONNS 3000000u

/* ct_state bits, OVS's CS_* values (ovs-fields(7)). */
#define CS_NEW          0x01
#define CS_ESTABLISHED  0x02
#define CS_RELATED      0x04
#define CS_REPLY_DIR    0x08
#define CS_INVALID      0x10
#define CS_TRACKED      0x20
#define CS_SRC_NAT      0x40
#define CS_DST_NAT      0x80

/* What the datapath already knows of a packet, so the tracker does not
 * parse it again: the 5-tuple as in its flow_key (network byte order;
 * for ICMP tp_src is the type and tp_dst the code) and where the IP and
 * L4 headers start in the mbuf's first segment. An IPv6 packet's
 * addresses are read from its header (l3_ofs), nw_src/nw_dst are 0. */
struct ct_pkt_meta {
	rte_be32_t nw_src;
	rte_be32_t nw_dst;
	rte_be16_t tp_src;
	rte_be16_t tp_dst;
	uint8_t nw_proto;
	uint8_t nw_frag;	/* FLOW_NW_FRAG_* bits */
	uint16_t l3_ofs;	/* IP header, from the mbuf's data start */
	uint16_t l4_ofs;	/* L4 header (IPv6: past the extension
				 * headers) */
	uint16_t l4_len;	/* bytes from l4_ofs to the end of the IP
				 * payload (IP total length - header) */
	uint8_t is_ipv4;	/* neither: not IP (not tracked: +trk+inv) */
	uint8_t is_ipv6;
	uint8_t natted;		/* NATed by an earlier ct() of the same
				 * zone (its ct_state has +snat/+dnat):
				 * looked up by its reverse tuple, as
				 * OVS's initial_conn_lookup; not NATed
				 * twice */
};

/* Sets meta's L3/L4 offsets and length from the IPv4 header at l3_ofs.
 * Returns 0, or -EINVAL (not a whole IPv4 header; meta unchanged). */
static inline int
ct_pkt_meta_l4(struct ct_pkt_meta *mt, const struct rte_mbuf *m,
	       uint16_t l3_ofs)
{
	if ((uint32_t)l3_ofs + sizeof(struct rte_ipv4_hdr) > m->data_len)
		return -EINVAL;
	const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m,
				const struct rte_ipv4_hdr *, l3_ofs);
	uint32_t ihl = (ip->version_ihl & 0x0f) * 4u;
	uint32_t tot = rte_be_to_cpu_16(ip->total_length);
	if ((ip->version_ihl >> 4) != 4 || ihl < sizeof *ip || tot < ihl)
		return -EINVAL;
	mt->l3_ofs = l3_ofs;
	mt->l4_ofs = (uint16_t)(l3_ofs + ihl);
	mt->l4_len = (uint16_t)(tot - ihl);
	mt->is_ipv4 = 1;
	return 0;
}

/* Sets meta's L3/L4 offsets, length, protocol and fragment bits from the
 * IPv6 header at l3_ofs, its extension headers walked as OVS's
 * parse_ipv6_ext_hdrs() (ct_v6.c). Returns 0, or -EINVAL (cut short, not
 * in the first segment: meta says neither family). */
int ct_pkt_meta_l4_ipv6(struct ct_pkt_meta *mt, const struct rte_mbuf *m,
			uint16_t l3_ofs);

/* Fills meta from the datapath's flow_key of m (extracted already) and the
 * offset of its IP header. Returns 0, or -EINVAL (meta says not IP).
 * Inline: the datapath calls it for every packet an sg()/ct() meets. */
static inline int
ct_pkt_meta_from_flow(struct ct_pkt_meta *mt, const struct flow_key *key,
		      const struct rte_mbuf *m, uint16_t l3_ofs)
{
	memset(mt, 0, sizeof *mt);
	if (key->dl_type != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4)) {
		if (key->dl_type != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6) ||
		    ct_pkt_meta_l4_ipv6(mt, m, l3_ofs) < 0)
			return -EINVAL;
		mt->tp_src = key->tp_src;
		mt->tp_dst = key->tp_dst;
		return 0;
	}
	mt->nw_src = key->nw_src;
	mt->nw_dst = key->nw_dst;
	mt->tp_src = key->tp_src;
	mt->tp_dst = key->tp_dst;
	mt->nw_proto = key->nw_proto;
	mt->nw_frag = key->nw_frag;
	return ct_pkt_meta_l4(mt, m, l3_ofs);
}

/* Parses Ethernet (one optional VLAN tag) + IPv4 from m: for tests, the
 * benchmark and callers without a flow_key. Returns 0 or -EINVAL. */
int ct_pkt_meta_parse(const struct rte_mbuf *m, struct ct_pkt_meta *meta);

/* nat(src=IP[-IP][:port[-port]]) or nat(dst=...); addresses and ports in
 * host order; max 0 means "same as min"; ports 0 means "keep the port
 * unless it must change" (OVS: only the address). An IPv6 range: ip6[0]
 * its first address, ip6[1] its last (network order; ip_min and ip_max
 * 0), for IPv6 sessions only; ip6 NULL or its last address :: (never
 * one: the range would be ::-::), none. An IPv4 range serves IPv4
 * sessions only (OVS's ofpact check refuses the others). */
struct ct_nat_spec {
	bool snat;		/* else dnat */
	uint32_t ip_min, ip_max;
	uint16_t port_min, port_max;
	const uint8_t (*ip6)[16];	/* [2]; NULL or last :: : none */
};

/* Whether nat gives a new session a translation (a range), for a
 * session of family v6: an IPv6 range's last address is never ::. */
static inline bool
ct_nat_spec_ranged(const struct ct_nat_spec *nat, bool v6)
{
	static const uint8_t any[16];

	if (!v6)
		return nat->ip_min != 0;
	return nat->ip6 && memcmp(nat->ip6[1], any, sizeof any);
}

/* What a tracked packet learns about its session (OVS's ct_mark,
 * ct_label, ct_zone). conn is valid until the caller's next quiescent
 * state. */
struct ct_conn_ref {
	struct ct_conn *conn;	/* NULL: no committed session */
	uint32_t mark;
	uint16_t zone;
	uint8_t reply;		/* packet is in the reply direction */
	uint64_t label[2];	/* [0] low 64 bits, [1] high */
};

/* Timeout policy attributes, in seconds: OVS's ct timeout policy
 * (ct-dpif.h CT_DPIF_TP_ATTR_*), same names, same defaults. UDP values
 * apply to every protocol other than TCP and ICMP, as in OVS. */
enum ct_tp_attr {
	CT_TP_TCP_SYN_SENT,	/* 30 */
	CT_TP_TCP_SYN_RECV,	/* 30 */
	CT_TP_TCP_ESTABLISHED,	/* 86400 */
	CT_TP_TCP_FIN_WAIT,	/* 900 */
	CT_TP_TCP_TIME_WAIT,	/* 45 */
	CT_TP_TCP_CLOSE,	/* 30 */
	CT_TP_UDP_FIRST,	/* 60 */
	CT_TP_UDP_SINGLE,	/* 60 */
	CT_TP_UDP_MULTIPLE,	/* 30 */
	CT_TP_ICMP_FIRST,	/* 60 */
	CT_TP_ICMP_REPLY,	/* 30 */
	CT_TP_N
};
extern const char *const ct_tp_attr_names[CT_TP_N];
extern const uint32_t ct_tp_defaults[CT_TP_N];

#define CT_MAX_POLICIES 16	/* policy 0 is the default one */

struct ct_params {
	uint32_t max_conns;	/* 0: CT_DEFAULT_MAX_CONNS */
	struct rte_rcu_qsbr *qsbr; /* the PMDs'; NULL: single-threaded use */
	int socket_id;
	uint64_t tsc_hz;	/* 0: rte_get_tsc_hz() */
	const char *name;	/* unique among trackers; NULL: "ct" */
};

struct conntrack *conntrack_create(const struct ct_params *p);
void conntrack_destroy(struct conntrack *ct);

/* Tracks n packets of one ct() / sg() action: zone, commit and nat are
 * the action's. For each packet writes ct_state_out[i] (CS_* bits, always
 * with CS_TRACKED) and, if out is not NULL, out[i]. With commit, a new
 * valid packet creates a session (refused and counted past a limit: the
 * packet stays +trk+new, as in OVS); with nat, new sessions get a
 * translated reply tuple and packets of NATed sessions are rewritten
 * (both directions), L3/L4 checksums updated. now_tsc: rte_rdtsc() of the
 * burst. */
void conntrack_execute(struct conntrack *ct, struct rte_mbuf **pkts,
		       const struct ct_pkt_meta *meta, uint16_t n,
		       uint16_t zone, bool commit,
		       const struct ct_nat_spec *nat, uint64_t now_tsc,
		       uint8_t *ct_state_out, struct ct_conn_ref *out);

/* The same for packets of several sg() actions at once (a whole burst's,
 * one bulk lookup): packet i in zones[i], committing if bit i of
 * commits[] is set (commits[i / 64] >> i % 64), NATed as nats[i] says
 * (nats NULL, or nats[i] NULL: no NAT); no ct_conn_ref. Within one call
 * (as within conntrack_execute), a packet finds the session an earlier
 * packet of the call created. */
void conntrack_execute_mixed(struct conntrack *ct, struct rte_mbuf **pkts,
			     const struct ct_pkt_meta *meta, uint16_t n,
			     const uint16_t zones[], const uint64_t commits[],
			     const struct ct_nat_spec *const nats[],
			     uint64_t now_tsc, uint8_t *ct_state_out);

/* What sg() gives for each of its packets (dp_sg_stage/dp_sg_filter),
 * instead of a ct_pkt_meta: the packet's flow key, extracted already,
 * with the packet at its Ethernet header (one VLAN tag at most, as the
 * key says). The tracker builds the meta itself, and only for the
 * packets its established lane (ct_est.h) does not take: a packet of a
 * live UDP session needs nothing but its key. Otherwise as
 * conntrack_execute_mixed, which zones/commits/nats follow; zones NULL:
 * all in zone, committing if commit, NATed as nat. */
struct ct_flow_call {
	uint16_t zone;
	bool commit;
	const struct ct_nat_spec *nat;
	const uint16_t *zones;
	const uint64_t *commits;
	const struct ct_nat_spec *const *nats;
	/* NULL, or set here: bit i (refused[i / 64] >> i % 64) when packet
	 * i was to be committed and no session could be created (the table
	 * or its zone full, its NAT range exhausted: ct_stats counts which);
	 * the caller clears it. sg(allow) drops such packets, where ct()
	 * lets them go on +new, as OVS does. */
	uint64_t *refused;
};

void conntrack_execute_flows(struct conntrack *ct, struct rte_mbuf **pkts,
			     const struct flow_key *const keys[], uint16_t n,
			     const struct ct_flow_call *call,
			     uint64_t now_tsc, uint8_t *ct_state_out);

/* One packet; returns its ct_state. */
uint8_t conntrack_execute_one(struct conntrack *ct, struct rte_mbuf *m,
			      const struct ct_pkt_meta *meta, uint16_t zone,
			      bool commit, const struct ct_nat_spec *nat,
			      uint64_t now_tsc, struct ct_conn_ref *out);

/* ct(commit, exec(set_field:V/M->ct_mark / ct_label)) on a session a
 * packet was just tracked to. */
void ct_conn_set_mark(struct ct_conn *conn, uint32_t value, uint32_t mask);
void ct_conn_set_label(struct ct_conn *conn, const uint64_t value[2],
		       const uint64_t mask[2]);

/* The sweeper: reclaims sessions past their grace period, then visits at
 * most budget sessions of the expiry lists (resuming where it stopped),
 * removing the expired ones. Returns how many sessions it removed. Call it
 * every few milliseconds from one thread. */
uint32_t conntrack_sweep(struct conntrack *ct, uint64_t now_tsc,
			 uint32_t budget);

/* Flushes: every session; those of one zone; the one whose original or
 * reply key is (zone, tuple) (ICMP: sport the id, dport the type of the
 * tuple's packets, as OVS's tuple_to_conn_key: 8 finds an echo request's
 * session by its original tuple, 0 by its reply tuple). Return how many
 * sessions were removed. */
uint32_t conntrack_flush(struct conntrack *ct);
uint32_t conntrack_flush_zone(struct conntrack *ct, uint16_t zone);
struct ct_tuple {
	rte_be32_t src, dst;
	rte_be16_t sport, dport;	/* ICMP: sport is the echo id */
	uint8_t proto;
	uint8_t v6;			/* IPv6: src6 and dst6, not src, dst */
	uint8_t src6[16], dst6[16];
};
uint32_t conntrack_flush_tuple(struct conntrack *ct, uint16_t zone,
			       const struct ct_tuple *t);

/* dpctl/flush-conntrack's match, as OVS 3.1's ofp_ct_match and
 * ct_dpif_entry_cmp: the zone (or any), the protocol (0: any), and each
 * of the original and reply tuples (as dump-conntrack prints them)
 * compared on the fields given with a value other than 0 only; with
 * proto ICMP, the id, type and code of both tuples compared always (0
 * when not given: so in 3.1 a tuple with an echo id never matches the
 * reply tuple, left 0, and nothing is flushed). */
enum {
	CT_FM_SRC = 1, CT_FM_DST = 2, CT_FM_SPORT = 4, CT_FM_DPORT = 8,
	CT_FM_CODE = 16,	/* an ICMP code other than 0: matches none */
};
struct ct_flush_match {
	int32_t zone;			/* -1: any */
	uint8_t proto;			/* 0: any */
	uint8_t family;			/* 4 or 6 (an address given): only
					 * that family's; 0: any */
	struct ct_flush_tuple {
		uint8_t set;		/* CT_FM_* of the fields given */
		rte_be32_t src, dst;
		uint8_t src6[16], dst6[16];	/* family 6's */
		rte_be16_t sport, dport;	/* ICMP: id, type */
	} tuple[2];			/* [0] orig=, [1] reply= */
};
uint32_t conntrack_flush_match(struct conntrack *ct,
			       const struct ct_flush_match *m);

/* Limits. max_conns above the mempool's size is refused (-ERANGE). A zone
 * limit of 0 means "the default zone limit"; the default zone limit of 0
 * means unlimited (ovs-appctl dpctl/ct-set-limits). */
int conntrack_set_maxconns(struct conntrack *ct, uint32_t max_conns);
uint32_t conntrack_get_maxconns(const struct conntrack *ct);
uint32_t conntrack_get_nconns(const struct conntrack *ct);
void conntrack_set_zone_limit(struct conntrack *ct, uint16_t zone,
			      uint32_t limit);
void conntrack_set_default_zone_limit(struct conntrack *ct, uint32_t limit);
uint32_t conntrack_get_zone_limit(const struct conntrack *ct, uint16_t zone);
uint32_t conntrack_get_zone_count(const struct conntrack *ct, uint16_t zone);

/* Timeout policies: set policy id (1..CT_MAX_POLICIES-1; 0 is the
 * default one and may be changed too) to secs (every attribute), and use
 * it for the sessions created in zone from now on. A changed policy
 * applies to each session from its next packet on, as in OVS. */
int conntrack_set_timeout_policy(struct conntrack *ct, uint32_t id,
				 const uint32_t secs[CT_TP_N]);
int conntrack_set_zone_policy(struct conntrack *ct, uint16_t zone,
			      uint32_t id);

/* Counters (dpctl/ct-stats-show and telemetry). */
enum ct_tcp_state {	/* OVS's CT_DPIF_TCPS_*, for protoinfo=(state=) */
	CT_TCPS_CLOSED,
	CT_TCPS_LISTEN,
	CT_TCPS_SYN_SENT,
	CT_TCPS_SYN_RECV,
	CT_TCPS_ESTABLISHED,
	CT_TCPS_CLOSE_WAIT,
	CT_TCPS_FIN_WAIT_1,
	CT_TCPS_CLOSING,
	CT_TCPS_LAST_ACK,
	CT_TCPS_FIN_WAIT_2,
	CT_TCPS_TIME_WAIT,
	CT_TCPS_N
};
struct ct_stats {
	uint64_t created;
	uint64_t expired;
	uint64_t flushed;
	uint64_t refused_full;		/* global limit or mempool empty */
	uint64_t refused_zone_limit;
	uint64_t refused_nat;		/* no free NAT tuple */
	uint64_t refused_collision;	/* reply key taken by another */
	uint64_t invalid;		/* packets marked +inv */
	uint64_t lane;			/* packets the established lane
					 * took (ct_est.h) */
	uint64_t lane_tcp_locked;	/* of them, TCP segments that moved
					 * a window, under the lock */
	uint64_t n_conns;
	uint64_t n_tcp, n_udp, n_icmp, n_icmp6, n_other;
	uint64_t tcp_state[CT_TCPS_N];	/* by the one state dumps print */
};
void conntrack_get_stats(struct conntrack *ct, struct ct_stats *s);
/* ovs-appctl dpctl/ct-stats-show's text (verbose: -m, then vxswitch's own
 * counters). */
void conntrack_stats_print(struct conntrack *ct, FILE *f, bool verbose);

/* dpctl/dump-conntrack: one line per session, in OVS's format, e.g.
 * tcp,orig=(src=10.0.0.1,dst=10.0.0.2,sport=1234,dport=80),reply=(src=
 * 10.0.0.2,dst=10.0.0.1,sport=80,dport=1234),zone=10,protoinfo=(state=
 * ESTABLISHED). The iterator visits the sessions of one zone (zone >= 0)
 * or all (-1), in chunks, so a dump of a million sessions never holds
 * the sweeper lock long. Same thread as conntrack_sweep(). */
struct ct_dump_ctx {
	int32_t zone;
	uint32_t pos;		/* rte_hash_iterate position */
	bool verbose;		/* -m: OVS's id=, status= and both TCP
				 * peers' states, window scales and flags
				 * (false at conntrack_dump_start) */
	bool stats;		/* -s: OVS's timeout= (seconds left; the
				 * userspace tracker keeps no per-session
				 * counters or timestamps, so OVS prints
				 * none; false at conntrack_dump_start) */
};
void conntrack_dump_start(struct conntrack *ct, struct ct_dump_ctx *ctx,
			  int32_t zone);
/* Writes the next session's line (no newline) into buf; returns its
 * length, 0 at the end. */
int conntrack_dump_next(struct conntrack *ct, struct ct_dump_ctx *ctx,
			char *buf, size_t size);

#endif
