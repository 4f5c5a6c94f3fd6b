/* SPDX-License-Identifier: BSD-3-Clause
 * The fragment store (ct_ipf.h): datagrams by key in a chained hash
 * (SipHash under a per-process random key: the keys are a tenant's
 * choice), each one's fragments in a list sorted by offset, datagrams
 * waiting in creation order (which is expiry order: one timeout for all,
 * never pushed back, as OVS's), expired and purged ones on a drain list
 * for the PMDs. Records and fragment entries come from arrays sized for
 * CT_IPF_MAX_NFRAGS_UBOUND. Both families share it all; what differs
 * (the fragment's header, the reassembled packet's) is in ct_ipf_v4.c
 * and ct_ipf_v6.c, the settings and status in ct_ipf_ctl.c.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_random.h>
#include "ct_ipf_private.h"
#include "secret_bytes.h"

static inline bool
dg_v6(const struct ct_ipf_dgram *dg)
{
	return ipf_key_v6(&dg->key);
}

struct ct_ipf *
ct_ipf_create(int socket_id, uint64_t tsc_hz)
{
	(void)socket_id;	/* plain memory: no hugepages for 600 KB */
	struct ct_ipf *ipf = calloc(1, sizeof *ipf);

	if (!ipf)
		return NULL;
	ipf->zone_frags = calloc(65536, sizeof *ipf->zone_frags);
	if (!ipf->zone_frags) {
		free(ipf);
		return NULL;
	}
	rte_spinlock_init(&ipf->lock);
	secret_bytes(&ipf->hkey, sizeof ipf->hkey, rte_rand);
	ipf->timeout_tsc = (tsc_hz ? tsc_hz : rte_get_tsc_hz()) *
			   CT_IPF_TIMEOUT_S;
	/* OVS: both families on (ifp_v4_enabled, ifp_v6_enabled) */
	ipf->enabled[0] = ipf->enabled[1] = true;
	ipf->min_frag[0] = CT_IPF_V4_MIN_FRAG_DEFAULT;
	ipf->min_frag[1] = CT_IPF_V6_MIN_FRAG_DEFAULT;
	ipf->max_nfrags = CT_IPF_MAX_NFRAGS_DEFAULT;
	ipf_limits_update(ipf);
	TAILQ_INIT(&ipf->waiting);
	TAILQ_INIT(&ipf->drain);
	for (uint32_t i = IPF_MAX_DGRAMS; i-- > 0;) {
		ipf->dgrams[i].hnext = ipf->free_dgrams;
		ipf->free_dgrams = &ipf->dgrams[i];
	}
	for (uint32_t i = CT_IPF_MAX_NFRAGS_UBOUND; i-- > 0;) {
		ipf->frags[i].next = ipf->free_frags;
		ipf->free_frags = &ipf->frags[i];
	}
	return ipf;
}

void
ct_ipf_destroy(struct ct_ipf *ipf)
{
	if (!ipf)
		return;
	for (uint32_t i = 0; i < IPF_MAX_DGRAMS; i++) {
		struct ct_ipf_dgram *dg = &ipf->dgrams[i];
		if (dg->where == DG_FREE)
			continue;
		for (struct ipf_frag *f = dg->frags; f; f = f->next) {
			rte_pktmbuf_free(f->m);
			ipf_count(ipf, dg_v6(dg), CT_IPF_PURGED, 1);
		}
	}
	free(ipf->zone_frags);
	free(ipf);
}

/* ---- the table ----------------------------------------------------------- */

/* The addresses' SipHash, then with the identification, zone, protocol
 * and recirc id (the family is compared, not hashed: it never makes two
 * keys of one tenant's choice collide). */
static inline uint32_t
key_hash(const struct ct_ipf *ipf, const struct ipf_key *k)
{
	uint64_t w[5];

	memcpy(w, k, sizeof w);
	return siphash13_16_u32(&ipf->hkey, siphash_32(&ipf->hkey, w, 1, 3),
				w[4]);
}

static struct ct_ipf_dgram *
lookup(struct ct_ipf *ipf, const struct ipf_key *k, uint32_t hash)
{
	struct ct_ipf_dgram *dg = ipf->bucket[hash & (IPF_BUCKETS - 1)];

	for (; dg; dg = dg->hnext)
		if (dg->hash == hash && !memcmp(&dg->key, k, sizeof *k))
			return dg;
	return NULL;
}

