/* SPDX-License-Identifier: BSD-3-Clause
 * The exact-match cache. One entry is one cache line: the key's used words,
 * the megaflow pointer and the hash, so a probe costs one line (plus the
 * megaflow's, which the caller touches anyway to run its actions).
 * IPv6 keys have a table of their own, of two-line entries (below).
 */
#include <rte_common.h>
#include <rte_malloc.h>
#include <rte_prefetch.h>
#include "dpcls.h"
#include "emc.h"

#define EMC_SLOT_BITS 13u
#define EMC_SLOT_MASK (EMC_ENTRIES - 1)

_Static_assert(EMC_ENTRIES == 1u << EMC_SLOT_BITS, "slot bits");
_Static_assert(EMC_WAYS * EMC_SLOT_BITS <= 32, "ways come from one hash");

/* Only the first pass's keys are cached, whose w6 (recirculation and ct
 * metadata) is zero: it is not stored. The recirculated passes skip the
 * EMC (dp_pipeline.c). Keys with a second line (w7's ext_line set: IPv6)
 * go to the IPv6 table; the IPv4 table needs no test of w7 on lookup (a
 * load and an OR per probe): ext_line's FLOW_EXT_LINE is set exactly
 * when dl_type (w3) is IPv6's, so such a key differs from every IPv4
 * entry in w3 already.
 *
 * Keys with a third line (FLOW_EXT_TUN6: decapsulated from an IPv6
 * underlay) are cached in the table of their inner family without it:
 * their w1 (tun_src, tun_dst) is zero and no other key from the tunnel
 * port has a zero w1, so they can only be confused with one another, by
 * their outer addresses. That matters only to a megaflow whose mask reads
 * the third line (a rule on tun_ipv6_*): a hit on one is checked against
 * the key's line, and a mismatch is a miss (to the dpcls, which then
 * replaces the entry). Any other megaflow is the key's whatever its outer
 * addresses, so no digest of them is needed and an outsider choosing them
 * can only cost such keys a lookup. */
#define EMC_KEY_WORDS 6
struct emc_entry {
	uint64_t key[EMC_KEY_WORDS];
	struct megaflow *flow;		/* NULL: empty */
	uint32_t hash;
} __rte_cache_aligned;

_Static_assert(sizeof(struct emc_entry) == RTE_CACHE_LINE_SIZE,
	       "one entry, one cache line");

/* The IPv6 table: w0..w5, w7 (ext_line, label) and the addresses (w8..w11)
 * in two lines. Neighbour Discovery keys (nd_* set, w12..w15) are not
 * cached (control traffic, rare), so a lookup asks those words of the
 * packet's key to be zero and need not store them. Fewer entries than
 * IPv4's: each is twice the size. */
#define EMC6_ADDR_WORDS 4
#define EMC6_ENTRIES 2048u
#define EMC6_SLOT_BITS 11u
struct emc6_entry {
	uint64_t key[EMC_KEY_WORDS];
	uint64_t w7;
	uint64_t addr[EMC6_ADDR_WORDS];
	struct megaflow *flow;		/* NULL: empty */
	uint32_t hash;
} __rte_aligned(2 * RTE_CACHE_LINE_SIZE);

_Static_assert(sizeof(struct emc6_entry) == 2 * RTE_CACHE_LINE_SIZE,
	       "one IPv6 entry, two cache lines");
_Static_assert(EMC6_ENTRIES == 1u << EMC6_SLOT_BITS, "IPv6 slot bits");

struct emc {
	struct emc_entry entries[EMC_ENTRIES];
	struct emc6_entry entries6[EMC6_ENTRIES];
};

struct emc *
emc_create(int socket_id)
{
	/* the IPv6 entries are two-line aligned */
	return rte_zmalloc_socket("emc", sizeof(struct emc),
				  _Alignof(struct emc), socket_id);
}

void
emc_destroy(struct emc *emc)
{
	rte_free(emc);
}

