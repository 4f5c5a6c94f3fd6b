/* SPDX-License-Identifier: BSD-3-Clause
 * The flow key: every header field the switch can match on, in one cache
 * line of eight 64-bit words so that masking, hashing and comparing are word
 * loops the compiler unrolls. Packet fields are kept in network byte order
 * (as on the wire, as in OVS's struct flow); metadata in host order.
 *
 * The key is three cache lines, 24 words (doc/design-ipv6-key.md,
 * layout (a); doc/design-ipv6-underlay.md, layout (A)). The first line is
 * the IPv4 key; the second (w8..w15) is IPv6's and is part of the key
 * only when ext_line (in w7) has FLOW_EXT_LINE, which the extract sets
 * for every IPv6 packet and only for those (dl_type 0x86dd: miniflow.h's
 * MINIFLOW_EXT); the third (w16..w23) holds the outer IPv6 addresses of a
 * packet decapsulated from an IPv6 underlay and is part of the key only
 * when ext_line has FLOW_EXT_TUN6, which decap sets. Nothing on an IPv4
 * packet's path reads or writes the other lines (they may hold stale
 * bytes): equality, hashes, the EMC and the dpcls test ext_line (or a
 * mask's, or the batch's line flag) before they touch w8..w23, so IPv4
 * over IPv4 stays one line.
 * An IPv6 packet's next header, traffic class, hop limit, fragment
 * state, ports and ICMPv6 type/code reuse w5 as in OVS's struct flow.
 *
 * Word layout (used by the specialised dpcls lookups, so keep it stable):
 *   w0  in_port ct_label_bits | tun_id   metadata, set before extraction;
 *                                   ct_label_bits: a recirculated pass's
 *                                   ct_label predicates (below)
 *   w1  tun_src | tun_dst           outer IPv4 of a decapsulated packet
 *   w2  dl_dst | vlan_tci
 *   w3  dl_src | dl_type
 *   w4  nw_src | nw_dst             ARP: spa | tpa
 *   w5  nw_proto nw_tos nw_ttl nw_frag | tp_src | tp_dst
 *   w6  ct_mark | ct_zone ct_state recirc_id   a recirculated pass's
 *                                   metadata (ct(table=T): ct_recirc.c),
 *                                   zero in the first pass
 *   w7  ext_line | ipv6_label       ext_line: a bitmap of the lines
 *                                   beyond the first that are part of
 *                                   the key (FLOW_EXT_LINE: the second,
 *                                   FLOW_EXT_TUN6: the third); in a mask
 *                                   the bit of each line whose fields it
 *                                   matches (the label counts as line
 *                                   two's), so that it only matches keys
 *                                   that have that line
 *   w8, w9    ipv6_src
 *   w10, w11  ipv6_dst
 *   w12, w13  nd_target             ND: ICMPv6 135/136, code 0
 *   w14       nd_sll                ND source link-layer address option
 *   w15       nd_tll                ND target link-layer address option
 *   w16, w17  tun_ipv6_src          outer IPv6 of a decapsulated packet
 *   w18, w19  tun_ipv6_dst          (tun_src = tun_dst = 0 then, as OVS)
 *   w20..w23  zero
 */
#ifndef VXS_FLOW_KEY_H
#define VXS_FLOW_KEY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <rte_byteorder.h>
#include <rte_ether.h>

#define FLOW_KEY_WORDS 24
#define FLOW_KEY_LINE_WORDS 8	/* words per cache line */
#define FLOW_KEY_LINE2 8	/* first word of the second line */
#define FLOW_KEY_LINE3 16	/* first word of the third line */
/* Words of the first line hashed and compared when ext_line is clear:
 * w7 is then zero, so leaving it out keeps IPv4's hashes (the VXLAN
 * source port on the wire among them) what they were. */
#define FLOW_KEY_USED_WORDS 7
#define FLOW_EXT_LINE 0x01	/* ext_line: w8..w15 (inner IPv6) */
#define FLOW_EXT_TUN6 0x02	/* ext_line: w16..w23 (IPv6 underlay) */
#define FLOW_EXT_ALL (FLOW_EXT_LINE | FLOW_EXT_TUN6)

