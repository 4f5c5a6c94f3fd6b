/* SPDX-License-Identifier: BSD-3-Clause
 * The fragment store (ct_ipf.h): datagrams by key in a chained hash
 * (SipHash under a per-process random key: the keys are a tenant's
 * choice), each one's fragments in a list sorted by offset, datagrams
 * waiting in creation order (which is expiry order: one timeout for all,
 * never pushed back, as OVS's), expired and purged ones on a drain list
 * for the PMDs. Records and fragment entries come from arrays sized for
 * CT_IPF_MAX_NFRAGS_UBOUND.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include "secret_bytes.h"
#include <netinet/in.h>
#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_random.h>
#include <rte_spinlock.h>
#include "ct_ipf.h"
#include "ds.h"
#include "siphash.h"

#define IPV4_MAX_LEN 65535u		/* total length, header included */
#define IPV4_MAX_HDR 60u
#define IPF_BUCKETS 8192u		/* >= CT_IPF_MAX_NFRAGS_UBOUND */
/* datagram records: each waiting one holds a fragment; a few more for
 * those in callers' hands, emptied but not yet given back */
#define IPF_MAX_DGRAMS (CT_IPF_MAX_NFRAGS_UBOUND + 256u)
#define IPF_DUMP_CHUNK 128u		/* records read per lock (dump) */

/* OVS's ipf_list_key: 16 bytes, no holes. dl_type is the seam for IPv6,
 * whose addresses would need a key of their own. */
struct ipf_key {
	rte_be32_t src;
	rte_be32_t dst;
	rte_be16_t ip_id;
	uint16_t zone;
	uint8_t proto;
	uint8_t recirc_id;
	uint16_t dl_type;		/* host order: RTE_ETHER_TYPE_IPV4 */
};
_Static_assert(sizeof(struct ipf_key) == 16, "ipf_key is 16 bytes");

struct ipf_frag {
	struct rte_mbuf *m;
	struct ipf_frag *next;		/* by offset; free list */
	uint32_t start, end;		/* its payload: [start, end) of the
					 * datagram's */
	uint16_t l3_ofs, l4_ofs;	/* in m */
	uint16_t in_port;
};

enum dg_where { DG_FREE, DG_WAITING, DG_DRAIN, DG_OUT };

struct ct_ipf_dgram {
	struct ipf_key key;
	struct ct_ipf_dgram *hnext;	/* hash chain; free list */
	TAILQ_ENTRY(ct_ipf_dgram) link;	/* waiting or drain list */
	struct ipf_frag *frags;		/* sorted by start */
	uint64_t expiration;
	uint32_t hash;
	uint32_t bytes;			/* payload held */
	uint32_t end;			/* the last fragment's end; 0: unseen */
	uint32_t max_end;		/* the largest end held */
	uint16_t n_frags;
	uint8_t where;			/* enum dg_where */
	bool first_seen;
	bool complete;			/* DG_OUT: whole, else invalid */
	bool purged;			/* DG_DRAIN: purged, else expired */
};

TAILQ_HEAD(ipf_dgram_list, ct_ipf_dgram);

struct ct_ipf {
	rte_spinlock_t lock;		/* OVS's ipf_lock: all below */
	struct siphash_key hkey;
	uint64_t timeout_tsc;
	/* settings: the control thread writes them, PMDs read them */
	bool v4_enabled;
	uint32_t v4_min_frag;
	uint32_t max_nfrags;
	uint32_t dgram_max;		/* a datagram's cap (from min-frag) */
	uint32_t zone_max;		/* a zone's share */
	/* under lock (read atomically outside it) */
	uint32_t nfrag;			/* entries in use: held or out */
	uint32_t n_draining;		/* fragments on the drain list */
	uint32_t n_waiting;		/* datagrams waiting */
	uint16_t *zone_frags;		/* [65536] entries in use per zone */
	struct ct_ipf_dgram *bucket[IPF_BUCKETS];
	struct ipf_dgram_list waiting;	/* creation (= expiry) order */
	struct ipf_dgram_list drain;	/* expired or purged: PMDs drop */
	struct ct_ipf_dgram *free_dgrams;
	struct ipf_frag *free_frags;
	uint64_t cnt[CT_IPF_N_COUNTERS];	/* atomic adds */
	struct ct_ipf_dgram dgrams[IPF_MAX_DGRAMS];
	struct ipf_frag frags[CT_IPF_MAX_NFRAGS_UBOUND];
};

static inline void
count(struct ct_ipf *ipf, enum ct_ipf_counter c, uint64_t n)
{
	__atomic_fetch_add(&ipf->cnt[c], n, __ATOMIC_RELAXED);
}

