/* SPDX-License-Identifier: BSD-3-Clause
 * The PMDs, as ovs-appctl dpif-netdev/...: pmd-stats-show (every
 * PMD_STATS counter, dp_stats.h), pmd-perf-show (cycles by stage, burst
 * sizes), pmd-stats-clear (pmd-rxq-show: cmd_pmd_rxq.c), and the datapath
 * optimisations (set-opt, opts-show) for A/B runs on live traffic. */
#include <stdio.h>
#include <string.h>
#include <rte_cycles.h>
#include <rte_lcore.h>
#include "cmd_pmd_ovs.h"
#include "cmd_util.h"
#include "control.h"
#include "dp_opts.h"
#include "dpcls.h"
#include "json_out.h"
#include "ofproto.h"
#include "pmd.h"
#include "pmd_reconf.h"
#include "pmd_watch.h"
#include "state.h"
#include "stats_read.h"

/* What -m adds after OVS's lines: vxswitch's own counters, the "  label:
 * N" lines of the PMD_TEXT_MORE rows (dp_stats.h), then the derived ones. */
static void
pmd_stats_more_text(struct ds *out, const struct pmd *pmd)
{
	const struct pmd_stats *s = &pmd->stats;
	uint64_t pkts = counter_ld(&s->packets), busy = counter_ld(&s->busy_cycles);
	uint64_t idle = counter_ld(&s->idle_cycles), total = busy + idle;
	uint64_t pops = counter_ld(&s->tunnel_pops), up = counter_ld(&s->upcalls);

#define X(field, text, label)                                              \
	if (text == PMD_TEXT_MORE)                                         \
		ds_put_format(out, "  %s: %lu\n", label, counter_ld(&s->field));
	PMD_STATS(X)
#undef X
	ds_put_format(out, "  avg. lookups per packet: %.2f\n",
		      pkts ? (double)(pkts + pops) / pkts : 0);
	ds_put_format(out, "  avg. upcall cycles: %.0f\n",
		      up ? (double)counter_ld(&s->upcall_cycles) / up : 0);
	{
		uint64_t sleeps = counter_ld(&s->sleeps), slept = counter_ld(&s->sleep_cycles);
		ds_put_format(out, "  idle back-off sleeps: %lu (%.0f us, "
			      "%.2f%% of polling + sleeping time)\n", sleeps,
			      (double)slept * 1e6 / rte_get_tsc_hz(),
			      total + slept ? 100.0 * slept / (total + slept)
					    : 0);
	}
	ds_put_format(out, "  megaflows: %u (expired %lu, revalidated out %lu,"
		      " revalidations %lu, revalidation skipped %lu)\n",
		      dpcls_count(pmd->dp.cls),
		      counter_ld(&s->megaflows_expired),
		      counter_ld(&s->megaflows_revalidated_out),
		      counter_ld(&s->revalidations),
		      counter_ld(&s->megaflows_reval_skipped));
	pmd_accounting_text(out, &pmds[pmd->idx]);
	ds_put_format(out, "  drops:");
	for (int r = 0; r < DROP_N_REASONS; r++)
		ds_put_format(out, " %s=%lu", drop_reason_name(r),
			      counter_ld(&s->drops[r]));
	ds_put_char(out, '\n');
}

/* Every PMD_STATS counter under its field name, then the derived ones. */
static void
pmd_stats_json(struct ds *out, const struct pmd *pmd)
{
	const struct pmd_stats *s = &pmd->stats;
	uint64_t pkts = counter_ld(&s->packets), busy = counter_ld(&s->busy_cycles);

	jw_begin_object(out);
	jw_key(out, "core"); jw_u64(out, pmd->lcore);
#define X(field, text, label) jw_key(out, #field); jw_u64(out, counter_ld(&s->field));
	PMD_STATS(X)
#undef X
	jw_key(out, "tsc_hz"); jw_u64(out, rte_get_tsc_hz());
	jw_key(out, "cycles_per_packet");
	jw_double(out, pkts ? (double)busy / pkts : 0);
	jw_key(out, "megaflows"); jw_u64(out, dpcls_count(pmd->dp.cls));
	pmd_accounting_json(out, &pmds[pmd->idx]);
	/* false: counters as last seen (pmd_watch.h), see not_answering */
	jw_key(out, "answering"); jw_bool(out, pmd_answering(pmd));
	if (!pmd_answering(pmd)) {
		jw_key(out, "not_answering");
		pmd_silence_json(pmd, out);
	}
	jw_key(out, "drops");
	jw_begin_object(out);
	for (int r = 0; r < DROP_N_REASONS; r++) {
		jw_key(out, drop_reason_name(r));
		jw_u64(out, counter_ld(&s->drops[r]));
	}
	jw_end_object(out);
	jw_end_object(out);
}

