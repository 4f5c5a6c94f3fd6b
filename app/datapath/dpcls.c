/* SPDX-License-Identifier: BSD-3-Clause
 * The megaflow classifier: subtable management, insert/remove, ranking.
 * The per-subtable lookups live in dpcls_lookup.c.
 *
 * Why a hand-rolled hash table and not rte_hash: rte_hash is built for
 * concurrent readers (lock-free cuckoo with key-version counters and
 * atomics) and stores its own copy of each key, so a lookup would first
 * have to materialise every masked key of the batch, then hash, then
 * compare through a key-compare call. Here the PMD is the only user, the
 * megaflow already holds the masked key, and the compare applies the mask
 * on the fly over a compile-time word set. A chained table (chains through
 * megaflow->next, power-of-two buckets, doubled when load exceeds 1) needs
 * no atomics, no key copies and no extra memory per flow beyond one
 * pointer, and an insert never fails for lack of a cuckoo path.
 *
 * An outsider chooses the keys (a tenant's 5-tuples, where its rules make a
 * megaflow per 5-tuple), so the chains are defended twice: the hash is
 * keyed with a secret drawn here per classifier (flow_hash.h says why CRC
 * was not enough), and no chain grows past DPCLS_MAX_CHAIN (an insert that
 * would is refused and counted; the PMD still executes the packet's
 * actions, uncached: dp_upcall).
 */
#include <errno.h>
#include "secret_bytes.h"
#include <rte_common.h>
#include <rte_random.h>
#include <rte_malloc.h>
#include "dpcls.h"
#include "flow_hash.h"

#define DPCLS_MIN_BUCKETS 16u
#define DPCLS_MIN_SUBTABLE_SLOTS 8u

struct dpcls {
	struct dpcls_subtable **subtables;	/* rank order, most hit first */
	uint32_t n_subtables;
	uint32_t subtable_slots;		/* allocated size of subtables */
	uint32_t n_flows;
	uint32_t max_flows;
	int socket_id;
	bool force_generic;
	uint64_t chain_refused;			/* inserts refused: -EMLINK */
	struct flow_hash_secret secret;		/* every subtable's copy */
	/* cls-port-hint: per in_port (direct-mapped, by in_port), the
	 * subtable that last served it; NULL when unknown or destroyed */
	struct dpcls_subtable *hint[DPCLS_HINT_SLOTS];
	uint16_t hint_port[DPCLS_HINT_SLOTS];
};

/* From the kernel's generator (secret_bytes.h). */
static void
secret_draw(struct flow_hash_secret *s)
{
	secret_bytes(s, sizeof *s, rte_rand);
	s->fin |= 1;	/* multiply-shift wants an odd multiplier */
}

struct dpcls *
dpcls_create(int socket_id, uint32_t max_flows)
{
	struct dpcls *cls = rte_zmalloc_socket("dpcls", sizeof *cls,
					       RTE_CACHE_LINE_SIZE, socket_id);
	if (!cls)
		return NULL;
	cls->max_flows = max_flows;
	cls->socket_id = socket_id;
	secret_draw(&cls->secret);
	return cls;
}

static void
subtable_free(struct dpcls_subtable *st)
{
	rte_free(st->buckets);
	rte_free(st);
}

void
dpcls_destroy(struct dpcls *cls)
{
	if (!cls)
		return;
	/* The megaflows are not touched: the caller may have freed them. */
	for (uint32_t i = 0; i < cls->n_subtables; i++)
		subtable_free(cls->subtables[i]);
	rte_free(cls->subtables);
	rte_free(cls);
}

/* All sixteen words: megaflow keys and masks are whole (flow_key_mask
 * zeroes a second line the mask does not use). */
static bool
keys_identical(const struct flow_key *a, const struct flow_key *b)
{
	return memcmp(a, b, sizeof *a) == 0;
}

static struct dpcls_subtable *
subtable_find(const struct dpcls *cls, const struct flow_key *mask)
{
	for (uint32_t i = 0; i < cls->n_subtables; i++)
		if (keys_identical(&cls->subtables[i]->mask, mask))
			return cls->subtables[i];
	return NULL;
}

static struct megaflow **
bucket_of(struct dpcls_subtable *st, uint32_t hash)
{
	return &st->buckets[hash & st->bucket_mask];
}

