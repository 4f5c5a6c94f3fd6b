/* SPDX-License-Identifier: BSD-3-Clause
 * Routes: see route.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "config.h"
#include "ctl_table.h"
#include "port.h"
#include "route.h"

/* Key lengths: an IPv4 route of length p is ::ffff:a.b.c.d/96+p. */
#define ROUTE_V4_BASE 96

struct route_key {
	struct flow_in6_addr prefix;	/* masked to plen */
	uint32_t plen;			/* 0..128, IPv4 96+its length */
};

static struct {
	struct ctl_table tbl;
	uint32_t per_plen4[33];		/* IPv4 routes of each length */
	uint32_t per_plen6[129];	/* IPv6 routes of each length */
	uint64_t plens4;		/* bit p: some IPv4 route of length p */
	uint64_t plens6[3];		/* bit p of the 192: an IPv6 one */
	uint64_t refused;
} rt;

static struct flow_in6_addr
mask_to(const struct flow_in6_addr *a, unsigned plen)
{
	struct flow_in6_addr m = *a;

	for (unsigned i = 0; i < 16; i++) {
		unsigned keep = plen > i * 8 ? RTE_MIN(plen - i * 8, 8u) : 0;
		m.a[i] &= (uint8_t)(0xff00u >> keep);
	}
	return m;
}

int
route_init(uint32_t limit, struct rte_rcu_qsbr *qsbr)
{
	memset(rt.per_plen4, 0, sizeof rt.per_plen4);
	memset(rt.per_plen6, 0, sizeof rt.per_plen6);
	rt.plens4 = 0;
	memset(rt.plens6, 0, sizeof rt.plens6);
	rt.refused = 0;
	return ctl_table_init(&rt.tbl, "routes",
			      limit ? limit : CFG_MAX_ROUTES_DEFAULT,
			      sizeof(struct route_key),
			      sizeof(struct route_entry), qsbr);
}

void
route_fini(void)
{
	ctl_table_fini(&rt.tbl);
}

const struct route_entry *
dp_snapshot_route(const struct dp_snapshot *s, rte_be32_t dst)
{
	uint64_t plens = __atomic_load_n(&rt.plens4, __ATOMIC_ACQUIRE);
	struct route_key k = { neigh_addr_from4(0), 0 };
	uint32_t host = rte_be_to_cpu_32(dst);

	(void)s;	/* the table is shared, not part of the snapshot */
	while (plens) {
		uint8_t plen = 63 - __builtin_clzll(plens);
		rte_be32_t p = rte_cpu_to_be_32(plen ? host & ~0u << (32 - plen)
						     : 0);
		memcpy(&k.prefix.a[12], &p, 4);
		k.plen = ROUTE_V4_BASE + plen;
		const struct route_entry *r = ctl_table_lookup(&rt.tbl, &k);
		if (r)
			return r;
		plens &= ~(1ull << plen);
	}
	return NULL;
}

const struct route_entry *
dp_snapshot_route6(const struct dp_snapshot *s,
		   const struct flow_in6_addr *dst)
{
	if (neigh_addr_is4(dst))
		return dp_snapshot_route(s, neigh_addr_to4(dst));
	for (int w = 2; w >= 0; w--) {
		uint64_t plens = __atomic_load_n(&rt.plens6[w],
						 __ATOMIC_ACQUIRE);
		while (plens) {
			unsigned bit = 63 - __builtin_clzll(plens);
			unsigned plen = (unsigned)w * 64 + bit;
			struct route_key k = { mask_to(dst, plen), plen };
			const struct route_entry *r =
				ctl_table_lookup(&rt.tbl, &k);
			if (r)
				return r;
			plens &= ~(1ull << bit);
		}
	}
	return NULL;
}

/* The key of prefix/plen (plen the family's); false on a bad length. */
static bool
route_key_of(const struct flow_in6_addr *prefix, uint8_t plen,
	     struct route_key *k, bool *is4)
{
	*is4 = neigh_addr_is4(prefix);
	if (plen > (*is4 ? 32 : 128))
		return false;
	k->plen = *is4 ? ROUTE_V4_BASE + plen : plen;
	k->prefix = mask_to(prefix, k->plen);
	return true;
}

/* Keeps the lengths-in-use bitmaps: delta +1 a route added, -1 removed. */
static void
route_count_plen(bool is4, uint8_t plen, int delta)
{
	uint32_t *count = is4 ? &rt.per_plen4[plen] : &rt.per_plen6[plen];
	uint64_t *bits = is4 ? &rt.plens4 : &rt.plens6[plen / 64];
	uint64_t bit = 1ull << (is4 ? plen : plen % 64);

	if (delta > 0 && (*count)++ == 0)
		__atomic_fetch_or(bits, bit, __ATOMIC_RELEASE);
	else if (delta < 0 && --*count == 0)
		__atomic_fetch_and(bits, ~bit, __ATOMIC_RELEASE);
}

