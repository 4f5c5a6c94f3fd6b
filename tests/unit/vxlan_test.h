/* SPDX-License-Identifier: BSD-3-Clause
 * What the parts of test_vxlan share (test_vxlan.c: checks, vectors, mbufs,
 * template tests and main; test_vxlan_encap.c; test_vxlan_decap.c).
 */
#ifndef VXS_VXLAN_TEST_H
#define VXS_VXLAN_TEST_H

#include <arpa/inet.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_mbuf_ptype.h>
#include <rte_mempool.h>

#include "flow_key.h"
#include "pkt_batch.h"
#include "vxlan_decap.h"
#include "vxlan_encap.h"
#include "vxlan_tnl.h"

#define POOL_SIZE 511
#define TNL_OFPORT 7
#define MAX_VECTORS 64
#define LINE_MAX_LEN 16384

#define CHECK(cond, ...)						\
	do {								\
		if (!(cond))						\
			check_failed(__FILE__, __LINE__, __VA_ARGS__);	\
	} while (0)

struct vector {
	char name[64];
	char mode[16];		/* "both" or "decap" */
	char group[32];		/* "-" = none */
	struct rte_ether_addr src_mac, dst_mac;
	rte_be32_t src_ip, dst_ip;
	uint32_t vni;
	uint16_t dst_port;
	uint8_t ttl;
	bool df;
	uint16_t ip_id;
	uint32_t hash;
	uint16_t sport;
	uint8_t *inner, *outer;
	size_t inner_len, outer_len;
};

/* test_vxlan.c: the pool, the checks, the vectors and mbuf helpers */
extern struct rte_mempool *pool;
extern int test_failures;	/* failed checks in the running test */
void __attribute__((format(printf, 3, 4)))
check_failed(const char *file, int line, const char *fmt, ...);
extern struct vector vectors[MAX_VECTORS];
extern int n_vectors;
const struct vector *find_vector(const char *name);
void vector_template(const struct vector *v, struct vxlan_tnl_template *t);
struct rte_mbuf *mbuf_from(const void *data, size_t len);
struct rte_mbuf *mbuf_chain_from(const uint8_t *data, size_t len,
				 size_t seg_len);
bool mbuf_equals(const struct rte_mbuf *m, const uint8_t *data, size_t len);
void print_diff(const struct rte_mbuf *m, const uint8_t *want,
		size_t want_len);
void batch_of(struct pkt_batch *b, struct rte_mbuf *m);

/* test_vxlan_decap6.c */
void test_decap6_good(void);
void test_decap6_checksum(void);
void test_decap6_refused(void);
void test_decap6_batch(void);

/* test_vxlan_encap.c */
void test_encap_vectors(void);
void test_encap_vector_groups(void);
void test_ip_csum_incremental(void);
void test_udp_src_port(void);
void test_encap_no_headroom(void);
void test_encap_lengths_and_flags(void);
void test_encap6_fields(void);
void test_encap6_csum_zero(void);
void test_encap6_random(void);
void test_encap_mixed_families(void);
void test_encap6_max_inner(void);

/* test_vxlan_decap.c */
void test_decap_vectors(void);
void test_decap_truncated(void);
void test_decap_vxlan_flags(void);
void test_decap_ip_checks(void);
void test_decap_ip_csum_sums(void);
void test_decap_udp_csum(void);
void test_decap_mixed_batch(void);

#endif
