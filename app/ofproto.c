/* SPDX-License-Identifier: BSD-3-Clause
 * OpenFlow rule table and its publication to the PMDs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <rte_cycles.h>
#include "ofproto.h"
#include "port.h"

struct rule_slot {
	struct ofp_rule rule;
	struct ofproto_rule_stats stats;
};

static struct {
	struct rule_slot *rules;
	uint32_t n_rules, cap_rules;
	uint32_t next_uid;

	struct neigh_entry *neigh;
	uint16_t n_neigh, cap_neigh;
	struct route_entry *routes;
	uint16_t n_routes, cap_routes;

	const struct vxs_config *cfg;
	struct rte_rcu_qsbr *qsbr;
	uint64_t gen;
} of;

struct dp_snapshot *dp_snapshot_current;

static uint64_t
now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- snapshot ---------------------------------------------------------- */

const struct neigh_entry *
dp_snapshot_neigh(const struct dp_snapshot *s, rte_be32_t ip)
{
	for (uint16_t i = 0; i < s->n_neigh; i++)
		if (s->neigh[i].ip == ip)
			return &s->neigh[i];
	return NULL;
}

const struct route_entry *
dp_snapshot_route(const struct dp_snapshot *s, rte_be32_t dst)
{
	/* routes are kept longest prefix first */
	for (uint16_t i = 0; i < s->n_routes; i++) {
		const struct route_entry *r = &s->routes[i];
		uint32_t m = r->plen ? ~0u << (32 - r->plen) : 0;
		if ((rte_be_to_cpu_32(dst) & m) == rte_be_to_cpu_32(r->prefix))
			return r;
	}
	return NULL;
}

bool
dp_snapshot_vni_known(const struct dp_snapshot *s, uint32_t vni)
{
	if (!s->n_vnis)
		return true;
	for (uint16_t i = 0; i < s->n_vnis; i++)
		if (s->vnis[i] == vni)
			return true;
	return false;
}

static void
vni_add(uint32_t *vnis, uint16_t *n, uint32_t vni)
{
	for (uint16_t i = 0; i < *n; i++)
		if (vnis[i] == vni)
			return;
	if (*n < CFG_MAX_VNIS)
		vnis[(*n)++] = vni;
}

/* The VNIs the tunnel port accepts: configured, or else every VNI the
 * rules mention (matched with an exact tun_id, or set on output). */
static uint16_t
collect_vnis(uint32_t *vnis)
{
	const struct port *t = port_vxlan();
	uint16_t n = 0;

	if (!t)
		return 0;
	if (t->cfg->n_vnis) {
		for (uint16_t i = 0; i < t->cfg->n_vnis; i++)
			vni_add(vnis, &n, t->cfg->vnis[i]);
		return n;
	}
	if (!t->cfg->key_flow)
		vni_add(vnis, &n, t->cfg->key);
	for (uint32_t i = 0; i < of.n_rules; i++) {
		const struct ofp_rule *r = &of.rules[i].rule;
		if (r->mask.tun_id == UINT32_MAX)
			vni_add(vnis, &n, r->match.tun_id);
		for (int a = 0; a < r->n_actions; a++)
			if (r->actions[a].type == OFPACT_SET_TUNNEL)
				vni_add(vnis, &n, r->actions[a].u32);
	}
	return n;
}

