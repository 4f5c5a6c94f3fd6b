/* SPDX-License-Identifier: BSD-3-Clause
 * The software E810 Flow Director: see fdir_model.h for what it models and
 * the ice PMD code each rule follows.
 *
 * Rule table: per model, a fixed array of buckets of singly linked chains,
 * the classic RCU list. A reader hashes the packet's input-set fields (masked
 * by its flow type's current input set, which is part of the key, so a
 * reader with a stale input set can never match a rule of another one) and
 * walks one chain. The writer links a fully built node with a release store
 * and unlinks with a release store; a node is freed once its grace period
 * has passed (a token from rte_rcu_qsbr_start(), checked without waiting
 * on later writer calls), so that destroy returns at once, as ice's does
 * once the NIC has taken the rule out.
 *
 * This file holds the rule store: the shared capacity pool, create/free,
 * the table and its writer (create/destroy rule, statistics). The
 * whitelist a rule must pass is fdir_model_parse.c; the rx-callback
 * marking the PMDs run is fdir_model_rx.c.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_random.h>
#include <rte_spinlock.h>
#include "fdir_model_priv.h"

/* ---- pool ---- */

struct fdir_model_pool *
fdir_model_pool_create(uint32_t size)
{
	struct fdir_model_pool *p = calloc(1, sizeof *p);

	if (p)
		p->size = size;
	return p;
}

void
fdir_model_pool_free(struct fdir_model_pool *p)
{
	free(p);
}

uint32_t
fdir_model_pool_used(const struct fdir_model_pool *p)
{
	return __atomic_load_n(&p->used, __ATOMIC_RELAXED);
}

