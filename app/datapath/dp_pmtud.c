/* SPDX-License-Identifier: BSD-3-Clause
 * Path MTU discovery for the tunnel (dp_pmtud.h): the checks Linux makes
 * before it answers (iptunnel_pmtud_check_icmp / _icmpv6), the errors it
 * builds (iptunnel_pmtud_build_icmp / _icmpv6), a token bucket per PMD,
 * the counters and the trace. Reached only by packets encap found too
 * long for the underlay (vxlan_encap.c).
 */
#include <string.h>
#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include "dp_pmtud.h"
#include "dp_snapshot.h"
#include "dp_stages.h"
#include "port.h"

#define IPV4_HLEN 20
#define IPV6_HLEN 40
#define ICMP_HLEN 8		/* type, code, checksum, 4 bytes (the MTU) */
#define ICMP4_FRAME (RTE_ETHER_HDR_LEN + IPV4_HLEN + ICMP_HLEN + \
		     PMTUD_ICMP4_QUOTE)				/* 590 */
#define ICMP6_FRAME (RTE_ETHER_HDR_LEN + IPV6_HLEN + ICMP_HLEN + \
		     PMTUD_ICMP6_QUOTE)				/* 1294 */

#define PROTO_ICMP 1
#define PROTO_ICMPV6 58
/* IPv6 extension headers ipv6_skip_exthdr() walks */
#define NH_HOP 0
#define NH_ROUTING 43
#define NH_FRAGMENT 44
#define NH_AUTH 51
#define NH_NONE 59
#define NH_DEST 60

static const char *const verdict_names[] = {
#define X(id, name, text) [DP_PMTUD_##id] = name,
	DP_PMTUD_VERDICTS(X)
#undef X
};

static const char *const verdict_texts[] = {
#define X(id, name, text) [DP_PMTUD_##id] = text,
	DP_PMTUD_VERDICTS(X)
#undef X
};

const char *
dp_pmtud_verdict_name(enum dp_pmtud_verdict v)
{
	return (unsigned)v < DP_PMTUD_N_VERDICTS ? verdict_names[v] : "?";
}

const char *
dp_pmtud_verdict_text(enum dp_pmtud_verdict v)
{
	return (unsigned)v < DP_PMTUD_N_VERDICTS ? verdict_texts[v] : "?";
}

void
dp_set_pmtud(struct dp_ctx *ctx, bool on, uint32_t rate, uint32_t burst)
{
	ctx->pmtud = on;
	arp_policer_init(&ctx->pmtud_policer, rate, burst, rte_get_tsc_hz(),
			 rte_rdtsc());
}

/* ---- the checks --------------------------------------------------------- */

/* icmp_is_err(): destination unreachable, source quench, redirect, time
 * exceeded, parameter problem */
static bool
icmp4_is_err(uint8_t type)
{
	return type == 3 || type == 4 || type == 5 || type == 11 || type == 12;
}

/* iptunnel_pmtud_check_icmp() */
static enum dp_pmtud_verdict
check_ipv4(const struct rte_mbuf *m, uint32_t mtu)
{
	struct rte_ipv4_hdr buf;
	const struct rte_ipv4_hdr *ip;
	uint8_t tbuf;
	const uint8_t *type;

	if (mtu < PMTUD_IPV4_MIN_MTU)
		return DP_PMTUD_SMALL_MTU;
	ip = rte_pktmbuf_read(m, RTE_ETHER_HDR_LEN, sizeof buf, &buf);
	if (!ip || (ip->version_ihl >> 4) != 4 ||
	    (ip->version_ihl & 0xf) < 5)
		return DP_PMTUD_MALFORMED;
	/* DF and nothing else: no fragment, no reserved bit */
	if (ip->fragment_offset != RTE_BE16(RTE_IPV4_HDR_DF_FLAG))
		return DP_PMTUD_NO_DF;

	uint32_t s = rte_be_to_cpu_32(ip->src_addr);
	uint32_t d = rte_be_to_cpu_32(ip->dst_addr);
	if (d == UINT32_MAX || (d >> 28) == 0xe ||	/* bcast, mcast */
	    (s >> 24) == 0 || (s >> 24) == 127 ||	/* zeronet, loopback */
	    s == UINT32_MAX || (s >> 28) == 0xe)
		return DP_PMTUD_ADDRESS;

	if (ip->next_proto_id == PROTO_ICMP) {
		type = rte_pktmbuf_read(m, RTE_ETHER_HDR_LEN +
					(ip->version_ihl & 0xf) * 4u, 1,
					&tbuf);
		if (!type)
			return DP_PMTUD_MALFORMED;
		if (icmp4_is_err(*type))
			return DP_PMTUD_ICMP_ERROR;
	}
	return DP_PMTUD_FRAG_NEEDED;
}

