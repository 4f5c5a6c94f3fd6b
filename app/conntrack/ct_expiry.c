/* SPDX-License-Identifier: BSD-3-Clause
 * Expiry, flush and freeing. Only the sweeper's thread (under
 * sweep_mutex, which no PMD takes) touches the expiry lists: PMDs hand
 * new sessions over through new_ring and only ever write a session's
 * expiration and class under its lock, so no list is written by two
 * threads. A session leaves in two steps: its keys go (table lock held
 * for a batch of at most CT_KILL_BATCH sessions), then it waits on the
 * retire FIFO for a QSBR grace period before its key slots and its
 * memory are reused. Like OVS 3.x, the sweeper visits every session
 * (per-class lists, in bounded steps); a session whose class changed is
 * moved to its class's list when visited.
 */
#include <rte_rcu_qsbr.h>
#include "ct_private.h"

#define CT_KILL_BATCH 32
#define CT_DRAIN_BURST 256

void
ct_expiry_init(struct conntrack *ct)
{
	pthread_mutex_init(&ct->sweep_mutex, NULL);
	for (int i = 0; i < CT_TM_N; i++)
		TAILQ_INIT(&ct->exp_list[i]);
	TAILQ_INIT(&ct->retired);
}

bool
ct_conn_kill_locked(struct conntrack *ct, struct ct_conn *c)
{
	rte_spinlock_lock(&c->lock);
	bool was_dead = c->dead;
	__atomic_store_n(&c->dead, 1, __ATOMIC_RELEASE);
	rte_spinlock_unlock(&c->lock);
	if (was_dead)
		return false;
	/* Their slots stay reserved (lock-free readers) until the grace
	 * period is over: free_conn() frees them by position. */
	c->pos[0] = rte_hash_del_key(ct->table, &c->key[0]);
	c->pos[1] = rte_hash_del_key(ct->table, &c->key[1]);
	ct->n_conns--;
	ct->zone_count[c->key[0].zone]--;
	return true;
}

/* New sessions onto their class's list. */
static void
drain_new(struct conntrack *ct)
{
	struct ct_conn *burst[CT_DRAIN_BURST];
	unsigned n;

	while ((n = rte_ring_sc_dequeue_burst(ct->new_ring, (void **)burst,
					      CT_DRAIN_BURST, NULL)) > 0) {
		for (unsigned i = 0; i < n; i++) {
			struct ct_conn *c = burst[i];
			c->list_tm = __atomic_load_n(&c->tm, __ATOMIC_RELAXED);
			c->on_list = 1;
			TAILQ_INSERT_TAIL(&ct->exp_list[c->list_tm], c, exp);
		}
	}
}

/* Off its list, onto the retire FIFO with the grace period's token. */
static void
retire(struct conntrack *ct, struct ct_conn *c)
{
	if (c->on_list) {
		if (ct->cursor[c->list_tm] == c)
			ct->cursor[c->list_tm] = TAILQ_NEXT(c, exp);
		TAILQ_REMOVE(&ct->exp_list[c->list_tm], c, exp);
		c->on_list = 0;
	}
	c->retire_token = ct->qsbr ? rte_rcu_qsbr_start(ct->qsbr) : 0;
	TAILQ_INSERT_TAIL(&ct->retired, c, exp);
	ct->n_retired++;
}

static void
free_conn(struct conntrack *ct, struct ct_conn *c)
{
	for (int d = 0; d < 2; d++)
		if (c->pos[d] >= 0)
			rte_hash_free_key_with_position(ct->table, c->pos[d]);
	/* Before anything of a new incarnation is written: a cache entry
	 * naming this one sees the change first (ct_cache.h). */
	__atomic_store_n(&c->gen, c->gen + 1, __ATOMIC_RELEASE);
	rte_mempool_put(ct->pool, c);
}

/* Frees the retired sessions no PMD can hold any more (all of them when
 * force: no PMD runs). */
