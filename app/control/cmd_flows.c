/* SPDX-License-Identifier: BSD-3-Clause
 * OpenFlow rules, as ovs-ofctl: dump-flows (with the live counters of the
 * rules' megaflows added, and OVS's duration, idle_age, hard_age),
 * add-flow, add-flows, mod-flows, del-flows; each takes ovs-ofctl's
 * BRIDGE argument, checked against the one bridge's name. */
#include <stdlib.h>
#include <string.h>
#include "clock.h"
#include "cmd_util.h"
#include "control.h"
#include "json_out.h"
#include "mf_dump.h"
#include "ofproto.h"
#include "pmd.h"
#include "port.h"
#include "state.h"

/* Live megaflow counters per rule, from every PMD, plus retired ones;
 * *used_ms: the rule's last hit the live megaflows know of. */
static void
rule_live_stats(uint32_t uid, const struct mf_dump_req *reqs,
		uint64_t *packets, uint64_t *bytes, uint64_t *used_ms)
{
	for (uint16_t i = 0; i < n_pmds; i++)
		for (uint32_t k = 0; k < reqs[i].n; k++)
			if (reqs[i].v[k].rule_uid == uid) {
				const struct mf_dump *m = &reqs[i].v[k];
				*packets += m->n_packets;
				*bytes += m->n_bytes;
				*used_ms = RTE_MAX(*used_ms,
					pmd_tsc_to_ms(m->used_tsc));
			}
}

static void
not_a_bridge(struct ds *out, const char *word)
{
	ds_put_format(out, "%s is not a bridge or a socket (this switch's "
		      "bridge is %s)", word, ofproto_bridge());
}

/* ovs-ofctl's BRIDGE, first of the n words of a command that takes at most
 * n_own more of its own: 1 if words[0] is ours, 0 if it is one of the
 * command's own words (a FLOW: the caller parses it), -1 with OVS's error
 * if it must be a bridge and is not ours. */
static int
take_bridge(int n, const char *const *words, int n_own, struct ds *out)
{
	if (n == 0)
		return 0;
	if (!strcmp(words[0], ofproto_bridge()))
		return 1;
	if (n > n_own) {
		not_a_bridge(out, words[0]);
		return -1;
	}
	return 0;
}

/* The error of a FLOW that did not parse; a lone word (no '=', ',' or
 * parenthesis) may have been meant as a bridge: say both. */
static void
flow_error(struct ds *out, const char *word, const char *err)
{
	ds_put_cstr(out, err);
	if (word && !strpbrk(word, "=,() \t"))
		ds_put_format(out, " (%s is not a bridge or a socket either: "
			      "this switch's bridge is %s)", word,
			      ofproto_bridge());
}

/* ovs-ofctl's seconds: "3.052s" (milliseconds, as OVS prints whole ones) */
static void
put_duration(struct ds *out, uint64_t ms)
{
	ds_put_format(out, "duration=%lu.%03lus, ", (unsigned long)(ms / 1000),
		      (unsigned long)(ms % 1000));
}

/* OVS's ages saturate at 65535 s */
static unsigned
age_secs(uint64_t now_ms, uint64_t then_ms)
{
	uint64_t s = now_ms > then_ms ? (now_ms - then_ms) / 1000 : 0;
	return s > 65535 ? 65535 : (unsigned)s;
}

