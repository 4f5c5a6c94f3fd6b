/* SPDX-License-Identifier: BSD-3-Clause
 * OVSDB mode's write-back (ovsdb_write.h): each row's columns computed
 * from the running switch, compared with what was last written, and the
 * difference made an "update" by _uuid.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <rte_bus.h>
#include <rte_dev.h>
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

/* What vxswitch's datapath does, in get_datapath_cap()'s 27 keys
 * (ofproto/ofproto-dpif.c), each with vxswitch's own answer (OVS 3.1's
 * netdev datapath says "true" to all but the three numbers: 1, 3, 1):
 * what it lacks is "false" or 0, so that ovn-controller, which reads
 * them (ct_zero_snat, check_pkt_len, ...), does not ask for it. */
static const struct { const char *key, *value; } capabilities[] = {
	{ "add_mpls", "false" }, { "check_pkt_len", "false" },
	{ "clone", "false" }, { "ct_clear", "true" },
	{ "ct_eventmask", "false" }, { "ct_flush", "true" },
	{ "ct_label", "true" }, { "ct_mark", "true" },
	{ "ct_orig_tuple", "true" }, { "ct_orig_tuple6", "true" },
	{ "ct_state", "true" }, { "ct_state_nat", "true" },
	{ "ct_timeout", "false" }, { "ct_zero_snat", "false" },
	{ "ct_zone", "true" }, { "explicit_drop_action", "false" },
	{ "lb_output_action", "false" }, { "masked_set_action", "true" },
	{ "max_hash_alg", "0" }, { "max_mpls_depth", "0" },
	{ "max_vlan_headers", "0" }, { "nd_ext", "true" },
	{ "recirc", "true" }, { "sample_nesting", "false" },
	{ "tnl_push_pop", "true" }, { "trunc", "false" },
	{ "ufid", "true" },
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

/* A map in OVSDB's form, from an object (string keys; values as they
 * are: strings for status, integers for statistics). */
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
	uint16_t n = rte_vhost_get_vring_num(vid);
	snprintf(buf, sizeof buf, "%u", n);
	json_object_set_new(s, "num_of_vrings", json_string(buf));
	int numa = rte_vhost_get_numa_node(vid);
	if (numa >= 0) {
		snprintf(buf, sizeof buf, "%d", numa);
		json_object_set_new(s, "numa", json_string(buf));
	}
	for (uint16_t q = 0; q < n && q < 64; q++) {
		struct rte_vhost_vring vr;
		char key[32];
		if (rte_vhost_get_vhost_vring(vid, q, &vr))
			continue;
		snprintf(key, sizeof key, "vring_%u_size", q);
		snprintf(buf, sizeof buf, "%u", vr.size);
		json_object_set_new(s, key, json_string(buf));
	}
	return s;
}

