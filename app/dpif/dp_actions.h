/* SPDX-License-Identifier: BSD-3-Clause
 * Datapath actions: what a megaflow does with its packets. Produced by the
 * slow path (xlate.c) from OpenFlow rules, executed per batch by
 * dp_execute.c. Self-contained values (no pointers into control-plane
 * state), so a megaflow never dangles when the rules or neighbours change:
 * revalidation re-translates and compares instead.
 */
#ifndef VXS_DP_ACTIONS_H
#define VXS_DP_ACTIONS_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <rte_ether.h>
#include "drop_reason.h"

#define DP_MAX_ACTIONS 8
/* Header rewrites are per output (mod_dl_dst:A,output:1,mod_dl_dst:B,
 * output:2 sends A to 1 and B to 2): each SET action has its own value
 * slot, named by its port field. A rule needing more is dropped whole,
 * as one with too many actions. */
#define DP_MAX_MACS 4
/* Tunnel outputs are per output too: each carries the tunnel fields
 * (set_tunnel, tun_src, tun_dst) in force at it, in its own encap
 * template. Rules needing more slots than these (or more than
 * DP_MAX_ACTIONS actions) are refused at add-flow time
 * (xlate_check_rule). */
#define DP_MAX_TNLS 4
/* ct(commit,exec(set_field:V/M->ct_mark)): the values a DP_ACT_CT
 * writes into committed sessions, one slot per such ct(). */
#define DP_MAX_CT_MARKS 2
/* ct(commit,exec(set_field:V->ct_label / load:V->NXM_NX_CT_LABEL[a..b])):
 * the 128-bit value and mask a DP_ACT_CT writes into committed sessions.
 * One slot: a translation with two such ct() is dropped whole, a rule
 * with two refused at add-flow (xlate_check_executable). */
#define DP_MAX_CT_LABELS 1
/* nat(...) of an sg() or ct(): one value slot each (actions->nats[]). */
#define DP_MAX_NATS 2

/* Outer headers prepended by VXLAN encap: eth + ipv4 + udp + vxlan over
 * an IPv4 underlay, eth + ipv6 + udp + vxlan over an IPv6 one. */
#define VXLAN_TNL_HDR_LEN (14 + 20 + 8 + 8)
#define VXLAN_TNL6_HDR_LEN (14 + 40 + 8 + 8)
#define VXLAN_TNL_HDR_MAX VXLAN_TNL6_HDR_LEN
#define VXLAN_UDP_PORT 4789

/* The largest inner frame whose outer IPv4 total length still fits 16 bits. */
#define VXLAN_ENCAP_MAX_INNER_LEN \
	(UINT16_MAX - (VXLAN_TNL_HDR_LEN - RTE_ETHER_HDR_LEN))
/* The same over IPv6, whose payload_len counts only UDP and VXLAN (16). */
#define VXLAN6_ENCAP_MAX_INNER_LEN \
	(UINT16_MAX - (VXLAN_TNL6_HDR_LEN - RTE_ETHER_HDR_LEN - 40))

/* vxlan_tnl_template.family: the underlay's IP version. */
#define VXLAN_TNL_IPV4 4
#define VXLAN_TNL_IPV6 6

/* Per-tunnel header template built once at translation time, one type for
 * both underlay families (a megaflow's tnls[] hold either).
 *
 * IPv4 (family 4): hdr[0..49], the rest zero (dp_actions_equal compares
 * whole templates). The IPv4 total length, IP id, checksum and UDP
 * length/source port are filled per packet; csum_partial is the IPv4
 * header checksum over the template with those fields zero, host order,
 * so the per-packet checksum is one incremental update.
 *
 * IPv6 (family 6): hdr[0..69]. payload_len, UDP length and source port
 * and the UDP checksum are filled per packet (no IP checksum, no id); the
 * checksum is mandatory over IPv6 (RFC 8200 section 8.1). csum_partial is
 * the UDP checksum's constant part, summed once: the pseudo-header's
 * addresses and next header, the UDP destination port and the VXLAN
 * header; unfolded words as rte_raw_cksum sums them (network-order words
 * as the CPU loads them), not complemented, so encap adds the lengths and
 * port as they are stored and the inner frame's rte_raw_cksum. The
 * template's UDP checksum field holds 0xffff, as OVS's tnl_push header
 * does (udp_build_header: "mark that we should compute the checksum").
 *
 * max_inner is the longest inner frame that still fits the underlay port
 * once this header is in front of it (the port's longest frame less the
 * header: 1514 - 50 = 1464, or 1514 - 70 = 1444, on a 1500-byte
 * underlay): encap's one length compare per packet, past which the
 * packet is dropped (mtu_exceeded) and its sender told the path MTU
 * (dp_pmtud.h). */