/* ::, ::1 or multicast: ipv6_addr_type()'s ANY, LOOPBACK, MULTICAST */
static bool
ipv6_src_refused(const uint8_t a[16])
{
	static const uint8_t zero[15];

	if (a[0] == 0xff)
		return true;
	return !memcmp(a, zero, sizeof zero) && a[15] <= 1;
}

/* iptunnel_pmtud_check_icmpv6(), with ipv6_skip_exthdr()'s walk */
static enum dp_pmtud_verdict
check_ipv6(const struct rte_mbuf *m, uint32_t mtu)
{
	struct rte_ipv6_hdr buf;
	const struct rte_ipv6_hdr *ip6;
	uint8_t hbuf[4];
	const uint8_t *h;

	if (mtu < PMTUD_IPV6_MIN_MTU)
		return DP_PMTUD_SMALL_MTU;
	ip6 = rte_pktmbuf_read(m, RTE_ETHER_HDR_LEN, sizeof buf, &buf);
	if (!ip6 || (rte_be_to_cpu_32(ip6->vtc_flow) >> 28) != 6)
		return DP_PMTUD_MALFORMED;
	if (ipv6_src_refused(ip6->src_addr))
		return DP_PMTUD_ADDRESS;

	uint8_t proto = ip6->proto;
	uint32_t off = RTE_ETHER_HDR_LEN + IPV6_HLEN;
	/* each header takes 8 bytes at least and a read past the packet
	 * fails: the walk ends */
	for (;;) {
		uint32_t len;

		if (proto != NH_HOP && proto != NH_ROUTING &&
		    proto != NH_FRAGMENT && proto != NH_AUTH &&
		    proto != NH_DEST) {
			if (proto == NH_NONE)	/* Linux: -1, no answer */
				return DP_PMTUD_MALFORMED;
			break;
		}
		h = rte_pktmbuf_read(m, off, sizeof hbuf, hbuf);
		if (!h)
			return DP_PMTUD_MALFORMED;
		if (proto == NH_FRAGMENT) {
			/* an offset: not the first fragment */
			if (((uint16_t)h[2] << 8 | h[3]) & ~7u)
				return DP_PMTUD_FRAGMENT;
			len = 8;
		} else if (proto == NH_AUTH) {
			len = ((uint32_t)h[1] + 2) << 2;
		} else {
			len = ((uint32_t)h[1] + 1) << 3;
		}
		proto = h[0];
		off += len;
	}
	if (proto == PROTO_ICMPV6) {
		h = rte_pktmbuf_read(m, off, 1, hbuf);
		if (!h)
			return DP_PMTUD_MALFORMED;
		if (h[0] < 128 || h[0] == 137)	/* errors, redirect */
			return DP_PMTUD_ICMP_ERROR;
	}
	return DP_PMTUD_TOO_BIG;
}

/* What Linux would answer m with, before the rate and the port. */
static enum dp_pmtud_verdict
check(const struct rte_mbuf *m, uint32_t mtu, const struct flow_key *k)
{
	struct rte_ether_hdr buf;
	const struct rte_ether_hdr *eh;

	if (m->ol_flags & (RTE_MBUF_F_TX_TCP_SEG | RTE_MBUF_F_TX_UDP_SEG))
		return DP_PMTUD_OFFLOAD;
	eh = rte_pktmbuf_read(m, 0, sizeof buf, &buf);
	if (!eh)
		return DP_PMTUD_MALFORMED;
	if (rte_is_multicast_ether_addr(&k->dl_src))
		return DP_PMTUD_ADDRESS;
	if (eh->ether_type == RTE_BE16(RTE_ETHER_TYPE_IPV4))
		return check_ipv4(m, mtu);
	if (eh->ether_type == RTE_BE16(RTE_ETHER_TYPE_IPV6))
		return check_ipv6(m, mtu);
	return DP_PMTUD_NOT_IP;
}

/* ---- the errors --------------------------------------------------------- */