/* Takes a waiting datagram out of the table and the waiting list. */
static void
unlink_waiting(struct ct_ipf *ipf, struct ct_ipf_dgram *dg)
{
	struct ct_ipf_dgram **pp = &ipf->bucket[dg->hash & (IPF_BUCKETS - 1)];

	while (*pp != dg)
		pp = &(*pp)->hnext;
	*pp = dg->hnext;
	dg->hnext = NULL;
	TAILQ_REMOVE(&ipf->waiting, dg, link);
	ipf->n_waiting--;
}

/* A waiting datagram to the drain list (expired or purged). */
static void
to_drain(struct ct_ipf *ipf, struct ct_ipf_dgram *dg, bool purged)
{
	unlink_waiting(ipf, dg);
	dg->where = DG_DRAIN;
	dg->purged = purged;
	TAILQ_INSERT_TAIL(&ipf->drain, dg, link);
	ipf->n_draining += dg->n_frags;
	ipf_count(ipf, dg_v6(dg), purged ? CT_IPF_PURGED : CT_IPF_EXPIRED,
		  dg->n_frags);
}

/* Entries leave the store (taken or drained): the counts follow. */
static void
frags_gone(struct ct_ipf *ipf, const struct ct_ipf_dgram *dg, uint32_t n)
{
	__atomic_store_n(&ipf->nfrag, ipf->nfrag - n, __ATOMIC_RELAXED);
	ipf->zone_frags[dg->key.zone] -= (uint16_t)n;
}

static void
dgram_put(struct ct_ipf *ipf, struct ct_ipf_dgram *dg)
{
	dg->where = DG_FREE;
	dg->frags = NULL;
	dg->hnext = ipf->free_dgrams;
	ipf->free_dgrams = dg;
}

/* A datagram out of the table to its caller: complete, or not. */
static struct ct_ipf_dgram *
hand_out(struct ct_ipf *ipf, struct ct_ipf_dgram *dg, bool complete)
{
	unlink_waiting(ipf, dg);
	dg->where = DG_OUT;
	dg->complete = complete;
	return dg;
}

enum ct_ipf_take
ct_ipf_add(struct ct_ipf *ipf, struct rte_mbuf *m,
	   const struct ct_ipf_frag_in *in, uint64_t now_tsc,
	   struct ct_ipf_dgram **done)
{
	struct frag_info fi;
	bool v6 = in->ipv6;
	enum ct_ipf_counter why = v6 ? ipf_v6_parse(ipf, m, in, &fi)
				     : ipf_v4_parse(ipf, m, in, &fi);

	*done = NULL;
	if (why != CT_IPF_ACCEPTED) {
		ipf_count(ipf, v6, why, 1);
		return CT_IPF_REFUSED;
	}
	uint32_t hash = key_hash(ipf, &fi.key);

