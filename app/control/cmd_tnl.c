/* SPDX-License-Identifier: BSD-3-Clause
 * vxswitch-ctl commands for the underlay's tables, named after OVS's:
 * tnl/arp/... (and their OVS 3.x names tnl/neigh/...), tnl/neigh/aging,
 * ovs/route/..., and limits/show (every table's size, limit and refusals).
 */
#include <stdio.h>
#include <string.h>
#include "clock.h"
#include "cmd_util.h"
#include "control.h"
#include "ct_label_pred.h"
#include "dp_snapshot.h"
#include "dpcls.h"
#include "ipv6_prefix.h"
#include "json_out.h"
#include "neigh.h"
#include "ofproto.h"
#include "pmd.h"
#include "recirc_id.h"
#include "route.h"
#include "state.h"

/* An address of either family, IPv4 mapped (neigh.h): 0 or -1. */
static int
parse_addr(const char *s, struct flow_in6_addr *a)
{
	rte_be32_t ip;

	if (parse_ip(s, &ip) == 0) {
		*a = neigh_addr_from4(ip);
		return 0;
	}
	return inet_pton(AF_INET6, s, a->a) == 1 ? 0 : -1;
}

/* "A.B.C.D[/N]" or "X:X::X[/N]" (no /N: a host); IPv4 mapped. */
static int
parse_prefix_any(const char *s, struct flow_in6_addr *a, uint8_t *plen)
{
	rte_be32_t ip;

	if (parse_prefix(s, &ip, plen) == 0) {
		*a = neigh_addr_from4(ip);
		return 0;
	}
	return ipv6_prefix_parse(s, true, a->a, plen) ? 0 : -1;
}

/* As OVS's ipv6_format_mapped: a mapped address in dotted quad. */
static const char *
addr_str(const struct flow_in6_addr *a, char *buf)
{
	if (neigh_addr_is4(a))
		return ip_str(neigh_addr_to4(a), buf);
	inet_ntop(AF_INET6, a->a, buf, INET6_ADDRSTRLEN);
	return buf;
}

/* tnl/arp/set [BRIDGE] IP MAC: either family */
static int
cmd_arp_set(int argc, const char *argv[], bool json, struct ds *out,
	    void *aux)
{
	(void)json, (void)aux;
	struct flow_in6_addr ip;
	struct rte_ether_addr mac;
	const char *ips = argv[argc - 2], *macs = argv[argc - 1];
	char err[256];

	if (parse_addr(ips, &ip)) {
		ds_put_format(out, "bad %s address '%s'",
			      strchr(ips, ':') ? "IPv6" : "IPv4", ips);
		return -1;
	}
	if (rte_ether_unformat_addr(macs, &mac)) {
		ds_put_format(out, "bad MAC address '%s'", macs);
		return -1;
	}
	/* what the PMDs learned first: a later learn must not undo this */
	ctl_events_process();
	if (neigh_set6(&ip, &mac, err, sizeof err)) {
		ds_put_cstr(out, err);
		return -1;
	}
	return cmd_changed_ok(out, false);
}

/* OVS pads the IP to INET6_ADDRSTRLEN. */
#define ARP_SHOW_IP_WIDTH 46

static int
cmd_arp_show(int argc, const char *argv[], bool json, struct ds *out,
	     void *aux)
{
	UNUSED_ARGS;
	char ip[INET6_ADDRSTRLEN], mac[RTE_ETHER_ADDR_FMT_SIZE];
	const struct port *u = port_underlay();
	uint64_t now = vxs_now_ms();

	ctl_events_process();
	ofproto_publish_pending();
	if (json)
		jw_begin_array(out);
	else	/* OVS's lib/tnl-neigh-cache.c, to the byte */
		ds_put_cstr(out, "IP                                            "
			    "MAC                 Bridge\n"
			    "=================================================="
			    "========================\n");
	for (uint32_t i = 0; i < neigh_slots(); i++) {
		const struct neigh_entry *e = neigh_slot(i);
		if (!e)
			continue;
		uint64_t left = neigh_expires_in_ms(e, now);
		addr_str(&e->addr, ip);
		mac_str(&e->mac, mac);
		if (json) {
			jw_begin_object(out);
			jw_key(out, "ip"); jw_string(out, ip);
			jw_key(out, "mac"); jw_string(out, mac);
			jw_key(out, "static"); jw_bool(out, e->is_static);
			/* seconds until it ages out; null: never (static) */
			jw_key(out, "expires_s");
			if (e->is_static)
				jw_null(out);
			else
				jw_u64(out, (left + 999) / 1000);
			jw_end_object(out);
		} else {	/* static or not, and expiry: --json */
			ds_put_format(out, "%-*s%s   %s\n", ARP_SHOW_IP_WIDTH,
				      ip, mac, u ? u->name : "-");
		}
	}
	if (json)
		jw_end_array(out);
	return 0;
}

