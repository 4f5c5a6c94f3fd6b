/* SPDX-License-Identifier: BSD-3-Clause
 * The software E810 Flow Director: see fdir_model.h for what it models and
 * the ice PMD code each rule follows.
 *
 * Rule table: per model, a fixed array of buckets of singly linked chains,
 * the classic RCU list. A reader hashes the packet's input-set fields (masked
 * by its flow type's current input set, which is part of the key, so a
 * reader with a stale input set can never match a rule of another one) and
 * walks one chain. The writer links a fully built node with a release store
 * and unlinks with a release store; a node is freed after
 * rte_rcu_qsbr_synchronize().
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <rte_byteorder.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_hash_crc.h>
#include <rte_ip.h>
#include <rte_malloc.h>
#include <rte_spinlock.h>
#include <rte_udp.h>
#include <rte_version.h>
#include "fdir_model.h"

/* input-set fields */
#define IS_O_SRC (1u << 0)
#define IS_O_DST (1u << 1)
#define IS_SPORT (1u << 2)
#define IS_DPORT (1u << 3)
#define IS_VNI   (1u << 4)
#define IS_I_SRC (1u << 5)
#define IS_I_DST (1u << 6)

/* Packet fields a rule can match, network order; masked by the input set,
 * which is part of the key. */
struct fdir_key {
	uint32_t type;
	uint32_t inset;
	rte_be32_t o_src, o_dst;
	rte_be16_t sport, dport;
	rte_be32_t vni;		/* 24 bits, host order */
	rte_be32_t i_src, i_dst;
};

struct fdir_model_rule {
	struct fdir_model_rule *next;	/* bucket chain (RCU) */
	struct fdir_model_rule *all_prev, *all_next;	/* writer only */
	struct fdir_key key;
	uint32_t mark;
	uint16_t q_first, q_num;	/* RSS region, q_num 0: none */
	bool in_pool;
};

struct fdir_model_pool {
	uint32_t size;
	uint32_t used;		/* atomic */
};

struct fdir_model {
	uint16_t port;
	uint16_t n_rxq;
	rte_be16_t vxlan_port;
	struct rte_rcu_qsbr *qsbr;
	rte_spinlock_t wlock;

	uint32_t guar;
	struct fdir_model_pool *pool;
	bool own_pool;

	/* per flow type profile: read by the PMDs */
	uint32_t inset[OFFLOAD_FT_N];
	uint32_t n_rules[OFFLOAD_FT_N];	/* writer */

	struct fdir_model_rule *all;	/* writer */
	struct fdir_model_stats st;	/* writer fields; rx counters atomic */

	const struct rte_eth_rxtx_callback *cbs[RTE_MAX_QUEUES_PER_PORT];
	uint16_t cb_port, n_cbs;

	uint32_t bucket_mask;
	struct fdir_model_rule **buckets;
};

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
	m->vxlan_port = rte_cpu_to_be_16(lim->vxlan_port ? lim->vxlan_port :
					 FDIR_VXLAN_PORT_DEFAULT);
	m->qsbr = qsbr;
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
	if (!m->buckets) {
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
	free(m->buckets);
	if (m->own_pool)
		fdir_model_pool_free(m->pool);
	free(m);
}

/* ---- parsing a rule (ice_fdir_parse_pattern / _action, narrowed) ---- */

static int
fail(struct rte_flow_error *e, int code, enum rte_flow_error_type t,
     const void *cause, const char *msg)
{
	rte_flow_error_set(e, code, t, cause, msg);
	return -code;
}

static bool
zero(const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		if (b[i])
			return false;
	return true;
}

/* An item with no spec/mask, or an all-zero mask: matches anything. */
static bool
item_empty(const struct rte_flow_item *it, size_t sz)
{
	return !it->mask || !it->spec || zero(it->mask, sz);
}

/* IPv4: only src/dst addresses, each all-or-nothing (ice: "Mask for IPv4
 * src/dst addrs not supported"; version_ihl/total_length/checksum masks
 * -> "Invalid IPv4 mask"). ice also takes tos/ttl/proto; our whitelist
 * does not. */
