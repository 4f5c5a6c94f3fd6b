/* SPDX-License-Identifier: BSD-3-Clause
 * OpenFlow rules, as ovs-ofctl: dump-flows (with the live counters of the
 * rules' megaflows added), add-flow, add-flows, del-flows. */
#include <stdlib.h>
#include <string.h>
#include "cmd_util.h"
#include "control.h"
#include "json_out.h"
#include "mf_dump.h"
#include "ofproto.h"
#include "pmd.h"
#include "port.h"
#include "state.h"

/* Live megaflow counters per rule, from every PMD, plus retired ones. */
static void
rule_live_stats(uint32_t uid, const struct mf_dump_req *reqs,
		uint64_t *packets, uint64_t *bytes)
{
	for (uint16_t i = 0; i < n_pmds; i++)
		for (uint32_t k = 0; k < reqs[i].n; k++)
			if (reqs[i].v[k].rule_uid == uid) {
				*packets += reqs[i].v[k].n_packets;
				*bytes += reqs[i].v[k].n_bytes;
			}
}

static int
cmd_dump_flows(int argc, const char *argv[], bool json, struct ds *out,
	       void *aux)
{
	(void)aux;
	struct ofp_rule filter;
	char buf[2048], err[256];
	struct mf_dump_req *reqs = calloc(n_pmds ? n_pmds : 1, sizeof *reqs);
	const char *f = argc > 1 ? argv[argc - 1] : NULL;
	int rc = 0;

	memset(&filter, 0, sizeof filter);
	if (f && ofp_parse_flow(f, OFP_PARSE_MATCH, ports_ofp_map(), &filter,
				err, sizeof err)) {
		ds_put_format(out, "%s", err);
		free(reqs);
		return -1;
	}
	ctl_events_process();
	for (uint16_t i = 0; i < n_pmds; i++)
		if (collect_flows(&pmds[i], &reqs[i], out)) {
			rc = -1;
			goto done;
		}
	if (json)
		json_begin_array(out);
	for (uint32_t i = 0; i < ofproto_n_rules(); i++) {
		const struct ofp_rule *r = ofproto_rule(i);
		const struct ofproto_rule_stats *st = ofproto_rule_stats(i);
		uint64_t packets = st->packets, bytes = st->bytes;

		if (f && !ofp_rule_covered_by(r, &filter))
			continue;
		rule_live_stats(r->uid, reqs, &packets, &bytes);
		if (json) {
			ofp_format_rule(r, ports_ofp_map(), buf, sizeof buf);
			json_begin_object(out);
			json_key(out, "rule"); json_string(out, buf);
			json_key(out, "table"); json_u64(out, r->table_id);
			json_key(out, "priority"); json_u64(out, r->priority);
			json_key(out, "n_packets"); json_u64(out, packets);
			json_key(out, "n_bytes"); json_u64(out, bytes);
			json_end_object(out);
		} else {
			/* table= goes before the counters, as in
			 * ovs-ofctl dump-flows */
			ofp_format_rule_body(r, ports_ofp_map(), buf,
					     sizeof buf);
			ds_put_format(out, " cookie=0x%lx, table=%u, "
				      "n_packets=%lu, n_bytes=%lu, %s\n",
				      r->cookie, r->table_id, packets, bytes,
				      buf);
		}
	}
	if (json)
		json_end_array(out);
done:
	for (uint16_t i = 0; i < n_pmds; i++)
		free(reqs[i].v);
	free(reqs);
	return rc;
}

/* add-flow [BRIDGE] FLOW: the bridge name is accepted for ovs-ofctl habit
 * (there is one overlay bridge). */
static int
cmd_add_flow(int argc, const char *argv[], bool json, struct ds *out,
	     void *aux)
{
	(void)json, (void)aux;
	char err[512];
	int bad;
	const char *flow = argv[argc - 1];

	if (ofproto_add_flows(&flow, 1, &bad, err, sizeof err)) {
		ds_put_format(out, "%s", err);
		return -1;
	}
	state_changed();
	return 0;
}

static int
cmd_add_flows(int argc, const char *argv[], bool json, struct ds *out,
	      void *aux)
{
	(void)json, (void)aux;
	char err[512];
	int bad = 0;

	if (ofproto_add_flows(argv + 1, argc - 1, &bad, err, sizeof err)) {
		if (bad < 0)
			ds_put_cstr(out, err);
		else
			ds_put_format(out, "flow %d: %s", bad + 1, err);
		return -1;
	}
	state_changed();
	ds_put_format(out, "%d flows added\n", argc - 1);
	return 0;
}

/* del-flows [--strict] [BRIDGE] [FLOW] */
static int
cmd_del_flows(int argc, const char *argv[], bool json, struct ds *out,
	      void *aux)
{
	(void)json, (void)aux;
	char err[512];
	bool strict = false;
	const char *filter = NULL;
	int i = 1, n;

	if (i < argc && !strcmp(argv[i], "--strict")) {
		strict = true;
		i++;
	}
	if (argc - i == 2)	/* BRIDGE FLOW */
		i++;
	if (i < argc)
		filter = argv[i];
	if (argc - i > 1) {
		ds_put_format(out, "too many arguments");
		return -1;
	}
	n = ofproto_del_flows(filter, strict, err, sizeof err);
	if (n < 0) {
		ds_put_format(out, "%s", err);
		return -1;
	}
	if (n > 0)
		state_changed();
	ds_put_format(out, "%d flows deleted\n", n);
	return 0;
}

void
cmd_flows_register(void)
{
	control_register("dump-flows", "[BRIDGE] [FLOW]", 0, 2,
			 cmd_dump_flows, NULL);
	control_register("add-flow", "[BRIDGE] FLOW", 1, 2, cmd_add_flow, NULL);
	control_register("add-flows", "FLOW...", 1, CONTROL_ARGS_ANY,
			 cmd_add_flows, NULL);
	control_register("del-flows", "[--strict] [BRIDGE] [FLOW]", 0, 3,
			 cmd_del_flows, NULL);
}
