/* SPDX-License-Identifier: BSD-3-Clause
 * What ctbench.c and ctbench_threads.c share: the session tuples and the
 * packets that carry them.
 */
#ifndef VXS_CTBENCH_H
#define VXS_CTBENCH_H

#include <stdbool.h>
#include <string.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_tcp.h>
#include <rte_udp.h>
#include "conntrack.h"

#define BURST 32

extern struct rte_mempool *mbufs;

/* xorshift64*: state per thread */
static inline uint32_t
rnd_next(uint64_t *rng)
{
	*rng ^= *rng >> 12;
	*rng ^= *rng << 25;
	*rng ^= *rng >> 27;
	return (uint32_t)((*rng * 0x2545f4914f6cdd1dull) >> 32);
}

/* Session i: 10.(i>>16).x.x:(1024 + i & 0xffff) -> 192.168.0.1:80. */
static inline void
set_tuple(struct rte_mbuf *m, struct ct_pkt_meta *mt, uint32_t i, bool reply)
{
	struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m,
			struct rte_ipv4_hdr *, sizeof(struct rte_ether_hdr));
	rte_be16_t *ports = (rte_be16_t *)(ip + 1);
	rte_be32_t a = rte_cpu_to_be_32(0x0a000000u | (i >> 14));
	rte_be32_t b = rte_cpu_to_be_32(0xc0a80001u);
	rte_be16_t pa = rte_cpu_to_be_16(1024 + (i & 0x3fff));
	rte_be16_t pb = rte_cpu_to_be_16(80);

	ip->src_addr = mt->nw_src = reply ? b : a;
	ip->dst_addr = mt->nw_dst = reply ? a : b;
	ports[0] = mt->tp_src = reply ? pb : pa;
	ports[1] = mt->tp_dst = reply ? pa : pb;
	/* the tracker checks it (as OVS); UDP goes without a checksum (0),
	 * TCP's is made by set_tcp after its fields */
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
}

/* A packet of proto with payload zero bytes after its L4 header. */
static inline struct rte_mbuf *
make_pkt_len(uint8_t proto, struct ct_pkt_meta *mt, uint16_t payload)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mbufs);
	uint16_t l4 = (proto == IPPROTO_TCP ? sizeof(struct rte_tcp_hdr)
					    : sizeof(struct rte_udp_hdr)) +
		      payload;
	uint16_t len = sizeof(struct rte_ether_hdr) +
		       sizeof(struct rte_ipv4_hdr) + l4;
	uint8_t *p = (uint8_t *)rte_pktmbuf_append(m, len);

	memset(p, 0, len);
	((struct rte_ether_hdr *)p)->ether_type =
		rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)
		(p + sizeof(struct rte_ether_hdr));
	ip->version_ihl = 0x45;
	ip->total_length = rte_cpu_to_be_16(sizeof *ip + l4);
	ip->next_proto_id = proto;
	if (proto == IPPROTO_TCP) {
		struct rte_tcp_hdr *t = (struct rte_tcp_hdr *)(ip + 1);
		t->data_off = 5 << 4;
		t->rx_win = rte_cpu_to_be_16(65535);
	} else {
		((struct rte_udp_hdr *)(ip + 1))->dgram_len =
			rte_cpu_to_be_16(sizeof(struct rte_udp_hdr));
	}
	ct_pkt_meta_parse(m, mt);
	return m;
}

static inline struct rte_mbuf *
make_pkt(uint8_t proto, struct ct_pkt_meta *mt)
{
	return make_pkt_len(proto, mt, 0);
}

/* --threads: two lcores on the same tracker (ctbench_threads.c). */
int ctbench_threads(const uint32_t *sizes, int n_sizes, uint64_t lookups);

#endif
