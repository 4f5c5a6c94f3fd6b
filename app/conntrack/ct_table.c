/* SPDX-License-Identifier: BSD-3-Clause
 * The execute path: lock-free lookup of both keys
 * of a session in one rte_hash, the protocol update under the session's
 * spinlock, creation (limits, NAT tuple, both keys) under the table lock.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_prefetch.h>
#include "ct_est.h"

static inline struct ct_conn *
entry_conn(void *data)
{
	return (struct ct_conn *)((uintptr_t)data & ~CT_DIR_REPLY);
}

static inline bool
entry_reply(void *data)
{
	return (uintptr_t)data & CT_DIR_REPLY;
}

bool
ct_table_has_key(struct conntrack *ct, const struct ct_key *k)
{
	return rte_hash_lookup(ct->table, k) >= 0;
}

/* The limit a new session of zone must stay under; 0: none. */
static uint32_t
zone_limit_of(const struct conntrack *ct, uint16_t zone)
{
	uint32_t l = ct->zone_limit[zone];
	return l ? l : ct->default_zone_limit;
}

/* Makes a live, unexpired session's key free for a new one: expired
 * sessions holding it are removed (counted expired). Table lock held.
 * Returns the live holder, or NULL if the key is free now. */
static struct ct_conn *
claim_key(struct conntrack *ct, const struct ct_key *k, uint64_t now,
	  bool *reply)
{
	void *data;

	if (rte_hash_lookup_data(ct->table, k, &data) < 0)
		return NULL;
	struct ct_conn *o = entry_conn(data);
	if (!ct_conn_expired(o, now)) {
		*reply = entry_reply(data);
		return o;
	}
	if (ct_conn_kill_locked(ct, o))
		ct->expired++;
	return NULL;
}

static void
proto_new(struct conntrack *ct, struct ct_conn *c, const struct rte_mbuf *m,
	  const struct ct_pkt_meta *mt, uint64_t now)
{
	if (c->key[0].proto == IPPROTO_TCP)
		ct_tcp_new(ct, c, m, mt, now);
	else
		ct_other_new(ct, c, now);
}

/* Creates the session of a new packet with key k (IPv6: made of a6).
 * Returns it, or NULL: refused (counted) or, with *live set, another PMD
 * created it first. */