static struct megaflow *
subtable_find_flow(struct dpcls_subtable *st, uint32_t hash,
		   const struct flow_key *masked_key)
{
	for (struct megaflow *f = *bucket_of(st, hash); f; f = f->next)
		if (f->hash == hash && keys_identical(&f->key, masked_key))
			return f;
	return NULL;
}

static struct megaflow **
buckets_alloc(const struct dpcls *cls, uint32_t n_buckets)
{
	return rte_zmalloc_socket("dpcls_buckets",
				  n_buckets * sizeof(struct megaflow *),
				  RTE_CACHE_LINE_SIZE, cls->socket_id);
}

/* Moves every flow to a table of n_buckets. On allocation failure the old
 * table stays: a load above 1 is slower, not wrong. */
static void
subtable_rehash(const struct dpcls *cls, struct dpcls_subtable *st,
		uint32_t n_buckets)
{
	struct megaflow **nb = buckets_alloc(cls, n_buckets);

	if (!nb)
		return;
	for (uint32_t b = 0; b <= st->bucket_mask; b++) {
		struct megaflow *f = st->buckets[b];

		while (f) {
			struct megaflow *next = f->next;
			struct megaflow **head = &nb[f->hash & (n_buckets - 1)];

			f->next = *head;
			*head = f;
			f = next;
		}
	}
	rte_free(st->buckets);
	st->buckets = nb;
	st->bucket_mask = n_buckets - 1;
}

static int
subtables_reserve_slot(struct dpcls *cls)
{
	if (cls->n_subtables < cls->subtable_slots)
		return 0;

	uint32_t slots = RTE_MAX(DPCLS_MIN_SUBTABLE_SLOTS,
				 cls->subtable_slots * 2);
	struct dpcls_subtable **arr =
		rte_realloc_socket(cls->subtables, slots * sizeof *arr,
				   RTE_CACHE_LINE_SIZE, cls->socket_id);
	if (!arr)
		return -ENOMEM;
	cls->subtables = arr;
	cls->subtable_slots = slots;
	return 0;
}

/* A new subtable ranks last: it has no hits yet (as in OVS). */
static struct dpcls_subtable *
subtable_create(struct dpcls *cls, const struct flow_key *mask)
{
	if (subtables_reserve_slot(cls))
		return NULL;

	struct dpcls_subtable *st =
		rte_zmalloc_socket("dpcls_subtable", sizeof *st,
				   RTE_CACHE_LINE_SIZE, cls->socket_id);
	if (!st)
		return NULL;
	st->buckets = buckets_alloc(cls, DPCLS_MIN_BUCKETS);
	if (!st->buckets) {
		rte_free(st);
		return NULL;
	}
	st->bucket_mask = DPCLS_MIN_BUCKETS - 1;
	st->mask = *mask;
	st->secret = cls->secret;
	st->wordmap = flow_mask_wordmap(mask);
	if (cls->force_generic) {
		st->lookup = dpcls_lookup_generic_for(st->wordmap,
						      &st->lookup_name);
	} else {
		st->lookup = dpcls_lookup_select(st->wordmap, &st->lookup_name);
	}
	cls->subtables[cls->n_subtables++] = st;
	return st;
}

static void
subtable_destroy(struct dpcls *cls, struct dpcls_subtable *st)
{
	uint32_t i = 0;

	while (cls->subtables[i] != st)
		i++;
	/* a hint never points at freed memory */
	for (uint32_t h = 0; h < DPCLS_HINT_SLOTS; h++)
		if (cls->hint[h] == st)
			cls->hint[h] = NULL;
	memmove(&cls->subtables[i], &cls->subtables[i + 1],
		(cls->n_subtables - i - 1) * sizeof cls->subtables[0]);
	cls->n_subtables--;
	subtable_free(st);
}

static uint32_t
subtable_hash(const struct dpcls_subtable *st, const struct flow_key *key)
{
	return flow_hash_masked(key, &st->mask, st->wordmap, &st->secret);
}