/* The highest ofport a key carries (OVS's OFPP_MAX - 1: ofports from
 * 0xff00 on are reserved); the flow parser refuses in_port above it. */
#define FLOW_IN_PORT_MAX 0xfeffu
/* ct_label predicates a key can carry (ct_label_bits) */
#define FLOW_CT_LABEL_PREDS 16

/* An IPv6 address as its 16 bytes, network order (DPDK 22.11 has no
 * such type: rte_ipv6_hdr's are uint8_t[16]). */
struct flow_in6_addr {
	uint8_t a[16];
};

#define FLOW_IPV6_LABEL_MASK 0x000fffffu

/* nw_frag bits, as in OVS */
#define FLOW_NW_FRAG_ANY   0x01	/* any fragment, first included */
#define FLOW_NW_FRAG_LATER 0x02	/* not the first fragment: no L4 */
#define FLOW_NW_FRAG_MASK  0x03

/* vlan_tci: the CFI bit marks "a tag is present", as in OVS */
#define FLOW_VLAN_CFI 0x1000

struct flow_key {
	union {
		uint64_t w[FLOW_KEY_WORDS];
		struct {
			uint16_t in_port;	/* ofport number, host order:
						 * 16 bits as OVS's ofp_port_t
						 * (<= 0xfeff, FLOW_IN_PORT_MAX) */
			/* Bit i: the session's ct_label satisfies predicate
			 * i of the snapshot's table (dp_snapshot.h
			 * ct_label_preds): (label & M_i) == V_i. Set with
			 * ct_state after ct(table=T) (ct_recirc.c), zero in
			 * a first pass (there a rule's ct_label match is
			 * decided by label 0, as OVS's untracked packets). The
			 * 128-bit label itself never enters the key. */
			uint16_t ct_label_bits;
			uint32_t tun_id;	/* VNI, host order, 0 = none */

			rte_be32_t tun_src;
			rte_be32_t tun_dst;

			struct rte_ether_addr dl_dst;
			rte_be16_t vlan_tci;

			struct rte_ether_addr dl_src;
			rte_be16_t dl_type;

			rte_be32_t nw_src;
			rte_be32_t nw_dst;

			uint8_t nw_proto;	/* ARP: low byte of opcode */
			uint8_t nw_tos;
			uint8_t nw_ttl;
			uint8_t nw_frag;
			rte_be16_t tp_src;	/* ICMP: type */
			rte_be16_t tp_dst;	/* ICMP: code */

			uint32_t ct_mark;
			uint16_t ct_zone;
			uint8_t ct_state;	/* CS_* bits, 0: untracked */
			uint8_t recirc_id;	/* 0: first pass; else the
						 * frozen state it resumes
						 * from (recirc_id.h) */
			uint8_t ext_line;	/* FLOW_EXT_*: the lines
						 * beyond the first that
						 * are part of the key */
			uint8_t reserved[3];
			rte_be32_t ipv6_label;	/* low 20 bits */

			/* the IPv6 line, w8..w15 (FLOW_EXT_LINE) */
			union {
				uint64_t line2[FLOW_KEY_LINE_WORDS];
				struct {
					struct flow_in6_addr ipv6_src;
					struct flow_in6_addr ipv6_dst;
					/* Neighbour Discovery (ICMPv6 135,
					 * 136, code 0): the target, the
					 * source and target link-layer
					 * address options */
					struct flow_in6_addr nd_target;
					struct rte_ether_addr nd_sll;
					uint8_t nd_pad1[2];
					struct rte_ether_addr nd_tll;
					uint8_t nd_pad2[2];
				};
			};

			/* the IPv6 underlay line, w16..w23
			 * (FLOW_EXT_TUN6) */
			union {
				uint64_t line3[FLOW_KEY_LINE_WORDS];
				struct {
					struct flow_in6_addr tun_ipv6_src;
					struct flow_in6_addr tun_ipv6_dst;
					uint8_t tun6_pad[32];
				};
			};
		};
	};
} __rte_aligned(64);