static int
parse_ipv4(const struct rte_flow_item *it, uint32_t src_bit, uint32_t dst_bit,
	   uint32_t *inset, rte_be32_t *src, rte_be32_t *dst,
	   struct rte_flow_error *e)
{
	const struct rte_flow_item_ipv4 *s = it->spec, *k = it->mask;
	struct rte_ipv4_hdr rest;

	if (item_empty(it, sizeof *k))
		return 0;
	rest = k->hdr;
	rest.src_addr = rest.dst_addr = 0;
	if (!zero(&rest, sizeof rest))
		return fail(e, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM_MASK, it,
			    "IPv4: only src/dst addresses are matched");
	if ((k->hdr.src_addr && k->hdr.src_addr != UINT32_MAX) ||
	    (k->hdr.dst_addr && k->hdr.dst_addr != UINT32_MAX))
		return fail(e, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM_MASK, it,
			    "IPv4 address masks are all or nothing");
	if (k->hdr.src_addr) {
		*inset |= src_bit;
		*src = s->hdr.src_addr;
	}
	if (k->hdr.dst_addr) {
		*inset |= dst_bit;
		*dst = s->hdr.dst_addr;
	}
	return 0;
}

static int
parse_eth_empty(const struct rte_flow_item *it, struct rte_flow_error *e)
{
	if (!item_empty(it, sizeof(struct rte_flow_item_eth)))
		return fail(e, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM_MASK, it,
			    "eth item must be empty (no MAC/ethertype match)");
	return 0;
}

static int
parse_pattern(const struct fdir_model *m, const struct offload_rule *r,
	      struct fdir_key *key, struct rte_flow_error *e)
{
	const struct rte_flow_item *it[OFFLOAD_MAX_ITEMS];
	unsigned n = 0;
	int ret;

	(void)m;
	memset(key, 0, sizeof *key);
	for (unsigned i = 0; ; i++) {
		if (i == OFFLOAD_MAX_ITEMS)
			return fail(e, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM_NUM,
				    NULL, "pattern not END-terminated");
		const struct rte_flow_item *x = &r->items[i];

		if (x->type == RTE_FLOW_ITEM_TYPE_END)
			break;
		if (x->type == RTE_FLOW_ITEM_TYPE_VOID)	/* ice skips it */
			continue;
		if (x->last)	/* ice: "Not support range" */
			return fail(e, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM_LAST,
				    x, "ranges are not supported");
		it[n++] = x;
	}

	static const enum rte_flow_item_type plain[] = {
		RTE_FLOW_ITEM_TYPE_ETH, RTE_FLOW_ITEM_TYPE_IPV4,
		RTE_FLOW_ITEM_TYPE_UDP };
	static const enum rte_flow_item_type vxlan[] = {
		RTE_FLOW_ITEM_TYPE_ETH, RTE_FLOW_ITEM_TYPE_IPV4,
		RTE_FLOW_ITEM_TYPE_UDP, RTE_FLOW_ITEM_TYPE_VXLAN,
		RTE_FLOW_ITEM_TYPE_ETH, RTE_FLOW_ITEM_TYPE_IPV4 };
	const enum rte_flow_item_type *want;
	unsigned nwant;

	if (r->type == OFFLOAD_FT_IPV4_UDP) {
		want = plain;
		nwant = RTE_DIM(plain);
	} else if (r->type == OFFLOAD_FT_VXLAN_IPV4) {
		want = vxlan;
		nwant = RTE_DIM(vxlan);
	} else {
		return fail(e, EINVAL, RTE_FLOW_ERROR_TYPE_UNSPECIFIED, NULL,
			    "unknown flow type");
	}
	if (n != nwant)
		return fail(e, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM, NULL,
			    "pattern is not eth/ipv4/udp[/vxlan/eth/ipv4]");
	for (unsigned i = 0; i < n; i++)
		if (it[i]->type != want[i])
			return fail(e, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM, it[i],
				    "pattern is not eth/ipv4/udp"
				    "[/vxlan/eth/ipv4]");
	key->type = r->type;