struct vxlan_tnl_template {
	uint8_t hdr[VXLAN_TNL_HDR_MAX];
	uint8_t family;			/* VXLAN_TNL_IPV4 or _IPV6 */
	uint8_t pad;			/* zero: compared with memcmp */
	uint16_t csum_partial;		/* see above, per family */
	uint16_t max_inner;		/* bytes of inner frame, at most */
};
_Static_assert(sizeof(struct vxlan_tnl_template) == 76,
	       "70-byte header, family, partial sum, max_inner");

/* DP_ACT_TNL_POP's flags (its slot): the outer header's family, which
 * the outer megaflow's dl_type decided, and the tunnel port's zero UDP
 * checksum policy over IPv6 (vxlan_decap.h). */
#define DP_TNL_POP_IPV6		0x01
#define DP_TNL_POP_ZERO_CSUM6	0x02	/* udp6zerocsumrx: accept */

enum dp_action_type {
	DP_ACT_OUTPUT,		/* port: datapath port index */
	DP_ACT_TNL_PUSH,	/* VXLAN encap with actions->tnls[slot] */
	DP_ACT_TNL_CLONE,	/* copies, VXLAN encap with tnls[slot], to
				 * port: a tunnel output that is not the
				 * last output */
	DP_ACT_TNL_POP,		/* VXLAN decap, then inner lookup as port */
	DP_ACT_SET_ETH_SRC,	/* actions->macs[port] */
	DP_ACT_SET_ETH_DST,	/* actions->macs[port] */
	DP_ACT_ARP_RESPOND,	/* VTEP ARP: answer/learn, on the in port */
	DP_ACT_DROP,		/* reason */
	DP_ACT_SG,		/* security group (seed 003), in this pass:
				 * the packets of a session pass, a new one
				 * passes (and is committed) only if slot
				 * has DP_SG_ALLOW; port: the zone; with
				 * DP_CT_NAT, NAT as nats[DP_NAT_SLOT] */
	DP_ACT_DROP_COPY,	/* reason: the copy one output would have
				 * sent (a tunnel output with no route or
				 * neighbour, not the last), counted as
				 * made and dropped */
	DP_ACT_CT,		/* ct(): tracks the packets in zone port,
				 * committing new ones if slot has
				 * DP_CT_COMMIT, and writing
				 * ct_marks[DP_CT_MARK_SLOT(slot) - 1]
				 * into their sessions if that is not 0
				 * (exec(load->ct_mark)), and the same for
				 * ct_labels[DP_CT_LABEL_SLOT(slot) - 1]
				 * (exec(->ct_label)); they go on
				 * unchanged
				 * (their ct_state is seen only after a
				 * recirculation) but for DP_CT_NAT: NAT
				 * as nats[DP_NAT_SLOT(slot)] */
	DP_ACT_RECIRC,		/* only right after DP_ACT_CT, last:
				 * ct(table=T)'s recirculation; port: the
				 * recirc id (recirc_id.h) */
};

#define DP_SG_ALLOW 0x1
#define DP_CT_COMMIT 0x1
/* The slot byte of DP_ACT_SG / DP_ACT_CT:
 *   bit 0     DP_SG_ALLOW / DP_CT_COMMIT
 *   bit 1     DP_CT_NAT: with nat(...), the spec is nats[DP_NAT_SLOT]
 *   bits 2-3  DP_ACT_CT only: DP_CT_MARK_SLOT, 1-based (0: no mark),
 *             the exec(->ct_mark) value is ct_marks[DP_CT_MARK_SLOT - 1]
 *   bits 4-5  DP_NAT_SLOT
 *   bits 6-7  DP_ACT_CT only: DP_CT_LABEL_SLOT, 1-based (0: no label),
 *             the exec(->ct_label) value is ct_labels[... - 1] */
#define DP_CT_NAT 0x2
#define DP_CT_MARK_SHIFT 2
#define DP_CT_MARK_SLOT(slot) (((slot) >> DP_CT_MARK_SHIFT) & 0x3)
#define DP_CT_WITH_MARK(n) ((uint8_t)((n) << DP_CT_MARK_SHIFT))
#define DP_NAT_SLOT_SHIFT 4
#define DP_NAT_SLOT(slot) (((slot) >> DP_NAT_SLOT_SHIFT) & 0x3)
#define DP_CT_LABEL_SHIFT 6
#define DP_CT_LABEL_SLOT(slot) (((slot) >> DP_CT_LABEL_SHIFT) & 0x3)
#define DP_CT_WITH_LABEL(n) ((uint8_t)((n) << DP_CT_LABEL_SHIFT))
_Static_assert(DP_MAX_CT_MARKS <= 3, "mark slot + 1 fits bits 2-3");
_Static_assert(DP_MAX_NATS <= 4, "nat slot fits bits 4-5");
_Static_assert(DP_MAX_CT_LABELS <= 3, "label slot + 1 fits bits 6-7");

struct dp_ct_mark {
	uint32_t value, mask;	/* mark = (mark & ~mask) | value */
};

/* label = (label & ~mask) | value; the tracker's order: [0] the low,
 * [1] the high 64 bits (struct ct_conn_ref) */