/* OVS's max_v4_frag_list_size: the most fragments a 64 KB datagram can
 * take when each but the last carries at least min-frag bytes. */
static uint32_t
dgram_cap(uint32_t min_frag)
{
	return (IPV4_MAX_LEN - IPV4_MAX_HDR + (min_frag - IPV4_MAX_HDR) - 1) /
	       (min_frag - IPV4_MAX_HDR);
}

/* Under lock, after a setting changed. */
static void
limits_update(struct ct_ipf *ipf)
{
	ipf->dgram_max = dgram_cap(ipf->v4_min_frag);
	uint32_t share = RTE_MAX(ipf->max_nfrags / CT_IPF_ZONE_SHARE,
				 ipf->dgram_max);
	ipf->zone_max = RTE_MIN(share, ipf->max_nfrags);
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
	ipf->v4_enabled = true;
	ipf->v4_min_frag = CT_IPF_V4_MIN_FRAG_DEFAULT;
	ipf->max_nfrags = CT_IPF_MAX_NFRAGS_DEFAULT;
	limits_update(ipf);
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
			count(ipf, CT_IPF_PURGED, 1);
		}
	}
	free(ipf->zone_frags);
	free(ipf);
}

/* ---- settings and status ------------------------------------------------ */

int
ct_ipf_set_enabled(struct ct_ipf *ipf, bool v6, bool on)
{
	if (v6)
		return on ? -ENOTSUP : 0;	/* never on: nothing to do */
	__atomic_store_n(&ipf->v4_enabled, on, __ATOMIC_RELAXED);
	return 0;
}

int
ct_ipf_set_min_frag(struct ct_ipf *ipf, bool v6, uint32_t bytes)
{
	if (v6)
		return -ENOTSUP;
	if (bytes < CT_IPF_V4_MIN_FRAG_LBOUND)
		return -ERANGE;
	rte_spinlock_lock(&ipf->lock);
	__atomic_store_n(&ipf->v4_min_frag, bytes, __ATOMIC_RELAXED);
	limits_update(ipf);
	rte_spinlock_unlock(&ipf->lock);
	return 0;
}

int
ct_ipf_set_max_nfrags(struct ct_ipf *ipf, uint32_t n)
{
	if (n > CT_IPF_MAX_NFRAGS_UBOUND)
		return -ERANGE;
	rte_spinlock_lock(&ipf->lock);
	ipf->max_nfrags = n;
	limits_update(ipf);
	rte_spinlock_unlock(&ipf->lock);
	return 0;
}

bool
ct_ipf_v4_enabled(const struct ct_ipf *ipf)
{
	return __atomic_load_n(&ipf->v4_enabled, __ATOMIC_RELAXED);
}

void
ct_ipf_get_status(struct ct_ipf *ipf, struct ct_ipf_status *s)
{
	memset(s, 0, sizeof *s);
	rte_spinlock_lock(&ipf->lock);
	s->v4_enabled = ipf->v4_enabled;
	s->v4_min_frag = ipf->v4_min_frag;
	s->max_nfrags = ipf->max_nfrags;
	s->nfrag = ipf->nfrag;
	s->n_dgrams = ipf->n_waiting;
	s->zone_max = ipf->zone_max;
	s->dgram_max = ipf->dgram_max;
	rte_spinlock_unlock(&ipf->lock);
	s->v6_enabled = false;		/* not implemented */
	s->v6_min_frag = CT_IPF_V6_MIN_FRAG_DEFAULT;
	for (int c = 0; c < CT_IPF_N_COUNTERS; c++)
		s->v4[c] = __atomic_load_n(&ipf->cnt[c], __ATOMIC_RELAXED);
}

/* OVS's ipf_state_name for a datagram waiting */
static const char *
dgram_state_name(bool first, bool last)
{
	return first && last ? "first/last frag" : first ? "first frag" :
	       last ? "last frag" : "other frag";
}

