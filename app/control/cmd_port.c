/* SPDX-License-Identifier: BSD-3-Clause
 * vxswitch-ctl commands that change the host at run time, named as OVS
 * users type them: add-port, del-port, list-ports, set Interface (from
 * ovs-vsctl), set-pmd-cores (other_config:pmd-cpu-mask) and
 * dpif-netdev/pmd-rxq-rebalance. Adding or removing a port never stops
 * the others' traffic: its queues are handed to the PMDs, and taken back,
 * between two of their bursts (pmd_reconf.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rte_lcore.h>
#include "cmd_port.h"
#include "cmd_util.h"
#include "ct_ipf.h"
#include "control.h"
#include "core_list.h"
#include "json_out.h"
#include "offload_ctl.h"
#include "ofproto.h"
#include "ovsdb_apply.h"
#include "pmd_reconf.h"
#include "pmd_watch.h"
#include "run_state.h"
#include "state.h"
#include "xlate.h"

/* A live port with the same socket path or device. */
static const struct port *
port_clash(const struct cfg_port *c, const struct port *except)
{
	struct port *p;

	PORTS_FOREACH(p) {
		if (p == except)
			continue;
		if (c->path[0] && !strcmp(p->cfg->path, c->path))
			return p;
		if (c->devargs[0] &&
		    strcspn(c->devargs, ",") == strcspn(p->cfg->devargs, ",") &&
		    !strncmp(c->devargs, p->cfg->devargs,
			     strcspn(c->devargs, ",")))
			return p;
	}
	return NULL;
}

/* A rule that outputs to ofport (the tunnel port to be) must fit the
 * datapath with that output a tunnel's (two actions, a template). */
static bool
is_new_tunnel(uint32_t ofport, void *aux)
{
	return ofport == *(const uint32_t *)aux;
}

/* The tunnel port: one at most, and an underlay to send from (the
 * topology's checks, config_tunnel_port_check). */
static int
tunnel_add_refused(struct cfg_port *c, const struct port *except,
		   struct ds *out)
{
	const struct port *t = port_vxlan();
	char err[CFG_ERR_MAX];

	if (t && t != except) {
		ds_put_format(out, "%s: more than one vxlan port: '%s' is the "
			      "tunnel port", c->name, t->name);
		return -1;
	}
	if (!port_underlay()) {
		ds_put_format(out, "%s: missing underlay 'port' for vxlan port "
			      "'%s'", c->name, c->name);
		return -1;
	}
	if (config_tunnel_port_check(run_state_config(), c, c->local_ip_flow ||
				     c->local_ipv6 || c->local_ip, err,
				     sizeof err)) {
		ds_put_format(out, "%s: %s", c->name, err);
		return -1;
	}
	return 0;
}

static int
tunnel_rules_refused(const struct cfg_port *c, struct ds *out)
{
	char err[CFG_ERR_MAX];

	for (uint32_t i = 0; i < ofproto_n_rules(); i++)
		if (xlate_check_rule(ofproto_rule(i), is_new_tunnel,
				     (void *)&c->ofport, err, sizeof err)) {
			char rule[256];
			ofp_format_rule(ofproto_rule(i), ports_ofp_map(), rule,
					sizeof rule);
			ds_put_format(out, "%s: the rule \"%s\" outputs to it "
				      "and, as a tunnel output, %s", c->name,
				      rule, err);
			return -1;
		}
	return 0;
}

/* What add-port refuses before it creates anything; except: the port
 * that set Interface is about to re-create (it clashes with itself). A
 * tunnel port's local_ip not given becomes the VTEP's. */
static int
port_add_refused(struct cfg_port *c, const struct port *except,
		 struct ds *out)
{
	const struct port *clash = port_clash(c, except);
	const struct port *owner = c->ofport ? port_by_ofport(c->ofport) : NULL;