static uint16_t
csum_fold(uint32_t sum)
{
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/* The Ethernet header and the quote (the packet from its IP header on,
 * quote bytes: the packet is longer than the MTU, so longer than that);
 * returns where the quote went. */
static uint8_t *
frame_start(uint8_t *p, const struct rte_mbuf *m, const struct flow_key *k,
	    rte_be16_t type, uint32_t quote_at, uint32_t quote)
{
	struct rte_ether_hdr *eh = (struct rte_ether_hdr *)p;
	uint8_t *q = p + quote_at;
	const void *src = rte_pktmbuf_read(m, RTE_ETHER_HDR_LEN, quote, q);

	if (!src)
		return NULL;
	if (src != q)
		memcpy(q, src, quote);
	eh->dst_addr = k->dl_src;
	eh->src_addr = k->dl_dst;
	eh->ether_type = type;
	return q;
}

/* iptunnel_pmtud_build_icmp() */
static bool
build_frag_needed(uint8_t *p, const struct rte_mbuf *m,
		  const struct flow_key *k, uint16_t mtu)
{
	const uint32_t at = RTE_ETHER_HDR_LEN + IPV4_HLEN + ICMP_HLEN;
	const uint8_t *q = frame_start(p, m, k,
				       RTE_BE16(RTE_ETHER_TYPE_IPV4), at,
				       PMTUD_ICMP4_QUOTE);
	if (!q)
		return false;
	const struct rte_ipv4_hdr *orig = (const struct rte_ipv4_hdr *)q;
	struct rte_ipv4_hdr *ip =
		(struct rte_ipv4_hdr *)(p + RTE_ETHER_HDR_LEN);
	uint8_t *icmp = p + RTE_ETHER_HDR_LEN + IPV4_HLEN;

	icmp[0] = 3;		/* destination unreachable */
	icmp[1] = 4;		/* fragmentation needed and DF set */
	icmp[2] = icmp[3] = 0;
	icmp[4] = icmp[5] = 0;	/* unused */
	icmp[6] = (uint8_t)(mtu >> 8);
	icmp[7] = (uint8_t)mtu;
	/* rte_raw_cksum sums words as loaded: its complement is stored as
	 * it comes (rte_ipv4_cksum does the same) */
	uint16_t c = (uint16_t)~rte_raw_cksum(icmp, ICMP_HLEN +
					      PMTUD_ICMP4_QUOTE);
	memcpy(icmp + 2, &c, 2);

	*ip = (struct rte_ipv4_hdr){
		.version_ihl = RTE_IPV4_VHL_DEF,
		.type_of_service = 0,
		.total_length = RTE_BE16(IPV4_HLEN + ICMP_HLEN +
					 PMTUD_ICMP4_QUOTE),
		.packet_id = 0,
		.fragment_offset = RTE_BE16(RTE_IPV4_HDR_DF_FLAG),
		.time_to_live = orig->time_to_live,
		.next_proto_id = PROTO_ICMP,
		.hdr_checksum = 0,
		.src_addr = orig->dst_addr,
		.dst_addr = orig->src_addr,
	};
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	return true;
}

/* iptunnel_pmtud_build_icmpv6() */
static bool
build_too_big(uint8_t *p, const struct rte_mbuf *m, const struct flow_key *k,
	      uint32_t mtu)
{
	const uint32_t at = RTE_ETHER_HDR_LEN + IPV6_HLEN + ICMP_HLEN;
	const uint32_t len = ICMP_HLEN + PMTUD_ICMP6_QUOTE;
	const uint8_t *q = frame_start(p, m, k,
				       RTE_BE16(RTE_ETHER_TYPE_IPV6), at,
				       PMTUD_ICMP6_QUOTE);
	if (!q)
		return false;
	const struct rte_ipv6_hdr *orig = (const struct rte_ipv6_hdr *)q;
	struct rte_ipv6_hdr *ip6 =
		(struct rte_ipv6_hdr *)(p + RTE_ETHER_HDR_LEN);
	uint8_t *icmp = p + RTE_ETHER_HDR_LEN + IPV6_HLEN;

	ip6->vtc_flow = RTE_BE32(6u << 28);
	ip6->payload_len = rte_cpu_to_be_16((uint16_t)len);
	ip6->proto = PROTO_ICMPV6;
	ip6->hop_limits = orig->hop_limits;
	memcpy(ip6->src_addr, orig->dst_addr, 16);
	memcpy(ip6->dst_addr, orig->src_addr, 16);

	icmp[0] = 2;		/* packet too big */
	icmp[1] = 0;
	icmp[2] = icmp[3] = 0;
	icmp[4] = (uint8_t)(mtu >> 24);
	icmp[5] = (uint8_t)(mtu >> 16);
	icmp[6] = (uint8_t)(mtu >> 8);
	icmp[7] = (uint8_t)mtu;
	/* the pseudo-header (addresses, length, next header) and the
	 * message; 0 stays 0, as csum_ipv6_magic leaves it (not UDP's
	 * 0xffff) */
	uint16_t c = csum_fold((uint32_t)rte_ipv6_phdr_cksum(ip6, 0) +
			       rte_raw_cksum(icmp, len));
	memcpy(icmp + 2, &c, 2);
	return true;
}

/* ---- the stage ---------------------------------------------------------- */

/* The ICMP error for m (verdict v: FRAG_NEEDED or TOO_BIG) in a new
 * mbuf, with m's trace record; NULL when the pool is empty. */
static struct rte_mbuf *
make_error(struct dp_ctx *ctx, const struct rte_mbuf *m,
	   const struct flow_key *k, enum dp_pmtud_verdict v, uint32_t mtu)
{
	uint16_t len = v == DP_PMTUD_FRAG_NEEDED ? ICMP4_FRAME : ICMP6_FRAME;
	struct rte_mbuf *r = rte_pktmbuf_alloc(ctx->mbuf_pool);
	uint8_t *p = r ? (uint8_t *)rte_pktmbuf_append(r, len) : NULL;
	bool ok = p && (v == DP_PMTUD_FRAG_NEEDED ?
			build_frag_needed(p, m, k, (uint16_t)mtu) :
			build_too_big(p, m, k, mtu));

	if (!ok) {
		rte_pktmbuf_free(r);
		return NULL;
	}
	if (unlikely(ctx->trace))
		dp_trace_inherit(r, m);
	return r;
}

void
dp_pmtud(struct dp_ctx *ctx, uint16_t max_inner, struct pkt_batch *b,
	 const struct flow_key keys[], const uint8_t at[])
{
	/* the IP packet that fits: the inner frame less its Ethernet
	 * header (an untagged frame: tagged ones are not answered) */
	const uint32_t mtu = max_inner > RTE_ETHER_HDR_LEN ?
			     max_inner - RTE_ETHER_HDR_LEN : 0;
	bool refilled = false;

	ctx->port_stats[ctx->snap->tnl_idx].tx_dropped += b->n;
	for (uint16_t i = 0; i < b->n; i++) {
		struct rte_mbuf *m = b->pkts[i];
		const struct flow_key *k = keys ? &keys[at[i]] : NULL;
		struct rte_mbuf *err = NULL;
		struct port *in = NULL;
		enum dp_pmtud_verdict v;

		if (!ctx->pmtud) {
			v = DP_PMTUD_OFF;
		} else if (!k) {
			v = DP_PMTUD_NO_PORT;
		} else if ((v = check(m, mtu, k)) == DP_PMTUD_FRAG_NEEDED ||
			   v == DP_PMTUD_TOO_BIG) {
			in = port_by_ofport(k->in_port);
			if (!in || in->kind == PORT_VXLAN) {
				v = DP_PMTUD_NO_PORT;
			} else {
				if (!refilled && ctx->pmtud_policer.cost) {
					arp_policer_refill(&ctx->pmtud_policer,
							   rte_rdtsc());
					refilled = true;
				}
				if (!arp_policer_take(&ctx->pmtud_policer))
					v = DP_PMTUD_POLICED;
				else if (!(err = make_error(ctx, m, k, v, mtu)))
					v = DP_PMTUD_NO_MBUF;
			}
		}
		if (unlikely(ctx->trace))
			dp_trace_pmtud(ctx, m, v, mtu, in ? in->idx : UINT16_MAX);
		if (v == DP_PMTUD_POLICED)
			ctx->stats->pmtud_policed++;
		dp_drop_pkt(ctx, m, DROP_MTU_EXCEEDED);
		if (err) {
			/* a new packet, counted as a copy of the dropped
			 * one's head (dp_stats.h's accounting) */
			ctx->stats->copies++;
			if (v == DP_PMTUD_FRAG_NEEDED)
				ctx->stats->pmtud_frag_needed++;
			else
				ctx->stats->pmtud_too_big++;
			dp_tx_enqueue(ctx, in->idx, &err, 1);
		}
	}
	b->n = 0;
}