static void
reclaim(struct conntrack *ct, bool force)
{
	struct ct_conn *c;

	while ((c = TAILQ_FIRST(&ct->retired)) != NULL) {
		if (!force && ct->qsbr &&
		    !rte_rcu_qsbr_check(ct->qsbr, c->retire_token, false))
			break;
		TAILQ_REMOVE(&ct->retired, c, exp);
		ct->n_retired--;
		free_conn(ct, c);
	}
}

struct kill_batch {
	struct ct_conn *c[CT_KILL_BATCH];
	unsigned n;
};

/* Removes the batch's sessions (one short table-lock hold), retires them;
 * counted into *counter. Returns how many it removed. */
static uint32_t
kill_batch_flush(struct conntrack *ct, struct kill_batch *b,
		 uint64_t *counter)
{
	uint32_t removed = 0;

	rte_spinlock_lock(&ct->lock);
	for (unsigned i = 0; i < b->n; i++)
		removed += ct_conn_kill_locked(ct, b->c[i]);
	*counter += removed;
	rte_spinlock_unlock(&ct->lock);
	for (unsigned i = 0; i < b->n; i++)
		retire(ct, b->c[i]);
	b->n = 0;
	return removed;
}

uint32_t
conntrack_sweep(struct conntrack *ct, uint64_t now, uint32_t budget)
{
	struct kill_batch b = { .n = 0 };
	uint32_t removed = 0, visited = 0;

	pthread_mutex_lock(&ct->sweep_mutex);
	reclaim(ct, false);
	drain_new(ct);
	for (int lists = 0; lists <= CT_TM_N && visited < budget; lists++) {
		uint32_t tm = ct->sweep_tm;
		struct ct_conn *c = ct->cursor[tm] ? ct->cursor[tm]
						   : TAILQ_FIRST(&ct->exp_list[tm]);
		while (c && visited < budget) {
			struct ct_conn *next = TAILQ_NEXT(c, exp);
			uint8_t now_tm = __atomic_load_n(&c->tm,
							 __ATOMIC_RELAXED);
			visited++;
			if (c->dead) {
				/* removed by a PMD (replaced) */
				retire(ct, c);
			} else if (ct_conn_expired(c, now)) {
				/* Final: a PMD never refreshes an expired
				 * session, it treats it as absent. */
				b.c[b.n++] = c;
				if (b.n == CT_KILL_BATCH) {
					ct->cursor[tm] = next;
					removed += kill_batch_flush(ct, &b,
								&ct->expired);
					next = ct->cursor[tm];
				}
			} else if (now_tm != tm) {
				TAILQ_REMOVE(&ct->exp_list[tm], c, exp);
				c->list_tm = now_tm;
				TAILQ_INSERT_TAIL(&ct->exp_list[now_tm], c, exp);
			}
			c = next;
		}
		ct->cursor[tm] = c;
		if (b.n) {
			removed += kill_batch_flush(ct, &b, &ct->expired);
			c = ct->cursor[tm];
		}
		if (!c)
			ct->sweep_tm = (tm + 1) % CT_TM_N;
	}
	pthread_mutex_unlock(&ct->sweep_mutex);
	return removed;
}

typedef bool (*conn_match_fn)(const struct ct_conn *c, const void *arg);

static uint32_t
flush_matching(struct conntrack *ct, conn_match_fn match, const void *arg)
{
	struct kill_batch b = { .n = 0 };
	uint32_t removed = 0;

	pthread_mutex_lock(&ct->sweep_mutex);
	drain_new(ct);
	for (int tm = 0; tm < CT_TM_N; tm++) {
		struct ct_conn *c = TAILQ_FIRST(&ct->exp_list[tm]), *next;
		for (; c; c = next) {
			next = TAILQ_NEXT(c, exp);
			if (!c->dead && !match(c, arg))
				continue;
			b.c[b.n++] = c;
			if (b.n == CT_KILL_BATCH) {
				/* next may not be retired by the flush:
				 * it is not in the batch. */
				removed += kill_batch_flush(ct, &b,
							    &ct->flushed);
			}
		}
		if (b.n)
			removed += kill_batch_flush(ct, &b, &ct->flushed);
	}
	reclaim(ct, false);
	pthread_mutex_unlock(&ct->sweep_mutex);
	return removed;
}

