/* SPDX-License-Identifier: BSD-3-Clause
 * NAT: a new session under nat(src=...) or nat(dst=...) gets a reply
 * tuple no other session uses (address from the range, starting at a
 * keyed hash of the original tuple so sessions spread; the original port
 * kept when free, else a free one of the range found in bounded time, as
 * OVS's nat_get_unique_tuple), and its packets are rewritten both ways with
 * incremental IPv4 and L4 checksum updates (RFC 1624). An ICMP error
 * about a NATed session is translated too, outer address and the packet
 * it quotes (ct_nat_icmp_error), so path-MTU discovery works behind NAT.
 * ICMP echo ids are not translated (OVS 3.1 does not; only OVS master
 * translates them).
 */
#include <rte_ip.h>
#include <rte_random.h>
#include <rte_udp.h>
#include "ct_csum.h"

/* The search runs under the table lock, so it is bounded as OVS 3.1's
 * nat_get_unique_l4: at most NAT_PORT_TRIES ports from the hashed start,
 * then, while the range is larger than what was tried and that is at
 * least NAT_PORT_TRIES_MIN, half as many again from a random start (at
 * most 128 + 64 + 32 + 16 + 8 = 248 lookups an address). OVS tries one
 * address (the
 * hashed one); up to NAT_ADDR_TRIES here, so a range of addresses whose
 * first is full still serves. An exhausted range costs at most ~1,000
 * lookups under the lock (it was 65,536), and is then remembered for a
 * millisecond (ct_nat_exhausted): a tenant opening sessions into its
 * exhausted range at line rate would otherwise hold the table lock that
 * every PMD creates sessions under (perf/ct_hostile). */
#define NAT_PORT_TRIES 128u
#define NAT_PORT_TRIES_MIN 16u
#define NAT_ADDR_TRIES 4u

static bool
has_ports(uint8_t proto)
{
	return proto == IPPROTO_TCP || proto == IPPROTO_UDP;
}

/* A free port in [pmin, pmax] for reply (through *port), OVS's schedule. */
bool
ct_nat_pick_port(struct conntrack *ct, struct ct_key *reply, rte_be16_t *port,
	  uint16_t pmin, uint16_t pmax, uint32_t start)
{
	uint32_t range = (uint32_t)pmax - pmin + 1;
	uint32_t tries = RTE_MIN(range, NAT_PORT_TRIES);

	for (;;) {
		for (uint32_t j = 0; j < tries; j++) {
			*port = rte_cpu_to_be_16(pmin + (start + j) % range);
			if (!ct_table_has_key(ct, reply))
				return true;
		}
		if (tries >= range || tries < NAT_PORT_TRIES_MIN)
			return false;
		tries /= 2;
		start = (uint32_t)(rte_rand() % range);
	}
}

/* The ports a pick may give (through *pmin, *pmax): nat's range, else
 * the original port, which SNAT may move within its class (privileged
 * or not) when taken, as OVS does; none without ports. False if the
 * range is empty. */
static bool
port_range(const struct ct_nat_spec *nat, uint8_t proto, uint16_t orig_port,
	   uint16_t *pmin, uint16_t *pmax)
{
	*pmin = nat->port_min;
	*pmax = nat->port_max ? nat->port_max : nat->port_min;
	if (!has_ports(proto)) {
		*pmin = *pmax = 0;
		return true;
	}
	if (!*pmin) {
		if (nat->snat) {
			*pmin = orig_port < 1024 ? 1 : 1024;
			*pmax = orig_port < 1024 ? 1023 : 65535;
		} else {
			*pmin = *pmax = orig_port;
		}
	}
	return *pmax >= *pmin;
}

/* With reply's address set: a free reply key, the original port first
 * if the range holds it, then ct_nat_pick_port's search from h. */