static struct ct_conn *
conn_create(struct conntrack *ct, const struct rte_mbuf *m,
	    const struct ct_pkt_meta *mt, const struct ct_key *k,
	    const struct ct_addr6 *a6, const struct ct_nat_spec *nat,
	    uint64_t now, struct ct_conn **live, bool *live_reply)
{
	struct ct_pmd_counters *cnt = ct_counters(ct);
	struct ct_conn *c = NULL;
	struct ct_key reply;
	uint32_t zl = zone_limit_of(ct, k->zone);

	/* Refusals decided without the lock, read racily (a session freed
	 * meanwhile admits a later packet): a tenant refused at line rate
	 * must not hold the lock every PMD creates sessions under
	 * (perf/ct_hostile: a victim's new connections waited milliseconds) */
	*live = NULL;
	if (k->v6)
		nat = NULL;	/* no NAT66: tracked untranslated */
	if (zl && __atomic_load_n(&ct->zone_count[k->zone],
				  __ATOMIC_RELAXED) >= zl) {
		cnt->refused_zone_limit++;
		return NULL;
	}
	if (__atomic_load_n(&ct->n_conns, __ATOMIC_RELAXED) >=
	    __atomic_load_n(&ct->max_conns, __ATOMIC_RELAXED)) {
		cnt->refused_full++;
		return NULL;
	}
	if (nat && nat->ip_min && ct_nat_exhausted(ct, nat, k, now)) {
		cnt->refused_nat++;
		return NULL;
	}

	rte_spinlock_lock(&ct->lock);
	*live = claim_key(ct, k, now, live_reply);
	if (*live)
		goto out;
	if (zl && ct->zone_count[k->zone] >= zl) {
		cnt->refused_zone_limit++;
		goto out;
	}
	if (ct->n_conns >= ct->max_conns ||
	    rte_mempool_get(ct->pool, (void **)&c) < 0) {
		c = NULL;
		cnt->refused_full++;
		goto out;
	}
	uint32_t gen = c->gen;	/* ct_cache.h: it outlives the session */
	uint32_t wseq = c->tcp_wseq;	/* and the peers' seqlock */
	memset(c, 0, sizeof *c);
	c->gen = gen;
	c->tcp_wseq = wseq;
	c->key[0] = *k;
	if (k->v6)
		c->ip6 = *a6;
	if (nat && nat->ip_min) {
		if (!ct_nat_pick(ct, nat, k, &c->key[1])) {
			ct_nat_exhausted_note(ct, nat, k, now);
			cnt->refused_nat++;
			goto refuse;
		}
		c->nat = nat->snat ? CS_SRC_NAT : CS_DST_NAT;
	} else {
		bool r;
		if (k->v6)
			ct_key6_reply(k, a6, &reply);
		else
			ct_key_reply(k, &reply);
		if (claim_key(ct, &reply, now, &r)) {
			cnt->refused_collision++;
			goto refuse;
		}
		c->key[1] = reply;
	}
	rte_spinlock_init(&c->lock);
	proto_new(ct, c, m, mt, now);

	/* Initialised before it is published: readers find it at once. */
	if (rte_hash_add_key_data(ct->table, &c->key[0], c) < 0) {
		cnt->refused_full++;
		goto refuse;
	}
	if (rte_hash_add_key_data(ct->table, &c->key[1],
				  (void *)((uintptr_t)c | CT_DIR_REPLY)) < 0) {
		/* A reader may have seen key[0]: the session goes to the
		 * sweeper, which frees it after a grace period. */
		c->pos[0] = rte_hash_del_key(ct->table, &c->key[0]);
		c->pos[1] = -1;
		__atomic_store_n(&c->dead, 1, __ATOMIC_RELEASE);
		rte_ring_sp_enqueue(ct->new_ring, c);
		c = NULL;
		cnt->refused_full++;
		goto out;
	}
	ct->n_conns++;
	ct->zone_count[k->zone]++;
	ct->created++;
	/* Never full: it holds at most every session of the pool once. */
	rte_ring_sp_enqueue(ct->new_ring, c);
	goto out;
refuse:
	rte_mempool_put(ct->pool, c);
	c = NULL;
out:
	rte_spinlock_unlock(&ct->lock);
	return c;
}

/* Removes a session a packet found closed (a SYN on a closed TCP session:
 * OVS's CT_UPDATE_NEW), so the packet can create a new one. */
static void
conn_replace(struct conntrack *ct, struct ct_conn *c)
{
	rte_spinlock_lock(&ct->lock);
	if (ct_conn_kill_locked(ct, c))
		ct->expired++;
	rte_spinlock_unlock(&ct->lock);
}

static enum ct_update
proto_update(struct conntrack *ct, struct ct_conn *c, const struct rte_mbuf *m,
	     const struct ct_pkt_meta *mt, bool reply, uint64_t now)
{
	if (c->key[0].proto == IPPROTO_TCP)
		return ct_tcp_update(ct, c, m, mt, reply, now);
	return ct_other_update(ct, c, reply, now);
}

static bool
valid_new(const struct rte_mbuf *m, const struct ct_pkt_meta *mt,
	  const struct ct_key *k)
{
	if (k->proto == IPPROTO_TCP)
		return ct_tcp_valid_new(m, mt);
	return ct_other_valid_new(k);
}

static void
fill_ref(struct ct_conn_ref *out, struct ct_conn *c, bool reply,
	 uint16_t zone)
{
	if (!out)
		return;
	out->conn = c;
	out->reply = reply;
	out->zone = zone;
	out->mark = c ? c->mark : 0;
	out->label[0] = c ? c->label[0] : 0;
	out->label[1] = c ? c->label[1] : 0;
}