int
route_insert6(const struct flow_in6_addr *prefix, uint8_t plen,
	      const struct flow_in6_addr *gw, uint16_t port_idx,
	      bool connected, char *err, size_t errlen)
{
	static const struct flow_in6_addr none;
	struct route_key k;
	struct route_entry *e;
	bool known, is4;
	int rc;

	if (!route_key_of(prefix, plen, &k, &is4)) {
		snprintf(err, errlen, "bad prefix length %u", plen);
		return -1;
	}
	if (!gw)
		gw = &none;
	if (!neigh_addr_is_zero(gw) && neigh_addr_is4(gw) != is4) {
		snprintf(err, errlen, "gateway of the other address family "
			 "than the prefix");
		return -1;
	}
	known = ctl_table_lookup(&rt.tbl, &k) != NULL;
	e = (known || !ctl_table_full(&rt.tbl)) ? ctl_table_alloc(&rt.tbl)
						: NULL;
	if (!e) {
		rt.refused++;
		snprintf(err, errlen, "route table full: %u routes, the limit "
			 "(datapath max-routes) is %u", rt.tbl.n_live,
			 rt.tbl.limit);
		return -1;
	}
	*e = (struct route_entry){ .prefix = k.prefix, .gateway = *gw,
				   .plen = plen, .is_ipv4 = is4,
				   .port_idx = port_idx,
				   .connected = connected };
	rc = ctl_table_commit(&rt.tbl, &k, e);
	if (rc) {
		rt.refused++;
		snprintf(err, errlen, "route table: %s", strerror(-rc));
		return -1;
	}
	if (!known)
		route_count_plen(is4, plen, +1);
	return 0;
}

int
route_remove6(const struct flow_in6_addr *prefix, uint8_t plen)
{
	struct route_key k;
	bool is4;

	if (!route_key_of(prefix, plen, &k, &is4) ||
	    ctl_table_remove(&rt.tbl, &k))
		return -1;
	route_count_plen(is4, plen, -1);
	return 0;
}

int
route_insert(rte_be32_t prefix, uint8_t plen, rte_be32_t gw,
	     uint16_t port_idx, bool connected, char *err, size_t errlen)
{
	struct flow_in6_addr p = neigh_addr_from4(prefix);
	struct flow_in6_addr g = neigh_addr_from4(gw);

	return route_insert6(&p, plen, gw ? &g : NULL, port_idx, connected,
			     err, errlen);
}

int
route_remove(rte_be32_t prefix, uint8_t plen)
{
	struct flow_in6_addr p = neigh_addr_from4(prefix);

	return route_remove6(&p, plen);
}

int
route_load_config(const struct vxs_config *cfg, uint16_t underlay_idx,
		  char *err, size_t errlen)
{
	char rerr[CFG_ERR_MAX];
	bool has_u = underlay_idx != UINT16_MAX;

	if (has_u && cfg->vtep_ip &&
	    route_insert(cfg->vtep_ip, cfg->vtep_plen, 0, underlay_idx, true,
			 rerr, sizeof rerr)) {
		snprintf(err, errlen, "%s: underlay vtep: %s", cfg->file, rerr);
		return -1;
	}
	if (has_u && cfg->vtep_ip6_set) {
		struct flow_in6_addr a;
		memcpy(a.a, cfg->vtep_ip6, sizeof a.a);
		if (route_insert6(&a, cfg->vtep_plen6, NULL, underlay_idx, true,
				  rerr, sizeof rerr)) {
			snprintf(err, errlen, "%s: underlay vtep: %s",
				 cfg->file, rerr);
			return -1;
		}
	}
	for (uint16_t i = 0; i < cfg->n_routes; i++) {
		const struct cfg_route *r = &cfg->routes[i];
		const struct port *p = r->port[0] ? port_by_name(r->port)
			: has_u ? port_at(underlay_idx) : NULL;
		if (!p) {
			snprintf(err, errlen, "%s:%d:%d: route: unknown port "
				 "'%s'", cfg->file, r->line, r->col, r->port);
			return -1;
		}
		struct flow_in6_addr prefix = neigh_addr_from4(r->prefix);
		struct flow_in6_addr gw = neigh_addr_from4(r->gateway);
		if (r->ipv6) {
			memcpy(prefix.a, r->prefix6, sizeof prefix.a);
			memcpy(gw.a, r->gateway6, sizeof gw.a);
		} else if (!r->gateway) {
			gw = (struct flow_in6_addr){ { 0 } };
		}
		if (route_insert6(&prefix, r->plen, &gw, p->idx, false, rerr,
				  sizeof rerr)) {
			snprintf(err, errlen, "%s:%d:%d: route: %s", cfg->file,
				 r->line, r->col, rerr);
			return -1;
		}
	}
	return 0;
}

uint32_t
route_count(void)
{
	return rt.tbl.n_live;
}

uint32_t
route_limit(void)
{
	return rt.tbl.limit;
}

uint64_t
route_refused(void)
{
	return rt.refused;
}

static int
route_order(const void *a, const void *b)
{
	const struct route_entry *x = a, *y = b;

	if (x->is_ipv4 != y->is_ipv4)
		return x->is_ipv4 ? -1 : 1;
	if (x->plen != y->plen)
		return (int)y->plen - (int)x->plen;
	return memcmp(x->prefix.a, y->prefix.a, sizeof x->prefix.a);
}

struct route_entry *
route_list(uint32_t *n)
{
	struct route_entry *v = malloc((rt.tbl.n_live + 1) * sizeof *v);

	*n = 0;
	if (!v)
		return NULL;
	for (uint32_t i = 0; i < rt.tbl.n_slots && *n < rt.tbl.n_live; i++) {
		const struct route_entry *r = ctl_table_slot(&rt.tbl, i);
		if (r)
			v[(*n)++] = *r;
	}
	qsort(v, *n, sizeof *v, route_order);
	return v;
}
