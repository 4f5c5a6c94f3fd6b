/* SPDX-License-Identifier: BSD-3-Clause
 * The execute path: a burst's keys (the established lane's first, then
 * the full path's), one bulk lookup of the lock-free table, and each
 * packet against its session (ct_process.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_prefetch.h>
#include "ct_process.h"

uint8_t
conntrack_execute_one(struct conntrack *ct, struct rte_mbuf *m,
		      const struct ct_pkt_meta *meta, uint16_t zone,
		      bool commit, const struct ct_nat_spec *nat,
		      uint64_t now_tsc, struct ct_conn_ref *out)
{
	uint8_t state;

	conntrack_execute(ct, &m, meta, 1, zone, commit, nat, now_tsc,
			  &state, out);
	return state;
}

#define CT_BULK RTE_HASH_LOOKUP_BULK_MAX

static inline void
key_flip(struct ct_key *k)
{
	struct ct_key r;

	ct_key_reverse(&r, k);
	*k = r;
}

/* key_flip, and for an IPv6 key made of a6, a6 flipped too (out of
 * line: ct_key6_flip) */
static inline void
key_flip6(struct ct_key *k, struct ct_addr6 *a6)
{
	if (unlikely(k->v6))
		ct_key6_flip(k, a6);
	else
		key_flip(k);
}

/* The packets of one call (struct ct_flow_call, conntrack.h): zone,
 * commit and nat either one for all (zones, commits or nats NULL) or per
 * packet. */
static inline const struct ct_nat_spec *
call_nat(const struct ct_flow_call *c, uint16_t i)
{
	return c->nats ? c->nats[i] : c->nat;
}

static inline uint16_t
call_zone(const struct ct_flow_call *c, uint16_t i)
{
	return c->zones ? c->zones[i] : c->zone;
}

static inline bool
call_commit(const struct ct_flow_call *c, uint16_t i)
{
	return c->commits ? (c->commits[i / 64] >> (i % 64)) & 1 : c->commit;
}

/* Looks up keys[0..nk): the lcore's cache first, the table (one bulk
 * lookup, the hashes already computed) for the rest, whose hits are
 * cached. known: keys whose cache probe was made already (by the lane),
 * hit (in hits, data[] set) or missed. Returns the hit mask, data[] set
 * for the hits. */
static uint64_t
lookup_keys(struct conntrack *ct, struct ct_cache *cc,
	    const struct ct_key keys[], const uint32_t sigs[], uint32_t nk,
	    void *data[], uint64_t known, uint64_t hits)
{
	const void *kp[CT_BULK];
	hash_sig_t msig[CT_BULK];
	void *mdata[CT_BULK];
	uint8_t mj[CT_BULK];
	uint64_t mhits = 0;
	uint32_t nm = 0;

	for (uint32_t j = 0; j < nk; j++) {
		if (hits & (1ull << j))
			continue;
		void *d = NULL;
		if (cc && !(known & (1ull << j)))
			d = ct_cache_lookup(cc, &keys[j], sigs[j]);
		if (d) {
			data[j] = d;
			hits |= 1ull << j;
		} else {
			kp[nm] = &keys[j];
			msig[nm] = sigs[j];
			mj[nm++] = (uint8_t)j;
		}
	}
	if (!nm)
		return hits;
	rte_hash_lookup_with_hash_bulk_data(ct->table, kp, msig, nm, &mhits,
					    mdata);
	for (uint32_t m = 0; m < nm; m++) {
		if (!(mhits & (1ull << m)))
			continue;
		data[mj[m]] = mdata[m];
		hits |= 1ull << mj[m];
		if (cc)
			ct_cache_insert(cc, sigs[mj[m]], mdata[m]);
	}
	return hits;
}

/* Where the tracker reads a packet: its meta (conntrack_execute*), or
 * its flow key (conntrack_execute_flows), from which the meta is built
 * into scratch only if the established lane does not take the packet. */
struct ct_src {
	const struct ct_pkt_meta *meta;
	const struct flow_key *const *fkeys;
	struct ct_pkt_meta *scratch;
};

/* The lane's key of a packet, from its flow key alone: ct_est_key()'s
 * conditions (ct_l4_sane checks the L4 header next); IPv6's out of line
 * (ct_v6.c). */
static __rte_always_inline bool
flow_est_key(struct ct_key *k, const struct flow_key *f, uint16_t zone)
{
	if (unlikely(f->dl_type != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4)))
		return f->dl_type == rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6) &&
		       ct_flow_est_key6(k, f, zone);
	if (!ct_est_proto(f->nw_proto) || f->nw_frag)
		return false;
	ct_est_l4_key(k, f->nw_src, f->nw_dst, f->tp_src, f->tp_dst, zone,
		      f->nw_proto);
	return true;
}