_Static_assert(sizeof(struct flow_key) == 192, "flow_key is three cache lines");
_Static_assert(offsetof(struct flow_key, ext_line) == 56, "w7");
_Static_assert(offsetof(struct flow_key, line2) == 64, "w8: second line");
_Static_assert(offsetof(struct flow_key, ct_label_bits) == 2, "w0");
_Static_assert(offsetof(struct flow_key, tun_id) == 4, "w0");
_Static_assert(offsetof(struct flow_key, tun_src) == 8, "w1");
_Static_assert(offsetof(struct flow_key, dl_dst) == 16, "w2");
_Static_assert(offsetof(struct flow_key, dl_src) == 24, "w3");
_Static_assert(offsetof(struct flow_key, nw_src) == 32, "w4");
_Static_assert(offsetof(struct flow_key, nw_proto) == 40, "w5");
_Static_assert(offsetof(struct flow_key, ct_mark) == 48, "w6");
_Static_assert(offsetof(struct flow_key, recirc_id) == 55, "w6");
_Static_assert(offsetof(struct flow_key, ipv6_label) == 60, "w7");
_Static_assert(offsetof(struct flow_key, ipv6_src) == 64, "w8");
_Static_assert(offsetof(struct flow_key, ipv6_dst) == 80, "w10");
_Static_assert(offsetof(struct flow_key, nd_target) == 96, "w12");
_Static_assert(offsetof(struct flow_key, nd_sll) == 112, "w14");
_Static_assert(offsetof(struct flow_key, nd_tll) == 120, "w15");
_Static_assert(offsetof(struct flow_key, line3) == 128, "w16: third line");
_Static_assert(offsetof(struct flow_key, tun_ipv6_src) == 128, "w16");
_Static_assert(offsetof(struct flow_key, tun_ipv6_dst) == 144, "w18");

/* The matchable fields, for parsing, formatting and mask building. */
enum mf_id {
	MFF_IN_PORT,
	MFF_TUN_ID,
	MFF_TUN_SRC,
	MFF_TUN_DST,
	MFF_DL_DST,
	MFF_VLAN_TCI,
	MFF_DL_SRC,
	MFF_DL_TYPE,
	MFF_NW_SRC,
	MFF_NW_DST,
	MFF_NW_PROTO,
	MFF_NW_TOS,
	MFF_NW_TTL,
	MFF_NW_FRAG,
	MFF_TP_SRC,
	MFF_TP_DST,
	/* IPv6: w7's label and the second line; setting one in a mask sets
	 * its ext_line (flow_mask_set_field) */
	MFF_IPV6_LABEL,
	MFF_IPV6_SRC,
	MFF_IPV6_DST,
	MFF_ND_TARGET,
	MFF_ND_SLL,
	MFF_ND_TLL,
	/* the third line: setting one in a mask sets ext_line's
	 * FLOW_EXT_TUN6 */
	MFF_TUN_IPV6_SRC,
	MFF_TUN_IPV6_DST,
	MFF_N_IDS
};

struct mf_field {
	enum mf_id id;
	const char *name;	/* ovs-ofctl name */
	uint16_t offset;	/* byte offset in struct flow_key */
	uint8_t len;		/* bytes */
};

extern const struct mf_field mf_fields[MFF_N_IDS];

static inline void
flow_key_zero(struct flow_key *k)
{
	memset(k, 0, sizeof *k);
}

/* Is any line beyond the first part of key k (or used by mask k)? */
static inline bool
flow_key_has_ext(const struct flow_key *k)
{
	return k->ext_line != 0;
}

/* Is the second line (inner IPv6) part of key k (or used by mask k)? */
static inline bool
flow_key_has_line2(const struct flow_key *k)
{
	return k->ext_line & FLOW_EXT_LINE;
}

/* Is the third line (IPv6 underlay) part of key k (or used by mask k)? */
static inline bool
flow_key_has_line3(const struct flow_key *k)
{
	return k->ext_line & FLOW_EXT_TUN6;
}

/* The ext_line bit a field at byte offset off belongs to: 0 for the first
 * line's fields but the label (w7, which goes with the second line). */
static inline uint8_t
flow_field_ext_bit(unsigned off)
{
	if (off >= offsetof(struct flow_key, line3))
		return FLOW_EXT_TUN6;
	return off > offsetof(struct flow_key, ext_line) ? FLOW_EXT_LINE : 0;
}

