/* SPDX-License-Identifier: BSD-3-Clause
 * The ports section: each port's name and type (read first, since which
 * keys apply depends on the type), its keys with logic (offload, rxq
 * affinity, vxlan options and VNIs), the checks that need the whole port
 * or the ports before it, and OVS-style ofport numbering.
 */
#include "config_loader.h"
#include "fdir_model.h"

#include <stdlib.h>
#include <string.h>

#define AFFINITY_MAX 16

static const struct {
	const char *name;
	enum cfg_port_type type;
} port_types[] = {
	{ "dpdk", CFG_PORT_DPDK },
	{ "dpdkvhostuser", CFG_PORT_VHOST_SERVER },
	{ "dpdkvhostuserclient", CFG_PORT_VHOST_CLIENT },
	{ "vxlan", CFG_PORT_VXLAN },
	{ "null", CFG_PORT_NULL },	/* benchmarks only (perf/dpbench) */
};

/* The port being read, for the checks that follow its keys. */
struct port_ctx {
	struct cfg_port *port;
	unsigned index;
	const yaml_node_t *map;
};

static const char *
port_type_name(enum cfg_port_type t)
{
	for (size_t i = 0; i < RTE_DIM(port_types); i++)
		if (port_types[i].type == t)
			return port_types[i].name;
	return "?";
}

/* ---- the keys with logic ---- */

int
port_offload(struct loader *ld, const yaml_node_t *v, void *obj)
{
	struct cfg_port *p = obj;
	const char *s = scalar(ld, v, "offload");

	if (s == NULL)
		return -1;
	if (!strcmp(s, "off") || !strcmp(s, "false"))
		p->offload = CFG_OFFLOAD_OFF;
	else if (!strcmp(s, "rte_flow"))
		p->offload = CFG_OFFLOAD_RTE_FLOW;
	else if (!strcmp(s, "model"))
		p->offload = CFG_OFFLOAD_MODEL;
	else
		return fail(ld, v, "offload is off, rte_flow or model, not '%s'",
			    s);
	return 0;
}

int
port_offload_model_profile(struct loader *ld, const yaml_node_t *v,
			   void *obj)
{
	struct cfg_port *p = obj;
	const char *s = scalar(ld, v, "offload-model-profile");
	enum fdir_model_profile prof;

	if (s == NULL)
		return -1;
	if (fdir_model_profile_parse(s, &prof))
		return fail(ld, v, "offload-model-profile is ice-22.11, "
			    "ice-23.11.0, ice-23.11.4 or ice-26.07, not '%s'",
			    s);
	p->offload_model_profile = (uint8_t)prof;
	return 0;
}

int
port_offload_admission(struct loader *ld, const yaml_node_t *v, void *obj)
{
	struct cfg_port *p = obj;
	const char *s = scalar(ld, v, "offload-admission");

	if (s == NULL)
		return -1;
	if (!strcmp(s, "weight"))
		p->offload_admission = CFG_ADMIT_WEIGHT;
	else if (!strcmp(s, "fifo"))
		p->offload_admission = CFG_ADMIT_FIFO;
	else
		return fail(ld, v, "offload-admission is weight or fifo, not "
			    "'%s'", s);
	return 0;
}

static int
add_affinity(struct loader *ld, const yaml_node_t *v, struct cfg_port *p,
	     unsigned queue, unsigned core)
{
	if (p->n_affinity == AFFINITY_MAX)
		return fail(ld, v, "more than %d rxq-affinity entries '%u:%u'",
			    AFFINITY_MAX, queue, core);
	for (unsigned i = 0; i < p->n_affinity; i++)
		if (p->affinity[i].queue == queue)
			return fail(ld, v, "rxq-affinity names queue twice '%u'",
				    queue);
	p->affinity[p->n_affinity].queue = (uint16_t)queue;
	p->affinity[p->n_affinity].core = (uint16_t)core;
	p->n_affinity++;
	return 0;
}

/* "queue:core[,queue:core...]", as OVS's other_config:pmd-rxq-affinity. */
int
port_affinity(struct loader *ld, const yaml_node_t *v, void *obj)
{
	struct cfg_port *port = obj;
	const char *s = scalar(ld, v, "rxq-affinity");
	const char *p = s;
	char *end;

	if (s == NULL)
		return -1;
	/* "" pins nothing, as in OVS: `set Interface NAME
	 * other_config:pmd-rxq-affinity=` is how a pin is taken away */
	if (*s == '\0') {
		port->n_affinity = 0;
		return 0;
	}
	for (;;) {
		if (*p < '0' || *p > '9')
			return fail(ld, v, "bad rxq-affinity '%s'", s);
		unsigned long q = strtoul(p, &end, 10);
		if (*end != ':' || end[1] < '0' || end[1] > '9')
			return fail(ld, v, "bad rxq-affinity '%s'", s);
		unsigned long c = strtoul(end + 1, &end, 10);
		if (q > UINT16_MAX || c >= CFG_MAX_CORES ||
		    (*end != ',' && *end != '\0'))
			return fail(ld, v, "bad rxq-affinity '%s'", s);
		if (add_affinity(ld, v, port, q, c) < 0)
			return -1;
		if (*end == '\0')
			return 0;
		p = end + 1;
	}
}

