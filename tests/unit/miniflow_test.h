/* SPDX-License-Identifier: BSD-3-Clause
 * What the parts of test_miniflow share: packet builders, mbufs, expected
 * keys and the expect_key()/expect_malformed() checks (test_miniflow.c).
 * Built with -DUNIT_TEST_PARTS: one count for the whole executable.
 */
#ifndef VXS_MINIFLOW_TEST_H
#define VXS_MINIFLOW_TEST_H

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <rte_eal.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "miniflow.h"
#include "unit_test.h"

#define POOL_SIZE 1023
#define PKT_MAX 256
#define RNG_SEED 0x9e3779b97f4a7c15ull
#include "pkt_build.h"

#define IP_SRC 0x0a000001u	/* 10.0.0.1 */
#define IP_DST 0xc0a80102u	/* 192.168.1.2 */

struct ip4 {
	uint8_t version;	/* 0 = 4 */
	uint8_t ihl;		/* 0 = 5; options filled with NOPs */
	uint8_t tos, ttl, proto;
	uint16_t frag;		/* flags | offset, host order */
};

/* Checks that report the line they are called from. */
#define expect_key(what, m, exp) expect_key_(what, __LINE__, m, exp)
#define expect_malformed(what, m) expect_malformed_(what, __LINE__, m)

/* test_miniflow.c: packet bytes, mbufs, keys, checks */
extern struct rte_mempool *pool;
void put_eth(struct pkt *p, uint16_t type);
void put_vlan(struct pkt *p, uint16_t tci, uint16_t inner_type);
uint32_t put_ipv4(struct pkt *p, struct ip4 h);
void ip_set_total(struct pkt *p, uint32_t ip_off);
void put_udp(struct pkt *p, uint16_t sport, uint16_t dport, uint32_t payload);
void put_tcp(struct pkt *p, uint16_t sport, uint16_t dport, uint8_t doff_words,
	     uint32_t options_and_payload);
void put_arp(struct pkt *p, uint16_t htype, uint16_t ptype, uint16_t op);
struct pkt udp_pkt(struct ip4 h, uint16_t sport, uint16_t dport);
struct pkt tcp_pkt(struct ip4 h, uint16_t sport, uint16_t dport);
struct rte_mbuf *mbuf_of(const uint8_t *d, uint32_t len);
struct rte_mbuf *mbuf_split(const uint8_t *d, uint32_t len,
			    const uint32_t *cuts, int n_cuts);
struct rte_mbuf *mbuf_pkt(const struct pkt *p);
void set_metadata(struct flow_key *k, uint32_t port);
struct flow_key l2_key(uint16_t dl_type);
struct flow_key ip_key(uint8_t proto, uint8_t tos, uint8_t ttl);
struct flow_key l4_key(uint8_t proto, uint16_t sport, uint16_t dport);
void print_field_diff(const struct flow_key *got, const struct flow_key *exp);
int extract_dirty(const struct rte_mbuf *m, struct flow_key *k, uint32_t port);
void expect_key_(const char *what, int line, struct rte_mbuf *m,
		 const struct flow_key *exp);
void expect_malformed_(const char *what, int line, struct rte_mbuf *m);

/* test_miniflow_packets.c */
void test_udp_tcp_icmp(void);
void test_tos_ttl(void);
void test_vlan(void);
void test_arp(void);
void test_other_l2(void);
void test_ip_options(void);
void test_fragments(void);
void test_padding(void);

/* test_miniflow_malformed.c */
void test_malformed(void);
void test_multiseg(void);
void test_batch(void);

/* test_miniflow_random.c */
void test_random(void);

/* test_miniflow_ipv6.c: the key of an IPv6 packet from put_ipv6()'s
 * addresses, second line otherwise zero */
struct flow_key ipv6_key(uint8_t proto, uint8_t tclass, uint8_t hlim,
			 uint32_t label);
void test_ipv6(void);

#endif