static bool
match_all(const struct ct_conn *c, const void *arg)
{
	(void)c;
	(void)arg;
	return true;
}

static bool
match_zone(const struct ct_conn *c, const void *arg)
{
	return c->key[0].zone == *(const uint16_t *)arg;
}

static bool
match_conn(const struct ct_conn *c, const void *arg)
{
	return c == arg;
}

uint32_t
conntrack_flush(struct conntrack *ct)
{
	return flush_matching(ct, match_all, NULL);
}

uint32_t
conntrack_flush_zone(struct conntrack *ct, uint16_t zone)
{
	return flush_matching(ct, match_zone, &zone);
}

uint32_t
conntrack_flush_tuple(struct conntrack *ct, uint16_t zone,
		      const struct ct_tuple *t)
{
	struct ct_key k = {
		.src = t->src, .dst = t->dst, .sport = t->sport,
		.dport = t->dport, .zone = zone, .proto = t->proto,
	};
	void *data;

	if (t->v6)
		ct_key6_set_addrs(&k, t->src6, t->dst6);
	if (rte_hash_lookup_data(ct->table, &k, &data) < 0)
		return 0;
	if (t->v6) {	/* the digest's key: the addresses say */
		const struct ct_conn *c = (const void *)((uintptr_t)data &
							 ~(uintptr_t)1);
		struct ct_addr6 a;
		memcpy(a.src, t->src6, 16);
		memcpy(a.dst, t->dst6, 16);
		if (!ct_conn_v6_matches(c, (uintptr_t)data & 1, &a))
			return 0;
	}
	/* The session stays allocated: only this thread frees. */
	return flush_matching(ct, match_conn,
			      (void *)((uintptr_t)data & ~(uintptr_t)1));
}

/* Whether key k (of session c) has tuple t's fields */
static bool
tuple_matches(const struct ct_flush_tuple *t, const struct ct_conn *c,
	      const struct ct_key *k, bool icmp)
{
	if (k->v6) {
		const uint8_t *s, *d;	/* the reply's: after NAT */
		ct_conn_addrs6(c, k != &c->key[0], &s, &d);
		if (((t->set & CT_FM_SRC) && memcmp(t->src6, s, 16)) ||
		    ((t->set & CT_FM_DST) && memcmp(t->dst6, d, 16)))
			return false;
	} else if ((t->src && t->src != k->src) ||
		   (t->dst && t->dst != k->dst)) {
		return false;
	}
	if (icmp)	/* OVS 3.1: id, type and code exactly, given or not */
		return t->sport == k->sport && t->dport == k->dport &&
		       !(t->set & CT_FM_CODE);
	return (!t->sport || t->sport == k->sport) &&
	       (!t->dport || t->dport == k->dport);
}

static bool
match_fields(const struct ct_conn *c, const void *arg)
{
	const struct ct_flush_match *m = arg;
	bool icmp = m->proto == IPPROTO_ICMP || m->proto == IPPROTO_ICMPV6;

	return (m->zone < 0 || c->key[0].zone == m->zone) &&
	       (!m->family || (m->family == 6) == c->key[0].v6) &&
	       (!m->proto || c->key[0].proto == m->proto) &&
	       tuple_matches(&m->tuple[0], c, &c->key[0], icmp) &&
	       tuple_matches(&m->tuple[1], c, &c->key[1], icmp);
}

uint32_t
conntrack_flush_match(struct conntrack *ct, const struct ct_flush_match *m)
{
	return flush_matching(ct, match_fields, m);
}

void
ct_expiry_fini(struct conntrack *ct)
{
	flush_matching(ct, match_all, NULL);
	pthread_mutex_lock(&ct->sweep_mutex);
	reclaim(ct, true);
	pthread_mutex_unlock(&ct->sweep_mutex);
	pthread_mutex_destroy(&ct->sweep_mutex);
}
