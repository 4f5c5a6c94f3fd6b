/* SPDX-License-Identifier: BSD-3-Clause */
#include "flow_key.h"
#include "drop_reason.h"

#define F(id_, name_, member_)                                                 \
	[id_] = { id_, name_, offsetof(struct flow_key, member_),              \
		  sizeof(((struct flow_key *)0)->member_) }

const struct mf_field mf_fields[MFF_N_IDS] = {
	F(MFF_IN_PORT, "in_port", in_port),
	F(MFF_TUN_ID, "tun_id", tun_id),
	F(MFF_TUN_SRC, "tun_src", tun_src),
	F(MFF_TUN_DST, "tun_dst", tun_dst),
	F(MFF_DL_DST, "dl_dst", dl_dst),
	F(MFF_VLAN_TCI, "vlan_tci", vlan_tci),
	F(MFF_DL_SRC, "dl_src", dl_src),
	F(MFF_DL_TYPE, "dl_type", dl_type),
	F(MFF_NW_SRC, "nw_src", nw_src),
	F(MFF_NW_DST, "nw_dst", nw_dst),
	F(MFF_NW_PROTO, "nw_proto", nw_proto),
	F(MFF_NW_TOS, "nw_tos", nw_tos),
	F(MFF_NW_TTL, "nw_ttl", nw_ttl),
	F(MFF_NW_FRAG, "nw_frag", nw_frag),
	F(MFF_TP_SRC, "tp_src", tp_src),
	F(MFF_TP_DST, "tp_dst", tp_dst),
	F(MFF_IPV6_LABEL, "ipv6_label", ipv6_label),
	F(MFF_IPV6_SRC, "ipv6_src", ipv6_src),
	F(MFF_IPV6_DST, "ipv6_dst", ipv6_dst),
	F(MFF_ND_TARGET, "nd_target", nd_target),
	F(MFF_ND_SLL, "nd_sll", nd_sll),
	F(MFF_ND_TLL, "nd_tll", nd_tll),
	F(MFF_TUN_IPV6_SRC, "tun_ipv6_src", tun_ipv6_src),
	F(MFF_TUN_IPV6_DST, "tun_ipv6_dst", tun_ipv6_dst),
};

bool
flow_mask_has_field(const struct flow_key *mask, enum mf_id f)
{
	const uint8_t *p = (const uint8_t *)mask + mf_fields[f].offset;
	for (unsigned i = 0; i < mf_fields[f].len; i++)
		if (p[i])
			return true;
	return false;
}

bool
flow_field_differs(const struct flow_key *a, const struct flow_key *b,
		   const struct flow_key *mask, enum mf_id f)
{
	unsigned off = mf_fields[f].offset;
	const uint8_t *pa = (const uint8_t *)a + off;
	const uint8_t *pb = (const uint8_t *)b + off;
	const uint8_t *pm = (const uint8_t *)mask + off;
	for (unsigned i = 0; i < mf_fields[f].len; i++)
		if ((pa[i] ^ pb[i]) & pm[i])
			return true;
	return false;
}

const char *
drop_reason_name(enum drop_reason r)
{
	static const char *const names[] = {
#define X(name, str) str,
		DROP_REASONS(X)
#undef X
	};
	return (unsigned)r < DROP_N_REASONS ? names[r] : "?";
}
