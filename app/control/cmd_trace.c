/* SPDX-License-Identifier: BSD-3-Clause
 * The packet trace's commands (app/datapath/dp_trace.h), as VPP's trace
 * add / show trace / clear trace:
 *
 *   dpif-netdev/trace add PORT N [MATCH]   trace the next N packets
 *                    received on PORT (name or ofport); with MATCH (an
 *                    ovs-ofctl match: "udp,nw_dst=10.0.0.5") only those
 *                    whose headers as received match it. Adds to a trace
 *                    already there: N more, PORT and MATCH replaced.
 *   dpif-netdev/trace show [-m]   the records so far: per packet, each
 *                    stage's result (-m: also the bytes as received);
 *                    --json: as JSON
 *   dpif-netdev/trace clear       stops the trace and frees its records
 *
 * "trace" is the same command (vxswitch-ctl trace add vm1 10).
 *
 * The trace lives here, on the control thread; each PMD gets a pointer to
 * it between two bursts (pmd_call), and loses it the same way before it
 * changes (PORT, MATCH) or is freed, so no PMD ever writes a record that
 * is not there. PMDs that set-pmd-cores makes get it when they start
 * (cmd_trace_pmds_new). Packets are taken by whichever PMD polls the port, N in
 * all; at most DP_TRACE_MAX_PKTS until a clear.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <rte_cycles.h>
#include <rte_malloc.h>
#include "cmd_util.h"
#include "control.h"
#include "json_out.h"
#include "ofp_rule.h"
#include "pmd.h"
#include "pmd_watch.h"
#include "port.h"
#include "trace_format.h"
#include "vlog.h"

static struct dp_trace *trace;		/* NULL: none */
static uint16_t n_traces;		/* allocated: the next one's id */
static char trace_match[256];		/* as given, for show */

static void
pmd_set_trace(struct pmd_request *req)
{
	req->pmd->dp.trace = req->arg;
}

/* Every PMD's pointer to t (NULL: off). -1 with out saying which PMD
 * did not answer: that one may still have the old one. */
static int
pmds_set_trace(struct dp_trace *t, struct ds *out)
{
	for (uint16_t i = 0; i < n_pmds; i++) {
		if (pmd_call(&pmds[i], pmd_set_trace, t) == 0)
			continue;
		ds_put_format(out, "pmd %u is not answering: the trace is "
			      "unchanged there", pmds[i].idx);
		return -1;
	}
	return 0;
}

static struct port *
port_arg(const char *s)
{
	char *end;
	errno = 0;
	unsigned long n = strtoul(s, &end, 10);

	if (s[0] >= '0' && s[0] <= '9' && !*end && !errno)
		return n <= UINT32_MAX ? port_by_ofport((uint32_t)n) : NULL;
	return port_by_name(s);
}

/* The error for an N out of range, taken records so far. */
static void
n_error(struct ds *out, const char *arg, uint32_t taken)
{
	ds_put_format(out, "trace add: N '%s': expected 1 to %" PRIu32
		      " (%d records until trace clear, %" PRIu32 " taken)",
		      arg, DP_TRACE_MAX_PKTS - taken, DP_TRACE_MAX_PKTS, taken);
}

static int
trace_add(int argc, const char *argv[], struct ds *out)
{
	uint32_t taken = trace ? __atomic_load_n(&trace->n_taken,
						 __ATOMIC_RELAXED) : 0;
	struct ofp_rule filter;
	char err[256], *end;

	if (argc < 4 || argc > 5) {
		ds_put_cstr(out, "trace add: expected PORT N [MATCH]");
		return -1;
	}
	struct port *p = port_arg(argv[2]);
	if (!p) {
		ds_put_format(out, "trace add: no port '%s'", argv[2]);
		return -1;
	}
	errno = 0;
	unsigned long n = strtoul(argv[3], &end, 10);
	if (argv[3][0] < '0' || argv[3][0] > '9' || *end || errno || !n ||
	    n > DP_TRACE_MAX_PKTS - taken) {
		n_error(out, argv[3], taken);
		return -1;
	}
	if (argc == 5) {
		if (ofp_parse_flow(argv[4], OFP_PARSE_MATCH, ports_ofp_map(),
				   &filter, err, sizeof err)) {
			ds_put_format(out, "trace add: MATCH: %s", err);
			return -1;
		}
		static const struct ofp_meta none;
		if (memcmp(&filter.meta_mask, &none, sizeof none) ||
		    filter.mask.recirc_id || filter.mask.ct_state ||
		    filter.mask.tun_id || filter.mask.tun_src ||
		    filter.mask.tun_dst) {
			ds_put_cstr(out, "trace add: MATCH: only a received "
				    "packet's headers (no registers, ct_*, "
				    "tunnel or recirculation fields)");
			return -1;
		}
		if (strlen(argv[4]) >= sizeof trace_match) {
			ds_put_format(out, "trace add: MATCH longer than %zu "
				      "bytes", sizeof trace_match - 1);
			return -1;
		}
	}
	if (pmds_answering_or_refuse(out))
		return -1;
	if (!trace) {
		trace = rte_zmalloc("packet_trace", sizeof *trace,
				    RTE_CACHE_LINE_SIZE);
		if (!trace) {
			ds_put_format(out, "trace add: out of memory (%zu "
				      "bytes)", sizeof *trace);
			return -1;
		}
		trace->tsc_hz = rte_get_tsc_hz();
		trace->id = ++n_traces;
	} else if (pmds_set_trace(NULL, out)) {
		return -1;
	} else {
		/* no PMD takes records now: the count is final, and may have
		 * grown since it was read above; the next N from here */
		taken = __atomic_load_n(&trace->n_taken, __ATOMIC_ACQUIRE);
		if (n > DP_TRACE_MAX_PKTS - taken) {
			n_error(out, argv[3], taken);
			(void)pmds_set_trace(trace, out);	/* as it was */
			return -1;
		}
	}
	trace->in_port = p->idx;
	trace->has_filter = argc == 5;
	flow_key_zero(&trace->filter_key);
	flow_key_zero(&trace->filter_mask);
	snprintf(trace_match, sizeof trace_match, "%s",
		 argc == 5 ? argv[4] : "");
	if (argc == 5) {
		trace->filter_key = filter.match;
		trace->filter_mask = filter.mask;
		/* in_port is the port's own: the key's is the ofport */
		trace->filter_mask.in_port = 0;
		trace->filter_key.in_port = 0;
	}
	__atomic_store_n(&trace->limit, taken + (uint32_t)n,
			 __ATOMIC_RELEASE);
	if (pmds_set_trace(trace, out))
		return -1;
	ds_put_format(out, "tracing the next %lu packets received on %s%s%s"
		      "\n", n, p->name, argc == 5 ? " matching " : "",
		      argc == 5 ? argv[4] : "");
	return 0;
}

