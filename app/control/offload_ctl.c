/* SPDX-License-Identifier: BSD-3-Clause
 * Partial offload, control side: at start-up, the engine for the NIC port
 * whose topology asks for one (rte_flow on an E810, or the software Flow
 * Director model attached to the port's rx queues), the offload thread,
 * and each PMD's mark table; `offload/show`; tear-down. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include "control.h"
#include "pmd.h"
#include "fdir_model.h"
#include "json_out.h"
#include "offload_ctl.h"
#include "offload_engine.h"
#include "offload_mgr.h"
#include "vlog.h"

static struct {
	struct offload_mgr *mgr;
	struct fdir_model *model;
	struct fdir_model_pool *pool;	/* the card's shared filters */
	const char *engine;		/* NULL: no port asks for offload */
	const char *profile;		/* the model's; NULL for rte_flow */
	/* what start-up found on the port (kept for offload/show) */
	struct offload_probe probe;
	struct offload_tunnel_port tunnel;
	char rx_meta[96];
	char off[sizeof(((struct offload_probe *)0)->why) + 32];
	/* the ethdev whose VXLAN port is registered (once: a set-pmd-cores
	 * restarts the offload thread, not the port) */
	bool eth_tunnel_done;
	uint16_t eth_tunnel_port_id;
	struct offload_tunnel_port eth_tunnel;
} ol;

static int cmd_offload_show(int argc, const char *argv[], bool json,
			    struct ds *out, void *aux);

/* The model on the port's rx queues, with its own share of the card. */
static int
model_init(struct port *u, struct offload_mgr_params *mp)
{
	struct fdir_model_limits lim = {
		.profile = u->cfg->offload_model_profile,
		.guar = u->cfg->offload_guaranteed,
		.n_ports = 1,
	};

	ol.pool = fdir_model_pool_create(u->cfg->offload_pool);
	lim.pool = ol.pool;
	ol.model = ol.pool ? fdir_model_create(u->eth_port_id, &lim,
					       pmd_qsbr) : NULL;
	if (!ol.model || fdir_model_attach(ol.model, u->eth_port_id, u->n_rxq))
		return -1;
	mp->engine = OFFLOAD_ENGINE_MODEL;
	mp->model = ol.model;
	ol.engine = "model";
	ol.profile = fdir_model_profile_name(u->cfg->offload_model_profile);
	snprintf(ol.rx_meta, sizeof ol.rx_meta, "not needed (the model marks "
		 "in an rx callback)");
	return 0;
}

/* What rte_eth_rx_metadata_negotiate() said before configure
 * (port_ethdev.c): false if marks would not be delivered. */
static bool
rx_meta_ok(const struct port *u)
{
	if (!u->rx_meta_asked) {
		snprintf(ol.rx_meta, sizeof ol.rx_meta, "not asked");
		return true;
	}
	if (u->rx_meta_rc == -ENOTSUP) {
		snprintf(ol.rx_meta, sizeof ol.rx_meta, "not supported by the "
			 "driver (marks delivered as is)");
		return true;
	}
	if (u->rx_meta_rc) {
		snprintf(ol.rx_meta, sizeof ol.rx_meta, "USER_MARK refused: %s",
			 strerror(-u->rx_meta_rc));
		return false;
	}
	if (!(u->rx_meta_features & RTE_ETH_RX_METADATA_USER_MARK)) {
		snprintf(ol.rx_meta, sizeof ol.rx_meta, "USER_MARK refused: "
			 "the driver cleared the flag");
		return false;
	}
	snprintf(ol.rx_meta, sizeof ol.rx_meta, "USER_MARK agreed");
	return true;
}

/* The VXLAN port registered on the NIC (ice knows VXLAN by it: a VXLAN
 * rule cannot match the outer UDP port), or the refusal. The ethdev's is
 * asked once; the model is new after each offload_fini(). */
