/* SPDX-License-Identifier: BSD-3-Clause
 * The underlay section: the NIC the overlay leaves through, our VTEP
 * address and MAC, static routes and ARP entries; and, once the ports are
 * read, that a vxlan port has somewhere to send from.
 */
#include "config_loader.h"

#include <arpa/inet.h>
#include <string.h>
#include "ipv4_prefix.h"
#include "ipv6_prefix.h"

#define ROUTES_MAX 64
#define ARP_MAX 256

static rte_be32_t
prefix_mask(uint8_t plen)
{
	return plen == 0 ? 0 : htonl(~0u << (32 - plen));
}

/* Encapsulated packets leave through an ethdev: a vhost port has no
 * neighbours to ARP for. */
static int
check_nic_port(struct loader *ld, const yaml_node_t *v, const char *name)
{
	const struct cfg_port *p = config_find_port(ld->cfg, name);
	if (p == NULL)
		return fail(ld, v, "no such port '%s'", name);
	if (p->type != CFG_PORT_DPDK && p->type != CFG_PORT_NULL)
		return fail(ld, v, "not a port of type dpdk '%s'", name);
	return 0;
}

/* ---- addresses of either family ---- */

static bool
is_zero16(const uint8_t a[16])
{
	static const uint8_t zero[16];
	return memcmp(a, zero, sizeof zero) == 0;
}

/* An IPv4 address into *ip, or an IPv6 one into ip6 (*v6 set); the error
 * names the family the text looks like. */
static int
get_address(struct loader *ld, const yaml_node_t *v, const char *what,
	    rte_be32_t *ip, uint8_t ip6[16], bool *v6)
{
	const char *s = scalar(ld, v, what);

	if (s == NULL)
		return -1;
	*v6 = strchr(s, ':') != NULL;
	if (!*v6)
		return get_ipv4(ld, v, what, ip);
	if (inet_pton(AF_INET6, s, ip6) != 1)
		return fail(ld, v, "bad IPv6 address '%s'", s);
	return 0;
}

/* A prefix "A.B.C.D/N" or "X:X::X/N", as get_address. */
static int
get_prefix_any(struct loader *ld, const yaml_node_t *v, const char *what,
	       rte_be32_t *ip, uint8_t ip6[16], uint8_t *plen, bool *v6)
{
	const char *s = scalar(ld, v, what);

	if (s == NULL)
		return -1;
	*v6 = strchr(s, ':') != NULL;
	if (!*v6)
		return get_prefix(ld, v, what, ip, plen);
	if (!ipv6_prefix_parse(s, false, ip6, plen))
		return fail(ld, v, "bad IPv6 prefix '%s'", s);
	return 0;
}

/* ---- local-ip: one prefix, or a list of one of each family ---- */

static int
local_ip_one(struct loader *ld, const yaml_node_t *v, struct vxs_config *cfg)
{
	rte_be32_t ip = 0;
	uint8_t ip6[16] = { 0 }, plen = 0;
	bool v6;

	if (get_prefix_any(ld, v, "local-ip", &ip, ip6, &plen, &v6) < 0)
		return -1;
	/* 0.0.0.0, ::, a /0 and an IPv6 multicast address are no VTEP */
	if (plen == 0 || (v6 ? is_zero16(ip6) || ip6[0] == 0xff : ip == 0))
		return fail(ld, v, "bad local-ip '%s'", raw_text(v));
	if (v6 ? cfg->vtep_ip6_set : cfg->vtep_ip != 0)
		return fail(ld, v, "more than one IPv%c local-ip '%s'",
			    v6 ? '6' : '4', raw_text(v));
	if (v6) {
		cfg->vtep_ip6_set = true;
		memcpy(cfg->vtep_ip6, ip6, sizeof cfg->vtep_ip6);
		cfg->vtep_plen6 = plen;
	} else {
		cfg->vtep_ip = ip;
		cfg->vtep_plen = plen;
	}
	return 0;
}

