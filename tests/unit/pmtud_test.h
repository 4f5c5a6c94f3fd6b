/* SPDX-License-Identifier: BSD-3-Clause
 * What test_pmtud.c builds on its own, apart from what it tests: the rig's
 * ports and addresses, the Internet checksum (RFC 1071) and the frames it
 * sends and expects (an ICMP "fragmentation needed" and an ICMPv6 "packet
 * too big" made from RFC 792/1191/4443 and Linux's
 * iptunnel_pmtud_build_icmp, not from app/datapath/dp_pmtud.c). For that
 * one test only: its definitions are static.
 *
 * Include after unit_test.h and pipeline_rig.h.
 */
#ifndef VXS_TEST_PMTUD_TEST_H
#define VXS_TEST_PMTUD_TEST_H

#include <stdint.h>
#include <string.h>
#include <rte_mbuf.h>
#include "port.h"

#define N_VMS 3
#define VNI 1001
#define MTU 1450		/* 1500 underlay - 50 */
#define MAX_INNER 1464		/* 1514 - 50 */
#define FRAME_MAX 2048

static struct rte_mempool *pool;
static struct port *nic, *vm_port[N_VMS], *vxlan;
static struct pmd *pmd;
static struct vxs_config cfg;

static const uint8_t remote_mac[6] = { 0x0a, 0, 0, 0, 0, 0x01 };
static const uint8_t vtep_mac[6] = { 0x10, 0, 0, 0, 0, 1 };
static const uint8_t remote_vtep_mac[6] = { 0x10, 0, 0, 0, 0, 2 };

static int
write_topology(char *path, size_t len)
{
	FILE *f = pipeline_rig_topology(path, len, "test_pmtud",
					"  pmtud-rate: 2000\n"
					"  pmtud-burst: 64\n");
	if (!f)
		return -1;
	for (int i = 0; i < N_VMS; i++)
		fprintf(f, "  - {name: vm%d, type: dpdk, "
			   "devargs: net_ring_ptvm%d}\n", i, i);
	fprintf(f, "  - {name: vxlan, type: vxlan, options: {remote_ip: flow,"
		   " local_ip: flow, key: flow, vnis: [%d]}}\n"
		   "  - {name: phy, type: dpdk, devargs: net_ring_ptphy}\n"
		   "flows:\n", VNI);
	/* vm0: into the tunnel */
	fprintf(f, "  - in_port=vm0,actions=set_tunnel:%d,"
		   "set_field:172.1.0.0->tun_dst,"
		   "set_field:172.1.0.100->tun_src,output:vxlan\n", VNI);
	/* vm1: into the tunnel (a copy: not the last output), then vm2 */
	fprintf(f, "  - in_port=vm1,actions=set_tunnel:%d,"
		   "set_field:172.1.0.0->tun_dst,"
		   "set_field:172.1.0.100->tun_src,output:vxlan,output:vm2\n",
		VNI);
	/* from the tunnel: back into it (a hairpin through the VTEP) */
	fprintf(f, "  - in_port=vxlan,actions=set_field:172.1.0.0->tun_dst,"
		   "set_field:172.1.0.100->tun_src,in_port\n");
	return fclose(f);
}

/* ---- checksums, on their own (RFC 1071, big-endian words) --------------- */

static uint32_t
sum16(const uint8_t *p, size_t n, uint32_t s)
{
	for (size_t i = 0; i + 1 < n; i += 2)
		s += (uint32_t)p[i] << 8 | p[i + 1];
	if (n & 1)
		s += (uint32_t)p[n - 1] << 8;
	return s;
}

static void
put_csum(uint8_t *at, uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	s = ~s & 0xffff;
	at[0] = (uint8_t)(s >> 8);
	at[1] = (uint8_t)s;
}

static void
put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* ---- frames ------------------------------------------------------------- */

static const uint8_t vm_ip[4] = { 192, 1, 0, 10 };
static const uint8_t far_ip[4] = { 192, 2, 0, 1 };
static const uint8_t vm_ip6[16] = { 0xfd, 0, 0, 0, 0, 0, 0, 0,
				    0, 0, 0, 0, 0, 0, 0, 0x10 };
static const uint8_t far_ip6[16] = { 0xfd, 0, 0, 2, 0, 0, 0, 0,
				     0, 0, 0, 0, 0, 0, 0, 0x01 };

