/* SPDX-License-Identifier: BSD-3-Clause
 * dpbench's synthetic traffic (dpbench.c runs it; the flows and frames are
 * described at its top): scripts/gen-traffic.py's packets, built as per-VM
 * templates and per-flow patches before the measured runs, and copied into
 * fresh mbufs one burst at a time outside the measured cycles. With
 * --ipv6 the inner frames are eth/ipv6/udp of the same length (VM i is
 * fd00:1::i, remote end j is fd00:2::(j / 1024), the same ports), the
 * outer header as ever.
 */
#include <stdlib.h>
#include <string.h>
#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_hash_crc.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_memcpy.h>
#include <rte_udp.h>
#include "dpbench.h"
#include "pmd.h"

#define PKT_LEN 128			/* outer frame */
#define OUTER_LEN 50			/* eth + ip + udp + vxlan */
#define INNER_LEN (PKT_LEN - OUTER_LEN)	/* 78: the VM's frame */
#define VM_PORT 5001
#define REMOTE_PORT_BASE 40000
#define FLOWS_PER_REMOTE_IP 1024

/* Offsets in the outer frame; the inner frame is at OUTER_LEN. */
#define O_IP 14
#define O_UDP (O_IP + 20)
#define I_IP 14
#define I_UDP (I_IP + 20)

struct flow_patch {			/* what differs between flows */
	rte_be32_t remote_ip;
	rte_be16_t remote_port;
	rte_be16_t outer_sport;		/* decap: from the inner 5-tuple */
	rte_be16_t ip_csum_decap;	/* inner IPv4 checksum, NIC side
					 * (--ipv6: the UDP checksum, which
					 * IPv6 requires and sg() checks) */
	rte_be16_t ip_csum_encap;	/* VM's IPv4 (UDP) checksum */
	rte_be16_t outer_csum6;		/* --underlay6: the outer UDP's */
};

/* --underlay6: the decap frames' outer header, eth/ipv6/udp/vxlan from
 * the remote VTEP fd00:172:: to ours, fd00:172::100 (dpbench_topo.c),
 * in front of the same inner frames; the UDP source port and checksum
 * per flow. */
#define OUTER6_LEN 70
#define O6_UDP (14 + 40)
static bool outer6;
static uint8_t outer6_tmpl[OUTER6_LEN];

/* IPv6 inner frames: the addresses' last word is what differs */
#define I6_SRC_LOW (I_IP + 8 + 12)
#define I6_DST_LOW (I_IP + 24 + 12)
#define I6_UDP (I_IP + 40)

static struct flow_patch *patches;
static uint32_t n_patches;
static uint8_t decap_tmpl[N_VMS][PKT_LEN];
static uint8_t encap_tmpl[N_VMS][INNER_LEN];
static bool inner_ipv6;

static rte_be32_t
vm_ip(int i)
{
	return rte_cpu_to_be_32(IPV4_HOST(192, 1, 0, i));
}

static void
vm_mac(int i, struct rte_ether_addr *m)
{
	*m = (struct rte_ether_addr){ { 0x52, 0x54, 0, 0, i >> 8, i & 0xff } };
}

static void
put_eth(uint8_t *p, const struct rte_ether_addr *dst,
	const struct rte_ether_addr *src)
{
	struct rte_ether_hdr *e = (struct rte_ether_hdr *)p;
	e->dst_addr = *dst;
	e->src_addr = *src;
	e->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
}

static void
put_ip_udp(uint8_t *p, uint16_t ip_len, rte_be32_t src, rte_be32_t dst,
	   uint16_t sport, uint16_t dport, bool df)
{
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)p;
	struct rte_udp_hdr *u = (struct rte_udp_hdr *)(ip + 1);

	memset(ip, 0, sizeof *ip);
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->total_length = rte_cpu_to_be_16(ip_len);
	ip->fragment_offset = df ? rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG) : 0;
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = src;
	ip->dst_addr = dst;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	u->src_port = rte_cpu_to_be_16(sport);
	u->dst_port = rte_cpu_to_be_16(dport);
	u->dgram_len = rte_cpu_to_be_16(ip_len - 20);
	u->dgram_cksum = 0;	/* none: the switch does not look at it */
}

/* eth/ipv6/udp from ::src_low to ::dst_low (fd00:1::/fd00:2:: by the
 * caller's prefixes), frame of INNER_LEN bytes */
