/* SPDX-License-Identifier: BSD-3-Clause
 * test_dpcls, the EMC: basic insert/lookup, both ways of a bucket, the
 * IPv6 table, and a random run against a reference.
 */
#include "dpcls_test.h"

/* ---- EMC ---- */

static struct megaflow *
emc_flow(uint64_t id)
{
	struct flow_key k, m;

	flow_key_zero(&k);
	flow_key_zero(&m);
	return megaflow_new(&k, &m, id);
}

static struct megaflow *
emc_get(struct emc *emc, const struct flow_key *key, uint32_t hash)
{
	struct megaflow *f = NULL;

	emc_lookup(emc, key, &hash, 1, &f);
	return f;
}

/* A hash whose two ways are slots s0 and s1; tag varies the bits above. */
static uint32_t
emc_hash(uint32_t s0, uint32_t s1, uint32_t tag)
{
	return s0 | s1 << 13 | tag << 26;
}

static void
test_emc_basic(struct emc *emc)
{
	struct flow_key k1, k2;
	struct megaflow *f1 = emc_flow(1), *f2 = emc_flow(2);

	random_key(&k1);
	k2 = k1;
	k2.tp_dst ^= 1;

	uint32_t h1 = flow_hash_key(&k1), h2 = flow_hash_key(&k2);

	CHECK(emc_get(emc, &k1, h1) == NULL, "empty hit");
	emc_insert(emc, &k1, h1, f1);
	CHECK(emc_get(emc, &k1, h1) == f1, "hit");
	CHECK(emc_get(emc, &k2, h2) == NULL, "other key hit");
	/* Same hash, different key: must not be confused. */
	CHECK(emc_get(emc, &k2, h1) == NULL, "hash-only match");

	emc_insert(emc, &k1, h1, f2);
	CHECK(emc_get(emc, &k1, h1) == f2, "update in place");

	f2->dead = true;
	CHECK(emc_get(emc, &k1, h1) == NULL, "dead returned");
	emc_insert(emc, &k2, h2, f2);
	CHECK(emc_get(emc, &k2, h2) == NULL, "dead inserted");
	emc_purge_dead(emc);
	f2->dead = false;	/* the entry must be gone, not just hidden */
	CHECK(emc_get(emc, &k1, h1) == NULL, "purge kept entry");

	emc_insert(emc, &k1, h1, f1);
	emc_clear(emc);
	CHECK(emc_get(emc, &k1, h1) == NULL, "clear kept entry");
	free(f1);
	free(f2);
}

static void
test_emc_two_way(struct emc *emc)
{
	struct flow_key k[4];
	struct megaflow *f[4];
	uint32_t h[4];

	for (int i = 0; i < 4; i++) {
		random_key(&k[i]);
		f[i] = emc_flow(i);
		h[i] = emc_hash(100, 200, i + 1);
	}
	emc_clear(emc);
	emc_insert(emc, &k[0], h[0], f[0]);
	emc_insert(emc, &k[1], h[1], f[1]);
	CHECK(emc_get(emc, &k[0], h[0]) == f[0] &&
	      emc_get(emc, &k[1], h[1]) == f[1], "both ways used");

	/* A third key evicts exactly one of them. */
	emc_insert(emc, &k[2], h[2], f[2]);
	bool has0 = emc_get(emc, &k[0], h[0]) == f[0];
	bool has1 = emc_get(emc, &k[1], h[1]) == f[1];

	CHECK(emc_get(emc, &k[2], h[2]) == f[2] && has0 != has1,
	      "replacement: %d %d", has0, has1);

	/* A dead entry is replaced before a live one. */
	int survivor = has0 ? 0 : 1;

	f[survivor]->dead = true;
	emc_insert(emc, &k[3], h[3], f[3]);
	CHECK(emc_get(emc, &k[3], h[3]) == f[3] &&
	      emc_get(emc, &k[2], h[2]) == f[2], "dead not replaced first");
	f[survivor]->dead = false;

	/* Both ways on the same slot: one entry, still works. */
	emc_clear(emc);
	uint32_t hs = emc_hash(300, 300, 1);

	emc_insert(emc, &k[0], hs, f[0]);
	CHECK(emc_get(emc, &k[0], hs) == f[0], "same-slot ways");
	emc_insert(emc, &k[1], hs, f[1]);
	CHECK(emc_get(emc, &k[1], hs) == f[1] &&
	      emc_get(emc, &k[0], hs) == NULL, "same-slot replace");
	emc_clear(emc);
	for (int i = 0; i < 4; i++)
		free(f[i]);
}