/* The NAT bits of a NATed session's packet, as OVS's nat_packet() and
 * un_nat_packet() set them: the original direction has the session's
 * (+snat for SNAT), a reply the reverse (its destination is un-SNATed:
 * +dnat; a reply of DNAT, +snat). */
static inline uint8_t
nat_state(const struct ct_conn *c, bool reply)
{
	if (!reply || !c->nat)
		return c->nat;
	return c->nat == CS_SRC_NAT ? CS_DST_NAT : CS_SRC_NAT;
}

/* process_hit()'s answer when the session it was given is not there any
 * more (dead, expired, or closed and replaced): the packet is then
 * treated as one of no session. Every real ct_state has CS_TRACKED. */
#define CT_NO_SESSION 0

/* One packet of session c (found by its key, direction reply; an IPv6
 * key made of a6): the common case, inlined into the burst loop. Returns
 * its ct_state, or CT_NO_SESSION. */
static __rte_always_inline uint8_t
process_hit(struct conntrack *ct, struct rte_mbuf *m,
	    const struct ct_pkt_meta *mt, const struct ct_key *k,
	    const struct ct_addr6 *a6, bool related,
	    struct ct_conn *c, bool reply,
	    const struct ct_nat_spec *nat, uint64_t now,
	    struct ct_conn_ref *out)
{
	uint8_t state = CS_TRACKED;
	enum ct_update res = CT_UPDATE_VALID;

	rte_spinlock_lock(&c->lock);
	if (c->dead || ct_conn_expired(c, now)) {
		rte_spinlock_unlock(&c->lock);
		return CT_NO_SESSION;
	}
	if (unlikely(k->v6) && !ct_conn_v6_matches(c, reply, a6)) {
		/* another address pair with the same digest: it can
		 * neither join this session nor have one of its own */
		rte_spinlock_unlock(&c->lock);
		ct_counters(ct)->refused_collision++;
		ct_counters(ct)->invalid++;
		fill_ref(out, NULL, false, k->zone);
		return CS_TRACKED | CS_INVALID;
	}
	if (related)
		state |= CS_RELATED | (reply ? CS_REPLY_DIR : 0);
	else
		res = proto_update(ct, c, m, mt, reply, now);
	switch (res) {
	case CT_UPDATE_VALID:
		if (!related)
			state |= CS_ESTABLISHED | (reply ? CS_REPLY_DIR : 0);
		break;
	case CT_UPDATE_VALID_NEW:
		state |= CS_NEW;
		break;
	case CT_UPDATE_INVALID:
		rte_spinlock_unlock(&c->lock);
		ct_counters(ct)->invalid++;
		fill_ref(out, NULL, false, k->zone);
		return CS_TRACKED | CS_INVALID;
	case CT_UPDATE_NEW:
		/* Ended whether or not this packet commits, as OVS's
		 * conn_update_state (conn_force_expire): kept, a closed
		 * session would answer its next SYN from the old responder
		 * as +est+rpl past every deny rule, and lend a new
		 * connection its mark, label and NAT. */
		rte_spinlock_unlock(&c->lock);
		conn_replace(ct, c);
		return CT_NO_SESSION;
	}
	if (nat && c->nat) {
		state |= nat_state(c, reply);
		if (!related)
			ct_nat_packet(c, m, mt, reply);
		else
			ct_nat_icmp_error(c, m, mt, reply);
	}
	fill_ref(out, c, reply, k->zone);
	rte_spinlock_unlock(&c->lock);
	return state;
}

/* One packet of no session: +new (committed under commit) or +inv.
 * *refused: commit asked for a session and none was created (a limit,
 * the table, the NAT range: counted by conn_create). */