static bool
pool_take(struct fdir_model_pool *p)
{
	uint32_t u = __atomic_load_n(&p->used, __ATOMIC_RELAXED);

	do {
		if (u >= p->size)
			return false;
	} while (!__atomic_compare_exchange_n(&p->used, &u, u + 1, false,
					      __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	return true;
}

static void
pool_give(struct fdir_model_pool *p)
{
	__atomic_fetch_sub(&p->used, 1, __ATOMIC_RELAXED);
}

/* ---- create / free ---- */

struct fdir_model *
fdir_model_create(uint16_t eth_port_id, const struct fdir_model_limits *lim,
		  struct rte_rcu_qsbr *qsbr)
{
	struct fdir_model *m;
	uint32_t cap, nb = 1;

	if (!lim || !lim->guar) {
		rte_errno = EINVAL;
		return NULL;
	}
	m = calloc(1, sizeof *m);
	if (!m) {
		rte_errno = ENOMEM;
		return NULL;
	}
	m->port = eth_port_id;
	m->n_rxq = lim->n_rxq;
	if (eth_port_id != UINT16_MAX) {
		struct rte_eth_dev_info info;

		if (rte_eth_dev_info_get(eth_port_id, &info)) {
			free(m);
			rte_errno = ENODEV;
			return NULL;
		}
		m->n_rxq = info.nb_rx_queues;
	}
	/* ice registers no tunnel port of its own: until
	 * fdir_model_udp_tunnel_port_add(), 4789 is plain UDP */
	m->tunnel_port = 0;
	m->profile = lim->profile;
	if ((unsigned)m->profile >= FDIR_PROFILE_N) {
		free(m);
		rte_errno = EINVAL;
		return NULL;
	}
	m->qsbr = qsbr;
	nh_secret_draw(&m->hsecret, rte_rand);
	rte_spinlock_init(&m->wlock);
	m->guar = lim->guar;
	if (lim->pool) {
		m->pool = lim->pool;
	} else {
		uint32_t np = lim->n_ports ? lim->n_ports : 1;
		uint32_t g = np * lim->guar;

		m->pool = fdir_model_pool_create(
			g < FDIR_E810_TOTAL_FILTERS ?
			FDIR_E810_TOTAL_FILTERS - g : 0);
		m->own_pool = true;
		if (!m->pool) {
			free(m);
			rte_errno = ENOMEM;
			return NULL;
		}
	}
	cap = m->guar + m->pool->size;
	while (nb < 2 * cap)
		nb <<= 1;
	m->bucket_mask = nb - 1;
	m->buckets = calloc(nb, sizeof *m->buckets);
	m->dup_buckets = calloc(nb, sizeof *m->dup_buckets);
	if (!m->buckets || !m->dup_buckets) {
		fdir_model_free(m);
		rte_errno = ENOMEM;
		return NULL;
	}
	m->st.guar = m->guar;
	m->st.pool_size = m->pool->size;
	return m;
}

void
fdir_model_free(struct fdir_model *m)
{
	struct fdir_model_rule *r, *next;

	if (!m)
		return;
	fdir_model_detach(m);
	if (m->buckets)
		for (uint32_t i = 0; i <= m->bucket_mask; i++)
			__atomic_store_n(&m->buckets[i], NULL,
					 __ATOMIC_RELEASE);
	if (m->qsbr)
		rte_rcu_qsbr_synchronize(m->qsbr, RTE_QSBR_THRID_INVALID);
	for (r = m->all; r; r = next) {
		next = r->all_next;
		if (r->in_pool)
			pool_give(m->pool);
		free(r);
	}
	for (r = m->retired; r; r = next) {	/* past the grace period too */
		next = r->all_next;
		free(r);
	}
	free(m->buckets);
	free(m->dup_buckets);
	if (m->own_pool)
		fdir_model_pool_free(m->pool);
	free(m);
}

/* ---- the table ---- */

/* The rx callback looks every packet up here and the rules come from
 * megaflows, whose keys a tenant chooses: an unkeyed CRC (linear: keys
 * with one CRC follow from a linear system) would let it put all of its
 * rules in one chain, walked for every packet. NH under the model's random
 * secret instead (nh_hash.h); a chain is otherwise bounded only by the
 * capacity (guaranteed + pool, at most FDIR_E810_TOTAL_FILTERS). */
_Static_assert(sizeof(struct fdir_key) % 8 == 0 &&
	       sizeof(struct fdir_key) <= 8 * NH_MAX_WORDS, "fdir_key words");
_Static_assert(sizeof(struct fdir_dup_key) % 8 == 0 &&
	       sizeof(struct fdir_dup_key) <= 8 * NH_MAX_WORDS,
	       "fdir_dup_key words");

static inline uint32_t
key_hash(const struct fdir_model *m, const struct fdir_key *k)
{
	uint64_t w[sizeof *k / 8];

	memcpy(w, k, sizeof w);
	return nh_hash_words(&m->hsecret, w, RTE_DIM(w));
}

static inline bool
key_eq(const struct fdir_key *a, const struct fdir_key *b)
{
	return !memcmp(a, b, sizeof *a);
}

struct fdir_model_rule *
fdir_model_table_find(struct fdir_model *m, const struct fdir_key *k)
{
	struct fdir_model_rule *r = __atomic_load_n(
		&m->buckets[key_hash(m, k) & m->bucket_mask], __ATOMIC_ACQUIRE);

	for (; r; r = __atomic_load_n(&r->next, __ATOMIC_ACQUIRE))
		if (key_eq(&r->key, k))
			return r;
	return NULL;
}

/* Writer only, but from the same keys: keyed as key_hash(), with the
 * secret's last words so the two tables do not share collisions. */
static inline uint32_t
dup_hash(const struct fdir_model *m, const struct fdir_dup_key *k)
{
	uint64_t w[sizeof *k / 8];
	struct nh_secret s = m->hsecret;

	for (unsigned i = 0; i < RTE_DIM(w); i++)
		s.k[i] = m->hsecret.k[NH_MAX_WORDS - 1 - i];
	memcpy(w, k, sizeof w);
	return nh_hash_words(&s, w, RTE_DIM(w));
}

/* ice_fdir_entry_lookup() on ice's key: writer only */
static struct fdir_model_rule *
dup_find(struct fdir_model *m, const struct fdir_dup_key *k)
{
	struct fdir_model_rule *r =
		m->dup_buckets[dup_hash(m, k) & m->bucket_mask];

	for (; r; r = r->dup_next)
		if (!memcmp(&r->dup, k, sizeof *k))
			return r;
	return NULL;
}

/* ice_fdir_input_set_conf() -> ice_fdir_cur_prof_conflict()
 * (ice_fdir_filter.c v22.11.11:674-707, 1078-1132; v26.07:719-752,
 * 1295-): the same
 * input set is "Profile already exists" (kept as it is); another one
 * replaces the profile if it has no rules, and fails with -EINVAL if it
 * has. A profile with no rules stays programmed (nothing removes it), so
 * it keeps its packet types (prof_seq). ice compares only the inner
 * segment of a tunnel profile; the model compares the whole input set,
 * the safe side (our VXLAN rules all have the same outer fields). */
static int
profile_conf(struct fdir_model *m, uint32_t t, uint32_t inset)
{
	if (m->prof_seq[t] && m->inset[t] == inset)
		return 0;
	if (m->prof_seq[t] && m->n_rules[t])
		return -EINVAL;
	__atomic_store_n(&m->inset[t], inset, __ATOMIC_RELEASE);
	__atomic_store_n(&m->prof_seq[t], ++m->prof_clock, __ATOMIC_RELEASE);
	return 0;
}

static struct fdir_model_rule *
reject(struct fdir_model *m, enum fdir_model_reject why)
{
	m->st.rejected[why]++;
	return NULL;
}

/* ---- reclaiming destroyed rules (writer, under wlock) ---- */

/* Destroyed rules kept for their readers before a destroy waits for a
 * grace period instead: a bound on the memory if the readers stall (a
 * PMD that never reports quiescent), never reached while they run. */
#define FDIR_RETIRED_MAX 65536

/* Frees the retired rules whose grace period has passed, oldest first,
 * without waiting: tokens only grow, so the first one still read stops
 * the walk. */
static void
reclaim(struct fdir_model *m)
{
	struct fdir_model_rule *r;

	while ((r = m->retired) &&
	       rte_rcu_qsbr_check(m->qsbr, r->retire_token, false) == 1) {
		m->retired = r->all_next;
		if (!m->retired)
			m->retired_tail = NULL;
		m->n_retired--;
		free(r);
	}
}

/* h is out of the table: readers may still be on it (or walking past it
 * through h->next, which stays valid), so it is freed after their grace
 * period. Not waited for here: rte_rcu_qsbr_synchronize() spins until
 * every PMD has finished its burst, a spin that, with more busy threads
 * than CPUs, lasts until a descheduled PMD runs again (the offload
 * thread, which destroys, burned its CPU so in dpbench --zipf). */
static void
retire(struct fdir_model *m, struct fdir_model_rule *h)
{
	if (!m->qsbr) {		/* no concurrent reader */
		free(h);
		return;
	}
	if (m->n_retired >= FDIR_RETIRED_MAX) {
		rte_rcu_qsbr_synchronize(m->qsbr, RTE_QSBR_THRID_INVALID);
		reclaim(m);
	}
	h->all_next = NULL;
	h->retire_token = rte_rcu_qsbr_start(m->qsbr);
	if (m->retired_tail)
		m->retired_tail->all_next = h;
	else
		m->retired = h;
	m->retired_tail = h;
	m->n_retired++;
	reclaim(m);
}

struct fdir_model_rule *
fdir_model_create_rule(struct fdir_model *m, const struct offload_rule *r,
		       struct rte_flow_error *error)
{
	struct fdir_model_rule *h, **b;
	enum fdir_model_reject why;
	struct fdir_parsed p;
	int ret;

	rte_spinlock_lock(&m->wlock);
	reclaim(m);
	if ((ret = fdir_model_parse_rule(m, r, &p, &why, error))) {
		h = reject(m, why);
		goto out;
	}
	/* ice_fdir_create_filter() (v22.11.11:1316-1472, v26.07:1539-1696):
	 * ice's duplicate key
	 * first (v22.11.11:1391-1397) ... */
	if (dup_find(m, &p.dup) || fdir_model_table_find(m, &p.key)) {
		rte_flow_error_set(error, EEXIST, RTE_FLOW_ERROR_TYPE_HANDLE,
				   NULL, ICE_FDIR_MSG_EXISTS);
		h = reject(m, FDIR_REJ_EXIST);
		goto out;
	}
	/* ... then the profile: one input set per flow type while it has
	 * rules (v22.11.11:1410-1418) ... */
	uint32_t t = p.key.type;

	if (profile_conf(m, t, p.key.inset)) {
		rte_flow_error_set(error, EINVAL, RTE_FLOW_ERROR_TYPE_HANDLE,
				   NULL, ICE_FDIR_MSG_PROFILE);
		h = reject(m, FDIR_REJ_INSET);
		goto out;
	}
	/* ... then programming (ice_fdir_add_del_filter, v22.11.11:
	 * 1214-1240, v26.07:1423-):
	 * the training packet of a tunnel rule needs the tunnel's open UDP
	 * port (base/ice_fdir.c ice_fdir_get_gen_prgm_pkt v22.11.11:4052-4053,
	 * v26.07:4077-4078):
	 * none -> "Generate dummy packet failed" in the log, -EINVAL, and
	 * the create reports "Add filter rule failed." (v22.11.11:1434-1439).
	 * Nothing is programmed, so no capacity is used. */
	if (t == OFFLOAD_FT_VXLAN_IPV4 &&
	    !__atomic_load_n(&m->tunnel_port, __ATOMIC_RELAXED)) {
		rte_flow_error_set(error, EINVAL, RTE_FLOW_ERROR_TYPE_HANDLE,
				   NULL, ICE_FDIR_MSG_NO_TUNNEL);
		h = reject(m, FDIR_REJ_NO_TUNNEL);
		goto out;
	}
	/* capacity: this port's guaranteed share first, then the pool */
	bool in_pool = false;

	if (m->st.guar_used >= m->guar) {
		if (!pool_take(m->pool)) {
			/* ice: the programming status fails, -EINVAL
			 * (ice_check_fdir_programming_status) */
			rte_flow_error_set(error, EINVAL,
					   RTE_FLOW_ERROR_TYPE_HANDLE, NULL,
					   ICE_FDIR_MSG_NOSPC);
			h = reject(m, FDIR_REJ_NOSPC);
			goto out;
		}
		in_pool = true;
	}
	h = calloc(1, sizeof *h);
	if (!h) {
		if (in_pool)
			pool_give(m->pool);
		rte_flow_error_set(error, ENOMEM, RTE_FLOW_ERROR_TYPE_HANDLE,
				   NULL, "Failed to allocate memory");
		goto out;
	}
	h->key = p.key;
	h->mark = p.mark;
	h->q_first = p.q_first;
	h->q_num = p.q_num;
	h->in_pool = in_pool;
	if (in_pool)
		m->st.pool_used++;
	else
		m->st.guar_used++;
	h->dup = p.dup;
	m->n_rules[t]++;
	b = &m->dup_buckets[dup_hash(m, &h->dup) & m->bucket_mask];
	h->dup_next = *b;
	*b = h;

	h->all_next = m->all;
	if (m->all)
		m->all->all_prev = h;
	m->all = h;

	b = &m->buckets[key_hash(m, &h->key) & m->bucket_mask];
	h->next = *b;
	__atomic_store_n(b, h, __ATOMIC_RELEASE);	/* publish */
	m->st.installed++;
	m->st.created++;
out:
	rte_spinlock_unlock(&m->wlock);
	return h;	/* NULL: rte_flow_error_set() has set rte_errno */
}

int
fdir_model_destroy_rule(struct fdir_model *m, struct fdir_model_rule *h,
			struct rte_flow_error *error)
{
	struct fdir_model_rule **pp;

	if (!h)
		return fail(error, EINVAL, RTE_FLOW_ERROR_TYPE_HANDLE, NULL,
			    "no rule");
	rte_spinlock_lock(&m->wlock);
	pp = &m->buckets[key_hash(m, &h->key) & m->bucket_mask];
	while (*pp && *pp != h)
		pp = &(*pp)->next;
	if (!*pp) {
		rte_spinlock_unlock(&m->wlock);
		return fail(error, ENOENT, RTE_FLOW_ERROR_TYPE_HANDLE, NULL,
			    "Can't find entry.");
	}
	__atomic_store_n(pp, h->next, __ATOMIC_RELEASE);	/* unlink */
	for (pp = &m->dup_buckets[dup_hash(m, &h->dup) & m->bucket_mask];
	     *pp != h; pp = &(*pp)->dup_next)
		;
	*pp = h->dup_next;

	if (h->all_prev)
		h->all_prev->all_next = h->all_next;
	else
		m->all = h->all_next;
	if (h->all_next)
		h->all_next->all_prev = h->all_prev;
	/* 26.07 removes a flow type's profile with its last rule
	 * (ice_fdir_filter.c v26.07:1782-1791, commit c05f8f2e1d); up to
	 * 26.03 nothing does, and it keeps its packet types */
	if (!--m->n_rules[h->key.type] &&
	    m->profile == FDIR_PROFILE_ICE_2607) {
		__atomic_store_n(&m->prof_seq[h->key.type], 0,
				 __ATOMIC_RELEASE);
		__atomic_store_n(&m->inset[h->key.type], 0, __ATOMIC_RELEASE);
	}
	if (h->in_pool) {
		pool_give(m->pool);
		m->st.pool_used--;
	} else {
		m->st.guar_used--;
	}
	m->st.installed--;
	m->st.destroyed++;
	retire(m, h);
	rte_spinlock_unlock(&m->wlock);
	return 0;
}

void
fdir_model_get_stats(const struct fdir_model *m, struct fdir_model_stats *st)
{
	*st = m->st;
	st->pkts_marked = __atomic_load_n(&m->st.pkts_marked,
					  __ATOMIC_RELAXED);
	st->rss_misqueued = __atomic_load_n(&m->st.rss_misqueued,
					    __ATOMIC_RELAXED);
}

#define FDIR_X_NAME(e, name) [e] = name,

const char *
fdir_model_reject_name(enum fdir_model_reject r)
{
	static const char *const names[FDIR_REJ_N] = {
		FDIR_MODEL_REJECTS(FDIR_X_NAME)
	};
	return r < FDIR_REJ_N ? names[r] : "?";
}

static const char *const profile_names[FDIR_PROFILE_N] = {
	FDIR_MODEL_PROFILES(FDIR_X_NAME)
};

int
fdir_model_profile_parse(const char *name, enum fdir_model_profile *p)
{
	for (int i = 0; name && i < FDIR_PROFILE_N; i++)
		if (!strcmp(name, profile_names[i])) {
			*p = i;
			return 0;
		}
	return -EINVAL;
}

const char *
fdir_model_profile_name(enum fdir_model_profile p)
{
	return (unsigned)p < FDIR_PROFILE_N ? profile_names[p] : "?";
}

/* ice_dev_udp_tunnel_port_add() (ice_ethdev.c v22.11.11:5793-5817,
 * v26.07:7088-7112) -> ice_create_tunnel() (base/ice_flex_pipe.c
 * v22.11.11 and v26.07:542-615): a port already open is a reference more
 * (0); otherwise a free VXLAN entry of the package's parser boost TCAM
 * takes it, and none free returns ICE_ERR_OUT_OF_RANGE, an ice status
 * (-13) that ice passes up unchanged, not an errno. The model has one
 * VXLAN entry: the entries are the package's TNL_VXLAN_PF<n> boost-TCAM
 * labels (base/ice_flex_pipe.c:104-131), how many per PF the shipped DDP
 * has is not known here (one assumed). Port 0 is refused
 * (-EINVAL): ice would open it, which no caller means. */
#define ICE_ERR_OUT_OF_RANGE_STATUS (-13)

int
fdir_model_udp_tunnel_port_add(struct fdir_model *m, uint16_t udp_port)
{
	rte_be16_t p = rte_cpu_to_be_16(udp_port);
	int ret = 0;

	if (!m || !udp_port)
		return -EINVAL;
	rte_spinlock_lock(&m->wlock);
	if (!m->tunnel_port)
		__atomic_store_n(&m->tunnel_port, p, __ATOMIC_RELEASE);
	else if (m->tunnel_port != p)
		ret = ICE_ERR_OUT_OF_RANGE_STATUS;
	rte_spinlock_unlock(&m->wlock);
	return ret;
}
