/* SPDX-License-Identifier: BSD-3-Clause
 * The established lane: a packet of an established session found in the
 * lcore's session cache, not NATed, that nearly every packet a security
 * group sees on a busy port is. It skips the key extraction, the table
 * probe and the call chain of the full path
 * (perf/results/dpbench-sg-lane.txt, perf/results/ctbench-tcp-lane.txt).
 *
 * IPv4, and IPv6 from sg()'s flow keys (ct_bulk.c: the key made by
 * ct_flow_est_key6, the session's addresses compared before the lane
 * takes the packet, ct_l4_sane6's checks).
 *
 * UDP: a session that has seen both directions (OVS's OTHERS_BIDIR).
 * Nothing in it needs the session's lock: the protocol state cannot
 * change any more (bidir is final), and all the packet does is push the
 * expiration forward, which Linux's nf_ct_refresh also does without a
 * lock.
 *
 * TCP: both ends ESTABLISHED, a segment with ACK and no flag that can
 * change a state: ct_tcp_lane() (ct_tcp.c) checks its windows exactly as
 * the full path, without the lock when the segment moves no window, under
 * it when it does.
 *
 * The expiration is written only when it moves by more than
 * refresh_slack_tsc (1 ms): the two directions of a session may be on
 * two PMDs, and a store a packet would bounce the session's cache line
 * between them. A session may expire up to that much early; a timeout is
 * seconds at least.
 *
 * Racing with the sweeper is harmless: a session it kills after the
 * lane's check carried this packet as it would have under the lock (the
 * lock orders the two, it does not prevent it), and a store to a dead
 * session's expiration is never read (its keys are gone; it is freed
 * after a grace period, and ct_cache.h's generation check covers reuse).
 */
#ifndef VXS_CT_EST_H
#define VXS_CT_EST_H

#include <rte_tcp.h>
#include <rte_udp.h>
#include "ct_cache.h"

/* A lane session key (UDP or TCP), both ways the lane builds one. */
static __rte_always_inline void
ct_est_l4_key(struct ct_key *k, rte_be32_t src, rte_be32_t dst,
	      rte_be16_t sport, rte_be16_t dport, uint16_t zone, uint8_t proto)
{
	k->src = src;
	k->dst = dst;
	k->sport = sport;
	k->dport = dport;
	k->zone = zone;
	k->proto = proto;
	k->v6 = 0;
}

/* Whether the lane may take packets of IP protocol proto. */
static __rte_always_inline bool
ct_est_proto(uint8_t proto)
{
	return proto == IPPROTO_UDP || proto == IPPROTO_TCP;
}

/* The key of a UDP or TCP packet straight from its meta (the datapath's
 * flow key): false if it is not one the lane may take (another protocol,
 * a fragment, NATed already in this zone, or an L4 header cut short,
 * which the full path finds +inv). */
static __rte_always_inline bool
ct_est_key(struct ct_key *k, const struct ct_pkt_meta *mt,
	   const struct rte_mbuf *m, uint16_t zone)
{
	uint32_t hdr = mt->nw_proto == IPPROTO_TCP ?
		       sizeof(struct rte_tcp_hdr) : sizeof(struct rte_udp_hdr);

	if (!ct_est_proto(mt->nw_proto) || !mt->is_ipv4 || mt->nw_frag ||
	    mt->natted || mt->l4_len < hdr ||
	    (uint32_t)mt->l4_ofs + hdr > m->data_len)
		return false;
	ct_est_l4_key(k, mt->nw_src, mt->nw_dst, mt->tp_src, mt->tp_dst,
		      zone, mt->nw_proto);
	return true;
}

/* The packet's ct_state if the lane takes it (its expiration pushed
 * forward, *out filled when given), else 0: the full path takes it.
 * data: what the lcore's cache holds for the packet's key k; m, l4_ofs,
 * l4_len: the packet and its L4 header (ct_l4_sane). */
static __rte_always_inline uint8_t
ct_est_lane(struct conntrack *ct, void *data, const struct ct_key *k,
	    const struct rte_mbuf *m, uint16_t l4_ofs, uint16_t l4_len,
	    uint64_t now, struct ct_conn_ref *out)
{
	uintptr_t d = (uintptr_t)data;
	struct ct_conn *c = (struct ct_conn *)(d & ~CT_DIR_REPLY);
	bool reply = d & CT_DIR_REPLY;
	uint8_t st;

	if (unlikely(k->proto == IPPROTO_TCP)) {
		st = ct_tcp_lane(ct, c, reply, m, l4_ofs, l4_len, now);
		if (!st || (st & CS_INVALID)) {
			if (st && out)	/* as the full path's +inv */
				*out = (struct ct_conn_ref){ .zone = k->zone };
			return st;
		}
	} else {
		uint8_t state = __atomic_load_n(&c->other, __ATOMIC_RELAXED);
		enum ct_tm tm;
		if (state == CT_OTHER_BIDIR)
			tm = CT_TM_OTHER_BIDIR;
		else if (state == CT_OTHER_MULTIPLE && !reply)
			tm = CT_TM_OTHER_MULTIPLE;
		else
			return 0;
		if (c->nat)
			return 0;
		uint64_t exp = __atomic_load_n(&c->expiration,
					       __ATOMIC_RELAXED);
		if (now >= exp)
			return 0;
		uint64_t next = now + ct_conn_timeout_tsc(ct, c, tm);
		if (next > exp + ct->refresh_slack_tsc)
			__atomic_store_n(&c->expiration, next,
					 __ATOMIC_RELAXED);
		st = CS_TRACKED | CS_ESTABLISHED | (reply ? CS_REPLY_DIR : 0);
	}
	if (out) {
		out->conn = c;
		out->reply = reply;
		out->zone = k->zone;
		out->mark = __atomic_load_n(&c->mark, __ATOMIC_RELAXED);
		out->label[0] = __atomic_load_n(&c->label[0],
						__ATOMIC_RELAXED);
		out->label[1] = __atomic_load_n(&c->label[1],
						__ATOMIC_RELAXED);
	}
	return st;
}

#endif