static struct dp_snapshot *
snapshot_build(void)
{
	uint32_t vnis[CFG_MAX_VNIS];
	uint16_t n_vnis = collect_vnis(vnis);
	size_t sz = sizeof(struct dp_snapshot) +
		    of.n_rules * sizeof(struct ofp_rule) +
		    n_vnis * sizeof(uint32_t) +
		    of.n_routes * sizeof(struct route_entry) +
		    of.n_neigh * sizeof(struct neigh_entry) + 64;
	struct dp_snapshot *s = aligned_alloc(64, RTE_ALIGN_CEIL(sz, 64));
	if (!s)
		return NULL;
	memset(s, 0, sizeof *s);

	uint8_t *p = (uint8_t *)(s + 1);
	s->rules = (struct ofp_rule *)RTE_PTR_ALIGN_CEIL(p, 64);
	s->n_rules = of.n_rules;
	for (uint32_t i = 0; i < of.n_rules; i++)
		s->rules[i] = of.rules[i].rule;
	p = (uint8_t *)(s->rules + s->n_rules);
	s->routes = (struct route_entry *)p;
	s->n_routes = of.n_routes;
	if (of.n_routes)	/* NULL with no underlay */
		memcpy(s->routes, of.routes, of.n_routes * sizeof *of.routes);
	p += of.n_routes * sizeof *of.routes;
	s->neigh = (struct neigh_entry *)p;
	s->n_neigh = of.n_neigh;
	if (of.n_neigh)		/* of.neigh is NULL until the first entry */
		memcpy(s->neigh, of.neigh, of.n_neigh * sizeof *of.neigh);
	p += of.n_neigh * sizeof *of.neigh;
	s->vnis = (uint32_t *)p;
	s->n_vnis = n_vnis;
	memcpy(s->vnis, vnis, n_vnis * sizeof *vnis);

	const struct vxs_config *cfg = of.cfg;
	const struct port *u = port_underlay();
	if (u) {
		s->has_underlay = true;
		s->underlay_idx = u->idx;
		s->underlay_ofport = u->ofport;
		s->vtep_ip = cfg->vtep_ip;
		s->vtep_plen = cfg->vtep_plen;
		s->vtep_mac = cfg->vtep_mac_set ? cfg->vtep_mac : u->mac;
	}
	const struct port *t = port_vxlan();
	if (t) {
		s->has_tunnel = true;
		s->tnl_idx = t->idx;
		s->tnl_ofport = t->ofport;
		s->tnl_dst_port = t->cfg->dst_port ? t->cfg->dst_port : 4789;
		s->tnl_remote_flow = t->cfg->remote_ip_flow;
		s->tnl_local_flow = t->cfg->local_ip_flow;
		s->tnl_key_flow = t->cfg->key_flow;
		s->tnl_remote_ip = t->cfg->remote_ip;
		s->tnl_local_ip = t->cfg->local_ip;
		s->tnl_key = t->cfg->key;
	}
	s->gen = ++of.gen;
	return s;
}

uint64_t
ofproto_publish(void)
{
	struct dp_snapshot *s = snapshot_build(), *old;

	if (!s) {
		fprintf(stderr, "vxswitch: out of memory publishing tables\n");
		return of.gen;
	}
	old = __atomic_exchange_n(&dp_snapshot_current, s, __ATOMIC_ACQ_REL);
	/* Once every PMD has passed a quiescent state, none can still be
	 * translating with the old snapshot. */
	if (old) {
		rte_rcu_qsbr_synchronize(of.qsbr, RTE_QSBR_THRID_INVALID);
		free(old);
	}
	return s->gen;
}

/* ---- rules ------------------------------------------------------------- */

static int
rule_order(const struct ofp_rule *a, const struct ofp_rule *b)
{
	if (a->priority != b->priority)
		return a->priority > b->priority ? -1 : 1;
	return a->uid < b->uid ? -1 : a->uid > b->uid;
}

static int
rule_slot_cmp(const void *a, const void *b)
{
	return rule_order(&((const struct rule_slot *)a)->rule,
			  &((const struct rule_slot *)b)->rule);
}

static int
rules_reserve(uint32_t n)
{
	if (n <= of.cap_rules)
		return 0;
	uint32_t cap = RTE_MAX(n, of.cap_rules * 2);
	struct rule_slot *r = realloc(of.rules, cap * sizeof *r);
	if (!r)
		return -1;
	of.rules = r;
	of.cap_rules = cap;
	return 0;
}

static void
rule_upsert(const struct ofp_rule *nr)
{
	for (uint32_t i = 0; i < of.n_rules; i++) {
		struct ofp_rule *r = &of.rules[i].rule;
		if (ofp_rule_same_match(r, nr)) {
			/* ovs-ofctl add-flow on an existing match: new
			 * actions, same identity and counters. */
			r->n_actions = nr->n_actions;
			memcpy(r->actions, nr->actions, sizeof r->actions);
			r->cookie = nr->cookie;
			return;
		}
	}
	struct rule_slot *slot = &of.rules[of.n_rules++];
	slot->rule = *nr;
	slot->rule.uid = ++of.next_uid;
	memset(&slot->stats, 0, sizeof slot->stats);
	slot->stats.created_ms = now_ms();
}

