/* SPDX-License-Identifier: BSD-3-Clause
 * dpcls and EMC against a brute-force oracle: a linear scan over the same
 * megaflows. Random non-overlapping megaflows over a few dozen realistic and
 * random masks go into two classifiers, one with the specialised lookups
 * and one forced generic; random packets (mostly built to hit a flow) must
 * find exactly the oracle's flow in both.
 *
 * Usage: test_dpcls [scale]   (or VXS_TEST_SCALE=0.2; VXS_TEST_SEED=n)
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <rte_eal.h>
#include "dpcls.h"
#include "emc.h"
#include "flow_hash.h"
#include "pkt_batch.h"
#include "unit_test.h"



/* ---- deterministic randomness (splitmix64) ---- */

static uint64_t rng_state;

static uint64_t
rnd64(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint32_t
rnd(uint32_t n)
{
	return (uint32_t)(rnd64() % n);
}

static bool
chance(unsigned percent)
{
	return rnd(100) < percent;
}

/* ---- realistic keys and masks ---- */

static void
random_key(struct flow_key *k)
{
	static const uint16_t types[] = { 0x0800, 0x0800, 0x0800, 0x0806,
					  0x86dd };
	static const uint8_t protos[] = { 6, 17, 1 };

	flow_key_zero(k);
	k->in_port = 1 + rnd(512);
	k->tun_id = chance(50) ? rnd(4096) : 0;
	k->tun_src = rte_cpu_to_be_32(0x0a000000 | rnd(1 << 16));
	k->tun_dst = rte_cpu_to_be_32(0x0a000000 | rnd(1 << 16));
	for (int i = 0; i < RTE_ETHER_ADDR_LEN; i++) {
		k->dl_dst.addr_bytes[i] = rnd(256);
		k->dl_src.addr_bytes[i] = rnd(256);
	}
	k->vlan_tci = chance(20) ? rte_cpu_to_be_16(FLOW_VLAN_CFI | rnd(4096))
				 : 0;
	k->dl_type = rte_cpu_to_be_16(types[rnd(RTE_DIM(types))]);
	k->nw_src = (uint32_t)rnd64();
	k->nw_dst = (uint32_t)rnd64();
	k->nw_proto = protos[rnd(RTE_DIM(protos))];
	k->nw_tos = rnd(256);
	k->nw_ttl = rnd(256);
	k->nw_frag = chance(5) ? FLOW_NW_FRAG_ANY : 0;
	k->tp_src = rnd(65536);
	k->tp_dst = rnd(65536);
}

static rte_be32_t
prefix_mask(unsigned plen)
{
	return rte_cpu_to_be_32(plen ? ~0u << (32 - plen) : 0);
}

/* Sparse random bits in a random subset of the used words. */
static void
random_bits_mask(struct flow_key *m)
{
	do {
		flow_key_zero(m);
		for (int i = 0; i < FLOW_KEY_USED_WORDS; i++)
			if (chance(50))
				m->w[i] = rnd64() & rnd64();
	} while (!flow_mask_wordmap(m));
}

enum mask_shape {
	SHAPE_IN_PORT,
	SHAPE_IN_PORT_DL_TYPE,
	SHAPE_L3_DST,		/* in_port, dl_type, nw_dst/plen */
	SHAPE_L3_SRC_DST,
	SHAPE_DECAP,		/* + tun_id, tun_src, tun_dst */
	SHAPE_TUNNEL_POP,	/* in_port, dl_type, nw_dst, proto, frag, tp_dst */
	SHAPE_FIVE_TUPLE,
	SHAPE_L2,		/* in_port, dl_dst (+ vlan, dl_type) */
	SHAPE_RANDOM,
	N_SHAPES
};

static void
shape_mask(struct flow_key *m, enum mask_shape shape)
{
	flow_key_zero(m);
	if (shape == SHAPE_RANDOM) {
		random_bits_mask(m);
		return;
	}
	flow_mask_set_field(m, MFF_IN_PORT);
	switch (shape) {
	case SHAPE_IN_PORT:
		break;
	case SHAPE_IN_PORT_DL_TYPE:
		flow_mask_set_field(m, MFF_DL_TYPE);
		break;
	case SHAPE_L3_SRC_DST:
		m->nw_src = prefix_mask(8 + rnd(25));
		/* fall through */
	case SHAPE_L3_DST:
		flow_mask_set_field(m, MFF_DL_TYPE);
		m->nw_dst = prefix_mask(8 + rnd(25));
		break;
	case SHAPE_DECAP:
		flow_mask_set_field(m, MFF_TUN_ID);
		if (chance(70))
			flow_mask_set_field(m, MFF_TUN_SRC);
		flow_mask_set_field(m, MFF_TUN_DST);
		flow_mask_set_field(m, MFF_DL_TYPE);
		m->nw_dst = prefix_mask(16 + rnd(17));
		break;
	case SHAPE_TUNNEL_POP:
		flow_mask_set_field(m, MFF_DL_TYPE);
		flow_mask_set_field(m, MFF_NW_DST);
		flow_mask_set_field(m, MFF_NW_PROTO);
		m->nw_frag = FLOW_NW_FRAG_MASK;
		flow_mask_set_field(m, MFF_TP_DST);
		break;
	case SHAPE_FIVE_TUPLE:
		flow_mask_set_field(m, MFF_DL_TYPE);
		flow_mask_set_field(m, MFF_NW_SRC);
		flow_mask_set_field(m, MFF_NW_DST);
		flow_mask_set_field(m, MFF_NW_PROTO);
		flow_mask_set_field(m, MFF_TP_SRC);
		flow_mask_set_field(m, MFF_TP_DST);
		break;
	case SHAPE_L2:
		flow_mask_set_field(m, MFF_DL_DST);
		if (chance(50))
			flow_mask_set_field(m, MFF_VLAN_TCI);
		if (chance(50))
			flow_mask_set_field(m, MFF_DL_TYPE);
		break;
	default:
		break;
	}
}

#define N_MASKS 40

static struct flow_key masks[N_MASKS];

static void
make_masks(void)
{
	for (int i = 0; i < N_MASKS; i++)
		shape_mask(&masks[i], i < N_SHAPES ? (enum mask_shape)i
						   : (enum mask_shape)rnd(N_SHAPES));
}

/* ---- megaflows: two copies of each, one per classifier ---- */

static struct megaflow *
megaflow_new(const struct flow_key *key, const struct flow_key *mask,
	     uint64_t id)
{
	struct megaflow *f = aligned_alloc(RTE_CACHE_LINE_SIZE,
					   RTE_ALIGN(sizeof *f,
						     RTE_CACHE_LINE_SIZE));
	if (!f) {
		perror("aligned_alloc");
		exit(2);
	}
	memset(f, 0, sizeof *f);
	f->mask = *mask;
	flow_key_mask(&f->key, key, mask);
	f->id = id;
	return f;
}

static bool
megaflows_overlap(const struct megaflow *a, const struct megaflow *b)
{
	uint64_t diff = 0;

	for (int i = 0; i < FLOW_KEY_WORDS; i++)
		diff |= (a->key.w[i] ^ b->key.w[i]) & a->mask.w[i] &
			b->mask.w[i];
	return diff == 0;
}

/* The oracle's flow table: live[i] says whether flow i is installed. */
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
		struct megaflow *g = megaflow_new(&f->key, &f->mask, w->n);
		int rs = dpcls_insert(w->cls_spec, f);
		int rg = dpcls_insert(w->cls_gen, g);

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
		    flow_key_match(key, &w->spec[i]->key, &w->spec[i]->mask))
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

		if (f->mask.w[word] & bit) {
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
		pkt->w[i] = f->key.w[i] | (noise.w[i] & ~f->mask.w[i]);
	if (chance(20) && flow_mask_wordmap(&f->mask))
		flip_masked_bit(pkt, f);
}

