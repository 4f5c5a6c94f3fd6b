/* SPDX-License-Identifier: BSD-3-Clause
 * One packet against its session, inlined into the burst (ct_bulk.c):
 * the protocol update under the session's spinlock (process_hit), or,
 * for a packet of no session, +new and the session's creation
 * (process_miss, ct_table.c's ct_conn_create) or +inv.
 */
#ifndef VXS_CT_PROCESS_H
#define VXS_CT_PROCESS_H

#include "ct_est.h"

static inline struct ct_conn *
entry_conn(void *data)
{
	return (struct ct_conn *)((uintptr_t)data & ~CT_DIR_REPLY);
}

static inline bool
entry_reply(void *data)
{
	return (uintptr_t)data & CT_DIR_REPLY;
}

/* ct_table.c */
/* Creates the session of a new packet with key k (IPv6: made of a6).
 * Returns it, or NULL: refused (counted) or, with *live set, another PMD
 * created it first. */
struct ct_conn *ct_conn_create(struct conntrack *ct, const struct rte_mbuf *m,
			       const struct ct_pkt_meta *mt,
			       const struct ct_key *k,
			       const struct ct_addr6 *a6,
			       const struct ct_nat_spec *nat, uint64_t now,
			       struct ct_conn **live, bool *live_reply);
/* Removes a session a packet found closed (OVS's CT_UPDATE_NEW). */
void ct_conn_replace(struct conntrack *ct, struct ct_conn *c);

static inline enum ct_update
proto_update(struct conntrack *ct, struct ct_conn *c, const struct rte_mbuf *m,
	     const struct ct_pkt_meta *mt, bool reply, uint64_t now)
{
	if (c->key[0].proto == IPPROTO_TCP)
		return ct_tcp_update(ct, c, m, mt, reply, now);
	return ct_other_update(ct, c, reply, now);
}

static inline bool
valid_new(const struct rte_mbuf *m, const struct ct_pkt_meta *mt,
	  const struct ct_key *k)
{
	if (k->proto == IPPROTO_TCP)
		return ct_tcp_valid_new(m, mt);
	return ct_other_valid_new(k);
}

static inline void
fill_ref(struct ct_conn_ref *out, struct ct_conn *c, bool reply,
	 uint16_t zone)
{
	if (!out)
		return;
	out->conn = c;
	out->reply = reply;
	out->zone = zone;
	out->mark = c ? c->mark : 0;
	out->label[0] = c ? c->label[0] : 0;
	out->label[1] = c ? c->label[1] : 0;
}

/* The NAT bits of a NATed session's packet, as OVS's nat_packet() and
 * un_nat_packet() set them: the original direction has the session's
 * (+snat for SNAT), a reply the reverse (its destination is un-SNATed:
 * +dnat; a reply of DNAT, +snat). */
static inline uint8_t
nat_state(const struct ct_conn *c, bool reply)
{
	if (!reply || !c->nat)
		return c->nat;
	return c->nat == CS_SRC_NAT ? CS_DST_NAT : CS_SRC_NAT;
}

/* process_hit()'s answer when the session it was given is not there any
 * more (dead, expired, or closed and replaced): the packet is then
 * treated as one of no session. Every real ct_state has CS_TRACKED. */
#define CT_NO_SESSION 0

/* One packet of session c (found by its key, direction reply; an IPv6
 * key made of a6): the common case, inlined into the burst loop. Returns
 * its ct_state, or CT_NO_SESSION. */
static __rte_always_inline uint8_t
process_hit(struct conntrack *ct, struct rte_mbuf *m,
	    const struct ct_pkt_meta *mt, const struct ct_key *k,
	    const struct ct_addr6 *a6, bool related,
	    struct ct_conn *c, bool reply,
	    const struct ct_nat_spec *nat, uint64_t now,
	    struct ct_conn_ref *out)
{
	uint8_t state = CS_TRACKED;
	enum ct_update res = CT_UPDATE_VALID;

	rte_spinlock_lock(&c->lock);
	if (c->dead || ct_conn_expired(c, now)) {
		rte_spinlock_unlock(&c->lock);
		return CT_NO_SESSION;
	}
	if (unlikely(k->v6) && !ct_conn_v6_matches(c, reply, a6)) {
		/* another address pair with the same digest: it can
		 * neither join this session nor have one of its own */
		rte_spinlock_unlock(&c->lock);
		ct_counters(ct)->refused_collision++;
		ct_counters(ct)->invalid++;
		fill_ref(out, NULL, false, k->zone);
		return CS_TRACKED | CS_INVALID;
	}
	if (related)
		state |= CS_RELATED | (reply ? CS_REPLY_DIR : 0);
	else
		res = proto_update(ct, c, m, mt, reply, now);
	switch (res) {
	case CT_UPDATE_VALID:
		if (!related)
			state |= CS_ESTABLISHED | (reply ? CS_REPLY_DIR : 0);
		break;
	case CT_UPDATE_VALID_NEW:
		state |= CS_NEW;
		break;
	case CT_UPDATE_INVALID:
		rte_spinlock_unlock(&c->lock);
		ct_counters(ct)->invalid++;
		fill_ref(out, NULL, false, k->zone);
		return CS_TRACKED | CS_INVALID;
	case CT_UPDATE_NEW:
		/* Ended whether or not this packet commits, as OVS's
		 * conn_update_state (conn_force_expire): kept, a closed
		 * session would answer its next SYN from the old responder
		 * as +est+rpl past every deny rule, and lend a new
		 * connection its mark, label and NAT. */
		rte_spinlock_unlock(&c->lock);
		ct_conn_replace(ct, c);
		return CT_NO_SESSION;
	}
	if (nat && c->nat) {
		state |= nat_state(c, reply);
		if (!related)
			ct_nat_packet(c, m, mt, reply);
		else
			ct_nat_icmp_error(c, m, mt, reply);
	}
	fill_ref(out, c, reply, k->zone);
	rte_spinlock_unlock(&c->lock);
	return state;
}

/* One packet of no session: +new (committed under commit) or +inv.
 * *refused: commit asked for a session and none was created (a limit,
 * the table, the NAT range: counted by conn_create). */
static inline uint8_t
process_miss(struct conntrack *ct, struct rte_mbuf *m,
	     const struct ct_pkt_meta *mt, const struct ct_key *k,
	     const struct ct_addr6 *a6, bool related, bool commit,
	     const struct ct_nat_spec *nat,
	     uint64_t now, struct ct_conn_ref *out, bool *refused)
{
	uint8_t state = CS_TRACKED | CS_NEW;
	struct ct_conn *c = NULL;

	if (related || !valid_new(m, mt, k)) {
		ct_counters(ct)->invalid++;
		fill_ref(out, NULL, false, k->zone);
		return CS_TRACKED | CS_INVALID;
	}
	if (commit) {
		struct ct_conn *live;
		bool live_reply;
		c = ct_conn_create(ct, m, mt, k, a6, nat, now, &live,
				   &live_reply);
		if (!c && live) {
			/* another PMD was first: track against it, without
			 * committing (if it is gone already, this packet
			 * stays +new, as in OVS) */
			uint8_t st = process_hit(ct, m, mt, k, a6, related,
						 live,
						 live_reply, nat, now,
						 out);
			if (st != CT_NO_SESSION)
				return st;
		}
		*refused = !c && !live;
		if (c && nat && c->nat) {
			state |= c->nat;
			ct_nat_packet(c, m, mt, false);
		}
	}
	fill_ref(out, c, false, k->zone);
	return state;
}

#endif