	if (c->type == CFG_PORT_VXLAN && tunnel_add_refused(c, except, out))
		return -1;
	if (clash) {
		ds_put_format(out, "%s: %s '%s' is already port '%s''s",
			      c->name, c->path[0] ? "socket" : "device",
			      c->path[0] ? c->path : c->devargs, clash->name);
		return -1;
	}
	if (owner && owner != except) {
		ds_put_format(out, "%s: ofport_request %u is port '%s''s",
			      c->name, c->ofport, owner->name);
		return -1;
	}
	return 0;
}

static int
port_add_checked(struct cfg_port *c, uint32_t keep_ofport, struct ds *out)
{
	char err[CFG_ERR_MAX];
	struct port *p;

	if (port_add_refused(c, NULL, out) || pmds_answering_or_refuse(out))
		return -1;
	if (!c->ofport)
		c->ofport = keep_ofport ? keep_ofport
					: ports_ofport_for_name(c->name, false);
	uint32_t fresh = 0;
	if (!c->ofport || port_by_ofport(c->ofport))
		c->ofport = fresh = ports_next_ofport();
	if (c->type == CFG_PORT_VXLAN && tunnel_rules_refused(c, out)) {
		ports_ofport_unused(fresh);
		return -1;
	}
	p = ports_add(c, n_pmds, err, sizeof err);
	if (!p) {
		ports_ofport_unused(fresh);
		size_t n = strlen(c->name);
		bool named = !strncmp(err, c->name, n) && err[n] == ':';
		ds_put_format(out, "%s%s%s", named ? "" : c->name,
			      named ? "" : ": ", err);
		return -1;
	}
	if (pmd_rxqs_add_port(p, err, sizeof err)) {
		ports_remove_end(p, pmd_qsbr);
		ports_ofport_unused(fresh);
		ds_put_format(out, "%s: %s", c->name, err);
		return -1;
	}
	ports_publish(p);
	ofproto_publish();	/* the rules naming it start to match */
	state_changed();
	return 0;
}

int
cmd_port_add(struct cfg_port *c, struct ds *out)
{
	if (port_by_name(c->name)) {
		ds_put_format(out, "cannot create a port named %s because a "
			      "port named %s already exists", c->name, c->name);
		return -1;
	}
	return port_add_checked(c, 0, out);
}

/* add-port NAME KEY=VALUE... */
static int
cmd_add_port(int argc, const char *argv[], bool json, struct ds *out,
	     void *aux)
{
	argc--, argv++;	/* argv[0]: the command */
	(void)aux;
	struct cfg_port c;
	char err[CFG_ERR_MAX];

	if (ovsdb_apply_refuses("add-port", out))
		return -1;
	if (port_by_name(argv[0])) {
		ds_put_format(out, "cannot create a port named %s because a "
			      "port named %s already exists", argv[0], argv[0]);
		return -1;
	}
	if (config_port_from_args(argc, argv, &c, err, sizeof err)) {
		ds_put_format(out, "add-port %s: %s", argv[0], err);
		return -1;
	}
	if (cmd_port_add(&c, out))
		return -1;
	if (json) {
		const struct port *p = port_by_name(argv[0]);
		jw_begin_object(out);
		jw_key(out, "name"); jw_string(out, p->name);
		jw_key(out, "ofport"); jw_u64(out, p->ofport);
		jw_end_object(out);
	}
	return 0;
}

static int
port_del(struct port *p, struct ds *out)
{
	if (p->is_underlay) {
		ds_put_format(out, "%s: the underlay port cannot be removed at "
			      "run time", p->name);
		return -1;
	}
	/* every PMD must let go of it before it is freed */
	if (pmds_answering_or_refuse(out))
		return -1;
	ports_remove_begin(p);
	ofproto_publish();		/* translated without it... */
	pmd_rxqs_forget_port(p);	/* ...by every PMD, which lets go */
	/* fragments it brought wait for datagrams that will not complete:
	 * the PMDs drop them (ipf_purged) */
	if (pmd_ipf)
		ct_ipf_purge_port(pmd_ipf, (uint16_t)p->ofport);
	ports_remove_end(p, pmd_qsbr);
	state_changed();
	return 0;
}

