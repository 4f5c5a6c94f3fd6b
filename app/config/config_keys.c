/* SPDX-License-Identifier: BSD-3-Clause
 * Every key of the topology file, one row each: its name, how its value
 * is read, the field it fills and its bounds (config_loader.h). A key
 * with real logic (core lists, affinities, routes...) names its function
 * in the row; the rest are read here from the row alone, so adding a
 * plain setting is a row and a default (config_defaults in config.c).
 */
#include "config_loader.h"

#include <string.h>

/* The object each table fills (see the externs in config_loader.h). */
#define CFG struct vxs_config
#define PORT struct cfg_port
#define ROUTE struct cfg_route
#define ARP struct cfg_arp

/* port type bits for .only */
#define K_DPDK (1u << CFG_PORT_DPDK)
#define K_VHOST ((1u << CFG_PORT_VHOST_SERVER) | (1u << CFG_PORT_VHOST_CLIENT))
#define K_VXLAN (1u << CFG_PORT_VXLAN)
#define K_NULL (1u << CFG_PORT_NULL)
#define K_RXQS (K_DPDK | K_VHOST | K_NULL)	/* ports with rx queues */

/* Only notes where each section is, so that config_load can walk them in
 * dependency order whatever order the file has them in. */
const struct key_rule section_keys[] = {
	{ "eal", K_NODE(eal) },
	{ "datapath", K_NODE(datapath) },
	{ "underlay", K_NODE(underlay) },
	{ "ports", K_NODE(ports) },
	{ "flows", K_NODE(flows) },
	{ .key = NULL },
};

const struct key_rule eal_keys[] = {
	{ "lcores", K_CUSTOM(eal_lcores) },
	{ "main-lcore", K_UINT(CFG, eal_main_lcore, 0, CFG_MAX_CORES - 1) },
	{ "memory-mb", K_UINT(CFG, eal_memory_mb, 1, 1u << 24) },
	{ "socket-mem", K_CUSTOM(eal_socket_mem) },
	{ "file-prefix", K_CUSTOM(eal_file_prefix) },
	{ "huge-dir", K_STRING(CFG, eal_huge_dir) },
	{ "no-pci", K_BOOL(CFG, eal_no_pci) },
	{ "no-huge", K_BOOL(CFG, eal_no_huge) },
	{ "extra-args", K_CUSTOM(eal_extra_args) },
	{ .key = NULL },
};

const struct key_rule datapath_keys[] = {
	{ "pmd-cores", K_CUSTOM(pmd_cores) },
	{ "n-mbufs", K_UINT(CFG, n_mbufs, 0, 1u << 30) },
	{ "emc-insert-inv-prob",
	  K_UINT(CFG, emc_insert_inv_prob, 0, UINT32_MAX) },
	{ "flow-max-idle-ms", K_UINT(CFG, flow_max_idle_ms, 1, 86400000u) },
	{ "max-megaflows", K_UINT(CFG, max_megaflows, 1, 1u << 24) },
	{ "ct-max-conns", K_UINT(CFG, ct_max_conns, 1, 50000000) },
	{ "ct-default-zone-limit",
	  K_UINT(CFG, ct_default_zone_limit, 0, 50000000) },
	/* control table limits (neigh.h, route.h, ofproto.h) */
	{ "max-flows", K_UINT(CFG, max_flows, 1, 1u << 24) },
	{ "max-neighbours", K_UINT(CFG, max_neighbours, 1, 1u << 24) },
	{ "max-routes", K_UINT(CFG, max_routes, 1, 1u << 24) },
	{ "neigh-aging", K_UINT(CFG, neigh_aging_s, 1, 3600) },
	{ "publish-interval-ms", K_UINT(CFG, publish_interval_ms, 1, 10000) },
	{ "arp-rate", K_UINT(CFG, arp_rate, 0, 100000000) },
	{ "arp-burst", K_UINT(CFG, arp_burst, 1, 1000000) },
	/* path MTU discovery for the tunnel (app/datapath/dp_pmtud.h) */
	{ "pmtud", K_BOOL(CFG, pmtud) },
	{ "pmtud-rate", K_UINT(CFG, pmtud_rate, 0, 100000000) },
	{ "pmtud-burst", K_UINT(CFG, pmtud_burst, 1, 1000000) },
	{ "optimisations", K_CUSTOM(dp_optimisations) },
	{ "ofport-names", K_CUSTOM(dp_ofport_names) },
	{ "pmd-idle-backoff-us", K_UINT(CFG, pmd_idle_backoff_us, 1, 100000) },
	{ "tx-flush-interval-us", K_UINT(CFG, tx_flush_interval_us, 0, 1000) },
	{ "ctl-socket", K_SOCKET_PATH(CFG, ctl_socket) },
	{ "unixctl-socket", K_SOCKET_PATH(CFG, unixctl_socket) },
	{ "bridge", K_CUSTOM(dp_bridge) },
	{ "state-file", K_STRING(CFG, state_file) },
	/* rx queue scheduling (OVS other_config, app/pmd/pmd_rxq_sched.h) */
	{ "pmd-rxq-assign", K_CUSTOM(pmd_rxq_assign) },
	{ "pmd-rxq-isolate", K_BOOL(CFG, pmd_rxq_isolate) },
	{ "pmd-auto-lb", K_BOOL(CFG, pmd_auto_lb) },
	{ "pmd-auto-lb-load-threshold",
	  K_UINT(CFG, pmd_auto_lb_load_threshold, 0, 100) },
	{ "pmd-auto-lb-improvement-threshold",
	  K_UINT(CFG, pmd_auto_lb_improvement_threshold, 0, 100) },
	{ "pmd-auto-lb-rebal-interval", K_CUSTOM(pmd_auto_lb_rebal_interval) },
	{ "pmd-load-interval-ms", K_UINT(CFG, pmd_load_interval_ms, 10, 60000) },
	{ .key = NULL },
};