int
underlay_local_ip(struct loader *ld, const yaml_node_t *v, void *obj)
{
	struct vxs_config *cfg = obj;

	if (v->type != YAML_SEQUENCE_NODE)
		return local_ip_one(ld, v, cfg);
	if (seq_len(v) == 0 || seq_len(v) > 2)
		return fail(ld, v, "local-ip: one prefix, or one IPv4 and one "
			    "IPv6 '%zu'", seq_len(v));
	for (size_t i = 0; i < seq_len(v); i++)
		if (local_ip_one(ld, seq_item(ld, v, i), cfg) < 0)
			return -1;
	return 0;
}

/* ---- routes ---- */

int
route_prefix(struct loader *ld, const yaml_node_t *v, void *obj)
{
	struct cfg_route *r = obj;

	return get_prefix_any(ld, v, "prefix", &r->prefix, r->prefix6,
			      &r->plen, &r->ipv6);
}

int
route_gateway(struct loader *ld, const yaml_node_t *v, void *obj)
{
	struct cfg_route *r = obj;
	bool v6;

	if (get_address(ld, v, "gateway", &r->gateway, r->gateway6, &v6) < 0)
		return -1;
	if (v6 ? is_zero16(r->gateway6) : r->gateway == 0)
		return fail(ld, v, "bad gateway '%s'", raw_text(v));
	return 0;
}

int
route_port(struct loader *ld, const yaml_node_t *v, void *obj)
{
	struct cfg_route *route = obj;
	if (get_string(ld, v, "port", route->port, sizeof route->port) < 0)
		return -1;
	return check_nic_port(ld, v, route->port);
}

static int
check_route(struct loader *ld, struct cfg_route *r, const yaml_node_t *map)
{
	const struct vxs_config *cfg = ld->cfg;
	const yaml_node_t *prefix = key_node(ld, map, route_keys, "prefix");

	const yaml_node_t *gw = key_node(ld, map, route_keys, "gateway");

	if (prefix == NULL)
		return fail(ld, map, "missing key '%s' in route", "prefix");
	if (r->ipv6 ? ipv6_prefix_host_bits(r->prefix6, r->plen)
		    : (r->prefix & ~prefix_mask(r->plen)) != 0)
		return fail(ld, prefix, "route prefix has host bits set '%s'",
			    raw_text(prefix));
	if (gw != NULL && (r->ipv6 ? r->gateway != 0
				   : !is_zero16(r->gateway6)))
		return fail(ld, gw, "route gateway is not of the prefix's "
			    "address family '%s'", raw_text(gw));
	for (const struct cfg_route *o = cfg->routes; o < r; o++)
		if (o->ipv6 == r->ipv6 && o->plen == r->plen &&
		    o->prefix == r->prefix &&
		    !memcmp(o->prefix6, r->prefix6, sizeof o->prefix6))
			return fail(ld, prefix, "duplicate route '%s'",
				    raw_text(prefix));
	if (key_node(ld, map, route_keys, "port") != NULL)
		return 0;
	if (cfg->underlay_port[0] == '\0')
		return fail(ld, map, "route needs a port (no underlay port) '%s'",
			    raw_text(prefix));
	memcpy(r->port, cfg->underlay_port, sizeof r->port);
	return 0;
}

/* One item of routes (underlay_keys). */
int
underlay_route(struct loader *ld, const yaml_node_t *map, void *obj)
{
	static const struct scope sc = { "in route", 0, NULL };
	struct vxs_config *cfg = obj;
	struct cfg_route *route = &cfg->routes[cfg->n_routes];

	if (cfg->n_routes == ROUTES_MAX)
		return fail(ld, map, "more than %d routes '%d'", ROUTES_MAX,
			    ROUTES_MAX + 1);
	if (expect_map(ld, map, "route") < 0)
		return -1;
	route->line = (int)map->start_mark.line + 1;
	route->col = (int)map->start_mark.column + 1;
	if (parse_mapping(ld, map, route_keys, route, &sc) < 0 ||
	    check_route(ld, route, map) < 0)
		return -1;
	cfg->n_routes++;
	return 0;
}

/* ---- the vxlan port's addresses, either family ---- */

int
vxlan_remote_ip(struct loader *ld, const yaml_node_t *v, void *obj)
{
	struct cfg_port *p = obj;

	if (get_address(ld, v, "remote_ip", &p->remote_ip, p->remote_ip6,
			&p->remote_ipv6) < 0)
		return -1;
	if (p->remote_ipv6 ? is_zero16(p->remote_ip6) || p->remote_ip6[0] ==
				     0xff
			   : p->remote_ip == 0)
		return fail(ld, v, "bad remote_ip '%s'", raw_text(v));
	return 0;
}

