/* SPDX-License-Identifier: BSD-3-Clause
 * Partial offload, control side: at start-up, the engine for the NIC port
 * whose topology asks for one (rte_flow on an E810, or the software Flow
 * Director model attached to the port's rx queues), the offload thread,
 * and each PMD's mark table; `offload/show`; tear-down. */
#include <stdio.h>
#include <stdlib.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_version.h>
#include "control.h"
#include "pmd.h"
#include "fdir_model.h"
#include "json_out.h"
#include "offload_ctl.h"
#include "offload_mgr.h"

static struct {
	struct offload_mgr *mgr;
	struct fdir_model *model;
	struct fdir_model_pool *pool;	/* the card's shared filters */
	const char *engine;
} ol;

static int cmd_offload_show(int argc, const char *argv[], bool json,
			    struct ds *out, void *aux);


int
offload_init(char *err, size_t errlen)
{
	struct port *u = port_underlay();
	struct offload_mgr_params mp = { .name = "offload", .n_pmds = n_pmds };

	static bool registered;	/* again after set-pmd-cores */

	if (!registered)
		control_register("offload/show", "", 0, 0, cmd_offload_show,
				 NULL);
	registered = true;
	if (!u || u->kind != PORT_ETHDEV || u->cfg->offload == CFG_OFFLOAD_OFF)
		return 0;
	/* TODO(issue 14): probe the group on the port (offload_probe.c) */
	mp.target.group = RTE_VERSION >= RTE_VERSION_NUM(23, 11, 0, 0) ?
			 ICE_FDIR_GROUP_FDIR : ICE_FDIR_GROUP_DEFAULT;
	mp.target.tunnel_port = ICE_FDIR_VXLAN_PORT;
	mp.max_inserts_per_sec = u->cfg->offload_inserts_per_sec;
	if (u->cfg->offload == CFG_OFFLOAD_MODEL) {
		struct fdir_model_limits lim = {
			.guar = u->cfg->offload_guaranteed,
			.pool = NULL,
			.n_ports = 1,
		};
		ol.pool = fdir_model_pool_create(u->cfg->offload_pool);
		lim.pool = ol.pool;
		ol.model = ol.pool ? fdir_model_create(u->eth_port_id, &lim,
						       pmd_qsbr) : NULL;
		if (!ol.model ||
		    fdir_model_udp_tunnel_port_add(ol.model, 4789) ||
		    fdir_model_attach(ol.model, u->eth_port_id, u->n_rxq)) {
			snprintf(err, errlen, "%s: cannot set up the Flow "
				 "Director model", u->name);
			return -1;
		}
		mp.engine = OFFLOAD_ENGINE_MODEL;
		mp.model = ol.model;
		ol.engine = "model";
	} else {
		/* The E810 knows VXLAN by its UDP port, which a VXLAN rule
		 * cannot match (drivers/offload/README.md). */
		struct rte_eth_udp_tunnel t = {
			.udp_port = 4789, .prot_type = RTE_ETH_TUNNEL_TYPE_VXLAN };
		rte_eth_dev_udp_tunnel_port_add(u->eth_port_id, &t);
		mp.engine = OFFLOAD_ENGINE_ETHDEV;
		mp.eth_port_id = u->eth_port_id;
		ol.engine = "rte_flow";
	}
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

static int
cmd_offload_show(int argc, const char *argv[], bool json, struct ds *out,
		 void *aux)
{
	(void)argc, (void)argv, (void)aux;
	struct offload_mgr_stats st = { 0 };

	uint64_t dels_lost = 0;

	if (ol.mgr)
		offload_mgr_get_stats(ol.mgr, &st);
	for (uint16_t i = 0; pmds && i < n_pmds; i++)
		dels_lost += __atomic_load_n(&pmds[i].stats.offload_dels_lost,
					     __ATOMIC_RELAXED);
	if (json) {
		json_begin_object(out);
		json_key(out, "engine");
		json_string(out, ol.mgr ? ol.engine : "off");
		json_key(out, "installed"); json_u64(out, st.installed);
		json_key(out, "created"); json_u64(out, st.created);
		json_key(out, "destroyed"); json_u64(out, st.destroyed);
		json_key(out, "requests"); json_u64(out, st.requests);
		json_key(out, "rate_deferred"); json_u64(out, st.rate_deferred);
		json_key(out, "dels_lost"); json_u64(out, dels_lost);
		json_key(out, "dropped_requests");
		json_u64(out, st.dropped_requests);
		json_key(out, "failed");
		json_begin_object(out);
		for (int r = OFFLOAD_OK + 1; r < OFFLOAD_RESULT_N; r++) {
			json_key(out, offload_result_name(r));
			json_u64(out, st.failed[r]);
		}
		json_end_object(out);
		json_key(out, "marks_in_use"); json_u64(out, st.marks_in_use);
		json_key(out, "holders"); json_u64(out, st.holders);
		json_key(out, "shared"); json_u64(out, st.shared);
		json_key(out, "queue_depth"); json_u64(out, st.queue_depth);
		json_key(out, "insert_latency_us");
		json_begin_object(out);
		json_key(out, "p50"); json_double(out, st.lat_p50_us);
		json_key(out, "p99"); json_double(out, st.lat_p99_us);
		json_key(out, "max"); json_double(out, st.lat_max_us);
		json_end_object(out);
		json_end_object(out);
		return 0;
	}
	ds_put_format(out, "offload engine: %s\n", ol.mgr ? ol.engine : "off");
	ds_put_format(out, "  rules installed: %lu (marks in use %u of %u), "
		      "created %lu, destroyed %lu\n", st.installed,
		      st.marks_in_use, st.max_marks, st.created, st.destroyed);
	ds_put_format(out, "  holders: %lu megaflows on %u rules, shared: %lu "
		      "ADDs answered with a rule of the same pattern\n",
		      st.holders, st.marks_in_use, st.shared);
	ds_put_format(out, "  requests: %lu, dropped (ring full): %lu, "
		      "queued: %u, rate-deferred: %lu\n", st.requests,
		      st.dropped_requests, st.queue_depth, st.rate_deferred);
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
	return 0;
}
