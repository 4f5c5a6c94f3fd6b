/* SPDX-License-Identifier: BSD-3-Clause
 * NIC rules by pattern, with their marks and holders
 * (offload_mark_table.h).
 */
#include "offload_mark_table.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <rte_errno.h>
#include <rte_hash.h>
#include <rte_hash_crc.h>

struct offload_mark_table {
	struct rte_hash *by_pattern;	/* pattern -> mark */
	struct rte_hash *by_ice_key;	/* ice duplicate key -> mark */
	struct omt_entry *entries;	/* [max_marks + 1]; [0] unused */
	uint32_t max_marks;
	/* FIFO of free marks (see omt_drop) */
	uint32_t *free_marks;
	uint32_t free_head, n_free;
	uint64_t n_holders;		/* over every entry */
};

static unsigned omt_seq;

struct offload_mark_table *
omt_create(uint32_t max_marks)
{
	struct offload_mark_table *t = calloc(1, sizeof *t);
	char hname[RTE_HASH_NAMESIZE];

	if (!t || !max_marks) {
		free(t);
		rte_errno = t ? EINVAL : ENOMEM;
		return NULL;
	}
	snprintf(hname, sizeof hname, "omt_%u_%d",
		 __atomic_fetch_add(&omt_seq, 1, __ATOMIC_RELAXED),
		 (int)getpid() % 100000);
	struct rte_hash_parameters hp = {
		.name = hname,
		/* rte_hash wants at least a bucket's worth; the marks are the
		 * real bound */
		.entries = max_marks < 16 ? 16 : max_marks,
		.key_len = sizeof(struct offload_pattern),
		/* Unkeyed CRC, though tenants shape the patterns: only the
		 * offload thread probes this (a packet's mark is an index
		 * into entries), so colliding patterns slow rule installs,
		 * by at most max_marks compares, and stall no PMD
		 * (doc/hash-tables.md). */
		.hash_func = rte_hash_crc,
		.socket_id = SOCKET_ID_ANY,
		/* no insert may fail while a mark is free */
		.extra_flag = RTE_HASH_EXTRA_FLAGS_EXT_TABLE,
	};
	t->max_marks = max_marks;
	t->by_pattern = rte_hash_create(&hp);
	/* one ice key per entry at most: the same bound */
	snprintf(hname, sizeof hname, "omk_%u_%d",
		 __atomic_fetch_add(&omt_seq, 1, __ATOMIC_RELAXED),
		 (int)getpid() % 100000);
	hp.key_len = sizeof(struct offload_ice_key);
	t->by_ice_key = rte_hash_create(&hp);
	t->entries = calloc((size_t)max_marks + 1, sizeof *t->entries);
	t->free_marks = calloc(max_marks, sizeof *t->free_marks);
	if (!t->by_pattern || !t->by_ice_key || !t->entries ||
	    !t->free_marks) {
		int e = rte_errno ? rte_errno : ENOMEM;
		omt_free(t);
		rte_errno = e;
		return NULL;
	}
	for (uint32_t i = 0; i < max_marks; i++)	/* mark 1 first */
		t->free_marks[i] = i + 1;
	t->n_free = max_marks;
	return t;
}

void
omt_free(struct offload_mark_table *t)
{
	if (!t)
		return;
	if (t->entries)
		for (uint32_t i = 1; i <= t->max_marks; i++)
			free(t->entries[i].holders);
	rte_hash_free(t->by_pattern);
	rte_hash_free(t->by_ice_key);
	free(t->entries);
	free(t->free_marks);
	free(t);
}

void
offload_pattern_of(const struct offload_rule *r, struct offload_pattern *out)
{
	memset(out, 0, sizeof *out);
	out->type = r->type;
	memcpy(out->items, &r->eth_spec, sizeof out->items);
}

/* where the rule's fields sit in offload_pattern.items */
#define PAT_OFF(field) (offsetof(struct offload_rule, field) - \
			offsetof(struct offload_rule, eth_spec))

