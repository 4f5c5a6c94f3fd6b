/* SPDX-License-Identifier: BSD-3-Clause
 * Neighbours: see neigh.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "clock.h"
#include "config.h"
#include "ctl_table.h"
#include "neigh.h"
#include "ofproto.h"

/* Slots examined per neigh_age() call (the main loop calls it every few
 * tens of milliseconds): a full pass over 65,536 entries takes ~0.3 s,
 * over a million ~5 s, both small next to the aging time. */
#define NEIGH_AGE_SLICE 4096

static struct {
	struct ctl_table tbl;
	uint64_t aging_ms;
	uint32_t age_cursor;
	struct neigh_stats stats;
} nb;

int
neigh_init(uint32_t limit, uint32_t aging_s, struct rte_rcu_qsbr *qsbr)
{
	memset(&nb.stats, 0, sizeof nb.stats);
	nb.age_cursor = 0;
	neigh_set_aging_s(aging_s ? aging_s : NEIGH_AGING_DEFAULT_S);
	return ctl_table_init(&nb.tbl, "neighbours",
			      limit ? limit : CFG_MAX_NEIGHBOURS_DEFAULT,
			      sizeof(struct flow_in6_addr),
			      sizeof(struct neigh_entry),
			      qsbr);
}

void
neigh_fini(void)
{
	ctl_table_fini(&nb.tbl);
}

const struct neigh_entry *
dp_snapshot_neigh6(const struct dp_snapshot *s,
		   const struct flow_in6_addr *addr)
{
	(void)s;	/* the table is shared, not part of the snapshot */
	return ctl_table_lookup(&nb.tbl, addr);
}

const struct neigh_entry *
dp_snapshot_neigh(const struct dp_snapshot *s, rte_be32_t ip)
{
	struct flow_in6_addr a = neigh_addr_from4(ip);

	return dp_snapshot_neigh6(s, &a);
}

/* A new entry, or a new MAC for a known one (a fresh slot: PMDs may be
 * reading the old one). */
static int
neigh_write(const struct flow_in6_addr *addr,
	    const struct rte_ether_addr *mac, bool is_static)
{
	struct neigh_entry *e = ctl_table_alloc(&nb.tbl);

	if (!e)
		return -ENOSPC;
	e->addr = *addr;
	e->mac = *mac;
	e->is_static = is_static;
	e->updated_ms = vxs_now_ms();
	int rc = ctl_table_commit(&nb.tbl, addr, e);
	if (rc == 0)
		ofproto_neigh_changed(neigh_addr_digest(addr));
	return rc;
}

int
neigh_set(rte_be32_t ip, const struct rte_ether_addr *mac, char *err,
	  size_t errlen)
{
	struct flow_in6_addr a = neigh_addr_from4(ip);

	return neigh_set6(&a, mac, err, errlen);
}

bool
neigh_learn(rte_be32_t ip, const struct rte_ether_addr *mac)
{
	struct flow_in6_addr a = neigh_addr_from4(ip);

	return neigh_learn6(&a, mac);
}

int
neigh_set6(const struct flow_in6_addr *addr,
	   const struct rte_ether_addr *mac, char *err, size_t errlen)
{
	struct neigh_entry *e = ctl_table_lookup(&nb.tbl, addr);

	if (e && rte_is_same_ether_addr(&e->mac, mac)) {
		e->is_static = true;	/* fields PMDs never read */
		e->updated_ms = vxs_now_ms();
		return 0;
	}
	if (neigh_write(addr, mac, true)) {
		nb.stats.set_refused++;
		snprintf(err, errlen, "neighbour table full: %u entries, the "
			 "limit (datapath max-neighbours) is %u", nb.tbl.n_live,
			 nb.tbl.limit);
		return -1;
	}
	ofproto_publish_neigh();
	return 0;
}

bool
neigh_learn6(const struct flow_in6_addr *addr,
	     const struct rte_ether_addr *mac)
{
	struct neigh_entry *e = ctl_table_lookup(&nb.tbl, addr);

	if (e && (e->is_static || rte_is_same_ether_addr(&e->mac, mac))) {
		if (!e->is_static)
			e->updated_ms = vxs_now_ms();
		return false;
	}
	if (neigh_write(addr, mac, false)) {
		nb.stats.learn_refused++;
		return false;
	}
	nb.stats.learned += !e;
	return true;
}

int
neigh_load_config(const struct vxs_config *cfg, char *err, size_t errlen)
{
	char nerr[CFG_ERR_MAX];

	for (uint16_t i = 0; i < cfg->n_arp; i++) {
		struct flow_in6_addr a = neigh_addr_from4(cfg->arp[i].ip);
		if (cfg->arp[i].ipv6)
			memcpy(a.a, cfg->arp[i].ip6, sizeof a.a);
		if (neigh_set6(&a, &cfg->arp[i].mac, nerr, sizeof nerr)) {
			snprintf(err, errlen, "%s:%d:%d: arp: %s", cfg->file,
				 cfg->arp[i].line, cfg->arp[i].col, nerr);
			return -1;
		}
	}
	return 0;
}

uint32_t
neigh_flush(void)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < nb.tbl.n_slots; i++) {
		const struct neigh_entry *e = ctl_table_slot(&nb.tbl, i);
		if (e && !e->is_static) {
			struct flow_in6_addr a = e->addr;
			ctl_table_remove(&nb.tbl, &a);
			ofproto_neigh_changed(neigh_addr_digest(&a));
			n++;
		}
	}
	if (n)
		ofproto_publish_neigh();
	return n;
}

void
neigh_age(uint64_t now)
{
	uint32_t n = RTE_MIN(nb.tbl.n_slots, (uint32_t)NEIGH_AGE_SLICE);

	ctl_table_reclaim(&nb.tbl);
	if (!nb.tbl.n_live)
		return;
	for (uint32_t k = 0; k < n; k++) {
		uint32_t i = nb.age_cursor;
		nb.age_cursor = (i + 1) % nb.tbl.n_slots;
		const struct neigh_entry *e = ctl_table_slot(&nb.tbl, i);
		if (e && neigh_expires_in_ms(e, now) == 0) {
			struct flow_in6_addr a = e->addr;
			ctl_table_remove(&nb.tbl, &a);
			ofproto_neigh_changed(neigh_addr_digest(&a));
			nb.stats.aged++;
		}
	}
}

uint64_t
neigh_expires_in_ms(const struct neigh_entry *e, uint64_t now)
{
	uint64_t at = e->updated_ms + nb.aging_ms;

	if (e->is_static)
		return UINT64_MAX;
	return at > now ? at - now : 0;
}

uint32_t
neigh_count(void)
{
	return nb.tbl.n_live;
}

uint32_t
neigh_limit(void)
{
	return nb.tbl.limit;
}

uint32_t
neigh_aging_s(void)
{
	return (uint32_t)(nb.aging_ms / 1000);
}

void
neigh_set_aging_s(uint32_t s)
{
	nb.aging_ms = (uint64_t)s * 1000;
}

const struct neigh_stats *
neigh_get_stats(void)
{
	return &nb.stats;
}

uint32_t
neigh_slots(void)
{
	return nb.tbl.n_slots;
}

const struct neigh_entry *
neigh_slot(uint32_t i)
{
	return ctl_table_slot(&nb.tbl, i);
}
