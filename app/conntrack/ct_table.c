/* SPDX-License-Identifier: BSD-3-Clause
 * The session table: creation (limits, NAT tuple, both keys) under the
 * table lock, and a closed session's removal. The burst that looks
 * sessions up and updates them is ct_bulk.c (and ct_process.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_prefetch.h>
#include "ct_process.h"

bool
ct_table_has_key(struct conntrack *ct, const struct ct_key *k)
{
	return rte_hash_lookup(ct->table, k) >= 0;
}

/* The limit a new session of zone must stay under; 0: none. */
static uint32_t
zone_limit_of(const struct conntrack *ct, uint16_t zone)
{
	uint32_t l = ct->zone_limit[zone];
	return l ? l : ct->default_zone_limit;
}

/* Makes a live, unexpired session's key free for a new one: expired
 * sessions holding it are removed (counted expired). Table lock held.
 * Returns the live holder, or NULL if the key is free now. */
static struct ct_conn *
claim_key(struct conntrack *ct, const struct ct_key *k, uint64_t now,
	  bool *reply)
{
	void *data;

	if (rte_hash_lookup_data(ct->table, k, &data) < 0)
		return NULL;
	struct ct_conn *o = entry_conn(data);
	if (!ct_conn_expired(o, now)) {
		*reply = entry_reply(data);
		return o;
	}
	if (ct_conn_kill_locked(ct, o))
		ct->expired++;
	return NULL;
}

static void
proto_new(struct conntrack *ct, struct ct_conn *c, const struct rte_mbuf *m,
	  const struct ct_pkt_meta *mt, uint64_t now)
{
	if (c->key[0].proto == IPPROTO_TCP)
		ct_tcp_new(ct, c, m, mt, now);
	else
		ct_other_new(ct, c, now);
}

/* Creates the session of a new packet with key k (IPv6: made of a6).
 * Returns it, or NULL: refused (counted) or, with *live set, another PMD
 * created it first. */
struct ct_conn *
ct_conn_create(struct conntrack *ct, const struct rte_mbuf *m,
	    const struct ct_pkt_meta *mt, const struct ct_key *k,
	    const struct ct_addr6 *a6, const struct ct_nat_spec *nat,
	    uint64_t now, struct ct_conn **live, bool *live_reply)
{
	struct ct_pmd_counters *cnt = ct_counters(ct);
	struct ct_conn *c = NULL;
	struct ct_key reply;
	uint32_t zl = zone_limit_of(ct, k->zone);

	/* Refusals decided without the lock, read racily (a session freed
	 * meanwhile admits a later packet): a tenant refused at line rate
	 * must not hold the lock every PMD creates sessions under
	 * (perf/ct_hostile: a victim's new connections waited milliseconds) */
	*live = NULL;
	/* a range of the other family translates nothing (the ofctl
	 * parser refuses it, as OVS's ofpact check) */
	if (nat && !ct_nat_spec_ranged(nat, k->v6))
		nat = NULL;
	if (zl && __atomic_load_n(&ct->zone_count[k->zone],
				  __ATOMIC_RELAXED) >= zl) {
		cnt->refused_zone_limit++;
		return NULL;
	}
	if (__atomic_load_n(&ct->n_conns, __ATOMIC_RELAXED) >=
	    __atomic_load_n(&ct->max_conns, __ATOMIC_RELAXED)) {
		cnt->refused_full++;
		return NULL;
	}
	if (nat && ct_nat_exhausted(ct, nat, k, now)) {
		cnt->refused_nat++;
		return NULL;
	}

	rte_spinlock_lock(&ct->lock);
	*live = claim_key(ct, k, now, live_reply);
	if (*live)
		goto out;
	if (zl && ct->zone_count[k->zone] >= zl) {
		cnt->refused_zone_limit++;
		goto out;
	}
	if (ct->n_conns >= ct->max_conns ||
	    rte_mempool_get(ct->pool, (void **)&c) < 0) {
		c = NULL;
		cnt->refused_full++;
		goto out;
	}
	uint32_t gen = c->gen;	/* ct_cache.h: it outlives the session */
	uint32_t wseq = c->tcp_wseq;	/* and the peers' seqlock */
	memset(c, 0, sizeof *c);
	c->gen = gen;
	c->tcp_wseq = wseq;
	c->key[0] = *k;
	if (k->v6)
		c->ip6 = *a6;
	if (nat) {
		if (!(k->v6 ? ct_nat_pick6(ct, nat, k, a6, &c->key[1],
					   c->nat6)
			    : ct_nat_pick(ct, nat, k, &c->key[1]))) {
			ct_nat_exhausted_note(ct, nat, k, now);
			cnt->refused_nat++;
			goto refuse;
		}
		c->nat = nat->snat ? CS_SRC_NAT : CS_DST_NAT;
	} else {
		bool r;
		if (k->v6)
			ct_key6_reply(k, a6, &reply);
		else
			ct_key_reply(k, &reply);
		if (claim_key(ct, &reply, now, &r)) {
			cnt->refused_collision++;
			goto refuse;
		}
		c->key[1] = reply;
	}
	rte_spinlock_init(&c->lock);
	proto_new(ct, c, m, mt, now);

	/* Initialised before it is published: readers find it at once. */
	if (rte_hash_add_key_data(ct->table, &c->key[0], c) < 0) {
		cnt->refused_full++;
		goto refuse;
	}
	if (rte_hash_add_key_data(ct->table, &c->key[1],
				  (void *)((uintptr_t)c | CT_DIR_REPLY)) < 0) {
		/* A reader may have seen key[0]: the session goes to the
		 * sweeper, which frees it after a grace period. */
		c->pos[0] = rte_hash_del_key(ct->table, &c->key[0]);
		c->pos[1] = -1;
		__atomic_store_n(&c->dead, 1, __ATOMIC_RELEASE);
		rte_ring_sp_enqueue(ct->new_ring, c);
		c = NULL;
		cnt->refused_full++;
		goto out;
	}
	ct->n_conns++;
	ct->zone_count[k->zone]++;
	ct->created++;
	/* Never full: it holds at most every session of the pool once. */
	rte_ring_sp_enqueue(ct->new_ring, c);
	goto out;
refuse:
	rte_mempool_put(ct->pool, c);
	c = NULL;
out:
	rte_spinlock_unlock(&ct->lock);
	return c;
}

/* Removes a session a packet found closed (a SYN on a closed TCP session:
 * OVS's CT_UPDATE_NEW), so the packet can create a new one. */
void
ct_conn_replace(struct conntrack *ct, struct ct_conn *c)
{
	rte_spinlock_lock(&ct->lock);
	if (ct_conn_kill_locked(ct, c))
		ct->expired++;
	rte_spinlock_unlock(&ct->lock);
}

void
ct_conn_set_mark(struct ct_conn *c, uint32_t value, uint32_t mask)
{
	rte_spinlock_lock(&c->lock);
	c->mark = (c->mark & ~mask) | (value & mask);
	rte_spinlock_unlock(&c->lock);
}

void
ct_conn_set_label(struct ct_conn *c, const uint64_t value[2],
		  const uint64_t mask[2])
{
	rte_spinlock_lock(&c->lock);
	for (int i = 0; i < 2; i++)
		c->label[i] = (c->label[i] & ~mask[i]) | (value[i] & mask[i]);
	rte_spinlock_unlock(&c->lock);
}