int
dpcls_insert(struct dpcls *cls, struct megaflow *f,
	     const struct flow_key *mask)
{
	/* A key with bits outside its mask would hash and compare as
	 * something no packet can match; mask it rather than trust it.
	 * A mask with words of another line must match that line's ext_line
	 * bit too (the mask builder sets it: flow_mask_set_field): that is
	 * what keeps keys without the line out of its subtable. Setting it
	 * here would be too late, the key was masked without it. */
	uint32_t map = flow_mask_wordmap(mask);

	if (((map & FLOW_WORDMAP_LINE2) &&
	     !(mask->ext_line & FLOW_EXT_LINE)) ||
	    ((map & FLOW_WORDMAP_LINE3) && !(mask->ext_line & FLOW_EXT_TUN6)))
		return -EINVAL;
	flow_key_mask(&f->key, &f->key, mask);

	struct dpcls_subtable *st = subtable_find(cls, mask);
	uint32_t chain = 0;

	if (st && subtable_find_flow(st, subtable_hash(st, &f->key), &f->key))
		return -EEXIST;
	if (cls->n_flows >= cls->max_flows)
		return -ENOSPC;
	if (!st) {
		st = subtable_create(cls, mask);
		if (!st)
			return -ENOMEM;
	}
	if (st->n_flows > st->bucket_mask)
		subtable_rehash(cls, st, (st->bucket_mask + 1) * 2);

	struct megaflow **head;

	f->hash = subtable_hash(st, &f->key);
	/* after the rehash: the chain it would join now */
	for (struct megaflow *g = *bucket_of(st, f->hash); g; g = g->next)
		chain++;
	if (chain >= DPCLS_MAX_CHAIN) {
		/* st is not empty: the chain is not, so st stays */
		cls->chain_refused++;
		return -EMLINK;
	}
	f->subtable = st;
	head = bucket_of(st, f->hash);
	f->next = *head;
	*head = f;
	st->n_flows++;
	cls->n_flows++;
	return 0;
}

void
dpcls_remove(struct dpcls *cls, struct megaflow *f)
{
	struct dpcls_subtable *st = f->subtable;

	if (!st)
		return;

	struct megaflow **pp = bucket_of(st, f->hash);

	while (*pp && *pp != f)
		pp = &(*pp)->next;
	if (!*pp)
		return;		/* not linked: a caller bug, but harmless */
	*pp = f->next;
	f->next = NULL;
	f->subtable = NULL;
	cls->n_flows--;
	if (--st->n_flows == 0)
		subtable_destroy(cls, st);
}

static inline uint32_t
subtable_probe(struct dpcls_subtable *st, uint32_t keys_map,
	       const struct flow_key keys[], struct megaflow *flows[])
{
	uint32_t hits = st->lookup(st, keys_map, keys, flows);
	unsigned n = __builtin_popcount(hits);

	st->hits += n;
	st->rank_hits += n;
	return hits;
}

uint32_t
dpcls_lookup(struct dpcls *cls, const struct flow_key keys[],
	     uint32_t keys_map, struct megaflow *flows[])
{
	for (uint32_t i = 0; i < cls->n_subtables && keys_map; i++)
		keys_map &= ~subtable_probe(cls->subtables[i], keys_map, keys,
					    flows);
	return keys_map;
}

uint32_t
dpcls_lookup_hint(struct dpcls *cls, const struct flow_key keys[],
		  uint32_t keys_map, struct megaflow *flows[])
{
	if (!keys_map)
		return 0;

	uint16_t in_port = keys[__builtin_ctz(keys_map)].in_port;
	unsigned slot = in_port & (DPCLS_HINT_SLOTS - 1);
	struct dpcls_subtable *hint =
		cls->hint_port[slot] == in_port ? cls->hint[slot] : NULL;
	struct dpcls_subtable *best = NULL;
	unsigned best_n = 0, hint_n = 0;

	if (hint) {
		uint32_t hits = subtable_probe(hint, keys_map, keys, flows);

		keys_map &= ~hits;
		if (!keys_map)
			return 0;
		hint_n = __builtin_popcount(hits);
	}
	for (uint32_t i = 0; i < cls->n_subtables && keys_map; i++) {
		struct dpcls_subtable *st = cls->subtables[i];

		if (st == hint)
			continue;

		uint32_t hits = subtable_probe(st, keys_map, keys, flows);
		unsigned n = __builtin_popcount(hits);

		if (n > best_n) {
			best = st;
			best_n = n;
		}
		keys_map &= ~hits;
	}
	/* The hint missed some keys: next time, start with another subtable
	 * only if it served more of them than the hint did. */
	if (best_n > hint_n) {
		cls->hint[slot] = best;
		cls->hint_port[slot] = in_port;
	}
	return keys_map;
}

struct dpcls_subtable *
dpcls_hint_of(const struct dpcls *cls, uint16_t in_port)
{
	unsigned slot = in_port & (DPCLS_HINT_SLOTS - 1);

	return cls->hint_port[slot] == in_port ? cls->hint[slot] : NULL;
}

