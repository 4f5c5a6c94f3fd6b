/* SPDX-License-Identifier: BSD-3-Clause
 * OVSDB mode's write-back (ovsdb_write.h): each row's columns computed
 * from the running switch, compared with what was last written, and the
 * difference made an "update" by _uuid.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_vhost.h>
#include <rte_version.h>

#include "ovsdb_apply.h"
#include "ovsdb_write.h"
#include "port.h"
#include "stats_read.h"

/* _uuid -> { column -> the value last written } */
static json_t *written;

/* What ovs-vsctl may put in Interface.type here (config_ports.c's types,
 * and the bridge's own internal port), and the one datapath type. */
static const char *const iface_types[] = {
	"dpdk", "dpdkvhostuser", "dpdkvhostuserclient", "internal", "vxlan",
};

/* What vxswitch's datapath does, in get_datapath_cap()'s keys
 * (ofproto/ofproto-dpif.c). */
static const struct { const char *key, *value; } capabilities[] = {
	{ "ct_clear", "true" }, { "ct_label", "true" },
	{ "ct_mark", "true" }, { "ct_orig_tuple", "true" },
	{ "ct_orig_tuple6", "true" }, { "ct_state", "true" },
	{ "ct_state_nat", "true" }, { "ct_zone", "true" },
	{ "recirc", "true" }, { "tnl_push_pop", "true" },
	{ "ufid", "true" }, { "masked_set_action", "true" },
	{ "check_pkt_len", "false" }, { "clone", "false" },
	{ "ct_zero_snat", "false" }, { "trunc", "false" },
	{ "max_vlan_headers", "0" }, { "max_mpls_depth", "0" },
};

static json_t *
ovs_set(json_t *members)
{
	return json_pack("[s, o]", "set", members);
}

static json_t *
empty_set(void)
{
	return ovs_set(json_array());
}

/* A string-to-string map in OVSDB's form, from an object. */
static json_t *
ovs_map(json_t *obj)
{
	json_t *pairs = json_array();
	const char *k;
	json_t *v;

	json_object_foreach(obj, k, v)
		json_array_append_new(pairs, json_pack("[s, O]", k, v));
	json_decref(obj);
	return json_pack("[s, o]", "map", pairs);
}

/* Sets 'column' in 'row' when it differs from the cache, and keeps it. */
static void
put(json_t *row, json_t *cache, const char *column, json_t *value)
{
	if (!value)
		return;
	if (!json_equal(json_object_get(cache, column), value)) {
		json_object_set(row, column, value);
		json_object_set(cache, column, value);
	}
	json_decref(value);
}

static json_t *
cache_of(const char *uuid)
{
	json_t *c = json_object_get(written, uuid);

	if (!c) {
		c = json_object();
		json_object_set_new(written, uuid, c);
	}
	return c;
}

/* An "update" of the row when anything in it is new. */
static void
add_update(json_t *ops, const char *table, const char *uuid, json_t *row)
{
	if (json_object_size(row))
		json_array_append_new(ops, json_pack(
			"{s:s, s:s, s:[[s, s, [s, s]]], s:O}", "op", "update",
			"table", table, "where", "_uuid", "==", "uuid", uuid,
			"row", row));
	json_decref(row);
}

static json_t *
vhost_status(const struct port *p)
{
	json_t *s = json_object();
	int vid = __atomic_load_n(&p->vid, __ATOMIC_ACQUIRE);
	uint64_t features;
	char buf[32];

	json_object_set_new(s, "mode", json_string(p->vhost_server
						   ? "server" : "client"));
	json_object_set_new(s, "status", json_string(
		vid >= 0 ? "connected" : "disconnected"));
	if (vid < 0)
		return s;
	json_object_set_new(s, "socket", json_string(p->path));
	if (!rte_vhost_get_negotiated_features(vid, &features)) {
		snprintf(buf, sizeof buf, "0x%016" PRIx64, features);
		json_object_set_new(s, "features", json_string(buf));
	}
	snprintf(buf, sizeof buf, "%u", rte_vhost_get_vring_num(vid));
	json_object_set_new(s, "num_of_vrings", json_string(buf));
	return s;
}

