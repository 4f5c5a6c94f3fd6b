/* SPDX-License-Identifier: BSD-3-Clause
 * Subtable lookups: one generic (any mask) and several specialised at
 * compile time for the mask word shapes the switch actually installs. A
 * specialised lookup only fixes WHICH words the mask touches (its wordmap),
 * so the compare loop unrolls to straight-line code, and so does the hash
 * loop where flow_hash_masked() lets the compiler unroll it (GCC at -O2
 * needs a #pragma GCC unroll there, as in key_matches() below). It still
 * applies the subtable's real mask: different masks can share a wordmap.
 *
 * Batch-shaped as in OVS: hash every key of the batch and prefetch its
 * bucket first, then prefetch the chain heads, then compare, so the cache
 * misses of a batch overlap instead of being paid one key at a time.
 */
#include <rte_common.h>
#include <rte_prefetch.h>
#include "dpcls.h"
#include "flow_hash.h"
#include "pkt_batch.h"

_Static_assert(BATCH_MAX <= 32, "keys_map is 32 bits");

/* Does key, masked by mask, equal masked_key? Only the words of wordmap are
 * compared: outside them the mask is zero and masked_key is too. */
static inline __attribute__((always_inline)) bool
key_matches(const struct flow_key *key, const struct flow_key *mask,
	    const struct flow_key *masked_key, uint32_t wordmap, int n_words)
{
	uint64_t diff = 0;

	/* -O2 only peels loops completely when that does not grow the code,
	 * which would leave a constant wordmap tested bit by bit at run time. */
#pragma GCC unroll 24
	for (int i = 0; i < n_words; i++)
		if (wordmap & (1u << i))
			diff |= (key->w[i] & mask->w[i]) ^ masked_key->w[i];
	return diff == 0;
}

static inline struct megaflow *
chain_find(struct megaflow *f, const struct flow_key *key,
	   const struct flow_key *mask, uint32_t wordmap, int n_words)
{
	/* The hash is not compared first: f->hash lives on another cache line
	 * of the megaflow than f->key, and chains average under one entry. */
	for (; f; f = f->next)
		if (key_matches(key, mask, &f->key, wordmap, n_words))
			return f;
	return NULL;
}

/* The one lookup body. Inlined with a constant wordmap it is a specialised
 * lookup; with st->wordmap it is the generic one. */
static inline __attribute__((always_inline)) uint32_t
lookup_impl(struct dpcls_subtable *st, uint32_t keys_map,
	    const struct flow_key keys[], struct megaflow *flows[],
	    uint32_t wordmap, int n_words)
{
	struct megaflow *const *buckets = st->buckets;
	const uint32_t bucket_mask = st->bucket_mask;
	struct megaflow *heads[32];
	uint32_t slots[32];
	uint32_t hits = 0;

	/* A mask with words of another line only matches keys that have it
	 * (it masks its ext_line bit too): the others are left out here,
	 * before the hash would read a line that is not theirs. A constant
	 * IPv4 wordmap compiles this away. */
	if (wordmap & (FLOW_WORDMAP_LINE2 | FLOW_WORDMAP_LINE3)) {
		uint8_t need = (wordmap & FLOW_WORDMAP_LINE2 ? FLOW_EXT_LINE : 0) |
			       (wordmap & FLOW_WORDMAP_LINE3 ? FLOW_EXT_TUN6 : 0);

		for (uint32_t m = keys_map; m; m &= m - 1)
			if ((keys[__builtin_ctz(m)].ext_line & need) != need)
				keys_map &= ~(1u << __builtin_ctz(m));
	}
	for (uint32_t m = keys_map; m; m &= m - 1) {
		unsigned i = __builtin_ctz(m);

		slots[i] = flow_hash_masked_words(&keys[i], &st->mask, wordmap,
						  &st->secret, n_words) &
			   bucket_mask;
		rte_prefetch0(&buckets[slots[i]]);
	}
	for (uint32_t m = keys_map; m; m &= m - 1) {
		unsigned i = __builtin_ctz(m);

		heads[i] = buckets[slots[i]];
		if (heads[i])
			rte_prefetch0(&heads[i]->key);
	}
	for (uint32_t m = keys_map; m; m &= m - 1) {
		unsigned i = __builtin_ctz(m);
		struct megaflow *f = chain_find(heads[i], &keys[i], &st->mask,
						wordmap, n_words);

		if (f) {
			flows[i] = f;
			hits |= 1u << i;
		}
	}
	return hits;
}

/* A run-time wordmap is tested bit by bit: the one-line generic lookup
 * (every IPv4 mask) tests the first line's 8 bits only, as before the key
 * had a second line. */
uint32_t
dpcls_lookup_generic(struct dpcls_subtable *st, uint32_t keys_map,
		     const struct flow_key keys[], struct megaflow *flows[])
{
	return lookup_impl(st, keys_map, keys, flows, st->wordmap,
			   FLOW_KEY_LINE_WORDS);
}