	if ((ret = parse_eth_empty(it[0], e)))
		return ret;
	if ((ret = parse_ipv4(it[1], IS_O_SRC, IS_O_DST, &key->inset,
			      &key->o_src, &key->o_dst, e)))
		return ret;

	/* udp */
	const struct rte_flow_item_udp *us = it[2]->spec, *um = it[2]->mask;

	if (!item_empty(it[2], sizeof *um)) {
		if (r->type == OFFLOAD_FT_VXLAN_IPV4)
			/* ice_fdir_parse(): ICE_FDIR_INSET_ETH_IPV4_VXLAN has
			 * no UDP port -> "Invalid input set" */
			return fail(e, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM_SPEC,
				    it[2], "Invalid input set: no outer UDP "
				    "port match in a VXLAN rule");
		if (um->hdr.dgram_len || um->hdr.dgram_cksum)
			return fail(e, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM_MASK,
				    it[2], "Invalid UDP mask");
		if ((um->hdr.src_port && um->hdr.src_port != UINT16_MAX) ||
		    (um->hdr.dst_port && um->hdr.dst_port != UINT16_MAX))
			return fail(e, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM_MASK,
				    it[2], "UDP port masks are all or nothing");
		if (um->hdr.src_port) {
			key->inset |= IS_SPORT;
			key->sport = us->hdr.src_port;
		}
		if (um->hdr.dst_port) {
			key->inset |= IS_DPORT;
			key->dport = us->hdr.dst_port;
		}
	}

	if (r->type == OFFLOAD_FT_VXLAN_IPV4) {
		const struct rte_flow_item_vxlan *vs = it[3]->spec,
						 *vm = it[3]->mask;

		if (!item_empty(it[3], sizeof *vm)) {
			if (vm->hdr.vx_flags)
				return fail(e, EINVAL,
					    RTE_FLOW_ERROR_TYPE_ITEM_MASK,
					    it[3], "Invalid vxlan field");
			/* ice takes any non-zero VNI mask as the whole VNI;
			 * we accept only the full mask, not to change the
			 * rule's meaning silently. */
			if ((vm->hdr.vx_vni & RTE_BE32(0xffffff00)) !=
			    RTE_BE32(0xffffff00) || vm->hdr.vx_vni &
			    RTE_BE32(0xff))
				return fail(e, EINVAL,
					    RTE_FLOW_ERROR_TYPE_ITEM_MASK,
					    it[3], "VNI must be fully masked");
			key->inset |= IS_VNI;
			key->vni = rte_be_to_cpu_32(vs->hdr.vx_vni) >> 8;
		}
		if ((ret = parse_eth_empty(it[4], e)))
			return ret;
		if ((ret = parse_ipv4(it[5], IS_I_SRC, IS_I_DST, &key->inset,
				      &key->i_src, &key->i_dst, e)))
			return ret;
	}
	if (!key->inset)	/* ice_fdir_parse(): "Invalid input set" */
		return fail(e, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM_SPEC, NULL,
			    "Invalid input set (empty)");
	return 0;
}

static int
parse_actions(const struct fdir_model *m, const struct offload_rule *r,
	      uint32_t *mark, uint16_t *q_first, uint16_t *q_num,
	      struct rte_flow_error *e)
{
	unsigned n_mark = 0, n_dest = 0;

