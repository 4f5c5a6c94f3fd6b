/* SPDX-License-Identifier: BSD-3-Clause
 * One megaflow as OVS 3.1's dpctl/dump-flows prints a datapath flow
 * (lib/dpctl.c format_dpif_flow, lib/odp-util.c): the key in ODP order,
 * then the counters and the actions (odp_format.h). */
#include <arpa/inet.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <rte_cycles.h>
#include "cmd_util.h"
#include "odp_format.h"
#include "odp_format_priv.h"
#include "port.h"
#include "vxlan_tnl.h"
#include "xlate.h"

static const struct rte_ether_addr mac_exact = {
	{ 0xff, 0xff, 0xff, 0xff, 0xff, 0xff } };

static void
put_mac(struct ds *out, const struct rte_ether_addr *m)
{
	char s[RTE_ETHER_ADDR_FMT_SIZE];
	mac_str(m, s);
	ds_put_cstr(out, s);
}

static void
put_ip(struct ds *out, rte_be32_t ip)
{
	char s[INET_ADDRSTRLEN];
	ds_put_cstr(out, ip_str(ip, s));
}

/* A field of a group "name(a=1,b=2/0xf)" (struct group,
 * odp_format_priv.h): the caller owns the comma between fields. */
void
field_start(struct group *g, const char *name)
{
	if (g->any)
		ds_put_char(g->out, ',');
	g->any = true;
	ds_put_format(g->out, "%s=", name);
}

static void
field_ip(struct group *g, const char *name, rte_be32_t v, rte_be32_t m)
{
	if (!m && !g->verbose)
		return;
	field_start(g, name);
	put_ip(g->out, v);
	if (m != UINT32_MAX) {
		ds_put_char(g->out, '/');
		put_ip(g->out, m);
	}
}

void
field_mac(struct group *g, const char *name, const struct rte_ether_addr *v,
	  const struct rte_ether_addr *m)
{
	if (rte_is_zero_ether_addr(m) && !g->verbose)
		return;
	field_start(g, name);
	put_mac(g->out, v);
	if (!rte_is_same_ether_addr(m, &mac_exact)) {
		ds_put_char(g->out, '/');
		put_mac(g->out, m);
	}
}

void
field_uint(struct group *g, const char *name, unsigned v, unsigned m,
	   unsigned exact, bool hex)
{
	if (!m && !g->verbose)
		return;
	field_start(g, name);
	ds_put_format(g->out, hex ? "%#x" : "%u", v);
	if (m != exact)
		ds_put_format(g->out, "/%#x", m);
}

static const char *
port_label(uint32_t ofport, bool names, char *tmp, size_t len)
{
	const struct port *p = names ? port_by_ofport(ofport) : NULL;

	if (p)
		return p->name;
	snprintf(tmp, len, "%u", ofport);
	return tmp;
}

/* ct_state, ct_zone, ct_mark, ct_label as xlate prints them: one
 * formatter for both reports. */
static void
put_ct(struct ds *out, const struct flow_key *k, const struct flow_key *m,
       bool verbose)
{
	struct flow_key ct_only;
	char buf[256];

	flow_key_zero(&ct_only);
	ct_only.ct_state = m->ct_state;
	ct_only.ct_zone = m->ct_zone;
	ct_only.ct_mark = m->ct_mark;
	ct_only.ct_label_bits = m->ct_label_bits;
	if (xlate_format_megaflow_match(k, &ct_only, buf, sizeof buf) > 0)
		ds_put_format(out, "%s,", buf);
	else if (verbose)
		ds_put_cstr(out, "ct_state(0/0),ct_zone(0/0),ct_mark(0/0),"
			    "ct_label(0/0),");
}