/* The Ethernet header VM vm sends with: to the remote host's MAC. */
static void
eth(uint8_t *p, int vm, uint16_t type)
{
	memcpy(p, remote_mac, 6);
	const uint8_t src[6] = { 0x52, 0x54, 0, 0, 0, (uint8_t)(0x10 + vm) };
	memcpy(p + 6, src, 6);
	put16(p + 12, type);
}

struct v4 {
	uint16_t frag;		/* flags and offset, host order */
	uint8_t proto, ttl;
	int icmp_type;		/* ICMP: its type */
	uint8_t src[4], dst[4];
};

/* VM vm's IPv4 frame of len bytes. */
static size_t
frame4(uint8_t *p, int vm, uint16_t len, const struct v4 *v)
{
	uint8_t *ip = p + 14;

	eth(p, vm, 0x0800);
	for (size_t i = 14; i < len; i++)
		p[i] = (uint8_t)(i * 7 + vm);
	ip[0] = 0x45;
	ip[1] = 0x28;		/* a TOS: the error's is 0 */
	put16(ip + 2, (uint16_t)(len - 14));
	put16(ip + 4, 0x1234);
	put16(ip + 6, v->frag);
	ip[8] = v->ttl;
	ip[9] = v->proto;
	ip[10] = ip[11] = 0;
	memcpy(ip + 12, v->src, 4);
	memcpy(ip + 16, v->dst, 4);
	put_csum(ip + 10, sum16(ip, 20, 0));
	if (v->proto == 1) {
		ip[20] = (uint8_t)v->icmp_type;
		ip[21] = 0;
	} else if (v->proto == 6) {
		ip[32] = 0x50;		/* a TCP header of 20 bytes, ACK */
		ip[33] = 0x10;
	}
	return len;
}

static struct v4
tcp4(void)
{
	struct v4 v = { .frag = 0x4000, .proto = 6, .ttl = 61 };
	memcpy(v.src, vm_ip, 4);
	memcpy(v.dst, far_ip, 4);
	return v;
}

/* The ICMP error Linux makes for orig (an IPv4 frame from VM vm). */
static size_t
expect_frag_needed(uint8_t *e, const uint8_t *orig, uint16_t mtu)
{
	const uint8_t *oip = orig + 14;
	uint8_t *ip = e + 14, *icmp = e + 34;

	memcpy(e, orig + 6, 6);		/* to the sender */
	memcpy(e + 6, orig, 6);		/* from whom it sent to */
	put16(e + 12, 0x0800);
	memset(ip, 0, 20);
	ip[0] = 0x45;
	put16(ip + 2, 576);
	put16(ip + 6, 0x4000);		/* DF, id 0 */
	ip[8] = oip[8];			/* its TTL */
	ip[9] = 1;
	memcpy(ip + 12, oip + 16, 4);
	memcpy(ip + 16, oip + 12, 4);
	put_csum(ip + 10, sum16(ip, 20, 0));
	memset(icmp, 0, 8);
	icmp[0] = 3;
	icmp[1] = 4;
	put16(icmp + 6, mtu);
	memcpy(icmp + 8, oip, 548);
	put_csum(icmp + 2, sum16(icmp, 8 + 548, 0));
	return 14 + 576;
}

struct v6 {
	uint8_t src[16], dst[16];
	uint8_t hlim;
	const uint8_t *ext;	/* extension headers, then the upper layer */
	size_t ext_len;
	uint8_t first_nh;	/* the IPv6 header's next header */
};

/* VM vm's IPv6 frame of len bytes: the header, v->ext, a pattern. */
static size_t
frame6(uint8_t *p, int vm, uint16_t len, const struct v6 *v)
{
	uint8_t *ip = p + 14;

	eth(p, vm, 0x86dd);
	for (size_t i = 14; i < len; i++)
		p[i] = (uint8_t)(i * 5 + vm);
	ip[0] = 0x6b;		/* version 6, traffic class 0xb7 */
	ip[1] = 0x71;		/* flow label 0x12345 */
	ip[2] = 0x23;
	ip[3] = 0x45;
	put16(ip + 4, (uint16_t)(len - 54));
	ip[6] = v->first_nh;
	ip[7] = v->hlim;
	memcpy(ip + 8, v->src, 16);
	memcpy(ip + 24, v->dst, 16);
	memcpy(ip + 40, v->ext, v->ext_len);
	return len;
}