	*q_first = *q_num = 0;
	for (unsigned i = 0; ; i++) {
		if (i == OFFLOAD_MAX_ACTIONS)
			return fail(e, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION_NUM,
				    NULL, "actions not END-terminated");
		const struct rte_flow_action *a = &r->actions[i];

		if (a->type == RTE_FLOW_ACTION_TYPE_END)
			break;
		switch (a->type) {
		case RTE_FLOW_ACTION_TYPE_VOID:
			break;
		case RTE_FLOW_ACTION_TYPE_MARK: {
			const struct rte_flow_action_mark *mk = a->conf;

			if (!mk)
				return fail(e, EINVAL,
					    RTE_FLOW_ERROR_TYPE_ACTION_CONF,
					    a, "MARK without conf");
			if (++n_mark > 1)
				return fail(e, EINVAL,
					    RTE_FLOW_ERROR_TYPE_ACTION, a,
					    "Too many mark actions");
			/* ice_rxtx.c: flow_id 0xFFFFFFFF = no match */
			if (mk->id == UINT32_MAX)
				return fail(e, EINVAL,
					    RTE_FLOW_ERROR_TYPE_ACTION_CONF,
					    a, "mark 0xFFFFFFFF reads as no "
					    "match on the E810");
			*mark = mk->id;
			break;
		}
		case RTE_FLOW_ACTION_TYPE_RSS: {
			/* ice_fdir_parse_action_qregion() */
			const struct rte_flow_action_rss *rss = a->conf;

			if (++n_dest > 1)
				return fail(e, EINVAL,
					    RTE_FLOW_ERROR_TYPE_ACTION, a,
					    "Unsupported action combination");
			if (!rss || !rss->queue || rss->queue_num <= 1)
				return fail(e, EINVAL,
					    RTE_FLOW_ERROR_TYPE_ACTION, a,
					    "Queue region size can't be 0 "
					    "or 1.");
			for (uint32_t q = 0; q + 1 < rss->queue_num; q++)
				if (rss->queue[q + 1] != rss->queue[q] + 1)
					return fail(e, EINVAL,
						RTE_FLOW_ERROR_TYPE_ACTION, a,
						"Discontinuous queue region");
			if (rss->queue[rss->queue_num - 1] >= m->n_rxq)
				return fail(e, EINVAL,
					    RTE_FLOW_ERROR_TYPE_ACTION, a,
					    "Invalid queue region indexes.");
			if (!rte_is_power_of_2(rss->queue_num) ||
			    rss->queue_num > OFFLOAD_MAX_RSS_QUEUES)
				return fail(e, EINVAL,
					    RTE_FLOW_ERROR_TYPE_ACTION, a,
					    "The region size should be a power"
					    " of two up to 128");
			*q_first = rss->queue[0];
			*q_num = rss->queue_num;
			break;
		}
		default:
			/* ice also takes QUEUE, DROP, PASSTHRU, COUNT; the
			 * builder never makes them */
			return fail(e, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION, a,
				    "Invalid action.");
		}
	}
	if (!n_mark)
		return fail(e, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION, NULL,
			    "a MARK action is required");
	return 0;
}

static int
check_attr(const struct offload_rule *r, struct rte_flow_error *e)
{
	const struct rte_flow_attr *a = &r->attr;
	/* 22.11: group must be 0; from 23.11 group selects the engine and
	 * the Flow Director is group 2 (group 0: the switch filter, no
	 * MARK). */
	uint32_t fdir_group =
		RTE_VERSION >= RTE_VERSION_NUM(23, 11, 0, 0) ? 2 : 0;

	if (!a->ingress || a->egress || a->transfer)
		return fail(e, EINVAL, RTE_FLOW_ERROR_TYPE_ATTR, a,
			    "ingress only");
	if (a->priority)	/* without pipe-mode-support devarg */
		return fail(e, EINVAL, RTE_FLOW_ERROR_TYPE_ATTR_PRIORITY, a,
			    "priority must be 0");
	if (a->group != fdir_group)
		return fail(e, EINVAL, RTE_FLOW_ERROR_TYPE_ATTR_GROUP, a,
			    "group is not the Flow Director's");
	return 0;
}

struct parsed {
	struct fdir_key key;
	uint32_t mark;
	uint16_t q_first, q_num;
};

static int
parse_rule(struct fdir_model *m, const struct offload_rule *r,
	   struct parsed *p, enum fdir_model_reject *why,
	   struct rte_flow_error *e)
{
	int ret;