/* The OVS spellings (dpdk-devargs, pmd-rxq-affinity, vhost-server-path)
 * are aliases: setting both spellings is a duplicate key. */
const struct key_rule port_keys[] = {
	{ "name", .type = KEY_SKIP },	/* read first, see parse_port() */
	{ "type", .type = KEY_SKIP },
	{ "ofport", K_UINT(PORT, ofport, 1, OFPORT_MAX) },
	{ "devargs", K_STRING(PORT, devargs), .only = K_DPDK },
	{ "dpdk-devargs", K_STRING(PORT, devargs), .alias_of = "devargs",
	  .only = K_DPDK },
	{ "n-rxq", K_UINT(PORT, n_rxq, 1, 1024), .only = K_RXQS },
	{ "rxd", K_UINT(PORT, rxd, 32, 32768), .only = K_DPDK },
	{ "txd", K_UINT(PORT, txd, 32, 32768), .only = K_DPDK },
	{ "mtu", K_UINT(PORT, mtu, RTE_ETHER_MIN_MTU, 16000),
	  .only = K_DPDK | K_VHOST },
	{ "offload", K_CUSTOM(port_offload), .only = K_DPDK },
	{ "offload-guaranteed", K_UINT(PORT, offload_guaranteed, 0, 16384),
	  .only = K_DPDK },
	{ "offload-pool", K_UINT(PORT, offload_pool, 0, 16384),
	  .only = K_DPDK },
	{ "offload-inserts-per-sec",
	  K_UINT(PORT, offload_inserts_per_sec, 0, 1000000), .only = K_DPDK },
	{ "offload-model-profile", K_CUSTOM(port_offload_model_profile),
	  .only = K_DPDK },
	{ "offload-admission", K_CUSTOM(port_offload_admission),
	  .only = K_DPDK },
	{ "rxq-affinity", K_CUSTOM(port_affinity), .only = K_RXQS },
	{ "pmd-rxq-affinity", K_CUSTOM(port_affinity),
	  .alias_of = "rxq-affinity", .only = K_RXQS },
	{ "path", K_SOCKET_PATH(PORT, path), .only = K_VHOST },
	{ "vhost-server-path", K_SOCKET_PATH(PORT, path), .alias_of = "path",
	  .only = K_VHOST },
	{ "options", K_CUSTOM(port_options), .only = K_VXLAN },
	{ .key = NULL },
};