static json_t *
ethdev_status(const struct port *p)
{
	json_t *s = json_object();
	struct rte_eth_dev_info info;
	char buf[64];

	snprintf(buf, sizeof buf, "%u", p->eth_port_id);
	json_object_set_new(s, "port_no", json_string(buf));
	if (rte_eth_dev_info_get(p->eth_port_id, &info))
		return s;
	json_object_set_new(s, "driver_name", json_string(info.driver_name));
	snprintf(buf, sizeof buf, "%d", rte_eth_dev_socket_id(p->eth_port_id));
	json_object_set_new(s, "numa_id", json_string(buf));
	snprintf(buf, sizeof buf, "%u", info.max_rx_queues);
	json_object_set_new(s, "max_rx_queues", json_string(buf));
	snprintf(buf, sizeof buf, "%u", info.max_tx_queues);
	json_object_set_new(s, "max_tx_queues", json_string(buf));
	snprintf(buf, sizeof buf, "%u", info.max_rx_pktlen);
	json_object_set_new(s, "max_rx_pktlen", json_string(buf));
	snprintf(buf, sizeof buf, "%s %s", rte_version(), info.driver_name);
	json_object_set_new(s, "if_descr", json_string(buf));
	return s;
}

static json_t *
port_mtu(const struct port *p)
{
	uint16_t mtu = 1500;

	if (p->kind == PORT_ETHDEV)
		rte_eth_dev_get_mtu(p->eth_port_id, &mtu);
	else if (p->cfg->mtu)
		mtu = (uint16_t)p->cfg->mtu;
	return json_integer(mtu);
}

static json_t *
port_statistics(const struct port *p)
{
	struct pmd_port_stats sum;
	json_t *s = json_object();

	port_stats_sum(p->idx, &sum);
#define X(field) json_object_set_new(s, #field, json_integer( \
		(json_int_t)sum.field));
	PORT_STATS(X)
#undef X
	/* a map of string to integer */
	json_t *pairs = json_array();
	const char *k;
	json_t *v;
	json_object_foreach(s, k, v)
		json_array_append_new(pairs, json_pack("[s, O]", k, v));
	json_decref(s);
	return json_pack("[s, o]", "map", pairs);
}

/* One Interface row's columns. */
static void
interface_row(json_t *ops, const char *uuid, const json_t *res, bool stats)
{
	json_t *row = json_object(), *cache = cache_of(uuid);
	const char *error = json_string_value(json_object_get(res, "error"));
	const char *name = json_string_value(json_object_get(res, "port"));
	long long ofport = json_integer_value(json_object_get(res, "ofport"));
	const struct port *p = name ? port_by_name(name) : NULL;

	put(row, cache, "ofport", json_integer(ofport));
	put(row, cache, "error", error ? json_string(error) : empty_set());
	if (!p) {	/* refused, or the bridge's own port: nothing runs */
		put(row, cache, "admin_state", empty_set());
		put(row, cache, "link_state", empty_set());
		put(row, cache, "mtu", empty_set());
		put(row, cache, "status", ovs_map(json_object()));
		add_update(ops, "Interface", uuid, row);
		return;
	}
	put(row, cache, "admin_state", json_string("up"));
	put(row, cache, "link_state", json_string(port_state_name(p)));
	if (p->kind != PORT_VXLAN)
		put(row, cache, "mtu", port_mtu(p));
	if (p->kind == PORT_ETHDEV) {
		char mac[RTE_ETHER_ADDR_FMT_SIZE];
		rte_ether_format_addr(mac, sizeof mac, &p->mac);
		put(row, cache, "mac_in_use", json_string(mac));
	}
	put(row, cache, "status", ovs_map(
		p->kind == PORT_VHOST ? vhost_status(p)
		: p->kind == PORT_ETHDEV ? ethdev_status(p) : json_object()));
	if (stats && p->kind != PORT_VXLAN)
		put(row, cache, "statistics", port_statistics(p));
	add_update(ops, "Interface", uuid, row);
}

/* The UUID a map of string to UUID column (Open_vSwitch.datapaths) has
 * for 'key': ["map", [[key, ["uuid", U]], ...]]. */
static const char *
datapath_uuid(const json_t *root, const char *key)
{
	const json_t *m = json_object_get(root, "datapaths");
	const char *tag = json_string_value(json_array_get(m, 0));
	const json_t *pair;
	size_t i;

	if (!tag || strcmp(tag, "map"))
		return NULL;
	json_array_foreach(json_array_get(m, 1), i, pair) {
		const char *k = json_string_value(json_array_get(pair, 0));
		const json_t *u = json_array_get(pair, 1);
		if (k && !strcmp(k, key))
			return json_string_value(json_array_get(u, 1));
	}
	return NULL;
}

