/* SPDX-License-Identifier: BSD-3-Clause
 * The running state as a topology (state.h): built from the live tables,
 * written by save-config and, coalesced, to the state file after every
 * run-time change.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "cmd_util.h"
#include "config_save.h"
#include "control.h"
#include "dp_snapshot.h"
#include "json_out.h"
#include "neigh.h"
#include "ofproto.h"
#include "pmd.h"
#include "port.h"
#include "route.h"
#include "state.h"
#include "state_origin.h"
#include "version.h"
#include "vlog.h"

static struct {
	struct vxs_config loaded;	/* state_keep_loaded's copy */
	bool have_loaded;
	const struct vxs_config *running;
	char path[CFG_PATH_MAX];	/* "" = no state file */
	bool dirty;
	uint64_t last_write_ms;
	bool failing;			/* the last write failed (said once) */
	uint64_t writes, write_failures;
	char last_error[CFG_ERR_MAX];
	char notes[PATH_MAX + 128];	/* state_origin_notes(), or "" */
} st;

void
state_changed(void)
{
	st.dirty = true;
}

int
state_keep_loaded(const struct vxs_config *loaded)
{
	if (st.have_loaded)
		config_free(&st.loaded);
	st.have_loaded = config_copy(&st.loaded, loaded) == 0;
	return st.have_loaded ? 0 : -1;
}

const struct vxs_config *
state_loaded_config(void)
{
	return st.have_loaded ? &st.loaded : NULL;
}

void
state_set_origin(const char *topology, const char *sha256_hex)
{
	st.notes[0] = '\0';
	if (topology && sha256_hex && sha256_hex[0])
		state_origin_notes(topology, sha256_hex, st.notes,
				   sizeof st.notes);
}

void
state_default_path(const char *topology, char *buf, size_t len)
{
	snprintf(buf, len, "%s.state", topology);
}

/* ---- the running state as a config ---- */

/* One rule as add-flow takes it: dump-flows' text, plus its cookie,
 * timeouts, flags and importance. */
static char *
rule_text(const struct ofp_rule *r)
{
	char cookie[256] = "";
	int n = ofp_format_rule(r, ports_ofp_map(), NULL, 0);
	int c = 0;

	/* what dump-flows prints before the rule: a restart brings the rule
	 * back with its full timeouts, as a re-added one */
	if (r->cookie)
		c += snprintf(cookie + c, sizeof cookie - c, "cookie=0x%lx,",
			      (unsigned long)r->cookie);
	if (r->idle_timeout)
		c += snprintf(cookie + c, sizeof cookie - c,
			      "idle_timeout=%u,", r->idle_timeout);
	if (r->hard_timeout)
		c += snprintf(cookie + c, sizeof cookie - c, "hard_timeout=%u,",
			      r->hard_timeout);
	ofp_format_fmod_words(r, cookie + c, sizeof cookie - c);
	size_t len = strlen(cookie) + (size_t)n + 1;
	char *s = malloc(len);
	if (s == NULL)
		return NULL;
	memcpy(s, cookie, strlen(cookie));
	ofp_format_rule(r, ports_ofp_map(), s + strlen(cookie),
			len - strlen(cookie));
	return s;
}

static int
build_flows(struct vxs_config *c, char *err, size_t errlen)
{
	uint32_t n = ofproto_n_rules();

	if (n > UINT16_MAX) {
		snprintf(err, errlen, "%u OpenFlow rules: a topology file holds"
			 " at most %u", n, UINT16_MAX);
		return -1;
	}
	for (uint16_t i = 0; i < c->n_flows; i++)
		free(c->flows[i].text);
	free(c->flows);
	c->n_flows = 0;
	c->flows = calloc(n ? n : 1, sizeof *c->flows);
	if (c->flows == NULL)
		goto oom;
	/* in table order: rules of one priority keep their order */
	for (uint32_t i = 0; i < n; i++) {
		c->flows[i].text = rule_text(ofproto_rule(i));
		if (c->flows[i].text == NULL)
			goto oom;
		c->n_flows++;
	}
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
	return -1;
}

/* Each port as it runs now: its own cfg_port (a port added at run time
 * carries one), with its OpenFlow number. Free slots are skipped. */