	rte_spinlock_lock(&ipf->lock);
	struct ct_ipf_dgram *dg = lookup(ipf, &fi.key, hash);
	if (ipf->nfrag >= ipf->max_nfrags) {
		why = CT_IPF_FULL;
		goto refuse;
	}
	if (ipf->zone_frags[in->zone] >= ipf->zone_max) {
		why = CT_IPF_ZONE_FULL;
		goto refuse;
	}
	if (dg && dg->n_frags >= ipf->dgram_max[v6]) {
		why = CT_IPF_DGRAM_FULL;
		goto refuse;
	}
	if (!dg) {
		dg = ipf->free_dgrams;
		if (!dg) {		/* cannot happen: more than entries */
			why = CT_IPF_FULL;
			goto refuse;
		}
		ipf->free_dgrams = dg->hnext;
		memset(dg, 0, sizeof *dg);
		dg->key = fi.key;
		dg->hash = hash;
		dg->where = DG_WAITING;
		dg->expiration = now_tsc + ipf->timeout_tsc;
		dg->hnext = ipf->bucket[hash & (IPF_BUCKETS - 1)];
		ipf->bucket[hash & (IPF_BUCKETS - 1)] = dg;
		TAILQ_INSERT_TAIL(&ipf->waiting, dg, link);
		ipf->n_waiting++;
	}
	/* where it goes: after prev, before cur (the first starting at or
	 * after it); the walk is at most the datagram's cap */
	struct ipf_frag *prev = NULL, *cur = dg->frags;
	while (cur && cur->start < fi.start) {
		prev = cur;
		cur = cur->next;
	}
	if (cur && cur->start == fi.start && cur->end == fi.end) {
		why = CT_IPF_OVERLAP;	/* a copy: refused alone, as OVS */
		goto refuse;
	}
	bool overlap = (prev && prev->end > fi.start) ||
		       (cur && cur->start < fi.end);
	/* data past the end, or a second end */
	bool contradicts = (dg->end && fi.end > dg->end) ||
			   (!fi.more && (dg->max_end > fi.end ||
					 (dg->end && dg->end != fi.end)));
	if (overlap || contradicts) {
		ipf_count(ipf, v6, overlap ? CT_IPF_OVERLAP : CT_IPF_MALFORMED,
			  1);
		*done = hand_out(ipf, dg, false);
		rte_spinlock_unlock(&ipf->lock);
		return CT_IPF_REFUSED;
	}
	struct ipf_frag *f = ipf->free_frags;	/* nfrag < max: one is free */
	ipf->free_frags = f->next;
	*f = (struct ipf_frag){ .m = m, .next = cur, .start = fi.start,
				.end = fi.end, .l3_ofs = in->l3_ofs,
				.l4_ofs = fi.l4_ofs, .nh_ofs = fi.nh_ofs,
				.in_port = in->in_port };
	if (prev)
		prev->next = f;
	else
		dg->frags = f;
	dg->n_frags++;
	dg->bytes += fi.end - fi.start;
	dg->max_end = RTE_MAX(dg->max_end, fi.end);
	dg->first_seen |= fi.start == 0;
	if (!fi.more)
		dg->end = fi.end;
	__atomic_store_n(&ipf->nfrag, ipf->nfrag + 1, __ATOMIC_RELAXED);
	ipf->zone_frags[in->zone]++;
	ipf_count(ipf, v6, CT_IPF_ACCEPTED, 1);
	/* no overlaps: the bytes held cover [0, end) exactly when they add
	 * up to end */
	if (dg->first_seen && dg->end && dg->bytes == dg->end)
		/* OVS: "Unsupported big reassembled v4|v6 packet" */
		*done = hand_out(ipf, dg, v6 ? ipf_v6_fits(dg)
					     : ipf_v4_fits(dg));
	rte_spinlock_unlock(&ipf->lock);
	return CT_IPF_TAKEN;

refuse:
	/* a record made for this fragment only is not kept */
	if (dg && !dg->n_frags) {
		unlink_waiting(ipf, dg);
		dgram_put(ipf, dg);
	}
	rte_spinlock_unlock(&ipf->lock);
	ipf_count(ipf, v6, why, 1);
	return CT_IPF_REFUSED;
}

/* ---- a finished datagram, in its caller's hands --------------------------- */

bool
ct_ipf_dgram_complete(const struct ct_ipf_dgram *dg)
{
	return dg->complete;
}

uint16_t
ct_ipf_dgram_n_frags(const struct ct_ipf_dgram *dg)
{
	return dg->n_frags;
}

struct rte_mbuf *
ct_ipf_dgram_reassemble(struct ct_ipf_dgram *dg)
{
	if (!dg->complete)
		return NULL;
	/* the first fragment's copy, headers made whole (the tracker may
	 * rewrite them), then the others' pieces as clones of their mbufs */
	struct rte_mbuf *r = dg_v6(dg) ? ipf_v6_head(dg) : ipf_v4_head(dg);
	if (!r)
		goto fail;
	for (const struct ipf_frag *f = dg->frags->next; f; f = f->next) {
		struct rte_mbuf *c = rte_pktmbuf_clone(f->m, r->pool);
		uint32_t len = f->end - f->start;
		if (!c)
			goto fail;
		if (!rte_pktmbuf_adj(c, f->l4_ofs) ||
		    (c->pkt_len > len && rte_pktmbuf_trim(c, c->pkt_len - len)) ||
		    rte_pktmbuf_chain(r, c)) {
			rte_pktmbuf_free(c);
			goto fail;
		}
	}
	return r;
fail:
	rte_pktmbuf_free(r);
	dg->complete = false;	/* its fragments go on +inv */
	return NULL;
}

/* Up to max of dg's fragments, in order, into pkts; their records back
 * on the free list. Under the lock. */
static uint16_t
frags_pop(struct ct_ipf *ipf, struct ct_ipf_dgram *dg, struct rte_mbuf **pkts,
	  uint16_t max)
{
	uint16_t n = 0;

	while (n < max && dg->frags) {
		struct ipf_frag *f = dg->frags;
		pkts[n++] = f->m;
		dg->frags = f->next;
		f->next = ipf->free_frags;
		ipf->free_frags = f;
	}
	return n;
}

uint16_t
ct_ipf_dgram_take(struct ct_ipf *ipf, struct ct_ipf_dgram *dg,
		  struct rte_mbuf **pkts, uint16_t max)
{
	uint16_t n = 0;

