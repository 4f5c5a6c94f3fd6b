/* SPDX-License-Identifier: BSD-3-Clause
 * VXLAN decapsulation of a batch: the DP_ACT_TNL_POP stage.
 */
#ifndef VXS_VXLAN_DECAP_H
#define VXS_VXLAN_DECAP_H

#include <stdint.h>
#include <rte_mbuf.h>
#include <rte_mbuf_ptype.h>
#include "flow_key.h"
#include "pkt_batch.h"

/* Outer Ethernet + IPv4 without options + UDP + VXLAN + inner Ethernet:
 * nothing shorter can be a VXLAN packet worth delivering. */
#define VXLAN_DECAP_MIN_LEN (RTE_ETHER_HDR_LEN + 20 + 8 + 8 + RTE_ETHER_HDR_LEN)

/* Strips the outer headers off every packet of b. The megaflow that sent
 * them here matched our VTEP address and UDP port; this re-reads the outer
 * headers from the packet itself (one optional 802.1Q/802.1ad tag, IPv4
 * options) and checks what a receiving VTEP must:
 *   - the outer headers and the inner Ethernet header are in the first
 *     segment, and the IPv4 and UDP lengths fit the packet;
 *   - IPv4 version 4, IHL >= 5, not a fragment (no reassembly here);
 *   - VXLAN flags exactly I (0x08) and the 24 reserved bits after them zero
 *     (as Linux's vxlan_rcv; the reserved byte after the VNI is ignored,
 *     as RFC 7348 says);
 *   - the IPv4 header checksum, and the UDP checksum when non-zero, verify
 *     unless the NIC already verified that header (RX offload flags).
 * Packets failing any check are moved unchanged to the end of *bad (which
 * must have room for b->n more), order kept; the caller counts them as
 * DROP_BAD_VXLAN.
 *
 * Each good packet loses its outer headers (and any bytes past the UDP
 * length, e.g. Ethernet padding) and its key is rewritten for the inner
 * lookup: in_port = tnl_ofport, tun_id = VNI, tun_src/tun_dst = outer IPv4
 * addresses, every other word zero for the caller to re-extract into.
 * keys[] on input need not hold anything; it is compacted with b->pkts[].
 *
 * Returns the number of packets moved to *bad. */
uint16_t vxlan_decap_batch(struct pkt_batch *b, struct flow_key keys[],
			   uint32_t tnl_ofport, struct pkt_batch *bad);

/* vxlan_decap_batch for the tnl_pop stage (decap-trust-outer), with the
 * inner key's extraction in the same loop: every packet of b came with a
 * key that matched a tnl_pop megaflow, so IPv4, UDP and "not a fragment"
 * are not checked again; the rest is, with the same verdicts, bad packets
 * moved to *bad as above. A good packet whose inner frame is malformed is
 * moved, decapsulated, to *malformed (which must have room for b->n
 * more); the rest have keys[] as miniflow_extract_batch(fast) would give
 * after vxlan_decap_batch. keys[] is written, never read. Returns the
 * bytes of every packet decapsulated (malformed ones included: the
 * tunnel port received them). *ext is set (never cleared) if a kept key
 * has a second line, as miniflow_extract_batch_ext() does. */
uint64_t vxlan_decap_extract_trusted(struct pkt_batch *b,
				     struct flow_key keys[],
				     uint32_t tnl_ofport, struct pkt_batch *bad,
				     struct pkt_batch *malformed, bool fast,
				     bool *ext);

/* The same checks and strip for one packet, for the NIC-mark path
 * (dp_offload.c): true if m was good (now stripped, key filled as above);
 * false, m untouched, if it would have gone to *bad. */
bool vxlan_decap_pkt(struct rte_mbuf *m, struct flow_key *key,
		     uint32_t tnl_ofport);

/* Which outer checksums the NIC already verified. A NIC that parses VXLAN
 * itself (a tunnel packet type) reports the inner headers in the plain
 * flags and the outer UDP in the OUTER_ ones, and has no "outer IP good"
 * flag at all; otherwise the plain flags are about the outer headers. */
static inline void
vxlan_outer_csum_verified(const struct rte_mbuf *m, bool *ip_good,
			  bool *udp_good)
{
	const uint64_t f = m->ol_flags;

	if (m->packet_type & RTE_PTYPE_TUNNEL_MASK) {
		*ip_good = false;
		*udp_good = (f & RTE_MBUF_F_RX_OUTER_L4_CKSUM_MASK) ==
			    RTE_MBUF_F_RX_OUTER_L4_CKSUM_GOOD;
	} else {
		*ip_good = (f & RTE_MBUF_F_RX_IP_CKSUM_MASK) ==
			   RTE_MBUF_F_RX_IP_CKSUM_GOOD;
		*udp_good = (f & RTE_MBUF_F_RX_L4_CKSUM_MASK) ==
			    RTE_MBUF_F_RX_L4_CKSUM_GOOD;
	}
}

/* ---- over an IPv6 underlay (vxlan_decap6.c) ---- */

/* Outer Ethernet + IPv6 + UDP + VXLAN + inner Ethernet. */
#define VXLAN6_DECAP_MIN_LEN (RTE_ETHER_HDR_LEN + 40 + 8 + 8 + RTE_ETHER_HDR_LEN)

enum vxlan_decap6_verdict {
	VXLAN_DECAP6_OK,
	VXLAN_DECAP6_OK_ZERO_CSUM,	/* good, UDP checksum 0: accepted */
	VXLAN_DECAP6_BAD,		/* m untouched: bad_vxlan */
	VXLAN_DECAP6_ZERO_CSUM_REFUSED,	/* m untouched: udp6_zero_csum */
};

/* The checks of vxlan_decap_batch for an IPv6 outer header (one optional
 * tag; version 6, next header UDP with no extension header between; the
 * payload and UDP lengths fit the packet; the VXLAN flags; the UDP
 * checksum unless the NIC verified it, a zero one only if zero_csum_ok)
 * and, if good, the strip: key as vxlan_decap_batch's but tun_src =
 * tun_dst = 0, the outer addresses in the third line (tun_ipv6_src/dst)
 * and ext_line FLOW_EXT_TUN6, w2..w7's other bits zero. */
enum vxlan_decap6_verdict vxlan_decap6_pkt(struct rte_mbuf *m,
					   struct flow_key *key,
					   uint32_t tnl_ofport,
					   bool zero_csum_ok);

/* Where vxlan_decap6_extract puts what it does not keep (each must have
 * room for the batch), and how many it accepted with a zero checksum. */
struct vxlan_decap6_out {
	struct pkt_batch bad;			/* DROP_BAD_VXLAN */
	struct pkt_batch zero_csum_refused;	/* DROP_UDP6_ZERO_CSUM */
	struct pkt_batch malformed;		/* decapsulated, inner bad */
	uint32_t zero_csum_accepted;
};

/* vxlan_decap_extract_trusted for an IPv6 underlay: every kept key has
 * the third line (the caller's pass flag for lines is set). Returns the
 * bytes of every packet decapsulated, malformed ones included. */
uint64_t vxlan_decap6_extract(struct pkt_batch *b, struct flow_key keys[],
			      uint32_t tnl_ofport, bool zero_csum_ok,
			      struct vxlan_decap6_out *out, bool fast);

#endif