static int
cmd_dump_flows(int argc, const char *argv[], bool json, struct ds *out,
	       void *aux)
{
	(void)aux;
	struct ofp_rule filter;
	char buf[2048], err[256], fmod[128];
	/* --no-stats: ovs-ofctl's, no duration, counters nor ages */
	bool stats = !(argc > 1 && !strcmp(argv[1], "--no-stats"));
	argc -= !stats, argv += !stats;
	int nb = take_bridge(argc - 1, argv + 1, 1, out);
	const char *f = nb >= 0 && argc - 1 - nb > 0 ? argv[1 + nb] : NULL;
	int rc = 0;

	if (nb < 0)
		return -1;
	memset(&filter, 0, sizeof filter);
	if (f && ofp_parse_flow(f, OFP_PARSE_MATCH, ports_ofp_map(), &filter,
				err, sizeof err)) {
		flow_error(out, f, err);
		return -1;
	}
	struct mf_dump_req *reqs = calloc(n_pmds ? n_pmds : 1, sizeof *reqs);
	if (!reqs) {
		ds_put_cstr(out, "out of memory");
		return -1;
	}
	ctl_events_process();
	for (uint16_t i = 0; i < n_pmds; i++)
		if (collect_flows(&pmds[i], &reqs[i], out)) {
			rc = -1;
			goto done;
		}
	uint64_t now = vxs_now_ms();
	if (json)
		jw_begin_array(out);
	for (uint32_t i = 0; i < ofproto_n_rules(); i++) {
		const struct ofp_rule *r = ofproto_rule(i);
		const struct ofproto_rule_stats *st = ofproto_rule_stats(i);
		uint64_t packets = st->packets, bytes = st->bytes;
		uint64_t used = st->used_ms;

		if (f && !ofp_rule_covered_by(r, &filter))
			continue;
		rule_live_stats(r->uid, reqs, &packets, &bytes, &used);
		/* never hit: its age counts from its creation, as OVS's */
		unsigned idle_age = age_secs(now, RTE_MAX(used, st->created_ms));
		unsigned hard_age = age_secs(now, st->modified_ms);
		uint64_t dur = now - st->created_ms;
		if (json) {
			ofp_format_rule(r, ports_ofp_map(), buf, sizeof buf);
			jw_begin_object(out);
			jw_key(out, "rule"); jw_string(out, buf);
			jw_key(out, "cookie"); jw_u64(out, r->cookie);
			jw_key(out, "table"); jw_u64(out, r->table_id);
			jw_key(out, "priority"); jw_u64(out, r->priority);
			jw_key(out, "n_packets"); jw_u64(out, packets);
			jw_key(out, "n_bytes"); jw_u64(out, bytes);
			jw_key(out, "duration_ms"); jw_u64(out, dur);
			jw_key(out, "idle_age"); jw_u64(out, idle_age);
			jw_key(out, "hard_age"); jw_u64(out, hard_age);
			jw_key(out, "idle_timeout");
			jw_u64(out, r->idle_timeout);
			jw_key(out, "hard_timeout");
			jw_u64(out, r->hard_timeout);
			jw_key(out, "flags");
			jw_begin_array(out);
			for (int b = 0; b < OFP_N_FLAGS; b++)
				if (r->flags & (1u << b))
					jw_string(out, ofp_flag_name(b));
			jw_end_array(out);
			jw_key(out, "importance");
			jw_u64(out, r->importance);
			jw_end_object(out);
			continue;
		}
		/* ovs-ofctl dump-flows' order (ofputil_flow_stats_format):
		 * cookie, duration, table, counters, timeouts, idle_age,
		 * hard_age only when it differs from the duration */
		ofp_format_rule_body(r, ports_ofp_map(), buf, sizeof buf);
		ofp_format_fmod_dump(r, fmod, sizeof fmod);
		ds_put_char(out, ' ');
		if (stats || r->cookie)
			ds_put_format(out, "cookie=0x%lx, ",
				      (unsigned long)r->cookie);
		if (stats)
			put_duration(out, dur);
		if (stats || r->table_id)
			ds_put_format(out, "table=%u, ", r->table_id);
		if (stats)
			ds_put_format(out, "n_packets=%lu, n_bytes=%lu, ",
				      (unsigned long)packets,
				      (unsigned long)bytes);
		if (r->idle_timeout)
			ds_put_format(out, "idle_timeout=%u, ", r->idle_timeout);
		if (r->hard_timeout)
			ds_put_format(out, "hard_timeout=%u, ", r->hard_timeout);
		ds_put_cstr(out, fmod);
		if (stats)
			ds_put_format(out, "idle_age=%u, ", idle_age);
		if (stats && hard_age != dur / 1000)
			ds_put_format(out, "hard_age=%u, ", hard_age);
		ds_put_format(out, "%s\n", buf);
	}
	if (json)
		jw_end_array(out);
done:
	for (uint16_t i = 0; i < n_pmds; i++)
		free(reqs[i].v);
	free(reqs);
	return rc;
}

