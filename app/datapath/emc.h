/* SPDX-License-Identifier: BSD-3-Clause
 * The exact-match cache (OVS EMC): full packet key -> megaflow, looked up
 * before the classifier. 2-way: each key has two hash-derived slots, as
 * with OVS's EM_FLOW_HASH_SEGS.
 *
 * Owned by one PMD thread: no locks, no atomics. Entries point at
 * megaflows they do not own; a megaflow marked ->dead is never returned,
 * and emc_purge_dead() must run before dead megaflows are freed.
 *
 * Whether to insert at all (OVS's emc-insert-inv-prob) is the PMD's policy,
 * not the cache's.
 *
 * Indexed by the unkeyed CRC32-C microflow hash (flow_hash_key), which an
 * outsider can aim: it can make its keys take a victim's two slots. That
 * only evicts (the victim's packets go to dpcls, a slower lookup, never a
 * longer one: two probes whatever the keys), so it stays CRC, which is
 * also the VXLAN source port on the wire (doc/hash-tables.md).
 */
#ifndef VXS_EMC_H
#define VXS_EMC_H

#include <stdint.h>
#include "flow_key.h"
#include "megaflow.h"

#define EMC_ENTRIES 8192u
#define EMC_WAYS 2u

struct emc;

struct emc *emc_create(int socket_id);
void emc_destroy(struct emc *emc);

/* For each bit i of keys_map looks keys[i] up with its microflow hash
 * hashes[i] (flow_hash_key). Sets flows[i] on a hit, never to a megaflow
 * with ->dead set, and leaves it alone on a miss. Returns the map of
 * misses. */
uint32_t emc_lookup(struct emc *emc, const struct flow_key keys[],
		    const uint32_t hashes[], uint32_t keys_map,
		    struct megaflow *flows[]);

/* The same for a pass that may hold IPv6 keys (the extract's line flag,
 * dp_hash.h): each key looked up in its family's table (IPv6: a table of
 * two-line entries, EMC6 in emc.c; Neighbour Discovery keys are never
 * cached). */
uint32_t emc_lookup_ext(struct emc *emc, const struct flow_key keys[],
			const uint32_t hashes[], uint32_t keys_map,
			struct megaflow *flows[]);

/* Caches key -> flow (an IPv6 key in the IPv6 table, but for ND). An entry for the same key is updated in place;
 * otherwise the worse of the key's two slots is replaced (an empty or dead
 * one first). A dead flow is not cached. */
void emc_insert(struct emc *emc, const struct flow_key *key, uint32_t hash,
		struct megaflow *flow);

/* Forgets entries whose megaflow is ->dead. Call before freeing them. */
void emc_purge_dead(struct emc *emc);

void emc_clear(struct emc *emc);

#endif