	if (!dg->frags)
		return 0;
	rte_spinlock_lock(&ipf->lock);
	n = frags_pop(ipf, dg, pkts, max);
	frags_gone(ipf, dg, n);
	rte_spinlock_unlock(&ipf->lock);
	ipf_count(ipf, dg_v6(dg), dg->complete ? CT_IPF_COMPLETED
					       : CT_IPF_INVALID, n);
	return n;
}

void
ct_ipf_dgram_free(struct ct_ipf *ipf, struct ct_ipf_dgram *dg)
{
	struct rte_mbuf *left[64];
	uint16_t n;

	while ((n = ct_ipf_dgram_take(ipf, dg, left, RTE_DIM(left)))) {
		rte_pktmbuf_free_bulk(left, n);
		ipf_count(ipf, dg_v6(dg), CT_IPF_PURGED, n);
	}
	rte_spinlock_lock(&ipf->lock);
	dgram_put(ipf, dg);
	rte_spinlock_unlock(&ipf->lock);
}

/* ---- expiry, purges, the drain ------------------------------------------- */

uint32_t
ct_ipf_sweep(struct ct_ipf *ipf, uint64_t now_tsc, uint32_t budget)
{
	uint32_t n = 0;
	struct ct_ipf_dgram *dg;

	if (!__atomic_load_n(&ipf->n_waiting, __ATOMIC_RELAXED))
		return 0;
	rte_spinlock_lock(&ipf->lock);
	while (n < budget && (dg = TAILQ_FIRST(&ipf->waiting)) &&
	       now_tsc >= dg->expiration) {
		to_drain(ipf, dg, false);
		n++;
	}
	rte_spinlock_unlock(&ipf->lock);
	return n;
}

/* The waiting datagrams match() picks, to the drain list: a walk of at
 * most max-nfrags records, from the control thread. */
static uint32_t
purge(struct ct_ipf *ipf, bool (*match)(const struct ct_ipf_dgram *, uint16_t),
      uint16_t arg)
{
	uint32_t n = 0;

	rte_spinlock_lock(&ipf->lock);
	for (struct ct_ipf_dgram *dg = TAILQ_FIRST(&ipf->waiting), *next;
	     dg; dg = next) {
		next = TAILQ_NEXT(dg, link);
		if (match(dg, arg)) {
			n += dg->n_frags;
			to_drain(ipf, dg, true);
		}
	}
	rte_spinlock_unlock(&ipf->lock);
	return n;
}

static bool
match_all(const struct ct_ipf_dgram *dg, uint16_t arg)
{
	(void)dg, (void)arg;
	return true;
}

static bool
match_zone(const struct ct_ipf_dgram *dg, uint16_t zone)
{
	return dg->key.zone == zone;
}

static bool
match_port(const struct ct_ipf_dgram *dg, uint16_t in_port)
{
	for (const struct ipf_frag *f = dg->frags; f; f = f->next)
		if (f->in_port == in_port)
			return true;
	return false;
}

uint32_t
ct_ipf_purge_all(struct ct_ipf *ipf)
{
	return purge(ipf, match_all, 0);
}

uint32_t
ct_ipf_purge_zone(struct ct_ipf *ipf, uint16_t zone)
{
	return purge(ipf, match_zone, zone);
}

uint32_t
ct_ipf_purge_port(struct ct_ipf *ipf, uint16_t in_port)
{
	return purge(ipf, match_port, in_port);
}

uint32_t
ct_ipf_n_draining(const struct ct_ipf *ipf)
{
	return __atomic_load_n(&ipf->n_draining, __ATOMIC_RELAXED);
}

uint16_t
ct_ipf_drain(struct ct_ipf *ipf, struct rte_mbuf **pkts, uint16_t max,
	     bool *purged)
{
	struct ct_ipf_dgram *dg;
	uint16_t n = 0;

	if (!ct_ipf_n_draining(ipf))
		return 0;
	rte_spinlock_lock(&ipf->lock);
	dg = TAILQ_FIRST(&ipf->drain);
	*purged = dg && dg->purged;
	while (n < max && dg && dg->purged == *purged) {
		uint16_t k = frags_pop(ipf, dg, pkts + n, max - n);
		n += k;
		frags_gone(ipf, dg, k);
		ipf->n_draining -= k;
		if (dg->frags)
			break;
		TAILQ_REMOVE(&ipf->drain, dg, link);
		dgram_put(ipf, dg);
		dg = TAILQ_FIRST(&ipf->drain);
	}
	rte_spinlock_unlock(&ipf->lock);
	return n;
}