static void
root_row(json_t *ops, const struct ovsdb_replica *r, long long cur_cfg)
{
	const char *uuid, *dp;
	json_t *root, *row = json_object(), *cache, *types = json_array();

	json_object_foreach(r->rows[OVSDB_T_OPEN_VSWITCH], uuid, root)
		break;
	if (!uuid) {
		json_decref(row);
		json_decref(types);
		return;
	}
	cache = cache_of(uuid);
	if (cur_cfg >= 0)
		put(row, cache, "cur_cfg", json_integer(cur_cfg));
	put(row, cache, "datapath_types", ovs_set(json_pack("[s]",
							     "netdev")));
	for (size_t i = 0; i < sizeof iface_types / sizeof *iface_types; i++)
		json_array_append_new(types, json_string(iface_types[i]));
	put(row, cache, "iface_types", ovs_set(types));
	put(row, cache, "dpdk_initialized", json_true());
	put(row, cache, "dpdk_version", json_string(rte_version()));
	add_update(ops, "Open_vSwitch", uuid, row);

	/* the Datapath row a client made for "netdev" */
	dp = datapath_uuid(root, "netdev");
	if (!dp)
		return;
	json_t *caps = json_object();
	for (size_t i = 0; i < sizeof capabilities / sizeof *capabilities;
	     i++)
		json_object_set_new(caps, capabilities[i].key,
				    json_string(capabilities[i].value));
	json_t *dprow = json_object();
	put(dprow, cache_of(dp), "capabilities", ovs_map(caps));
	add_update(ops, "Datapath", dp, dprow);
}

/* datapath_id: 16 hex digits, stable for the bridge's name (OVS derives
 * it from the local port's MAC, random on a netdev bridge), with the
 * locally administered bit that OVS's eth_addr_random() also sets. */
static void
bridge_rows(json_t *ops, const struct ovsdb_replica *r)
{
	const char *uuid;
	json_t *br;

	json_object_foreach(r->rows[OVSDB_T_BRIDGE], uuid, br) {
		const char *name = ovsdb_datum_string(br, "name");
		uint64_t h = 1469598103934665603ull;	/* FNV-1a */
		char id[17];
		json_t *row = json_object(), *cache = cache_of(uuid);

		for (const char *s = name ? name : ""; *s; s++)
			h = (h ^ (unsigned char)*s) * 1099511628211ull;
		h = (h & 0xfcffffffffffull) | 0x020000000000ull;
		snprintf(id, sizeof id, "%016" PRIx64, h);
		put(row, cache, "datapath_id", json_string(id));
		put(row, cache, "datapath_version", json_string("<built-in>"));
		add_update(ops, "Bridge", uuid, row);
	}
}

/* Rows gone from the database leave the cache. */
static void
prune(const struct ovsdb_replica *r)
{
	const char *uuid;
	json_t *v;
	void *tmp;

	json_object_foreach_safe(written, tmp, uuid, v) {
		bool found = false;
		for (int t = 0; t < OVSDB_N_TABLES && !found; t++)
			found = ovsdb_replica_get(r, t, uuid) != NULL;
		/* Datapath rows are not replicated: kept while named */
		if (!found && !json_object_get(v, "capabilities"))
			json_object_del(written, uuid);
	}
}

json_t *
ovsdb_write_build(const struct ovsdb_replica *r, const json_t *results,
		  long long cur_cfg, bool stats)
{
	json_t *ops = json_array();
	const char *uuid;
	json_t *res;

	if (!written)
		written = json_object();
	if (!ops || !written) {
		json_decref(ops);
		return NULL;
	}
	prune(r);
	json_object_foreach((json_t *)results, uuid, res)
		if (ovsdb_replica_get(r, OVSDB_T_INTERFACE, uuid))
			interface_row(ops, uuid, res, stats);
	bridge_rows(ops, r);
	root_row(ops, r, cur_cfg);
	if (!json_array_size(ops)) {
		json_decref(ops);
		return NULL;
	}
	json_t *params = json_pack("[s, {s:s, s:s}]", "Open_vSwitch", "op",
				   "assert", "lock", "ovs_vswitchd");
	json_array_extend(params, ops);
	json_decref(ops);
	return params;
}

void
ovsdb_write_forget(void)
{
	json_decref(written);
	written = NULL;
}