/* "flow": the flow's set_field/set_tunnel supplies the value. */
const struct key_rule vxlan_option_keys[] = {
	/* addresses of either family (config_underlay.c) */
	{ "remote_ip", K_CUSTOM(vxlan_remote_ip),
	  K_FLOW_FLAG(PORT, remote_ip_flow) },
	{ "local_ip", K_CUSTOM(vxlan_local_ip),
	  K_FLOW_FLAG(PORT, local_ip_flow) },
	{ "key", K_UINT(PORT, key, 0, VNI_MAX), K_FLOW_FLAG(PORT, key_flow) },
	{ "dst_port", K_UINT(PORT, dst_port, 1, UINT16_MAX) },
	{ "vnis", K_LIST(vx_vni), .flags = KEY_OR_ONE },
	{ "udp6zerocsumrx", K_CUSTOM(vxlan_udp6zerocsumrx) },
	{ .key = NULL },
};

const struct key_rule underlay_keys[] = {
	{ "port", .type = KEY_SKIP },	/* read first: routes default to it */
	/* an IPv4 or IPv6 prefix, or a list of one of each (dual stack) */
	{ "local-ip", K_CUSTOM(underlay_local_ip) },
	{ "mac", K_MAC(CFG, vtep_mac) },
	{ "routes", K_LIST(underlay_route) },
	{ "arp", K_LIST(underlay_arp) },
	{ "neighbours", K_LIST(underlay_arp), .alias_of = "arp" },
	{ .key = NULL },
};

/* Addresses of either family (config_underlay.c). */
const struct key_rule route_keys[] = {
	{ "prefix", K_CUSTOM(route_prefix) },
	{ "gateway", K_CUSTOM(route_gateway) },
	{ "port", K_CUSTOM(route_port) },
	{ .key = NULL },
};

const struct key_rule arp_keys[] = {
	{ "ip", K_CUSTOM(arp_ip) },
	{ "mac", K_MAC(ARP, mac) },
	{ .key = NULL },
};

/* ---- the walker ---- */

static const struct key_rule *
find_rule(const struct key_rule *rules, const char *key)
{
	for (; rules->key; rules++)
		if (strcmp(rules->key, key) == 0)
			return rules;
	return NULL;
}

static const char *
canonical(const struct key_rule *r)
{
	return r->alias_of ? r->alias_of : r->key;
}

/* True if a pair before `upto` sets the same thing as rule (aliases too). */
static bool
set_before(struct loader *ld, const yaml_node_t *map,
	   const yaml_node_pair_t *upto, const struct key_rule *rules,
	   const struct key_rule *rule)
{
	for (const yaml_node_pair_t *p = map->data.mapping.pairs.start;
	     p < upto; p++) {
		const struct key_rule *r =
			find_rule(rules, raw_text(node_at(ld, p->key)));
		if (strcmp(canonical(r), canonical(rule)) == 0)
			return true;
	}
	return false;
}

/* A decimal in the row's bounds, into a field of 1, 2, 4 or 8 bytes (an
 * int field takes it as its unsigned twin: the bounds keep it positive). */
static int
parse_uint_field(struct loader *ld, const struct key_rule *r,
		 const yaml_node_t *v, void *field)
{
	uint64_t x;

	if (get_uint(ld, v, canonical(r), r->min, r->max, &x) < 0)
		return -1;
	switch (r->size) {
	case sizeof(uint8_t):
		*(uint8_t *)field = (uint8_t)x;
		return 0;
	case sizeof(uint16_t):
		*(uint16_t *)field = (uint16_t)x;
		return 0;
	case sizeof(uint32_t):
		*(uint32_t *)field = (uint32_t)x;
		return 0;
	case sizeof(uint64_t):
		*(uint64_t *)field = x;
		return 0;
	}
	return fail(ld, v, "internal error: field of %zu bytes for '%s'",
		    r->size, canonical(r));
}

/* 0.0.0.0 is no gateway, and 0.0.0.0/0 (or a /0) no VTEP address. */
static int
check_nonzero(struct loader *ld, const struct key_rule *r,
	      const yaml_node_t *v, void *obj)
{
	const rte_be32_t *ip = (const rte_be32_t *)((char *)obj + r->off);
	const uint8_t *plen = (const uint8_t *)((char *)obj + r->off2);

	if (*ip == 0 || (r->type == KEY_PREFIX && *plen == 0))
		return fail(ld, v, "bad %s '%s'", canonical(r), raw_text(v));
	return 0;
}