int
vx_vni(struct loader *ld, const yaml_node_t *v, void *obj)
{
	struct cfg_port *p = obj;
	uint64_t vni;
	if (get_uint(ld, v, "vni", 0, VNI_MAX, &vni) < 0)
		return -1;
	for (unsigned i = 0; i < p->n_vnis; i++)
		if (p->vnis[i] == vni)
			return fail(ld, v, "VNI listed twice '%u'",
				    (unsigned)vni);
	if (p->n_vnis == CFG_MAX_VNIS)
		return fail(ld, v, "more than %d VNIs '%u'", CFG_MAX_VNIS,
			    (unsigned)vni);
	p->vnis[p->n_vnis++] = (uint32_t)vni;
	return 0;
}

int
port_options(struct loader *ld, const yaml_node_t *v, void *obj)
{
	struct cfg_port *port = obj;
	char where[CFG_NAME_MAX + 32];
	struct scope sc = { where, 0, NULL };

	snprintf(where, sizeof where, "in options of port '%s'",
		 port->name);
	if (expect_map(ld, v, "options") < 0)
		return -1;
	return parse_mapping(ld, v, vxlan_option_keys, port, &sc);
}

/* ---- one port ---- */

/* Names appear inside flow strings ("in_port=NAME,actions=output:NAME"),
 * so keep them to characters that cannot be read as syntax there; an
 * all-digit name would be read as an ofport number. */
bool
config_is_port_name(const char *s)
{
	bool digits_only = true;
	for (const char *p = s; *p; p++) {
		bool digit = *p >= '0' && *p <= '9';
		bool alpha = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z');
		if (!digit && !alpha && *p != '-' && *p != '_' && *p != '.')
			return false;
		digits_only &= digit;
	}
	return !digits_only;
}

static int
read_port_name(struct loader *ld, struct port_ctx *pc)
{
	const yaml_node_t *v = map_get(ld, pc->map, "name");
	struct cfg_port *p = pc->port;

	if (v == NULL)
		return fail(ld, pc->map, "missing key '%s' in port", "name");
	if (get_string(ld, v, "name", p->name, sizeof p->name) < 0)
		return -1;
	if (!config_is_port_name(p->name))
		return fail(ld, v, "bad port name '%s'", p->name);
	for (unsigned i = 0; i < pc->index; i++)
		if (strcmp(ld->cfg->ports[i].name, p->name) == 0)
			return fail(ld, v, "duplicate port name '%s'", p->name);
	return 0;
}

static int
read_port_type(struct loader *ld, struct port_ctx *pc)
{
	const yaml_node_t *v = map_get(ld, pc->map, "type");
	const char *s;

	if (v == NULL)
		return fail(ld, pc->map, "missing key 'type' in port '%s'",
			    pc->port->name);
	if ((s = scalar(ld, v, "type")) == NULL)
		return -1;
	for (size_t i = 0; i < RTE_DIM(port_types); i++)
		if (strcmp(s, port_types[i].name) == 0) {
			pc->port->type = port_types[i].type;
			return 0;
		}
	return fail(ld, v, "unknown port type '%s'", s);
}

void
port_defaults(struct cfg_port *p, int line)
{
	p->line = line;
	p->col = 1;
	p->n_rxq = 1;
	p->rxd = 1024;
	p->txd = 1024;
	p->dst_port = 4789;
	p->offload_guaranteed = 512;
}

/* After the port's keys: where key (or its alias) was, or NULL. */
static const yaml_node_t *
port_key(struct loader *ld, const struct port_ctx *pc, const char *key)
{
	return key_node(ld, pc->map, port_keys, key);
}

static int
check_affinity(struct loader *ld, const struct port_ctx *pc)
{
	const struct cfg_port *p = pc->port;
	const struct vxs_config *cfg = ld->cfg;
	const yaml_node_t *at = port_key(ld, pc, "rxq-affinity");

	for (unsigned i = 0; i < p->n_affinity; i++) {
		unsigned core = p->affinity[i].core, j;
		if (p->affinity[i].queue >= p->n_rxq)
			return fail(ld, at,
				    "rxq-affinity queue is not below n-rxq %u '%u'",
				    p->n_rxq, p->affinity[i].queue);
		for (j = 0; j < cfg->n_pmd_cores; j++)
			if (cfg->pmd_cores[j] == core)
				break;
		if (j == cfg->n_pmd_cores)
			return fail(ld, at,
				    "rxq-affinity core is not a pmd core '%u'",
				    core);
	}
	return 0;
}

/* One device cannot be probed twice. */
static int
check_dpdk(struct loader *ld, const struct port_ctx *pc)
{
	const struct cfg_port *p = pc->port;
	const yaml_node_t *devargs = port_key(ld, pc, "devargs");

	if (devargs == NULL)
		return fail(ld, pc->map, "missing key 'devargs' in port '%s'",
			    p->name);
	for (unsigned i = 0; i < pc->index; i++)
		if (strcmp(ld->cfg->ports[i].devargs, p->devargs) == 0)
			return fail(ld, devargs, "duplicate devargs '%s'",
				    p->devargs);
	return 0;
}