/* One report per PMD: a JSON array of objects, or text blocks. */
static void
report_each_pmd(bool json, struct ds *out,
		void (*text)(struct ds *, const struct pmd *),
		void (*as_json)(struct ds *, const struct pmd *))
{
	if (json)
		jw_begin_array(out);
	for (uint16_t i = 0; i < n_pmds; i++)
		(json ? as_json : text)(out, &pmds[i]);
	if (json)
		jw_end_array(out);
}

/* [-pmd CORE] [-m|--more] [DP]: OVS's text, by core id, then OVS's
 * "main thread:" unless -pmd picks a core; -m adds vxswitch's lines to
 * each PMD's. */
int
cmd_pmd_stats_show(int argc, const char *argv[], bool json, struct ds *out,
		   void *aux)
{
	struct pmd_ovs_args a;
	uint16_t order[CFG_MAX_CORES];

	(void)aux;
	if (pmd_ovs_args_parse(argc, argv, false, &a, out))
		return -1;
	if (json)
		jw_begin_array(out);
	for (uint16_t k = 0, n = pmd_ovs_order(order); k < n; k++) {
		const struct pmd *pmd = &pmds[order[k]];
		if (a.core >= 0 && pmd->lcore != (unsigned)a.core)
			continue;
		if (json) {
			pmd_stats_json(out, pmd);
			continue;
		}
		pmd_stats_ovs_text(out, pmd);
		if (!pmd_answering(pmd)) {	/* not OVS's: it has no such line */
			ds_put_cstr(out, "  ");
			pmd_silence_text(pmd, out);
			ds_put_cstr(out, ": counters as last seen\n");
		}
		if (a.more)
			pmd_stats_more_text(out, pmd);
	}
	if (json)
		jw_end_array(out);
	else if (a.core < 0)
		pmd_stats_ovs_main_thread(out);
	return 0;
}

/* pmd-perf-show: where each PMD's busy cycles go, per packet and per
 * stage (dp_stats.h, PMD_STAGES), as OVS's dpif-netdev/pmd-perf-show. */
static const char *const burst_bucket_names[PMD_BURST_BUCKETS] = {
	"1", "2-3", "4-7", "8-15", "16-31", "32",
};