static void
put_l3_l4(struct ds *out, const struct flow_key *k, const struct flow_key *m,
	  bool verbose)
{
	uint16_t type = rte_be_to_cpu_16(k->dl_type);
	bool arp = type == RTE_ETHER_TYPE_ARP;
	struct group g = { out, verbose, false };

	if (type == RTE_ETHER_TYPE_IPV6) {
		odp_format_ipv6(out, k, m, verbose);
		return;
	}
	if (type != RTE_ETHER_TYPE_IPV4 && !arp)
		return;
	size_t start = out->len;
	ds_put_cstr(out, arp ? ",arp(" : ",ipv4(");
	field_ip(&g, arp ? "sip" : "src", k->nw_src, m->nw_src);
	field_ip(&g, arp ? "tip" : "dst", k->nw_dst, m->nw_dst);
	field_uint(&g, arp ? "op" : "proto", k->nw_proto, m->nw_proto, 0xff,
		   false);
	if (!arp) {
		field_uint(&g, "tos", k->nw_tos, m->nw_tos, 0xff, true);
		field_uint(&g, "ttl", k->nw_ttl, m->nw_ttl, 0xff, false);
		if (m->nw_frag || verbose) {
			field_start(&g, "frag");
			ds_put_cstr(out, !k->nw_frag ? "no" :
				    k->nw_frag & FLOW_NW_FRAG_LATER ? "later"
								     : "first");
		}
	}
	if (!g.any) {		/* no field of it matched: no group */
		out->len = start;
		out->s[start] = '\0';
		return;
	}
	ds_put_char(out, ')');
	if (arp || (k->nw_frag & FLOW_NW_FRAG_LATER) ||
	    (!m->tp_src && !m->tp_dst && !verbose))
		return;
	const char *l4 = k->nw_proto == IPPROTO_TCP ? "tcp" :
			 k->nw_proto == IPPROTO_UDP ? "udp" :
			 k->nw_proto == IPPROTO_ICMP ? "icmp" : NULL;
	if (!l4)
		return;
	bool icmp = k->nw_proto == IPPROTO_ICMP;
	g.any = false;
	ds_put_format(out, ",%s(", l4);
	field_uint(&g, icmp ? "type" : "src", rte_be_to_cpu_16(k->tp_src),
		   rte_be_to_cpu_16(m->tp_src), 0xffff, false);
	field_uint(&g, icmp ? "code" : "dst", rte_be_to_cpu_16(k->tp_dst),
		   rte_be_to_cpu_16(m->tp_dst), 0xffff, false);
	ds_put_char(out, ')');
}

void
odp_format_key(struct ds *out, const struct flow_key *k,
	       const struct flow_key *m, const struct odp_format_opts *o)
{
	struct group g = { out, o->verbose, false };
	char tmp[16];

	if (o->verbose)
		ds_put_cstr(out, "skb_priority(0/0),");
	bool tun6 = flow_key_has_line3(k);

	if (m->tun_id || m->tun_src || m->tun_dst || flow_key_has_line3(m) ||
	    (o->verbose && (k->tun_id || k->tun_src || tun6))) {
		ds_put_cstr(out, "tunnel(");
		field_uint(&g, "tun_id", k->tun_id, m->tun_id, UINT32_MAX,
			   true);
		/* one family's addresses, as OVS's format_odp_tun_attr
		 * prints the attributes the key has */
		if (tun6 || flow_key_has_line3(m)) {
			field_in6(&g, "ipv6_src", &k->tun_ipv6_src,
				  &m->tun_ipv6_src);
			field_in6(&g, "ipv6_dst", &k->tun_ipv6_dst,
				  &m->tun_ipv6_dst);
		} else {
			field_ip(&g, "src", k->tun_src, m->tun_src);
			field_ip(&g, "dst", k->tun_dst, m->tun_dst);
		}
		ds_put_cstr(out, "),");
	}
	if (o->verbose)
		ds_put_cstr(out, "skb_mark(0/0),");
	put_ct(out, k, m, o->verbose);
	ds_put_format(out, "recirc_id(%#x),", k->recirc_id);
	if (o->verbose)
		ds_put_cstr(out, "dp_hash(0/0),");
	ds_put_format(out, "in_port(%s),packet_type(ns=0,id=0)",
		      port_label(k->in_port, o->names, tmp, sizeof tmp));
	g.any = false;
	if (!rte_is_zero_ether_addr(&m->dl_src) ||
	    !rte_is_zero_ether_addr(&m->dl_dst) || o->verbose) {
		ds_put_cstr(out, ",eth(");
		field_mac(&g, "src", &k->dl_src, &m->dl_src);
		field_mac(&g, "dst", &k->dl_dst, &m->dl_dst);
		ds_put_char(out, ')');
	}
	if (m->vlan_tci)
		ds_put_format(out, ",vlan(tci=0x%04x/0x%04x)",
			      rte_be_to_cpu_16(k->vlan_tci),
			      rte_be_to_cpu_16(m->vlan_tci));
	/* OVS's megaflows always match it; ours only when a rule needs it */
	if (m->dl_type == RTE_BE16(0xffff))
		ds_put_format(out, ",eth_type(0x%04x)",
			      rte_be_to_cpu_16(k->dl_type));
	else if (m->dl_type || o->verbose)
		ds_put_format(out, ",eth_type(0x%04x/0x%04x)",
			      rte_be_to_cpu_16(k->dl_type),
			      rte_be_to_cpu_16(m->dl_type));
	put_l3_l4(out, k, m, o->verbose);
}