/* del-port NAME */
static int
cmd_del_port(int argc, const char *argv[], bool json, struct ds *out,
	     void *aux)
{
	argc--, argv++;	/* argv[0]: the command */
	UNUSED_ARGS;
	if (ovsdb_apply_refuses("del-port", out))
		return -1;
	return cmd_port_del(argv[0], out);
}

int
cmd_port_del(const char *name, struct ds *out)
{
	struct port *p = port_by_name(name);

	if (!p) {
		ds_put_format(out, "no port named %s", name);
		return -1;
	}
	return port_del(p, out);
}

static int
by_name(const void *a, const void *b)
{
	return strcmp((*(struct port *const *)a)->name,
		      (*(struct port *const *)b)->name);
}

/* list-ports: as ovs-vsctl, the names in order, one a line. */
static int
cmd_list_ports(int argc, const char *argv[], bool json, struct ds *out,
	       void *aux)
{
	argc--, argv++;	/* argv[0]: the command */
	UNUSED_ARGS;
	struct port *sorted[PORT_MAX], *p;
	uint32_t n = 0;

	PORTS_FOREACH(p)
		if (!p->removing)
			sorted[n++] = p;
	qsort(sorted, n, sizeof *sorted, by_name);
	if (json)
		jw_begin_array(out);
	for (uint32_t i = 0; i < n; i++) {
		p = sorted[i];
		if (!json) {
			ds_put_format(out, "%s\n", p->name);
			continue;
		}
		jw_begin_object(out);
		jw_key(out, "name"); jw_string(out, p->name);
		jw_key(out, "ofport"); jw_u64(out, p->ofport);
		jw_key(out, "type"); jw_string(out, port_kind_name(p));
		jw_key(out, "state"); jw_string(out, port_state_name(p));
		jw_key(out, "n_rxq"); jw_u64(out, p->n_rxq);
		/* dpdk-dumpcap -i <this>; "" when not capturable */
		jw_key(out, "capture"); jw_string(out, port_capture_name(p));
		jw_end_object(out);
	}
	if (json)
		jw_end_array(out);
	return 0;
}

static bool
same_but_affinity(const struct cfg_port *a, const struct cfg_port *b)
{
	struct cfg_port x = *a, y = *b;

	x.n_affinity = y.n_affinity = 0;
	memset(x.affinity, 0, sizeof x.affinity);
	memset(y.affinity, 0, sizeof y.affinity);
	x.line = y.line = x.col = y.col = 0;
	return !memcmp(&x, &y, sizeof x);
}

/* set Interface NAME KEY=VALUE...: the port as it is, with these keys
 * changed. A new rxq affinity moves queues; anything else re-creates the
 * port under its name and number (its guest reconnects). */
