/* SPDX-License-Identifier: BSD-3-Clause
 * Megaflows as ovs-appctl dpctl/dump-flows prints them: only fields the
 * mask touches, value/mask where the mask is partial. */
#include <arpa/inet.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "port.h"
#include "vxlan_tnl.h"
#include "xlate.h"

struct buf {
	char *p;
	size_t len, used;
};

static void __attribute__((format(printf, 2, 3)))
put(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	size_t room = b->used < b->len ? b->len - b->used : 0;
	va_start(ap, fmt);
	int n = vsnprintf(b->p + (room ? b->used : 0), room, fmt, ap);
	va_end(ap);
	if (n > 0)
		b->used += n;
}

static void
put_ip(struct buf *b, const char *name, rte_be32_t v, rte_be32_t m)
{
	char s[INET_ADDRSTRLEN], ms[INET_ADDRSTRLEN];
	inet_ntop(AF_INET, &v, s, sizeof s);
	if (m == UINT32_MAX) {
		put(b, "%s=%s,", name, s);
	} else {
		inet_ntop(AF_INET, &m, ms, sizeof ms);
		put(b, "%s=%s/%s,", name, s, ms);
	}
}

static bool
ip6_any(const struct flow_in6_addr *m)
{
	static const struct flow_in6_addr zero;
	return memcmp(m, &zero, sizeof zero) != 0;
}

/* name=ADDR, or name=ADDR/MASK, as OVS's datapath flows print them */
static void
put_ip6(struct buf *b, const char *name, const struct flow_in6_addr *v,
	const struct flow_in6_addr *m)
{
	static const struct flow_in6_addr ones = { {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff } };
	char s[INET6_ADDRSTRLEN], ms[INET6_ADDRSTRLEN];

	inet_ntop(AF_INET6, v->a, s, sizeof s);
	if (!memcmp(m, &ones, sizeof ones)) {
		put(b, "%s=%s,", name, s);
	} else {
		inet_ntop(AF_INET6, m->a, ms, sizeof ms);
		put(b, "%s=%s/%s,", name, s, ms);
	}
}

/* Lower case, as OVS prints MACs (DPDK's formatter: upper case). */
static void
mac_lower(char *s, size_t len, const struct rte_ether_addr *m)
{
	const uint8_t *a = m->addr_bytes;
	snprintf(s, len, "%02x:%02x:%02x:%02x:%02x:%02x",
		 a[0], a[1], a[2], a[3], a[4], a[5]);
}

static void
put_mac(struct buf *b, const char *name, const struct rte_ether_addr *v,
	const struct rte_ether_addr *m)
{
	char s[RTE_ETHER_ADDR_FMT_SIZE], ms[RTE_ETHER_ADDR_FMT_SIZE];
	static const struct rte_ether_addr full = {
		{ 0xff, 0xff, 0xff, 0xff, 0xff, 0xff } };
	mac_lower(s, sizeof s, v);
	if (rte_is_same_ether_addr(m, &full)) {
		put(b, "%s=%s,", name, s);
	} else {
		mac_lower(ms, sizeof ms, m);
		put(b, "%s=%s/%s,", name, s, ms);
	}
}

static void
close_group(struct buf *b, size_t start)
{
	/* "name(" ... "," -> "name(...)" */
	if (b->used > start && b->used <= b->len && b->p[b->used - 1] == ',')
		b->p[b->used - 1] = ')';
	else
		put(b, ")");
	put(b, ",");
}

static const char *
port_name(uint32_t ofport, char *tmp, size_t len)
{
	const struct port *p = port_by_ofport(ofport);
	if (p)
		return p->name;
	snprintf(tmp, len, "%u", ofport);
	return tmp;
}

__extension__ typedef unsigned __int128 u128;

/* The shortest hex, as OVS's ct_label(...) */
static void
put_u128(struct buf *b, u128 v)
{
	uint64_t hi = (uint64_t)(v >> 64), lo = (uint64_t)v;

	if (hi)
		put(b, "0x%" PRIx64 "%016" PRIx64, hi, lo);
	else
		put(b, "%#" PRIx64, lo);
}

/* ct_label(0x1/0x1): what a megaflow's ct_label_bits say of the label,
 * when it can be said as one value/mask: a set bit i says (label & M_i)
 * == V_i; a clear one says (label & M_i) == V_i ^ M_i, only when M_i is
 * one bit. Otherwise ct_label_pred(BITS/MASK): the predicate bits
 * themselves (slots of the current predicate table, ct_label_pred.h). */