struct dp_ct_label {
	uint64_t value[2], mask[2];
};

/* One nat(...), as the tracker's struct ct_nat_spec: host order; ip_min
 * 0 (and v6 0) is a bare `nat` (the session's NAT, if it has one, is
 * applied; a new session gets none); max 0: same as min; ports 0: keep
 * the port. v6: an IPv6 range, ip6[0] to ip6[1] (network order), ip_min
 * and ip_max 0. */
struct dp_nat {
	uint32_t ip_min, ip_max;
	uint16_t port_min, port_max;
	uint8_t snat;		/* else dnat */
	uint8_t v6;
	uint8_t pad[2];		/* zero: compared with memcmp */
	uint8_t ip6[2][16];	/* zero unless v6 */
};

struct dp_action {
	uint8_t type;		/* enum dp_action_type */
	union {
		uint8_t reason;	/* DP_ACT_DROP*: enum drop_reason */
		uint8_t slot;	/* DP_ACT_TNL_PUSH/CLONE: in tnls[];
				 * DP_ACT_TNL_POP: DP_TNL_POP_* flags */
	};
	uint16_t port;		/* DP_ACT_OUTPUT / DP_ACT_TNL_POP /
				 * DP_ACT_TNL_CLONE: port index;
				 * DP_ACT_SET_ETH_*: slot in macs[] */
};

struct dp_actions {
	uint8_t n;
	/* where its sg() is when only MAC rewrites come before it (the
	 * burst-wide sg stage runs it there): its index + 1; 0 none. Set
	 * from act[] when a megaflow is made (dp_actions_sg_leading, in
	 * upcall.c), so the stage reads one byte per megaflow; not part of
	 * dp_actions_equal (derived). */
	uint8_t sg_at;
	uint8_t n_macs;
	uint8_t n_tnls;
	uint8_t n_ct_marks;
	uint8_t n_nats;
	struct dp_action act[DP_MAX_ACTIONS];
	struct rte_ether_addr macs[DP_MAX_MACS];
	struct vxlan_tnl_template tnls[DP_MAX_TNLS];
	struct dp_ct_mark ct_marks[DP_MAX_CT_MARKS];
	struct dp_nat nats[DP_MAX_NATS];
	/* last, and with no count of its own (xlate.c finds the slots in
	 * use from act[]): what the sg() stage reads keeps its place */
	struct dp_ct_label ct_labels[DP_MAX_CT_LABELS];
};

/* The nat(...) of an sg() or ct() action, NULL without one. */
static inline const struct dp_nat *
dp_action_nat(const struct dp_actions *acts, const struct dp_action *a)
{
	return a->slot & DP_CT_NAT ?
	       &acts->nats[DP_NAT_SLOT(a->slot) % DP_MAX_NATS] : NULL;
}

static inline uint8_t
dp_actions_sg_leading(const struct dp_actions *acts)
{
	for (uint8_t i = 0; i < acts->n; i++) {
		switch (acts->act[i].type) {
		case DP_ACT_SG:
			return i + 1;
		case DP_ACT_SET_ETH_SRC:
		case DP_ACT_SET_ETH_DST:
			continue;
		default:
			return 0;
		}
	}
	return 0;
}

static inline bool
dp_actions_equal(const struct dp_actions *a, const struct dp_actions *b)
{
	if (a->n != b->n ||
	    memcmp(a->act, b->act, a->n * sizeof a->act[0]))
		return false;
	for (int i = 0; i < a->n; i++) {
		switch (a->act[i].type) {
		case DP_ACT_TNL_PUSH:
		case DP_ACT_TNL_CLONE:
			if (memcmp(&a->tnls[a->act[i].slot],
				   &b->tnls[b->act[i].slot],
				   sizeof a->tnls[0]))
				return false;
			break;
		case DP_ACT_SET_ETH_SRC:
		case DP_ACT_SET_ETH_DST:
			if (!rte_is_same_ether_addr(&a->macs[a->act[i].port],
						    &b->macs[b->act[i].port]))
				return false;
			break;
		case DP_ACT_CT: {
			uint8_t m = DP_CT_MARK_SLOT(a->act[i].slot);
			uint8_t l = DP_CT_LABEL_SLOT(a->act[i].slot);
			if (m && memcmp(&a->ct_marks[m - 1],
					&b->ct_marks[m - 1],
					sizeof a->ct_marks[0]))
				return false;
			if (l && memcmp(&a->ct_labels[l - 1],
					&b->ct_labels[l - 1],
					sizeof a->ct_labels[0]))
				return false;
		}
		/* fall through */
		case DP_ACT_SG:
			if ((a->act[i].slot & DP_CT_NAT) &&
			    memcmp(dp_action_nat(a, &a->act[i]),
				   dp_action_nat(b, &b->act[i]),
				   sizeof a->nats[0]))
				return false;
			break;
		}
	}
	return true;
}

#endif