void
ct_ipf_dump_lists(struct ct_ipf *ipf, struct ds *out)
{
	struct {
		struct ipf_key key;
		uint16_t n;
		bool first, last;
	} seen[IPF_DUMP_CHUNK];

	for (uint32_t base = 0; base < IPF_MAX_DGRAMS;
	     base += IPF_DUMP_CHUNK) {
		uint32_t n = 0;
		rte_spinlock_lock(&ipf->lock);
		for (uint32_t i = base;
		     i < RTE_MIN(base + IPF_DUMP_CHUNK, IPF_MAX_DGRAMS); i++) {
			const struct ct_ipf_dgram *dg = &ipf->dgrams[i];
			if (dg->where != DG_WAITING)
				continue;
			seen[n].key = dg->key;
			seen[n].n = dg->n_frags;
			seen[n].first = dg->first_seen;
			seen[n++].last = dg->end != 0;
		}
		rte_spinlock_unlock(&ipf->lock);
		for (uint32_t j = 0; j < n; j++) {
			const struct ipf_key *k = &seen[j].key;
			uint32_t s = rte_be_to_cpu_32(k->src);
			uint32_t d = rte_be_to_cpu_32(k->dst);
			ds_put_format(out, "(src=%u.%u.%u.%u,dst=%u.%u.%u.%u,"
				      "recirc_id=%u,ip_id=%u,dl_type=0x%x,"
				      "zone=%u,nw_proto=%u,num_fragments=%u,"
				      "state=%s)\n", s >> 24, s >> 16 & 0xff,
				      s >> 8 & 0xff, s & 0xff, d >> 24,
				      d >> 16 & 0xff, d >> 8 & 0xff, d & 0xff,
				      k->recirc_id, rte_be_to_cpu_16(k->ip_id),
				      k->dl_type, k->zone, k->proto, seen[j].n,
				      dgram_state_name(seen[j].first,
						       seen[j].last));
		}
	}
}

/* ---- the table ----------------------------------------------------------- */

