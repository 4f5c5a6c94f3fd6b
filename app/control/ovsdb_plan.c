/* SPDX-License-Identifier: BSD-3-Clause
 * The plan (ovsdb_plan.h): the bridges, ports, interfaces and
 * controllers of the replica, walked in name order, each interface
 * checked as add-port would check it (config_port_from_args), each
 * verdict said once, as text and, when asked, as JSON.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "ovsdb_plan.h"
#include "port.h"
#include "vlog.h"

#define EAFNOSUPPORT_TEXT "Address family not supported by protocol"

struct named {
	const char *name;
	const char *uuid;
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
		v[*n].uuid = uuid;
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

/* What the plan found so far, across bridges, and the row the next
 * verdict is about. */
struct plan {
	bool have_vxlan;
	unsigned refused;
	json_t *verdicts;	/* NULL: text only */
	const char *table, *bridge, *port, *name;
	const char *uuid;	/* the row's, when it has one */
	/* what the next "do" carries for ovsdb_apply.c: the command's
	 * words (owned, taken by say()) or the row's role */
	json_t *argv;
	const char *role;
	/* Open_vSwitch other_config:vhost-sock-dir: where dpdkvhostuser
	 * sockets go, under the run directory (NULL: the run directory) */
	const char *vhost_dir;
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

/* One verdict ("do", "wait", "refused") on the current row: a text
 * line, and the same as an object when the caller keeps them. */
static void
say(struct plan *p, struct ds *out, const char *verdict, const char *fmt,
    ...) __attribute__((format(printf, 4, 5)));

static void
say(struct plan *p, struct ds *out, const char *verdict, const char *fmt,
    ...)
{
	struct ds text;
	va_list args;

	ds_init(&text);
	va_start(args, fmt);
	ds_put_vformat(&text, fmt, args);
	va_end(args);
	if (!strcmp(verdict, "refused"))
		p->refused++;
	ds_put_format(out, "      %s: %s\n", verdict, ds_cstr(&text));
	if (p->verdicts) {
		json_t *v = json_pack("{s:s, s:s, s:s, s:s}", "table",
				      p->table, "name", p->name, "verdict",
				      verdict, "text", ds_cstr(&text));
		if (v && p->bridge)
			json_object_set_new(v, "bridge",
					    json_string(p->bridge));
		if (v && p->port)
			json_object_set_new(v, "port", json_string(p->port));
		if (v && p->uuid)
			json_object_set_new(v, "uuid", json_string(p->uuid));
		if (v && p->argv)
			json_object_set(v, "argv", p->argv);
		if (v && p->role)
			json_object_set_new(v, "role", json_string(p->role));
		json_array_append_new(p->verdicts, v);
	}
	json_decref(p->argv);
	p->argv = NULL;
	p->role = NULL;
	ds_destroy(&text);
}

/* The words of the command a "do" verdict runs, from an array of n
 * strings after the command and the name. */
static json_t *
command(const char *cmd, const char *name, char (*words)[CFG_WORD_MAX],
	int n)
{
	json_t *a = json_pack("[s]", cmd);

	if (a && name)
		json_array_append_new(a, json_string(name));
	for (int i = 0; a && i < n; i++)
		json_array_append_new(a, json_string(words[i]));
	return a;
}

#define refuse(p, out, ...) say(p, out, "refused", __VA_ARGS__)

/* A vxlan interface: OVS's option checks, and one only. An option OVS
 * does not know is ignored with a warning, as netdev-vport.c:779 does. */
static bool
vxlan_option_known(const char *k)
{
	static const char *const known[] = { "remote_ip", "local_ip", "key",
					     "dst_port" };

	for (size_t j = 0; j < sizeof known / sizeof *known; j++)
		if (!strcmp(k, known[j]))
			return true;
	return false;
}

static void
plan_vxlan(struct plan *p, const json_t *iface, const char *name,
	   struct ds *out)
{
	const char *k, *v;

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
	char words[8][CFG_WORD_MAX];
	int n = 0;
	long long num;
	struct ds cmd, ignored;
	ds_init(&cmd);
	ds_init(&ignored);
	snprintf(words[n++], CFG_WORD_MAX, "type=vxlan");
	for (size_t i = 0; ovsdb_datum_map_at(iface, "options", i, &k, &v);
	     i++) {
		if (!vxlan_option_known(k))	/* netdev-vport.c:779's words */
			ds_put_format(&ignored, "; %s: unknown vxlan argument "
				      "'%s' (ignored, as OVS)", name, k);
		else if (n < 6)
			snprintf(words[n++], CFG_WORD_MAX, "%s=%s", k, v);
	}
	if (ovsdb_datum_int(iface, "ofport_request", &num))
		snprintf(words[n++], CFG_WORD_MAX, "ofport=%lld", num);
	for (int i = 0; i < n; i++)
		ds_put_format(&cmd, " %s", words[i]);
	p->argv = command("add-port", name, words, n);
	say(p, out, "do", "add-port %s%s%s", name, ds_cstr(&cmd),
	    ds_cstr(&ignored));
	ds_destroy(&cmd);
	ds_destroy(&ignored);
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
			say(p, out, "wait", "no options:vhost-server-path (OVS "
			    "waits for it too)");
			return;
		}
		WORD("path=%s", v);
	} else if (!strcmp(type, "dpdkvhostuser")) {
		const char *dir = getenv("OVS_RUNDIR");
		WORD("path=%s/%s%s%s", dir && *dir ? dir
		     : "/var/run/openvswitch", p->vhost_dir ? p->vhost_dir : "",
		     p->vhost_dir ? "/" : "", name);
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
	struct ds cmd;
	ds_init(&cmd);
	for (int i = 0; i < n; i++)
		ds_put_format(&cmd, " %s", words[i]);
	p->argv = command("add-port", name, words, n);
	say(p, out, "do", "add-port %s%s", name, ds_cstr(&cmd));
	ds_destroy(&cmd);
}

