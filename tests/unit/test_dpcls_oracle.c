/* SPDX-License-Identifier: BSD-3-Clause
 * test_dpcls, the oracle: random non-overlapping megaflows in two
 * classifiers (specialised and generic lookups) and random packets that
 * must find exactly the flow a linear scan finds.
 */
#include "dpcls_test.h"

struct world {
	uint32_t n, cap;
	struct megaflow **spec;		/* in cls_spec */
	struct megaflow **gen;		/* in cls_gen, same key and mask */
	bool *live;
	struct dpcls *cls_spec, *cls_gen;
};

static bool
overlaps_live(const struct world *w, const struct megaflow *cand)
{
	for (uint32_t i = 0; i < w->n; i++)
		if (w->live[i] && megaflows_overlap(w->spec[i], cand))
			return true;
	return false;
}

/* Adds one random megaflow that overlaps no live one. */
static bool
world_add_random(struct world *w)
{
	if (w->n == w->cap)
		return false;
	for (int attempt = 0; attempt < 50; attempt++) {
		struct flow_key key;

		random_key(&key);
		struct megaflow *f = megaflow_new(&key, &masks[rnd(N_MASKS)],
						  w->n);
		if (overlaps_live(w, f)) {
			free(f);
			continue;
		}
		struct megaflow *g = megaflow_new(&f->key, test_mask(f), w->n);
		int rs = dpcls_insert(w->cls_spec, f, test_mask(f));
		int rg = dpcls_insert(w->cls_gen, g, test_mask(g));

		CHECK(rs == 0 && rg == 0, "insert: %d %d", rs, rg);
		w->spec[w->n] = f;
		w->gen[w->n] = g;
		w->live[w->n++] = true;
		return true;
	}
	return false;
}

static void
world_remove(struct world *w, uint32_t i)
{
	dpcls_remove(w->cls_spec, w->spec[i]);
	dpcls_remove(w->cls_gen, w->gen[i]);
	w->live[i] = false;
}

static uint32_t
world_live_count(const struct world *w)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < w->n; i++)
		n += w->live[i];
	return n;
}

/* Index of the live flow key matches, or -1. */
static int64_t
oracle_lookup(const struct world *w, const struct flow_key *key)
{
	for (uint32_t i = 0; i < w->n; i++)
		if (w->live[i] &&
		    flow_key_match(key, &w->spec[i]->key,
				   test_mask(w->spec[i])))
			return i;
	return -1;
}

/* Flips one random bit of f's mask in pkt: a near miss, which catches a
 * lookup that ignores part of its mask. */
static void
flip_masked_bit(struct flow_key *pkt, const struct megaflow *f)
{
	for (;;) {
		unsigned word = rnd(FLOW_KEY_USED_WORDS);
		uint64_t bit = 1ull << rnd(64);

		if (test_mask(f)->w[word] & bit) {
			pkt->w[word] ^= bit;
			return;
		}
	}
}

/* Mostly a live flow's key with its unmasked bits randomised, some of
 * those a near miss; sometimes any packet at all. */
static void
random_packet(const struct world *w, struct flow_key *pkt)
{
	struct flow_key noise;

	random_key(pkt);
	if (!w->n || chance(15))
		return;

	const struct megaflow *f = w->spec[rnd(w->n)];

	if (chance(50))
		for (int i = 0; i < FLOW_KEY_USED_WORDS; i++)
			noise.w[i] = rnd64();
	else
		noise = *pkt;
	for (int i = 0; i < FLOW_KEY_USED_WORDS; i++)
		pkt->w[i] = f->key.w[i] | (noise.w[i] & ~test_mask(f)->w[i]);
	if (chance(20) && flow_mask_wordmap(test_mask(f)))
		flip_masked_bit(pkt, f);
}

uint32_t
random_keys_map(void)
{
	switch (rnd(4)) {
	case 0:
		return UINT32_MAX;
	case 1:
		return (uint32_t)rnd64() & (uint32_t)rnd64();
	case 2:
		return 1u << rnd(32);
	default:
		return (uint32_t)rnd64();
	}
}

struct megaflow sentinel;
static unsigned n_oracle_hits;

/* One batch through both classifiers: each must give the oracle's answer,
 * and write flows[] only for hits. Returns the number of keys checked. */
