/* SPDX-License-Identifier: BSD-3-Clause
 * The megaflow classifier (OVS dpcls): one subtable per distinct mask, each
 * a hash table of masked keys, searched in rank order (most hit first).
 *
 * Owned by one PMD thread, which alone inserts, looks up and removes: no
 * locks, no atomics. Control-plane changes reach the PMD as a generation
 * number it revalidates against, never as concurrent edits here.
 *
 * Megaflows are allocated and freed by the caller; dpcls only links them
 * through their dpcls-owned fields (->subtable, ->next, ->hash).
 */
#ifndef VXS_DPCLS_H
#define VXS_DPCLS_H

#include <stdbool.h>
#include <stdint.h>
#include "flow_hash.h"
#include "flow_key.h"
#include "megaflow.h"

struct dpcls;
struct dpcls_subtable;

/* For each bit i of keys_map: look keys[i] up in st, on a hit set flows[i].
 * Returns the map of hits. */
typedef uint32_t (*dpcls_subtable_lookup_fn)(struct dpcls_subtable *st,
					     uint32_t keys_map,
					     const struct flow_key keys[],
					     struct megaflow *flows[]);

struct dpcls *dpcls_create(int socket_id, uint32_t max_flows);

/* Frees the subtables, not the megaflows. */
void dpcls_destroy(struct dpcls *cls);

/* The longest hash chain an insert may make. The subtable hash is keyed
 * with a per-classifier random secret (flow_hash.h), so with a load of at
 * most 1 a chain of 16 is about as likely as a random 16-way collision
 * (under 1e-7 for a million megaflows in a subtable); the cap is what
 * bounds a lookup if the secret is ever guessed or a rehash could not be
 * allocated (the table then stays at a higher load). */
#define DPCLS_MAX_CHAIN 16u

/* Files f in the subtable of mask, which from then on is f's mask
 * (megaflow_mask()). f->key must be masked by mask (dpcls re-masks it in
 * place, which is a no-op for a correct caller). Returns 0, -ENOSPC
 * (max_flows reached),
 * -EEXIST (same key and mask present), -EINVAL (a mask
 * with second-line words that does not match ext_line, flow_key.h), -EMLINK (its chain already holds
 * DPCLS_MAX_CHAIN megaflows: refused and counted in
 * dpcls_chain_refused(); the caller still has the packet's actions) or
 * -ENOMEM. */
int dpcls_insert(struct dpcls *cls, struct megaflow *f,
		 const struct flow_key *mask);

/* Inserts refused with -EMLINK since creation. */
uint64_t dpcls_chain_refused(const struct dpcls *cls);

/* The longest chain of any subtable now (tests, perf). */
uint32_t dpcls_max_chain(const struct dpcls *cls);

/* Unlinks f; a subtable left empty is freed. f must be in cls. */
void dpcls_remove(struct dpcls *cls, struct megaflow *f);

/* Looks up keys[i] for each bit i of keys_map, setting flows[i] on a hit
 * and leaving it alone on a miss. Returns the map of keys NOT found.
 * Counts subtable hits for ranking. */
uint32_t dpcls_lookup(struct dpcls *cls, const struct flow_key keys[],
		      uint32_t keys_map, struct megaflow *flows[]);

/* dpcls_lookup, but first tries the subtable that last served the in_port
 * of the first key of keys_map (cls-port-hint: every key of a lookup pass
 * has the same in_port, so most passes need one probe). Correct whatever
 * the keys' in_ports: the hint only orders the probes. A subtable's
 * destruction clears the hints pointing at it. */
#define DPCLS_HINT_SLOTS 64u
uint32_t dpcls_lookup_hint(struct dpcls *cls, const struct flow_key keys[],
			   uint32_t keys_map, struct megaflow *flows[]);
/* The hinted subtable of in_port, or NULL (for tests). */
struct dpcls_subtable *dpcls_hint_of(const struct dpcls *cls,
				     uint16_t in_port);

/* The megaflow with exactly this masked key and mask, or NULL. */
struct megaflow *dpcls_find(struct dpcls *cls,
			    const struct flow_key *masked_key,
			    const struct flow_key *mask);

uint32_t dpcls_count(const struct dpcls *cls);

/* Calls cb for every megaflow; cb may call dpcls_remove on the flow it was
 * given (and on no other). */
void dpcls_foreach(struct dpcls *cls,
		   void (*cb)(struct megaflow *f, void *aux), void *aux);

/* Re-orders subtables by hits since the previous call and shrinks hash
 * tables that removals left sparse. The PMD calls it about once a second. */
void dpcls_rank_subtables(struct dpcls *cls);

/* For pmd-perf-show / dpctl, in rank order. hits is the subtable's total. */
void dpcls_foreach_subtable(const struct dpcls *cls,
			    void (*cb)(uint32_t wordmap, const char *lookup_name,
				       uint32_t n_flows, uint64_t hits,
				       void *aux),
			    void *aux);

/* Which lookup a new subtable with this wordmap gets. */
const char *dpcls_lookup_name_for(uint32_t wordmap);

/* Test hook: subtables created from now on hash with secret s instead of
 * the one drawn at random in dpcls_create (so a test can know which keys
 * collide, as an attacker who guessed it would). */
void dpcls_set_secret(struct dpcls *cls, const struct flow_hash_secret *s);

/* Test hook: subtables created from now on use the generic lookup. */
void dpcls_force_generic(struct dpcls *cls, bool on);

/* ---- Internals shared by dpcls.c and dpcls_lookup.c; not for users. ---- */

struct dpcls_subtable {
	struct flow_key mask;		/* first: lookups read it per key */
	/* the classifier's, copied: the lookups reach it through st */
	struct flow_hash_secret secret;
	struct megaflow **buckets;	/* chains through megaflow->next */
	uint32_t bucket_mask;		/* n_buckets - 1, a power of two */
	uint32_t n_flows;
	uint32_t wordmap;		/* flow_mask_wordmap(&mask) */
	dpcls_subtable_lookup_fn lookup;
	const char *lookup_name;
	uint64_t hits;			/* since creation, for display */
	uint64_t rank_hits;		/* since the last ranking */
};

/* f's mask: its subtable's, while f is in a classifier; NULL once
 * dpcls_remove() took it out or when dpcls_insert() refused it (a
 * transient megaflow, upcall.c), whose subtable may not exist. */
static inline const struct flow_key *
megaflow_mask(const struct megaflow *f)
{
	return f->subtable ? &f->subtable->mask : NULL;
}

/* The lookup for wordmap: a specialised one if registered, else generic.
 * *name gets its name. */
dpcls_subtable_lookup_fn dpcls_lookup_select(uint32_t wordmap,
					     const char **name);

uint32_t dpcls_lookup_generic(struct dpcls_subtable *st, uint32_t keys_map,
			      const struct flow_key keys[],
			      struct megaflow *flows[]);

/* The same for masks with second-line words, and with third-line ones. */
uint32_t dpcls_lookup_generic2(struct dpcls_subtable *st, uint32_t keys_map,
			       const struct flow_key keys[],
			       struct megaflow *flows[]);
uint32_t dpcls_lookup_generic3(struct dpcls_subtable *st, uint32_t keys_map,
			       const struct flow_key keys[],
			       struct megaflow *flows[]);

/* The generic lookup for wordmap (one line, two or three). */
dpcls_subtable_lookup_fn dpcls_lookup_generic_for(uint32_t wordmap,
						  const char **name);

#define DPCLS_LOOKUP_GENERIC_NAME "dpcls_lookup_generic"

#endif