static int
cmd_arp_flush(int argc, const char *argv[], bool json, struct ds *out,
	      void *aux)
{
	UNUSED_ARGS;
	/* Apply what the PMDs learned before the flush, not after it. */
	ctl_events_process();
	neigh_flush();
	ctl_arp_requests_forget();
	ds_put_cstr(out, "OK\n");
	return 0;
}

/* tnl/neigh/aging [SECS]: OVS 3.x; shows or sets the learned entries'
 * aging time (1..3600 s). A new time applies to entries already there. */
static int
cmd_neigh_aging(int argc, const char *argv[], bool json, struct ds *out,
		void *aux)
{
	(void)aux;
	if (argc > 1) {
		char *end;
		unsigned long s = strtoul(argv[1], &end, 10);
		if (*end || end == argv[1] || argv[1][0] == '-' || s < 1 ||
		    s > NEIGH_AGING_MAX_S) {
			ds_put_format(out, "bad aging time '%s': seconds, 1 "
				      "to %u", argv[1], NEIGH_AGING_MAX_S);
			return -1;
		}
		neigh_set_aging_s((uint32_t)s);
		return cmd_changed_ok(out, false);
	}
	if (json)
		jw_u64(out, neigh_aging_s());
	else
		ds_put_format(out, "%u\n", neigh_aging_s());
	return 0;
}

/* The name OVS's own set-up gives the underlay bridge (the seed's
 * topology, ovs-vsctl add-br br-phy), taken for the underlay NIC. */
#define ROUTE_UNDERLAY_BRIDGE "br-phy"

/* ovs/route/add IP/PLEN [BRIDGE|PORT] [GW] */
static int
cmd_route_add(int argc, const char *argv[], bool json, struct ds *out,
	      void *aux)
{
	(void)json, (void)aux;
	struct flow_in6_addr prefix, gw = { { 0 } };
	uint8_t plen;
	char err[256];
	const struct port *p = port_underlay();

	if (parse_prefix_any(argv[1], &prefix, &plen)) {
		ds_put_format(out, "bad prefix '%s'", argv[1]);
		return -1;
	}
	for (int i = 2; i < argc; i++) {
		const struct port *named = port_by_name(argv[i]);
		if (named && named->kind == PORT_ETHDEV) {
			p = named;
		} else if (parse_addr(argv[i], &gw) == 0) {
			if (neigh_addr_is4(&gw) != neigh_addr_is4(&prefix)) {
				/* OVS's words for a gateway it cannot read */
				ds_put_format(out, neigh_addr_is4(&prefix) ?
					      "Invalid pkt_mark or gateway" :
					      "Invalid pkt_mark or IPv6 "
					      "gateway");
				return -1;
			}
			continue;
		} else if (i == 2 && !named && !strcmp(argv[i],
						       ROUTE_UNDERLAY_BRIDGE)) {
			continue;	/* OVS's underlay bridge: ours */
		} else if (i == 2) {
			/* OVS finds no source address on a bridge it does
			 * not have, and says so in these words */
			ds_put_format(out, "Error while inserting route.\n"
				      "no port or bridge '%s' (the underlay "
				      "is %s or " ROUTE_UNDERLAY_BRIDGE ")",
				      argv[i], p ? p->name : "not set");
			return -1;
		} else {
			ds_put_format(out, "bad gateway or port '%s'", argv[i]);
			return -1;
		}
	}
	if (!p) {
		ds_put_cstr(out, "no underlay port to route through");
		return -1;
	}
	if (route_insert6(&prefix, plen, &gw, p->idx, false, err,
			  sizeof err)) {
		ds_put_cstr(out, err);
		return -1;
	}
	return cmd_changed_ok(out, true);
}

static int
cmd_route_del(int argc, const char *argv[], bool json, struct ds *out,
	      void *aux)
{
	(void)argc, (void)json, (void)aux;
	struct flow_in6_addr prefix;
	uint8_t plen;

	if (parse_prefix_any(argv[1], &prefix, &plen)) {
		ds_put_format(out, "bad prefix '%s'", argv[1]);
		return -1;
	}
	if (route_remove6(&prefix, plen)) {
		ds_put_format(out, "no route %s", argv[1]);
		return -1;
	}
	return cmd_changed_ok(out, true);
}