static int
build_ports(struct vxs_config *c, char *err, size_t errlen)
{
	struct cfg_port *v = calloc(n_ports ? n_ports : 1, sizeof *v);
	uint16_t n = 0;

	if (v == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (uint16_t i = 0; i < n_ports; i++) {
		const struct port *p = port_at(i);
		if (p == NULL || p->cfg == NULL || p->removing)
			continue;
		v[n] = *p->cfg;
		v[n].ofport = p->ofport;
		/* A queue pinned to a core that runs no PMD now is polled as
		 * if unpinned (OVS's rule); the topology file refuses such a
		 * pin, so it is left out of the saved state. */
		uint16_t k = 0;
		for (uint16_t a = 0; a < v[n].n_affinity; a++)
			if (pmd_by_core(v[n].affinity[a].core))
				v[n].affinity[k++] = v[n].affinity[a];
		v[n].n_affinity = k;
		n++;
	}
	free(c->ports);
	c->ports = v;
	c->n_ports = n;
	return 0;
}

/* The operator's routes (the topology's and ovs/route/add's), not the
 * VTEP's connected one. */
static int
build_routes(struct vxs_config *c, char *err, size_t errlen)
{
	uint32_t n;
	struct route_entry *v = route_list(&n);

	if (v == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	c->n_routes = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (v[i].connected)
			continue;
		if (c->n_routes == RTE_DIM(c->routes)) {
			snprintf(err, errlen, "more than %zu static routes: a "
				 "topology file holds at most that many",
				 RTE_DIM(c->routes));
			free(v);
			return -1;
		}
		struct cfg_route *r = &c->routes[c->n_routes++];
		memset(r, 0, sizeof *r);
		r->plen = v[i].plen;
		r->ipv6 = !v[i].is_ipv4;
		if (r->ipv6) {
			memcpy(r->prefix6, v[i].prefix.a, sizeof r->prefix6);
			memcpy(r->gateway6, v[i].gateway.a,
			       sizeof r->gateway6);
		} else {
			r->prefix = neigh_addr_to4(&v[i].prefix);
			r->gateway = neigh_addr_to4(&v[i].gateway);
		}
		if (v[i].port_idx < n_ports && ports[v[i].port_idx])
			snprintf(r->port, sizeof r->port, "%s",
				 ports[v[i].port_idx]->name);
	}
	free(v);
	return 0;
}

/* IPv4 first, by address; then IPv6, by address. */
static int
arp_order(const void *a, const void *b)
{
	const struct cfg_arp *p = a, *q = b;
	uint32_t x = rte_be_to_cpu_32(p->ip), y = rte_be_to_cpu_32(q->ip);

	if (p->ipv6 != q->ipv6)
		return p->ipv6 ? 1 : -1;
	if (p->ipv6)
		return memcmp(p->ip6, q->ip6, sizeof p->ip6);
	return x < y ? -1 : x > y;
}

/* Static neighbours only: learned ones are learned again. */
static int
build_arp(struct vxs_config *c, char *err, size_t errlen)
{
	c->n_arp = 0;
	for (uint32_t i = 0; i < neigh_slots(); i++) {
		const struct neigh_entry *e = neigh_slot(i);
		if (e == NULL || !e->is_static)
			continue;
		if (c->n_arp == RTE_DIM(c->arp)) {
			snprintf(err, errlen, "more than %zu static neighbours:"
				 " a topology file holds at most that many",
				 RTE_DIM(c->arp));
			return -1;
		}
		struct cfg_arp *a = &c->arp[c->n_arp++];
		memset(a, 0, sizeof *a);
		a->ipv6 = !neigh_addr_is4(&e->addr);
		if (a->ipv6)
			memcpy(a->ip6, e->addr.a, sizeof a->ip6);
		else
			a->ip = neigh_addr_to4(&e->addr);
		a->mac = e->mac;
	}
	qsort(c->arp, c->n_arp, sizeof *c->arp, arp_order);
	return 0;
}

/* What the command line set for one run only goes back to the file's. */
static int
restore_loaded(struct vxs_config *c)
{
	const struct vxs_config *l = &st.loaded;

	if (!st.have_loaded)
		return 0;
	for (int i = 0; i < c->n_eal_extra; i++)
		free(c->eal_extra[i]);
	free(c->eal_extra);
	c->n_eal_extra = 0;
	c->eal_extra = calloc(l->n_eal_extra ? l->n_eal_extra : 1,
			      sizeof *c->eal_extra);
	if (c->eal_extra == NULL)
		return -1;
	for (; c->n_eal_extra < l->n_eal_extra; c->n_eal_extra++)
		if (!(c->eal_extra[c->n_eal_extra] =
		      strdup(l->eal_extra[c->n_eal_extra])))
			return -1;
	memcpy(c->ctl_socket, l->ctl_socket, sizeof c->ctl_socket);
	return 0;
}

/* Settings the commands change at run time. */
static void
build_settings(struct vxs_config *c)
{
	uint32_t aging = neigh_aging_s();

	if (n_pmds) {
		c->n_pmd_cores = n_pmds;
		for (uint16_t i = 0; i < n_pmds; i++)
			c->pmd_cores[i] = (uint16_t)pmds[i].lcore;
		c->dp_opts = pmds[0].dp.opts;
	}
	c->neigh_aging_s = aging == NEIGH_AGING_DEFAULT_S ? 0 : aging;
}

/* The numbers kept for names no port has now (port_live.c), so that the
 * flows naming them load again and the port gets its number back. */
static int
build_ofport_names(struct vxs_config *c, char *err, size_t errlen)
{
	uint32_t n = ports_names_known(), k = 0;
	struct cfg_ofport_name *v = calloc(n ? n : 1, sizeof *v);

	if (v == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (uint32_t i = 0; i < n; i++) {
		const char *name;
		uint32_t ofport;
		ports_name_at(i, &name, &ofport);
		if (port_by_name(name))
			continue;
		snprintf(v[k].name, sizeof v[k].name, "%s", name);
		v[k++].ofport = ofport;
	}
	free(c->ofport_names);
	c->ofport_names = v;
	c->n_ofport_names = k;
	return 0;
}

int
state_build(struct vxs_config *out, char *err, size_t errlen)
{
	if (st.running == NULL) {
		snprintf(err, errlen, "the switch is not running yet");
		return -1;
	}
	if (config_copy(out, st.running) || restore_loaded(out)) {
		config_free(out);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	ctl_events_process();	/* what the PMDs learned, in the tables */
	build_settings(out);
	if (build_ports(out, err, errlen) || build_routes(out, err, errlen) ||
	    build_arp(out, err, errlen) || build_flows(out, err, errlen) ||
	    build_ofport_names(out, err, errlen)) {
		config_free(out);
		return -1;
	}
	return 0;
}

int
state_save(const char *path, char *err, size_t errlen)
{
	struct vxs_config c;
	char gen[CFG_PATH_MAX + 64];

	if (state_build(&c, err, errlen))
		return -1;
	snprintf(gen, sizeof gen, "vxswitch %s from its running state",
		 VXSWITCH_VERSION);
	int rc = config_save_file(&c, path, gen, st.notes[0] ? st.notes : NULL,
				  err, errlen);
	config_free(&c);
	return rc;
}

/* ---- the state file ---- */

void
state_init(const struct vxs_config *running, const char *path)
{
	st.running = running;
	snprintf(st.path, sizeof st.path, "%s", path ? path : "");
	st.dirty = false;
	st.last_write_ms = 0;
}

static void
write_state_file(void)
{
	char err[CFG_ERR_MAX];

	st.last_write_ms = vxs_now_ms();
	if (state_save(st.path, err, sizeof err)) {
		st.write_failures++;
		snprintf(st.last_error, sizeof st.last_error, "%s", err);
		if (!st.failing)	/* once, not every interval */
			VLOG_WARN(control, "cannot write the state file "
				"(retrying): %s\n", err);
		st.failing = true;
		return;
	}
	if (st.failing)
		VLOG_INFO(control, "state file %s written again", st.path);
	st.failing = false;
	st.dirty = false;
	st.writes++;
}

void
state_tick(void)
{
	if (!st.dirty || !st.path[0] || st.running == NULL)
		return;
	if (vxs_now_ms() - st.last_write_ms < STATE_WRITE_INTERVAL_MS)
		return;
	write_state_file();
}

void
state_flush(void)
{
	if (st.dirty && st.path[0] && st.running != NULL)
		write_state_file();
}

void
state_fini(void)
{
	if (st.have_loaded)
		config_free(&st.loaded);
	st.have_loaded = false;
	st.running = NULL;
}

/* ---- commands ---- */

/* save-config FILE: the running state as a topology file, atomically. */
static int
cmd_save_config(int argc, const char *argv[], bool json, struct ds *out,
		void *aux)
{
	(void)argc, (void)json, (void)aux;
	char err[CFG_ERR_MAX];

	/* The daemon's own directory is nobody's business (vxswitch-ctl
	 * sends an absolute path for a relative one). */
	if (argv[1][0] != '/') {
		ds_put_format(out, "save-config: not an absolute path '%s'",
			      argv[1]);
		return -1;
	}
	if (state_save(argv[1], err, sizeof err)) {
		ds_put_cstr(out, err);
		return -1;
	}
	ds_put_format(out, "running state saved to %s\n", argv[1]);
	return 0;
}

/* state/show: where the state goes and how its writes went. */
static int
cmd_state_show(int argc, const char *argv[], bool json, struct ds *out,
	       void *aux)
{
	UNUSED_ARGS;
	if (json) {
		jw_begin_object(out);
		jw_key(out, "file"); jw_string(out, st.path);
		jw_key(out, "pending"); jw_bool(out, st.dirty);
		jw_key(out, "writes"); jw_u64(out, st.writes);
		jw_key(out, "write_failures");
		jw_u64(out, st.write_failures);
		jw_key(out, "last_error"); jw_string(out, st.last_error);
		jw_end_object(out);
		return 0;
	}
	ds_put_format(out, "state file: %s\n", st.path[0] ? st.path
			      : "(none: --no-state)");
	ds_put_format(out, "pending: %s\nwrites: %lu\nwrite failures: %lu\n",
		      st.dirty ? "yes" : "no", (unsigned long)st.writes,
		      (unsigned long)st.write_failures);
	if (st.last_error[0])
		ds_put_format(out, "last error: %s\n", st.last_error);
	return 0;
}

void
cmd_state_register(void)
{
	control_register("save-config", "FILE", 1, 1, cmd_save_config, NULL);
	control_register("state/show", "", 0, 0, cmd_state_show, NULL);
}
