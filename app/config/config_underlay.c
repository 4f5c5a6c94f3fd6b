/* SPDX-License-Identifier: BSD-3-Clause
 * The underlay section: the NIC the overlay leaves through, our VTEP
 * address and MAC, static routes and ARP entries; and, once the ports are
 * read, that a vxlan port has somewhere to send from.
 */
#include "config_loader.h"

#include <arpa/inet.h>
#include <string.h>

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

/* ---- routes ---- */

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

	if (prefix == NULL)
		return fail(ld, map, "missing key '%s' in route", "prefix");
	if ((r->prefix & ~prefix_mask(r->plen)) != 0)
		return fail(ld, prefix, "route prefix has host bits set '%s'",
			    raw_text(prefix));
	for (const struct cfg_route *o = cfg->routes; o < r; o++)
		if (o->prefix == r->prefix && o->plen == r->plen)
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

/* ---- static ARP entries ---- */

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
	for (const struct cfg_arp *o = cfg->arp; o < arp; o++)
		if (o->ip == arp->ip)
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
	if (cfg->vtep_ip == 0)
		return fail(ld, at,
			    "missing underlay 'local-ip' for vxlan port '%s'",
			    vx->name);
	if (ld->vxlan_local_ip_node == NULL)
		vx->local_ip = cfg->vtep_ip;
	else if (!vx->local_ip_flow && vx->local_ip != cfg->vtep_ip)
		return fail(ld, ld->vxlan_local_ip_node,
			    "local_ip is not the underlay local-ip '%s'",
			    raw_text(ld->vxlan_local_ip_node));
	return 0;
}