/* *dst = *src, the other lines only when they are part of the key: the
 * batch loops copy keys per packet, and an IPv4 key is one line. Returns
 * whether it has any (the test it makes anyway), for the batch's line
 * flag (ct_recirc.c). */
static inline bool
flow_key_copy(struct flow_key *dst, const struct flow_key *src)
{
	memcpy(dst->w, src->w, FLOW_KEY_LINE_WORDS * sizeof src->w[0]);
	if (flow_key_has_ext(src)) {
		if (flow_key_has_line2(src))
			memcpy(dst->line2, src->line2, sizeof src->line2);
		if (flow_key_has_line3(src))
			memcpy(dst->line3, src->line3, sizeof src->line3);
		return true;
	}
	return false;
}

static inline uint64_t
flow_line_diff(const uint64_t *a, const uint64_t *b)
{
	uint64_t diff = 0;
	for (int i = 0; i < FLOW_KEY_LINE_WORDS; i++)
		diff |= a[i] ^ b[i];
	return diff;
}

/* w7 is compared with the first line, so the other lines are compared
 * only where both keys have them. */
static inline bool
flow_key_equal(const struct flow_key *a, const struct flow_key *b)
{
	uint64_t diff = flow_line_diff(a->w, b->w);
	if (diff == 0 && flow_key_has_line2(a))
		diff = flow_line_diff(a->line2, b->line2);
	if (diff == 0 && flow_key_has_line3(a))
		diff = flow_line_diff(a->line3, b->line3);
	return diff == 0;
}

/* dst = key & mask; dst's other lines are zero where mask has none. */
static inline void
flow_key_mask(struct flow_key *dst, const struct flow_key *key,
	      const struct flow_key *mask)
{
	for (int i = 0; i < FLOW_KEY_LINE_WORDS; i++)
		dst->w[i] = key->w[i] & mask->w[i];
	if (flow_key_has_line2(mask))
		for (int i = FLOW_KEY_LINE2; i < FLOW_KEY_LINE3; i++)
			dst->w[i] = key->w[i] & mask->w[i];
	else
		memset(dst->line2, 0, sizeof dst->line2);
	if (flow_key_has_line3(mask))
		for (int i = FLOW_KEY_LINE3; i < FLOW_KEY_WORDS; i++)
			dst->w[i] = key->w[i] & mask->w[i];
	else
		memset(dst->line3, 0, sizeof dst->line3);
}

/* Does key match (masked_key, mask)? masked_key must already be masked.
 * A mask that uses another line also masks its ext_line bit, so a key
 * without that line fails on the first line and the line is never read. */
static inline bool
flow_key_match(const struct flow_key *key, const struct flow_key *masked_key,
	       const struct flow_key *mask)
{
	uint64_t diff = 0;
	for (int i = 0; i < FLOW_KEY_LINE_WORDS; i++)
		diff |= (key->w[i] & mask->w[i]) ^ masked_key->w[i];
	if (diff == 0 && flow_key_has_line2(mask))
		for (int i = FLOW_KEY_LINE2; i < FLOW_KEY_LINE3; i++)
			diff |= (key->w[i] & mask->w[i]) ^ masked_key->w[i];
	if (diff == 0 && flow_key_has_line3(mask))
		for (int i = FLOW_KEY_LINE3; i < FLOW_KEY_WORDS; i++)
			diff |= (key->w[i] & mask->w[i]) ^ masked_key->w[i];
	return diff == 0;
}

/* Sets every bit of field f in mask; a field of another line (the label
 * in w7 counts as the second's) sets that line's ext_line bit too, so
 * that the mask only matches keys that have the line. */
static inline void
flow_mask_set_field(struct flow_key *mask, enum mf_id f)
{
	memset((uint8_t *)mask + mf_fields[f].offset, 0xff, mf_fields[f].len);
	mask->ext_line |= flow_field_ext_bit(mf_fields[f].offset);
}

/* True if any bit of field f is set in mask. */
bool flow_mask_has_field(const struct flow_key *mask, enum mf_id f);

/* True if the field values differ under the mask. */
bool flow_field_differs(const struct flow_key *a, const struct flow_key *b,
			const struct flow_key *mask, enum mf_id f);

#endif