enum bridge_role { ROLE_OPENFLOW, ROLE_UNDERLAY, ROLE_REFUSED,
		   ROLE_NOT_NETDEV };

static void
plan_iface(struct plan *p, enum bridge_role role, const char *bridge,
	   const struct named *nif, bool *underlay_taken, struct ds *out)
{
	const json_t *iface = nif->row;
	const char *name = nif->name;
	const char *type = ovsdb_datum_string(iface, "type");

	type = type ? type : "";
	p->table = "Interface";
	p->name = name;
	p->uuid = nif->uuid;
	put_iface_line(out, iface, name);
	if (role == ROLE_NOT_NETDEV) {
		p->role = "not-netdev";
		refuse(p, out, "could not open network device %s (%s)", name,
		       EAFNOSUPPORT_TEXT);
	} else if (role == ROLE_REFUSED) {
		refuse(p, out, "vxswitch: one OpenFlow bridge and one "
		       "underlay bridge");
	} else if (!strcmp(type, "internal") && !strcmp(name, bridge)) {
		p->role = role == ROLE_OPENFLOW ? "local" : "underlay-local";
		say(p, out, "do", "the bridge's local port%s",
		    role == ROLE_OPENFLOW
		    ? " (OFPP_LOCAL, 65534; no datapath port)"
		    : " (no datapath port)");
	} else if (role == ROLE_UNDERLAY) {
		if (strcmp(type, "dpdk") || *underlay_taken) {
			refuse(p, out, "vxswitch: %s carries the underlay "
			       "only", bridge);
		} else {
			*underlay_taken = true;
			p->role = "underlay";
			say(p, out, "do", "the underlay port (the topology's "
			    "underlay: port:)");
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

/* Whether one of the bridge's ports has an interface of this name. */
static bool
bridge_has_iface(const struct ovsdb_replica *r, const json_t *br,
		 const char *name)
{
	const char *pu, *iu;

	for (size_t i = 0; (pu = ovsdb_datum_uuid_at(br, "ports", i)); i++) {
		const json_t *port = ovsdb_replica_get(r, OVSDB_T_PORT, pu);
		for (size_t j = 0; port &&
		     (iu = ovsdb_datum_uuid_at(port, "interfaces", j)); j++) {
			const json_t *iface = ovsdb_replica_get(
				r, OVSDB_T_INTERFACE, iu);
			const char *n = ovsdb_datum_string(iface, "name");
			if (n && !strcmp(n, name))
				return true;
		}
	}
	return false;
}

static void
plan_controllers(struct plan *p, const struct ovsdb_replica *r,
		 const json_t *br, struct ds *out)
{
	size_t n;
	struct named *ctls = referenced(r, br, "controller",
					OVSDB_T_CONTROLLER, &n);

	p->table = "Controller";
	p->port = NULL;
	for (size_t i = 0; i < n; i++) {
		const char *t = ctls[i].name;
		p->name = t;
		p->uuid = ctls[i].uuid;
		ds_put_format(out, "  controller %s\n", t);
		if (!strncmp(t, "ssl:", 4) || !strncmp(t, "pssl:", 5)) {
			/* Controller status:last_error */
			refuse(p, out, "vxswitch: no SSL");
		} else if (!strncmp(t, "tcp:", 4) || !strncmp(t, "unix:", 5) ||
			   !strncmp(t, "ptcp:", 5) ||
			   !strncmp(t, "punix:", 6)) {
			say(p, out, "do", "an OpenFlow connection (the "
			    "OpenFlow channel: a later step)");
		} else {
			refuse(p, out, "vxswitch: unknown controller target");
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

	p->bridge = br->name;
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
		p->port = ports[i].name;
		for (size_t j = 0; j < n_ifaces; j++) {
			if (n_ifaces > 1) {
				p->table = "Interface";
				p->name = ifaces[j].name;
				p->uuid = ifaces[j].uuid;
				put_iface_line(out, ifaces[j].row,
					       ifaces[j].name);
				refuse(p, out, "vxswitch: no bonds (port %s "
				       "has %zu interfaces)", ports[i].name,
				       n_ifaces);
				continue;
			}
			plan_iface(p, role, br->name, &ifaces[j],
				   &underlay_taken, out);
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
	p->table = "Open_vSwitch";
	p->name = "other_config:pmd-cpu-mask";
	p->uuid = NULL;
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
		refuse(p, out, "bad pmd-cpu-mask '%s'", mask);
		return;
	}
	p->argv = json_pack("[s, s]", "set-pmd-cores", list);
	say(p, out, "do", "set-pmd-cores %s", list);
}

unsigned
ovsdb_plan_put(const struct ovsdb_replica *r, struct ds *out,
	       json_t *verdicts)
{
	struct plan p = { .verdicts = verdicts };
	const json_t *root = root_row(r);
	size_t n;

	if (!root) {
		ds_put_cstr(out, "no Open_vSwitch row (ovs-vsctl init not "
			    "run yet)\n");
		return 0;
	}
	plan_pmd_mask(&p, root, out);
	/* as OVS (netdev-dpdk.c's vhost_sock_dir): relative to the run
	 * directory; one with ".." in it is not taken */
	p.vhost_dir = ovsdb_datum_map_get(root, "other_config",
					  "vhost-sock-dir");
	if (p.vhost_dir && (!*p.vhost_dir || strstr(p.vhost_dir, "..")))
		p.vhost_dir = NULL;
	struct named *brs = referenced(r, root, "bridges", OVSDB_T_BRIDGE,
				       &n);
	/* the bridge holding the underlay port (by the topology's name) is
	 * the underlay bridge, whatever its name (br-phy, br-ex); br-int is
	 * the OpenFlow bridge, else the first other by name; with no
	 * underlay port named, the next netdev bridge is the underlay's;
	 * any further one is refused */
	const struct port *up = port_underlay();
	size_t of = n, ul = n;
	for (size_t i = 0; i < n; i++) {
		const char *dpt = ovsdb_datum_string(brs[i].row,
						     "datapath_type");
		if (dpt && !strcmp(dpt, "netdev") && ul == n && up &&
		    bridge_has_iface(r, brs[i].row, up->name))
			ul = i;
	}
	for (size_t i = 0; i < n; i++) {
		const char *dpt = ovsdb_datum_string(brs[i].row,
						     "datapath_type");
		bool netdev = dpt && !strcmp(dpt, "netdev");
		if (netdev && i != ul &&
		    (of == n || !strcmp(brs[i].name, "br-int")))
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
		else if (i == ul || (ul == n && !underlay))
			role = ROLE_UNDERLAY;
		else
			role = ROLE_REFUSED;
		underlay |= role == ROLE_UNDERLAY;
		plan_bridge(&p, r, &brs[i], role, out);
	}
	free(brs);
	ds_put_format(out, "refusals: %u\n", p.refused);
	return p.refused;
}

/* ---- refusals, logged ---- */

/* The refusals logged and still standing, "TABLE BRIDGE NAME" -> text
 * (a controller target may repeat on two bridges; an interface name
 * may not, but the key is the same shape). */
static json_t *logged;
static unsigned long long n_logged;

void
ovsdb_plan_log_refusals(const struct ovsdb_replica *r)
{
	json_t *verdicts = json_array(), *standing = json_object(), *v;
	struct ds scratch;
	size_t i;

	ds_init(&scratch);
	if (!verdicts || !standing)
		goto out;
	ovsdb_plan_put(r, &scratch, verdicts);
	json_array_foreach(verdicts, i, v) {
		const char *verdict = json_string_value(
			json_object_get(v, "verdict"));
		const char *table = json_string_value(
			json_object_get(v, "table"));
		const char *bridge = json_string_value(
			json_object_get(v, "bridge"));
		const char *name = json_string_value(
			json_object_get(v, "name"));
		const json_t *text = json_object_get(v, "text");
		char key[512];

		if (strcmp(verdict, "refused"))
			continue;
		snprintf(key, sizeof key, "%s %s %s", table,
			 bridge ? bridge : "-", name);
		json_object_set(standing, key, (json_t *)text);
		if (json_equal(json_object_get(logged, key), (json_t *)text))
			continue;
		n_logged++;
		VLOG_WARN(control, "ovsdb: %s %s: refused: %s", table, name,
			  json_string_value(text));
	}
	json_decref(logged);
	logged = standing;
	standing = NULL;
out:
	json_decref(standing);
	json_decref(verdicts);
	ds_destroy(&scratch);
}

unsigned long long
ovsdb_plan_refusals_logged(void)
{
	return n_logged;
}

void
ovsdb_plan_forget(void)
{
	json_decref(logged);
	logged = NULL;
}