static int
cmd_set_interface(int argc, const char *argv[], bool json, struct ds *out,
		  void *aux)
{
	argc--, argv++;	/* argv[0]: the command */
	(void)json, (void)aux;
	char words[64][CFG_WORD_MAX];
	const char *args[64 + 64];
	char err[CFG_ERR_MAX];
	struct cfg_port c;
	struct port *p;
	int n;

	if (ovsdb_apply_refuses("set Interface", out))
		return -1;
	if (strcmp(argv[0], "Interface") && strcmp(argv[0], "interface")) {
		ds_put_format(out, "set: only the Interface table, not '%s'",
			      argv[0]);
		return -1;
	}
	p = port_by_name(argv[1]);
	if (!p) {
		ds_put_format(out, "no row \"%s\" in table Interface", argv[1]);
		return -1;
	}
	n = config_port_to_args(p->cfg, words, 64);
	args[0] = p->name;
	for (int i = 0; i < n; i++)
		args[1 + i] = words[i];
	/* a key given here replaces the port's own */
	int k = 1 + n;
	for (int i = 2; i < argc && k < (int)RTE_DIM(args); i++)
		args[k++] = argv[i];
	if (config_port_from_args_merge(k, args, 1 + n, &c, err, sizeof err)) {
		ds_put_format(out, "set Interface %s: %s", p->name, err);
		return -1;
	}
	if (same_but_affinity(&c, p->cfg)) {
		p->cfg_own.n_affinity = c.n_affinity;
		memcpy(p->cfg_own.affinity, c.affinity, sizeof c.affinity);
		if (pmd_rxqs_rebalance("pmd-rxq-affinity", err, sizeof err) < 0) {
			ds_put_format(out, "%s", err);
			return -1;
		}
		state_changed();
		return 0;
	}
	uint32_t ofport = p->ofport;
	struct cfg_port was = p->cfg_own;
	if (port_add_refused(&c, p, out) || port_del(p, out))
		return -1;
	if (port_add_checked(&c, ofport, out) == 0)
		return 0;
	/* what only the device refuses (e.g. more queues than it has): the
	 * port is made again as it was, so that bad input loses nothing */
	struct ds again;
	ds_init(&again);
	if (port_add_checked(&was, ofport, &again))
		ds_put_format(out, "; and %s could not be made again as it was: "
			      "%s", was.name, ds_cstr(&again));
	else
		ds_put_format(out, " (%s kept as it was)", was.name);
	ds_destroy(&again);
	return -1;
}

/* set-pmd-cores LIST: other_config:pmd-cpu-mask, as a core list. */
static int
cmd_set_pmd_cores(int argc, const char *argv[], bool json, struct ds *out,
		  void *aux)
{
	argc--, argv++;	/* argv[0]: the command */
	UNUSED_ARGS;
	bool seen[CFG_MAX_CORES] = { false };
	uint16_t cores[CFG_MAX_CORES], n = 0;
	unsigned twice;
	char err[CFG_ERR_MAX];

	if (ovsdb_apply_refuses("set-pmd-cores", out))
		return -1;
	if (core_list_parse(argv[0], CFG_MAX_CORES, cores, &n, seen, &twice)) {
		ds_put_format(out, "bad core list '%s'", argv[0]);
		return -1;
	}
	for (uint16_t i = 0; i < n; i++)
		if (!rte_lcore_is_enabled(cores[i]) ||
		    cores[i] == rte_get_main_lcore()) {
			ds_put_format(out, "core %u is not a worker lcore of the "
				      "EAL (eal.lcores; the main lcore is %u)",
				      cores[i], rte_get_main_lcore());
			return -1;
		}
	if (pmds_answering_or_refuse(out))
		return -1;
	if (run_set_pmd_cores(cores, n, err, sizeof err)) {
		ds_put_format(out, "%s", err);
		return -1;
	}
	state_changed();
	return 0;
}

static int
cmd_rxq_rebalance(int argc, const char *argv[], bool json, struct ds *out,
		  void *aux)
{
	argc--, argv++;	/* argv[0]: the command */
	UNUSED_ARGS;
	char err[CFG_ERR_MAX];
	int moved = pmd_rxqs_rebalance("operator", err, sizeof err);

	if (moved < 0) {
		ds_put_format(out, "%s", err);
		return -1;
	}
	ds_put_format(out, "pmd rxq rebalance: %d queue%s moved\n", moved,
		      moved == 1 ? "" : "s");
	return 0;
}

void
cmd_port_register(void)
{
	control_register("add-port", "NAME type=TYPE [KEY=VALUE]...", 1, 64,
			 cmd_add_port, NULL);
	control_register("del-port", "NAME", 1, 1, cmd_del_port, NULL);
	control_register("list-ports", "", 0, 0, cmd_list_ports, NULL);
	control_register("set", "Interface NAME KEY=VALUE...", 3, 64,
			 cmd_set_interface, NULL);
	control_register("set-pmd-cores", "LIST", 1, 1, cmd_set_pmd_cores,
			 NULL);
	control_register("dpif-netdev/pmd-rxq-rebalance", "", 0, 0,
			 cmd_rxq_rebalance, NULL);
}