static void
put_ct_label(struct buf *b, const struct flow_key *k, const struct flow_key *m)
{
	const struct dp_snapshot *s = dp_snapshot_get();
	u128 val = 0, msk = 0;
	bool stated = s != NULL;

	for (uint32_t bits = m->ct_label_bits; bits && stated;
	     bits &= bits - 1) {
		unsigned i = (unsigned)__builtin_ctz(bits);
		const struct ct_label_pred *p = &s->label_preds[i];
		u128 pv = (u128)p->value[0] << 64 | p->value[1];
		u128 pm = (u128)p->mask[0] << 64 | p->mask[1];
		bool one_bit = !(pm & (pm - 1));
		if (!(k->ct_label_bits & (1u << i))) {
			stated &= one_bit;
			pv ^= pm;
		}
		if (!(s->label_preds_used & (1u << i)) ||
		    ((val ^ pv) & msk & pm))	/* contradicts the others */
			stated = false;
		val |= pv;
		msk |= pm;
	}
	if (!stated) {
		put(b, "ct_label_pred(%#x/%#x),", k->ct_label_bits,
		    m->ct_label_bits);
		return;
	}
	put(b, "ct_label(");
	put_u128(b, val);
	put(b, "/");
	put_u128(b, msk);
	put(b, "),");
}

/* ct_state(+est+trk) (flags low bit first, as OVS), ct_zone(0x1),
 * ct_mark(0x5/0xff), ct_label(0x1/0x1) */
static void
put_ct(struct buf *b, const struct flow_key *k, const struct flow_key *m)
{
	static const char *const names[8] = { "new", "est", "rel", "rpl",
					       "inv", "trk", "snat", "dnat" };

	if (m->ct_state) {
		put(b, "ct_state(");
		for (int i = 0; i < 8; i++)
			if (m->ct_state & (1u << i))
				put(b, "%c%s", k->ct_state & (1u << i) ?
					       '+' : '-', names[i]);
		put(b, "),");
	}
	if (m->ct_zone)
		put(b, m->ct_zone == UINT16_MAX ? "ct_zone(%#x)," :
		    "ct_zone(%#x/%#x),", k->ct_zone, m->ct_zone);
	if (m->ct_mark)
		put(b, m->ct_mark == UINT32_MAX ? "ct_mark(%#x)," :
		    "ct_mark(%#x/%#x),", k->ct_mark, m->ct_mark);
	if (m->ct_label_bits)
		put_ct_label(b, k, m);
}

