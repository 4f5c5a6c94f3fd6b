/* SPDX-License-Identifier: BSD-3-Clause
 * OpenFlow rule table and its publication to the PMDs: a snapshot holds
 * pointers to the rule objects (per table, shared with the previous
 * snapshot while the table is unchanged: dp_rule_table.h), so a publish
 * copies the pointers of the tables that changed, not the rules. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <rte_cycles.h>
#include "clock.h"
#include "ct_label_pred.h"
#include "dp_rule_table.h"
#include "flow_table.h"
#include "neigh.h"
#include "ofproto.h"
#include "port.h"
#include "route.h"
#include "xlate.h"
#include "vlog.h"

static struct {
	/* neighbours changed since the last publish (neigh.c reports them) */
	uint32_t *neigh_changed;	/* neigh_addr_digest()s */
	uint32_t n_neigh_changed, cap_neigh_changed;
	bool neigh_overflow;		/* too many: revalidate everything */
	uint64_t last_publish_ms;
	uint32_t publish_interval_ms;

	const struct vxs_config *cfg;
	struct rte_rcu_qsbr *qsbr;
	uint64_t gen;
	struct ofproto_publish_stats pstats;

	/* Replaced snapshots a PMD may still read, oldest first, each with
	 * its grace period's token: a publish waits at most
	 * PUBLISH_GRACE_WAIT_US for its old snapshot's grace period, so it
	 * never hangs on a PMD stuck in a driver call; what it could not free
	 * is freed by a later publish or tick (retired_reclaim). */
	struct retired_snapshot {
		struct dp_snapshot *s;
		uint64_t token;
	} *retired;
	uint32_t n_retired, cap_retired;

	/* ofproto_publish_hold(): rule publishes wait while held, and
	 * after, OFPROTO_HOLD_MAX_MS at most from the first that waited */
	unsigned hold;
	bool held_pending;
	uint64_t held_since_ms;
} of;

/* Healthy PMDs pass a quiescent state every iteration (microseconds; a
 * sleeping one is offline): a longer wait means a PMD is busy revalidating
 * or not answering. */
#define PUBLISH_GRACE_WAIT_US 20000

struct dp_snapshot *dp_snapshot_current;

/* ---- snapshot ---------------------------------------------------------- */