static unsigned
check_batch(const struct world *w)
{
	struct flow_key keys[BATCH_MAX];
	struct megaflow *fs[BATCH_MAX], *fg[BATCH_MAX], *fh[BATCH_MAX];
	uint32_t map = random_keys_map();
	uint32_t want_miss = 0;
	int64_t want[BATCH_MAX];

	for (int i = 0; i < BATCH_MAX; i++) {
		random_packet(w, &keys[i]);
		want[i] = map >> i & 1 ? oracle_lookup(w, &keys[i]) : -1;
		if ((map >> i & 1) && want[i] < 0)
			want_miss |= 1u << i;
		fs[i] = fg[i] = fh[i] = &sentinel;
	}

	uint32_t miss_s = dpcls_lookup(w->cls_spec, keys, map, fs);
	uint32_t miss_g = dpcls_lookup(w->cls_gen, keys, map, fg);
	/* cls-port-hint: the keys' in_ports differ here, the worst case */
	uint32_t miss_h = dpcls_lookup_hint(w->cls_spec, keys, map, fh);
	unsigned bad_s = 0, bad_g = 0, bad_h = 0, differ = 0;

	for (int i = 0; i < BATCH_MAX; i++) {
		bool hit = (map >> i & 1) && want[i] >= 0;
		struct megaflow *es = hit ? w->spec[want[i]] : &sentinel;
		struct megaflow *eg = hit ? w->gen[want[i]] : &sentinel;

		bad_s += fs[i] != es;
		bad_g += fg[i] != eg;
		bad_h += fh[i] != es;
		differ += fs[i]->id != fg[i]->id;
	}
	CHECK(miss_s == want_miss && !bad_s,
	      "specialised: map %08x miss %08x want %08x, %u wrong", map,
	      miss_s, want_miss, bad_s);
	CHECK(miss_g == want_miss && !bad_g,
	      "generic: map %08x miss %08x want %08x, %u wrong", map, miss_g,
	      want_miss, bad_g);
	CHECK(miss_s == miss_g && !differ, "specialised != generic");
	CHECK(miss_h == want_miss && !bad_h,
	      "port hint: map %08x miss %08x want %08x, %u wrong", map,
	      miss_h, want_miss, bad_h);
	n_oracle_hits += __builtin_popcount(map & ~want_miss);
	return __builtin_popcount(map);
}

static unsigned
check_packets(const struct world *w, unsigned n_packets)
{
	unsigned n = 0;

	while (n < n_packets)
		n += check_batch(w);
	return n;
}

struct subtable_names {
	unsigned n, wrong, specialised;
	bool generic;
};

static void
check_subtable_name(uint32_t wordmap, const char *name, uint32_t n_flows,
		    uint64_t hits, void *aux)
{
	struct subtable_names *s = aux;
	const char *want = s->generic ? DPCLS_LOOKUP_GENERIC_NAME
				      : dpcls_lookup_name_for(wordmap);

	(void)hits;
	s->n++;
	s->specialised += strcmp(name, DPCLS_LOOKUP_GENERIC_NAME) != 0;
	if (strcmp(name, want) || !n_flows)
		s->wrong++;
}

/* Returns how many subtables use a specialised lookup. */
static unsigned
check_subtables(const struct world *w)
{
	struct subtable_names s = { .generic = false };
	struct subtable_names g = { .generic = true };

	dpcls_foreach_subtable(w->cls_spec, check_subtable_name, &s);
	dpcls_foreach_subtable(w->cls_gen, check_subtable_name, &g);
	CHECK(s.n == g.n && s.n > 0 && !s.wrong && !g.wrong,
	      "subtables %u/%u, wrong names %u/%u", s.n, g.n, s.wrong,
	      g.wrong);
	CHECK(dpcls_count(w->cls_spec) == world_live_count(w) &&
	      dpcls_count(w->cls_gen) == world_live_count(w),
	      "count %u %u want %u", dpcls_count(w->cls_spec),
	      dpcls_count(w->cls_gen), world_live_count(w));
	return s.specialised;
}

static void
world_free(struct world *w)
{
	dpcls_destroy(w->cls_spec);
	dpcls_destroy(w->cls_gen);
	for (uint32_t i = 0; i < w->n; i++) {
		free(w->spec[i]);
		free(w->gen[i]);
	}
	free(w->spec);
	free(w->gen);
	free(w->live);
}

void
test_random_vs_oracle(unsigned n_flows, unsigned n_packets)
{
	struct world w = { .cap = n_flows * 2 };

	w.spec = calloc(w.cap, sizeof *w.spec);
	w.gen = calloc(w.cap, sizeof *w.gen);
	w.live = calloc(w.cap, sizeof *w.live);
	w.cls_spec = dpcls_create(SOCKET_ID_ANY, w.cap);
	w.cls_gen = dpcls_create(SOCKET_ID_ANY, w.cap);
	if (!w.spec || !w.gen || !w.live || !w.cls_spec || !w.cls_gen) {
		printf("out of memory\n");
		exit(2);
	}
	dpcls_force_generic(w.cls_gen, true);

	while (w.n < n_flows && world_add_random(&w))
		;
	printf("  %u megaflows over %d masks\n", w.n, N_MASKS);
	CHECK(w.n >= n_flows * 9 / 10, "only %u flows generated", w.n);
	unsigned n_specialised = check_subtables(&w);

	printf("  %u subtables with a specialised lookup\n", n_specialised);
	CHECK(n_specialised > 0, "no specialised lookup exercised");
	unsigned checked = check_packets(&w, n_packets);

	/* Remove a third, re-check; ranking in between must change nothing
	 * but the order. */
	for (uint32_t i = 0; i < w.n; i++)
		if (w.live[i] && chance(33))
			world_remove(&w, i);
	dpcls_rank_subtables(w.cls_spec);
	dpcls_rank_subtables(w.cls_gen);
	check_subtables(&w);
	checked += check_packets(&w, n_packets / 2);

	/* Interleave removals and new flows. */
	for (unsigned round = 0; round < 8; round++) {
		for (unsigned k = 0; k < n_flows / 16; k++) {
			uint32_t i = rnd(w.n);

			if (w.live[i])
				world_remove(&w, i);
			world_add_random(&w);
		}
		check_subtables(&w);
		checked += check_packets(&w, n_packets / 16);
	}
	printf("  %u lookups checked (%u hits), %u flows live\n", checked,
	       n_oracle_hits, world_live_count(&w));
	world_free(&w);
}
