/* SPDX-License-Identifier: BSD-3-Clause
 * The port table as the OpenFlow parser and formatter see it: port names
 * to ofport numbers and back (struct ofp_port_map, ofp_rule.h). Here in
 * the slow path, on port.h's lookups, because the port table knows
 * nothing of OpenFlow's syntax (app/ports is below app/ofproto:
 * scripts/check-layers.py).
 */
#include "ofp_rule.h"
#include "port.h"

/* aux non-NULL: a rule being added, which may name a port to come (its
 * number is set aside for the name, port_live.c). */
static uint32_t
map_port_by_name(const char *name, void *aux)
{
	struct port *p = port_by_name(name);
	if (p)
		return p->is_underlay ? 0 : p->ofport;
	return ports_ofport_for_name(name, aux != NULL);
}

static const char *
map_name_by_port(uint32_t ofport, void *aux)
{
	(void)aux;
	struct port *p = port_by_ofport(ofport);
	return p ? p->name : ports_name_of_ofport(ofport);
}

const struct ofp_port_map *
ports_ofp_map(void)
{
	static const struct ofp_port_map map = {
		.port_by_name = map_port_by_name,
		.name_by_port = map_name_by_port,
	};
	return &map;
}

const struct ofp_port_map *
ports_ofp_map_adding(void)
{
	static const struct ofp_port_map map = {
		.port_by_name = map_port_by_name,
		.name_by_port = map_name_by_port,
		.aux = (void *)1,
	};
	return &map;
}