static bool
pick_ports(struct conntrack *ct, struct ct_key *reply, rte_be16_t *port,
	   uint16_t orig_port, uint16_t pmin, uint16_t pmax, uint32_t h)
{
	if (!has_ports(reply->proto))
		return !ct_table_has_key(ct, reply);
	if (orig_port >= pmin && orig_port <= pmax) {
		*port = rte_cpu_to_be_16(orig_port);
		if (!ct_table_has_key(ct, reply))
			return true;
	}
	uint32_t range = (uint32_t)pmax - pmin + 1;
	return ct_nat_pick_port(ct, reply, port, pmin, pmax,
				(h >> 16) % range);
}

bool
ct_nat_pick(struct conntrack *ct, const struct ct_nat_spec *nat,
	    const struct ct_key *orig, struct ct_key *reply)
{
	uint32_t ip_max = nat->ip_max ? nat->ip_max : nat->ip_min;
	uint32_t n_ip = ip_max - nat->ip_min + 1;
	uint32_t h = ct_key_hash(orig);
	uint16_t pmin, pmax;

	if (ip_max < nat->ip_min)
		return false;
	ct_key_reply(orig, reply);
	/* The field of the reply tuple NAT changes: the reply's
	 * destination for SNAT, its source for DNAT. */
	rte_be32_t *addr = nat->snat ? &reply->dst : &reply->src;
	rte_be16_t *port = nat->snat ? &reply->dport : &reply->sport;
	uint16_t orig_port = rte_be_to_cpu_16(*port);
	if (!port_range(nat, orig->proto, orig_port, &pmin, &pmax))
		return false;

	for (uint32_t i = 0; i < RTE_MIN(n_ip, NAT_ADDR_TRIES); i++) {
		*addr = rte_cpu_to_be_32(nat->ip_min + (h + i) % n_ip);
		if (pick_ports(ct, reply, port, orig_port, pmin, pmax, h))
			return true;
	}
	return false;
}

/* The number of IPv6 addresses in [lo, hi] less one, at most 0xfffffffe
 * (OVS's nat_ipv6_addrs_delta: ranges wider than 32 bits are cut). */
static uint32_t
addrs6_delta(const uint8_t lo[16], const uint8_t hi[16])
{
	uint64_t lh = rte_be_to_cpu_64(*(const unaligned_uint64_t *)lo);
	uint64_t ll = rte_be_to_cpu_64(*(const unaligned_uint64_t *)(lo + 8));
	uint64_t hh = rte_be_to_cpu_64(*(const unaligned_uint64_t *)hi);
	uint64_t hl = rte_be_to_cpu_64(*(const unaligned_uint64_t *)(hi + 8));
	uint64_t diff = 0xfffffffe;

	if (lh == hh && ll <= hl)
		diff = hl - ll;
	else if (lh + 1 == hh && ll > hl)
		diff = UINT64_MAX - (ll - hl - 1);
	return (uint32_t)RTE_MIN(diff, (uint64_t)0xfffffffe);
}

/* a = lo + inc (OVS's nat_ipv6_addr_increment; within the range) */
static void
addr6_add(uint8_t a[16], const uint8_t lo[16], uint32_t inc)
{
	uint64_t h = rte_be_to_cpu_64(*(const unaligned_uint64_t *)lo);
	uint64_t l = rte_be_to_cpu_64(*(const unaligned_uint64_t *)(lo + 8));

	if (l + inc < l)
		h++;
	l += inc;
	*(unaligned_uint64_t *)a = rte_cpu_to_be_64(h);
	*(unaligned_uint64_t *)(a + 8) = rte_cpu_to_be_64(l);
}

bool
ct_nat_pick6(struct conntrack *ct, const struct ct_nat_spec *nat,
	     const struct ct_key *orig, const struct ct_addr6 *a6,
	     struct ct_key *reply, uint8_t addr[16])
{
	const uint8_t *lo = nat->ip6[0], *hi = nat->ip6[1];
	uint32_t h = ct_key_hash(orig);
	uint16_t pmin, pmax;

	if (memcmp(hi, lo, 16) < 0)
		return false;
	uint32_t n_ip = addrs6_delta(lo, hi) + 1;
	ct_key6_reply(orig, a6, reply);
	rte_be16_t *port = nat->snat ? &reply->dport : &reply->sport;
	uint16_t orig_port = rte_be_to_cpu_16(*port);
	if (!port_range(nat, orig->proto, orig_port, &pmin, &pmax))
		return false;

