/* SPDX-License-Identifier: BSD-3-Clause
 * test_dpcls, hostile keys: megaflows a tenant chose so that they all had
 * one subtable hash under the old unkeyed CRC32-C (dpcls_collide.h). With
 * the keyed hash they spread over the buckets (short chains, nothing
 * refused) and every lookup finds its own flow, in a specialised and in
 * the generic lookup; with a secret the attacker knows, the chain cap
 * refuses and counts the inserts past DPCLS_MAX_CHAIN and lookups stay
 * right; two classifiers draw different secrets.
 */
#include "dpcls_collide.h"
#include "dpcls_test.h"

/* Every key of keys[0..n) through dpcls_lookup in batches of 32: found
 * as want[i] (NULL: must miss). Returns the number of wrong answers. */
static unsigned
lookup_all(struct dpcls *cls, const struct flow_key *keys, unsigned n,
	   struct megaflow *const *want)
{
	unsigned bad = 0;

	for (unsigned b = 0; b < n; b += 32) {
		unsigned m = RTE_MIN(32u, n - b);
		uint32_t map = m == 32 ? UINT32_MAX : (1u << m) - 1;
		struct megaflow *got[32] = { NULL };
		uint32_t miss = dpcls_lookup(cls, &keys[b], map, got);

		for (unsigned i = 0; i < m; i++) {
			bool missed = miss >> i & 1;

			bad += want[b + i] ? missed || got[i] != want[b + i]
					   : !missed;
		}
	}
	return bad;
}

static void
spread_and_lookups(struct collide_gen *g, unsigned n, bool generic)
{
	struct flow_key *keys = aligned_alloc(RTE_CACHE_LINE_SIZE,
					      2 * n * sizeof *keys);
	struct megaflow **f = calloc(2 * n, sizeof *f);
	struct dpcls *cls = dpcls_create(SOCKET_ID_ANY, 2 * n);
	unsigned same = 0, ins_bad = 0;

	if (!keys || !f || !cls) {
		CHECK(false, "alloc");
		goto out;
	}
	dpcls_force_generic(cls, generic);
	/* n installed, then n more of the same old hash that are not */
	for (unsigned i = 0; i < 2 * n; i++) {
		keys[i] = *collide_next(g);
		same += collide_old_hash(&keys[i], &g->mask) == g->hash;
	}
	CHECK(same == 2 * n, "%u of %u keys have the old hash %#x", same,
	      2 * n, g->hash);
	for (unsigned i = 0; i < n; i++) {
		f[i] = megaflow_new(&keys[i], &g->mask, i + 1);
		ins_bad += dpcls_insert(cls, f[i], test_mask(f[i])) != 0;
	}
	uint32_t chain = dpcls_max_chain(cls);

	printf("  %u megaflows one CRC chain long before (%s): longest "
	       "chain now %u\n", n, generic ? "generic" : "specialised",
	       chain);
	CHECK(ins_bad == 0, "%u inserts refused", ins_bad);
	CHECK(dpcls_chain_refused(cls) == 0, "chain refusals %" PRIu64,
	      dpcls_chain_refused(cls));
	/* load <= 1 and a random hash: P(max >= 11) < 1e-4 for 4096 */
	CHECK(chain <= 10, "longest chain %u", chain);
	CHECK(lookup_all(cls, keys, 2 * n, f) == 0, "wrong lookups");
	for (unsigned i = 0; i < n; i++)
		CHECK(dpcls_find(cls, &f[i]->key, &g->mask) == f[i], "find %u",
		      i);
	for (unsigned i = 0; i < n; i++)
		dpcls_remove(cls, f[i]);
	CHECK(dpcls_count(cls) == 0, "count after removal");
out:
	dpcls_destroy(cls);
	for (unsigned i = 0; f && i < n; i++)
		free(f[i]);
	free(f);
	free(keys);
}

/* A secret an attacker knows: all zero but the multiplier. Then w5's
 * product is 0 whenever its low half (nw_proto..nw_frag) is, whatever
 * the ports: every key below has one hash. */