/* The addresses of an IPv6 flow key, as a key is made of them */
static __rte_always_inline const struct ct_addr6 *
flow_addrs6(const struct flow_key *f)
{
	_Static_assert(offsetof(struct flow_key, ipv6_dst) ==
		       offsetof(struct flow_key, ipv6_src) + 16,
		       "ipv6_src, ipv6_dst: a ct_addr6");
	return (const struct ct_addr6 *)&f->ipv6_src;
}

/* A TCP session's bit in a chunk's mask, the same both ways: the lane
 * takes no packet of a session an earlier packet of the chunk left to the
 * full path, which runs after the lane (a segment judged before the one
 * ahead of it could be out of a window that one moves). A collision only
 * sends a packet the full path's way. */
static __rte_always_inline uint64_t
session_bit(const struct ct_key *k)
{
	uint32_t h = (k->src ^ k->dst) ^
		     ((uint32_t)(k->sport ^ k->dport) << 16) ^ k->zone;
	return 1ull << ((h * 0x9e3779b1u) >> 26);
}

/* Where packet i's IPv4 header starts. */
static __rte_always_inline uint16_t
l3_ofs_of(const struct ct_src *src, uint16_t i)
{
	if (!src->fkeys)
		return src->meta[i].l3_ofs;
	return RTE_ETHER_HDR_LEN + (src->fkeys[i]->vlan_tci ? RTE_VLAN_HLEN
							   : 0);
}

