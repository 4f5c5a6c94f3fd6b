/* SPDX-License-Identifier: BSD-3-Clause
 * The PMDs' megaflows, as ovs-appctl dpctl/...: dump-flows (match,
 * actions, counters, NIC mark; OVS's text: odp_format.h) and del-flows
 * (flush every PMD's). */
#include <stdlib.h>
#include <string.h>
#include <rte_cycles.h>
#include "cmd_pmd_ovs.h"
#include "cmd_util.h"
#include "control.h"
#include "json_out.h"
#include "mf_dump.h"
#include "odp_format.h"
#include "ofproto.h"
#include "pmd.h"
#include "pmd_watch.h"
#include "xlate.h"

/* Seconds since used_tsc; now is read after the dump, but clamp anyway:
 * another core's TSC may be a hair ahead. */
static double
seconds_since(uint64_t used_tsc, uint64_t now)
{
	return now > used_tsc ? (double)(now - used_tsc) / rte_get_tsc_hz() : 0;
}

/* The one datapath, under OVS's name for a userspace one. */
#define DPCTL_DP_NAME "netdev@ovs-netdev"

struct dpctl_args {
	int verbosity;		/* -m, --more: each one more */
	int names;		/* --names 1, --no-names 0, else -1 */
	int pmd;		/* pmd=CORE; -1: every PMD */
};

/* OVS's dpctl options (lib/dpctl.c dpctl_unixctl_handler): -m/--more,
 * -s/--statistics (counters are always shown), --names/--no-names, short
 * ones combined (-ms); then [DP] and, at the end, pmd=CORE. */
static int
dpctl_parse(int argc, const char *argv[], struct dpctl_args *a,
	    struct ds *out)
{
	bool dp_seen = false;

	a->verbosity = 0;
	a->names = -1;
	a->pmd = -1;
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];
		if (!strcmp(arg, "--more")) {
			a->verbosity++;
		} else if (!strcmp(arg, "--statistics")) {
			continue;
		} else if (!strcmp(arg, "--names") ||
			   !strcmp(arg, "--no-names")) {
			a->names = arg[2] == 'n' && arg[3] == 'a';
		} else if (arg[0] == '-' && arg[1] && arg[1] != '-') {
			for (const char *c = arg + 1; *c; c++) {
				if (*c == 'm') {
					a->verbosity++;
				} else if (*c != 's') {
					ds_put_format(out, "Unrecognized "
						      "option -%c", *c);
					return -1;
				}
			}
		} else if (arg[0] == '-') {
			ds_put_format(out, "Unrecognized option %s", arg);
			return -1;
		} else if (!strncmp(arg, "pmd=", 4)) {
			char *end;
			long v = strtol(arg + 4, &end, 10);
			if (!arg[4] || *end || v < 0 || v >= INT32_MAX) {
				ds_put_format(out, "bad pmd '%s'", arg);
				return -1;
			}
			a->pmd = (int)v;
		} else if (strchr(arg, '=')) {
			ds_put_format(out, "'%s': filter= and type= are not "
				      "supported", arg);
			return -1;
		} else if (dp_seen || strcmp(arg, DPCTL_DP_NAME)) {
			/* OVS's words for a datapath it does not have */
			ds_put_format(out, "vxswitch: datapath not found "
				      "(Invalid argument): '%s' (the one "
				      "datapath is " DPCTL_DP_NAME ")", arg);
			return -1;
		} else {
			dp_seen = true;
		}
	}
	return 0;
}

static void
flow_json(struct ds *out, const struct pmd *pmd, const struct mf_dump *d,
	  uint64_t now)
{
	char buf[2048];

	jw_begin_object(out);
	jw_key(out, "pmd"); jw_u64(out, pmd->lcore);
	jw_key(out, "id"); jw_u64(out, d->id);
	xlate_format_megaflow_match(&d->key, &d->mask, buf, sizeof buf);
	jw_key(out, "match"); jw_string(out, buf);
	xlate_format_actions(&d->actions, buf, sizeof buf);
	jw_key(out, "actions"); jw_string(out, buf);
	jw_key(out, "offloaded"); jw_bool(out, d->mark != 0);
	jw_key(out, "mark"); jw_u64(out, d->mark);
	jw_key(out, "packets"); jw_u64(out, d->n_packets);
	jw_key(out, "bytes"); jw_u64(out, d->n_bytes);
	jw_key(out, "used_s");
	jw_double(out, d->used_tsc ? seconds_since(d->used_tsc, now) : -1);
	jw_end_object(out);
}

/* dpctl/dump-flows [-m] [--names|--no-names] [DP] [pmd=CORE]: each PMD's
 * megaflows under OVS's "flow-dump from pmd on cpu core: N" (odp_format.h
 * for the lines); --json as before (match and actions as the rules
 * print them). */
static int
cmd_dpctl_dump_flows(int argc, const char *argv[], bool json, struct ds *out,
		     void *aux)
{
	struct dpctl_args a;
	uint16_t order[CFG_MAX_CORES];

	(void)aux;
	if (dpctl_parse(argc, argv, &a, out))
		return -1;
	struct odp_format_opts o = {
		.verbose = a.verbosity > 0,
		.names = a.names >= 0 ? a.names : a.verbosity > 0,
	};
	if (json)
		jw_begin_array(out);
	for (uint16_t k = 0, n = pmd_ovs_order(order); k < n; k++) {
		struct pmd *pmd = &pmds[order[k]];
		struct mf_dump_req r;
		if (a.pmd >= 0 && pmd->lcore != (unsigned)a.pmd)
			continue;
		if (collect_flows(pmd, &r, out))
			return -1;
		uint64_t now = rte_rdtsc();
		if (!json && r.n)
			ds_put_format(out, "flow-dump from pmd on cpu core: %u\n",
				      pmd->lcore);
		for (uint32_t i = 0; i < r.n; i++) {
			if (json)
				flow_json(out, pmd, &r.v[i], now);
			else
				odp_format_flow(out, &r.v[i], now, &o);
		}
		free(r.v);
	}
	if (json)
		jw_end_array(out);
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
	struct dpctl_args a;

	(void)json, (void)aux;
	if (dpctl_parse(argc, argv, &a, out) || pmds_answering_or_refuse(out))
		return -1;
	for (uint16_t i = 0; i < n_pmds; i++)
		if (a.pmd < 0 || pmds[i].lcore == (unsigned)a.pmd)
			pmd_call(&pmds[i], pmd_flush_req, NULL);
	ctl_events_process();
	return 0;
}

void
cmd_dpctl_register(void)
{
	control_register("dpctl/dump-flows",
			 "[-m] [--names|--no-names] [DP] [pmd=CORE]", 0, 6,
			 cmd_dpctl_dump_flows, NULL);
	control_register("dpctl/del-flows", "[DP]", 0, 1,
			 cmd_dpctl_del_flows, NULL);
}
