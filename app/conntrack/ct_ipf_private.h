/* SPDX-License-Identifier: BSD-3-Clause
 * Inside the fragment store (ct_ipf.h), and what its files call of each
 * other (one job each): ct_ipf.c the table and a datagram's life (add,
 * hand out, take, expire, purge, drain), ct_ipf_ctl.c the settings, the
 * status and the dump, ct_ipf_v4.c and ct_ipf_v6.c what each family's
 * fragment says of itself (OVS's ipf_v4_key_extract, ipf_v6_key_extract
 * and their checks) and how its datagram is rebuilt (OVS's
 * ipf_reassemble_v4_frags, ipf_reassemble_v6_frags).
 */
#ifndef VXS_CT_IPF_PRIVATE_H
#define VXS_CT_IPF_PRIVATE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>
#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_mbuf.h>
#include <rte_spinlock.h>
#include "ct_ipf.h"
#include "siphash.h"

#define IPF_BUCKETS 8192u		/* >= CT_IPF_MAX_NFRAGS_UBOUND */
/* datagram records: each waiting one holds a fragment; a few more for
 * those in callers' hands, emptied but not yet given back */
#define IPF_MAX_DGRAMS (CT_IPF_MAX_NFRAGS_UBOUND + 256u)

/* OVS's ipf_list_key: addresses of either family (IPv4's in the first
 * four bytes, the rest zero), the identification (IPv6's 32 bits, IPv4's
 * 16 widened as OVS's be16_to_be32), zone, protocol (0 for IPv6, as
 * OVS: a later fragment does not say it), recirc id, dl_type. 48 bytes,
 * no holes: compared with memcmp. */
struct ipf_key {
	uint8_t src[16];
	uint8_t dst[16];
	rte_be32_t ip_id;
	uint16_t zone;
	uint8_t proto;
	uint8_t recirc_id;
	uint16_t dl_type;		/* host order: RTE_ETHER_TYPE_IPV4/6 */
	uint8_t pad[6];
};
_Static_assert(sizeof(struct ipf_key) == 48, "ipf_key is 48 bytes");

static inline bool
ipf_key_v6(const struct ipf_key *k)
{
	return k->dl_type == RTE_ETHER_TYPE_IPV6;
}

struct ipf_frag {
	struct rte_mbuf *m;
	struct ipf_frag *next;		/* by offset; free list */
	uint32_t start, end;		/* its payload: [start, end) of the
					 * datagram's fragmentable part */
	uint16_t l3_ofs;		/* in m: the IP header */
	uint16_t l4_ofs;		/* the fragmentable part (IPv4: past
					 * the header; IPv6: past the
					 * Fragment header) */
	uint16_t nh_ofs;		/* IPv6: the next-header byte that
					 * names the Fragment header */
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

/* Per family: [0] IPv4, [1] IPv6. */
struct ct_ipf {
	rte_spinlock_t lock;		/* OVS's ipf_lock: all below */
	struct siphash_key hkey;
	uint64_t timeout_tsc;
	/* settings: the control thread writes them, PMDs read them */
	bool enabled[2];
	uint32_t min_frag[2];
	uint32_t max_nfrags;
	uint32_t dgram_max[2];		/* a datagram's cap (from min-frag) */
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
	uint64_t cnt[2][CT_IPF_N_COUNTERS];	/* atomic adds */
	struct ct_ipf_dgram dgrams[IPF_MAX_DGRAMS];
	struct ipf_frag frags[CT_IPF_MAX_NFRAGS_UBOUND];
};

static inline void
ipf_count(struct ct_ipf *ipf, bool v6, enum ct_ipf_counter c, uint64_t n)
{
	__atomic_fetch_add(&ipf->cnt[v6][c], n, __ATOMIC_RELAXED);
}

/* Under lock, after a setting changed (ct_ipf_ctl.c). */
void ipf_limits_update(struct ct_ipf *ipf);

/* What a fragment says about itself (ct_ipf_v4.c, ct_ipf_v6.c). */
struct frag_info {
	struct ipf_key key;
	uint32_t start, end;		/* of the fragmentable part */
	uint16_t l4_ofs;		/* where its piece starts in m */
	uint16_t nh_ofs;		/* IPv6: ipf_frag.nh_ofs */
	bool more;			/* MF / M: not the last */
};

/* CT_IPF_ACCEPTED, or the counter of the refusal (TOO_SMALL,
 * MALFORMED). */
enum ct_ipf_counter ipf_v4_parse(const struct ct_ipf *ipf,
				 const struct rte_mbuf *m,
				 const struct ct_ipf_frag_in *in,
				 struct frag_info *fi);
enum ct_ipf_counter ipf_v6_parse(const struct ct_ipf *ipf,
				 const struct rte_mbuf *m,
				 const struct ct_ipf_frag_in *in,
				 struct frag_info *fi);

/* Can a complete datagram be one packet of its family (OVS: "Unsupported
 * big reassembled v4|v6 packet")? */
bool ipf_v4_fits(const struct ct_ipf_dgram *dg);
bool ipf_v6_fits(const struct ct_ipf_dgram *dg);

/* The first fragment's copy, its headers made those of the whole
 * datagram (length, flags; IPv6: the Fragment header gone); the other
 * fragments' payloads are chained after it by the caller. NULL: no
 * mbufs. */
struct rte_mbuf *ipf_v4_head(const struct ct_ipf_dgram *dg);
struct rte_mbuf *ipf_v6_head(const struct ct_ipf_dgram *dg);
/* ct_ipf_dgram_nat for an IPv6 datagram: the addresses of reass (made by
 * ipf_v6_head, NATed) into every fragment, its L4 bytes into the first
 * (the reassembled packet has no Fragment header: 8 bytes before) */
void ipf_v6_dgram_nat(struct ct_ipf_dgram *dg, const struct rte_mbuf *reass);

#endif
