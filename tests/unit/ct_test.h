/* SPDX-License-Identifier: BSD-3-Clause
 * What the conntrack tests share: an EAL without hugepages, a tracker,
 * packets built into mbufs (Ethernet + IPv4 + TCP/UDP/ICMP, correct
 * checksums), and one call that tracks a packet and frees it.
 */
#ifndef VXS_CT_TEST_H
#define VXS_CT_TEST_H

#include <string.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_tcp.h>
#include <rte_udp.h>
#include "conntrack.h"
#include "unit_test.h"

#define IP(a, b, c, d) ((uint32_t)(a) << 24 | (b) << 16 | (c) << 8 | (d))
#define HZ 1000000000ull	/* the tests' tsc: 1 tick = 1 ns */
#define SEC(s) ((uint64_t)(s) * HZ)

#define F_FIN RTE_TCP_FIN_FLAG
#define F_SYN RTE_TCP_SYN_FLAG
#define F_RST RTE_TCP_RST_FLAG
#define F_PSH RTE_TCP_PSH_FLAG
#define F_ACK RTE_TCP_ACK_FLAG

static struct rte_mempool *mbufs;

static inline int
ct_test_init(const char *name)
{
	if (unit_test_eal_init(name, "256") < 0)
		return -1;
	mbufs = rte_pktmbuf_pool_create("ct_test_mbufs", 4095, 64, 0,
					RTE_MBUF_DEFAULT_BUF_SIZE,
					SOCKET_ID_ANY);
	return mbufs ? 0 : -1;
}

static inline struct conntrack *
ct_test_new(const char *name, uint32_t max, struct rte_rcu_qsbr *qsbr)
{
	struct ct_params p = { .max_conns = max, .qsbr = qsbr,
			       .socket_id = SOCKET_ID_ANY, .tsc_hz = HZ,
			       .name = name };
	return conntrack_create(&p);
}

/* An IPv4 packet with l4len bytes of L4 (filled by the caller). */
static inline struct rte_mbuf *
pkt_ip(uint32_t src, uint32_t dst, uint8_t proto, uint16_t l4len,
       uint8_t **l4)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mbufs);
	uint16_t len = sizeof(struct rte_ether_hdr) +
		       sizeof(struct rte_ipv4_hdr) + l4len;
	uint8_t *p = (uint8_t *)rte_pktmbuf_append(m, len);

	memset(p, 0, len);
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)p;
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eth + 1);
	ip->version_ihl = 0x45;
	ip->total_length = rte_cpu_to_be_16(sizeof *ip + l4len);
	ip->time_to_live = 64;
	ip->next_proto_id = proto;
	ip->src_addr = rte_cpu_to_be_32(src);
	ip->dst_addr = rte_cpu_to_be_32(dst);
	*l4 = (uint8_t *)(ip + 1);
	return m;
}

static inline struct rte_ipv4_hdr *
pkt_iph(struct rte_mbuf *m)
{
	return rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *,
				       sizeof(struct rte_ether_hdr));
}

/* Checksums of a finished packet. */
static inline void
pkt_csum(struct rte_mbuf *m)
{
	struct rte_ipv4_hdr *ip = pkt_iph(m);
	void *l4 = ip + 1;

	ip->hdr_checksum = 0;
	if (ip->next_proto_id == IPPROTO_TCP) {
		((struct rte_tcp_hdr *)l4)->cksum = 0;
		((struct rte_tcp_hdr *)l4)->cksum = rte_ipv4_udptcp_cksum(ip, l4);
	} else if (ip->next_proto_id == IPPROTO_UDP) {
		((struct rte_udp_hdr *)l4)->dgram_cksum = 0;
		((struct rte_udp_hdr *)l4)->dgram_cksum =
			rte_ipv4_udptcp_cksum(ip, l4);
	} else if (ip->next_proto_id == IPPROTO_ICMP) {
		uint8_t *icmp = l4;
		uint32_t len = rte_be_to_cpu_16(ip->total_length) - sizeof *ip;
		icmp[2] = icmp[3] = 0;
		uint16_t c = (uint16_t)~rte_raw_cksum(icmp, len);
		memcpy(icmp + 2, &c, 2);
	}
	ip->hdr_checksum = rte_ipv4_cksum(ip);
}

/* Are the packet's IPv4 and L4 checksums right? */
static inline bool
pkt_csum_ok(struct rte_mbuf *m)
{
	struct rte_ipv4_hdr *ip = pkt_iph(m);
	if (rte_ipv4_cksum(ip) != 0 && rte_ipv4_cksum(ip) != 0xffff)
		return false;
	if (ip->next_proto_id == IPPROTO_TCP ||
	    ip->next_proto_id == IPPROTO_UDP)
	{
		/* summing over a correct checksum gives 0xffff */
		uint32_t l4len = rte_be_to_cpu_16(ip->total_length) -
				 sizeof *ip;
		uint32_t sum = rte_raw_cksum(ip + 1, l4len) +
			       rte_ipv4_phdr_cksum(ip, 0);
		sum = (sum & 0xffff) + (sum >> 16);
		sum = (sum & 0xffff) + (sum >> 16);
		return sum == 0xffff;
	}
	if (ip->next_proto_id == IPPROTO_ICMP)
		return rte_raw_cksum(ip + 1, rte_be_to_cpu_16(ip->total_length) -
				     sizeof *ip) == 0xffff;
	return true;
}