int
ofproto_add_flows(const char *const *flows, int n, int *bad, char *err,
		  size_t errlen)
{
	struct ofp_rule *parsed = calloc(n ? n : 1, sizeof *parsed);
	if (!parsed) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (int i = 0; i < n; i++) {
		if (ofp_parse_flow(flows[i], OFP_PARSE_ADD, ports_ofp_map(),
				   &parsed[i], err, errlen)) {
			*bad = i;
			free(parsed);
			return -1;
		}
	}
	if (rules_reserve(of.n_rules + n)) {
		snprintf(err, errlen, "out of memory");
		free(parsed);
		return -1;
	}
	for (int i = 0; i < n; i++)
		rule_upsert(&parsed[i]);
	qsort(of.rules, of.n_rules, sizeof *of.rules, rule_slot_cmp);
	free(parsed);
	ofproto_publish();
	return 0;
}

int
ofproto_del_flows(const char *filter, bool strict, char *err, size_t errlen)
{
	struct ofp_rule f;
	uint32_t kept = 0;
	int removed;

	memset(&f, 0, sizeof f);
	f.priority = OFP_DEFAULT_PRIORITY;
	if (filter && *filter &&
	    ofp_parse_flow(filter, OFP_PARSE_MATCH, ports_ofp_map(), &f, err,
			   errlen))
		return -1;
	for (uint32_t i = 0; i < of.n_rules; i++) {
		const struct ofp_rule *r = &of.rules[i].rule;
		bool del = strict ? ofp_rule_same_match(r, &f)
				  : ofp_rule_covered_by(r, &f);
		if (!del)
			of.rules[kept++] = of.rules[i];
	}
	removed = of.n_rules - kept;
	of.n_rules = kept;
	if (removed)
		ofproto_publish();
	return removed;
}

uint32_t
ofproto_n_rules(void)
{
	return of.n_rules;
}

const struct ofp_rule *
ofproto_rule(uint32_t i)
{
	return i < of.n_rules ? &of.rules[i].rule : NULL;
}

const struct ofproto_rule_stats *
ofproto_rule_stats(uint32_t i)
{
	return i < of.n_rules ? &of.rules[i].stats : NULL;
}

void
ofproto_account_retired(uint32_t uid, uint64_t packets, uint64_t bytes)
{
	for (uint32_t i = 0; i < of.n_rules; i++) {
		if (of.rules[i].rule.uid == uid) {
			of.rules[i].stats.packets += packets;
			of.rules[i].stats.bytes += bytes;
			return;
		}
	}
}

/* ---- neighbours -------------------------------------------------------- */

static struct neigh_entry *
neigh_find(rte_be32_t ip)
{
	for (uint16_t i = 0; i < of.n_neigh; i++)
		if (of.neigh[i].ip == ip)
			return &of.neigh[i];
	return NULL;
}

int
neigh_set(rte_be32_t ip, const struct rte_ether_addr *mac, bool is_static)
{
	struct neigh_entry *e = neigh_find(ip);

	if (!e) {
		if (of.n_neigh == of.cap_neigh) {
			uint16_t cap = of.cap_neigh ? of.cap_neigh * 2 : 16;
			struct neigh_entry *n = realloc(of.neigh,
							cap * sizeof *n);
			if (!n)
				return -1;
			of.neigh = n;
			of.cap_neigh = cap;
		}
		e = &of.neigh[of.n_neigh++];
		e->ip = ip;
	}
	e->mac = *mac;
	e->is_static = is_static;
	e->updated_ms = now_ms();
	ofproto_publish();
	return 0;
}

/* From ARP seen by the datapath: never overrides a static entry, and
 * publishes only when something changed. */
bool
neigh_learn(rte_be32_t ip, const struct rte_ether_addr *mac)
{
	struct neigh_entry *e = neigh_find(ip);

	if (e && (e->is_static || rte_is_same_ether_addr(&e->mac, mac))) {
		if (!e->is_static)
			e->updated_ms = now_ms();
		return false;
	}
	return neigh_set(ip, mac, false) == 0;
}

int
neigh_flush(void)
{
	uint16_t kept = 0;
	int n;

	for (uint16_t i = 0; i < of.n_neigh; i++)
		if (of.neigh[i].is_static)
			of.neigh[kept++] = of.neigh[i];
	n = of.n_neigh - kept;
	of.n_neigh = kept;
	if (n)
		ofproto_publish();
	return n;
}

uint16_t
neigh_count(void)
{
	return of.n_neigh;
}

const struct neigh_entry *
neigh_at(uint16_t i)
{
	return i < of.n_neigh ? &of.neigh[i] : NULL;
}

/* ---- routes ------------------------------------------------------------ */