	for (uint32_t i = 0; i < RTE_MIN(n_ip, NAT_ADDR_TRIES); i++) {
		addr6_add(addr, lo, (h + i) % n_ip);
		/* the reply's destination for SNAT, its source for DNAT */
		ct_key6_set_addrs(reply, nat->snat ? a6->dst : addr,
				  nat->snat ? addr : a6->src);
		if (pick_ports(ct, reply, port, orig_port, pmin, pmax, h))
			return true;
	}
	return false;
}

/* Replaces the 4 bytes at field by v (network order), updating the
 * checksums at csum[0..n). */
static void
replace32(uint8_t *field, rte_be32_t v, uint8_t *const csum[], int n)
{
	uint8_t nv[4];

	memcpy(nv, &v, 4);
	if (!memcmp(field, nv, 4))
		return;
	for (int i = 0; i < n; i++) {
		csum_replace16(csum[i], get16(field), get16(nv));
		csum_replace16(csum[i], get16(field + 2), get16(nv + 2));
	}
	memcpy(field, nv, 4);
}

void
ct_nat_packet(const struct ct_conn *c, struct rte_mbuf *m,
	      const struct ct_pkt_meta *mt, bool reply)
{
	/* The tuple the packet leaves with: the reverse of the other
	 * direction's key. */
	const struct ct_key *o = &c->key[reply ? 0 : 1];
	uint8_t *ip = rte_pktmbuf_mtod_offset(m, uint8_t *, mt->l3_ofs);
	uint8_t *l4 = rte_pktmbuf_mtod_offset(m, uint8_t *, mt->l4_ofs);
	uint8_t proto = c->key[0].proto;
	uint8_t *csums[2] = { ip + 10, NULL };	/* IPv4 header checksum */
	int n_csum = 1;
	bool ports = false;

	if (unlikely(c->key[0].v6)) {
		ct_nat_packet6(c, m, mt, reply);
		return;
	}
	if (proto == IPPROTO_TCP) {	/* header checked by the key */
		csums[n_csum++] = l4 + 16;
		ports = true;
	} else if (proto == IPPROTO_UDP &&
		   (uint32_t)mt->l4_ofs + sizeof(struct rte_udp_hdr) <=
		   m->data_len) {
		if (get16(l4 + 6))	/* 0: no checksum */
			csums[n_csum++] = l4 + 6;
		ports = true;
	}
	replace32(ip + 12, o->dst, csums, n_csum);
	replace32(ip + 16, o->src, csums, n_csum);
	if (!ports)
		return;
	/* Ports are not in the IPv4 header's checksum. */
	nat_ports(l4, o, proto, n_csum > 1 ? csums[1] : NULL);
}

/* OVS's nat_packet() with related set: with k the session's key of the
 * error's direction (key[0] for a reply, key[1] else) and the NAT as
 * seen that way (an SNAT session's replies are un-DNATed), the outer
 * source becomes k's destination (SRC) or the outer destination k's source
 * (DST); the quoted packet, which went the other way, gets k's addresses
 * and ports back (OVS: nat_inner_packet with the reversed key and
 * action); then the ICMP checksum is computed again over the message. */