	if ((ret = check_attr(r, e))) {
		*why = FDIR_REJ_ATTR;
		return ret;
	}
	if ((ret = parse_pattern(m, r, &p->key, e))) {
		*why = FDIR_REJ_PATTERN;
		return ret;
	}
	if ((ret = parse_actions(m, r, &p->mark, &p->q_first, &p->q_num,
				 e))) {
		*why = FDIR_REJ_ACTION;
		return ret;
	}
	return 0;
}

int
fdir_model_validate(struct fdir_model *m, const struct offload_rule *r,
		    struct rte_flow_error *error)
{
	struct parsed p;
	enum fdir_model_reject why;

	int ret = parse_rule(m, r, &p, &why, error);
	if (ret)
		rte_errno = -ret;
	return ret;
}

/* ---- the table ---- */

static inline uint32_t
key_hash(const struct fdir_key *k)
{
	return rte_hash_crc(k, sizeof *k, 0x5eed);
}

static inline bool
key_eq(const struct fdir_key *a, const struct fdir_key *b)
{
	return !memcmp(a, b, sizeof *a);
}

static struct fdir_model_rule *
table_find(struct fdir_model *m, const struct fdir_key *k)
{
	struct fdir_model_rule *r = __atomic_load_n(
		&m->buckets[key_hash(k) & m->bucket_mask], __ATOMIC_ACQUIRE);

	for (; r; r = __atomic_load_n(&r->next, __ATOMIC_ACQUIRE))
		if (key_eq(&r->key, k))
			return r;
	return NULL;
}

static struct fdir_model_rule *
reject(struct fdir_model *m, enum fdir_model_reject why)
{
	m->st.rejected[why]++;
	return NULL;
}

struct fdir_model_rule *
fdir_model_create_rule(struct fdir_model *m, const struct offload_rule *r,
		       struct rte_flow_error *error)
{
	struct fdir_model_rule *h, **b;
	enum fdir_model_reject why;
	struct parsed p;
	int ret;

	rte_spinlock_lock(&m->wlock);
	if ((ret = parse_rule(m, r, &p, &why, error))) {
		h = reject(m, why);
		goto out;
	}
	/* ice_fdir_create_filter(): duplicate pattern first ... */
	if (table_find(m, &p.key)) {
		rte_flow_error_set(error, EEXIST, RTE_FLOW_ERROR_TYPE_HANDLE,
				   NULL, "Rule already exists!");
		h = reject(m, FDIR_REJ_EXIST);
		goto out;
	}
	/* ... then the profile: one input set per flow type while it has
	 * rules (ice_fdir_cur_prof_conflict() -> EINVAL) */
	uint32_t t = p.key.type;

	if (m->n_rules[t] && m->inset[t] != p.key.inset) {
		rte_flow_error_set(error, EINVAL, RTE_FLOW_ERROR_TYPE_HANDLE,
				   NULL, "Profile configure failed.");
		h = reject(m, FDIR_REJ_INSET);
		goto out;
	}
	/* capacity: this port's guaranteed share first, then the pool */
	bool in_pool = false;