int
xlate_format_megaflow_match(const struct flow_key *k, const struct flow_key *m,
			    char *out, size_t len)
{
	struct buf b = { out, len, 0 };
	char tmp[16];
	size_t start;

	if (len)
		out[0] = '\0';
	if (m->tun_id || m->tun_src || m->tun_dst ||
	    ip6_any(&m->tun_ipv6_src) || ip6_any(&m->tun_ipv6_dst)) {
		put(&b, "tunnel(");
		start = b.used;
		if (m->tun_id)
			put(&b, "tun_id=0x%x,", k->tun_id);
		if (m->tun_src)
			put_ip(&b, "src", k->tun_src, m->tun_src);
		if (m->tun_dst)
			put_ip(&b, "dst", k->tun_dst, m->tun_dst);
		if (ip6_any(&m->tun_ipv6_src))
			put_ip6(&b, "ipv6_src", &k->tun_ipv6_src,
				&m->tun_ipv6_src);
		if (ip6_any(&m->tun_ipv6_dst))
			put_ip6(&b, "ipv6_dst", &k->tun_ipv6_dst,
				&m->tun_ipv6_dst);
		close_group(&b, start);
	}
	/* OVS prints recirc_id(0) too; a first-pass megaflow here leaves it
	 * out (its mask has it all the same), so the dumps read as before */
	if (m->recirc_id && k->recirc_id)
		put(&b, "recirc_id(%#x),", k->recirc_id);
	if (m->in_port)
		put(&b, "in_port(%s),", port_name(k->in_port, tmp, sizeof tmp));
	put_ct(&b, k, m);
	if (!rte_is_zero_ether_addr(&m->dl_src) ||
	    !rte_is_zero_ether_addr(&m->dl_dst)) {
		put(&b, "eth(");
		start = b.used;
		if (!rte_is_zero_ether_addr(&m->dl_src))
			put_mac(&b, "src", &k->dl_src, &m->dl_src);
		if (!rte_is_zero_ether_addr(&m->dl_dst))
			put_mac(&b, "dst", &k->dl_dst, &m->dl_dst);
		close_group(&b, start);
	}
	if (m->vlan_tci)
		put(&b, "vlan(tci=0x%04x/0x%04x),",
		    rte_be_to_cpu_16(k->vlan_tci), rte_be_to_cpu_16(m->vlan_tci));
	if (m->dl_type)
		put(&b, "eth_type(0x%04x),", rte_be_to_cpu_16(k->dl_type));
	bool arp = k->dl_type == RTE_BE16(RTE_ETHER_TYPE_ARP);
	bool v6 = k->dl_type == RTE_BE16(RTE_ETHER_TYPE_IPV6);
	if (v6 && (m->nw_proto || m->nw_tos || m->nw_ttl || m->nw_frag ||
		   m->ipv6_label || ip6_any(&m->ipv6_src) ||
		   ip6_any(&m->ipv6_dst))) {
		put(&b, "ipv6(");
		start = b.used;
		if (ip6_any(&m->ipv6_src))
			put_ip6(&b, "src", &k->ipv6_src, &m->ipv6_src);
		if (ip6_any(&m->ipv6_dst))
			put_ip6(&b, "dst", &k->ipv6_dst, &m->ipv6_dst);
		if (m->ipv6_label)
			put(&b, "label=%#x,", rte_be_to_cpu_32(k->ipv6_label));
		if (m->nw_proto)
			put(&b, "proto=%u,", k->nw_proto);
		if (m->nw_tos)
			put(&b, "tclass=%#x,", k->nw_tos);
		if (m->nw_ttl)
			put(&b, "hlimit=%u,", k->nw_ttl);
		if (m->nw_frag)
			put(&b, "frag=%s,", !k->nw_frag ? "no" :
				(k->nw_frag & FLOW_NW_FRAG_LATER) ? "later"
								   : "first");
		close_group(&b, start);
	} else if (!v6 && (m->nw_src || m->nw_dst || m->nw_proto ||
			   m->nw_tos || m->nw_ttl || m->nw_frag)) {
		put(&b, arp ? "arp(" : "ipv4(");
		start = b.used;
		if (m->nw_src)
			put_ip(&b, arp ? "sip" : "src", k->nw_src, m->nw_src);
		if (m->nw_dst)
			put_ip(&b, arp ? "tip" : "dst", k->nw_dst, m->nw_dst);
		if (m->nw_proto)
			put(&b, "%s=%u,", arp ? "op" : "proto", k->nw_proto);
		if (m->nw_tos)
			put(&b, "tos=0x%x,", k->nw_tos);
		if (m->nw_ttl)
			put(&b, "ttl=%u,", k->nw_ttl);
		if (m->nw_frag)
			put(&b, "frag=%s,", !k->nw_frag ? "no" :
				(k->nw_frag & FLOW_NW_FRAG_LATER) ? "later"
								   : "first");
		close_group(&b, start);
	}
	if (m->tp_src || m->tp_dst) {
		bool icmp = v6 ? k->nw_proto == 58 : k->nw_proto == 1;
		const char *l4 = k->nw_proto == 6 ? "tcp" :
				 k->nw_proto == 17 ? "udp" :
				 icmp ? (v6 ? "icmpv6" : "icmp") : "l4";
		put(&b, "%s(", l4);
		start = b.used;
		if (m->tp_src)
			put(&b, "%s=%u,", icmp ? "type" : "src",
			    rte_be_to_cpu_16(k->tp_src));
		if (m->tp_dst)
			put(&b, "%s=%u,", icmp ? "code" : "dst",
			    rte_be_to_cpu_16(k->tp_dst));
		close_group(&b, start);
	}
	if (v6 && (ip6_any(&m->nd_target) ||
		   !rte_is_zero_ether_addr(&m->nd_sll) ||
		   !rte_is_zero_ether_addr(&m->nd_tll))) {
		put(&b, "nd(");
		start = b.used;
		if (ip6_any(&m->nd_target))
			put_ip6(&b, "target", &k->nd_target, &m->nd_target);
		if (!rte_is_zero_ether_addr(&m->nd_sll))
			put_mac(&b, "sll", &k->nd_sll, &m->nd_sll);
		if (!rte_is_zero_ether_addr(&m->nd_tll))
			put_mac(&b, "tll", &k->nd_tll, &m->nd_tll);
		close_group(&b, start);
	}
	if (b.used && b.used <= len && out[b.used - 1] == ',')
		out[--b.used] = '\0';
	return (int)b.used;
}