void
offload_ice_key_of(const struct offload_pattern *p, struct offload_ice_key *out)
{
	const uint8_t *it = p->items;

	memset(out, 0, sizeof *out);
	out->type = p->type;
	if (p->type == OFFLOAD_FT_VXLAN_IPV4) {
		/* inner segment only: input->ip / ext_data in ice */
		memcpy(&out->eth_spec, it + PAT_OFF(ieth_spec),
		       sizeof out->eth_spec);
		memcpy(&out->eth_mask, it + PAT_OFF(ieth_mask),
		       sizeof out->eth_mask);
		memcpy(&out->ipv4_spec, it + PAT_OFF(iipv4_spec),
		       sizeof out->ipv4_spec);
		memcpy(&out->ipv4_mask, it + PAT_OFF(iipv4_mask),
		       sizeof out->ipv4_mask);
		return;
	}
	memcpy(&out->eth_spec, it + PAT_OFF(eth_spec), sizeof out->eth_spec);
	memcpy(&out->eth_mask, it + PAT_OFF(eth_mask), sizeof out->eth_mask);
	memcpy(&out->ipv4_spec, it + PAT_OFF(ipv4_spec),
	       sizeof out->ipv4_spec);
	memcpy(&out->ipv4_mask, it + PAT_OFF(ipv4_mask),
	       sizeof out->ipv4_mask);
	memcpy(&out->udp_spec, it + PAT_OFF(udp_spec), sizeof out->udp_spec);
	memcpy(&out->udp_mask, it + PAT_OFF(udp_mask), sizeof out->udp_mask);
}

uint32_t
omt_ice_key_holder(const struct offload_mark_table *t,
		   const struct offload_pattern *p)
{
	struct offload_ice_key k;
	void *data;

	offload_ice_key_of(p, &k);
	if (rte_hash_lookup_data(t->by_ice_key, &k, &data) < 0)
		return 0;
	return (uint32_t)(uintptr_t)data;
}

uint32_t
omt_lookup(const struct offload_mark_table *t, const struct offload_pattern *p)
{
	void *data;

	if (rte_hash_lookup_data(t->by_pattern, p, &data) < 0)
		return 0;
	return (uint32_t)(uintptr_t)data;
}

uint32_t
omt_claim(struct offload_mark_table *t, const struct offload_pattern *p)
{
	struct offload_ice_key k;

	if (!t->n_free)
		return 0;
	uint32_t mark = t->free_marks[t->free_head];
	offload_ice_key_of(p, &k);
	/* one rule per ice key: adding would overwrite the holder's entry */
	if (rte_hash_lookup(t->by_ice_key, &k) >= 0)
		return 0;
	if (rte_hash_add_key_data(t->by_ice_key, &k,
				  (void *)(uintptr_t)mark) != 0)
		return 0;
	if (rte_hash_add_key_data(t->by_pattern, p,
				  (void *)(uintptr_t)mark) != 0) {
		rte_hash_del_key(t->by_ice_key, &k);
		return 0;
	}
	t->free_head = (t->free_head + 1) % t->max_marks;
	t->n_free--;
	struct omt_entry *e = &t->entries[mark];
	e->state = OMT_PENDING;
	e->handle = NULL;
	e->n_holders = 0;
	e->key_pos = rte_hash_lookup(t->by_pattern, p);
	e->ice_key_pos = rte_hash_lookup(t->by_ice_key, &k);
	return mark;
}

struct omt_entry *
omt_entry(struct offload_mark_table *t, uint32_t mark)
{
	return mark && mark <= t->max_marks ? &t->entries[mark] : NULL;
}

struct omt_holder *
omt_holder_of(struct offload_mark_table *t, uint32_t mark, uint16_t pmd,
	      uint64_t megaflow_id)
{
	struct omt_entry *e = omt_entry(t, mark);

	if (!e || (e->state != OMT_PENDING && e->state != OMT_INSTALLED))
		return NULL;
	for (uint16_t i = 0; i < e->n_holders; i++)
		if (e->holders[i].pmd == pmd &&
		    e->holders[i].megaflow_id == megaflow_id)
			return &e->holders[i];
	return NULL;
}