static void
put_ip6_udp(uint8_t *p, const uint8_t src_pfx[2], uint32_t src_low,
	    const uint8_t dst_pfx[2], uint32_t dst_low, uint16_t sport,
	    uint16_t dport)
{
	uint16_t plen = INNER_LEN - I_IP - 40;
	struct rte_udp_hdr *u = (struct rte_udp_hdr *)(p + 40);
	rte_be32_t s = rte_cpu_to_be_32(src_low), d = rte_cpu_to_be_32(dst_low);

	memset(p, 0, 40);
	p[0] = 0x60;
	p[4] = plen >> 8;
	p[5] = plen & 0xff;
	p[6] = IPPROTO_UDP;
	p[7] = 64;
	memcpy(p + 8, src_pfx, 2);
	memcpy(p + 20, &s, 4);
	memcpy(p + 24, dst_pfx, 2);
	memcpy(p + 36, &d, 4);
	u->src_port = rte_cpu_to_be_16(sport);
	u->dst_port = rte_cpu_to_be_16(dport);
	u->dgram_len = rte_cpu_to_be_16(plen);
	u->dgram_cksum = 0;
}

static void
build_templates6(void)
{
	static const uint8_t vm_pfx[2] = { 0xfd, 0 }, remote_pfx[2] = { 0xfd, 0 };
	const struct rte_ether_addr remote = { { 0xa0, 0, 0, 0, 0, 2 } };

	for (int i = 0; i < N_VMS; i++) {
		struct rte_ether_addr vm;
		uint8_t *d = decap_tmpl[i] + OUTER_LEN, *e = encap_tmpl[i];

		vm_mac(i, &vm);
		/* fd00:1::i and fd00:2::0: the prefixes' second word */
		put_eth(d, &vm, &remote);
		d[12] = 0x86, d[13] = 0xdd;
		put_ip6_udp(d + I_IP, remote_pfx, 0, vm_pfx, (uint32_t)i,
			    REMOTE_PORT_BASE, VM_PORT);
		d[I_IP + 8 + 3] = 2, d[I_IP + 24 + 3] = 1;
		put_eth(e, &remote, &vm);
		e[12] = 0x86, e[13] = 0xdd;
		put_ip6_udp(e + I_IP, vm_pfx, (uint32_t)i, remote_pfx, 0,
			    VM_PORT, REMOTE_PORT_BASE);
		e[I_IP + 8 + 3] = 1, e[I_IP + 24 + 3] = 2;
	}
}

static void
build_templates(void)
{
	const struct rte_ether_addr vtep = { { 0x10, 0, 0, 0, 0, 1 } },
		remote_vtep = { { 0x10, 0, 0, 0, 0, 2 } },
		remote = { { 0xa0, 0, 0, 0, 0, 2 } };
	rte_be32_t remote_ip0 = rte_cpu_to_be_32(IPV4_HOST(192, 2, 0, 0));

	for (int i = 0; i < N_VMS; i++) {
		struct rte_ether_addr vm;
		uint8_t *d = decap_tmpl[i], *e = encap_tmpl[i];

		vm_mac(i, &vm);
		put_eth(d, &vtep, &remote_vtep);
		put_ip_udp(d + O_IP, PKT_LEN - O_IP,
			   rte_cpu_to_be_32(IPV4_HOST(172, 1, 0, 0)),
			   rte_cpu_to_be_32(IPV4_HOST(172, 1, 0, 100)), 49152,
			   4789, true);
		d[O_UDP + 8] = 0x08;			/* VXLAN flags: I */
		d[O_UDP + 12] = VNI >> 16;
		d[O_UDP + 13] = (VNI >> 8) & 0xff;
		d[O_UDP + 14] = VNI & 0xff;
		put_eth(d + OUTER_LEN, &vm, &remote);
		put_ip_udp(d + OUTER_LEN + I_IP, INNER_LEN - I_IP, remote_ip0,
			   vm_ip(i), REMOTE_PORT_BASE, VM_PORT, false);

		put_eth(e, &remote, &vm);
		put_ip_udp(e + I_IP, INNER_LEN - I_IP, vm_ip(i), remote_ip0,
			   VM_PORT, REMOTE_PORT_BASE, false);
	}
}

/* murmur3's finaliser over CRC32 of the inner 5-tuple, then Linux's
 * udp_flow_src_port() range mapping (as gen-traffic.py). */
static uint16_t
outer_sport(rte_be32_t src, rte_be32_t dst, uint16_t sp, uint16_t dp)
{
	uint32_t h = rte_hash_crc_4byte(src, 0);
	h = rte_hash_crc_4byte(dst, h);
	h = rte_hash_crc_4byte((uint32_t)sp << 16 | dp, h);
	h ^= h >> 16;
	h *= 0x85ebca6b;
	h ^= h >> 13;
	h *= 0xc2b2ae35;
	h ^= h >> 16;
	h ^= h << 16;
	return (uint16_t)(((uint64_t)h * 16384) >> 32) + 49152;
}

uint16_t
traffic_outer_sport(rte_be32_t src, rte_be32_t dst, uint16_t sp, uint16_t dp)
{
	return outer_sport(src, dst, sp, dp);
}