/* nat(src=A[-B][:P[-Q]]) as OVS's datapath actions print it; bare "nat" */
static void
put_dp_nat(struct buf *b, const struct dp_nat *n)
{
	char lo[INET_ADDRSTRLEN], hi[INET_ADDRSTRLEN];
	rte_be32_t v;

	if (!n)
		return;
	if (n->v6) {
		char r[2 * INET6_ADDRSTRLEN + 8];
		ofp_format_nat6(r, sizeof r, n->ip6[0], n->ip6[1],
				n->port_min);
		put(b, ",nat(%s=%s", n->snat ? "src" : "dst", r);
	} else if (!n->ip_min) {
		put(b, ",nat");
		return;
	} else {
		v = rte_cpu_to_be_32(n->ip_min);
		inet_ntop(AF_INET, &v, lo, sizeof lo);
		put(b, ",nat(%s=%s", n->snat ? "src" : "dst", lo);
	}
	if (!n->v6 && n->ip_max != n->ip_min) {
		v = rte_cpu_to_be_32(n->ip_max);
		inet_ntop(AF_INET, &v, hi, sizeof hi);
		put(b, "-%s", hi);
	}
	if (n->port_min) {
		put(b, ":%u", n->port_min);
		if (n->port_max != n->port_min)
			put(b, "-%u", n->port_max);
	}
	put(b, ")");
}

int
xlate_format_actions(const struct dp_actions *a, char *out, size_t len)
{
	struct buf b = { out, len, 0 };
	char tmp[512];

	if (len)
		out[0] = '\0';
	for (int i = 0; i < a->n; i++) {
		const struct dp_action *x = &a->act[i];
		if (i)
			put(&b, ",");
		switch (x->type) {
		case DP_ACT_OUTPUT:
			put(&b, "%s", port_name_at(x->port));
			break;
		case DP_ACT_TNL_PUSH:
			vxlan_tnl_template_format(&a->tnls[x->slot % DP_MAX_TNLS],
						  tmp, sizeof tmp);
			put(&b, "%s", tmp);
			break;
		case DP_ACT_TNL_CLONE:
			vxlan_tnl_template_format(&a->tnls[x->slot % DP_MAX_TNLS],
						  tmp, sizeof tmp);
			put(&b, "clone(%s,%s)", tmp, port_name_at(x->port));
			break;
		case DP_ACT_TNL_POP:
			put(&b, "tnl_pop(%s)", port_name_at(x->port));
			break;
		case DP_ACT_SET_ETH_SRC:
		case DP_ACT_SET_ETH_DST: {
			char mac[RTE_ETHER_ADDR_FMT_SIZE];
			mac_lower(mac, sizeof mac,
				  &a->macs[x->port % DP_MAX_MACS]);
			put(&b, "set(eth(%s=%s))",
			    x->type == DP_ACT_SET_ETH_SRC ? "src" : "dst", mac);
			break;
		}
		case DP_ACT_ARP_RESPOND:
			put(&b, "arp_responder(%s)", port_name_at(x->port));
			break;
		case DP_ACT_DROP:
			put(&b, "drop(%s)", drop_reason_name(x->reason));
			break;
		case DP_ACT_DROP_COPY:
			put(&b, "clone(drop(%s))", drop_reason_name(x->reason));
			break;
		case DP_ACT_CT: {
			uint8_t m = DP_CT_MARK_SLOT(x->slot);
			put(&b, "ct(%szone=%u",
			    x->slot & DP_CT_COMMIT ? "commit," : "", x->port);
			if (m)	/* as OVS: mark=VALUE/MASK */
				put(&b, ",mark=%#"PRIx32"/%#"PRIx32,
				    a->ct_marks[m - 1].value,
				    a->ct_marks[m - 1].mask);
			uint8_t l = DP_CT_LABEL_SLOT(x->slot);
			if (l) {	/* as OVS: label=VALUE/MASK */
				const struct dp_ct_label *cl =
					&a->ct_labels[l - 1];
				put(&b, ",label=");
				put_u128(&b, (u128)cl->value[1] << 64 |
					 cl->value[0]);
				put(&b, "/");
				put_u128(&b, (u128)cl->mask[1] << 64 |
					 cl->mask[0]);
			}
			put_dp_nat(&b, dp_action_nat(a, x));
			put(&b, ")");
			break;
		}
		case DP_ACT_SG:
			put(&b, "sg(%s,zone=%u",
			    x->slot & DP_SG_ALLOW ? "allow" : "deny", x->port);
			put_dp_nat(&b, dp_action_nat(a, x));
			put(&b, ")");
			break;
		case DP_ACT_RECIRC:
			put(&b, "recirc(%#x)", x->port);
			break;
		}
	}
	return (int)b.used;
}