static int
trace_show(int argc, const char *argv[], bool json, struct ds *out)
{
	bool verbose = argc == 3 && !strcmp(argv[2], "-m");
	uint32_t taken = trace ? __atomic_load_n(&trace->n_taken,
						 __ATOMIC_ACQUIRE) : 0;

	if (argc > 3 || (argc == 3 && !verbose)) {
		ds_put_cstr(out, "trace show: expected [-m]");
		return -1;
	}
	if (json) {
		jw_begin_object(out);
		jw_key(out, "port");
		if (trace)
			jw_string(out, port_name_at(trace->in_port));
		else
			jw_null(out);
		jw_key(out, "match"); jw_string(out, trace_match);
		jw_key(out, "limit");
		jw_u64(out, trace ? trace->limit : 0);
		jw_key(out, "taken"); jw_u64(out, taken);
		jw_key(out, "packets");
		jw_begin_array(out);
		for (uint32_t i = 0; i < taken; i++)
			trace_format_pkt_json(out, trace, i);
		jw_end_array(out);
		jw_end_object(out);
		return 0;
	}
	if (!trace) {
		ds_put_cstr(out, "no trace: dpif-netdev/trace add PORT N "
			    "starts one\n");
		return 0;
	}
	ds_put_format(out, "trace of %s%s%s: %" PRIu32 " of %" PRIu32
		      " packets taken\n", port_name_at(trace->in_port),
		      trace->has_filter ? " matching " : "",
		      trace->has_filter ? trace_match : "", taken,
		      trace->limit);
	for (uint32_t i = 0; i < taken; i++)
		trace_format_pkt_text(out, trace, i, verbose);
	return 0;
}

static int
trace_clear(struct ds *out)
{
	if (!trace) {
		ds_put_cstr(out, "OK\n");
		return 0;
	}
	if (pmds_set_trace(NULL, out))
		return -1;
	rte_free(trace);
	trace = NULL;
	trace_match[0] = 0;
	ds_put_cstr(out, "OK\n");
	return 0;
}

void
cmd_trace_pmds_new(void)
{
	struct ds out;

	if (!trace)
		return;
	ds_init(&out);
	if (pmds_set_trace(trace, &out))
		VLOG_WARN(control, "packet trace: %s\n", ds_cstr(&out));
	ds_destroy(&out);
}

static int
cmd_trace(int argc, const char *argv[], bool json, struct ds *out,
	  void *aux)
{
	(void)aux;
	const char *what = argv[1];

	if (!strcmp(what, "add"))
		return trace_add(argc, argv, out);
	if (!strcmp(what, "show"))
		return trace_show(argc, argv, json, out);
	if (!strcmp(what, "clear")) {
		if (argc == 2)
			return trace_clear(out);
		ds_put_cstr(out, "trace clear: takes no arguments");
		return -1;
	}
	ds_put_format(out, "trace: expected add PORT N [MATCH], show [-m] "
		      "or clear, not '%s'", what);
	return -1;
}

void
cmd_trace_register(void)
{
	static const char usage[] = "add PORT N [MATCH] | show [-m] | clear";

	control_register("dpif-netdev/trace", usage, 1, 4, cmd_trace, NULL);
	control_register("trace", usage, 1, 4, cmd_trace, NULL);
}