static uint8_t
process_miss(struct conntrack *ct, struct rte_mbuf *m,
	     const struct ct_pkt_meta *mt, const struct ct_key *k,
	     const struct ct_addr6 *a6, bool related, bool commit,
	     const struct ct_nat_spec *nat,
	     uint64_t now, struct ct_conn_ref *out, bool *refused)
{
	uint8_t state = CS_TRACKED | CS_NEW;
	struct ct_conn *c = NULL;

	if (related || !valid_new(m, mt, k)) {
		ct_counters(ct)->invalid++;
		fill_ref(out, NULL, false, k->zone);
		return CS_TRACKED | CS_INVALID;
	}
	if (commit) {
		struct ct_conn *live;
		bool live_reply;
		c = conn_create(ct, m, mt, k, a6, nat, now, &live,
				&live_reply);
		if (!c && live) {
			/* another PMD was first: track against it, without
			 * committing (if it is gone already, this packet
			 * stays +new, as in OVS) */
			uint8_t st = process_hit(ct, m, mt, k, a6, related,
						 live,
						 live_reply, nat, now,
						 out);
			if (st != CT_NO_SESSION)
				return st;
		}
		*refused = !c && !live;
		if (c && nat && c->nat) {
			state |= c->nat;
			ct_nat_packet(c, m, mt, false);
		}
	}
	fill_ref(out, c, false, k->zone);
	return state;
}

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
 * conditions (ct_l4_sane checks the L4 header next). */
static __rte_always_inline bool
flow_est_key(struct ct_key *k, const struct flow_key *f, uint16_t zone)
{
	if (f->dl_type != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4) ||
	    !ct_est_proto(f->nw_proto) || f->nw_frag)
		return false;
	ct_est_l4_key(k, f->nw_src, f->nw_dst, f->tp_src, f->tp_dst, zone,
		      f->nw_proto);
	return true;
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
		}

		for (uint16_t i = base; i < base + chunk; i++) {
			uint16_t zone = zones ? zones[i] : zone_all;
			uint16_t j = i - base;
			bool keyed = (keyable >> j) & 1;
			bool tcp = keyed && lk[j].proto == IPPROTO_TCP;
			uint16_t l4_ofs, l4_len;	/* TCP's */
			if (tcp ? !ct_tcp_sane(pkts[i], l3_ofs_of(src, i),
					       &l4_ofs, &l4_len)
				: keyed && !ct_udp_sane(pkts[i],
							l3_ofs_of(src, i)))
				goto invalid;
			if (!tcp)
				l4_ofs = l4_len = 0;	/* not read */
			if (keyed) {
				keys[nk] = lk[j];
				sigs[nk] = lsig[j];
				void *d = le[j] ? ct_cache_entry_check(le[j],
								       &lk[j])
						: NULL;
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
				    !ct_l4_sane(pkts[i], l3_ofs_of(src, i),
						keys[nk].proto, &lo, &ll))
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
				 * IPv4 header already; belt and braces */
				keyed &= scratch[i].is_ipv4;
			}
			if (keyed) {
				if (!cc)
					sigs[nk] = ct_key_sig(&keys[nk]);
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
				natted[nk] = false;	/* no NAT66 */
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
			if (natted[j] && (hits & (1ull << j)))
				data[j] = (void *)((uintptr_t)data[j] ^
						   CT_DIR_REPLY);
			else if (natted[j])	/* gone: on as a new one */
				key_flip(&keys[j]);
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

void
ct_conn_set_mark(struct ct_conn *c, uint32_t value, uint32_t mask)
{
	rte_spinlock_lock(&c->lock);
	c->mark = (c->mark & ~mask) | (value & mask);
	rte_spinlock_unlock(&c->lock);
}

void
ct_conn_set_label(struct ct_conn *c, const uint64_t value[2],
		  const uint64_t mask[2])
{
	rte_spinlock_lock(&c->lock);
	for (int i = 0; i < 2; i++)
		c->label[i] = (c->label[i] & ~mask[i]) | (value[i] & mask[i]);
	rte_spinlock_unlock(&c->lock);
}