/* tnl_push(tnl_port(P),header(...),out_port(U)): the header is the
 * template's own text (vxlan_tnl.c), the underlay NIC its out_port. */
static void
put_tnl_push(struct ds *out, const struct vxlan_tnl_template *t,
	     const struct odp_format_opts *o)
{
	static const char prefix[] = "tnl_push(tnl_port(vxlan),";
	const struct port *vx = port_vxlan(), *nic = port_underlay();
	char buf[512], tmp[16];

	int n = vxlan_tnl_template_format(t, buf, sizeof buf);
	if (n < (int)sizeof prefix || n >= (int)sizeof buf) {
		ds_put_cstr(out, buf);
		return;
	}
	buf[n - 1] = '\0';	/* tnl_push's own ")" */
	ds_put_format(out, "tnl_push(tnl_port(%s),%s",
		      vx ? port_label(vx->ofport, o->names, tmp, sizeof tmp)
			 : "vxlan", buf + sizeof prefix - 1);
	ds_put_format(out, ",out_port(%s))",
		      nic ? port_label(nic->ofport, o->names, tmp, sizeof tmp)
			  : "?");
}

static const char *
port_at_label(uint16_t idx, bool names, char *tmp, size_t len)
{
	const struct port *p = idx < n_ports ? port_at(idx) : NULL;

	if (!p)
		return "?";
	return names ? p->name : port_label(p->ofport, false, tmp, len);
}

void
odp_format_actions(struct ds *out, const struct dp_actions *a,
		   const struct odp_format_opts *o)
{
	char tmp[16], buf[1024];

	if (!a->n)
		ds_put_cstr(out, "drop");
	for (int i = 0; i < a->n; i++) {
		const struct dp_action *x = &a->act[i];
		const struct vxlan_tnl_template *t =
			&a->tnls[x->slot % DP_MAX_TNLS];
		if (i)
			ds_put_char(out, ',');
		switch (x->type) {
		case DP_ACT_OUTPUT:
			ds_put_cstr(out, port_at_label(x->port, o->names, tmp,
						       sizeof tmp));
			break;
		case DP_ACT_TNL_PUSH:
			put_tnl_push(out, t, o);
			break;
		case DP_ACT_TNL_CLONE:
			ds_put_cstr(out, "clone(");
			put_tnl_push(out, t, o);
			ds_put_format(out, ",%s)", port_at_label(x->port,
				      o->names, tmp, sizeof tmp));
			break;
		case DP_ACT_TNL_POP:
			ds_put_format(out, "tnl_pop(%s)", port_at_label(x->port,
				      o->names, tmp, sizeof tmp));
			break;
		default: {	/* no port in it: the rule formatter's text */
			struct dp_actions one = *a;
			one.n = 1;
			one.act[0] = *x;
			xlate_format_actions(&one, buf, sizeof buf);
			ds_put_cstr(out, buf);
		}
		}
	}
}

void
odp_format_ufid(struct ds *out, uint64_t id)
{
	ds_put_format(out, "ufid:00000000-0000-0000-%04x-%012" PRIx64,
		      (unsigned)(id >> 48), id & UINT64_C(0xffffffffffff));
}

void
odp_format_flow(struct ds *out, const struct mf_dump *d, uint64_t now_tsc,
		const struct odp_format_opts *o)
{
	if (o->verbose) {
		odp_format_ufid(out, d->id);
		ds_put_cstr(out, ", ");
	}
	odp_format_key(out, &d->key, &d->mask, o);
	ds_put_format(out, ", packets:%" PRIu64 ", bytes:%" PRIu64 ", used:",
		      d->n_packets, d->n_bytes);
	if (!d->used_tsc)
		ds_put_cstr(out, "never");
	else	/* another core's TSC may be a hair ahead */
		ds_put_format(out, "%.3fs", now_tsc > d->used_tsc ?
			      (double)(now_tsc - d->used_tsc) /
			      rte_get_tsc_hz() : 0);
	if (o->verbose && d->mark)	/* the NIC marks, we act: partial */
		ds_put_format(out, ", offloaded:partial, mark:%u", d->mark);
	if (o->verbose)
		ds_put_cstr(out, ", dp:ovs");
	ds_put_cstr(out, ", actions:");
	odp_format_actions(out, &d->actions, o);
	ds_put_char(out, '\n');
}