static int
u32_order(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

bool
dp_snapshot_neigh_changed(const struct dp_snapshot *s, uint32_t digest)
{
	return s->n_neigh_changed &&
	       bsearch(&digest, s->neigh_changed, s->n_neigh_changed,
		       sizeof digest, u32_order) != NULL;
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
	for (uint32_t i = 0; i < ofproto_n_rules(); i++) {
		const struct ofp_rule *r = ofproto_rule(i);
		if (r->mask.tun_id == UINT32_MAX)
			vni_add(vnis, &n, r->match.tun_id);
		for (int a = 0; a < r->n_actions; a++)
			if (r->actions[a].type == OFPACT_SET_TUNNEL)
				vni_add(vnis, &n, r->actions[a].u32);
	}
	return n;
}

/* Sorts and de-duplicates the neighbour changes; returns how many. */
static uint32_t
neigh_changes_take(void)
{
	uint32_t n = 0;

	if (!of.n_neigh_changed)	/* of.neigh_changed may be NULL */
		return 0;
	qsort(of.neigh_changed, of.n_neigh_changed, sizeof(uint32_t),
	      u32_order);
	for (uint32_t i = 0; i < of.n_neigh_changed; i++)
		if (!n || of.neigh_changed[n - 1] != of.neigh_changed[i])
			of.neigh_changed[n++] = of.neigh_changed[i];
	return n;
}

/* A snapshot no PMD can read any more, with what it alone holds: its
 * references on the rule tables, the rule objects dropped after it. */
static void
snapshot_free(struct dp_snapshot *s)
{
	if (!s)
		return;
	dp_snapshot_tables_release(s);
	for (uint32_t i = 0; i < s->n_dropped; i++)
		free(s->dropped[i]);
	free(s->dropped);
	free(s);
}

/* Whether what the translation reads besides the rules differs between
 * the snapshots: the VTEP, the ports, the VNIs, the ct_label predicates.
 * Any of it revalidates every megaflow, not only those of the tables. */
static bool
env_changed(const struct dp_snapshot *a, const struct dp_snapshot *b)
{
	size_t from = offsetof(struct dp_snapshot, has_underlay);
	size_t to = offsetof(struct dp_snapshot, n_vnis);

	return memcmp((const char *)a + from, (const char *)b + from,
		      to - from) || a->n_vnis != b->n_vnis ||
	       memcmp(a->vnis, b->vnis, a->n_vnis * sizeof *a->vnis) ||
	       a->gone_tnl_ofport != b->gone_tnl_ofport ||
	       a->label_preds_used != b->label_preds_used ||
	       a->label_preds_gen != b->label_preds_gen ||
	       memcmp(a->label_preds, b->label_preds, sizeof a->label_preds);
}

static struct dp_snapshot *
snapshot_build(bool reval_all)
{
	uint32_t vnis[CFG_MAX_VNIS];
	uint16_t n_vnis = collect_vnis(vnis);
	uint32_t n_changed = reval_all ? 0 : neigh_changes_take();
	size_t sz = sizeof(struct dp_snapshot) +
		    n_vnis * sizeof(uint32_t) +
		    n_changed * sizeof(uint32_t);
	struct dp_snapshot *s = aligned_alloc(64, RTE_ALIGN_CEIL(sz, 64));
	const struct dp_snapshot *prev = dp_snapshot_current;
	uint64_t dirty[4];

	if (!s)
		return NULL;
	memset(s, 0, sizeof *s);
	flow_table_dirty(dirty);
	if (dp_rule_tables_build(s, prev, dirty)) {
		free(s);
		return NULL;
	}
	flow_table_dirty_clear();

	uint8_t *p = (uint8_t *)(s + 1);
	s->vnis = (uint32_t *)p;
	s->n_vnis = n_vnis;
	memcpy(s->vnis, vnis, n_vnis * sizeof *vnis);
	p += n_vnis * sizeof *vnis;
	s->reval_all = reval_all;
	s->neigh_changed = (uint32_t *)p;
	s->n_neigh_changed = n_changed;
	if (n_changed)
		memcpy(s->neigh_changed, of.neigh_changed,
		       n_changed * sizeof(uint32_t));

	const struct vxs_config *cfg = of.cfg;
	const struct port *u = port_underlay();
	if (u) {
		s->has_underlay = true;
		s->underlay_idx = u->idx;
		s->underlay_ofport = u->ofport;
		s->vtep_ip = cfg->vtep_ip;
		s->vtep_plen = cfg->vtep_plen;
		s->vtep_mac = cfg->vtep_mac_set ? cfg->vtep_mac : u->mac;
		s->has_vtep_ip6 = cfg->vtep_ip6_set;
		memcpy(s->vtep_ip6.a, cfg->vtep_ip6, sizeof s->vtep_ip6.a);
		s->vtep_plen6 = cfg->vtep_plen6;
		s->underlay_tx_udp_csum = u->tx_udp_csum;
		/* RFC 4291 2.7.1, RFC 2464 7: 33:33 + ff02::1:ffXX:XXXX */
		s->vtep_ip6_snmac = (struct rte_ether_addr){ {
			0x33, 0x33, 0xff, cfg->vtep_ip6[13],
			cfg->vtep_ip6[14], cfg->vtep_ip6[15] } };
	}
	const struct port *t = port_vxlan();
	static uint32_t last_tnl_ofport;
	if (!t && !port_by_ofport(last_tnl_ofport))
		s->gone_tnl_ofport = last_tnl_ofport;
	if (t) {
		last_tnl_ofport = t->ofport;
		s->has_tunnel = true;
		s->tnl_idx = t->idx;
		s->tnl_ofport = t->ofport;
		s->tnl_dst_port = t->cfg->dst_port ? t->cfg->dst_port : 4789;
		s->tnl_remote_flow = t->cfg->remote_ip_flow;
		s->tnl_local_flow = t->cfg->local_ip_flow;
		s->tnl_key_flow = t->cfg->key_flow;
		s->tnl_remote_ip = t->cfg->remote_ip;
		s->tnl_local_ip = t->cfg->local_ip;
		s->tnl_remote_v6 = t->cfg->remote_ipv6;
		memcpy(s->tnl_remote_ip6.a, t->cfg->remote_ip6, 16);
		memcpy(s->tnl_local_ip6.a, t->cfg->local_ipv6 ?
		       t->cfg->local_ip6 : cfg->vtep_ip6, 16);
		s->tnl_udp6_zero_csum_ok = !t->cfg->udp6_zero_csum_refused;
		s->tnl_key = t->cfg->key;
	}
	s->gen = ++of.gen;
	ct_label_preds_publish(s);
	if (!prev || env_changed(s, prev))
		s->reval_all = true;
	if (s->reval_all)	/* every megaflow is revalidated anyway */
		s->n_neigh_changed = 0;
	return s;
}

/* Frees the retired snapshots whose grace period has ended (all, with
 * force: the PMDs are gone). */
static void
retired_reclaim(bool force)
{
	uint32_t k = 0;

	while (k < of.n_retired && (force || !of.qsbr ||
	       rte_rcu_qsbr_check(of.qsbr, of.retired[k].token, false) == 1))
		snapshot_free(of.retired[k++].s);
	if (!k)
		return;
	memmove(of.retired, of.retired + k,
		(of.n_retired - k) * sizeof *of.retired);
	of.n_retired -= k;
}

/* After old stopped being current: freed once no PMD can be reading it. */
static void
retire_snapshot(struct dp_snapshot *old)
{
	uint64_t token = rte_rcu_qsbr_start(of.qsbr);
	uint64_t until = rte_rdtsc() + rte_get_tsc_hz() / 1000000 *
				       PUBLISH_GRACE_WAIT_US;

	retired_reclaim(false);
	while (rte_rcu_qsbr_check(of.qsbr, token, false) != 1) {
		if (rte_rdtsc() > until) {
			if (of.n_retired == of.cap_retired) {
				uint32_t cap = of.cap_retired ? 2 * of.cap_retired
							      : 16;
				void *r = realloc(of.retired,
						  cap * sizeof *of.retired);
				if (!r) {	/* rather a hang than a crash */
					rte_rcu_qsbr_synchronize(
						of.qsbr, RTE_QSBR_THRID_INVALID);
					break;
				}
				of.retired = r;
				of.cap_retired = cap;
			}
			of.retired[of.n_retired++] =
				(struct retired_snapshot){ old, token };
			of.pstats.deferred_frees++;
			return;
		}
		rte_pause();
	}
	snapshot_free(old);
}

static uint64_t
publish(bool reval_all)
{
	struct dp_snapshot *s, *old;
	struct ofp_rule **dropped;
	uint32_t n_dropped;

	uint64_t t0 = rte_rdtsc(), us = rte_get_tsc_hz() / 1000000;

	reval_all |= of.neigh_overflow;
	of.held_pending = false;	/* this one carries them */
	s = snapshot_build(reval_all);
	of.pstats.last_build_us = (rte_rdtsc() - t0) / (us ? us : 1);
	if (!s) {
		VLOG_ERR(ofproto, "out of memory publishing tables");
		return of.gen;
	}
	of.n_neigh_changed = 0;
	of.neigh_overflow = false;
	of.last_publish_ms = vxs_now_ms();
	of.pstats.publishes++;
	of.pstats.neigh_only += !s->reval_all && !s->tables_changed;
	of.pstats.by_table += !s->reval_all && s->tables_changed;
	n_dropped = flow_table_take_dropped(&dropped);
	old = __atomic_exchange_n(&dp_snapshot_current, s, __ATOMIC_ACQ_REL);
	/* The rules this publish dropped go with the snapshot that held
	 * them last. Once every PMD has passed a quiescent state, none can
	 * still be translating with the old snapshot. */
	if (old) {
		old->dropped = dropped;
		old->n_dropped = n_dropped;
	} else {
		for (uint32_t i = 0; i < n_dropped; i++)
			free(dropped[i]);
		free(dropped);
	}
	if (old && of.qsbr)
		retire_snapshot(old);
	else
		snapshot_free(old);
	of.pstats.last_publish_us = (rte_rdtsc() - t0) / (us ? us : 1);
	return s->gen;
}

uint64_t
ofproto_publish(void)
{
	return publish(true);
}

uint64_t
ofproto_publish_rules(void)
{
	if (of.hold) {
		if (!of.held_pending)
			of.held_since_ms = vxs_now_ms();
		of.held_pending = true;
		return of.gen;
	}
	return publish(false);
}

/* What waited is published once it has waited long enough. */
static void
held_publish_due(uint64_t now)
{
	if (of.held_pending && !of.hold &&
	    now - of.held_since_ms >= OFPROTO_HOLD_MAX_MS)
		publish(false);
}

void
ofproto_publish_hold(void)
{
	of.hold++;
}

void
ofproto_publish_flush(void)
{
	if (of.held_pending)
		publish(false);
}

void
ofproto_publish_release(void)
{
	if (of.hold && !--of.hold)
		held_publish_due(vxs_now_ms());
}

uint64_t
ofproto_publish_neigh(void)
{
	return publish(false);
}

/* At most NEIGH_CHANGES_MAX addresses wait for a publish; past that the
 * publish revalidates every megaflow (still one publish per interval). */
#define NEIGH_CHANGES_MAX (1u << 20)

void
ofproto_neigh_changed(uint32_t digest)
{
	if (of.n_neigh_changed == of.cap_neigh_changed) {
		uint32_t cap = of.cap_neigh_changed ?
			       of.cap_neigh_changed * 2 : 1024;
		uint32_t *n = NULL;
		if (cap <= NEIGH_CHANGES_MAX)
			n = realloc(of.neigh_changed, cap * sizeof *n);
		if (!n) {
			of.neigh_overflow = true;
			of.n_neigh_changed = 0;
		} else {
			of.neigh_changed = n;
			of.cap_neigh_changed = cap;
		}
	}
	if (!of.neigh_overflow)
		of.neigh_changed[of.n_neigh_changed++] = digest;
	of.pstats.neigh_changes++;
}

void
ofproto_publish_pending(void)
{
	if (of.n_neigh_changed || of.neigh_overflow)
		ofproto_publish_neigh();
}

void
ofproto_tick(void)
{
	uint64_t now = vxs_now_ms();

	if (of.n_retired)
		retired_reclaim(false);
	held_publish_due(now);
	neigh_age(now);
	if ((of.n_neigh_changed || of.neigh_overflow) &&
	    now - of.last_publish_ms >= of.publish_interval_ms)
		ofproto_publish_neigh();
}

void
ofproto_set_publish_interval_ms(uint32_t ms)
{
	of.publish_interval_ms = ms;
}

uint32_t
ofproto_publish_interval_ms(void)
{
	return of.publish_interval_ms;
}

const struct ofproto_publish_stats *
ofproto_get_publish_stats(void)
{
	return &of.pstats;
}

const char *
ofproto_bridge(void)
{
	return of.cfg ? of.cfg->bridge : "br-int";
}

/* ---- init -------------------------------------------------------------- */

static int
init_tables(const struct vxs_config *cfg, char *err, size_t errlen)
{
	const struct port *u = port_underlay();

	if (neigh_init(cfg->max_neighbours, cfg->neigh_aging_s, of.qsbr) ||
	    route_init(cfg->max_routes, of.qsbr)) {
		snprintf(err, errlen, "out of memory for the neighbour and "
			 "route tables (datapath max-neighbours, max-routes)");
		return -1;
	}
	if (route_load_config(cfg, u ? u->idx : UINT16_MAX, err, errlen) ||
	    neigh_load_config(cfg, err, errlen))
		return -1;
	return 0;
}

int
ofproto_init(const struct vxs_config *cfg, struct rte_rcu_qsbr *qsbr,
	     char *err, size_t errlen)
{
	of.cfg = cfg;
	of.qsbr = qsbr;
	of.publish_interval_ms = cfg->publish_interval_ms ?
		cfg->publish_interval_ms : OFPROTO_PUBLISH_INTERVAL_DEFAULT_MS;
	if (init_tables(cfg, err, errlen))
		return -1;
	/* the topology's flows:, added as one batch, which publishes */
	return flow_table_load(cfg, err, errlen);
}

void
ofproto_fini(void)
{
	snapshot_free(dp_snapshot_current);
	dp_snapshot_current = NULL;
	retired_reclaim(true);
	free(of.retired);
	flow_table_fini();
	free(of.neigh_changed);
	neigh_fini();
	route_fini();
	ct_label_preds_reset();
	memset(&of, 0, sizeof of);
}