static void
tunnel_init(const struct port *u, struct offload_mgr_params *mp,
	    uint16_t vxlan_port)
{
	if (mp->engine == OFFLOAD_ENGINE_ETHDEV && ol.eth_tunnel_done &&
	    ol.eth_tunnel_port_id == u->eth_port_id &&
	    ol.eth_tunnel.udp_port == vxlan_port) {
		ol.tunnel = ol.eth_tunnel;
	} else {
		offload_engine_tunnel_port_add(mp, vxlan_port, &ol.tunnel);
		if (mp->engine == OFFLOAD_ENGINE_ETHDEV &&
		    ol.tunnel.registered) {
			ol.eth_tunnel_done = true;
			ol.eth_tunnel_port_id = u->eth_port_id;
			ol.eth_tunnel = ol.tunnel;
		}
		if (ol.tunnel.registered)
			VLOG_INFO(offload, "offload: %s: tunnel port %u: "
				  "registered", u->name, vxlan_port);
		else
			VLOG_WARN(offload, "offload: %s: tunnel port %u: "
				  "refused: %s (VXLAN flows stay in software)",
				  u->name, vxlan_port,
				  strerror(ol.tunnel.err));
	}
	mp->target.tunnel_port = ol.tunnel.registered ? vxlan_port : 0;
}

int
offload_init(char *err, size_t errlen)
{
	struct port *u = port_underlay();
	const struct port *vx = port_vxlan();
	struct offload_mgr_params mp = { .name = "offload", .n_pmds = n_pmds };
	uint16_t vxlan_port = vx && vx->cfg->dst_port ? vx->cfg->dst_port :
			      ICE_FDIR_VXLAN_PORT;

	static bool registered;	/* again after set-pmd-cores */

	if (!registered)
		control_register("offload/show", "", 0, 0, cmd_offload_show,
				 NULL);
	registered = true;
	ol.engine = NULL;
	ol.profile = NULL;
	ol.off[0] = '\0';
	memset(&ol.probe, 0, sizeof ol.probe);
	memset(&ol.tunnel, 0, sizeof ol.tunnel);
	if (!u || u->kind != PORT_ETHDEV || u->cfg->offload == CFG_OFFLOAD_OFF)
		return 0;
	mp.max_inserts_per_sec = u->cfg->offload_inserts_per_sec;
	mp.admission = u->cfg->offload_admission == CFG_ADMIT_FIFO ?
		       OFFLOAD_ADMIT_FIFO : OFFLOAD_ADMIT_WEIGHT;
	if (u->cfg->offload == CFG_OFFLOAD_MODEL) {
		if (model_init(u, &mp)) {
			snprintf(err, errlen, "%s: cannot set up the Flow "
				 "Director model", u->name);
			return -1;
		}
	} else {
		mp.engine = OFFLOAD_ENGINE_ETHDEV;
		mp.eth_port_id = u->eth_port_id;
		ol.engine = "rte_flow";
		if (!rx_meta_ok(u))
			snprintf(ol.off, sizeof ol.off, "rx metadata: %s",
				 ol.rx_meta);
	}
	tunnel_init(u, &mp, vxlan_port);
	/* attr.group: what this port's ice accepts, whatever DPDK we were
	 * built against (ice_fdir_rule.h, struct ice_fdir_target) */
	offload_engine_probe(&mp, vxlan_port, &ol.probe);
	mp.target.group = ol.probe.group;
	if (!ol.probe.ok && !ol.off[0])
		snprintf(ol.off, sizeof ol.off, "no FDIR group: %s",
			 ol.probe.why);
	if (ol.off[0]) {
		VLOG_WARN(offload, "offload: %s: offload off (%s); flows stay "
			  "in software", u->name, ol.off);
		return 0;
	}
	VLOG_INFO(offload, "offload: %s: %s", u->name, ol.probe.why);
	ol.mgr = offload_mgr_create(&mp);
	if (!ol.mgr) {
		snprintf(err, errlen, "%s: cannot start the offload thread",
			 u->name);
		return -1;
	}
	for (uint16_t i = 0; i < n_pmds; i++)
		if (dp_offload_attach(&pmds[i].dp, ol.mgr)) {
			snprintf(err, errlen, "out of memory (mark tables)");
			return -1;
		}
	return 0;
}

