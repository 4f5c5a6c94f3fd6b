/* SPDX-License-Identifier: BSD-3-Clause
 * The per-lcore session cache: the session a key found last, so that a
 * packet of a connection seen recently skips the shared table's lock-free
 * lookup (perf/results/dpbench-sg-cache.txt: about 130 instructions a
 * packet in rte_hash's LF bulk lookup, plus its hash call). Indexed by the
 * table's own hash of the key (ct_key_hash: SipHash-1-3 under the
 * per-process random key), so a miss passes it on, and a tenant can no
 * more aim at a set than at a table bucket; a set only evicts, never
 * chains (doc/hash-tables.md).
 *
 * 4-way set-associative, one 64-byte line a set: 2048 sets of 4 entries.
 * Direct-mapped, 1,000 sessions (2,000 keys) in 8,192 slots left about a
 * fifth of the keys sharing a slot with another and evicting each other
 * on every packet, each miss costing the full path
 * (perf/results/e2e-sg-lane.md, 1k flows); four ways leave about 2 % of
 * the keys in a set with four others. A new entry goes to way 0, the
 * others move down, the last falls out.
 *
 * An entry holds a pointer that may outlive its session: a PMD's cache
 * persists across its quiescent states, so the session can be retired,
 * freed and reused while the entry still names it. Each session has a
 * generation that free_conn() bumps before the session goes back to the
 * pool; an entry is used only when, read in this order,
 *   its generation is the entry's (not freed since),
 *   it is not dead (not retired: it cannot be freed before this PMD's
 *   next quiescent state, which is after the packet),
 *   its key in that direction is the packet's,
 *   and the generation is still the entry's (what was read was this
 *   incarnation's, not a new one's being initialised).
 * process() then locks it and checks dead again, as for a table hit.
 */
#ifndef VXS_CT_CACHE_H
#define VXS_CT_CACHE_H

#include "ct_private.h"

#define CT_CACHE_ENTRIES 8192	/* 128 KiB an lcore, OVS's EMC size */
#define CT_CACHE_WAYS 4
#define CT_CACHE_SETS (CT_CACHE_ENTRIES / CT_CACHE_WAYS)

struct ct_cache_entry {
	uintptr_t conn_dir;	/* session | CT_DIR_REPLY; 0: empty */
	uint32_t gen;
	uint32_t sig;
};

struct ct_cache_set {
	struct ct_cache_entry way[CT_CACHE_WAYS];
} __rte_cache_aligned;

struct ct_cache {
	struct ct_cache_set set[CT_CACHE_SETS];
};

/* The table's own hash of the key (ct_key_hash). */
static inline uint32_t
ct_key_sig(const struct ct_key *k)
{
	return ct_key_hash(k);
}

static inline struct ct_cache *
ct_cache_of(struct conntrack *ct)
{
	unsigned lc = rte_lcore_id();
	return lc < RTE_MAX_LCORE ? ct->cache[lc] : NULL;
}

/* Entry e's session, if it is still k's (see above); else NULL. */
static inline void *
ct_cache_entry_check(const struct ct_cache_entry *e, const struct ct_key *k)
{
	struct ct_conn *c = (struct ct_conn *)(e->conn_dir & ~CT_DIR_REPLY);
	struct ct_key seen;

	if (__atomic_load_n(&c->gen, __ATOMIC_ACQUIRE) != e->gen ||
	    __atomic_load_n(&c->dead, __ATOMIC_ACQUIRE))
		return NULL;
	memcpy(&seen, &c->key[e->conn_dir & CT_DIR_REPLY], sizeof seen);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (__atomic_load_n(&c->gen, __ATOMIC_RELAXED) != e->gen ||
	    memcmp(&seen, k, sizeof seen))
		return NULL;
	return (void *)e->conn_dir;
}

/* The set a signature maps to (to prefetch it a step ahead). */
static inline const struct ct_cache_set *
ct_cache_set_of(const struct ct_cache *cc, uint32_t sig)
{
	return &cc->set[sig & (CT_CACHE_SETS - 1)];
}

/* The entry of sig's set with that signature, or NULL; not checked yet
 * (ct_cache_entry_check), so its session can be prefetched first. */
static inline const struct ct_cache_entry *
ct_cache_find(const struct ct_cache *cc, uint32_t sig)
{
	const struct ct_cache_set *s = ct_cache_set_of(cc, sig);

	for (int w = 0; w < CT_CACHE_WAYS; w++)
		if (s->way[w].sig == sig && s->way[w].conn_dir)
			return &s->way[w];
	return NULL;
}

/* The hash entry data (session | direction) cached for k, or NULL. */
static inline void *
ct_cache_lookup(const struct ct_cache *cc, const struct ct_key *k,
		uint32_t sig)
{
	const struct ct_cache_entry *e = ct_cache_find(cc, sig);

	return e ? ct_cache_entry_check(e, k) : NULL;
}

/* data: what the table (or a creation) gave for k, the session alive
 * when it was found, so it cannot be freed before the next quiescent
 * state: its generation now is its generation then. An entry with the
 * same signature is replaced in place (the key's old session, or a
 * collision of 32-bit CRCs, which the key check sorts out). */
static inline void
ct_cache_insert(struct ct_cache *cc, uint32_t sig, void *data)
{
	struct ct_cache_set *s = &cc->set[sig & (CT_CACHE_SETS - 1)];
	const struct ct_conn *c =
		(const struct ct_conn *)((uintptr_t)data & ~CT_DIR_REPLY);
	int w = 0;

	while (w < CT_CACHE_WAYS - 1 && s->way[w].sig != sig)
		w++;
	if (s->way[w].sig != sig)	/* not there: the last way falls out */
		w = CT_CACHE_WAYS - 1;
	for (; w > 0; w--)
		s->way[w] = s->way[w - 1];
	s->way[0].sig = sig;
	s->way[0].gen = __atomic_load_n(&c->gen, __ATOMIC_ACQUIRE);
	s->way[0].conn_dir = (uintptr_t)data;
}

#endif
