/* SPDX-License-Identifier: BSD-3-Clause
 * An IPv6 megaflow's key as OVS 3.1's dpctl/dump-flows prints it (lib/
 * odp-util.c format_odp_key_attr: OVS_KEY_ATTR_IPV6, _TCP, _UDP,
 * _ICMPV6, _ND):
 *
 *   ipv6(src=A[/M],dst=A[/M],label=0x..[/0x..],proto=N,tclass=0x..[/0x..],
 *        hlimit=N,frag=no|first|later),tcp(src=,dst=)|udp(...)|
 *        icmpv6(type=N,code=N),nd(target=A[/M],sll=MAC[/M],tll=MAC[/M])
 *
 * Addresses and their masks through inet_ntop, the mask as an address
 * (format_in6_addr: never /LEN); the label %#x, exact when its 20 bits
 * are; tclass is the key's nw_tos (the DSCP bits: ECN is not in the key),
 * %#x. As for ipv4(...) (odp_format.c), a field the mask ignores is left
 * out unless verbose, a group none of whose fields is matched is left
 * out, and a later fragment has no L4 group; the L4 group and nd(...)
 * do not need an ipv6(...) before them. nd(...) follows what its
 * mask matches, or verbose an ND key's (ICMPv6 135/136, code 0).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include "odp_format_priv.h"

static bool
in6_is_zero(const struct flow_in6_addr *a)
{
	for (int i = 0; i < 16; i++)
		if (a->a[i])
			return false;
	return true;
}

static bool
in6_is_ones(const struct flow_in6_addr *a)
{
	for (int i = 0; i < 16; i++)
		if (a->a[i] != 0xff)
			return false;
	return true;
}

static void
put_in6(struct ds *out, const struct flow_in6_addr *a)
{
	char s[INET6_ADDRSTRLEN];

	ds_put_cstr(out, inet_ntop(AF_INET6, a->a, s, sizeof s) ? s : "?");
}

void
field_in6(struct group *g, const char *name, const struct flow_in6_addr *v,
	  const struct flow_in6_addr *m)
{
	if (in6_is_zero(m) && !g->verbose)
		return;
	field_start(g, name);
	put_in6(g->out, v);
	if (!in6_is_ones(m)) {
		ds_put_char(g->out, '/');
		put_in6(g->out, m);
	}
}

static void
field_label(struct group *g, rte_be32_t v, rte_be32_t m)
{
	uint32_t label = rte_be_to_cpu_32(v), mask = rte_be_to_cpu_32(m);

	if (!mask && !g->verbose)
		return;
	field_start(g, "label");
	ds_put_format(g->out, "%#x", label);
	if ((mask & FLOW_IPV6_LABEL_MASK) != FLOW_IPV6_LABEL_MASK)
		ds_put_format(g->out, "/%#x", mask);
}

/* Drops an empty "name(" started at start; else closes it. */
static void
close_group(struct ds *out, size_t start, const struct group *g)
{
	if (!g->any) {
		out->len = start;
		out->s[start] = '\0';
		return;
	}
	ds_put_char(out, ')');
}

static bool
is_nd(const struct flow_key *k)
{
	uint16_t type = rte_be_to_cpu_16(k->tp_src);

	return k->nw_proto == IPPROTO_ICMPV6 && (type == 135 || type == 136) &&
	       !k->tp_dst;
}

static void
put_l4(struct ds *out, const struct flow_key *k, const struct flow_key *m,
       bool verbose)
{
	struct group g = { out, verbose, false };
	bool icmp6 = k->nw_proto == IPPROTO_ICMPV6;
	const char *l4 = k->nw_proto == IPPROTO_TCP ? "tcp" :
			 k->nw_proto == IPPROTO_UDP ? "udp" :
			 icmp6 ? "icmpv6" : NULL;

	if (!l4 || (!m->tp_src && !m->tp_dst && !verbose))
		return;
	ds_put_format(out, ",%s(", l4);
	field_uint(&g, icmp6 ? "type" : "src", rte_be_to_cpu_16(k->tp_src),
		   rte_be_to_cpu_16(m->tp_src), 0xffff, false);
	field_uint(&g, icmp6 ? "code" : "dst", rte_be_to_cpu_16(k->tp_dst),
		   rte_be_to_cpu_16(m->tp_dst), 0xffff, false);
	ds_put_char(out, ')');
}

static void
put_nd(struct ds *out, const struct flow_key *k, const struct flow_key *m,
       bool verbose)
{
	struct group g = { out, verbose, false };
	bool masked = !in6_is_zero(&m->nd_target) ||
		      !rte_is_zero_ether_addr(&m->nd_sll) ||
		      !rte_is_zero_ether_addr(&m->nd_tll);

	if (!masked && !(verbose && is_nd(k)))
		return;
	ds_put_cstr(out, ",nd(");
	field_in6(&g, "target", &k->nd_target, &m->nd_target);
	field_mac(&g, "sll", &k->nd_sll, &m->nd_sll);
	field_mac(&g, "tll", &k->nd_tll, &m->nd_tll);
	ds_put_char(out, ')');
}

void
odp_format_ipv6(struct ds *out, const struct flow_key *k,
		const struct flow_key *m, bool verbose)
{
	struct group g = { out, verbose, false };
	size_t start = out->len;

	ds_put_cstr(out, ",ipv6(");
	field_in6(&g, "src", &k->ipv6_src, &m->ipv6_src);
	field_in6(&g, "dst", &k->ipv6_dst, &m->ipv6_dst);
	field_label(&g, k->ipv6_label, m->ipv6_label);
	field_uint(&g, "proto", k->nw_proto, m->nw_proto, 0xff, false);
	field_uint(&g, "tclass", k->nw_tos, m->nw_tos, 0xff, true);
	field_uint(&g, "hlimit", k->nw_ttl, m->nw_ttl, 0xff, false);
	if (m->nw_frag || verbose) {
		field_start(&g, "frag");
		ds_put_cstr(out, !k->nw_frag ? "no" :
			    k->nw_frag & FLOW_NW_FRAG_LATER ? "later" : "first");
	}
	close_group(out, start, &g);
	/* L4 and nd follow their own masks: a megaflow can match the ND
	 * target alone (a rule that failed on it, xlate_pipeline.c) */
	if (k->nw_frag & FLOW_NW_FRAG_LATER)
		return;
	put_l4(out, k, m, verbose);
	put_nd(out, k, m, verbose);
}
