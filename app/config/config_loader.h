/* SPDX-License-Identifier: BSD-3-Clause
 * The topology loader's insides, shared by the app/config/config_*.c files
 * (config.h is the part's contract; nothing outside app/config includes
 * this).
 *
 *   config_yaml.c     libyaml document, ${VAR} expansion, errors with
 *                     file:line:col
 *   config_values.c   one scalar as a number, bool, address, prefix, MAC
 *   config_keys.c     every key of the file as a row (key, type, field,
 *                     bounds) and the walker that applies the rows
 *   config_cores.c    eal lcores, main lcore, pmd cores and their checks
 *   config_eal.c      the eal section's own checks; the EAL argv
 *   config_ports.c    ports: name, type, per-type checks, ofports
 *   config_underlay.c underlay NIC, VTEP, routes, static ARP entries
 *   config_sched.c    rx queue scheduling: assignment mode, rebalance
 *                     interval in (fractional) minutes
 *   config.c          config_load: sections in dependency order, flows
 */
#ifndef VXS_CONFIG_LOADER_H
#define VXS_CONFIG_LOADER_H

#include <stddef.h>
#include <stdio.h>
#include <yaml.h>

#include "config.h"

#define OFPORT_MAX 0xfeffu		/* OFPP_MAX - 1: the last real port */
#define VNI_MAX 0xffffffu

struct loader {
	const char *file;
	yaml_document_t doc;
	bool have_doc;
	struct vxs_config *cfg;
	char *err;
	size_t errlen;

	char *buf;			/* the last expanded scalar */
	size_t bufcap;

	/* the top-level sections, walked in dependency order */
	const yaml_node_t *root, *eal, *datapath, *underlay, *ports, *flows;

	/* remembered for checks that span sections */
	const yaml_node_t *lcores_node, *main_lcore_node, *memory_node,
		*socket_mem_node;
	const yaml_node_t *pmd_core_node[CFG_MAX_CORES];
	const yaml_node_t *vxlan_node;	/* the vxlan port's mapping */
	const yaml_node_t *vxlan_local_ip_node;
	bool lcores[CFG_MAX_CORES];	/* eal lcores, when given */
};

/* ---- config_yaml.c: errors and nodes ---- */