/* Many keys into a full cache: a hit must always be the right flow, recent
 * inserts must hit, and batch lookups must agree with single ones. */
static void
test_emc_random(struct emc *emc, unsigned n)
{
	struct flow_key *keys = aligned_alloc(RTE_CACHE_LINE_SIZE,
					      n * sizeof *keys);
	uint32_t *hashes = calloc(n, sizeof *hashes);
	struct megaflow **flows = calloc(n, sizeof *flows);
	unsigned wrong = 0, hits = 0, recent_missing = 0;

	for (unsigned i = 0; i < n; i++) {
		random_key(&keys[i]);
		hashes[i] = flow_hash_key(&keys[i]);
		flows[i] = emc_flow(i);
		emc_insert(emc, &keys[i], hashes[i], flows[i]);
		if (emc_get(emc, &keys[i], hashes[i]) != flows[i])
			recent_missing++;
	}
	for (unsigned base = 0; base + BATCH_MAX <= n; base += BATCH_MAX) {
		struct megaflow *got[BATCH_MAX];
		uint32_t map = random_keys_map();

		for (int i = 0; i < BATCH_MAX; i++)
			got[i] = &sentinel;
		uint32_t miss = emc_lookup(emc, &keys[base], &hashes[base],
					   map, got);
		for (int i = 0; i < BATCH_MAX; i++) {
			bool in = map >> i & 1, missed = miss >> i & 1;

			if (!in)
				wrong += got[i] != &sentinel || missed;
			else if (missed)
				wrong += got[i] != &sentinel;
			else if (got[i] == flows[base + i])
				hits++;
			else
				wrong++;
		}
	}
	CHECK(!wrong && !recent_missing, "%u wrong, %u fresh inserts missing",
	      wrong, recent_missing);
	CHECK(hits > 0, "no hits at all");
	printf("  emc: %u keys, %u batch hits\n", n, hits);
	emc_clear(emc);
	for (unsigned i = 0; i < n; i++)
		free(flows[i]);
	free(flows);
	free(hashes);
	free(keys);
}

/* An IPv6 key (dl_type 0x86dd, ext_line, addresses) from a random one */
static struct flow_key
emc_key6(uint8_t last)
{
	struct flow_key k;

	random_key(&k);
	k.w[6] = k.w[7] = 0;
	memset(k.line2, 0, sizeof k.line2);
	k.dl_type = RTE_BE16(0x86dd);
	k.ext_line = FLOW_EXT_LINE;
	k.ipv6_label = RTE_BE32(0x12345);
	k.ipv6_src.a[0] = 0x20, k.ipv6_src.a[15] = last;
	k.ipv6_dst.a[0] = 0xfe, k.ipv6_dst.a[15] = 1;
	return k;
}

static struct megaflow *
emc_get_ext(struct emc *emc, const struct flow_key *keys,
	    const uint32_t *hashes, uint32_t map, struct megaflow **flows)
{
	emc_lookup_ext(emc, keys, hashes, map, flows);
	return flows[0];
}

static void
test_emc_ipv6(struct emc *emc)
{
	struct megaflow *f6 = emc_flow(61), *f4 = emc_flow(41);
	struct flow_key k[2] = { emc_key6(1) }, other;
	uint32_t h[2];
	struct megaflow *got[2] = { NULL, NULL };

	emc_clear(emc);
	random_key(&k[1]);
	k[1].w[6] = k[1].w[7] = 0;
	h[0] = flow_hash_key(&k[0]);
	h[1] = flow_hash_key(&k[1]);
	emc_insert(emc, &k[0], h[0], f6);
	emc_insert(emc, &k[1], h[1], f4);
	/* a pass of both families: each found in its table */
	uint32_t miss = emc_lookup_ext(emc, k, h, 3, got);
	CHECK(!miss && got[0] == f6 && got[1] == f4, "v6 + v4 pass: miss %x",
	      miss);
	/* every word the entry keeps tells keys apart: label, a source
	 * address byte, a destination one */
	static const size_t offs[] = {
		offsetof(struct flow_key, ipv6_label) + 3,
		offsetof(struct flow_key, ipv6_src) + 15,
		offsetof(struct flow_key, ipv6_dst) + 8,
	};
	for (size_t i = 0; i < RTE_DIM(offs); i++) {
		other = k[0];
		((uint8_t *)&other)[offs[i]] ^= 0x40;
		got[0] = NULL;
		CHECK(emc_get_ext(emc, &other, &h[0], 1, got) == NULL,
		      "v6 key differing at byte %zu hit", offs[i]);
	}
	/* ND keys (nd_target set) are not cached, and never hit an entry
	 * of the same other words */
	other = k[0];
	other.nd_target.a[15] = 7;
	emc_insert(emc, &other, h[0], f4);
	got[0] = NULL;
	CHECK(emc_get_ext(emc, &k[0], &h[0], 1, got) == f6 &&
	      (got[0] = NULL, emc_get_ext(emc, &other, &h[0], 1, got) == NULL),
	      "an ND key cached or hit");
	/* dead and purged, cleared */
	f6->dead = true;
	got[0] = NULL;
	CHECK(emc_get_ext(emc, &k[0], &h[0], 1, got) == NULL, "dead v6 hit");
	emc_purge_dead(emc);
	f6->dead = false;
	CHECK(emc_get_ext(emc, &k[0], &h[0], 1, got) == NULL,
	      "purge kept a v6 entry");
	emc_insert(emc, &k[0], h[0], f6);
	emc_clear(emc);
	got[0] = NULL;
	CHECK(emc_get_ext(emc, &k[0], &h[0], 1, got) == NULL,
	      "clear kept a v6 entry");
	free(f6);
	free(f4);
}