static void
cap_refuses(struct collide_gen *g, bool generic)
{
	enum { N = 3 * DPCLS_MAX_CHAIN };
	struct flow_hash_secret known = { .fin = 1 };
	struct dpcls *cls = dpcls_create(SOCKET_ID_ANY, 1000);
	struct flow_key keys[N + 1];
	struct megaflow *f[N + 1], *want[N + 1];
	unsigned ok = 0, refused = 0;

	dpcls_force_generic(cls, generic);
	dpcls_set_secret(cls, &known);
	for (unsigned i = 0; i < N; i++) {
		keys[i] = g->base;
		keys[i].nw_proto = 0;
		keys[i].tp_src = rte_cpu_to_be_16((uint16_t)(1000 + i));
		f[i] = megaflow_new(&keys[i], &g->mask, i + 1);
		int rc = dpcls_insert(cls, f[i], test_mask(f[i]));

		ok += rc == 0;
		refused += rc == -EMLINK;
		want[i] = rc == 0 ? f[i] : NULL;
		/* dpcls_insert sets ->hash before it refuses */
		CHECK(f[i]->hash == f[0]->hash, "key %u does not collide", i);
	}
	CHECK(ok == DPCLS_MAX_CHAIN && refused == N - DPCLS_MAX_CHAIN,
	      "%u installed, %u refused", ok, refused);
	CHECK(dpcls_chain_refused(cls) == N - DPCLS_MAX_CHAIN,
	      "counted %" PRIu64, dpcls_chain_refused(cls));
	CHECK(dpcls_max_chain(cls) == DPCLS_MAX_CHAIN, "longest chain %u",
	      dpcls_max_chain(cls));
	CHECK(dpcls_count(cls) == DPCLS_MAX_CHAIN, "count %u",
	      dpcls_count(cls));
	/* another hash in the same subtable is not held back */
	keys[N] = g->base;
	f[N] = megaflow_new(&keys[N], &g->mask, N + 1);
	want[N] = f[N];
	CHECK(dpcls_insert(cls, f[N], test_mask(f[N])) == 0,
	      "other chain refused");
	CHECK(lookup_all(cls, keys, N + 1, want) == 0, "wrong lookups");
	/* a place freed in the chain is a place for a refused one */
	dpcls_remove(cls, f[0]);
	want[0] = NULL;
	CHECK(dpcls_insert(cls, f[N - 1], test_mask(f[N - 1])) == 0,
	      "insert after remove");
	want[N - 1] = f[N - 1];
	CHECK(lookup_all(cls, keys, N + 1, want) == 0,
	      "wrong lookups after remove");
	printf("  known secret (%s): %u installed, %u refused and counted\n",
	       generic ? "generic" : "specialised", ok, refused);
	dpcls_destroy(cls);
	for (unsigned i = 0; i <= N; i++)
		free(f[i]);
}

/* Two classifiers (two PMDs, or two starts) hash one key differently. */
static void
secrets_differ(struct collide_gen *g)
{
	struct dpcls *a = dpcls_create(SOCKET_ID_ANY, 16);
	struct dpcls *b = dpcls_create(SOCKET_ID_ANY, 16);
	unsigned differ = 0;

	for (unsigned i = 0; i < 4; i++) {
		const struct flow_key *k = collide_next(g);
		struct megaflow *fa = megaflow_new(k, &g->mask, 1);
		struct megaflow *fb = megaflow_new(k, &g->mask, 2);

		CHECK(dpcls_insert(a, fa, test_mask(fa)) == 0 &&
		      dpcls_insert(b, fb, test_mask(fb)) == 0,
		      "insert");
		differ += fa->hash != fb->hash;
		dpcls_remove(a, fa);
		dpcls_remove(b, fb);
		free(fa);
		free(fb);
	}
	CHECK(differ > 0, "two classifiers, one hash: secrets not drawn");
	dpcls_destroy(a);
	dpcls_destroy(b);
}

void
test_hostile(unsigned n)
{
	struct collide_gen g;

	printf("hostile keys (one old CRC32-C, dpcls_collide.h):\n");
	CHECK(collide_init(&g, 7) == 0, "kernel dimension %u", g.dim);
	spread_and_lookups(&g, n, false);
	spread_and_lookups(&g, n, true);
	cap_refuses(&g, false);
	cap_refuses(&g, true);
	secrets_differ(&g);
}
