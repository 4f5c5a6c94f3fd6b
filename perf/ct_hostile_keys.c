/* SPDX-License-Identifier: BSD-3-Clause
 * ct_hostile (c): tracker keys that all have one CRC32c, and what they
 * cost a table hashed by it and the tracker's table (SipHash-1-3 under a
 * per-process random key since commit 8572e1c).
 *
 * rte_hash_crc(key, 16, 0), the table's hash before, is affine over
 * GF(2): crc(b ^ d) = crc(b) ^ L(d) for a linear L. A VM behind
 * anti-spoofing chooses 64 bits of its keys (destination address, source
 * and destination ports; the source address and zone are fixed, the
 * protocol UDP), L maps them to 32 bits, so its kernel is a subspace of
 * dimension >= 32: 2^32 keys with the base key's CRC, found by Gaussian
 * elimination on the images of the 64 single-bit differences, no search.
 * Equal 32-bit hashes mean the same primary and secondary bucket and the
 * same short signature in rte_hash: past 16 keys every one goes to the
 * extendable buckets chained off the primary, and each lookup or insert
 * compares the key with every entry of the chain.
 */
#include <stdio.h>
#include <stdlib.h>
#include <rte_cycles.h>
#include <rte_hash.h>
#include <rte_hash_crc.h>
#include <rte_lcore.h>
#include "ct_hostile.h"

/* The key bytes the VM chooses: dst (4..7), sport (8..9), dport (10..11). */
#define FREE_FIRST_BIT 32
#define FREE_BITS 64

/* rte_hash_crc(k, 16, 0), as rte_hash called it. Through a copy:
 * rte_hash_crc reads the bytes as uint64_t, and inlined here the compiler
 * may move those loads above the stores that built a struct ct_key
 * (strict aliasing), hashing stale bytes. */
static inline uint32_t
crc_of(const struct ct_key *k)
{
	uint64_t w[2];

	memcpy(w, k, sizeof w);
	return rte_hash_crc(w, sizeof w, 0);
}

static void
flip_bit(struct ct_key *k, unsigned bit)
{
	uint8_t *b = (uint8_t *)k;

	b[bit / 8] ^= (uint8_t)(1u << (bit % 8));
}

static void
key_xor(struct ct_key *a, const struct ct_key *d)
{
	uint64_t x[2], y[2];

	memcpy(x, a, sizeof x);
	memcpy(y, d, sizeof y);
	x[0] ^= y[0];
	x[1] ^= y[1];
	memcpy(a, x, sizeof x);
}

int
coll_init(struct coll_gen *g, uint16_t zone, uint32_t src)
{
	struct { uint32_t img; uint64_t combo; bool used; } piv[32];

	memset(g, 0, sizeof *g);
	memset(piv, 0, sizeof piv);
	g->base.src = rte_cpu_to_be_32(src);
	g->base.dst = rte_cpu_to_be_32(IP4(203, 0, 113, 1));
	g->base.sport = rte_cpu_to_be_16(40000);
	g->base.dport = rte_cpu_to_be_16(53);
	g->base.zone = zone;
	g->base.proto = IPPROTO_UDP;
	g->crc = crc_of(&g->base);
	for (unsigned b = 0; b < FREE_BITS; b++) {
		struct ct_key k = g->base;
		flip_bit(&k, FREE_FIRST_BIT + b);
		uint32_t img = crc_of(&k) ^ g->crc;
		uint64_t combo = 1ull << b;
		while (img) {
			int top = 31 - __builtin_clz(img);
			if (!piv[top].used) {
				piv[top].img = img;
				piv[top].combo = combo;
				piv[top].used = true;
				break;
			}
			img ^= piv[top].img;
			combo ^= piv[top].combo;
		}
		if (img || g->dim == COLL_MAX_DIM)
			continue;
		/* combo's bits flipped together keep the CRC */
		struct ct_key *d = &g->basis[g->dim++];
		memset(d, 0, sizeof *d);
		for (unsigned j = 0; j < FREE_BITS; j++)
			if (combo >> j & 1)
				flip_bit(d, FREE_FIRST_BIT + j);
	}
	g->cur = g->base;
	return g->dim >= 16 ? 0 : -1;
}

const struct ct_key *
coll_next(struct coll_gen *g)
{
	uint64_t i = g->i++;

	if (i)
		key_xor(&g->cur, &g->basis[__builtin_ctzll(i) % g->dim]);
	return &g->cur;
}

