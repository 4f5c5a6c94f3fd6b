/* SPDX-License-Identifier: BSD-3-Clause
 * A tracker made and unmade: the session table (one rte_hash, both keys
 * of every session, under the process's random SipHash key), the session
 * pool, the sweeper's ring, the per-zone arrays and per-lcore caches.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "secret_bytes.h"
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_random.h>
#include "ct_cache.h"

struct siphash_key ct_hash_key;

/* rte_hash's hash function: the table's key is ct_hash_key */
static uint32_t
ct_table_hash(const void *key, uint32_t key_len, uint32_t init_val)
{
	(void)key_len, (void)init_val;
	return ct_key_hash(key);
}

/* Once per process, before the first table (secret_bytes.h). */
static void
ct_hash_key_init(void)
{
	static bool done;

	if (done)
		return;
	secret_bytes(&ct_hash_key, sizeof ct_hash_key, rte_rand);
	secret_bytes(&ct_addr6_key, sizeof ct_addr6_key, rte_rand);
	done = true;
}

struct conntrack *
conntrack_create(const struct ct_params *p)
{
	uint32_t max = p->max_conns ? p->max_conns : CT_DEFAULT_MAX_CONNS;
	const char *base = p->name ? p->name : "ct";
	char name[RTE_MEMZONE_NAMESIZE];

	if (max > (1u << 28))
		return NULL;
	ct_hash_key_init();
	struct conntrack *ct = rte_zmalloc_socket("conntrack", sizeof *ct,
						  RTE_CACHE_LINE_SIZE,
						  p->socket_id);
	if (!ct)
		return NULL;
	snprintf(ct->name, sizeof ct->name, "%s", base);
	ct->max_conns = max;
	ct->qsbr = p->qsbr;
	ct->tsc_hz = p->tsc_hz ? p->tsc_hz : rte_get_tsc_hz();
	ct->refresh_slack_tsc = ct->tsc_hz / 1000;
	rte_spinlock_init(&ct->lock);
	/* Room past the limit for sessions on their way back through RCU,
	 * so a full table churning does not starve creation. */
	ct->pool_size = max + max / 8 + 1024;

	/* Two keys a session; the extendable bucket table lets every key
	 * slot be used (plain cuckoo can refuse an insert well before). */
	snprintf(name, sizeof name, "%s_tbl", base);
	struct rte_hash_parameters hp = {
		.name = name,
		.entries = 2 * ct->pool_size,
		.key_len = sizeof(struct ct_key),
		.hash_func = ct_table_hash,
		.socket_id = p->socket_id,
		.extra_flag = RTE_HASH_EXTRA_FLAGS_RW_CONCURRENCY_LF |
			      RTE_HASH_EXTRA_FLAGS_MULTI_WRITER_ADD |
			      RTE_HASH_EXTRA_FLAGS_EXT_TABLE,
	};
	ct->table = rte_hash_create(&hp);
	snprintf(name, sizeof name, "%s_pool", base);
	ct->pool = rte_mempool_create(name, ct->pool_size,
				      sizeof(struct ct_conn), 256, 0, NULL,
				      NULL, NULL, NULL, p->socket_id, 0);
	snprintf(name, sizeof name, "%s_new", base);
	ct->new_ring = rte_ring_create(name, rte_align32pow2(ct->pool_size + 1),
				       p->socket_id,
				       RING_F_SP_ENQ | RING_F_SC_DEQ);
	ct->zone_limit = rte_zmalloc("ct_zone_limit", 65536 * sizeof(uint32_t),
				     0);
	ct->zone_count = rte_zmalloc("ct_zone_count", 65536 * sizeof(uint32_t),
				     0);
	ct->zone_policy = rte_zmalloc("ct_zone_policy", 65536, 0);
	if (!ct->table || !ct->pool || !ct->new_ring || !ct->zone_limit ||
	    !ct->zone_count || !ct->zone_policy) {
		conntrack_destroy(ct);
		return NULL;
	}
	unsigned lc;
	RTE_LCORE_FOREACH(lc) {
		ct->cache[lc] = rte_zmalloc_socket("ct_cache",
						   sizeof(struct ct_cache),
						   RTE_CACHE_LINE_SIZE,
						   rte_lcore_to_socket_id(lc));
		if (!ct->cache[lc]) {
			conntrack_destroy(ct);
			return NULL;
		}
	}
	for (uint32_t i = 0; i < CT_MAX_POLICIES; i++)
		conntrack_set_timeout_policy(ct, i, ct_tp_defaults);
	ct_expiry_init(ct);
	return ct;
}

void
conntrack_destroy(struct conntrack *ct)
{
	if (!ct)
		return;
	if (ct->table && ct->pool && ct->new_ring)
		ct_expiry_fini(ct);
	rte_hash_free(ct->table);
	rte_mempool_free(ct->pool);
	rte_ring_free(ct->new_ring);
	rte_free(ct->zone_limit);
	rte_free(ct->zone_count);
	rte_free(ct->zone_policy);
	for (unsigned lc = 0; lc < RTE_MAX_LCORE; lc++)
		rte_free(ct->cache[lc]);
	rte_free(ct);
}