/* With the PMDs stopped: every NIC rule goes, then the model. */
void
offload_fini(void)
{
	for (uint16_t i = 0; pmds && i < n_pmds; i++)
		dp_offload_detach(&pmds[i].dp);
	if (ol.mgr)
		offload_mgr_destroy(ol.mgr);
	if (ol.model) {
		fdir_model_detach(ol.model);
		fdir_model_free(ol.model);
	}
	if (ol.pool)	/* not the model's: it may serve several ports */
		fdir_model_pool_free(ol.pool);
	ol.mgr = NULL;
	ol.model = NULL;
	ol.pool = NULL;
}

/* Start-up findings: JSON members. */
static void
show_port_json(struct ds *out)
{
	jw_key(out, "model_profile");
	if (ol.profile)
		jw_string(out, ol.profile);
	else
		jw_null(out);
	jw_key(out, "active"); jw_bool(out, ol.mgr != NULL);
	jw_key(out, "off_reason"); jw_string(out, ol.off);
	jw_key(out, "group");
	if (ol.engine && ol.probe.ok)
		jw_u64(out, ol.probe.group);
	else
		jw_null(out);
	jw_key(out, "probe"); jw_string(out, ol.engine ? ol.probe.why : "");
	jw_key(out, "tunnel_port");
	jw_begin_object(out);
	jw_key(out, "port"); jw_u64(out, ol.tunnel.udp_port);
	jw_key(out, "registered"); jw_bool(out, ol.tunnel.registered);
	jw_key(out, "error");
	jw_string(out, ol.tunnel.err ? strerror(ol.tunnel.err) : "");
	jw_end_object(out);
	jw_key(out, "rx_metadata");
	jw_string(out, ol.engine ? ol.rx_meta : "");
}

/* The last failure per reason: errno and the engine's message. */
static void
show_last_failures(struct ds *out, bool json)
{
	char msg[OFFLOAD_ENGINE_MSG_MAX];
	int err;

	if (json) {
		jw_key(out, "last_failure");
		jw_begin_object(out);
	}
	for (int r = OFFLOAD_OK + 1; r < OFFLOAD_RESULT_N; r++) {
		if (!offload_mgr_last_failure(ol.mgr, r, &err, msg, sizeof msg))
			continue;
		if (json) {
			jw_key(out, offload_result_name(r));
			jw_begin_object(out);
			jw_key(out, "errno"); jw_u64(out, (unsigned)err);
			jw_key(out, "message"); jw_string(out, msg);
			jw_end_object(out);
		} else {
			ds_put_format(out, "  last %s: errno %d (%s): %s\n",
				      offload_result_name(r), err,
				      err ? strerror(err) : "-", msg);
		}
	}
	if (json)
		jw_end_object(out);
}

/* Start-up findings: text lines. */
static void
show_port_text(struct ds *out)
{
	if (ol.profile)
		ds_put_format(out, "  model profile: %s\n", ol.profile);
	if (ol.off[0])
		ds_put_format(out, "  offload off: %s\n", ol.off);
	if (ol.probe.ok)
		ds_put_format(out, "  %s\n", ol.probe.why);
	if (ol.tunnel.registered)
		ds_put_format(out, "  tunnel port %u: registered\n",
			      ol.tunnel.udp_port);
	else
		ds_put_format(out, "  tunnel port %u: refused: %s (errno %d)\n",
			      ol.tunnel.udp_port, strerror(ol.tunnel.err),
			      ol.tunnel.err);
	ds_put_format(out, "  rx metadata: %s\n", ol.rx_meta);
}