/* Random keys of zone (source fixed, as the colliding ones). */
static void
random_keys(struct ct_key *k, uint32_t n, uint16_t zone, uint64_t *rng)
{
	for (uint32_t i = 0; i < n; i++) {
		memset(&k[i], 0, sizeof k[i]);
		k[i].src = rte_cpu_to_be_32(ATTACKER_IP);
		k[i].dst = rte_cpu_to_be_32(rnd_next(rng));
		k[i].sport = rte_cpu_to_be_16((uint16_t)rnd_next(rng));
		k[i].dport = rte_cpu_to_be_16((uint16_t)(i + 1));
		k[i].zone = zone;
		k[i].proto = IPPROTO_UDP;
	}
}

/* Buckets used and the most keys in one, hashing with crc or SipHash
 * into nb buckets (a power of two), as rte_hash picks primary buckets. */
static void
spread(const struct ct_key *k, uint32_t n, uint32_t nb, bool crc,
       uint32_t *used, uint32_t *max)
{
	uint32_t *cnt = calloc(nb, sizeof *cnt);

	*used = *max = 0;
	if (!cnt)
		return;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t h = crc ? crc_of(&k[i]) : ct_key_hash(&k[i]);
		uint32_t c = ++cnt[h & (nb - 1)];
		*used += c == 1;
		*max = RTE_MAX(*max, c);
	}
	free(cnt);
}

/* Cycles per key of bulk lookups (bursts of 32) of keys[0..n), passes
 * times; *found: hits of the last pass. */
static double
lookup_cost(const struct rte_hash *h, const struct ct_key *k, uint32_t n,
	    int passes, uint32_t *found)
{
	const void *kp[BURST];
	int32_t pos[BURST];
	uint64_t cyc = 0;

	for (int p = 0; p < passes; p++) {
		*found = 0;
		for (uint32_t i = 0; i < n; i += BURST) {
			uint32_t m = RTE_MIN(n - i, (uint32_t)BURST);
			for (uint32_t j = 0; j < m; j++)
				kp[j] = &k[i + j];
			uint64_t t0 = rte_rdtsc();
			rte_hash_lookup_bulk(h, kp, m, pos);
			cyc += rte_rdtsc() - t0;
			for (uint32_t j = 0; j < m; j++)
				*found += pos[j] >= 0;
		}
	}
	return (double)cyc / ((double)n * passes);
}

/* Sessions for keys[0..n) through the tracker (commit), as a PMD would
 * create them; cycles per created session. */
static double
create_cost(struct conntrack *ct, const struct ct_key *k, uint32_t n,
	    uint16_t zone, uint32_t *created)
{
	struct rte_mbuf *pk[BURST];
	struct ct_pkt_meta mt[BURST];
	struct ct_conn_ref ref[BURST];
	uint8_t st[BURST];
	uint64_t cyc = 0;

	*created = 0;
	if (rte_pktmbuf_alloc_bulk(mbufs, pk, BURST))
		return 0;
	for (uint32_t i = 0; i < n; i += BURST) {
		uint16_t m = (uint16_t)RTE_MIN(n - i, (uint32_t)BURST);
		for (uint16_t j = 0; j < m; j++)
			hb_build_key(pk[j], &mt[j], &k[i + j], false);
		uint64_t t0 = rte_rdtsc();
		conntrack_execute(ct, pk, mt, m, zone, true, NULL, t0, st,
				  ref);
		cyc += rte_rdtsc() - t0;
		for (uint16_t j = 0; j < m; j++)
			*created += (st[j] & CS_NEW) && ref[j].conn;
	}
	rte_pktmbuf_free_bulk(pk, BURST);
	return *created ? (double)cyc / *created : 0;
}

/* The table as ct_table.c creates it, hashed as it was before 8572e1c. */
static struct rte_hash *
crc_table(uint32_t entries)
{
	struct rte_hash_parameters hp = {
		.name = "hostile_crc",
		.entries = entries,
		.key_len = sizeof(struct ct_key),
		.hash_func = rte_hash_crc,
		.socket_id = (int)rte_socket_id(),
		.extra_flag = RTE_HASH_EXTRA_FLAGS_RW_CONCURRENCY_LF |
			      RTE_HASH_EXTRA_FLAGS_MULTI_WRITER_ADD |
			      RTE_HASH_EXTRA_FLAGS_EXT_TABLE,
	};

	return rte_hash_create(&hp);
}

static double
add_cost(struct rte_hash *h, const struct ct_key *k, uint32_t n,
	 uint32_t *added)
{
	uint64_t t0 = rte_rdtsc();

	*added = 0;
	for (uint32_t i = 0; i < n; i++)
		*added += rte_hash_add_key(h, &k[i]) >= 0;
	return (double)(rte_rdtsc() - t0) / n;
}