/* Keys from an IPv6 underlay (a third line) are cached without it
 * (emc.c): a megaflow that does not read the line serves every key of
 * the same other words, whatever its outer addresses; one that reads it
 * (a rule on tun_ipv6_src) is checked against the key's line, a mismatch
 * a miss. Megaflows in a classifier, as the EMC's always are. */
static void
test_emc_tun6(struct emc *emc)
{
	struct dpcls *cls = dpcls_create(SOCKET_ID_ANY, 10);
	struct flow_key k[3], m_any, m_src;
	uint32_t h[3];
	struct megaflow *got[3];

	random_key(&k[0]);
	k[0].w[1] = k[0].w[6] = k[0].w[7] = 0;
	k[0].ext_line = FLOW_EXT_TUN6;
	memset(k[0].line3, 0, sizeof k[0].line3);
	k[0].tun_ipv6_src.a[0] = 0x20, k[0].tun_ipv6_src.a[15] = 1;
	k[1] = k[0];			/* another remote VTEP */
	k[1].tun_ipv6_src.a[15] = 2;
	k[2] = k[0];			/* the same key */
	h[0] = h[1] = h[2] = flow_hash_key(&k[0]);

	/* a megaflow on in_port alone: the outer source does not matter */
	flow_key_zero(&m_any);
	flow_mask_set_field(&m_any, MFF_IN_PORT);
	struct megaflow *f_any = megaflow_new(&k[0], &m_any, 61);
	CHECK(dpcls_insert(cls, f_any, test_mask(f_any)) == 0, "insert");
	emc_clear(emc);
	emc_insert(emc, &k[0], h[0], f_any);
	memset(got, 0, sizeof got);
	uint32_t miss = emc_lookup_ext(emc, k, h, 7, got);
	CHECK(miss == 0 && got[0] == f_any && got[1] == f_any &&
	      got[2] == f_any, "third-line keys cached: miss %#x", miss);

	/* a megaflow that reads tun_ipv6_src: only its own source hits */
	dpcls_remove(cls, f_any);
	flow_key_zero(&m_src);
	flow_mask_set_field(&m_src, MFF_IN_PORT);
	flow_mask_set_field(&m_src, MFF_TUN_IPV6_SRC);
	struct megaflow *f_src = megaflow_new(&k[0], &m_src, 62);
	CHECK(dpcls_insert(cls, f_src, test_mask(f_src)) == 0, "insert");
	emc_clear(emc);
	emc_insert(emc, &k[0], h[0], f_src);
	memset(got, 0, sizeof got);
	miss = emc_lookup_ext(emc, k, h, 7, got);
	CHECK(miss == 2 && got[0] == f_src && got[2] == f_src,
	      "a megaflow on tun_ipv6_src: the other source misses (%#x)",
	      miss);
	emc_clear(emc);
	dpcls_destroy(cls);
	free(f_any);
	free(f_src);
}

void
test_emc(unsigned n_keys)
{
	struct emc *emc = emc_create(SOCKET_ID_ANY);

	CHECK(emc != NULL, "emc_create");
	if (!emc)
		return;
	test_emc_basic(emc);
	test_emc_two_way(emc);
	test_emc_ipv6(emc);
	test_emc_tun6(emc);
	test_emc_random(emc, n_keys);
	emc_destroy(emc);
}