static int
cmd_route_show(int argc, const char *argv[], bool json, struct ds *out,
	       void *aux)
{
	UNUSED_ARGS;
	char ip[INET6_ADDRSTRLEN], gw[INET6_ADDRSTRLEN];
	char src[INET6_ADDRSTRLEN], src6[INET6_ADDRSTRLEN];
	const struct dp_snapshot *snap = dp_snapshot_get();
	uint32_t n;
	struct route_entry *routes = route_list(&n);

	/* every route's source is the VTEP's address of its family */
	snprintf(src, sizeof src, "%s", snap->has_underlay ?
		 ip_str(snap->vtep_ip, gw) : "0.0.0.0");
	snprintf(src6, sizeof src6, "%s", snap->has_vtep_ip6 ?
		 addr_str(&snap->vtep_ip6, gw) : "::");
	if (!routes) {
		ds_put_cstr(out, "out of memory");
		return -1;
	}
	if (json)
		jw_begin_array(out);
	else
		ds_put_cstr(out, "Route Table:\n");
	for (uint32_t i = 0; i < n; i++) {
		const struct route_entry *r = &routes[i];
		const char *rsrc = r->is_ipv4 ? src : src6;
		addr_str(&r->prefix, ip);
		if (json) {
			jw_begin_object(out);
			jw_key(out, "prefix"); jw_string(out, ip);
			jw_key(out, "plen"); jw_u64(out, r->plen);
			jw_key(out, "gateway");
			if (route_has_gateway(r))
				jw_string(out, addr_str(&r->gateway, gw));
			else
				jw_null(out);
			jw_key(out, "port");
			jw_string(out, port_name_at(r->port_idx));
			jw_key(out, "connected"); jw_bool(out, r->connected);
			jw_key(out, "src"); jw_string(out, rsrc);
			jw_end_object(out);
		} else {
			ds_put_format(out, "%s %s/%u dev %s", r->connected ?
				      "Cached:" : "User:", ip, r->plen,
				      port_name_at(r->port_idx));
			if (route_has_gateway(r))
				ds_put_format(out, " GW %s",
					      addr_str(&r->gateway, gw));
			ds_put_format(out, " SRC %s\n", rsrc);
		}
	}
	if (json)
		jw_end_array(out);
	free(routes);
	return 0;
}

/* ---- limits/show ------------------------------------------------------- */

struct limit_row {
	const char *table, *setting;
	uint64_t entries, limit, refused;
	const char *refused_what;
};