struct megaflow *
dpcls_find(struct dpcls *cls, const struct flow_key *masked_key,
	   const struct flow_key *mask)
{
	struct dpcls_subtable *st = subtable_find(cls, mask);
	struct flow_key key;

	if (!st)
		return NULL;
	flow_key_mask(&key, masked_key, mask);
	return subtable_find_flow(st, subtable_hash(st, &key), &key);
}

uint64_t
dpcls_chain_refused(const struct dpcls *cls)
{
	return cls->chain_refused;
}

uint32_t
dpcls_max_chain(const struct dpcls *cls)
{
	uint32_t max = 0;

	for (uint32_t i = 0; i < cls->n_subtables; i++) {
		const struct dpcls_subtable *st = cls->subtables[i];

		for (uint32_t b = 0; b <= st->bucket_mask; b++) {
			uint32_t n = 0;

			for (const struct megaflow *f = st->buckets[b]; f;
			     f = f->next)
				n++;
			max = RTE_MAX(max, n);
		}
	}
	return max;
}

uint32_t
dpcls_count(const struct dpcls *cls)
{
	return cls->n_flows;
}

/* Calls cb for every flow of st. Counting the flows left, not the buckets,
 * is what makes removal safe: st is not touched after its last flow has
 * been visited, and removing that flow may have freed st. */
static void
subtable_foreach(struct dpcls_subtable *st,
		 void (*cb)(struct megaflow *f, void *aux), void *aux)
{
	uint32_t left = st->n_flows;

	for (uint32_t b = 0; left; b++) {
		struct megaflow *f = st->buckets[b];

		while (f) {
			struct megaflow *next = f->next;

			left--;
			cb(f, aux);
			f = next;
		}
	}
}

void
dpcls_foreach(struct dpcls *cls, void (*cb)(struct megaflow *f, void *aux),
	      void *aux)
{
	/* Backwards: a subtable freed under us only shifts the ones after
	 * it, which have been visited already. */
	for (uint32_t i = cls->n_subtables; i-- > 0;)
		subtable_foreach(cls->subtables[i], cb, aux);
}

/* Removals never shrink a table (dpcls_foreach relies on the buckets
 * staying put), so sparse tables are shrunk here, back to a load of 1/2. */
static void
subtable_shrink_if_sparse(const struct dpcls *cls, struct dpcls_subtable *st)
{
	uint32_t n_buckets = st->bucket_mask + 1;

	if (n_buckets > DPCLS_MIN_BUCKETS && st->n_flows < n_buckets / 4)
		subtable_rehash(cls, st,
				RTE_MAX(DPCLS_MIN_BUCKETS,
					rte_align32pow2(st->n_flows * 2)));
}

void
dpcls_rank_subtables(struct dpcls *cls)
{
	struct dpcls_subtable **s = cls->subtables;

	/* Insertion sort: a few dozen subtables, mostly in order already, and
	 * it is stable, so equally hit subtables keep their order. */
	for (uint32_t i = 1; i < cls->n_subtables; i++) {
		struct dpcls_subtable *st = s[i];
		uint32_t j = i;

		for (; j > 0 && s[j - 1]->rank_hits < st->rank_hits; j--)
			s[j] = s[j - 1];
		s[j] = st;
	}
	for (uint32_t i = 0; i < cls->n_subtables; i++) {
		s[i]->rank_hits = 0;
		subtable_shrink_if_sparse(cls, s[i]);
	}
}

void
dpcls_foreach_subtable(const struct dpcls *cls,
		       void (*cb)(uint32_t wordmap, const char *lookup_name,
				  uint32_t n_flows, uint64_t hits, void *aux),
		       void *aux)
{
	for (uint32_t i = 0; i < cls->n_subtables; i++) {
		const struct dpcls_subtable *st = cls->subtables[i];

		cb(st->wordmap, st->lookup_name, st->n_flows, st->hits, aux);
	}
}

const char *
dpcls_lookup_name_for(uint32_t wordmap)
{
	const char *name;

	dpcls_lookup_select(wordmap, &name);
	return name;
}

void
dpcls_force_generic(struct dpcls *cls, bool on)
{
	cls->force_generic = on;
}

void
dpcls_set_secret(struct dpcls *cls, const struct flow_hash_secret *s)
{
	cls->secret = *s;
}