uint32_t
dpcls_lookup_generic2(struct dpcls_subtable *st, uint32_t keys_map,
		      const struct flow_key keys[], struct megaflow *flows[])
{
	return lookup_impl(st, keys_map, keys, flows, st->wordmap,
			   FLOW_KEY_LINE3);
}

uint32_t
dpcls_lookup_generic3(struct dpcls_subtable *st, uint32_t keys_map,
		      const struct flow_key keys[], struct megaflow *flows[])
{
	return lookup_impl(st, keys_map, keys, flows, st->wordmap,
			   FLOW_KEY_WORDS);
}

/* The words a lookup's loops run over: to the end of the last line the
 * wordmap has. */
#define DPCLS_LOOKUP_WORDS(WORDMAP)                                            \
	(((WORDMAP) & FLOW_WORDMAP_LINE3)   ? FLOW_KEY_WORDS                   \
	 : ((WORDMAP) & FLOW_WORDMAP_LINE2) ? FLOW_KEY_LINE3                   \
					    : FLOW_KEY_LINE_WORDS)

#define DPCLS_DEFINE_LOOKUP(NAME, WORDMAP)                                     \
	static uint32_t NAME(struct dpcls_subtable *st, uint32_t keys_map,     \
			     const struct flow_key keys[],                     \
			     struct megaflow *flows[])                         \
	{                                                                      \
		return lookup_impl(st, keys_map, keys, flows, (WORDMAP),       \
				   DPCLS_LOOKUP_WORDS(WORDMAP));               \
	}

/* The shapes worth a specialised lookup. Word layout: see flow_key.h.
 * Every megaflow xlate installs matches recirc_id (w6) and dl_type (w3),
 * as OVS's do: the shapes with w6 are the ones a running switch makes
 * (test_dp_accounting checks that the seed's all get one); those without
 * are what the dpcls's own tests and benchmarks build by hand. */
#define DPCLS_SPECIALISED_LOOKUPS(X)                                           \
	X(dpcls_lookup_w0w3w6, 0x49)   /* encap from a VM port: in_port  */ \
	X(dpcls_lookup_w0w2w3w6, 0x4d) /* + dl_dst: L2 forwarding        */ \
	X(dpcls_lookup_w0w3w4w6, 0x59) /* decap inner: + nw_*            */ \
	X(dpcls_lookup_w0w1w3w4w6, 0x5b) /* + tunnel fields              */ \
	X(dpcls_lookup_w0w3w4w5w6, 0x79) /* in_port, nw_*, L4            */ \
	X(dpcls_lookup_w0w2w3w4w5w6, 0x7d) /* underlay tunnel pop        */ \
	X(dpcls_lookup_v6_dst, 0x0cc9) /* IPv6 decap inner: ipv6_dst     */ \
	X(dpcls_lookup_v6_src, 0x03c9) /* IPv6 anti-spoofing: ipv6_src   */ \
	X(dpcls_lookup_w0, 0x01)       /* in_port                        */ \
	X(dpcls_lookup_w0w3, 0x09)     /* in_port, dl_type               */ \
	X(dpcls_lookup_w0w1w3w4, 0x1b) /* decap inner without recirc_id  */ \
	X(dpcls_lookup_w0w3w4w5, 0x39) /* 5-tuple (dpcls_hostile)        */

DPCLS_SPECIALISED_LOOKUPS(DPCLS_DEFINE_LOOKUP)

struct lookup_impl_entry {
	uint32_t wordmap;
	dpcls_subtable_lookup_fn fn;
	const char *name;
};

#define DPCLS_REGISTER_LOOKUP(NAME, WORDMAP) { (WORDMAP), NAME, #NAME },

static const struct lookup_impl_entry lookup_registry[] = {
	DPCLS_SPECIALISED_LOOKUPS(DPCLS_REGISTER_LOOKUP)
};

dpcls_subtable_lookup_fn
dpcls_lookup_select(uint32_t wordmap, const char **name)
{
	for (unsigned i = 0; i < RTE_DIM(lookup_registry); i++) {
		if (lookup_registry[i].wordmap == wordmap) {
			*name = lookup_registry[i].name;
			return lookup_registry[i].fn;
		}
	}
	return dpcls_lookup_generic_for(wordmap, name);
}

dpcls_subtable_lookup_fn
dpcls_lookup_generic_for(uint32_t wordmap, const char **name)
{
	/* both generic lookups have one name: the tests compare names */
	*name = DPCLS_LOOKUP_GENERIC_NAME;
	if (wordmap & FLOW_WORDMAP_LINE3)
		return dpcls_lookup_generic3;
	return wordmap & FLOW_WORDMAP_LINE2 ? dpcls_lookup_generic2
					    : dpcls_lookup_generic;
}
