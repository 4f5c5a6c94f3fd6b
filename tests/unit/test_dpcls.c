/* SPDX-License-Identifier: BSD-3-Clause
 * dpcls and EMC against a brute-force oracle: a linear scan over the same
 * megaflows. Random non-overlapping megaflows over a few dozen realistic and
 * random masks go into two classifiers, one with the specialised lookups
 * and one forced generic; random packets (mostly built to hit a flow) must
 * find exactly the oracle's flow in both.
 *
 * Usage: test_dpcls [scale]   (or VXS_TEST_SCALE=0.2; VXS_TEST_SEED=n)
 *
 * This file: the random sequence, keys, masks, megaflows and main; the
 * oracle comparison is in test_dpcls_oracle.c, the targeted dpcls tests in
 * test_dpcls_targeted.c, the EMC tests in test_dpcls_emc.c, colliding
 * keys and the chain cap in test_dpcls_hostile.c.
 */
#include "dpcls_test.h"

unsigned n_passed, n_failed;

/* ---- deterministic randomness (splitmix64) ---- */

uint64_t rng_state;

uint64_t
rnd64(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

uint32_t
rnd(uint32_t n)
{
	return (uint32_t)(rnd64() % n);
}

bool
chance(unsigned percent)
{
	return rnd(100) < percent;
}

/* ---- realistic keys and masks ---- */

void
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

rte_be32_t
prefix_mask(unsigned plen)
{
	return rte_cpu_to_be_32(plen ? ~0u << (32 - plen) : 0);
}

/* Sparse random bits in a random subset of the used words. */
void
random_bits_mask(struct flow_key *m)
{
	do {
		flow_key_zero(m);
		for (int i = 0; i < FLOW_KEY_USED_WORDS; i++)
			if (chance(50))
				m->w[i] = rnd64() & rnd64();
	} while (!flow_mask_wordmap(m));
}
void
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

struct flow_key masks[N_MASKS];

void
make_masks(void)
{
	for (int i = 0; i < N_MASKS; i++)
		shape_mask(&masks[i], i < N_SHAPES ? (enum mask_shape)i
						   : (enum mask_shape)rnd(N_SHAPES));
}

/* ---- megaflows: two copies of each, one per classifier ---- */

struct megaflow *
megaflow_new(const struct flow_key *key, const struct flow_key *mask,
	     uint64_t id)
{
	/* room for the mask after it: test_mask() */
	struct megaflow *f = aligned_alloc(RTE_CACHE_LINE_SIZE,
					   RTE_ALIGN(sizeof *f + sizeof *mask,
						     RTE_CACHE_LINE_SIZE));
	if (!f) {
		perror("aligned_alloc");
		exit(2);
	}
	memset(f, 0, sizeof *f);
	*test_mask(f) = *mask;
	flow_key_mask(&f->key, key, mask);
	f->id = id;
	return f;
}

bool
megaflows_overlap(const struct megaflow *a, const struct megaflow *b)
{
	uint64_t diff = 0;

	for (int i = 0; i < FLOW_KEY_WORDS; i++)
		diff |= (a->key.w[i] ^ b->key.w[i]) & test_mask(a)->w[i] &
			test_mask(b)->w[i];
	return diff == 0;
}

/* The oracle's flow table: live[i] says whether flow i is installed. */
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
	test_key_lines();
	test_key_line3();
	test_port_hint();
	printf("random megaflows vs linear oracle:\n");
	test_random_vs_oracle((unsigned)(3000 * scale) + 50,
			      (unsigned)(30000 * scale) + 500);
	test_emc((unsigned)(20000 * scale) + 64);
	test_hostile(4096);

	rte_eal_cleanup();
	return unit_test_report();
}