static void
row(const char *table, const char *hash, uint32_t n, const char *set,
    uint32_t used, uint32_t max, double add, uint32_t added, double look,
    uint32_t found)
{
	printf("  %-9s %-8s %6u  %-10s %8u %6u %12.0f %7u %12.1f %7u\n",
	       table, hash, n, set, used, max, add, added, look, found);
}

int
coll_report(struct conntrack *ct, uint32_t n_ct, uint32_t n_crc, double hz)
{
	uint32_t n = RTE_MAX(n_ct, n_crc);
	struct ct_key *coll = calloc(n, sizeof *coll);
	struct ct_key *rnd = calloc(n, sizeof *rnd);
	struct coll_gen g;
	uint64_t rng = 0x2545f4914f6cdd1dull;
	uint32_t bad_crc = 0, used, max, got, found;
	int rc = -1;

	if (!coll || !rnd || coll_init(&g, ZONE_ATTACKER, ATTACKER_IP) < 0)
		goto out;
	for (uint32_t i = 0; i < n; i++) {
		coll[i] = *coll_next(&g);
		bad_crc += crc_of(&coll[i]) != g.crc;
	}
	random_keys(rnd, n, ZONE_CONTROL, &rng);
	/* rte_hash: entries rounded up to a power of two, 8 a bucket */
	uint32_t nb = rte_align32pow2(2 * ct->pool_size) / 8;
	printf("\n(c) keys colliding under CRC32c: the kernel of CRC32c over "
	       "(dst, sport, dport) has dimension %u (2^%u keys);\n"
	       "    %u keys taken, %u without CRC32c 0x%08x (must be 0). "
	       "Random keys: same source, random dst/sport.\n"
	       "    'buckets': primary buckets used of %u (the tracker's "
	       "table size); 'add': tracker = session setup\n"
	       "    (conntrack_execute, commit), crc = rte_hash_add_key; "
	       "'lookup': rte_hash_lookup_bulk, bursts of 32.\n",
	       g.dim, g.dim, n, bad_crc, g.crc, nb);
	printf("  %-9s %-8s %6s  %-10s %8s %6s %12s %7s %12s %7s\n", "table",
	       "hash", "keys", "set", "buckets", "max", "add cyc/key",
	       "added", "lookup cyc", "found");

	/* the tracker's table: zone 2 colliding, zone 3 random (the
	 * zone limit caps each: n_ct should stay under it) */
	conntrack_flush_zone(ct, ZONE_ATTACKER);
	conntrack_flush_zone(ct, ZONE_CONTROL);
	/* warm-up (the pool's and the table's pages): other random keys */
	struct ct_key *warm = calloc(n_ct, sizeof *warm);
	if (!warm)
		goto out;
	random_keys(warm, n_ct, ZONE_CONTROL, &rng);
	create_cost(ct, warm, n_ct, ZONE_CONTROL, &got);
	conntrack_flush_zone(ct, ZONE_CONTROL);
	free(warm);
	for (int set = 0; set < 2; set++) {
		const struct ct_key *k = set ? rnd : coll;
		double add = create_cost(ct, k, n_ct,
					 set ? ZONE_CONTROL : ZONE_ATTACKER,
					 &got);
		double look = lookup_cost(ct->table, k, n_ct, 4, &found);
		spread(k, n_ct, nb, false, &used, &max);
		row("tracker", "SipHash", n_ct, set ? "random" : "colliding",
		    used, max, add, got, look, found);
	}
	conntrack_flush_zone(ct, ZONE_ATTACKER);
	conntrack_flush_zone(ct, ZONE_CONTROL);

	/* the old hash, a table of its own of the same shape */
	for (int set = 0; set < 2; set++) {
		const struct ct_key *k = set ? rnd : coll;
		struct rte_hash *h = crc_table(4 * n_crc);
		if (!h)
			goto out;
		double add = add_cost(h, k, n_crc, &got);
		double look = lookup_cost(h, k, n_crc, set ? 4 : 1, &found);
		spread(k, n_crc, rte_align32pow2(4 * n_crc) / 8, true, &used,
		       &max);
		row("old", "CRC32c", n_crc, set ? "random" : "colliding",
		    used, max, add, got, look, found);
		rte_hash_free(h);
	}
	printf("  (cycles at %.2f GHz TSC; one lookup of a colliding key in "
	       "the CRC table walks the chain: ~n/2 key compares)\n",
	       hz / 1e9);
	rc = 0;
out:
	free(coll);
	free(rnd);
	return rc;
}