static int
check_vhost(struct loader *ld, const struct port_ctx *pc)
{
	const struct cfg_port *p = pc->port;
	const yaml_node_t *path = port_key(ld, pc, "path");

	if (path == NULL)
		return fail(ld, pc->map, "missing key 'path' in port '%s'",
			    p->name);
	for (unsigned i = 0; i < pc->index; i++)
		if (strcmp(ld->cfg->ports[i].path, p->path) == 0)
			return fail(ld, path, "duplicate socket path '%s'",
				    p->path);
	return 0;
}

static int
check_vxlan(struct loader *ld, const struct port_ctx *pc)
{
	const struct cfg_port *p = pc->port;
	const yaml_node_t *options = port_key(ld, pc, "options");

	if (ld->vxlan_node != NULL)
		return fail(ld, pc->map, "more than one vxlan port '%s'",
			    p->name);
	if (options == NULL)
		return fail(ld, pc->map, "missing key 'options' in port '%s'",
			    p->name);
	if (key_node(ld, options, vxlan_option_keys, "remote_ip") == NULL)
		return fail(ld, options,
			    "missing option 'remote_ip' in port '%s'", p->name);
	ld->vxlan_node = pc->map;
	ld->vxlan_local_ip_node =
		key_node(ld, options, vxlan_option_keys, "local_ip");
	return 0;
}

static int
check_ofport(struct loader *ld, const struct port_ctx *pc)
{
	const yaml_node_t *ofport = port_key(ld, pc, "ofport");

	for (unsigned i = 0; ofport && i < pc->index; i++)
		if (ld->cfg->ports[i].ofport == pc->port->ofport)
			return fail(ld, ofport, "duplicate ofport '%u'",
				    pc->port->ofport);
	return 0;
}

static int
check_port(struct loader *ld, const struct port_ctx *pc)
{
	const struct cfg_port *p = pc->port;

	if (check_ofport(ld, pc) < 0 || check_affinity(ld, pc) < 0)
		return -1;
	switch (p->type) {
	case CFG_PORT_DPDK:
		return check_dpdk(ld, pc);
	case CFG_PORT_VHOST_SERVER:
	case CFG_PORT_VHOST_CLIENT:
		return check_vhost(ld, pc);
	case CFG_PORT_VXLAN:
		return check_vxlan(ld, pc);
	case CFG_PORT_NULL:
		break;
	}
	return 0;
}

int
parse_port(struct loader *ld, const yaml_node_t *map, unsigned index)
{
	struct port_ctx pc = { .port = &ld->cfg->ports[index], .index = index,
			       .map = map };
	char where[CFG_NAME_MAX + 16];
	struct scope sc = { where, 0, NULL };

	if (expect_map(ld, map, "port") < 0)
		return -1;
	port_defaults(pc.port, (int)map->start_mark.line + 1);
	pc.port->col = (int)map->start_mark.column + 1;
	if (read_port_name(ld, &pc) < 0 || read_port_type(ld, &pc) < 0)
		return -1;
	snprintf(where, sizeof where, "in port '%s'", pc.port->name);
	sc.kind = 1u << pc.port->type;
	sc.kind_name = port_type_name(pc.port->type);
	if (parse_mapping(ld, map, port_keys, pc.port, &sc) < 0)
		return -1;
	return check_port(ld, &pc);
}

static bool
ofport_taken(const struct vxs_config *cfg, uint32_t ofport)
{
	for (unsigned i = 0; i < cfg->n_ports; i++)
		if (cfg->ports[i].ofport == ofport)
			return true;
	return false;
}

/* As OVS does: explicit numbers stay, the rest get the lowest free ones
 * in file order. */
static void
assign_ofports(struct vxs_config *cfg)
{
	uint32_t next = 1;
	for (unsigned i = 0; i < cfg->n_ports; i++) {
		if (cfg->ports[i].ofport != 0)
			continue;
		while (ofport_taken(cfg, next))
			next++;
		cfg->ports[i].ofport = next++;
	}
}

int
parse_ports(struct loader *ld)
{
	struct vxs_config *cfg = ld->cfg;
	const yaml_node_t *seq = ld->ports;

	if (seq == NULL)
		return fail(ld, ld->root, "missing key '%s'", "ports");
	if (expect_seq(ld, seq, "ports") < 0)
		return -1;
	if (seq_len(seq) == 0 || seq_len(seq) > OFPORT_MAX)
		return fail(ld, seq, "ports needs 1..%u ports '%zu'", OFPORT_MAX,
			    seq_len(seq));
	cfg->ports = calloc(seq_len(seq), sizeof *cfg->ports);
	if (cfg->ports == NULL)
		return fail(ld, seq, "out of memory for '%s'", "ports");
	for (size_t i = 0; i < seq_len(seq); i++) {
		if (parse_port(ld, seq_item(ld, seq, i), (unsigned)i) < 0)
			return -1;
		cfg->n_ports = (uint16_t)(i + 1);
	}
	assign_ofports(cfg);
	return 0;
}

