/* SPDX-License-Identifier: BSD-3-Clause
 * Bounded, hash-indexed control tables with RCU-deferred slot reuse. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rte_random.h>
#include "ctl_table.h"
#include "nh_hash.h"

#define SLACK_MIN 1024u

/* Every control table's hash (rte_hash has no per-table argument for
 * it): NH under a secret drawn at the first ctl_table_init, before any
 * key is hashed. Keys are what the datapath learns (a neighbour's
 * address, from underlay ARP) or the operator sets (routes); keyed, so
 * no one can choose addresses that share cuckoo buckets and pile into
 * an extendable chain the PMDs walk (doc/hash-tables.md). */
static struct nh_secret ctl_secret;
static bool ctl_secret_drawn;

static uint32_t
ctl_hash(const void *key, uint32_t key_len, uint32_t init_val)
{
	uint64_t w[NH_MAX_WORDS] = { 0 };

	(void)init_val;
	memcpy(w, key, key_len);	/* <= sizeof w: ctl_table_init */
	return nh_hash_words(&ctl_secret, w, (key_len + 7) / 8);
}

int
ctl_table_init(struct ctl_table *t, const char *name, uint32_t limit,
	       uint32_t key_len, size_t esize, struct rte_rcu_qsbr *qsbr)
{
	uint32_t slack = RTE_MAX(SLACK_MIN, limit / 16);

	memset(t, 0, sizeof *t);
	if (!limit || limit > UINT32_MAX - slack || !key_len ||
	    key_len > 8 * NH_MAX_WORDS)
		return -EINVAL;
	if (!ctl_secret_drawn) {
		nh_secret_draw(&ctl_secret, rte_rand);
		ctl_secret_drawn = true;
	}
	t->limit = limit;
	t->n_slots = limit + slack;
	t->esize = RTE_ALIGN_CEIL(esize, 8);
	t->qsbr = qsbr;

	/* The extendable bucket table lets every key slot be used (plain
	 * cuckoo can refuse an insert well before it is full). */
	struct rte_hash_parameters hp = {
		.name = name,
		.entries = t->n_slots,
		.key_len = key_len,
		.hash_func = ctl_hash,
		.socket_id = SOCKET_ID_ANY,
		.extra_flag = RTE_HASH_EXTRA_FLAGS_RW_CONCURRENCY_LF |
			      RTE_HASH_EXTRA_FLAGS_EXT_TABLE,
	};
	t->index = rte_hash_create(&hp);
	t->slots = calloc(t->n_slots, t->esize);
	t->live = calloc(t->n_slots, sizeof *t->live);
	t->free_slots = malloc(t->n_slots * sizeof *t->free_slots);
	t->retired = malloc(t->n_slots * sizeof *t->retired);
	if (!t->index || !t->slots || !t->live || !t->free_slots ||
	    !t->retired) {
		ctl_table_fini(t);
		return -ENOMEM;
	}
	/* lowest slots first: iteration then sees entries in about the
	 * order they came */
	for (uint32_t i = 0; i < t->n_slots; i++)
		t->free_slots[i] = t->n_slots - 1 - i;
	t->n_free = t->n_slots;
	return 0;
}

void
ctl_table_fini(struct ctl_table *t)
{
	rte_hash_free(t->index);
	free(t->slots);
	free(t->live);
	free(t->free_slots);
	free(t->retired);
	memset(t, 0, sizeof *t);
}

static uint32_t
slot_of(const struct ctl_table *t, const void *e)
{
	return (uint32_t)(((const uint8_t *)e - t->slots) / t->esize);
}

static void
retire(struct ctl_table *t, uint32_t slot, int32_t key_pos)
{
	/* Each slot is retired at most once before it is freed, so the FIFO
	 * (n_slots long) cannot overflow. */
	uint32_t tail = (t->ret_head + t->n_retired) % t->n_slots;

	t->live[slot] = false;
	t->retired[tail] = (struct ctl_table_retired){
		.token = t->qsbr ? rte_rcu_qsbr_start(t->qsbr) : 0,
		.key_pos = key_pos, .slot = slot };
	t->n_retired++;
}

void
ctl_table_reclaim(struct ctl_table *t)
{
	while (t->n_retired) {
		struct ctl_table_retired *r = &t->retired[t->ret_head];
		if (t->qsbr && !rte_rcu_qsbr_check(t->qsbr, r->token, false))
			break;
		if (r->key_pos >= 0)
			rte_hash_free_key_with_position(t->index, r->key_pos);
		t->free_slots[t->n_free++] = r->slot;
		t->ret_head = (t->ret_head + 1) % t->n_slots;
		t->n_retired--;
	}
}

void *
ctl_table_alloc(struct ctl_table *t)
{
	if (!t->n_free)
		ctl_table_reclaim(t);
	if (!t->n_free && t->n_retired && t->qsbr) {
		/* Every spare slot waits on a grace period: wait it out
		 * (PMDs pass a quiescent state every loop). */
		rte_rcu_qsbr_synchronize(t->qsbr, RTE_QSBR_THRID_INVALID);
		ctl_table_reclaim(t);
	}
	if (!t->n_free)
		return NULL;
	uint8_t *e = t->slots + (size_t)t->free_slots[--t->n_free] * t->esize;
	memset(e, 0, t->esize);
	return e;
}

void
ctl_table_abandon(struct ctl_table *t, void *e)
{
	t->free_slots[t->n_free++] = slot_of(t, e);
}

int
ctl_table_commit(struct ctl_table *t, const void *key, void *e)
{
	void *old = ctl_table_lookup(t, key);
	uint32_t slot = slot_of(t, e);
	int rc;

	if (!old && ctl_table_full(t)) {
		ctl_table_abandon(t, e);
		return -ENOSPC;
	}
	t->live[slot] = true;
	/* release: the entry's contents before the pointer to it */
	rc = rte_hash_add_key_data(t->index, key, e);
	if (rc < 0) {
		/* key positions waiting on a grace period: free them */
		ctl_table_reclaim(t);
		rc = rte_hash_add_key_data(t->index, key, e);
	}
	if (rc < 0) {
		t->live[slot] = false;
		ctl_table_abandon(t, e);
		return rc;
	}
	if (old)
		retire(t, slot_of(t, old), -1);
	else
		t->n_live++;
	return 0;
}

int
ctl_table_remove(struct ctl_table *t, const void *key)
{
	void *old = ctl_table_lookup(t, key);
	int32_t pos;

	if (!old)
		return -ENOENT;
	pos = rte_hash_del_key(t->index, key);
	if (pos < 0)
		return pos;
	retire(t, slot_of(t, old), pos);
	t->n_live--;
	return 0;
}
