/* SPDX-License-Identifier: BSD-3-Clause
 * What the parts of test_dpcls share: the one random sequence, realistic
 * keys and masks, megaflows (test_dpcls.c). Built with -DUNIT_TEST_PARTS:
 * one count for the whole executable.
 */
#ifndef VXS_DPCLS_TEST_H
#define VXS_DPCLS_TEST_H

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

#define N_MASKS 40

/* test_dpcls.c: deterministic randomness (splitmix64), keys, masks,
 * megaflows */
extern uint64_t rng_state;
uint64_t rnd64(void);
uint32_t rnd(uint32_t n);
bool chance(unsigned percent);
void random_key(struct flow_key *k);
rte_be32_t prefix_mask(unsigned plen);
void random_bits_mask(struct flow_key *m);
void shape_mask(struct flow_key *m, enum mask_shape shape);
extern struct flow_key masks[N_MASKS];
void make_masks(void);
struct megaflow *megaflow_new(const struct flow_key *key,
			      const struct flow_key *mask, uint64_t id);

/* The mask a test megaflow was made with, kept after it by megaflow_new:
 * a megaflow has none of its own (megaflow_mask() is its subtable's,
 * only while it is in a classifier), and the tests need it before
 * insertion and after removal. */
static inline struct flow_key *
test_mask(const struct megaflow *f)
{
	return (struct flow_key *)(uintptr_t)(f + 1);
}
bool megaflows_overlap(const struct megaflow *a, const struct megaflow *b);

/* test_dpcls_oracle.c */
extern struct megaflow sentinel;
uint32_t random_keys_map(void);
void test_random_vs_oracle(unsigned n_flows, unsigned n_packets);

/* test_dpcls_hint.c */
void test_port_hint(void);

/* test_dpcls_targeted.c */
void test_registry(void);
void test_exist_and_find(void);
void test_nospc(void);
void test_foreach_remove(void);
void test_rank(void);
void test_edge_cases(void);
void test_key_lines(void);
void test_key_line3(void);

/* test_dpcls_hostile.c */
void test_hostile(unsigned n);

/* test_dpcls_emc.c */
void test_emc(unsigned n_keys);

#endif