/* Way w of a hash: successive bit fields of it, as OVS does. */
static inline struct emc_entry *
emc_slot(struct emc *emc, uint32_t hash, unsigned way)
{
	return &emc->entries[(hash >> (way * EMC_SLOT_BITS)) & EMC_SLOT_MASK];
}

static inline bool
entry_has_key(const struct emc_entry *e, const struct flow_key *key,
	      uint32_t hash)
{
	uint64_t diff = e->hash ^ hash;

	for (int i = 0; i < EMC_KEY_WORDS; i++)
		diff |= e->key[i] ^ key->w[i];
	return (diff | key->w[EMC_KEY_WORDS]) == 0;
}

static inline bool
entry_alive(const struct emc_entry *e)
{
	return e->flow && !e->flow->dead;
}

static struct megaflow *
emc_find(struct emc *emc, const struct flow_key *key, uint32_t hash)
{
	for (unsigned w = 0; w < EMC_WAYS; w++) {
		struct emc_entry *e = emc_slot(emc, hash, w);

		if (entry_has_key(e, key, hash) && entry_alive(e))
			return e->flow;
	}
	return NULL;
}

uint32_t
emc_lookup(struct emc *emc, const struct flow_key keys[],
	   const uint32_t hashes[], uint32_t keys_map,
	   struct megaflow *flows[])
{
	uint32_t hits = 0;

	/* All slots of the batch first, so their misses overlap. */
	for (uint32_t m = keys_map; m; m &= m - 1) {
		unsigned i = __builtin_ctz(m);

		for (unsigned w = 0; w < EMC_WAYS; w++)
			rte_prefetch0(emc_slot(emc, hashes[i], w));
	}
	for (uint32_t m = keys_map; m; m &= m - 1) {
		unsigned i = __builtin_ctz(m);
		struct megaflow *f = emc_find(emc, &keys[i], hashes[i]);

		if (f) {
			flows[i] = f;
			hits |= 1u << i;
		}
	}
	return keys_map & ~hits;
}

/* ---- the IPv6 table ---- */

static inline struct emc6_entry *
emc6_slot(struct emc *emc, uint32_t hash, unsigned way)
{
	return &emc->entries6[(hash >> (way * EMC6_SLOT_BITS)) &
			      (EMC6_ENTRIES - 1)];
}

static inline bool
entry6_has_key(const struct emc6_entry *e, const struct flow_key *key,
	       uint32_t hash)
{
	uint64_t diff = e->hash ^ hash;

	for (int i = 0; i < EMC_KEY_WORDS; i++)
		diff |= e->key[i] ^ key->w[i];
	diff |= e->w7 ^ key->w[7];
	for (int i = 0; i < EMC6_ADDR_WORDS; i++)
		diff |= e->addr[i] ^ key->line2[i];
	/* w6 and the ND words: zero in every cached key */
	for (int i = EMC6_ADDR_WORDS; i < FLOW_KEY_LINE_WORDS; i++)
		diff |= key->line2[i];
	return (diff | key->w[EMC_KEY_WORDS]) == 0;
}

static inline bool
entry6_alive(const struct emc6_entry *e)
{
	return e->flow && !e->flow->dead;
}

uint32_t
emc_lookup_ext(struct emc *emc, const struct flow_key keys[],
	       const uint32_t hashes[], uint32_t keys_map,
	       struct megaflow *flows[])
{
	uint32_t v6 = 0, tun6 = 0, hits = 0;