/* One status entry, formatted. */
static void
status_put(json_t *s, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void
status_put(json_t *s, const char *key, const char *fmt, ...)
{
	char buf[256];
	va_list args;

	va_start(args, fmt);
	vsnprintf(buf, sizeof buf, fmt, args);
	va_end(args);
	json_object_set_new(s, key, json_string(buf));
}

static const char *
link_speed_name(uint32_t speed)
{
	switch (speed) {	/* netdev_dpdk_link_speed_to_str__()'s */
	case RTE_ETH_SPEED_NUM_10M: return "10Mbps";
	case RTE_ETH_SPEED_NUM_100M: return "100Mbps";
	case RTE_ETH_SPEED_NUM_1G: return "1Gbps";
	case RTE_ETH_SPEED_NUM_2_5G: return "2.5Gbps";
	case RTE_ETH_SPEED_NUM_5G: return "5Gbps";
	case RTE_ETH_SPEED_NUM_10G: return "10Gbps";
	case RTE_ETH_SPEED_NUM_20G: return "20Gbps";
	case RTE_ETH_SPEED_NUM_25G: return "25Gbps";
	case RTE_ETH_SPEED_NUM_40G: return "40Gbps";
	case RTE_ETH_SPEED_NUM_50G: return "50Gbps";
	case RTE_ETH_SPEED_NUM_56G: return "56Gbps";
	case RTE_ETH_SPEED_NUM_100G: return "100Gbps";
	default: return "Not Defined";
	}
}

/* An ethdev's status, with the keys netdev_dpdk_get_status() writes. */
static json_t *
ethdev_status(const struct port *p)
{
	json_t *s = json_object();
	struct rte_eth_dev_info info;
	struct rte_eth_link link = { 0 };
	uint16_t mtu = 1500;

	if (rte_eth_dev_info_get(p->eth_port_id, &info))
		return s;
	rte_eth_link_get_nowait(p->eth_port_id, &link);
	rte_eth_dev_get_mtu(p->eth_port_id, &mtu);
	const char *bus = rte_dev_bus_info(info.device);
	status_put(s, "port_no", "%u", p->eth_port_id);
	status_put(s, "numa_id", "%d", rte_eth_dev_socket_id(p->eth_port_id));
	status_put(s, "driver_name", "%s", info.driver_name);
	status_put(s, "min_rx_bufsize", "%u", info.min_rx_bufsize);
	/* OVS's dev->max_packet_len: the MTU's frame, with its CRC */
	status_put(s, "max_rx_pktlen", "%u", mtu + RTE_ETHER_HDR_LEN +
		   RTE_ETHER_CRC_LEN);
	status_put(s, "max_rx_queues", "%u", info.max_rx_queues);
	status_put(s, "max_tx_queues", "%u", info.max_tx_queues);
	status_put(s, "max_mac_addrs", "%u", info.max_mac_addrs);
	status_put(s, "max_hash_mac_addrs", "%u", info.max_hash_mac_addrs);
	status_put(s, "max_vfs", "%u", info.max_vfs);
	status_put(s, "max_vmdq_pools", "%u", info.max_vmdq_pools);
	status_put(s, "if_type", "6");	/* IF_TYPE_ETHERNETCSMACD */
	status_put(s, "if_descr", "%s %s", rte_version(), info.driver_name);
	status_put(s, "bus_info", "bus_name=%s%s%s",
		   rte_bus_name(rte_dev_bus(info.device)), bus ? ", " : "",
		   bus ? bus : "");
	status_put(s, "link_speed", "%s", link_speed_name(link.link_speed));
	return s;
}

/* OVS's vhost MTU is 0 until a first guest came, then what was asked
 * (or 1500); a dpdk port's what the device took. */
static json_t *
port_mtu(const struct port *p)
{
	uint16_t mtu = 1500;

	if (p->kind == PORT_ETHDEV)
		rte_eth_dev_get_mtu(p->eth_port_id, &mtu);
	else if (p->kind == PORT_VHOST &&
		 !__atomic_load_n(&p->n_connects, __ATOMIC_RELAXED))
		mtu = 0;	/* OVS's: none until a first guest */
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
	return ovs_map(s);
}

/* A bridge's MAC: stable for its name (OVS's local port has the random
 * one of its tap, eth_addr_random(): locally administered, unicast).
 * Also the OpenFlow channel's datapath_id and local port address
 * (of_ports.c), so that they equal what is written here. */
uint64_t
ovsdb_bridge_mac(const char *name)
{
	uint64_t h = 1469598103934665603ull;	/* FNV-1a */

	for (const char *s = name ? name : ""; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return (h & 0xfcffffffffffull) | 0x020000000000ull;
}

static json_t *
mac_string(uint64_t m)
{
	char mac[18];

	snprintf(mac, sizeof mac, "%02x:%02x:%02x:%02x:%02x:%02x",
		 (unsigned)(m >> 40 & 0xff), (unsigned)(m >> 32 & 0xff),
		 (unsigned)(m >> 24 & 0xff), (unsigned)(m >> 16 & 0xff),
		 (unsigned)(m >> 8 & 0xff), (unsigned)(m & 0xff));
	return json_string(mac);
}

/* One Interface row's columns. */
static void
interface_row(json_t *ops, const char *uuid, const json_t *res, bool stats,
	      long long local_mtu)
{
	json_t *row = json_object(), *cache = cache_of(uuid);
	const char *error = json_string_value(json_object_get(res, "error"));
	const char *name = json_string_value(json_object_get(res, "port"));
	long long ofport = json_integer_value(json_object_get(res, "ofport"));
	const struct port *p = name ? port_by_name(name) : NULL;

	put(row, cache, "ofport", json_integer(ofport));
	put(row, cache, "error", error ? json_string(error) : empty_set());
	if (json_is_true(json_object_get(res, "local"))) {
		/* OVS's local port is a tap, down until the host sets it up;
		 * vxswitch's has no kernel device at all */
		put(row, cache, "admin_state", json_string("down"));
		put(row, cache, "link_state", json_string("down"));
		put(row, cache, "mtu", json_integer(local_mtu));
		put(row, cache, "mac_in_use", mac_string(ovsdb_bridge_mac(
			json_string_value(json_object_get(res, "name")))));
		add_update(ops, "Interface", uuid, row);
		return;
	}
	if (!p) {	/* refused: iface_clear_db_record()'s columns */
		put(row, cache, "admin_state", empty_set());
		put(row, cache, "link_state", empty_set());
		put(row, cache, "mtu", empty_set());
		put(row, cache, "mac_in_use", empty_set());
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
	} else if (p->kind == PORT_VHOST) {	/* none: OVS's zeros */
		put(row, cache, "mac_in_use", json_string(
			"00:00:00:00:00:00"));
	} else if (p->kind == PORT_VXLAN) {	/* OVS's vport: a random one */
		put(row, cache, "mac_in_use",
		    mac_string(ovsdb_bridge_mac(p->name)));
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

/* The local port's MTU follows the bridge's other ports, the smallest
 * one known (OVS: ofproto's find_min_mtu(), which skips the ports that
 * have none, as a vhost port before its guest); 1500 with none. */
static long long
min_mtu(const json_t *results)
{
	long long min = 0;
	const char *uuid;
	json_t *res;

	json_object_foreach((json_t *)results, uuid, res) {
		const char *name = json_string_value(json_object_get(res,
								     "port"));
		const struct port *p = name ? port_by_name(name) : NULL;
		if (!p || p->kind == PORT_VXLAN)
			continue;
		json_t *m = port_mtu(p);
		long long v = json_integer_value(m);
		json_decref(m);
		if (v > 0 && (!min || v < min))
			min = v;
	}
	return min ? min : 1500;
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

/* datapath_id: 16 hex digits, from the bridge's MAC as OVS makes it
 * from its local port's. */
static void
bridge_rows(json_t *ops, const struct ovsdb_replica *r)
{
	const char *uuid;
	json_t *br;

	json_object_foreach(r->rows[OVSDB_T_BRIDGE], uuid, br) {
		const char *name = ovsdb_datum_string(br, "name");
		const char *dpt = ovsdb_datum_string(br, "datapath_type");
		char id[17];

		if (!dpt || strcmp(dpt, "netdev"))
			continue;	/* never made, as in OVS */
		json_t *row = json_object(), *cache = cache_of(uuid);

		/* OVS's: 0000 and the local port's MAC */
		snprintf(id, sizeof id, "%016" PRIx64, ovsdb_bridge_mac(name));
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
	long long local_mtu = min_mtu(results);
	json_object_foreach((json_t *)results, uuid, res)
		if (ovsdb_replica_get(r, OVSDB_T_INTERFACE, uuid))
			interface_row(ops, uuid, res, stats, local_mtu);
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
