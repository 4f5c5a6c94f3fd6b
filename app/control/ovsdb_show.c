/* SPDX-License-Identifier: BSD-3-Clause
 * ovsdb/show: the OVSDB session's state and counters, and what the
 * replica says vxswitch would configure, row by row, with the mapping
 * and refusal texts of doc/design-control-plane.md ("OVSDB"). Step 2
 * only reports: nothing here changes the switch. Each interface ends in
 * one of
 *     do: WORDS        the vxswitch-ctl command (or role) it maps to
 *     wait: WHY        nothing yet, as OVS waits (a missing option)
 *     refused: TEXT    what OVS 3.1 would write to Interface.error
 * Text only (no JSON yet: see ovsdb_client.h for the state it reads).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "control.h"
#include "ovsdb_client.h"
#include "ovsdb_show.h"

#define EAFNOSUPPORT_TEXT "Address family not supported by protocol"

struct named {
	const char *name;
	const json_t *row;
};

static int
by_name(const void *a, const void *b)
{
	return strcmp(((const struct named *)a)->name,
		      ((const struct named *)b)->name);
}

/* The rows a UUID-set column names, that exist, sorted by name; the
 * caller frees the array. */
static struct named *
referenced(const struct ovsdb_replica *r, const json_t *row,
	   const char *column, enum ovsdb_table t, size_t *n)
{
	size_t cap = 0;
	struct named *v = NULL;
	const char *uuid;

	*n = 0;
	for (size_t i = 0; (uuid = ovsdb_datum_uuid_at(row, column, i)); i++)
		cap++;
	if (!cap || !(v = calloc(cap, sizeof *v)))
		return NULL;
	for (size_t i = 0; (uuid = ovsdb_datum_uuid_at(row, column, i)); i++) {
		const json_t *ref = ovsdb_replica_get(r, t, uuid);
		if (!ref)
			continue;
		const char *name = ovsdb_datum_string(ref, "name");
		v[*n].name = name ? name : ovsdb_datum_string(ref, "target");
		if (!v[*n].name)
			v[*n].name = "";
		v[(*n)++].row = ref;
	}
	qsort(v, *n, sizeof *v, by_name);
	return v;
}

/* The root row (ovs-vsctl init makes the one there is). */
static const json_t *
root_row(const struct ovsdb_replica *r)
{
	const char *uuid;
	json_t *row;

	json_object_foreach(r->rows[OVSDB_T_OPEN_VSWITCH], uuid, row)
		return row;
	return NULL;
}

/* ---- interfaces ---- */

/* What the plan found so far, across bridges. */
struct plan {
	bool have_vxlan;
	unsigned refused;
};

static void
put_iface_line(struct ds *out, const json_t *iface, const char *name)
{
	const char *type = ovsdb_datum_string(iface, "type");
	const char *k, *v;
	long long n;

	ds_put_format(out, "    interface %s type=%s", name,
		      type && *type ? type : "\"\"");
	for (size_t i = 0; ovsdb_datum_map_at(iface, "options", i, &k, &v);
	     i++)
		ds_put_format(out, " options:%s=%s", k, v);
	v = ovsdb_datum_map_get(iface, "other_config", "pmd-rxq-affinity");
	if (v)
		ds_put_format(out, " other_config:pmd-rxq-affinity=%s", v);
	if (ovsdb_datum_int(iface, "ofport_request", &n))
		ds_put_format(out, " ofport_request=%lld", n);
	if (ovsdb_datum_int(iface, "mtu_request", &n))
		ds_put_format(out, " mtu_request=%lld", n);
	ds_put_char(out, '\n');
}