/* "file:line:col: message" at node into ld->err; returns -1. */
int fail(struct loader *ld, const yaml_node_t *node, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* "file:" and the rest as given, for errors that have no node. */
int fail_file(struct loader *ld, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static inline const yaml_node_t *
node_at(struct loader *ld, int id)
{
	return yaml_document_get_node(&ld->doc, id);
}

static inline size_t
seq_len(const yaml_node_t *seq)
{
	return seq->data.sequence.items.top - seq->data.sequence.items.start;
}

static inline const yaml_node_t *
seq_item(struct loader *ld, const yaml_node_t *seq, size_t i)
{
	return node_at(ld, seq->data.sequence.items.start[i]);
}

/* The scalar as written, before ${VAR} expansion. */
static inline const char *
raw_text(const yaml_node_t *scalar)
{
	return (const char *)scalar->data.scalar.value;
}

int expect_seq(struct loader *ld, const yaml_node_t *node, const char *what);
int expect_map(struct loader *ld, const yaml_node_t *node, const char *what);
/* The value under key in map, or NULL. Keys are never expanded. */
const yaml_node_t *map_get(struct loader *ld, const yaml_node_t *map,
			   const char *key);
/* The scalar's text with ${VAR} and ${VAR:-default} expanded, valid until
 * the next call, or NULL after an error (also for a list or mapping). */
const char *scalar(struct loader *ld, const yaml_node_t *node,
		   const char *what);
/* Reads the one YAML document of f into ld->doc and ld->root. */
int read_document(struct loader *ld, FILE *f);

/* ---- config_values.c: one scalar each; 'what' names it in errors ---- */

int get_string(struct loader *ld, const yaml_node_t *node, const char *what,
	       char *dst, size_t size);
int get_uint(struct loader *ld, const yaml_node_t *node, const char *what,
	     uint64_t min, uint64_t max, uint64_t *out);
int get_bool(struct loader *ld, const yaml_node_t *node, const char *what,
	     bool *out);
int get_ipv4(struct loader *ld, const yaml_node_t *node, const char *what,
	     rte_be32_t *ip);
int get_prefix(struct loader *ld, const yaml_node_t *node, const char *what,
	       rte_be32_t *ip, uint8_t *plen);
int get_mac(struct loader *ld, const yaml_node_t *node, const char *what,
	    struct rte_ether_addr *mac);
/* A string that also fits a unix socket's sun_path. */
int get_socket_path(struct loader *ld, const yaml_node_t *node,
		    const char *what, char *dst, size_t size);

/* ---- config_keys.c: the rows ---- */

/* How a key's value is read; all but KEY_CUSTOM are done by the walker
 * from the row alone, into the field at .off of the mapping's object. */
enum key_type {
	KEY_SKIP,		/* read before the walk (a port's name) */
	KEY_CUSTOM,		/* .parse reads it: the key has logic */
	KEY_NODE,		/* keeps the value's node (the sections) */
	KEY_UINT,		/* decimal .min...max, a field of .size bytes */
	KEY_BOOL,		/* true/yes/on, false/no/off */
	KEY_STRING,		/* non-empty, below .size characters */
	KEY_SOCKET_PATH,	/* KEY_STRING that fits a unix socket */
	KEY_IPV4,		/* rte_be32_t */
	KEY_PREFIX,		/* "a.b.c.d/len": address at .off, length
				 * (uint8_t) at .off2 */
	KEY_MAC,		/* unicast struct rte_ether_addr */
	KEY_LIST,		/* .parse reads each item of a YAML list */
};

#define KEY_NONZERO 1u		/* IPV4, PREFIX: 0.0.0.0 (or /0) is "bad" */
#define KEY_OR_FLOW 2u		/* "flow" sets the bool at .off2 instead */
#define KEY_OR_ONE 4u		/* LIST: one value is a list of one */

struct key_rule {
	const char *key;
	const char *alias_of;		/* same setting under another name */
	unsigned only;			/* port type bits it applies to; 0 = all */
	enum key_type type;
	unsigned flags;			/* KEY_NONZERO, KEY_OR_FLOW, KEY_OR_ONE */
	size_t off, size, off2;		/* the field(s) in the object */
	uint64_t min, max;		/* KEY_UINT's bounds */
	int (*parse)(struct loader *ld, const yaml_node_t *value, void *obj);
};

/* Row bodies: { "key", K_UINT(struct cfg_port, mtu, 68, 16000) }. */
#define K_FIELD(T, f) .off = offsetof(T, f), .size = sizeof(((T *)0)->f)
#define K_UINT(T, f, lo, hi) \
	.type = KEY_UINT, K_FIELD(T, f), .min = (lo), .max = (hi)
#define K_BOOL(T, f) .type = KEY_BOOL, K_FIELD(T, f)
#define K_STRING(T, f) .type = KEY_STRING, K_FIELD(T, f)
#define K_SOCKET_PATH(T, f) .type = KEY_SOCKET_PATH, K_FIELD(T, f)
#define K_IPV4(T, f) .type = KEY_IPV4, K_FIELD(T, f)
#define K_PREFIX(T, ip, plen) \
	.type = KEY_PREFIX, K_FIELD(T, ip), .off2 = offsetof(T, plen)
#define K_MAC(T, f) .type = KEY_MAC, K_FIELD(T, f)
#define K_NODE(f) .type = KEY_NODE, K_FIELD(struct loader, f)
#define K_CUSTOM(fn) .type = KEY_CUSTOM, .parse = (fn)
#define K_LIST(fn) .type = KEY_LIST, .parse = (fn)
/* the flag "flow" may replace the value with (KEY_OR_FLOW) */
#define K_FLOW_FLAG(T, f) .flags = KEY_OR_FLOW, .off2 = offsetof(T, f)

/* Where a mapping sits, for "unknown key 'x' in port 'y'" messages. */
struct scope {
	const char *where;		/* "in port 'y'", or "" at the top */
	unsigned kind;			/* bit of the port type, 0 elsewhere */
	const char *kind_name;
};

/* Applies rules to every pair of map, in file order, filling obj. Unknown,
 * duplicate (aliases too) and type-inapplicable keys are errors. */
int parse_mapping(struct loader *ld, const yaml_node_t *map,
		  const struct key_rule *rules, void *obj,
		  const struct scope *sc);
/* After parse_mapping: the value node of key (or of an alias), or NULL. */
const yaml_node_t *key_node(struct loader *ld, const yaml_node_t *map,
			    const struct key_rule *rules, const char *key);

/* The tables, each ending with a row whose key is NULL. */
extern const struct key_rule section_keys[];	/* obj: struct loader */
extern const struct key_rule eal_keys[];	/* struct vxs_config */
extern const struct key_rule datapath_keys[];	/* struct vxs_config */
extern const struct key_rule port_keys[];	/* struct cfg_port */
extern const struct key_rule vxlan_option_keys[];	/* struct cfg_port */
extern const struct key_rule underlay_keys[];	/* struct vxs_config */
extern const struct key_rule route_keys[];	/* struct cfg_route */
extern const struct key_rule arp_keys[];	/* struct cfg_arp */

/* ---- the keys with logic (KEY_CUSTOM; KEY_LIST: one item), by file ---- */

/* config_cores.c */
int eal_lcores(struct loader *ld, const yaml_node_t *v, void *obj);
int pmd_cores(struct loader *ld, const yaml_node_t *v, void *obj);
/* config_eal.c */
int eal_socket_mem(struct loader *ld, const yaml_node_t *v, void *obj);
int eal_file_prefix(struct loader *ld, const yaml_node_t *v, void *obj);
int eal_extra_args(struct loader *ld, const yaml_node_t *v, void *obj);
/* config.c */
int dp_optimisations(struct loader *ld, const yaml_node_t *v, void *obj);
/* config_sched.c */
int pmd_rxq_assign(struct loader *ld, const yaml_node_t *v, void *obj);
/* What config_save writes back: the name, and the interval in minutes as
 * the loader reads it ("1", "0.05"; 'buf' of 32 bytes). */
const char *pmd_rxq_assign_name(enum cfg_rxq_assign a);
const char *pmd_rebal_interval_minutes(uint32_t ms, char *buf, size_t len);
int pmd_auto_lb_rebal_interval(struct loader *ld, const yaml_node_t *v,
			       void *obj);
/* config_ports.c */
int port_offload(struct loader *ld, const yaml_node_t *v, void *obj);
int port_offload_model_profile(struct loader *ld, const yaml_node_t *v,
			       void *obj);
int port_offload_admission(struct loader *ld, const yaml_node_t *v,
			   void *obj);
int port_affinity(struct loader *ld, const yaml_node_t *v, void *obj);
int port_options(struct loader *ld, const yaml_node_t *v, void *obj);
int dp_ofport_names(struct loader *ld, const yaml_node_t *v, void *obj);
int dp_bridge(struct loader *ld, const yaml_node_t *v, void *obj);
int vx_vni(struct loader *ld, const yaml_node_t *v, void *obj);
/* config_underlay.c */
int underlay_route(struct loader *ld, const yaml_node_t *v, void *obj);
int underlay_arp(struct loader *ld, const yaml_node_t *v, void *obj);
int route_port(struct loader *ld, const yaml_node_t *v, void *obj);
int route_prefix(struct loader *ld, const yaml_node_t *v, void *obj);
int route_gateway(struct loader *ld, const yaml_node_t *v, void *obj);
int arp_ip(struct loader *ld, const yaml_node_t *v, void *obj);
int vxlan_remote_ip(struct loader *ld, const yaml_node_t *v, void *obj);
int vxlan_local_ip(struct loader *ld, const yaml_node_t *v, void *obj);
int vxlan_udp6zerocsumrx(struct loader *ld, const yaml_node_t *v, void *obj);
int underlay_local_ip(struct loader *ld, const yaml_node_t *v, void *obj);

/* ---- defaults (config_save.c writes what differs from them) ---- */

void config_defaults(struct vxs_config *cfg);		/* config.c */
void port_defaults(struct cfg_port *p, int line);	/* config_ports.c */

/* ---- the sections, in the order config.c walks them ---- */

int parse_eal(struct loader *ld);		/* config_eal.c */
int check_cores(struct loader *ld);		/* config_cores.c */
int parse_ports(struct loader *ld);		/* config_ports.c */
/* One port's mapping into ld->cfg->ports[index], checked against the
 * ports before it (config_ports.c; add-port uses it on its own). */
int parse_port(struct loader *ld, const yaml_node_t *map, unsigned index);
int parse_underlay(struct loader *ld);		/* config_underlay.c */
int check_tunnel(struct loader *ld);		/* config_underlay.c */

#endif