static int
route_cmp(const void *a, const void *b)
{
	const struct route_entry *x = a, *y = b;
	return (int)y->plen - (int)x->plen;
}

static int
route_insert(rte_be32_t prefix, uint8_t plen, rte_be32_t gw,
	     uint16_t port_idx, bool connected)
{
	uint32_t m = plen ? ~0u << (32 - plen) : 0;
	prefix = rte_cpu_to_be_32(rte_be_to_cpu_32(prefix) & m);
	for (uint16_t i = 0; i < of.n_routes; i++) {
		struct route_entry *r = &of.routes[i];
		if (r->prefix == prefix && r->plen == plen) {
			r->gateway = gw;
			r->port_idx = port_idx;
			r->connected = connected;
			return 0;
		}
	}
	if (of.n_routes == of.cap_routes) {
		uint16_t cap = of.cap_routes ? of.cap_routes * 2 : 16;
		struct route_entry *n = realloc(of.routes, cap * sizeof *n);
		if (!n)
			return -1;
		of.routes = n;
		of.cap_routes = cap;
	}
	of.routes[of.n_routes++] = (struct route_entry){
		.prefix = prefix, .plen = plen, .gateway = gw,
		.port_idx = port_idx, .connected = connected };
	qsort(of.routes, of.n_routes, sizeof *of.routes, route_cmp);
	return 0;
}

int
route_add(rte_be32_t prefix, uint8_t plen, rte_be32_t gw, uint16_t port_idx,
	  char *err, size_t errlen)
{
	if (plen > 32) {
		snprintf(err, errlen, "bad prefix length %u", plen);
		return -1;
	}
	if (route_insert(prefix, plen, gw, port_idx, false)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	ofproto_publish();
	return 0;
}

int
route_del(rte_be32_t prefix, uint8_t plen)
{
	for (uint16_t i = 0; i < of.n_routes; i++) {
		if (of.routes[i].prefix == prefix && of.routes[i].plen == plen) {
			memmove(&of.routes[i], &of.routes[i + 1],
				(of.n_routes - i - 1) * sizeof *of.routes);
			of.n_routes--;
			ofproto_publish();
			return 0;
		}
	}
	return -1;
}

uint16_t
route_count(void)
{
	return of.n_routes;
}

const struct route_entry *
route_at(uint16_t i)
{
	return i < of.n_routes ? &of.routes[i] : NULL;
}

/* ---- init -------------------------------------------------------------- */

int
ofproto_init(const struct vxs_config *cfg, struct rte_rcu_qsbr *qsbr,
	     char *err, size_t errlen)
{
	const struct port *u = port_underlay();
	char perr[CFG_ERR_MAX];

	of.cfg = cfg;
	of.qsbr = qsbr;
	if (u && cfg->vtep_ip)
		route_insert(cfg->vtep_ip, cfg->vtep_plen, 0, u->idx, true);
	for (uint16_t i = 0; i < cfg->n_routes; i++) {
		const struct cfg_route *r = &cfg->routes[i];
		const struct port *p = r->port[0] ? port_by_name(r->port) : u;
		if (!p) {
			snprintf(err, errlen, "%s:%d: route: unknown port '%s'",
				 cfg->file, r->line, r->port);
			return -1;
		}
		route_insert(r->prefix, r->plen, r->gateway, p->idx, false);
	}
	for (uint16_t i = 0; i < cfg->n_arp; i++) {
		struct neigh_entry *e;
		if (neigh_set(cfg->arp[i].ip, &cfg->arp[i].mac, true))
			return -1;
		e = neigh_find(cfg->arp[i].ip);
		e->is_static = true;
	}
	if (rules_reserve(cfg->n_flows + 1))
		return -1;
	for (uint16_t i = 0; i < cfg->n_flows; i++) {
		struct ofp_rule r;
		if (ofp_parse_flow(cfg->flows[i].text, OFP_PARSE_ADD,
				   ports_ofp_map(), &r, perr, sizeof perr)) {
			snprintf(err, errlen, "%s:%d: %s", cfg->file,
				 cfg->flows[i].line, perr);
			return -1;
		}
		rule_upsert(&r);
	}
	qsort(of.rules, of.n_rules, sizeof *of.rules, rule_slot_cmp);
	ofproto_publish();
	return 0;
}

void
ofproto_fini(void)
{
	free(dp_snapshot_current);
	dp_snapshot_current = NULL;
	free(of.rules);
	free(of.neigh);
	free(of.routes);
	memset(&of, 0, sizeof of);
}