static void
refuse(struct plan *p, struct ds *out, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void
refuse(struct plan *p, struct ds *out, const char *fmt, ...)
{
	va_list args;

	p->refused++;
	ds_put_cstr(out, "      refused: ");
	va_start(args, fmt);
	ds_put_vformat(out, fmt, args);
	va_end(args);
	ds_put_char(out, '\n');
}

/* A vxlan interface: OVS's option checks, and one only. */
static void
plan_vxlan(struct plan *p, const json_t *iface, const char *name,
	   struct ds *out)
{
	static const char *const known[] = { "remote_ip", "local_ip", "key",
					     "dst_port" };
	const char *k, *v;

	for (size_t i = 0; ovsdb_datum_map_at(iface, "options", i, &k, &v);
	     i++) {
		size_t j;
		for (j = 0; j < sizeof known / sizeof *known; j++)
			if (!strcmp(k, known[j]))
				break;
		if (j == sizeof known / sizeof *known) {
			/* netdev-vport.c:779's words */
			refuse(p, out, "%s: unknown vxlan argument '%s'", name,
			       k);
			return;
		}
	}
	if (!ovsdb_datum_map_get(iface, "options", "remote_ip")) {
		refuse(p, out, "%s: vxlan type requires valid 'remote_ip' "
		       "argument", name);
		return;
	}
	if (p->have_vxlan) {
		refuse(p, out, "vxswitch: one vxlan port");
		return;
	}
	p->have_vxlan = true;
	ds_put_cstr(out, "      do: the tunnel port");
	for (size_t i = 0; ovsdb_datum_map_at(iface, "options", i, &k, &v);
	     i++)
		ds_put_format(out, " %s=%s", k, v);
	ds_put_cstr(out, " (set in the topology until step 3)\n");
}

/* The add-port words for a dpdk or vhost interface, checked by the
 * topology's own port reader (config_port_from_args). */
static void
plan_port(struct plan *p, const json_t *iface, const char *name,
	  const char *type, struct ds *out)
{
	char words[8][CFG_WORD_MAX], err[CFG_ERR_MAX];
	const char *argv[9] = { name };
	int n = 0;
	const char *v;
	long long num;

#define WORD(...) snprintf(words[n++], CFG_WORD_MAX, __VA_ARGS__)
	WORD("type=%s", type);
	if (!strcmp(type, "dpdkvhostuserclient")) {
		v = ovsdb_datum_map_get(iface, "options", "vhost-server-path");
		if (!v || !*v) {
			ds_put_cstr(out, "      wait: no options:vhost-server-"
				    "path (OVS waits for it too)\n");
			return;
		}
		WORD("path=%s", v);
	} else if (!strcmp(type, "dpdkvhostuser")) {
		const char *dir = getenv("OVS_RUNDIR");
		WORD("path=%s/%s", dir && *dir ? dir : "/var/run/openvswitch",
		     name);
	} else {
		v = ovsdb_datum_map_get(iface, "options", "dpdk-devargs");
		if (!v || !*v) {	/* netdev-dpdk.c:2007's words */
			refuse(p, out, "'%s' is missing 'options:dpdk-devargs'"
			       ". The old 'dpdk<port_id>' names are not "
			       "supported", name);
			return;
		}
		WORD("devargs=%s", v);
		if ((v = ovsdb_datum_map_get(iface, "options", "n_rxq")))
			WORD("n-rxq=%s", v);
	}
	if (ovsdb_datum_int(iface, "ofport_request", &num))
		WORD("ofport=%lld", num);
	if (ovsdb_datum_int(iface, "mtu_request", &num))
		WORD("mtu=%lld", num);
	v = ovsdb_datum_map_get(iface, "other_config", "pmd-rxq-affinity");
	if (v)
		WORD("rxq-affinity=%s", v);
#undef WORD
	for (int i = 0; i < n; i++)
		argv[1 + i] = words[i];
	struct cfg_port c;
	if (config_port_from_args(1 + n, argv, &c, err, sizeof err)) {
		refuse(p, out, "%s", err);
		return;
	}
	ds_put_format(out, "      do: add-port %s", name);
	for (int i = 0; i < n; i++)
		ds_put_format(out, " %s", words[i]);
	ds_put_char(out, '\n');
}

enum bridge_role { ROLE_OPENFLOW, ROLE_UNDERLAY, ROLE_REFUSED,
		   ROLE_NOT_NETDEV };

static void
plan_iface(struct plan *p, enum bridge_role role, const char *bridge,
	   const json_t *iface, const char *name, bool *underlay_taken,
	   struct ds *out)
{
	const char *type = ovsdb_datum_string(iface, "type");

	type = type ? type : "";
	put_iface_line(out, iface, name);
	if (role == ROLE_NOT_NETDEV) {
		refuse(p, out, "could not open network device %s (%s)", name,
		       EAFNOSUPPORT_TEXT);
	} else if (role == ROLE_REFUSED) {
		refuse(p, out, "vxswitch: one OpenFlow bridge and one "
		       "underlay bridge");
	} else if (!strcmp(type, "internal") && !strcmp(name, bridge)) {
		ds_put_format(out, "      do: the bridge's local port%s\n",
			      role == ROLE_OPENFLOW
			      ? " (OFPP_LOCAL, 65534; no datapath port)"
			      : " (no datapath port)");
	} else if (role == ROLE_UNDERLAY) {
		if (strcmp(type, "dpdk") || *underlay_taken) {
			refuse(p, out, "vxswitch: %s carries the underlay "
			       "only", bridge);
		} else {
			*underlay_taken = true;
			ds_put_cstr(out, "      do: the underlay port "
				    "(the topology's underlay: port:)\n");
		}
	} else if (!strcmp(type, "vxlan")) {
		plan_vxlan(p, iface, name, out);
	} else if (!strcmp(type, "dpdkvhostuserclient") ||
		   !strcmp(type, "dpdkvhostuser") || !strcmp(type, "dpdk")) {
		plan_port(p, iface, name, type, out);
	} else {	/* OVS's text for a type it lacks (netdev.c:458) */
		refuse(p, out, "could not open network device %s (%s)", name,
		       EAFNOSUPPORT_TEXT);
	}
}

/* ---- bridges ---- */

static void
plan_controllers(struct plan *p, const struct ovsdb_replica *r,
		 const json_t *br, struct ds *out)
{
	size_t n;
	struct named *ctls = referenced(r, br, "controller",
					OVSDB_T_CONTROLLER, &n);

	for (size_t i = 0; i < n; i++) {
		const char *t = ctls[i].name;
		ds_put_format(out, "  controller %s\n", t);
		if (!strncmp(t, "ssl:", 4) || !strncmp(t, "pssl:", 5)) {
			p->refused++;	/* Controller status:last_error */
			ds_put_cstr(out, "      refused: vxswitch: no SSL\n");
		} else if (!strncmp(t, "tcp:", 4) || !strncmp(t, "unix:", 5) ||
			   !strncmp(t, "ptcp:", 5) ||
			   !strncmp(t, "punix:", 6)) {
			ds_put_cstr(out, "      do: an OpenFlow connection "
				    "(the OpenFlow channel: a later step)\n");
		} else {
			p->refused++;
			ds_put_cstr(out, "      refused: vxswitch: unknown "
				    "controller target\n");
		}
	}
	free(ctls);
}

static void
plan_bridge(struct plan *p, const struct ovsdb_replica *r,
	    const struct named *br, enum bridge_role role, struct ds *out)
{
	static const char *const roles[] = {
		[ROLE_OPENFLOW] = "the OpenFlow bridge",
		[ROLE_UNDERLAY] = "the underlay bridge",
		[ROLE_REFUSED] = "refused: one OpenFlow bridge and one "
				 "underlay bridge",
		[ROLE_NOT_NETDEV] = "refused: datapath_type is not netdev",
	};
	const char *dpt = ovsdb_datum_string(br->row, "datapath_type");
	const char *fail = ovsdb_datum_string(br->row, "fail_mode");
	bool underlay_taken = false;
	size_t n_ports;

	ds_put_format(out, "bridge %s datapath_type=%s fail_mode=%s: %s\n",
		      br->name, dpt && *dpt ? dpt : "\"\"",
		      fail && *fail ? fail : "standalone", roles[role]);
	plan_controllers(p, r, br->row, out);
	struct named *ports = referenced(r, br->row, "ports", OVSDB_T_PORT,
					 &n_ports);
	for (size_t i = 0; i < n_ports; i++) {
		size_t n_ifaces;
		struct named *ifaces = referenced(r, ports[i].row,
						  "interfaces",
						  OVSDB_T_INTERFACE,
						  &n_ifaces);
		ds_put_format(out, "  port %s\n", ports[i].name);
		for (size_t j = 0; j < n_ifaces; j++) {
			if (n_ifaces > 1) {
				put_iface_line(out, ifaces[j].row,
					       ifaces[j].name);
				refuse(p, out, "vxswitch: no bonds (port %s "
				       "has %zu interfaces)", ports[i].name,
				       n_ifaces);
				continue;
			}
			plan_iface(p, role, br->name, ifaces[j].row,
				   ifaces[j].name, &underlay_taken, out);
		}
		free(ifaces);
	}
	free(ports);
}

/* pmd-cpu-mask (hex, "0x" or not, as OVS reads it) as a core list. */
static void
plan_pmd_mask(struct plan *p, const json_t *root, struct ds *out)
{
	const char *mask = ovsdb_datum_map_get(root, "other_config",
					       "pmd-cpu-mask");
	const char *h;
	char list[512];
	size_t len = 0;

	if (!mask)
		return;
	ds_put_format(out, "other_config:pmd-cpu-mask=%s\n", mask);
	h = strncmp(mask, "0x", 2) && strncmp(mask, "0X", 2) ? mask
							      : mask + 2;
	size_t digits = strlen(h);
	list[0] = '\0';
	for (size_t i = 0; i < digits; i++) {
		char d = h[digits - 1 - i];
		int v = d >= '0' && d <= '9' ? d - '0'
			: d >= 'a' && d <= 'f' ? d - 'a' + 10
			: d >= 'A' && d <= 'F' ? d - 'A' + 10 : -1;
		if (v < 0 || !digits) {
			len = 0;
			break;
		}
		for (int b = 0; b < 4; b++)
			if ((v >> b & 1) && len < sizeof list - 8)
				len += (size_t)snprintf(list + len,
					sizeof list - len, "%s%zu",
					len ? "," : "", i * 4 + (size_t)b);
	}
	if (!len) {
		p->refused++;
		ds_put_format(out, "      refused: bad pmd-cpu-mask '%s'\n",
			      mask);
		return;
	}
	ds_put_format(out, "      do: set-pmd-cores %s\n", list);
}

static void
put_plan(const struct ovsdb_replica *r, struct ds *out)
{
	struct plan p = { 0 };
	const json_t *root = root_row(r);
	size_t n;

	if (!root) {
		ds_put_cstr(out, "no Open_vSwitch row (ovs-vsctl init not "
			    "run yet)\n");
		return;
	}
	plan_pmd_mask(&p, root, out);
	struct named *brs = referenced(r, root, "bridges", OVSDB_T_BRIDGE,
				       &n);
	/* br-int is the OpenFlow bridge, else the first by name; the next
	 * netdev bridge carries the underlay; any further one is refused */
	size_t of = n;
	for (size_t i = 0; i < n; i++) {
		const char *dpt = ovsdb_datum_string(brs[i].row,
						     "datapath_type");
		bool netdev = dpt && !strcmp(dpt, "netdev");
		if (netdev && (of == n || !strcmp(brs[i].name, "br-int")))
			of = i;
	}
	bool underlay = false;
	for (size_t i = 0; i < n; i++) {
		const char *dpt = ovsdb_datum_string(brs[i].row,
						     "datapath_type");
		enum bridge_role role;
		if (!dpt || strcmp(dpt, "netdev"))
			role = ROLE_NOT_NETDEV;
		else if (i == of)
			role = ROLE_OPENFLOW;
		else if (!underlay)
			role = ROLE_UNDERLAY;
		else
			role = ROLE_REFUSED;
		underlay |= role == ROLE_UNDERLAY;
		plan_bridge(&p, r, &brs[i], role, out);
	}
	free(brs);
	ds_put_format(out, "refusals: %u\n", p.refused);
}

/* ---- the verb ---- */

static int
cmd_ovsdb_show(int argc, const char *argv[], bool json, struct ds *out,
	       void *aux)
{
	struct ovsdb_client_view v;

	(void)argc, (void)argv, (void)aux;
	if (!ovsdb_client_enabled()) {
		ds_put_cstr(out, "not in OVSDB mode (vxswitch --ovsdb)");
		return -1;
	}
	if (json) {
		ds_put_cstr(out, "ovsdb/show: text output only, for now");
		return -1;
	}
	ovsdb_client_get_view(&v);
	ds_put_format(out, "remote: %s\n", v.remote);
	ds_put_format(out, "state: %s", v.state);
	if (v.backoff_ms)
		ds_put_format(out, " (next try in %lld ms)", v.backoff_ms);
	ds_put_cstr(out, "\ninactivity probe: ");
	if (v.probe_ms)
		ds_put_format(out, "%lld ms\n", v.probe_ms);
	else
		ds_put_cstr(out, "none\n");
	ds_put_format(out, "schema: %s\n", *v.schema_version
		      ? v.schema_version : "-");
	ds_put_format(out, "lock %s: %s\n", OVSDB_LOCK_NAME,
		      ovsdb_lock_state_name(v.lock));
	ds_put_format(out, "monitor: %s\n", v.monitored ? "current"
		      : "none");
	if (*v.last_drop)
		ds_put_format(out, "last drop: %s\n", v.last_drop);
	ds_put_cstr(out, "rows:");
	for (int t = 0; t < OVSDB_N_TABLES; t++)
		ds_put_format(out, " %s %zu", ovsdb_table_name(t),
			      ovsdb_replica_count(v.replica, t));
	ds_put_cstr(out, "\ncounters:\n");
#define PUT_COUNTER(name) \
	ds_put_format(out, "  %s: %llu\n", #name, v.counters->name);
	OVSDB_COUNTERS(PUT_COUNTER)
#undef PUT_COUNTER
	ds_put_cstr(out, "configured: nothing (step 2: OVSDB mode reads "
		    "and reports only)\n");
	if (!v.monitored) {
		ds_put_cstr(out, "would configure: nothing: no replica\n");
	} else if (v.lock != OVSDB_LOCK_HELD) {
		ds_put_format(out, "would configure: nothing: lock %s is "
			      "%s\n", OVSDB_LOCK_NAME,
			      ovsdb_lock_state_name(v.lock));
	} else {
		ds_put_cstr(out, "would configure:\n");
		put_plan(v.replica, out);
	}
	return 0;
}

void
ovsdb_show_register(void)
{
	control_register("ovsdb/show", "", 0, 0, cmd_ovsdb_show, NULL);
}
