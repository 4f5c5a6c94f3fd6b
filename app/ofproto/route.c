/* SPDX-License-Identifier: BSD-3-Clause
 * Routes: see route.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "config.h"
#include "ctl_table.h"
#include "route.h"

struct route_key {
	rte_be32_t prefix;		/* masked to plen */
	uint32_t plen;
};

static struct {
	struct ctl_table tbl;
	uint32_t per_plen[33];		/* routes of each length */
	uint64_t plens;			/* bit p: some route of length p */
	uint64_t refused;
} rt;

static rte_be32_t
mask_to(rte_be32_t ip, uint8_t plen)
{
	uint32_t m = plen ? ~0u << (32 - plen) : 0;
	return rte_cpu_to_be_32(rte_be_to_cpu_32(ip) & m);
}

int
route_init(uint32_t limit, struct rte_rcu_qsbr *qsbr)
{
	memset(rt.per_plen, 0, sizeof rt.per_plen);
	rt.plens = 0;
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
	uint64_t plens = __atomic_load_n(&rt.plens, __ATOMIC_ACQUIRE);

	(void)s;	/* the table is shared, not part of the snapshot */
	while (plens) {
		uint8_t plen = 63 - __builtin_clzll(plens);
		struct route_key k = { mask_to(dst, plen), plen };
		const struct route_entry *r = ctl_table_lookup(&rt.tbl, &k);
		if (r)
			return r;
		plens &= ~(1ull << plen);
	}
	return NULL;
}

int
route_insert(rte_be32_t prefix, uint8_t plen, rte_be32_t gw,
	     uint16_t port_idx, bool connected, char *err, size_t errlen)
{
	struct route_key k;
	struct route_entry *e;
	bool known;
	int rc;

	if (plen > 32) {
		snprintf(err, errlen, "bad prefix length %u", plen);
		return -1;
	}
	k = (struct route_key){ mask_to(prefix, plen), plen };
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
	*e = (struct route_entry){ .prefix = k.prefix, .plen = plen,
				   .gateway = gw, .port_idx = port_idx,
				   .connected = connected };
	rc = ctl_table_commit(&rt.tbl, &k, e);
	if (rc) {
		rt.refused++;
		snprintf(err, errlen, "route table: %s", strerror(-rc));
		return -1;
	}
	if (!known && rt.per_plen[plen]++ == 0)
		__atomic_fetch_or(&rt.plens, 1ull << plen, __ATOMIC_RELEASE);
	return 0;
}

int
route_remove(rte_be32_t prefix, uint8_t plen)
{
	struct route_key k;

	if (plen > 32)
		return -1;
	k = (struct route_key){ mask_to(prefix, plen), plen };
	if (ctl_table_remove(&rt.tbl, &k))
		return -1;
	if (--rt.per_plen[plen] == 0)
		__atomic_fetch_and(&rt.plens, ~(1ull << plen),
				   __ATOMIC_RELEASE);
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

	if (x->plen != y->plen)
		return (int)y->plen - (int)x->plen;
	uint32_t px = rte_be_to_cpu_32(x->prefix), py = rte_be_to_cpu_32(y->prefix);
	return px < py ? -1 : px > py;
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
