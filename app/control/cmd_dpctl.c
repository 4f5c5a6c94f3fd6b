/* SPDX-License-Identifier: BSD-3-Clause
 * The PMDs' megaflows, as ovs-appctl dpctl/...: dump-flows (match,
 * actions, counters, NIC mark) and del-flows (flush every PMD's). */
#include <stdlib.h>
#include <rte_cycles.h>
#include "cmd_util.h"
#include "control.h"
#include "json_out.h"
#include "mf_dump.h"
#include "ofproto.h"
#include "pmd.h"
#include "xlate.h"

/* Seconds since used_tsc; now is read after the dump, but clamp anyway:
 * another core's TSC may be a hair ahead. */
static double
seconds_since(uint64_t used_tsc, uint64_t now)
{
	return now > used_tsc ? (double)(now - used_tsc) / rte_get_tsc_hz() : 0;
}

static void
format_used(struct ds *out, uint64_t used_tsc, uint64_t now)
{
	if (!used_tsc)
		ds_put_cstr(out, "never");
	else
		ds_put_format(out, "%.3fs", seconds_since(used_tsc, now));
}

static int
cmd_dpctl_dump_flows(int argc, const char *argv[], bool json, struct ds *out,
		     void *aux)
{
	UNUSED_ARGS;
	char buf[2048];

	if (json)
		json_begin_array(out);
	for (uint16_t i = 0; i < n_pmds; i++) {
		struct mf_dump_req r;
		if (collect_flows(&pmds[i], &r, out))
			return -1;
		uint64_t now = rte_rdtsc();
		if (!json && n_pmds > 1)
			ds_put_format(out, "flow-dump from pmd on cpu core: %u\n",
				      pmds[i].lcore);
		for (uint32_t k = 0; k < r.n; k++) {
			struct mf_dump *d = &r.v[k];
			if (json) {
				json_begin_object(out);
				json_key(out, "pmd"); json_u64(out, pmds[i].lcore);
				json_key(out, "id"); json_u64(out, d->id);
				xlate_format_megaflow_match(&d->key, &d->mask,
							    buf, sizeof buf);
				json_key(out, "match"); json_string(out, buf);
				xlate_format_actions(&d->actions, buf, sizeof buf);
				json_key(out, "actions"); json_string(out, buf);
				json_key(out, "offloaded"); json_bool(out, d->mark != 0);
				json_key(out, "mark"); json_u64(out, d->mark);
				json_key(out, "packets"); json_u64(out, d->n_packets);
				json_key(out, "bytes"); json_u64(out, d->n_bytes);
				json_key(out, "used_s");
				json_double(out, d->used_tsc ?
					seconds_since(d->used_tsc, now) : -1);
				json_end_object(out);
				continue;
			}
			xlate_format_megaflow_match(&d->key, &d->mask, buf,
						    sizeof buf);
			ds_put_format(out, "ufid:%lu, %s, packets:%lu, bytes:%lu,"
				      " used:", d->id, buf, d->n_packets,
				      d->n_bytes);
			format_used(out, d->used_tsc, now);
			if (d->mark)
				ds_put_format(out, ", offloaded:yes, mark:%u",
					      d->mark);
			xlate_format_actions(&d->actions, buf, sizeof buf);
			ds_put_format(out, ", actions:%s\n", buf);
		}
		free(r.v);
	}
	if (json)
		json_end_array(out);
	return 0;
}

static void
pmd_flush_req(struct pmd_request *req)
{
	pmd_flush_flows(req->pmd);
}

static int
cmd_dpctl_del_flows(int argc, const char *argv[], bool json, struct ds *out,
		    void *aux)
{
	UNUSED_ARGS;
	(void)out;
	for (uint16_t i = 0; i < n_pmds; i++)
		pmd_call(&pmds[i], pmd_flush_req, NULL);
	ctl_events_process();
	return 0;
}

void
cmd_dpctl_register(void)
{
	control_register("dpctl/dump-flows", "", 0, 1, cmd_dpctl_dump_flows,
			 NULL);
	control_register("dpctl/del-flows", "", 0, 1, cmd_dpctl_del_flows,
			 NULL);
}