static void
execute_bulk(struct conntrack *ct, struct rte_mbuf **pkts,
	     const struct ct_src *src, uint16_t n,
	     const struct ct_flow_call *call, uint64_t now_tsc,
	     uint8_t *ct_state_out, struct ct_conn_ref *out)
{
	struct ct_key keys[CT_BULK];
	uint32_t sigs[CT_BULK];
	void *data[CT_BULK];
	uint16_t idx[CT_BULK];
	bool related[CT_BULK];
	bool natted[CT_BULK];
	struct ct_addr6 a6[CT_BULK];	/* IPv6 keys' addresses */
	struct ct_cache *cc = ct_cache_of(ct);
	/* in locals: the stores below could alias them for the compiler */
	const struct flow_key *const *fkeys = src->fkeys;
	struct ct_pkt_meta *scratch = src->scratch;
	const struct ct_pkt_meta *meta = fkeys ? scratch : src->meta;
	const uint16_t *zones = call->zones;
	const uint16_t zone_all = call->zone;

	for (uint16_t base = 0; base < n; base += CT_BULK) {
		uint16_t chunk = RTE_MIN(n - base, CT_BULK);
		uint32_t nk = 0;
		uint64_t known = 0, hits = 0;	/* the lane's cache probes */
		uint32_t lane = 0;		/* packets it took */
		uint64_t deferred = 0;	/* session_bit()s of TCP packets
					 * left to the full path */
		bool committed = false;	/* a new session, maybe */

		/* The lane's keys, cache probes and sessions for the whole
		 * chunk first, each step's loads prefetched a step ahead:
		 * one packet's chain (cache set, then session) would stall
		 * on each line, and a burst's sessions are many lines. */
		struct ct_key lk[CT_BULK];
		uint32_t lsig[CT_BULK];
		const struct ct_cache_entry *le[CT_BULK];
		uint64_t keyable = 0;
		for (uint16_t j = 0; cc && j < chunk; j++) {
			uint16_t i = base + j;
			uint16_t zone = zones ? zones[i] : zone_all;
			if (fkeys ? !flow_est_key(&lk[j], fkeys[i], zone)
				  : !ct_est_key(&lk[j], &meta[i], pkts[i],
						zone))
				continue;
			keyable |= 1ull << j;
			lsig[j] = ct_key_sig(&lk[j]);
			rte_prefetch0(ct_cache_set_of(cc, lsig[j]));
		}
		for (uint64_t m = keyable; m; m &= m - 1) {
			unsigned j = (unsigned)__builtin_ctzll(m);
			le[j] = ct_cache_find(cc, lsig[j]);
			if (!le[j])
				continue;
			const uint8_t *c = (const uint8_t *)
				(le[j]->conn_dir & ~CT_DIR_REPLY);
			rte_prefetch0(c);
			if (lk[j].proto == IPPROTO_TCP)	/* the peers */
				rte_prefetch0(c + RTE_CACHE_LINE_SIZE);
			if (unlikely(lk[j].v6))	/* the addresses */
				rte_prefetch0(c + 2 * RTE_CACHE_LINE_SIZE);
		}

		for (uint16_t i = base; i < base + chunk; i++) {
			uint16_t zone = zones ? zones[i] : zone_all;
			uint16_t j = i - base;
			bool keyed = (keyable >> j) & 1;
			bool tcp = keyed && lk[j].proto == IPPROTO_TCP;
			uint16_t l4_ofs, l4_len;	/* TCP's */
			if (unlikely(keyed && lk[j].v6)) {
				if (!ct_l4_sane6(pkts[i], l3_ofs_of(src, i),
						 lk[j].proto, &l4_ofs,
						 &l4_len))
					goto invalid;
			} else if (tcp ? !ct_tcp_sane(pkts[i],
						      l3_ofs_of(src, i),
						      &l4_ofs, &l4_len)
				       : keyed &&
					 !ct_udp_sane(pkts[i],
						      l3_ofs_of(src, i))) {
				goto invalid;
			}
			if (!tcp)
				l4_ofs = l4_len = 0;	/* not read */
			if (keyed) {
				keys[nk] = lk[j];
				sigs[nk] = lsig[j];
				void *d = le[j] ? ct_cache_entry_check(le[j],
								       &lk[j])
						: NULL;
				/* IPv6 (only from a flow key): the session's
				 * addresses must be the packet's, else the
				 * full path counts the collision */
				if (unlikely(lk[j].v6) && d &&
				    !ct_conn_v6_matches(entry_conn(d),
							entry_reply(d),
							flow_addrs6(fkeys[i])))
					d = NULL;
				/* the lane runs before the full path's
				 * packets of the chunk: a TCP session one of
				 * those went to must keep its order */
				uint64_t sb = tcp ? session_bit(&lk[j]) : 0;
				uint8_t st = d && !(deferred & sb) ?
					     ct_est_lane(ct, d, &keys[nk],
							 pkts[i], l4_ofs,
							 l4_len, now_tsc,
							 out ? &out[i] : NULL)
					     : 0;
				if (st) {
					ct_state_out[i] = st;
					lane++;
					continue;
				}
				deferred |= sb;
				known |= 1ull << nk;
				if (d) {
					data[nk] = d;
					hits |= 1ull << nk;
				}
			} else if (!cc) {
				keyed = fkeys ? flow_est_key(&keys[nk],
							     fkeys[i], zone)
					      : ct_est_key(&keys[nk], &meta[i],
							   pkts[i], zone);
				uint16_t lo, ll;
				if (keyed &&
				    !(keys[nk].v6 ?
				      ct_l4_sane6(pkts[i], l3_ofs_of(src, i),
						  keys[nk].proto, &lo, &ll) :
				      ct_l4_sane(pkts[i], l3_ofs_of(src, i),
						 keys[nk].proto, &lo, &ll)))
					goto invalid;
			}
			if (fkeys) {
				const struct flow_key *f = fkeys[i];
				ct_pkt_meta_from_flow(scratch + i, f,
						      pkts[i],
						      RTE_ETHER_HDR_LEN +
						      (f->vlan_tci ?
						       RTE_VLAN_HLEN : 0));
				/* the datapath's extraction checked the
				 * IP header already; belt and braces */
				keyed &= scratch[i].is_ipv4 |
					 scratch[i].is_ipv6;
			}
			if (keyed) {
				if (!cc)
					sigs[nk] = ct_key_sig(&keys[nk]);
				if (unlikely(keys[nk].v6))
					a6[nk] = *flow_addrs6(fkeys[i]);
				related[nk] = natted[nk] = false;
				idx[nk++] = i;
				continue;
			}
			if (meta[i].is_ipv4 &&
			    ct_key_extract(pkts[i], &meta[i], zone, &keys[nk],
					   &related[nk])) {
				/* NATed already in this zone: its session
				 * has the packet's reverse as a key */
				natted[nk] = meta[i].natted && !related[nk];
				if (natted[nk])
					key_flip(&keys[nk]);
				sigs[nk] = ct_key_sig(&keys[nk]);
				idx[nk++] = i;
				continue;
			}
			if (meta[i].is_ipv6 &&
			    ct_key_extract6(pkts[i], &meta[i], zone,
					    &keys[nk], &a6[nk],
					    &related[nk])) {
				natted[nk] = meta[i].natted && !related[nk];
				if (natted[nk])
					key_flip6(&keys[nk], &a6[nk]);
				sigs[nk] = ct_key_sig(&keys[nk]);
				idx[nk++] = i;
				continue;
			}
invalid:
			ct_counters(ct)->invalid++;
			ct_state_out[i] = CS_TRACKED | CS_INVALID;
			if (out)
				fill_ref(&out[i], NULL, false, zone);
		}
		if (lane)
			ct_counters(ct)->lane += lane;
		if (!nk)
			continue;
		hits = lookup_keys(ct, cc, keys, sigs, nk, data, known, hits);
		for (uint32_t j = 0; j < nk; j++)
			if (hits & (1ull << j))
				rte_prefetch0(entry_conn(data[j]));
		for (uint32_t j = 0; j < nk; j++) {
			uint16_t i = idx[j];
			/* a session an earlier packet of this chunk created
			 * was not there for the bulk lookup: a reply (or a
			 * second packet) in the same burst must find it */
			if (!(hits & (1ull << j)) &&
			    committed &&
			    rte_hash_lookup_with_hash_data(ct->table, &keys[j],
							   sigs[j],
							   &data[j]) >= 0)
				hits |= 1ull << j;
			if (natted[j] && (hits & (1ull << j))) {
				if (unlikely(keys[j].v6))
					ct_nat6_natted_addrs(
						entry_conn(data[j]),
						entry_reply(data[j]), &a6[j]);
				data[j] = (void *)((uintptr_t)data[j] ^
						   CT_DIR_REPLY);
			}
			else if (natted[j])	/* gone: on as a new one */
				key_flip6(&keys[j], &a6[j]);
			bool commit = call_commit(call, i);
			const struct ct_nat_spec *nat = call_nat(call, i);
			struct ct_conn_ref *ref = out ? &out[i] : NULL;
			uint8_t st = CT_NO_SESSION;
			if (hits & (1ull << j))
				st = process_hit(ct, pkts[i], &meta[i],
						 &keys[j], &a6[j], related[j],
						 entry_conn(data[j]),
						 entry_reply(data[j]),
						 nat, now_tsc, ref);
			if (st == CT_NO_SESSION) {
				bool refused = false;
				st = process_miss(ct, pkts[i], &meta[i],
						  &keys[j], &a6[j], related[j],
						  commit, nat, now_tsc, ref,
						  &refused);
				if (refused && call->refused)
					call->refused[i / 64] |=
						1ull << (i % 64);
			}
			ct_state_out[i] = st;
			committed |= commit && (st & CS_NEW);
		}
	}
}