static inline uint32_t
key_hash(const struct ct_ipf *ipf, const struct ipf_key *k)
{
	uint64_t w[2];

	memcpy(w, k, sizeof w);
	return siphash13_16_u32(&ipf->hkey, w[0], w[1]);
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
	count(ipf, purged ? CT_IPF_PURGED : CT_IPF_EXPIRED, dg->n_frags);
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

/* What an IPv4 fragment says about itself, checked as OVS's
 * ipf_is_valid_v4_frag and ipf_v4_key_extract (and a little more: a
 * fragment that cannot be part of any datagram is refused here). */
struct frag_info {
	struct ipf_key key;
	uint32_t start, end;
	uint16_t l4_ofs;
	uint16_t ihl;
	bool more;			/* MF: not the last */
};

static enum ct_ipf_counter
frag_parse(const struct ct_ipf *ipf, const struct rte_mbuf *m,
	   const struct ct_ipf_frag_in *in, struct frag_info *fi)
{
	if ((uint32_t)in->l3_ofs + sizeof(struct rte_ipv4_hdr) > m->data_len)
		return CT_IPF_MALFORMED;
	const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m,
				const struct rte_ipv4_hdr *, in->l3_ofs);
	uint32_t ihl = (ip->version_ihl & 0x0f) * 4u;
	uint32_t tot = rte_be_to_cpu_16(ip->total_length);
	uint16_t fo = rte_be_to_cpu_16(ip->fragment_offset);

	/* OVS: total length == L3 size; a frame may carry Ethernet padding
	 * past it, never less */
	if ((ip->version_ihl >> 4) != 4 || ihl < sizeof *ip ||
	    in->l3_ofs + ihl > m->data_len || tot <= ihl ||
	    in->l3_ofs + tot > rte_pktmbuf_pkt_len(m) ||
	    rte_ipv4_cksum(ip) != 0)
		return CT_IPF_MALFORMED;
	fi->more = fo & RTE_IPV4_HDR_MF_FLAG;
	fi->start = (uint32_t)(fo & RTE_IPV4_HDR_OFFSET_MASK) * 8;
	fi->end = fi->start + tot - ihl;
	fi->ihl = (uint16_t)ihl;
	fi->l4_ofs = (uint16_t)(in->l3_ofs + ihl);
	/* not a fragment; past the largest datagram; a piece before the
	 * last that the next cannot follow (offsets count 8 bytes) */
	if ((!fi->more && !fi->start) ||
	    fi->end + sizeof *ip > IPV4_MAX_LEN ||
	    (fi->more && (fi->end - fi->start) % 8))
		return CT_IPF_MALFORMED;
	if (fi->more && tot < __atomic_load_n(&ipf->v4_min_frag,
					      __ATOMIC_RELAXED))
		return CT_IPF_TOO_SMALL;
	fi->key = (struct ipf_key){
		.src = ip->src_addr, .dst = ip->dst_addr,
		.ip_id = ip->packet_id, .zone = in->zone,
		.proto = ip->next_proto_id, .recirc_id = in->recirc_id,
		.dl_type = RTE_ETHER_TYPE_IPV4,
	};
	return CT_IPF_ACCEPTED;
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
	enum ct_ipf_counter why = frag_parse(ipf, m, in, &fi);

	*done = NULL;
	if (why != CT_IPF_ACCEPTED) {
		count(ipf, why, 1);
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
	if (dg && dg->n_frags >= ipf->dgram_max) {
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
		count(ipf, overlap ? CT_IPF_OVERLAP : CT_IPF_MALFORMED, 1);
		*done = hand_out(ipf, dg, false);
		rte_spinlock_unlock(&ipf->lock);
		return CT_IPF_REFUSED;
	}
	struct ipf_frag *f = ipf->free_frags;	/* nfrag < max: one is free */
	ipf->free_frags = f->next;
	*f = (struct ipf_frag){ .m = m, .next = cur, .start = fi.start,
				.end = fi.end, .l3_ofs = in->l3_ofs,
				.l4_ofs = fi.l4_ofs, .in_port = in->in_port };
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
	count(ipf, CT_IPF_ACCEPTED, 1);
	/* no overlaps: the bytes held cover [0, end) exactly when they add
	 * up to end */
	if (dg->first_seen && dg->end && dg->bytes == dg->end) {
		uint32_t ihl = dg->frags->l4_ofs - dg->frags->l3_ofs;
		/* OVS: "Unsupported big reassembled v4 packet" */
		*done = hand_out(ipf, dg, ihl + dg->end <= IPV4_MAX_LEN);
	}
	rte_spinlock_unlock(&ipf->lock);
	return CT_IPF_TAKEN;

refuse:
	/* a record made for this fragment only is not kept */
	if (dg && !dg->n_frags) {
		unlink_waiting(ipf, dg);
		dgram_put(ipf, dg);
	}
	rte_spinlock_unlock(&ipf->lock);
	count(ipf, why, 1);
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
	const struct ipf_frag *first = dg->frags;
	struct rte_mempool *mp = first->m->pool;

	if (!dg->complete)
		return NULL;
	/* the first fragment's bytes up to its payload's end (no padding):
	 * a copy, since the tracker may rewrite its headers */
	struct rte_mbuf *r = rte_pktmbuf_copy(first->m, mp, 0, first->l4_ofs +
					      first->end - first->start);
	if (!r)
		goto fail;
	for (const struct ipf_frag *f = first->next; f; f = f->next) {
		struct rte_mbuf *c = rte_pktmbuf_clone(f->m, mp);
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
	struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(r,
				struct rte_ipv4_hdr *, first->l3_ofs);
	ip->total_length = rte_cpu_to_be_16((uint16_t)(first->l4_ofs -
						       first->l3_ofs +
						       dg->end));
	ip->fragment_offset &= ~rte_cpu_to_be_16(RTE_IPV4_HDR_MF_FLAG);
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	return r;
fail:
	rte_pktmbuf_free(r);
	dg->complete = false;	/* its fragments go on +inv */
	return NULL;
}

void
ct_ipf_dgram_nat(struct ct_ipf_dgram *dg, const struct rte_mbuf *reass)
{
	const struct ipf_frag *first = dg->frags;
	const struct rte_ipv4_hdr *rip = rte_pktmbuf_mtod_offset(reass,
				const struct rte_ipv4_hdr *, first->l3_ofs);

	for (const struct ipf_frag *f = first; f; f = f->next) {
		struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(f->m,
					struct rte_ipv4_hdr *, f->l3_ofs);
		if (ip->src_addr == rip->src_addr &&
		    ip->dst_addr == rip->dst_addr)
			continue;
		ip->src_addr = rip->src_addr;
		ip->dst_addr = rip->dst_addr;
		ip->hdr_checksum = 0;
		ip->hdr_checksum = rte_ipv4_cksum(ip);
	}
	/* the L4 header (ports, and the checksum of the whole datagram)
	 * rides in the first fragment, whose payload the copy starts with */
	uint32_t n = RTE_MIN(first->end - first->start,
			     (uint32_t)reass->data_len - first->l4_ofs);
	n = RTE_MIN(n, (uint32_t)first->m->data_len - first->l4_ofs);
	memcpy(rte_pktmbuf_mtod_offset(first->m, uint8_t *, first->l4_ofs),
	       rte_pktmbuf_mtod_offset(reass, const uint8_t *, first->l4_ofs),
	       n);
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
	count(ipf, dg->complete ? CT_IPF_COMPLETED : CT_IPF_INVALID, n);
	return n;
}

void
ct_ipf_dgram_free(struct ct_ipf *ipf, struct ct_ipf_dgram *dg)
{
	struct rte_mbuf *left[64];
	uint16_t n;

	while ((n = ct_ipf_dgram_take(ipf, dg, left, RTE_DIM(left)))) {
		rte_pktmbuf_free_bulk(left, n);
		count(ipf, CT_IPF_PURGED, n);
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