	for (uint32_t m = keys_map; m; m &= m - 1) {
		unsigned i = __builtin_ctz(m);
		if (flow_key_has_line3(&keys[i]))
			tun6 |= 1u << i;
		if (flow_key_has_line2(&keys[i])) {
			v6 |= 1u << i;
			for (unsigned w = 0; w < EMC_WAYS; w++) {
				const struct emc6_entry *e =
					emc6_slot(emc, hashes[i], w);
				rte_prefetch0(e);
				rte_prefetch0((const char *)e +
					      RTE_CACHE_LINE_SIZE);
			}
		}
	}
	for (uint32_t m = v6; m; m &= m - 1) {
		unsigned i = __builtin_ctz(m);
		for (unsigned w = 0; w < EMC_WAYS; w++) {
			struct emc6_entry *e = emc6_slot(emc, hashes[i], w);
			/* the hash first: fifteen words are compared only
			 * where it agrees (callgrind: 147 -> 100 instructions
			 * a probe at 32 flows) */
			if (e->hash != hashes[i])
				continue;
			if (entry6_has_key(e, &keys[i], hashes[i]) &&
			    entry6_alive(e)) {
				flows[i] = e->flow;
				hits |= 1u << i;
				break;
			}
		}
	}
	/* the IPv4 keys of the pass as ever */
	uint32_t keys4 = keys_map & ~v6;
	uint32_t miss = (keys4 ? emc_lookup(emc, keys, hashes, keys4, flows) : 0)
			| (v6 & ~hits);
	/* the third line, where the megaflow reads it */
	for (uint32_t m = tun6 & ~miss; m; m &= m - 1) {
		unsigned i = __builtin_ctz(m);
		const struct flow_key *mask = megaflow_mask(flows[i]);

		if (!mask || (flow_key_has_line3(mask) &&
			      !flow_key_match(&keys[i], &flows[i]->key, mask)))
			miss |= 1u << i;
	}
	return miss;
}

static void
emc6_insert(struct emc *emc, const struct flow_key *key, uint32_t hash,
	    struct megaflow *flow)
{
	struct emc6_entry *victim = NULL;

	for (int i = EMC6_ADDR_WORDS; i < FLOW_KEY_LINE_WORDS; i++)
		if (key->line2[i])	/* ND: not cached */
			return;
	for (unsigned w = 0; w < EMC_WAYS; w++) {
		struct emc6_entry *e = emc6_slot(emc, hash, w);

		if (e->flow && entry6_has_key(e, key, hash)) {
			e->flow = flow;
			return;
		}
		if (!victim || !entry6_alive(e) ||
		    (entry6_alive(victim) && e->hash < victim->hash))
			victim = e;
	}
	memcpy(victim->key, key->w, sizeof victim->key);
	victim->w7 = key->w[7];
	memcpy(victim->addr, key->line2, sizeof victim->addr);
	victim->hash = hash;
	victim->flow = flow;
}

/* Is a a better victim than b? Empty or dead first; between two of a kind
 * the lower stored hash, an arbitrary but stateless tie-break that spreads
 * replacements over both ways (as OVS does). */
static bool
better_victim(const struct emc_entry *a, const struct emc_entry *b)
{
	if (entry_alive(a) != entry_alive(b))
		return !entry_alive(a);
	return a->hash < b->hash;
}

void
emc_insert(struct emc *emc, const struct flow_key *key, uint32_t hash,
	   struct megaflow *flow)
{
	struct emc_entry *victim = NULL;

	if (flow->dead)
		return;
	if (flow_key_has_line2(key)) {
		emc6_insert(emc, key, hash, flow);
		return;
	}
	for (unsigned w = 0; w < EMC_WAYS; w++) {
		struct emc_entry *e = emc_slot(emc, hash, w);

		if (e->flow && entry_has_key(e, key, hash)) {
			e->flow = flow;
			return;
		}
		if (!victim || better_victim(e, victim))
			victim = e;
	}
	memcpy(victim->key, key->w, sizeof victim->key);
	victim->hash = hash;
	victim->flow = flow;
}

void
emc_purge_dead(struct emc *emc)
{
	for (unsigned i = 0; i < EMC_ENTRIES; i++) {
		struct emc_entry *e = &emc->entries[i];

		if (e->flow && e->flow->dead)
			e->flow = NULL;
	}
	for (unsigned i = 0; i < EMC6_ENTRIES; i++) {
		struct emc6_entry *e = &emc->entries6[i];

		if (e->flow && e->flow->dead)
			e->flow = NULL;
	}
}

void
emc_clear(struct emc *emc)
{
	memset(emc->entries, 0, sizeof emc->entries);
	memset(emc->entries6, 0, sizeof emc->entries6);
}
