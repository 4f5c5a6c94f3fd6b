/* SPDX-License-Identifier: BSD-3-Clause
 * test_dpcls, targeted: the lookup registry, exists/find, table full,
 * foreach with removal, subtable ranking, edge cases.
 */
#include "dpcls_test.h"

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

void
test_registry(void)
{
	static const struct {
		uint32_t wordmap;
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

void
test_exist_and_find(void)
{
	struct dpcls *cls = dpcls_create(SOCKET_ID_ANY, 100);
	struct flow_key m = mask_of(SHAPE_FIVE_TUPLE);
	struct megaflow *a = flow_on_port(7, &m, 1);
	struct megaflow *dup = megaflow_new(&a->key, &m, 2);
	struct flow_key other_mask = mask_of(SHAPE_IN_PORT_DL_TYPE);

	CHECK(dpcls_insert(cls, a, test_mask(a)) == 0, "insert");
	/* Bits outside the mask must not make it a different flow. */
	dup->key.nw_tos = 0x5a;
	CHECK(dpcls_insert(cls, dup, test_mask(dup)) == -EEXIST,
	      "duplicate accepted");
	CHECK(dpcls_count(cls) == 1, "count %u", dpcls_count(cls));
	CHECK(dpcls_find(cls, &a->key, &m) == a, "find");
	CHECK(dpcls_find(cls, &a->key, &other_mask) == NULL, "find mask");
	dup->key = a->key;
	dup->key.tp_dst ^= 1;
	CHECK(dpcls_find(cls, &dup->key, &m) == NULL, "find other key");
	dpcls_remove(cls, a);
	CHECK(dpcls_find(cls, &a->key, &m) == NULL && dpcls_count(cls) == 0,
	      "find after remove");
	CHECK(dpcls_insert(cls, a, test_mask(a)) == 0,
	      "re-insert after remove");
	dpcls_destroy(cls);
	free(a);
	free(dup);
}

void
test_nospc(void)
{
	enum { MAX = 10 };
	struct dpcls *cls = dpcls_create(SOCKET_ID_ANY, MAX);
	struct flow_key m = mask_of(SHAPE_IN_PORT);
	struct megaflow *f[MAX + 1];

	for (int i = 0; i <= MAX; i++)
		f[i] = flow_on_port(100 + i, &m, i);
	for (int i = 0; i < MAX; i++)
		CHECK(dpcls_insert(cls, f[i], test_mask(f[i])) == 0,
		      "insert %d", i);
	CHECK(dpcls_insert(cls, f[MAX], test_mask(f[MAX])) == -ENOSPC,
	      "no -ENOSPC");
	CHECK(dpcls_insert(cls, f[0], test_mask(f[0])) == -EEXIST,
	      "full duplicate");
	dpcls_remove(cls, f[3]);
	CHECK(dpcls_insert(cls, f[MAX], test_mask(f[MAX])) == 0,
	      "insert after remove");
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
count_subtable(uint32_t wordmap, const char *name, uint32_t n_flows,
	       uint64_t hits, void *aux)
{
	(void)wordmap, (void)name, (void)n_flows, (void)hits;
	++*(unsigned *)aux;
}

void
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

		/* disjoint by port */
		test_mask(f)->in_port = UINT16_MAX;
		f->key.in_port = 1000 + i;
		CHECK(dpcls_insert(cls, f, test_mask(f)) == 0,
		      "insert %" PRIu64, i);
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
	uint32_t wordmap[8];
	uint64_t hits[8];
};

static void
record_rank(uint32_t wordmap, const char *name, uint32_t n_flows,
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

void
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

	dpcls_insert(cls, a, test_mask(a));
	dpcls_insert(cls, b, test_mask(b));
	dpcls_insert(cls, c, test_mask(c));
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
		CHECK(dpcls_insert(cls, big[i], test_mask(big[i])) == 0,
		      "big insert");
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

void
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

	CHECK(dpcls_insert(cls, all, test_mask(all)) == 0, "catch-all insert");
	CHECK(dpcls_lookup(cls, keys, UINT32_MAX, found) == 0 &&
	      found[0] == all && found[31] == all, "catch-all lookup");
	dpcls_destroy(cls);
	free(all);
}

/* The key's second line (flow_key.h, doc/design-ipv6-key.md): a
 * mask with second-line words matches only keys that have one, whatever
 * stale bytes a one-line key carries there, in the specialised-by-shape
 * and the generic lookup alike; a one-line key's stale second line changes
 * neither its equality nor its hashes. */
void
test_key_lines(void)
{
	for (int generic = 0; generic < 2; generic++) {
		struct dpcls *cls = dpcls_create(SOCKET_ID_ANY, 10);
		struct flow_key k6, k1, mask, keys[3];
		struct megaflow *found[3] = { 0 };

		dpcls_force_generic(cls, generic);
		random_key(&k6);
		k6.dl_type = RTE_BE16(0x86dd);
		k6.ext_line = FLOW_EXT_LINE;
		for (int w = 8; w < 12; w++)
			k6.w[w] = 0x20010db800000000ull + (uint64_t)w;
		flow_key_zero(&mask);
		flow_mask_set_field(&mask, MFF_IN_PORT);
		flow_mask_set_field(&mask, MFF_DL_TYPE);
		for (int w = 8; w < 12; w++)
			mask.w[w] = UINT64_MAX;
		struct megaflow *f = megaflow_new(&k6, &mask, 1);

		/* a second-line mask that forgot ext_line is refused */
		CHECK(dpcls_insert(cls, f, test_mask(f)) == -EINVAL,
		      "mask without ext_line");
		free(f);
		mask.ext_line = FLOW_EXT_LINE;	/* as flow_mask_set_field does */
		f = megaflow_new(&k6, &mask, 1);
		CHECK(dpcls_insert(cls, f, test_mask(f)) == 0,
		      "two-line insert");
		/* the same bytes, but the second line not part of the key */
		k1 = k6;
		k1.ext_line = 0;
		keys[0] = k6;
		keys[1] = k1;
		keys[2] = k6;
		keys[2].w[10] ^= 1;
		CHECK(dpcls_lookup(cls, keys, 7, found) == 6 &&
		      found[0] == f, "%s: only the two-line key matches",
		      generic ? "generic" : "by shape");
		dpcls_destroy(cls);
		free(f);
	}

	struct flow_key a, b;

	random_key(&a);
	memset(a.line2, 0xa5, sizeof a.line2);
	b = a;
	memset(b.line2, 0x5a, sizeof b.line2);
	CHECK(!flow_key_has_ext(&a) && flow_key_equal(&a, &b) &&
	      flow_hash_key(&a) == flow_hash_key(&b),
	      "a one-line key's stale second line is not part of it");
	a.ext_line = b.ext_line = FLOW_EXT_LINE;
	CHECK(!flow_key_equal(&a, &b) && flow_hash_key(&a) != flow_hash_key(&b),
	      "a two-line key's second line is");
}

/* The third line (IPv6 underlay, doc/design-ipv6-underlay.md): a mask on
 * tun_ipv6_* matches only keys that have the line, whatever stale bytes
 * another key carries there, with or without a second line; a second-line
 * mask matches a key that has both; an IPv4 or IPv6-inner key's stale
 * third line changes neither its equality nor its hashes. */
void
test_key_line3(void)
{
	for (int generic = 0; generic < 2; generic++) {
		struct dpcls *cls = dpcls_create(SOCKET_ID_ANY, 10);
		struct flow_key kt, mask, keys[5];
		struct megaflow *found[5] = { 0 };

		dpcls_force_generic(cls, generic);
		random_key(&kt);
		kt.w[7] = 0;
		kt.ext_line = FLOW_EXT_TUN6;
		kt.tun_src = kt.tun_dst = 0;
		memset(kt.line3, 0, sizeof kt.line3);
		kt.tun_ipv6_src.a[0] = 0x20, kt.tun_ipv6_src.a[15] = 1;
		kt.tun_ipv6_dst.a[0] = 0x20, kt.tun_ipv6_dst.a[15] = 2;
		flow_key_zero(&mask);
		flow_mask_set_field(&mask, MFF_IN_PORT);
		flow_mask_set_field(&mask, MFF_DL_TYPE);
		memset(&mask.tun_ipv6_dst, 0xff, sizeof mask.tun_ipv6_dst);
		struct megaflow *f = megaflow_new(&kt, &mask, 1);

		CHECK(dpcls_insert(cls, f, test_mask(f)) == -EINVAL,
		      "a third-line mask without its ext_line bit");
		free(f);
		flow_mask_set_field(&mask, MFF_TUN_IPV6_DST);
		CHECK(mask.ext_line == FLOW_EXT_TUN6, "the bit it sets");
		f = megaflow_new(&kt, &mask, 1);
		CHECK(dpcls_insert(cls, f, test_mask(f)) == 0, "three-line insert");
		keys[0] = kt;
		keys[1] = kt;			/* same bytes, no third line */
		keys[1].ext_line = 0;
		keys[2] = kt;			/* IPv6 inner too */
		keys[2].ext_line = FLOW_EXT_TUN6 | FLOW_EXT_LINE;
		keys[3] = kt;
		keys[3].tun_ipv6_dst.a[15] ^= 1;
		keys[4] = kt;			/* the source is not masked */
		keys[4].tun_ipv6_src.a[15] ^= 1;
		uint32_t miss = dpcls_lookup(cls, keys, 0x1f, found);
		CHECK(miss == 0x0a && found[0] == f && found[2] == f &&
		      found[4] == f, "%s: misses %#x, want 0xa",
		      generic ? "generic" : "by shape", miss);
		dpcls_destroy(cls);
		free(f);
	}

	/* a second-line megaflow sees a key with both lines */
	struct dpcls *cls = dpcls_create(SOCKET_ID_ANY, 10);
	struct flow_key k6, mask, keys[2];
	struct megaflow *found[2] = { 0 };

	random_key(&k6);
	k6.w[7] = 0;
	k6.dl_type = RTE_BE16(0x86dd);
	k6.ext_line = FLOW_EXT_LINE;
	memset(k6.line2, 0, sizeof k6.line2);
	k6.ipv6_dst.a[0] = 0xfd;
	flow_key_zero(&mask);
	flow_mask_set_field(&mask, MFF_DL_TYPE);
	flow_mask_set_field(&mask, MFF_IPV6_DST);
	struct megaflow *f = megaflow_new(&k6, &mask, 1);

	CHECK(dpcls_insert(cls, f, test_mask(f)) == 0, "two-line insert");
	keys[0] = k6;
	keys[0].ext_line |= FLOW_EXT_TUN6;
	memset(keys[0].line3, 0x77, sizeof keys[0].line3);
	keys[1] = keys[0];
	keys[1].ext_line = FLOW_EXT_TUN6;	/* no second line */
	CHECK(dpcls_lookup(cls, keys, 3, found) == 2 && found[0] == f,
	      "an IPv6-inner megaflow matches over either underlay");
	dpcls_destroy(cls);
	free(f);

	/* stale third lines */
	struct flow_key a, b;

	for (int inner6 = 0; inner6 < 2; inner6++) {
		random_key(&a);
		a.w[7] = 0;
		a.ext_line = inner6 ? FLOW_EXT_LINE : 0;
		memset(a.line3, 0xa5, sizeof a.line3);
		b = a;
		memset(b.line3, 0x5a, sizeof b.line3);
		CHECK(flow_key_equal(&a, &b) &&
		      flow_hash_key(&a) == flow_hash_key(&b),
		      "%s key's stale third line is not part of it",
		      inner6 ? "an IPv6" : "an IPv4");
		a.ext_line |= FLOW_EXT_TUN6;
		b.ext_line |= FLOW_EXT_TUN6;
		CHECK(!flow_key_equal(&a, &b) &&
		      flow_hash_key(&a) != flow_hash_key(&b),
		      "a three-line key's third line is");
	}
	/* an IPv6 inner key's hash is what it was before the third line:
	 * w0..w15, as the VXLAN source ports on the wire depend on it */
	random_key(&a);
	a.ext_line = FLOW_EXT_LINE;
	uint32_t h = FLOW_HASH_BASIS;
	for (int i = 0; i < FLOW_KEY_LINE3; i++)
		h = rte_hash_crc_8byte(a.w[i], h);
	CHECK(flow_hash_key(&a) == h, "two-line hash unchanged");
}