static int
cmd_offload_show(int argc, const char *argv[], bool json, struct ds *out,
		 void *aux)
{
	(void)argc, (void)argv, (void)aux;
	struct offload_mgr_stats st = { 0 };
	const char *engine = ol.engine ? ol.engine : "off";

	uint64_t dels_lost = 0;

	if (ol.mgr)
		offload_mgr_get_stats(ol.mgr, &st);
	for (uint16_t i = 0; pmds && i < n_pmds; i++)
		dels_lost += __atomic_load_n(&pmds[i].stats.offload_dels_lost,
					     __ATOMIC_RELAXED);
	if (json) {
		jw_begin_object(out);
		jw_key(out, "engine");
		jw_string(out, engine);
		show_port_json(out);
		jw_key(out, "installed"); jw_u64(out, st.installed);
		jw_key(out, "created"); jw_u64(out, st.created);
		jw_key(out, "destroyed"); jw_u64(out, st.destroyed);
		jw_key(out, "requests"); jw_u64(out, st.requests);
		jw_key(out, "rate_deferred"); jw_u64(out, st.rate_deferred);
		jw_key(out, "dels_lost"); jw_u64(out, dels_lost);
		jw_key(out, "dropped_requests");
		jw_u64(out, st.dropped_requests);
		jw_key(out, "failed");
		jw_begin_object(out);
		for (int r = OFFLOAD_OK + 1; r < OFFLOAD_RESULT_N; r++) {
			jw_key(out, offload_result_name(r));
			jw_u64(out, st.failed[r]);
		}
		jw_end_object(out);
		show_last_failures(out, true);
		jw_key(out, "marks_in_use"); jw_u64(out, st.marks_in_use);
		jw_key(out, "holders"); jw_u64(out, st.holders);
		jw_key(out, "shared"); jw_u64(out, st.shared);
		jw_key(out, "queue_depth"); jw_u64(out, st.queue_depth);
		jw_key(out, "admission");
		jw_string(out, offload_admission_name(st.admission));
		jw_key(out, "threshold_pps"); jw_u64(out, st.threshold_pps);
		jw_key(out, "evictions"); jw_u64(out, st.evictions);
		jw_key(out, "candidates"); jw_u64(out, st.candidates);
		jw_key(out, "insert_latency_us");
		jw_begin_object(out);
		jw_key(out, "p50"); jw_double(out, st.lat_p50_us);
		jw_key(out, "p99"); jw_double(out, st.lat_p99_us);
		jw_key(out, "max"); jw_double(out, st.lat_max_us);
		jw_end_object(out);
		jw_end_object(out);
		return 0;
	}
	ds_put_format(out, "offload engine: %s\n", engine);
	if (ol.engine)
		show_port_text(out);
	ds_put_format(out, "  rules installed: %lu (marks in use %u of %u), "
		      "created %lu, destroyed %lu\n", st.installed,
		      st.marks_in_use, st.max_marks, st.created, st.destroyed);
	ds_put_format(out, "  holders: %lu megaflows on %u rules, shared: %lu "
		      "ADDs answered with a rule of the same pattern\n",
		      st.holders, st.marks_in_use, st.shared);
	ds_put_format(out, "  requests: %lu, dropped (ring full): %lu, "
		      "queued: %u, rate-deferred: %lu\n", st.requests,
		      st.dropped_requests, st.queue_depth, st.rate_deferred);
	if (ol.mgr)
		ds_put_format(out, "  admission: %s, threshold %lu pps, "
			      "evictions %lu, candidates waiting %u\n",
			      offload_admission_name(st.admission),
			      st.threshold_pps, st.evictions, st.candidates);
	ds_put_cstr(out, "  failed:");
	for (int r = OFFLOAD_OK + 1; r < OFFLOAD_RESULT_N; r++)
		ds_put_format(out, " %s=%lu", offload_result_name(r),
			      st.failed[r]);
	if (dels_lost)
		ds_put_format(out, "\n  rule deletions lost (no memory to "
			      "queue them): %lu", dels_lost);
	ds_put_format(out, "\n  insert latency: p50 %.1f us, p99 %.1f us, "
		      "max %.1f us (%lu inserts)\n", st.lat_p50_us,
		      st.lat_p99_us, st.lat_max_us, st.lat_samples);
	show_last_failures(out, false);
	return 0;
}