static inline uint64_t
sub0(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

static void
pmd_perf_io_line(struct ds *out, const char *label, uint64_t pkts,
		 uint64_t calls)
{
	ds_put_format(out, "  - %-16s %12lu pkts  %10lu calls  "
		      "(%.2f pkts/call)\n", label, pkts, calls,
		      calls ? (double)pkts / calls : 0);
}

/* The I/O calls' counts: packets per call by kind (port_io_vhost, port.h),
 * and how many rx calls found nothing. */
static void
pmd_perf_io_text(struct ds *out, const struct pmd_stats *s)
{
	uint64_t polls = counter_ld(&s->polls);
	uint64_t empty = counter_ld(&s->polls_empty);
	uint64_t rxb_v = counter_ld(&s->rx_bursts_vhost);
	uint64_t rxp_v = counter_ld(&s->rx_packets_vhost);
	/* read live, a later counter can be ahead of an earlier one */
	uint64_t rxb_n = sub0(polls, empty + rxb_v);
	uint64_t rxp_n = sub0(counter_ld(&s->packets), rxp_v);
	uint64_t txb_v = counter_ld(&s->tx_batches_vhost);
	uint64_t txp_v = counter_ld(&s->tx_packets_vhost);
	uint64_t txb_n = sub0(counter_ld(&s->tx_batches), txb_v);
	uint64_t txp_n = sub0(counter_ld(&s->tx_packets), txp_v);

	ds_put_format(out, "  Rx calls:          %12lu  (%lu empty, %.1f %%)\n",
		      polls, empty, polls ? 100.0 * empty / polls : 0);
	pmd_perf_io_line(out, "NIC rx:", rxp_n, rxb_n);
	pmd_perf_io_line(out, "vhost rx:", rxp_v, rxb_v);
	pmd_perf_io_line(out, "NIC tx:", txp_n, txb_n);
	pmd_perf_io_line(out, "vhost tx:", txp_v, txb_v);
}

static void
pmd_perf_text(struct ds *out, const struct pmd *pmd)
{
	const struct pmd_stats *s = &pmd->stats;
	uint64_t pkts = counter_ld(&s->packets), busy = counter_ld(&s->busy_cycles);
	uint64_t idle = counter_ld(&s->idle_cycles), total = busy + idle;
	uint64_t its = counter_ld(&s->iterations), txb = counter_ld(&s->tx_batches);
	uint64_t staged = 0, bursts = 0;

	ds_put_format(out, "pmd thread numa_id %u core_id %u:\n",
		      rte_lcore_to_socket_id(pmd->lcore), pmd->lcore);
	ds_put_format(out, "  Iterations:        %12lu  (%.2f us/it)\n", its,
		      its ? total * 1e6 / rte_get_tsc_hz() / its : 0);
	ds_put_format(out, "  - Used TSC cycles: %12lu\n", total);
	ds_put_format(out, "  - idle cycles:     %12lu  (%5.1f %%)\n", idle,
		      total ? 100.0 * idle / total : 0);
	ds_put_format(out, "  - busy cycles:     %12lu  (%5.1f %%)\n", busy,
		      total ? 100.0 * busy / total : 0);
	ds_put_format(out, "  Rx packets:        %12lu  (%.0f cycles/pkt)\n",
		      pkts, pkts ? (double)busy / pkts : 0);
	ds_put_format(out, "  - tunnel pops:     %12lu  (inner lookups, same "
		      "pass)\n", counter_ld(&s->tunnel_pops));
	ds_put_format(out, "  - tunnel pushes:   %12lu\n",
		      counter_ld(&s->tunnel_pushes));
	ds_put_format(out, "  - EMC hits:        %12lu\n", counter_ld(&s->emc_hits));
	ds_put_format(out, "  - megaflow hits:   %12lu\n",
		      counter_ld(&s->megaflow_hits));
	ds_put_format(out, "  - upcalls:         %12lu\n", counter_ld(&s->upcalls));
	ds_put_format(out, "  Tx packets:        %12lu  (%.2f pkts/batch)\n",
		      counter_ld(&s->tx_packets),
		      txb ? (double)counter_ld(&s->tx_packets) / txb : 0);
	pmd_perf_io_text(out, s);
	ds_put_format(out, "  Busy cycles by stage:   cycles/pkt   %% of busy\n");
	for (int st = 0; st < PMD_N_STAGES; st++) {
		uint64_t c = counter_ld(&s->stage_cycles[st]);
		staged += c;
		ds_put_format(out, "    %-20s %12.1f %10.1f %%\n",
			      pmd_stage_name(st), pkts ? (double)c / pkts : 0,
			      busy ? 100.0 * c / busy : 0);
	}
	uint64_t other = busy > staged ? busy - staged : 0;
	ds_put_format(out, "    %-20s %12.1f %10.1f %%\n", "other",
		      pkts ? (double)other / pkts : 0,
		      busy ? 100.0 * other / busy : 0);
	ds_put_format(out, "    %-20s %12.1f\n", "total",
		      pkts ? (double)busy / pkts : 0);
	for (int k = 0; k < PMD_BURST_BUCKETS; k++)
		bursts += counter_ld(&s->bursts[k]);
	ds_put_format(out, "  Rx burst sizes (%lu bursts, %.1f pkts/burst):\n",
		      bursts, bursts ? (double)pkts / bursts : 0);
	for (int k = 0; k < PMD_BURST_BUCKETS; k++) {
		uint64_t c = counter_ld(&s->bursts[k]);
		ds_put_format(out, "    %-6s %12lu  (%5.1f %%)\n",
			      burst_bucket_names[k], c,
			      bursts ? 100.0 * c / bursts : 0);
	}
}

static void
pmd_perf_json(struct ds *out, const struct pmd *pmd)
{
	const struct pmd_stats *s = &pmd->stats;
	uint64_t pkts = counter_ld(&s->packets), busy = counter_ld(&s->busy_cycles);
	uint64_t txb = counter_ld(&s->tx_batches), staged = 0;

	jw_begin_object(out);
	jw_key(out, "core"); jw_u64(out, pmd->lcore);
	jw_key(out, "numa_id");
	jw_u64(out, rte_lcore_to_socket_id(pmd->lcore));
	jw_key(out, "iterations"); jw_u64(out, counter_ld(&s->iterations));
	jw_key(out, "busy_cycles"); jw_u64(out, busy);
	jw_key(out, "idle_cycles"); jw_u64(out, counter_ld(&s->idle_cycles));
	jw_key(out, "packets"); jw_u64(out, pkts);
	jw_key(out, "cycles_per_packet");
	jw_double(out, pkts ? (double)busy / pkts : 0);
	jw_key(out, "tunnel_pops"); jw_u64(out, counter_ld(&s->tunnel_pops));
	jw_key(out, "tunnel_pushes"); jw_u64(out, counter_ld(&s->tunnel_pushes));
	jw_key(out, "emc_hits"); jw_u64(out, counter_ld(&s->emc_hits));
	jw_key(out, "megaflow_hits"); jw_u64(out, counter_ld(&s->megaflow_hits));
	jw_key(out, "upcalls"); jw_u64(out, counter_ld(&s->upcalls));
	jw_key(out, "tx_batches"); jw_u64(out, txb);
	jw_key(out, "tx_packets"); jw_u64(out, counter_ld(&s->tx_packets));
	jw_key(out, "packets_per_batch");
	jw_double(out, txb ? (double)counter_ld(&s->tx_packets) / txb : 0);
	jw_key(out, "polls"); jw_u64(out, counter_ld(&s->polls));
	jw_key(out, "polls_empty"); jw_u64(out, counter_ld(&s->polls_empty));
	jw_key(out, "rx_bursts_vhost");
	jw_u64(out, counter_ld(&s->rx_bursts_vhost));
	jw_key(out, "rx_packets_vhost");
	jw_u64(out, counter_ld(&s->rx_packets_vhost));
	jw_key(out, "tx_batches_vhost");
	jw_u64(out, counter_ld(&s->tx_batches_vhost));
	jw_key(out, "tx_packets_vhost");
	jw_u64(out, counter_ld(&s->tx_packets_vhost));
	jw_key(out, "stages");
	jw_begin_object(out);
	for (int st = 0; st <= PMD_N_STAGES; st++) {
		uint64_t c;
		if (st < PMD_N_STAGES) {
			c = counter_ld(&s->stage_cycles[st]);
			staged += c;
			jw_key(out, pmd_stage_name(st));
		} else {
			c = busy > staged ? busy - staged : 0;
			jw_key(out, "other");
		}
		jw_begin_object(out);
		jw_key(out, "cycles"); jw_u64(out, c);
		jw_key(out, "cycles_per_packet");
		jw_double(out, pkts ? (double)c / pkts : 0);
		jw_key(out, "percent");
		jw_double(out, busy ? 100.0 * c / busy : 0);
		jw_end_object(out);
	}
	jw_end_object(out);
	jw_key(out, "burst_sizes");
	jw_begin_object(out);
	for (int k = 0; k < PMD_BURST_BUCKETS; k++) {
		jw_key(out, burst_bucket_names[k]);
		jw_u64(out, counter_ld(&s->bursts[k]));
	}
	jw_end_object(out);
	jw_end_object(out);
}

static int
cmd_pmd_perf_show(int argc, const char *argv[], bool json, struct ds *out,
		  void *aux)
{
	UNUSED_ARGS;
	report_each_pmd(json, out, pmd_perf_text, pmd_perf_json);
	return 0;
}

static void
pmd_clear_req(struct pmd_request *req)
{
	pmd_clear_stats(req->pmd);
}

static int
cmd_pmd_stats_clear(int argc, const char *argv[], bool json, struct ds *out,
		    void *aux)
{
	struct pmd_ovs_args a;

	(void)json, (void)aux;
	if (pmd_ovs_args_parse(argc, argv, false, &a, out) ||
	    pmds_answering_or_refuse(out))
		return -1;
	for (uint16_t i = 0; i < n_pmds; i++)
		if (a.core < 0 || pmds[i].lcore == (unsigned)a.core)
			pmd_call(&pmds[i], pmd_clear_req, NULL);
	if (a.core >= 0)
		return 0;
	/* and what PMDs replaced by set-pmd-cores had counted */
	memset(&pmd_retired_stats, 0, sizeof pmd_retired_stats);
	memset(pmd_retired_port_stats, 0,
	       PORT_MAX * sizeof *pmd_retired_port_stats);
	return 0;
}

/* ---- optimisations -------------------------------------------------- */

/* dpif-netdev/set-opt NAME on|off: for A/B runs on live traffic */
static int
cmd_set_opt(int argc, const char *argv[], bool json, struct ds *out,
	    void *aux)
{
	(void)argc, (void)json, (void)aux;
	int o = dp_opt_by_name(argv[1]);
	bool on = !strcmp(argv[2], "on") || !strcmp(argv[2], "true");

	if (o < 0) {
		ds_put_format(out, "unknown optimisation '%s' (see "
			      "dpif-netdev/opts-show)", argv[1]);
		return -1;
	}
	if (!on && strcmp(argv[2], "off") && strcmp(argv[2], "false")) {
		ds_put_format(out, "expected on or off, not '%s'", argv[2]);
		return -1;
	}
	if (pmds_answering_or_refuse(out))
		return -1;
	for (uint16_t i = 0; i < n_pmds; i++) {
		uint32_t opts = pmds[i].dp.opts;
		opts = on ? opts | DP_OPT_BIT(o) : opts & ~DP_OPT_BIT(o);
		pmd_call(&pmds[i], pmd_set_opts, (void *)(uintptr_t)opts);
	}
	ctl_events_process();
	state_changed();
	ds_put_format(out, "%s %s\n", dp_opt_name(o), on ? "on" : "off");
	return 0;
}

static int
cmd_opts_show(int argc, const char *argv[], bool json, struct ds *out,
	      void *aux)
{
	UNUSED_ARGS;
	uint32_t opts = n_pmds ? pmds[0].dp.opts : dp_opts_default();

	if (json)
		jw_begin_object(out);
	for (int o = 0; o < DP_N_OPTS; o++) {
		bool on = opts & DP_OPT_BIT(o);
		if (json) {
			jw_key(out, dp_opt_name(o));
			jw_bool(out, on);
		} else {
			ds_put_format(out, "%-20s %s\n", dp_opt_name(o),
				      on ? "on" : "off");
		}
	}
	if (json)
		jw_end_object(out);
	return 0;
}

void
cmd_pmd_register(void)
{
	control_register("dpif-netdev/pmd-stats-show",
			 "[-pmd CORE] [-m|--more] [DP]", 0, 4,
			 cmd_pmd_stats_show, NULL);
	control_register("dpif-netdev/pmd-perf-show", "", 0, 0,
			 cmd_pmd_perf_show, NULL);
	control_register("dpif-netdev/pmd-stats-clear", "[-pmd CORE] [DP]", 0, 3,
			 cmd_pmd_stats_clear, NULL);
	cmd_pmd_rxq_register();		/* cmd_pmd_rxq.c */
	cmd_dp_param_register();	/* cmd_dp_param.c: set-param */
	control_register("dpif-netdev/set-opt", "NAME on|off", 2, 2,
			 cmd_set_opt, NULL);
	control_register("dpif-netdev/opts-show", "", 0, 0, cmd_opts_show,
			 NULL);
}