static const uint8_t tcp_hdr[20] = { 0x9c, 0x40, 0x13, 0x89,
				     [12] = 0x50, [13] = 0x10 };

static struct v6
tcp6(void)
{
	struct v6 v = { .hlim = 63, .ext = tcp_hdr, .ext_len = sizeof tcp_hdr,
			.first_nh = 6 };
	memcpy(v.src, vm_ip6, 16);
	memcpy(v.dst, far_ip6, 16);
	return v;
}

/* The ICMPv6 error Linux makes for orig (an IPv6 frame from VM vm). */
static size_t
expect_too_big(uint8_t *e, const uint8_t *orig, uint32_t mtu)
{
	const uint8_t *oip = orig + 14;
	uint8_t *ip = e + 14, *icmp = e + 54;
	uint8_t ph[40];

	memcpy(e, orig + 6, 6);
	memcpy(e + 6, orig, 6);
	put16(e + 12, 0x86dd);
	memset(ip, 0, 40);
	ip[0] = 0x60;
	put16(ip + 4, 8 + 1232);
	ip[6] = 58;
	ip[7] = oip[7];			/* its hop limit */
	memcpy(ip + 8, oip + 24, 16);
	memcpy(ip + 24, oip + 8, 16);
	memset(icmp, 0, 8);
	icmp[0] = 2;
	icmp[4] = (uint8_t)(mtu >> 24);
	icmp[5] = (uint8_t)(mtu >> 16);
	icmp[6] = (uint8_t)(mtu >> 8);
	icmp[7] = (uint8_t)mtu;
	memcpy(icmp + 8, oip, 1232);
	/* pseudo-header: addresses, upper-layer length, next header */
	memcpy(ph, ip + 8, 32);
	ph[32] = ph[33] = 0;
	put16(ph + 34, 8 + 1232);
	ph[36] = ph[37] = ph[38] = 0;
	ph[39] = 58;
	put_csum(icmp + 2, sum16(icmp, 8 + 1232, sum16(ph, 40, 0)));
	return 14 + 1280;
}

static struct rte_mbuf *
mbuf_of(const uint8_t *p, size_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint8_t *d = m ? (uint8_t *)rte_pktmbuf_append(m, (uint16_t)len)
		       : NULL;
	if (d)
		memcpy(d, p, len);
	return m;
}

/* The same in two segments, the first of split bytes (the headers and
 * the quote cross the boundary: read, not assumed contiguous). */
static struct rte_mbuf *
mbuf_chain_of(const uint8_t *p, size_t len, size_t split)
{
	struct rte_mbuf *h = mbuf_of(p, split), *t = mbuf_of(p + split,
							     len - split);
	if (!h || !t || rte_pktmbuf_chain(h, t)) {
		rte_pktmbuf_free(h);
		rte_pktmbuf_free(t);
		return NULL;
	}
	return h;
}

/* VXLAN from the remote VTEP carrying inner (len bytes). */
static struct rte_mbuf *
vxlan_of(const uint8_t *inner, size_t len)
{
	uint8_t f[FRAME_MAX];
	uint8_t *ip = f + 14, *udp = f + 34, *vx = f + 42;

	memcpy(f, vtep_mac, 6);
	memcpy(f + 6, remote_vtep_mac, 6);
	put16(f + 12, 0x0800);
	memset(ip, 0, 20);
	ip[0] = 0x45;
	put16(ip + 2, (uint16_t)(36 + len));
	ip[8] = 64;
	ip[9] = 17;
	const uint8_t s[4] = { 172, 1, 0, 0 }, d[4] = { 172, 1, 0, 100 };
	memcpy(ip + 12, s, 4);
	memcpy(ip + 16, d, 4);
	put_csum(ip + 10, sum16(ip, 20, 0));
	put16(udp, 40000);
	put16(udp + 2, 4789);
	put16(udp + 4, (uint16_t)(16 + len));
	put16(udp + 6, 0);
	memset(vx, 0, 8);
	vx[0] = 0x08;
	vx[4] = VNI >> 16;
	vx[5] = (VNI >> 8) & 0xff;
	vx[6] = VNI & 0xff;
	memcpy(f + 50, inner, len);
	return mbuf_of(f, 50 + len);
}

#endif
