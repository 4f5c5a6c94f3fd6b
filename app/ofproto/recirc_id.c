/* SPDX-License-Identifier: BSD-3-Clause
 * Recirculation ids (recirc_id.h): an rte_hash keyed by the frozen state
 * is the index, and its key position is the id - 1, so the hash's own
 * bound (RECIRC_ID_MAX entries, with the extendable-bucket table: no
 * cuckoo miss before it is full) is the table's.
 */
#include <string.h>
#include <rte_hash.h>
#include <rte_jhash.h>
#include <rte_spinlock.h>
#include "recirc_id.h"

_Static_assert(sizeof(struct recirc_frozen) == 88, "no hidden padding");

static rte_spinlock_t lock = RTE_SPINLOCK_INITIALIZER;
static struct rte_hash *index_by_state;
static struct recirc_frozen states[RECIRC_ID_MAX + 1];	/* by id */
static uint32_t refs[RECIRC_ID_MAX + 1];
static uint32_t in_use;
static uint64_t refused;

static bool
ensure_index(void)
{
	if (index_by_state)
		return true;
	struct rte_hash_parameters p = {
		.name = "recirc_ids",
		.entries = RECIRC_ID_MAX,
		.key_len = sizeof(struct recirc_frozen),
		.hash_func = rte_jhash,
		.socket_id = SOCKET_ID_ANY,
		.extra_flag = RTE_HASH_EXTRA_FLAGS_EXT_TABLE,
	};
	index_by_state = rte_hash_create(&p);
	return index_by_state != NULL;
}

int
recirc_id_init(void)
{
	bool ok;

	rte_spinlock_lock(&lock);
	ok = ensure_index();
	rte_spinlock_unlock(&lock);
	return ok ? 0 : -1;
}

uint8_t
recirc_id_get(const struct recirc_frozen *f)
{
	uint8_t id = 0;
	int32_t pos;

	rte_spinlock_lock(&lock);
	if (!ensure_index()) {
		refused++;
		goto out;
	}
	pos = rte_hash_lookup(index_by_state, f);
	if (pos < 0) {
		pos = rte_hash_add_key(index_by_state, f);
		if (pos >= RECIRC_ID_MAX) {	/* not by rte_hash's contract */
			rte_hash_del_key(index_by_state, f);
			pos = -ENOSPC;
		}
		if (pos < 0) {
			refused++;
			goto out;
		}
		states[pos + 1] = *f;
		in_use++;
	}
	id = (uint8_t)(pos + 1);
	refs[id]++;
out:
	rte_spinlock_unlock(&lock);
	return id;
}

bool
recirc_id_ref(uint8_t id, struct recirc_frozen *f)
{
	bool ok;

	rte_spinlock_lock(&lock);
	ok = id && refs[id];
	if (ok) {
		refs[id]++;
		*f = states[id];
	}
	rte_spinlock_unlock(&lock);
	return ok;
}

void
recirc_id_unref(uint8_t id)
{
	if (!id)
		return;
	rte_spinlock_lock(&lock);
	if (refs[id] && !--refs[id]) {
		rte_hash_del_key(index_by_state, &states[id]);
		memset(&states[id], 0, sizeof states[id]);
		in_use--;
	}
	rte_spinlock_unlock(&lock);
}

void
recirc_id_get_stats(struct recirc_id_stats *st)
{
	rte_spinlock_lock(&lock);
	st->in_use = in_use;
	st->refused = refused;
	rte_spinlock_unlock(&lock);
}