/* TCP; wscale >= 0 adds the window scale option; paylen zero bytes. */
static inline struct rte_mbuf *
pkt_tcp(uint32_t src, uint32_t dst, uint16_t sp, uint16_t dp, uint8_t flags,
	uint32_t seq, uint32_t ack, uint16_t win, int wscale, uint16_t paylen)
{
	uint16_t optlen = wscale >= 0 ? 4 : 0;
	uint8_t *l4;
	struct rte_mbuf *m = pkt_ip(src, dst, IPPROTO_TCP,
				    sizeof(struct rte_tcp_hdr) + optlen + paylen,
				    &l4);
	struct rte_tcp_hdr *t = (struct rte_tcp_hdr *)l4;
	t->src_port = rte_cpu_to_be_16(sp);
	t->dst_port = rte_cpu_to_be_16(dp);
	t->sent_seq = rte_cpu_to_be_32(seq);
	t->recv_ack = rte_cpu_to_be_32(ack);
	t->data_off = (uint8_t)(((sizeof *t + optlen) / 4) << 4);
	t->tcp_flags = flags;
	t->rx_win = rte_cpu_to_be_16(win);
	if (optlen) {
		uint8_t *o = (uint8_t *)(t + 1);
		o[0] = 1;	/* NOP */
		o[1] = 3;
		o[2] = 3;
		o[3] = (uint8_t)wscale;
	}
	pkt_csum(m);
	return m;
}

static inline struct rte_mbuf *
pkt_udp(uint32_t src, uint32_t dst, uint16_t sp, uint16_t dp)
{
	uint8_t *l4;
	struct rte_mbuf *m = pkt_ip(src, dst, IPPROTO_UDP, 8 + 16, &l4);
	struct rte_udp_hdr *u = (struct rte_udp_hdr *)l4;
	u->src_port = rte_cpu_to_be_16(sp);
	u->dst_port = rte_cpu_to_be_16(dp);
	u->dgram_len = rte_cpu_to_be_16(8 + 16);
	pkt_csum(m);
	return m;
}

static inline struct rte_mbuf *
pkt_icmp(uint32_t src, uint32_t dst, uint8_t type, uint16_t id)
{
	uint8_t *l4;
	struct rte_mbuf *m = pkt_ip(src, dst, IPPROTO_ICMP, 8 + 8, &l4);
	l4[0] = type;
	l4[4] = id >> 8;
	l4[5] = id & 0xff;
	pkt_csum(m);
	return m;
}

/* An ICMP error (type 3 code 3 by default) from src to dst quoting the
 * IPv4 header and first 8 L4 bytes of q (freed). */
static inline struct rte_mbuf *
pkt_icmp_error(uint32_t src, uint32_t dst, uint8_t type, struct rte_mbuf *q)
{
	uint8_t *l4;
	struct rte_mbuf *m = pkt_ip(src, dst, IPPROTO_ICMP, 8 + 20 + 8, &l4);
	l4[0] = type;
	l4[1] = 3;
	memcpy(l4 + 8, pkt_iph(q), 28);
	rte_pktmbuf_free(q);
	pkt_csum(m);
	return m;
}

/* Tracks m in zone, frees it, returns its ct_state. */
static inline uint8_t
ct_run(struct conntrack *ct, struct rte_mbuf *m, uint16_t zone, bool commit,
       const struct ct_nat_spec *nat, uint64_t now)
{
	struct ct_pkt_meta mt;
	uint8_t st = 0xff;

	if (ct_pkt_meta_parse(m, &mt) == 0)
		st = conntrack_execute_one(ct, m, &mt, zone, commit, nat, now,
					   NULL);
	rte_pktmbuf_free(m);
	return st;
}

#define TRK_NEW (CS_TRACKED | CS_NEW)
#define TRK_EST (CS_TRACKED | CS_ESTABLISHED)
#define TRK_RPL (CS_TRACKED | CS_ESTABLISHED | CS_REPLY_DIR)
#define TRK_INV (CS_TRACKED | CS_INVALID)

/* The dump line of the first session (of zone, -1 all), or "". */
static inline const char *
ct_first_line(struct conntrack *ct, int32_t zone)
{
	static char line[512];
	struct ct_dump_ctx ctx;

	conntrack_dump_start(ct, &ctx, zone);
	if (conntrack_dump_next(ct, &ctx, line, sizeof line) <= 0)
		line[0] = 0;
	return line;
}

#endif
