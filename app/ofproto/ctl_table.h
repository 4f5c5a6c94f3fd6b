/* SPDX-License-Identifier: BSD-3-Clause
 * A bounded control table that PMDs read without locks: a fixed number of
 * entry slots and an rte_hash (lock-free readers) from key to slot. The
 * control thread is the only writer. A published entry is never written
 * again: a change takes a fresh slot and swaps the hash's data pointer, and
 * the replaced or deleted slot (with its hash key position) is reused only
 * after every PMD has passed a quiescent state (rte_rcu_qsbr), so a PMD
 * that found an entry may read it until its next quiescent state.
 *
 * The limit counts live entries; slots beyond it are slack for those
 * waiting out a grace period. Sizes are uint32_t: nothing wraps.
 */
#ifndef VXS_CTL_TABLE_H
#define VXS_CTL_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <rte_hash.h>
#include <rte_rcu_qsbr.h>

struct ctl_table_retired {
	uint64_t token;			/* rte_rcu_qsbr_start() at retirement */
	int32_t key_pos;		/* hash key position to free, or -1 */
	uint32_t slot;
};

struct ctl_table {
	struct rte_hash *index;
	uint8_t *slots;
	bool *live;
	size_t esize;
	uint32_t limit;			/* live entries at most */
	uint32_t n_slots;		/* limit + slack */
	uint32_t n_live;
	uint32_t *free_slots, n_free;
	struct ctl_table_retired *retired;	/* FIFO, n_slots long */
	uint32_t ret_head, n_retired;
	struct rte_rcu_qsbr *qsbr;
};

/* name: unique among rte_hash tables (at most 26 characters). */
int ctl_table_init(struct ctl_table *t, const char *name, uint32_t limit,
		   uint32_t key_len, size_t esize, struct rte_rcu_qsbr *qsbr);
void ctl_table_fini(struct ctl_table *t);

/* PMD-safe: the entry for key, or NULL. */
static inline void *
ctl_table_lookup(const struct ctl_table *t, const void *key)
{
	void *data;

	if (!t->index || rte_hash_lookup_data(t->index, key, &data) < 0)
		return NULL;
	return data;
}

/* A fresh, zeroed slot, not yet visible; NULL when none is free even after
 * waiting out a grace period. Publish it with ctl_table_commit or give it
 * back with ctl_table_abandon. Check ctl_table_full() first for new keys. */
void *ctl_table_alloc(struct ctl_table *t);
void ctl_table_abandon(struct ctl_table *t, void *e);
/* Makes e the entry for key (replacing, and retiring, any older one).
 * -ENOSPC: a new key with the table at its limit (e is abandoned). */
int ctl_table_commit(struct ctl_table *t, const void *key, void *e);
/* Removes key's entry; -ENOENT if none. */
int ctl_table_remove(struct ctl_table *t, const void *key);

static inline bool
ctl_table_full(const struct ctl_table *t)
{
	return t->n_live >= t->limit;
}

/* Iteration over live entries, in slot order: i < t->n_slots. */
static inline void *
ctl_table_slot(const struct ctl_table *t, uint32_t i)
{
	return i < t->n_slots && t->live[i] ? t->slots + (size_t)i * t->esize
					    : NULL;
}

/* Frees the slots whose grace period has ended (cheap; no waiting). */
void ctl_table_reclaim(struct ctl_table *t);

#endif