	if (m->st.guar_used >= m->guar) {
		if (!pool_take(m->pool)) {
			rte_flow_error_set(error, ENOSPC,
					   RTE_FLOW_ERROR_TYPE_HANDLE, NULL,
					   "Flow Director table full");
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
	__atomic_store_n(&m->inset[t], p.key.inset, __ATOMIC_RELEASE);
	m->n_rules[t]++;

	h->all_next = m->all;
	if (m->all)
		m->all->all_prev = h;
	m->all = h;

	b = &m->buckets[key_hash(&h->key) & m->bucket_mask];
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
	pp = &m->buckets[key_hash(&h->key) & m->bucket_mask];
	while (*pp && *pp != h)
		pp = &(*pp)->next;
	if (!*pp) {
		rte_spinlock_unlock(&m->wlock);
		return fail(error, ENOENT, RTE_FLOW_ERROR_TYPE_HANDLE, NULL,
			    "Can't find entry.");
	}
	__atomic_store_n(pp, h->next, __ATOMIC_RELEASE);	/* unlink */

	if (h->all_prev)
		h->all_prev->all_next = h->all_next;
	else
		m->all = h->all_next;
	if (h->all_next)
		h->all_next->all_prev = h->all_prev;
	m->n_rules[h->key.type]--;
	if (h->in_pool) {
		pool_give(m->pool);
		m->st.pool_used--;
	} else {
		m->st.guar_used--;
	}
	m->st.installed--;
	m->st.destroyed++;
	rte_spinlock_unlock(&m->wlock);

	/* readers may still be on h (or walking past it through h->next,
	 * which stays valid): free after a grace period */
	if (m->qsbr)
		rte_rcu_qsbr_synchronize(m->qsbr, RTE_QSBR_THRID_INVALID);
	free(h);
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

const char *
fdir_model_reject_name(enum fdir_model_reject r)
{
	static const char *const names[FDIR_REJ_N] = {
		[FDIR_REJ_ATTR] = "attr",
		[FDIR_REJ_PATTERN] = "pattern",
		[FDIR_REJ_ACTION] = "action",
		[FDIR_REJ_INSET] = "input-set-conflict",
		[FDIR_REJ_EXIST] = "exists",
		[FDIR_REJ_NOSPC] = "no-space",
	};
	return r < FDIR_REJ_N ? names[r] : "?";
}

/* ---- rx: the NIC's parser and match ---- */

/* Non-fragmented IPv4 at off; returns its header length or 0. */
static inline uint32_t
ipv4_ok(const struct rte_mbuf *mb, uint32_t off, struct rte_ipv4_hdr *ip)
{
	const struct rte_ipv4_hdr *p =
		rte_pktmbuf_read(mb, off, sizeof *ip, ip);
	uint32_t hl;

	if (!p)
		return 0;
	if (p != ip)
		*ip = *p;
	if ((ip->version_ihl >> 4) != 4)
		return 0;
	hl = (ip->version_ihl & 0xf) * 4u;
	if (hl < sizeof *ip || off + hl > rte_pktmbuf_pkt_len(mb))
		return 0;
	/* MF or an offset: a fragment, another packet type on the NIC */
	if (ip->fragment_offset & RTE_BE16(RTE_IPV4_HDR_MF_FLAG |
					   RTE_IPV4_HDR_OFFSET_MASK))
		return 0;
	return hl;
}

static inline bool
eth_ipv4(const struct rte_mbuf *mb, uint32_t off)
{
	struct rte_ether_hdr eb;
	const struct rte_ether_hdr *e = rte_pktmbuf_read(mb, off, sizeof eb,
							 &eb);

	return e && e->ether_type == RTE_BE16(RTE_ETHER_TYPE_IPV4);
}

/* Fills the packet's fields; returns its flow type or -1. */
static inline int
pkt_parse(const struct fdir_model *m, const struct rte_mbuf *mb,
	  struct fdir_key *k)
{
	struct rte_ipv4_hdr ip;
	struct rte_udp_hdr ub;
	const struct rte_udp_hdr *u;
	uint32_t off = sizeof(struct rte_ether_hdr), hl;

	if (!eth_ipv4(mb, 0) || !(hl = ipv4_ok(mb, off, &ip)) ||
	    ip.next_proto_id != IPPROTO_UDP)
		return -1;
	k->o_src = ip.src_addr;
	k->o_dst = ip.dst_addr;
	off += hl;
	u = rte_pktmbuf_read(mb, off, sizeof ub, &ub);
	if (!u)
		return -1;
	k->sport = u->src_port;
	k->dport = u->dst_port;
	if (u->dst_port != m->vxlan_port)
		return OFFLOAD_FT_IPV4_UDP;

	/* the tunnel port: a VXLAN packet type, never plain IPV4_UDP */
	struct rte_vxlan_hdr vb;
	const struct rte_vxlan_hdr *v;

	off += sizeof ub;
	v = rte_pktmbuf_read(mb, off, sizeof vb, &vb);
	if (!v)
		return -1;
	k->vni = rte_be_to_cpu_32(v->vx_vni) >> 8;
	off += sizeof vb;
	if (!eth_ipv4(mb, off))
		return -1;
	off += sizeof(struct rte_ether_hdr);
	if (!ipv4_ok(mb, off, &ip))
		return -1;
	k->i_src = ip.src_addr;
	k->i_dst = ip.dst_addr;
	return OFFLOAD_FT_VXLAN_IPV4;
}

uint16_t
fdir_model_rx_mark(struct fdir_model *m, uint16_t queue,
		   struct rte_mbuf **pkts, uint16_t n)
{
	uint64_t marked = 0, misq = 0;

	for (uint16_t i = 0; i < n; i++) {
		struct fdir_key f, k;
		struct fdir_model_rule *r;
		int t;

		memset(&f, 0, sizeof f);
		t = pkt_parse(m, pkts[i], &f);
		if (t < 0)
			continue;
		uint32_t is = __atomic_load_n(&m->inset[t], __ATOMIC_ACQUIRE);

		if (!is)
			continue;
		memset(&k, 0, sizeof k);
		k.type = t;
		k.inset = is;
		if (is & IS_O_SRC)
			k.o_src = f.o_src;
		if (is & IS_O_DST)
			k.o_dst = f.o_dst;
		if (is & IS_SPORT)
			k.sport = f.sport;
		if (is & IS_DPORT)
			k.dport = f.dport;
		if (is & IS_VNI)
			k.vni = f.vni;
		if (is & IS_I_SRC)
			k.i_src = f.i_src;
		if (is & IS_I_DST)
			k.i_dst = f.i_dst;
		r = table_find(m, &k);
		if (!r)
			continue;
		/* ice_rxtx.c: flow_id != 0xFFFFFFFF */
		pkts[i]->hash.fdir.hi = r->mark;
		pkts[i]->ol_flags |= RTE_MBUF_F_RX_FDIR |
				     RTE_MBUF_F_RX_FDIR_ID;
		marked++;
		if (r->q_num && queue != UINT16_MAX &&
		    (queue < r->q_first || queue >= r->q_first + r->q_num))
			misq++;
	}
	if (marked)
		__atomic_fetch_add(&m->st.pkts_marked, marked,
				   __ATOMIC_RELAXED);
	if (misq)
		__atomic_fetch_add(&m->st.rss_misqueued, misq,
				   __ATOMIC_RELAXED);
	return n;
}

/* ---- the ethdev hook ---- */

static uint16_t
rx_cb(uint16_t port, uint16_t queue, struct rte_mbuf *pkts[], uint16_t n,
      uint16_t max, void *arg)
{
	(void)port;
	(void)max;
	return fdir_model_rx_mark(arg, queue, pkts, n);
}

int
fdir_model_attach(struct fdir_model *m, uint16_t port, uint16_t n_queues)
{
	if (m->n_cbs || n_queues > RTE_MAX_QUEUES_PER_PORT)
		return -EINVAL;
	m->cb_port = port;
	for (uint16_t q = 0; q < n_queues; q++) {
		m->cbs[q] = rte_eth_add_rx_callback(port, q, rx_cb, m);
		if (!m->cbs[q]) {
			int err = rte_errno ? rte_errno : EINVAL;

			m->n_cbs = q;
			fdir_model_detach(m);
			return -err;
		}
	}
	m->n_cbs = n_queues;
	return 0;
}

void
fdir_model_detach(struct fdir_model *m)
{
	for (uint16_t q = 0; q < m->n_cbs; q++)
		if (m->cbs[q])
			rte_eth_remove_rx_callback(m->cb_port, q, m->cbs[q]);
	/* The callbacks' memory belongs to ethdev, which leaves freeing it
	 * to us; after the readers' grace period it is unused. */
	if (m->n_cbs && m->qsbr)
		rte_rcu_qsbr_synchronize(m->qsbr, RTE_QSBR_THRID_INVALID);
	for (uint16_t q = 0; q < m->n_cbs; q++) {
		rte_free((void *)(uintptr_t)m->cbs[q]);
		m->cbs[q] = NULL;
	}
	m->n_cbs = 0;
}