void
conntrack_execute(struct conntrack *ct, struct rte_mbuf **pkts,
		  const struct ct_pkt_meta *meta, uint16_t n, uint16_t zone,
		  bool commit, const struct ct_nat_spec *nat, uint64_t now_tsc,
		  uint8_t *ct_state_out, struct ct_conn_ref *out)
{
	const struct ct_flow_call call = { .zone = zone, .commit = commit,
				      .nat = nat };

	const struct ct_src src = { .meta = meta };

	execute_bulk(ct, pkts, &src, n, &call, now_tsc, ct_state_out, out);
}

void
conntrack_execute_mixed(struct conntrack *ct, struct rte_mbuf **pkts,
			const struct ct_pkt_meta *meta, uint16_t n,
			const uint16_t zones[], const uint64_t commits[],
			const struct ct_nat_spec *const nats[],
			uint64_t now_tsc, uint8_t *ct_state_out)
{
	const struct ct_flow_call call = { .zones = zones, .commits = commits,
				      .nats = nats };

	const struct ct_src src = { .meta = meta };

	execute_bulk(ct, pkts, &src, n, &call, now_tsc, ct_state_out, NULL);
}

void
conntrack_execute_flows(struct conntrack *ct, struct rte_mbuf **pkts,
			const struct flow_key *const keys[], uint16_t n,
			const struct ct_flow_call *call, uint64_t now_tsc,
			uint8_t *ct_state_out)
{
	struct ct_pkt_meta scratch[CT_BULK];

	for (uint16_t base = 0; base < n; base += CT_BULK) {
		uint16_t chunk = RTE_MIN(n - base, CT_BULK);
		const struct ct_src src = { .fkeys = keys + base,
					    .scratch = scratch };
		struct ct_flow_call sub = *call;
		if (sub.zones)
			sub.zones += base;
		if (sub.commits)
			sub.commits += base / 64;
		if (sub.nats)
			sub.nats += base;
		if (sub.refused)
			sub.refused += base / 64;
		execute_bulk(ct, pkts + base, &src, chunk, &sub, now_tsc,
			     ct_state_out + base, NULL);
	}
}