const uint8_t *
traffic_decap_template(int vm)
{
	return decap_tmpl[vm];
}

static int
build_patches(uint32_t n)
{
	patches = malloc((size_t)n * sizeof *patches);
	if (!patches)
		return -1;
	n_patches = n;
	for (uint32_t f = 0; f < n; f++) {
		int vm = f % N_VMS;
		uint32_t j = f / N_VMS;
		struct flow_patch *p = &patches[f];
		uint8_t hdr[20];
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)hdr;

		p->remote_ip = rte_cpu_to_be_32(IPV4_HOST(192, 2, 0, 0) +
						j / FLOWS_PER_REMOTE_IP);
		uint16_t rport = REMOTE_PORT_BASE + j % FLOWS_PER_REMOTE_IP;
		p->remote_port = rte_cpu_to_be_16(rport);
		p->outer_sport = rte_cpu_to_be_16(
			outer_sport(p->remote_ip, vm_ip(vm), rport, VM_PORT));
		memcpy(hdr, decap_tmpl[vm] + OUTER_LEN + I_IP, 20);
		ip->src_addr = p->remote_ip;
		ip->hdr_checksum = 0;
		p->ip_csum_decap = rte_ipv4_cksum(ip);
		memcpy(hdr, encap_tmpl[vm] + I_IP, 20);
		ip->dst_addr = p->remote_ip;
		ip->hdr_checksum = 0;
		p->ip_csum_encap = rte_ipv4_cksum(ip);
	}
	return 0;
}

/* Flow f's decap frame at d: the template, the outer source port, the
 * inner remote's address and port and their checksum; over an IPv6
 * underlay the outer header first, its UDP checksum last. Returns the
 * frame's length. */
static inline uint16_t
decap_frame(uint8_t *d, uint32_t f, const struct flow_patch *p)
{
	uint8_t *in = d + (outer6 ? OUTER6_LEN : OUTER_LEN);

	if (outer6) {
		memcpy(d, outer6_tmpl, OUTER6_LEN);
		rte_memcpy(in, decap_tmpl[f % N_VMS] + OUTER_LEN, INNER_LEN);
		memcpy(d + O6_UDP, &p->outer_sport, 2);
		memcpy(d + O6_UDP + 6, &p->outer_csum6, 2);
	} else {
		rte_memcpy(d, decap_tmpl[f % N_VMS], PKT_LEN);
		memcpy(d + O_UDP, &p->outer_sport, 2);
	}
	if (inner_ipv6) {
		memcpy(in + I6_SRC_LOW, &p->remote_ip, 4);
		memcpy(in + I6_UDP, &p->remote_port, 2);
		memcpy(in + I6_UDP + 6, &p->ip_csum_decap, 2);
	} else {
		memcpy(in + I_IP + 10, &p->ip_csum_decap, 2);
		memcpy(in + I_IP + 12, &p->remote_ip, 4);
		memcpy(in + I_UDP, &p->remote_port, 2);
	}
	return (uint16_t)((outer6 ? OUTER6_LEN : OUTER_LEN) + INNER_LEN);
}

/* The outer IPv6 header of --underlay6 (flow label 0, hop limit 64, as
 * vxswitch and OVS write theirs), and each flow's UDP checksum: the
 * whole frame built, then summed. */
static void
build_outer6(uint32_t max_flows)
{
	static const uint8_t remote_vtep[6] = { 0x10, 0, 0, 0, 0, 2 },
		vtep[6] = { 0x10, 0, 0, 0, 0, 1 };
	uint8_t *o = outer6_tmpl, frame[OUTER6_LEN + INNER_LEN];
	const uint16_t plen = 8 + 8 + INNER_LEN;

	memset(o, 0, OUTER6_LEN);
	memcpy(o, vtep, 6);
	memcpy(o + 6, remote_vtep, 6);
	o[12] = 0x86, o[13] = 0xdd;
	o[14] = 0x60;
	o[18] = plen >> 8, o[19] = plen & 0xff;
	o[20] = IPPROTO_UDP;
	o[21] = 64;
	o[22] = 0xfd, o[24] = 0x01, o[25] = 0x72;	/* fd00:172:: */
	o[38] = 0xfd, o[40] = 0x01, o[41] = 0x72;	/* fd00:172::100 */
	o[52] = 0x01;
	o[O6_UDP + 2] = 4789 >> 8, o[O6_UDP + 3] = 4789 & 0xff;
	o[O6_UDP + 4] = plen >> 8, o[O6_UDP + 5] = plen & 0xff;
	o[O6_UDP + 8] = 0x08;				/* VXLAN flags: I */
	o[O6_UDP + 12] = VNI >> 16;
	o[O6_UDP + 13] = (VNI >> 8) & 0xff;
	o[O6_UDP + 14] = VNI & 0xff;
	for (uint32_t f = 0; f < max_flows; f++) {
		struct flow_patch *p = &patches[f];

		p->outer_csum6 = 0;
		decap_frame(frame, f, p);
		p->outer_csum6 = rte_ipv6_udptcp_cksum(
			(const struct rte_ipv6_hdr *)(frame + 14),
			frame + O6_UDP);
	}
}