/* add-flow [BRIDGE] FLOW */
static int
cmd_add_flow(int argc, const char *argv[], bool json, struct ds *out,
	     void *aux)
{
	(void)json, (void)aux;
	char err[512];
	int bad;
	const char *flow = argv[argc - 1];

	if (take_bridge(argc - 1, argv + 1, 1, out) < 0)
		return -1;
	if (ofproto_add_flows(&flow, 1, &bad, err, sizeof err)) {
		flow_error(out, flow, err);
		return -1;
	}
	state_changed();
	return 0;
}

/* add-flows [--bridge=BRIDGE] FLOW...: vxswitch-ctl's add-flows [BRIDGE]
 * FILE sends the file's flows, and the bridge it was given. */
static int
cmd_add_flows(int argc, const char *argv[], bool json, struct ds *out,
	      void *aux)
{
	(void)json, (void)aux;
	char err[512];
	int bad = 0, first = 1;

	if (argc > 1 && !strncmp(argv[1], "--bridge=", 9)) {
		if (strcmp(argv[1] + 9, ofproto_bridge())) {
			not_a_bridge(out, argv[1] + 9);
			return -1;
		}
		first = 2;
	}
	if (ofproto_add_flows(argv + first, argc - first, &bad, err,
			      sizeof err)) {
		if (bad < 0)
			ds_put_cstr(out, err);
		else
			ds_put_format(out, "flow %d: %s", bad + 1, err);
		return -1;
	}
	state_changed();
	ds_put_format(out, "%d flows added\n", argc - first);
	return 0;
}

/* The words after an optional --strict: [BRIDGE] [FLOW] (need_flow: FLOW
 * required). Returns 0 with *strict and *flow set (NULL: none), or -1. */
static int
strict_bridge_flow(int argc, const char *argv[], bool need_flow,
		   bool *strict, const char **flow, struct ds *out)
{
	int i = 1;

	*strict = i < argc && !strcmp(argv[i], "--strict");
	i += *strict;
	int nb = take_bridge(argc - i, argv + i, 1, out);
	if (nb < 0)
		return -1;
	i += nb;
	if (argc - i > 1) {
		ds_put_format(out, "too many arguments ('%s')", argv[i + 1]);
		return -1;
	}
	*flow = i < argc ? argv[i] : NULL;
	if (need_flow && !*flow) {
		ds_put_cstr(out, "missing FLOW");
		return -1;
	}
	return 0;
}

/* del-flows [--strict] [BRIDGE] [FLOW] */
static int
cmd_del_flows(int argc, const char *argv[], bool json, struct ds *out,
	      void *aux)
{
	(void)json, (void)aux;
	char err[512];
	bool strict;
	const char *filter;

	if (strict_bridge_flow(argc, argv, false, &strict, &filter, out))
		return -1;
	int n = ofproto_del_flows(filter, strict, err, sizeof err);
	if (n < 0) {
		flow_error(out, filter, err);
		return -1;
	}
	if (n > 0)
		state_changed();
	ds_put_format(out, "%d flows deleted\n", n);
	return 0;
}

/* mod-flows [--strict] [BRIDGE] FLOW */
static int
cmd_mod_flows(int argc, const char *argv[], bool json, struct ds *out,
	      void *aux)
{
	(void)json, (void)aux;
	char err[512];
	bool strict;
	const char *flow;

	if (strict_bridge_flow(argc, argv, true, &strict, &flow, out))
		return -1;
	int n = ofproto_mod_flows(flow, strict, err, sizeof err);
	if (n < 0) {
		flow_error(out, flow, err);
		return -1;
	}
	if (n > 0)
		state_changed();
	ds_put_format(out, "%d flows modified\n", n);
	return 0;
}

void
cmd_flows_register(void)
{
	control_register("dump-flows", "[--no-stats] [BRIDGE] [FLOW]", 0, 3,
			 cmd_dump_flows, NULL);
	control_register("add-flow", "[BRIDGE] FLOW", 1, 2, cmd_add_flow, NULL);
	control_register("add-flows", "[--bridge=BRIDGE] FLOW...", 1,
			 CONTROL_ARGS_ANY, cmd_add_flows, NULL);
	control_register("del-flows", "[--strict] [BRIDGE] [FLOW]", 0, 3,
			 cmd_del_flows, NULL);
	control_register("mod-flows", "[--strict] [BRIDGE] FLOW", 1, 3,
			 cmd_mod_flows, NULL);
}