void
ct_nat_icmp_error(const struct ct_conn *c, struct rte_mbuf *m,
		  const struct ct_pkt_meta *mt, bool reply)
{
	const struct ct_key *k = &c->key[reply ? 0 : 1];
	uint8_t act = c->nat;
	uint8_t *ip = rte_pktmbuf_mtod_offset(m, uint8_t *, mt->l3_ofs);
	uint8_t *icmp = rte_pktmbuf_mtod_offset(m, uint8_t *, mt->l4_ofs);
	uint32_t icmp_len = RTE_MIN((uint32_t)mt->l4_len,
				    (uint32_t)m->data_len - mt->l4_ofs);
	uint8_t *outer_csum[1] = { ip + 10 };

	if (unlikely(c->key[0].v6)) {
		ct_nat_icmp_error6(c, m, mt, reply);
		return;
	}

	if (reply)
		act = act == CS_SRC_NAT ? CS_DST_NAT : CS_SRC_NAT;
	if (act == CS_SRC_NAT)
		replace32(ip + 12, k->dst, outer_csum, 1);
	else
		replace32(ip + 16, k->src, outer_csum, 1);

	/* the quoted header: ct_key_extract checked it is all there, its
	 * IPv4 header and the first 4 bytes after (8 for an echo) */
	uint8_t *in = icmp + 8;
	uint32_t ihl = (in[0] & 0x0f) * 4u;
	uint8_t *in_l4 = in + ihl;
	uint32_t quoted_l4 = icmp_len - 8 - ihl;
	uint8_t *csums[2] = { in + 10, NULL };
	int n_csum = 1;
	bool ports = in[9] == IPPROTO_TCP || in[9] == IPPROTO_UDP;

	/* the quoted L4 checksum, when the quote holds it (UDP: 0 is none) */
	if (in[9] == IPPROTO_TCP && quoted_l4 >= 18)
		csums[n_csum++] = in_l4 + 16;
	else if (in[9] == IPPROTO_UDP && quoted_l4 >= 8 && get16(in_l4 + 6))
		csums[n_csum++] = in_l4 + 6;
	/* the quoted packet went the other way, so the field NAT changed in
	 * it is the other one: its destination where the outer source
	 * changed, its source where the outer destination did */
	if (act == CS_SRC_NAT)
		replace32(in + 16, k->dst, csums, n_csum);
	else
		replace32(in + 12, k->src, csums, n_csum);
	if (ports) {
		uint8_t *l4csum = n_csum > 1 ? csums[1] : NULL;
		replace16(in_l4, k->sport, l4csum);
		replace16(in_l4 + 2, k->dport, l4csum);
	}
	put16(icmp + 2, 0);
	/* rte_raw_cksum sums the bytes as they lie: stored as it comes */
	uint16_t sum = (uint16_t)~rte_raw_cksum(icmp, icmp_len);
	memcpy(icmp + 2, &sum, 2);
}

/* What an exhausted pick depends on: the range and the reply tuple's
 * other end (for SNAT the peer, for DNAT the client), the protocol and
 * the zone. */
static uint64_t
exhausted_key(const struct ct_nat_spec *nat, const struct ct_key *orig)
{
	struct ct_key k = *orig;

	if (nat->snat)
		k.src = 0, k.sport = 0;
	else
		k.dst = 0, k.dport = 0;
	uint64_t w[2];
	memcpy(w, &k, sizeof w);
	return siphash_16(&ct_hash_key, w[0] ^ ((uint64_t)nat->ip_min << 32 |
						nat->ip_max),
			  w[1] ^ ((uint64_t)nat->port_min << 48 |
				  (uint64_t)nat->port_max << 32 | nat->snat),
			  1, 3) | 1;
}

#define NAT_EXHAUSTED_MS 1

bool
ct_nat_exhausted(const struct conntrack *ct, const struct ct_nat_spec *nat,
		 const struct ct_key *orig, uint64_t now)
{
	uint64_t what = exhausted_key(nat, orig);
	const struct ct_nat_exhausted *e =
		&ct->nat_exhausted[what % CT_NAT_EXHAUSTED_SLOTS];

	return __atomic_load_n(&e->what, __ATOMIC_RELAXED) == what &&
	       now < __atomic_load_n(&e->until, __ATOMIC_RELAXED);
}

void
ct_nat_exhausted_note(struct conntrack *ct, const struct ct_nat_spec *nat,
		      const struct ct_key *orig, uint64_t now)
{
	uint64_t what = exhausted_key(nat, orig);
	struct ct_nat_exhausted *e =
		&ct->nat_exhausted[what % CT_NAT_EXHAUSTED_SLOTS];

	__atomic_store_n(&e->what, what, __ATOMIC_RELAXED);
	__atomic_store_n(&e->until, now + ct->tsc_hz / 1000 * NAT_EXHAUSTED_MS,
			 __ATOMIC_RELAXED);
}