static uint32_t
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

static struct megaflow sentinel;
static unsigned n_oracle_hits;

/* One batch through both classifiers: each must give the oracle's answer,
 * and write flows[] only for hits. Returns the number of keys checked. */
static unsigned
check_batch(const struct world *w)
{
	struct flow_key keys[BATCH_MAX];
	struct megaflow *fs[BATCH_MAX], *fg[BATCH_MAX];
	uint32_t map = random_keys_map();
	uint32_t want_miss = 0;
	int64_t want[BATCH_MAX];

	for (int i = 0; i < BATCH_MAX; i++) {
		random_packet(w, &keys[i]);
		want[i] = map >> i & 1 ? oracle_lookup(w, &keys[i]) : -1;
		if ((map >> i & 1) && want[i] < 0)
			want_miss |= 1u << i;
		fs[i] = fg[i] = &sentinel;
	}

	uint32_t miss_s = dpcls_lookup(w->cls_spec, keys, map, fs);
	uint32_t miss_g = dpcls_lookup(w->cls_gen, keys, map, fg);
	unsigned bad_s = 0, bad_g = 0, differ = 0;

	for (int i = 0; i < BATCH_MAX; i++) {
		bool hit = (map >> i & 1) && want[i] >= 0;
		struct megaflow *es = hit ? w->spec[want[i]] : &sentinel;
		struct megaflow *eg = hit ? w->gen[want[i]] : &sentinel;

		bad_s += fs[i] != es;
		bad_g += fg[i] != eg;
		differ += fs[i]->id != fg[i]->id;
	}
	CHECK(miss_s == want_miss && !bad_s,
	      "specialised: map %08x miss %08x want %08x, %u wrong", map,
	      miss_s, want_miss, bad_s);
	CHECK(miss_g == want_miss && !bad_g,
	      "generic: map %08x miss %08x want %08x, %u wrong", map, miss_g,
	      want_miss, bad_g);
	CHECK(miss_s == miss_g && !differ, "specialised != generic");
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
check_subtable_name(uint8_t wordmap, const char *name, uint32_t n_flows,
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

static void
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

/* ---- targeted dpcls tests ---- */

static struct flow_key
mask_of(enum mask_shape shape)
{
	struct flow_key m;

	shape_mask(&m, shape);
	return m;
}

static struct megaflow *
flow_on_port(uint32_t port, const struct flow_key *mask, uint64_t id)
{
	struct flow_key key;

	random_key(&key);
	key.in_port = port;
	return megaflow_new(&key, mask, id);
}

static void
test_registry(void)
{
	static const struct {
		uint8_t wordmap;
		const char *name;
	} want[] = {
		{ 0x01, "dpcls_lookup_w0" },
		{ 0x09, "dpcls_lookup_w0w3" },
		{ 0x1b, "dpcls_lookup_w0w1w3w4" },
		{ 0x39, "dpcls_lookup_w0w3w4w5" },
		{ 0x02, DPCLS_LOOKUP_GENERIC_NAME },
		{ 0x00, DPCLS_LOOKUP_GENERIC_NAME },
	};

	for (unsigned i = 0; i < RTE_DIM(want); i++)
		CHECK(!strcmp(dpcls_lookup_name_for(want[i].wordmap),
			      want[i].name),
		      "wordmap %#x -> %s", want[i].wordmap,
		      dpcls_lookup_name_for(want[i].wordmap));

	/* The seed's shapes really produce those wordmaps. */
	struct flow_key m = mask_of(SHAPE_IN_PORT);

	CHECK(flow_mask_wordmap(&m) == 0x01, "in_port %#x",
	      flow_mask_wordmap(&m));
	m = mask_of(SHAPE_IN_PORT_DL_TYPE);
	CHECK(flow_mask_wordmap(&m) == 0x09, "dl_type %#x",
	      flow_mask_wordmap(&m));
	m = mask_of(SHAPE_TUNNEL_POP);
	CHECK(flow_mask_wordmap(&m) == 0x39, "pop %#x", flow_mask_wordmap(&m));
	m = mask_of(SHAPE_DECAP);
	m.tun_src = 0;
	CHECK(flow_mask_wordmap(&m) == 0x1b, "decap %#x",
	      flow_mask_wordmap(&m));
}

static void
test_exist_and_find(void)
{
	struct dpcls *cls = dpcls_create(SOCKET_ID_ANY, 100);
	struct flow_key m = mask_of(SHAPE_FIVE_TUPLE);
	struct megaflow *a = flow_on_port(7, &m, 1);
	struct megaflow *dup = megaflow_new(&a->key, &m, 2);
	struct flow_key other_mask = mask_of(SHAPE_IN_PORT_DL_TYPE);

	CHECK(dpcls_insert(cls, a) == 0, "insert");
	/* Bits outside the mask must not make it a different flow. */
	dup->key.nw_tos = 0x5a;
	CHECK(dpcls_insert(cls, dup) == -EEXIST, "duplicate accepted");
	CHECK(dpcls_count(cls) == 1, "count %u", dpcls_count(cls));
	CHECK(dpcls_find(cls, &a->key, &m) == a, "find");
	CHECK(dpcls_find(cls, &a->key, &other_mask) == NULL, "find mask");
	dup->key = a->key;
	dup->key.tp_dst ^= 1;
	CHECK(dpcls_find(cls, &dup->key, &m) == NULL, "find other key");
	dpcls_remove(cls, a);
	CHECK(dpcls_find(cls, &a->key, &m) == NULL && dpcls_count(cls) == 0,
	      "find after remove");
	CHECK(dpcls_insert(cls, a) == 0, "re-insert after remove");
	dpcls_destroy(cls);
	free(a);
	free(dup);
}

static void
test_nospc(void)
{
	enum { MAX = 10 };
	struct dpcls *cls = dpcls_create(SOCKET_ID_ANY, MAX);
	struct flow_key m = mask_of(SHAPE_IN_PORT);
	struct megaflow *f[MAX + 1];

	for (int i = 0; i <= MAX; i++)
		f[i] = flow_on_port(100 + i, &m, i);
	for (int i = 0; i < MAX; i++)
		CHECK(dpcls_insert(cls, f[i]) == 0, "insert %d", i);
	CHECK(dpcls_insert(cls, f[MAX]) == -ENOSPC, "no -ENOSPC");
	CHECK(dpcls_insert(cls, f[0]) == -EEXIST, "full duplicate");
	dpcls_remove(cls, f[3]);
	CHECK(dpcls_insert(cls, f[MAX]) == 0, "insert after remove");
	CHECK(dpcls_count(cls) == MAX, "count %u", dpcls_count(cls));
	dpcls_destroy(cls);
	for (int i = 0; i <= MAX; i++)
		free(f[i]);
}

struct foreach_ctx {
	struct dpcls *cls;
	unsigned visited;
	unsigned long id_sum;
	bool remove_odd, remove_all;
};

static void
foreach_cb(struct megaflow *f, void *aux)
{
	struct foreach_ctx *c = aux;

	c->visited++;
	c->id_sum += f->id;
	if (c->remove_all || (c->remove_odd && (f->id & 1))) {
		dpcls_remove(c->cls, f);
		free(f);	/* lets ASan catch any later touch */
	}
}

static void
count_subtable(uint8_t wordmap, const char *name, uint32_t n_flows,
	       uint64_t hits, void *aux)
{
	(void)wordmap, (void)name, (void)n_flows, (void)hits;
	++*(unsigned *)aux;
}

static void
test_foreach_remove(void)
{
	enum { N = 600 };
	struct dpcls *cls = dpcls_create(SOCKET_ID_ANY, N);
	unsigned long all = 0, even = 0;
	unsigned n_sub = 0;

	/* Few flows per mask too, so whole subtables vanish mid-walk. */
	for (uint64_t i = 0; i < N; i++) {
		struct megaflow *f = flow_on_port(1000 + i, &masks[i % N_MASKS],
						  i);

		f->mask.in_port = UINT32_MAX;	/* disjoint by port */
		f->key.in_port = 1000 + i;
		CHECK(dpcls_insert(cls, f) == 0, "insert %" PRIu64, i);
		all += i;
		even += (i & 1) ? 0 : i;
	}

	struct foreach_ctx c = { .cls = cls, .remove_odd = true };

	dpcls_foreach(cls, foreach_cb, &c);
	CHECK(c.visited == N && c.id_sum == all, "odd walk %u", c.visited);
	CHECK(dpcls_count(cls) == N / 2, "count %u", dpcls_count(cls));

	c = (struct foreach_ctx){ .cls = cls };
	dpcls_foreach(cls, foreach_cb, &c);
	CHECK(c.visited == N / 2 && c.id_sum == even, "even walk %u",
	      c.visited);

	c = (struct foreach_ctx){ .cls = cls, .remove_all = true };
	dpcls_foreach(cls, foreach_cb, &c);
	dpcls_foreach_subtable(cls, count_subtable, &n_sub);
	CHECK(c.visited == N / 2 && dpcls_count(cls) == 0 && n_sub == 0,
	      "remove all: visited %u count %u subtables %u", c.visited,
	      dpcls_count(cls), n_sub);
	dpcls_destroy(cls);
}

struct rank_ctx {
	unsigned n;
	uint8_t wordmap[8];
	uint64_t hits[8];
};

static void
record_rank(uint8_t wordmap, const char *name, uint32_t n_flows,
	    uint64_t hits, void *aux)
{
	struct rank_ctx *r = aux;

	(void)name, (void)n_flows;
	if (r->n < 8) {
		r->wordmap[r->n] = wordmap;
		r->hits[r->n] = hits;
	}
	r->n++;
}

static void
lookup_n(struct dpcls *cls, const struct megaflow *f, unsigned n)
{
	struct flow_key keys[1];
	struct megaflow *found[1];

	keys[0] = f->key;
	for (unsigned i = 0; i < n; i++) {
		found[0] = NULL;
		uint32_t miss = dpcls_lookup(cls, keys, 1, found);

		CHECK(!miss && found[0] == f, "rank lookup");
	}
}

static void
test_rank(void)
{
	struct dpcls *cls = dpcls_create(SOCKET_ID_ANY, 4096);
	struct flow_key ma = mask_of(SHAPE_IN_PORT);		/* 0x01 */
	struct flow_key mb = mask_of(SHAPE_IN_PORT_DL_TYPE);	/* 0x09 */
	struct flow_key mc = mask_of(SHAPE_TUNNEL_POP);		/* 0x39 */
	struct megaflow *a = flow_on_port(1, &ma, 1);
	struct megaflow *b = flow_on_port(2, &mb, 2);
	struct megaflow *c = flow_on_port(3, &mc, 3);
	struct rank_ctx r = { 0 };

	dpcls_insert(cls, a);
	dpcls_insert(cls, b);
	dpcls_insert(cls, c);
	dpcls_foreach_subtable(cls, record_rank, &r);
	CHECK(r.n == 3 && r.wordmap[0] == 0x01 && r.wordmap[1] == 0x09 &&
	      r.wordmap[2] == 0x39, "creation order");

	lookup_n(cls, c, 30);
	lookup_n(cls, b, 20);
	lookup_n(cls, a, 10);
	dpcls_rank_subtables(cls);
	r = (struct rank_ctx){ 0 };
	dpcls_foreach_subtable(cls, record_rank, &r);
	CHECK(r.n == 3 && r.wordmap[0] == 0x39 && r.wordmap[1] == 0x09 &&
	      r.wordmap[2] == 0x01, "ranked order %#x %#x %#x", r.wordmap[0],
	      r.wordmap[1], r.wordmap[2]);
	CHECK(r.hits[0] == 30 && r.hits[1] == 20 && r.hits[2] == 10,
	      "hits %" PRIu64 " %" PRIu64 " %" PRIu64, r.hits[0], r.hits[1],
	      r.hits[2]);

	/* Only recent hits rank: a now beats c. */
	lookup_n(cls, a, 5);
	dpcls_rank_subtables(cls);
	r = (struct rank_ctx){ 0 };
	dpcls_foreach_subtable(cls, record_rank, &r);
	CHECK(r.wordmap[0] == 0x01 && r.wordmap[1] == 0x39 &&
	      r.wordmap[2] == 0x09 && r.hits[0] == 15,
	      "re-ranked %#x %#x %#x", r.wordmap[0], r.wordmap[1],
	      r.wordmap[2]);

	/* Grow one subtable, empty most of it, let ranking shrink it: every
	 * remaining flow must still be found. */
	enum { BIG = 2000 };
	struct megaflow *big[BIG];

	for (int i = 0; i < BIG; i++) {
		big[i] = flow_on_port(10000 + i, &ma, 100 + i);
		CHECK(dpcls_insert(cls, big[i]) == 0, "big insert");
	}
	for (int i = 0; i < BIG; i++)
		if (i % 50)
			dpcls_remove(cls, big[i]);
	dpcls_rank_subtables(cls);
	for (int i = 0; i < BIG; i += 50)
		lookup_n(cls, big[i], 1);
	lookup_n(cls, a, 1);
	CHECK(dpcls_count(cls) == 3 + BIG / 50, "count %u", dpcls_count(cls));

	dpcls_destroy(cls);
	for (int i = 0; i < BIG; i++)
		free(big[i]);
	free(a);
	free(b);
	free(c);
}

static void
test_edge_cases(void)
{
	struct dpcls *cls = dpcls_create(SOCKET_ID_ANY, 10);
	struct flow_key keys[BATCH_MAX];
	struct megaflow *found[BATCH_MAX] = { 0 };
	struct flow_key empty_mask;

	for (int i = 0; i < BATCH_MAX; i++)
		random_key(&keys[i]);
	CHECK(dpcls_lookup(cls, keys, UINT32_MAX, found) == UINT32_MAX,
	      "empty classifier");
	CHECK(dpcls_lookup(cls, keys, 0, found) == 0, "empty map");

	/* A catch-all megaflow (wordmap 0) matches everything. */
	flow_key_zero(&empty_mask);
	struct megaflow *all = megaflow_new(&keys[0], &empty_mask, 1);

	CHECK(dpcls_insert(cls, all) == 0, "catch-all insert");
	CHECK(dpcls_lookup(cls, keys, UINT32_MAX, found) == 0 &&
	      found[0] == all && found[31] == all, "catch-all lookup");
	dpcls_destroy(cls);
	free(all);
}

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

static void
test_emc(unsigned n_keys)
{
	struct emc *emc = emc_create(SOCKET_ID_ANY);

	CHECK(emc != NULL, "emc_create");
	if (!emc)
		return;
	test_emc_basic(emc);
	test_emc_two_way(emc);
	test_emc_random(emc, n_keys);
	emc_destroy(emc);
}

/* ---- main ---- */

static double
test_scale(int argc, char **argv)
{
	const char *s = argc > 1 ? argv[1] : getenv("VXS_TEST_SCALE");
	double v = s ? strtod(s, NULL) : 1.0;

	return v > 0 ? v : 1.0;
}

int
main(int argc, char **argv)
{
	double scale = test_scale(argc, argv);
	const char *seed_env = getenv("VXS_TEST_SEED");
	uint64_t seed = seed_env ? strtoull(seed_env, NULL, 0) : 0x5eedc1a55ull;

	if (unit_test_eal_init("test_dpcls", "256"))
		return 1;
	rng_state = seed;
	printf("seed 0x%" PRIx64 " (VXS_TEST_SEED), scale %.2f\n", seed,
	       scale);
	sentinel.id = UINT64_MAX;
	make_masks();

	test_registry();
	test_exist_and_find();
	test_nospc();
	test_foreach_remove();
	test_rank();
	test_edge_cases();
	printf("random megaflows vs linear oracle:\n");
	test_random_vs_oracle((unsigned)(3000 * scale) + 50,
			      (unsigned)(30000 * scale) + 500);
	test_emc((unsigned)(20000 * scale) + 64);

	rte_eal_cleanup();
	return unit_test_report();
}