static inline uint32_t
next_flow(struct traffic *t)
{
	if (t->dir == DIR_DECAP)
		return (t->k++ / t->src->run) % t->flows;
	uint32_t per_vm = (t->flows + N_VMS - 1 - t->vm) / N_VMS;
	if (!per_vm)
		per_vm = 1;
	uint32_t j = (t->vm_k[t->vm]++ / t->src->run) % per_vm;
	return (j * N_VMS + t->vm) % t->flows;
}

int
traffic_refill(struct traffic *t, struct pkt_batch *b, struct port **in)
{
	if (rte_pktmbuf_alloc_bulk(pktmbuf_pool, b->pkts, BATCH_MAX))
		return -1;
	b->n = BATCH_MAX;
	if (t->dir == DIR_ENCAP) {
		/* One VM per burst, as a vhost rxq gives them. */
		t->vm = (t->vm + 1) % N_VMS;
		if (t->vm >= t->flows)
			t->vm = 0;
		*in = t->src->vm_port[t->vm];
	} else {
		*in = t->src->nic_port;
	}
	for (int i = 0; i < BATCH_MAX; i++) {
		struct rte_mbuf *m = b->pkts[i];
		uint32_t f = next_flow(t);
		const struct flow_patch *p = &patches[f];
		uint8_t *d = rte_pktmbuf_mtod(m, uint8_t *);

		if (t->dir == DIR_DECAP) {
			m->data_len = m->pkt_len = decap_frame(d, f, p);
			if (t->src->rx_csum_good)
				m->ol_flags |= RTE_MBUF_F_RX_IP_CKSUM_GOOD;
		} else {
			rte_memcpy(d, encap_tmpl[f % N_VMS], INNER_LEN);
			m->data_len = m->pkt_len = INNER_LEN;
			if (inner_ipv6) {
				memcpy(d + I6_DST_LOW, &p->remote_ip, 4);
				memcpy(d + I6_UDP + 2, &p->remote_port, 2);
				memcpy(d + I6_UDP + 6, &p->ip_csum_encap, 2);
				continue;
			}
			memcpy(d + I_IP + 10, &p->ip_csum_encap, 2);
			memcpy(d + I_IP + 16, &p->remote_ip, 4);
			memcpy(d + I_UDP + 2, &p->remote_port, 2);
		}
	}
	if (t->src->marker && t->dir == DIR_DECAP)
		fdir_model_rx_mark(t->src->marker, 0, b->pkts, b->n);
	return 0;
}

/* The UDP checksum of a flow's IPv6 frame: the template's, with the
 * remote's address word (at addr_ofs) and port patched in */
static rte_be16_t
udp6_csum(const uint8_t *tmpl, uint32_t addr_ofs, const struct flow_patch *p)
{
	uint8_t f[INNER_LEN];
	bool decap = addr_ofs == I6_SRC_LOW;

	memcpy(f, tmpl, INNER_LEN);
	memcpy(f + addr_ofs, &p->remote_ip, 4);
	memcpy(f + I6_UDP + (decap ? 0 : 2), &p->remote_port, 2);
	memset(f + I6_UDP + 6, 0, 2);
	return rte_ipv6_udptcp_cksum((const struct rte_ipv6_hdr *)(f + I_IP),
				     f + I6_UDP);
}

int
traffic_build(uint32_t max_flows, bool ipv6, bool underlay6)
{
	build_templates();
	inner_ipv6 = ipv6;
	if (ipv6)	/* the outer headers stay; the inner frames change */
		build_templates6();
	if (build_patches(max_flows))
		return -1;
	if (ipv6)	/* the remote's last address word: j / 1024 */
		for (uint32_t f = 0; f < max_flows; f++) {
			struct flow_patch *p = &patches[f];
			p->remote_ip = rte_cpu_to_be_32(
				f / N_VMS / FLOWS_PER_REMOTE_IP);
			p->ip_csum_decap = udp6_csum(decap_tmpl[f % N_VMS] +
						     OUTER_LEN, I6_SRC_LOW,
						     p);
			p->ip_csum_encap = udp6_csum(encap_tmpl[f % N_VMS],
						     I6_DST_LOW, p);
		}
	outer6 = underlay6;
	if (underlay6)
		build_outer6(max_flows);
	return 0;
}

void
traffic_free(void)
{
	free(patches);
	patches = NULL;
}