static int
parse_list(struct loader *ld, const struct key_rule *r,
	   const yaml_node_t *v, void *obj)
{
	if (v->type != YAML_SEQUENCE_NODE && (r->flags & KEY_OR_ONE))
		return r->parse(ld, v, obj);
	if (expect_seq(ld, v, canonical(r)) < 0)
		return -1;
	for (size_t i = 0; i < seq_len(v); i++)
		if (r->parse(ld, seq_item(ld, v, i), obj) < 0)
			return -1;
	return 0;
}

/* Reads one value as its row says, into obj. */
static int
parse_value(struct loader *ld, const struct key_rule *r,
	    const yaml_node_t *v, void *obj)
{
	const char *what = canonical(r);
	char *field = (char *)obj + r->off;
	int rc = -1;

	if (r->flags & KEY_OR_FLOW) {
		const char *s = scalar(ld, v, what);
		if (s == NULL)
			return -1;
		bool *flow = (bool *)((char *)obj + r->off2);
		*flow = strcmp(s, "flow") == 0;
		if (*flow)
			return 0;
	}
	switch (r->type) {
	case KEY_SKIP:
		return 0;
	case KEY_CUSTOM:
		return r->parse(ld, v, obj);
	case KEY_NODE:
		*(const yaml_node_t **)field = v;
		return 0;
	case KEY_UINT:
		return parse_uint_field(ld, r, v, field);
	case KEY_BOOL:
		return get_bool(ld, v, what, (bool *)field);
	case KEY_STRING:
		return get_string(ld, v, what, field, r->size);
	case KEY_SOCKET_PATH:
		return get_socket_path(ld, v, what, field, r->size);
	case KEY_IPV4:
		rc = get_ipv4(ld, v, what, (rte_be32_t *)field);
		break;
	case KEY_PREFIX:
		rc = get_prefix(ld, v, what, (rte_be32_t *)field,
				(uint8_t *)obj + r->off2);
		break;
	case KEY_MAC:
		return get_mac(ld, v, what, (struct rte_ether_addr *)field);
	case KEY_LIST:
		return parse_list(ld, r, v, obj);
	}
	if (rc == 0 && (r->flags & KEY_NONZERO))
		return check_nonzero(ld, r, v, obj);
	return rc;
}

static int
parse_pair(struct loader *ld, const yaml_node_t *map,
	   const yaml_node_pair_t *pair, const struct key_rule *rules,
	   void *obj, const struct scope *sc)
{
	const yaml_node_t *k = node_at(ld, pair->key);
	const char *sep = sc->where[0] ? " " : "";

	if (k->type != YAML_SCALAR_NODE)
		return fail(ld, k, "expected a plain key%s%s", sep, sc->where);
	const struct key_rule *r = find_rule(rules, raw_text(k));
	if (r == NULL)
		return fail(ld, k, "unknown key '%s'%s%s", raw_text(k), sep,
			    sc->where);
	if (r->only != 0 && (r->only & sc->kind) == 0)
		return fail(ld, k, "key '%s' does not apply to type '%s'%s%s",
			    raw_text(k), sc->kind_name, sep, sc->where);
	if (set_before(ld, map, pair, rules, r))
		return fail(ld, k, "duplicate key '%s'%s%s", raw_text(k), sep,
			    sc->where);
	return parse_value(ld, r, node_at(ld, pair->value), obj);
}

int
parse_mapping(struct loader *ld, const yaml_node_t *map,
	      const struct key_rule *rules, void *obj, const struct scope *sc)
{
	for (const yaml_node_pair_t *p = map->data.mapping.pairs.start;
	     p < map->data.mapping.pairs.top; p++)
		if (parse_pair(ld, map, p, rules, obj, sc) < 0)
			return -1;
	return 0;
}

const yaml_node_t *
key_node(struct loader *ld, const yaml_node_t *map,
	 const struct key_rule *rules, const char *key)
{
	for (const yaml_node_pair_t *p = map->data.mapping.pairs.start;
	     p < map->data.mapping.pairs.top; p++) {
		const yaml_node_t *k = node_at(ld, p->key);
		const struct key_rule *r = k->type == YAML_SCALAR_NODE
			? find_rule(rules, raw_text(k)) : NULL;
		if (r != NULL && strcmp(canonical(r), key) == 0)
			return node_at(ld, p->value);
	}
	return NULL;
}