static int
cmd_limits_show(int argc, const char *argv[], bool json, struct ds *out,
		void *aux)
{
	UNUSED_ARGS;
	const struct neigh_stats *ns;
	const struct ofproto_publish_stats *ps = ofproto_get_publish_stats();
	const struct ctl_arp_stats *as = ctl_arp_get_stats();
	uint64_t mf = 0, mf_limit = 0, upcall_fail = 0, lost = 0;
	struct recirc_id_stats rs;
	struct ct_label_pred_stats ls;

	ctl_events_process();
	ns = neigh_get_stats();
	recirc_id_get_stats(&rs);
	ct_label_preds_get_stats(&ls);
	for (uint16_t i = 0; i < n_pmds; i++) {
		mf += dpcls_count(pmds[i].dp.cls);
		mf_limit += pmds[i].dp.max_flows;
		upcall_fail += pmds[i].stats.drops[DROP_UPCALL_FAIL];
		lost += pmds[i].stats.ctl_events_lost;
	}
	const struct limit_row rows[] = {
		{ "flows", "max-flows", ofproto_n_rules(), ofproto_max_rules(),
		  ofproto_rules_refused(), "add-flow refused whole" },
		{ "neighbours", "max-neighbours", neigh_count(), neigh_limit(),
		  ns->learn_refused + ns->set_refused, "learned + set" },
		{ "routes", "max-routes", route_count(), route_limit(),
		  route_refused(), "route/add" },
		{ "megaflows", "max-megaflows", mf, mf_limit, upcall_fail,
		  "upcall_fail drops" },
		{ "ports", "(PORT_MAX)", ports_in_use(), PORT_MAX,
		  ports_refused, "add-port, table full" },
		{ "port-names", "(PORT_NAMES_MAX)", ports_names_known(),
		  PORT_NAMES_MAX, port_names_refused,
		  "names kept for flows/ofports" },
		{ "recirc-ids", "(RECIRC_ID_MAX)", rs.in_use, RECIRC_ID_MAX,
		  rs.refused, "ct(table=) states, packets recirc_limit" },
		{ "ct-labels", "(key bits)", ls.in_use, FLOW_CT_LABEL_PREDS,
		  ls.refused, "distinct ct_label=V/M, add-flow refused" },
	};

	if (json) {
		jw_begin_object(out);
		for (size_t i = 0; i < RTE_DIM(rows); i++) {
			jw_key(out, rows[i].table);
			jw_begin_object(out);
			jw_key(out, "entries"); jw_u64(out, rows[i].entries);
			jw_key(out, "limit"); jw_u64(out, rows[i].limit);
			jw_key(out, "refused"); jw_u64(out, rows[i].refused);
			jw_end_object(out);
		}
		jw_key(out, "neigh_learned"); jw_u64(out, ns->learned);
		jw_key(out, "neigh_learn_refused");
		jw_u64(out, ns->learn_refused);
		jw_key(out, "neigh_set_refused"); jw_u64(out, ns->set_refused);
		jw_key(out, "neigh_aged"); jw_u64(out, ns->aged);
		jw_key(out, "neigh_aging_s"); jw_u64(out, neigh_aging_s());
		jw_key(out, "ctl_events_lost"); jw_u64(out, lost);
		jw_key(out, "arp_requests");
		jw_begin_object(out);
		jw_key(out, "sent"); jw_u64(out, as->sent);
		jw_key(out, "nd_sent"); jw_u64(out, as->nd_sent);
		jw_key(out, "rate_limited"); jw_u64(out, as->rate_limited);
		jw_key(out, "no_mbuf"); jw_u64(out, as->no_mbuf);
		jw_key(out, "tx_failed"); jw_u64(out, as->tx_failed);
		jw_end_object(out);
		jw_key(out, "publishes"); jw_u64(out, ps->publishes);
		jw_key(out, "publishes_neigh"); jw_u64(out, ps->neigh_only);
		jw_key(out, "publishes_by_table"); jw_u64(out, ps->by_table);
		jw_key(out, "neigh_changes"); jw_u64(out, ps->neigh_changes);
		jw_key(out, "deferred_frees");
		jw_u64(out, ps->deferred_frees);
		jw_key(out, "last_build_us"); jw_u64(out, ps->last_build_us);
		jw_key(out, "last_publish_us");
		jw_u64(out, ps->last_publish_us);
		jw_key(out, "publish_interval_ms");
		jw_u64(out, ofproto_publish_interval_ms());
		jw_end_object(out);
		return 0;
	}
	ds_put_format(out, "%-11s %-15s %10s %10s %10s\n", "table", "setting",
		      "entries", "limit", "refused");
	for (size_t i = 0; i < RTE_DIM(rows); i++)
		ds_put_format(out, "%-11s %-15s %10"PRIu64" %10"PRIu64
			      " %10"PRIu64"  (%s)\n", rows[i].table,
			      rows[i].setting, rows[i].entries, rows[i].limit,
			      rows[i].refused, rows[i].refused_what);
	ds_put_format(out, "neighbours: %"PRIu64" learned, %"PRIu64" aged "
		      "(aging %us)\n", ns->learned, ns->aged, neigh_aging_s());
	ds_put_format(out, "control events lost (ring full): %"PRIu64"\n",
		      lost);
	ds_put_format(out, "ARP requests sent: %"PRIu64", ND solicitations: "
		      "%"PRIu64" (%"PRIu64" rate limited, not sent: %"PRIu64
		      " no mbuf, %"PRIu64" tx failed)\n", as->sent,
		      as->nd_sent, as->rate_limited, as->no_mbuf,
		      as->tx_failed);
	ds_put_format(out, "snapshots published: %"PRIu64" (%"PRIu64" for "
		      "%"PRIu64" neighbour changes, %"PRIu64" revalidating "
		      "by table; interval %u ms; the last built in %"PRIu64
		      " us, published in %"PRIu64" us)\n",
		      ps->publishes, ps->neigh_only, ps->neigh_changes,
		      ps->by_table, ofproto_publish_interval_ms(),
		      ps->last_build_us, ps->last_publish_us);
	return 0;
}

void
cmd_tnl_register(void)
{
	/* OVS 3.x calls them tnl/neigh/..., and keeps tnl/arp/... as well */
	static const char *const pfx[] = { "tnl/arp", "tnl/neigh" };
	char name[32];

	for (size_t i = 0; i < RTE_DIM(pfx); i++) {
		snprintf(name, sizeof name, "%s/set", pfx[i]);
		control_register(name, "[BRIDGE] IP MAC", 2, 3, cmd_arp_set,
				 NULL);
		snprintf(name, sizeof name, "%s/show", pfx[i]);
		control_register(name, "", 0, 0, cmd_arp_show, NULL);
		snprintf(name, sizeof name, "%s/flush", pfx[i]);
		control_register(name, "", 0, 0, cmd_arp_flush, NULL);
	}
	control_register("tnl/neigh/aging", "[SECS]", 0, 1, cmd_neigh_aging,
			 NULL);
	control_register("ovs/route/add", "IP/PLEN [BRIDGE|PORT] [GW]", 1, 3,
			 cmd_route_add, NULL);
	control_register("ovs/route/del", "IP/PLEN", 1, 1, cmd_route_del, NULL);
	control_register("ovs/route/show", "", 0, 0, cmd_route_show, NULL);
	control_register("limits/show", "", 0, 0, cmd_limits_show, NULL);
}
