/* SPDX-License-Identifier: BSD-3-Clause
 * The established lane: a UDP packet of a session that has seen both
 * directions (OVS's OTHERS_BIDIR), not NATed, found in the lcore's session
 * cache. That is nearly every packet a security group sees on a busy
 * port, and nothing in it needs the session's lock: the protocol state
 * cannot change any more (bidir is final), and all the packet does is
 * push the expiration forward, which Linux's nf_ct_refresh also does
 * without a lock. So the lane skips the key extraction, the lock, the
 * protocol update and the call chain of the full path
 * (perf/results/dpbench-sg-lane.txt).
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

#include <rte_udp.h>
#include "ct_cache.h"

/* A UDP session key, both ways the lane builds one. */
static __rte_always_inline void
ct_est_udp_key(struct ct_key *k, rte_be32_t src, rte_be32_t dst,
	       rte_be16_t sport, rte_be16_t dport, uint16_t zone)
{
	k->src = src;
	k->dst = dst;
	k->sport = sport;
	k->dport = dport;
	k->zone = zone;
	k->proto = IPPROTO_UDP;
	k->pad = 0;
}

/* The key of a UDP packet straight from its meta (the datapath's flow
 * key): false if it is not one the lane may take (not UDP, a fragment,
 * NATed already in this zone, or a UDP header cut short, which the full
 * path finds +inv). */
static __rte_always_inline bool
ct_est_key(struct ct_key *k, const struct ct_pkt_meta *mt,
	   const struct rte_mbuf *m, uint16_t zone)
{
	if (mt->nw_proto != IPPROTO_UDP || !mt->is_ipv4 || mt->nw_frag ||
	    mt->natted || mt->l4_len < sizeof(struct rte_udp_hdr) ||
	    (uint32_t)mt->l4_ofs + sizeof(struct rte_udp_hdr) > m->data_len)
		return false;
	ct_est_udp_key(k, mt->nw_src, mt->nw_dst, mt->tp_src, mt->tp_dst,
		       zone);
	return true;
}

/* The packet's ct_state if the lane takes it (its expiration pushed
 * forward, *out filled when given), else 0: the full path takes it.
 * data: what the lcore's cache holds for the packet's key k. */
static __rte_always_inline uint8_t
ct_est_lane(struct conntrack *ct, void *data, const struct ct_key *k,
	    uint64_t now, struct ct_conn_ref *out)
{
	uintptr_t d = (uintptr_t)data;
	struct ct_conn *c = (struct ct_conn *)(d & ~CT_DIR_REPLY);
	bool reply = d & CT_DIR_REPLY;
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
	uint64_t exp = __atomic_load_n(&c->expiration, __ATOMIC_RELAXED);
	if (now >= exp)
		return 0;
	uint64_t next = now + ct_conn_timeout_tsc(ct, c, tm);
	if (next > exp + ct->refresh_slack_tsc)
		__atomic_store_n(&c->expiration, next, __ATOMIC_RELAXED);
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
	return CS_TRACKED | CS_ESTABLISHED | (reply ? CS_REPLY_DIR : 0);
}

#endif