int
vxlan_local_ip(struct loader *ld, const yaml_node_t *v, void *obj)
{
	struct cfg_port *p = obj;

	return get_address(ld, v, "local_ip", &p->local_ip, p->local_ip6,
			   &p->local_ipv6);
}

int
vxlan_udp6zerocsumrx(struct loader *ld, const yaml_node_t *v, void *obj)
{
	struct cfg_port *p = obj;
	bool accept;

	if (get_bool(ld, v, "udp6zerocsumrx", &accept) < 0)
		return -1;
	p->udp6_zero_csum_refused = !accept;
	return 0;
}

/* ---- static neighbours (arp, alias neighbours), either family ---- */

int
arp_ip(struct loader *ld, const yaml_node_t *v, void *obj)
{
	struct cfg_arp *a = obj;

	return get_address(ld, v, "ip", &a->ip, a->ip6, &a->ipv6);
}

/* One item of arp (underlay_keys). */
int
underlay_arp(struct loader *ld, const yaml_node_t *map, void *obj)
{
	static const struct scope sc = { "in arp entry", 0, NULL };
	struct vxs_config *cfg = obj;
	struct cfg_arp *arp = &cfg->arp[cfg->n_arp];
	const yaml_node_t *ip, *mac;

	if (cfg->n_arp == ARP_MAX)
		return fail(ld, map, "more than %d arp entries '%d'", ARP_MAX,
			    ARP_MAX + 1);
	if (expect_map(ld, map, "arp entry") < 0 ||
	    parse_mapping(ld, map, arp_keys, arp, &sc) < 0)
		return -1;
	ip = key_node(ld, map, arp_keys, "ip");
	mac = key_node(ld, map, arp_keys, "mac");
	if (ip == NULL || mac == NULL)
		return fail(ld, map, "missing key '%s' in arp entry",
			    ip ? "mac" : "ip");
	if (arp->ipv6 && (is_zero16(arp->ip6) || arp->ip6[0] == 0xff))
		return fail(ld, ip, "bad ip '%s'", raw_text(ip));
	for (const struct cfg_arp *o = cfg->arp; o < arp; o++)
		if (o->ipv6 == arp->ipv6 && o->ip == arp->ip &&
		    !memcmp(o->ip6, arp->ip6, sizeof o->ip6))
			return fail(ld, ip, "duplicate arp entry '%s'",
				    raw_text(ip));
	arp->line = (int)map->start_mark.line + 1;
	arp->col = (int)map->start_mark.column + 1;
	cfg->n_arp++;
	return 0;
}

/* ---- the section ---- */

int
parse_underlay(struct loader *ld)
{
	static const struct scope sc = { "in underlay", 0, NULL };
	struct vxs_config *cfg = ld->cfg;
	const yaml_node_t *port;

	if (ld->underlay == NULL)
		return 0;
	if (expect_map(ld, ld->underlay, "underlay") < 0)
		return -1;
	port = map_get(ld, ld->underlay, "port");
	if (port != NULL &&
	    (get_string(ld, port, "port", cfg->underlay_port,
			sizeof cfg->underlay_port) < 0 ||
	     check_nic_port(ld, port, cfg->underlay_port) < 0))
		return -1;
	if (parse_mapping(ld, ld->underlay, underlay_keys, cfg, &sc) < 0)
		return -1;
	cfg->vtep_mac_set =
		key_node(ld, ld->underlay, underlay_keys, "mac") != NULL;
	return 0;
}

/* A vxlan port needs somewhere to send from: a NIC and a VTEP address.
 * An unset local_ip means the VTEP's, as OVS picks it from the route. */