int
omt_hold(struct offload_mark_table *t, uint32_t mark, uint16_t pmd,
	 uint64_t megaflow_id, uint64_t n_packets)
{
	struct omt_holder *h = omt_holder_of(t, mark, pmd, megaflow_id);
	struct omt_entry *e = omt_entry(t, mark);

	if (h) {
		h->n_packets = n_packets;
		return 0;
	}
	if (!e || e->n_holders == UINT16_MAX)
		return -ENOMEM;
	if (e->n_holders == e->cap_holders) {
		uint16_t cap = e->cap_holders ? e->cap_holders * 2 : 2;
		void *v = realloc(e->holders, cap * sizeof *e->holders);
		if (!v)
			return -ENOMEM;
		e->holders = v;
		e->cap_holders = cap;
	}
	e->holders[e->n_holders++] = (struct omt_holder){
		.megaflow_id = megaflow_id, .n_packets = n_packets, .pmd = pmd,
	};
	t->n_holders++;
	return 1;
}

bool
omt_release(struct offload_mark_table *t, uint32_t mark, uint16_t pmd,
	    uint64_t megaflow_id)
{
	struct omt_holder *h = omt_holder_of(t, mark, pmd, megaflow_id);
	struct omt_entry *e = omt_entry(t, mark);

	if (!h)
		return false;
	*h = e->holders[--e->n_holders];
	t->n_holders--;
	return true;
}

uint32_t
omt_find_holder(struct offload_mark_table *t, uint16_t pmd,
		uint64_t megaflow_id)
{
	for (uint32_t m = 1; m <= t->max_marks; m++)
		if (t->entries[m].n_holders &&
		    omt_holder_of(t, m, pmd, megaflow_id))
			return m;
	return 0;
}

uint64_t
omt_packets(const struct offload_mark_table *t, uint32_t mark)
{
	uint64_t n = 0;

	if (!mark || mark > t->max_marks)
		return 0;
	const struct omt_entry *e = &t->entries[mark];
	for (uint16_t i = 0; i < e->n_holders; i++)
		n += e->holders[i].n_packets;
	return n;
}

void
omt_installed(struct offload_mark_table *t, uint32_t mark, void *handle)
{
	struct omt_entry *e = omt_entry(t, mark);

	if (e && e->state == OMT_PENDING) {
		e->state = OMT_INSTALLED;
		e->handle = handle;
	}
}

/* The pattern and its ice key leave the hashes; the entry forgets its
 * holders. */
static void
unindex(struct offload_mark_table *t, struct omt_entry *e)
{
	struct offload_pattern p;
	struct offload_ice_key k;
	void *key;

	/* a copy: the key's storage is the hash's own */
	if (rte_hash_get_key_with_position(t->by_pattern, e->key_pos,
					   &key) == 0) {
		memcpy(&p, key, sizeof p);
		rte_hash_del_key(t->by_pattern, &p);
	}
	if (rte_hash_get_key_with_position(t->by_ice_key, e->ice_key_pos,
					   &key) == 0) {
		memcpy(&k, key, sizeof k);
		rte_hash_del_key(t->by_ice_key, &k);
	}
	e->key_pos = -1;
	e->ice_key_pos = -1;
	t->n_holders -= e->n_holders;
	e->n_holders = 0;
}

void
omt_drop(struct offload_mark_table *t, uint32_t mark, bool never_on_nic)
{
	struct omt_entry *e = omt_entry(t, mark);

	if (!e || e->state == OMT_FREE)
		return;
	if (e->state != OMT_RETIRED)
		unindex(t, e);
	e->state = OMT_FREE;
	e->handle = NULL;
	if (never_on_nic) {
		t->free_head = (t->free_head + t->max_marks - 1) % t->max_marks;
		t->free_marks[t->free_head] = mark;
	} else {
		t->free_marks[(t->free_head + t->n_free) % t->max_marks] = mark;
	}
	t->n_free++;
}

void
omt_retire(struct offload_mark_table *t, uint32_t mark)
{
	struct omt_entry *e = omt_entry(t, mark);

	if (!e || e->state == OMT_FREE || e->state == OMT_RETIRED)
		return;
	unindex(t, e);
	e->state = OMT_RETIRED;
}

uint32_t
omt_marks_in_use(const struct offload_mark_table *t)
{
	return t->max_marks - t->n_free;
}

uint64_t
omt_holders(const struct offload_mark_table *t)
{
	return t->n_holders;
}