int
check_tunnel(struct loader *ld)
{
	struct vxs_config *cfg = ld->cfg;
	const yaml_node_t *at = ld->underlay ? ld->underlay : ld->vxlan_node;
	struct cfg_port *vx = NULL;

	if (ld->vxlan_node == NULL)
		return 0;
	for (unsigned i = 0; i < cfg->n_ports; i++)
		if (cfg->ports[i].type == CFG_PORT_VXLAN)
			vx = &cfg->ports[i];
	if (cfg->underlay_port[0] == '\0')
		return fail(ld, at, "missing underlay 'port' for vxlan port '%s'",
			    vx->name);
	if (cfg->vtep_ip == 0 && !cfg->vtep_ip6_set)
		return fail(ld, at,
			    "missing underlay 'local-ip' for vxlan port '%s'",
			    vx->name);
	/* a fixed remote needs a VTEP address of its family to send from */
	if (!vx->remote_ip_flow &&
	    (vx->remote_ipv6 ? !cfg->vtep_ip6_set : cfg->vtep_ip == 0))
		return fail(ld, at, "vxlan port '%s': remote_ip is %s but the "
			    "underlay has no %s 'local-ip'", vx->name,
			    vx->remote_ipv6 ? "IPv6" : "IPv4",
			    vx->remote_ipv6 ? "IPv6" : "IPv4");
	if (ld->vxlan_local_ip_node == NULL) {
		vx->local_ip = cfg->vtep_ip;
		memcpy(vx->local_ip6, cfg->vtep_ip6, sizeof vx->local_ip6);
	} else if (!vx->local_ip_flow &&
		   (vx->local_ipv6 ? !cfg->vtep_ip6_set ||
				     memcmp(vx->local_ip6, cfg->vtep_ip6, 16)
				   : vx->local_ip != cfg->vtep_ip)) {
		return fail(ld, ld->vxlan_local_ip_node,
			    "local_ip is not the underlay local-ip '%s'",
			    raw_text(ld->vxlan_local_ip_node));
	} else if (!vx->local_ip_flow && !vx->remote_ip_flow &&
		   vx->local_ipv6 != vx->remote_ipv6) {
		return fail(ld, ld->vxlan_local_ip_node,
			    "local_ip and remote_ip of two families '%s'",
			    raw_text(ld->vxlan_local_ip_node));
	}
	return 0;
}

/* check_tunnel's checks for a tunnel port added at run time, against the
 * running underlay: the same texts, without file:line:col. */
int
config_tunnel_port_check(const struct vxs_config *cfg, struct cfg_port *vx,
			 bool local_given, char *err, size_t errlen)
{
	char a[INET6_ADDRSTRLEN];

	if (cfg->underlay_port[0] == '\0') {
		snprintf(err, errlen, "missing underlay 'port' for vxlan port "
			 "'%s'", vx->name);
		return -1;
	}
	if (cfg->vtep_ip == 0 && !cfg->vtep_ip6_set) {
		snprintf(err, errlen, "missing underlay 'local-ip' for vxlan "
			 "port '%s'", vx->name);
		return -1;
	}
	if (!vx->remote_ip_flow &&
	    (vx->remote_ipv6 ? !cfg->vtep_ip6_set : cfg->vtep_ip == 0)) {
		const char *fam = vx->remote_ipv6 ? "IPv6" : "IPv4";
		snprintf(err, errlen, "vxlan port '%s': remote_ip is %s but "
			 "the underlay has no %s 'local-ip'", vx->name, fam,
			 fam);
		return -1;
	}
	if (!local_given) {
		vx->local_ip = cfg->vtep_ip;
		memcpy(vx->local_ip6, cfg->vtep_ip6, sizeof vx->local_ip6);
		return 0;
	}
	if (vx->local_ip_flow)
		return 0;
	inet_ntop(vx->local_ipv6 ? AF_INET6 : AF_INET,
		  vx->local_ipv6 ? (const void *)vx->local_ip6
				 : (const void *)&vx->local_ip, a, sizeof a);
	if (vx->local_ipv6 ? !cfg->vtep_ip6_set ||
			     memcmp(vx->local_ip6, cfg->vtep_ip6, 16)
			   : vx->local_ip != cfg->vtep_ip) {
		snprintf(err, errlen, "local_ip is not the underlay local-ip "
			 "'%s'", a);
		return -1;
	}
	if (!vx->remote_ip_flow && vx->local_ipv6 != vx->remote_ipv6) {
		snprintf(err, errlen, "local_ip and remote_ip of two families "
			 "'%s'", a);
		return -1;
	}
	return 0;
}
