/* SPDX-License-Identifier: BSD-3-Clause
 * vxswitch-ctl commands, named after ovs-ofctl / ovs-appctl where the
 * meaning is the same. All run in the control thread; PMD-owned state
 * (megaflows) is read through pmd_call(). */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include "control.h"
#include "dp_offload.h"
#include "dpcls.h"
#include "json_out.h"
#include "ofproto.h"
#include "pmd.h"
#include "vxswitch.h"
#include "xlate.h"

#include "cmd_util.h"

/* ---- counters summed over PMDs ---------------------------------------- */

static void
port_stats_sum(uint16_t idx, struct pmd_port_stats *sum)
{
	memset(sum, 0, sizeof *sum);
	for (uint16_t i = 0; i < n_pmds; i++) {
		const struct pmd_port_stats *s = &pmds[i].port_stats[idx];
		sum->rx_packets += __atomic_load_n(&s->rx_packets, __ATOMIC_RELAXED);
		sum->rx_bytes += __atomic_load_n(&s->rx_bytes, __ATOMIC_RELAXED);
		sum->tx_packets += __atomic_load_n(&s->tx_packets, __ATOMIC_RELAXED);
		sum->tx_bytes += __atomic_load_n(&s->tx_bytes, __ATOMIC_RELAXED);
		sum->tx_dropped += __atomic_load_n(&s->tx_dropped, __ATOMIC_RELAXED);
	}
}

/* ---- show -------------------------------------------------------------- */

static int
cmd_show(int argc, const char *argv[], bool json, struct ds *out, void *aux)
{
	UNUSED_ARGS;
	char mac[RTE_ETHER_ADDR_FMT_SIZE], ip[INET_ADDRSTRLEN];
	const struct dp_snapshot *s = dp_snapshot_get();

	if (json) {
		json_begin_object(out);
		json_key(out, "ports");
		json_begin_array(out);
		for (uint16_t i = 0; i < n_ports; i++) {
			struct port *p = ports[i];
			struct pmd_port_stats st;
			port_stats_sum(i, &st);
			json_begin_object(out);
			json_key(out, "name"); json_string(out, p->name);
			json_key(out, "ofport"); json_u64(out, p->ofport);
			json_key(out, "type"); json_string(out, port_kind_name(p));
			json_key(out, "state"); json_string(out, port_state_name(p));
			json_key(out, "underlay"); json_bool(out, p->is_underlay);
			json_key(out, "rx_packets"); json_u64(out, st.rx_packets);
			json_key(out, "rx_bytes"); json_u64(out, st.rx_bytes);
			json_key(out, "tx_packets"); json_u64(out, st.tx_packets);
			json_key(out, "tx_bytes"); json_u64(out, st.tx_bytes);
			json_key(out, "tx_dropped"); json_u64(out, st.tx_dropped);
			if (p->kind == PORT_VHOST) {
				json_key(out, "path"); json_string(out, p->path);
				json_key(out, "connects");
				json_u64(out, __atomic_load_n(&p->n_connects,
							      __ATOMIC_RELAXED));
				json_key(out, "refused_mem");
				json_u64(out, __atomic_load_n(
					&p->vhost_refused_mem, __ATOMIC_RELAXED));
				json_key(out, "refused_ring");
				json_u64(out, __atomic_load_n(
					&p->vhost_refused_ring, __ATOMIC_RELAXED));
			}
			json_end_object(out);
		}
		json_end_array(out);
		json_key(out, "mempool");
		json_begin_object(out);
		json_key(out, "size"); json_u64(out, pktmbuf_pool->size);
		json_key(out, "in_use"); json_u64(out, mbufs_in_use());
		json_end_object(out);
		pmd_accounting_json_all(out);
		json_key(out, "n_pmds"); json_u64(out, n_pmds);
		json_key(out, "n_rules"); json_u64(out, ofproto_n_rules());
		json_key(out, "generation"); json_u64(out, s->gen);
		json_end_object(out);
		return 0;
	}
	ds_put_format(out, "vxswitch %s\n", VXSWITCH_VERSION);
	if (s->has_underlay) {
		mac_str(&s->vtep_mac, mac);
		ds_put_format(out, "  vtep: %s/%u mac %s on %s\n",
			      ip_str(s->vtep_ip, ip), s->vtep_plen, mac,
			      ports[s->underlay_idx]->name);
	}
	ds_put_format(out, "  %-22s %6s %-20s %-5s %12s %12s %10s\n", "port",
		      "ofport", "type", "state", "rx_packets", "tx_packets",
		      "tx_dropped");
	for (uint16_t i = 0; i < n_ports; i++) {
		struct port *p = ports[i];
		struct pmd_port_stats st;
		port_stats_sum(i, &st);
		ds_put_format(out, "  %-22s %6u %-20s %-5s %12lu %12lu %10lu\n",
			      p->name, p->ofport, port_kind_name(p),
			      port_state_name(p), st.rx_packets, st.tx_packets,
			      st.tx_dropped);
	}
	ds_put_format(out, "  mbufs: %u of %u in use\n", mbufs_in_use(),
		      pktmbuf_pool->size);
	ds_put_format(out, "  pmds: %u, rules: %u, tables generation %lu\n",
		      n_pmds, ofproto_n_rules(), s->gen);
	return 0;
}

/* ---- megaflows from the PMDs ------------------------------------------ */

struct mf_dump {
	struct flow_key key, mask;
	struct dp_actions actions;
	uint64_t n_packets, n_bytes, used_tsc, id;
	uint32_t rule_uid;
	uint32_t mark;			/* NIC mark while offloaded, else 0 */
};

struct mf_dump_req {
	struct mf_dump *v;
	uint32_t n, cap;
};

static void
dump_one(struct megaflow *f, void *aux)
{
	struct mf_dump_req *r = aux;
	if (r->n == r->cap)
		return;
	struct mf_dump *d = &r->v[r->n++];
	d->key = f->key;
	d->mask = f->mask;
	d->actions = f->actions;
	d->n_packets = f->n_packets;
	d->n_bytes = f->n_bytes;
	d->used_tsc = f->used_tsc;
	d->id = f->id;
	d->rule_uid = f->rule_uid;
	d->mark = f->offload == MF_OFFLOAD_INSTALLED ? f->mark : 0;
}

static void
pmd_dump_flows(struct pmd_request *req)
{
	struct mf_dump_req *r = req->arg;
	r->cap = dpcls_count(req->pmd->dp.cls);
	r->v = malloc((r->cap ? r->cap : 1) * sizeof *r->v);
	if (!r->v)
		r->cap = 0;
	dpcls_foreach(req->pmd->dp.cls, dump_one, r);
}

static int
collect_flows(struct pmd *pmd, struct mf_dump_req *r, struct ds *out)
{
	memset(r, 0, sizeof *r);
	if (pmd_call(pmd, pmd_dump_flows, r)) {
		ds_put_format(out, "pmd on core %u did not answer", pmd->lcore);
		return -1;
	}
	return 0;
}

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

/* ---- OpenFlow rules ----------------------------------------------------- */

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
		ofp_format_rule(r, ports_ofp_map(), buf, sizeof buf);
		if (json) {
			json_begin_object(out);
			json_key(out, "rule"); json_string(out, buf);
			json_key(out, "priority"); json_u64(out, r->priority);
			json_key(out, "n_packets"); json_u64(out, packets);
			json_key(out, "n_bytes"); json_u64(out, bytes);
			json_end_object(out);
		} else {
			ds_put_format(out, " cookie=0x%lx, table=0, n_packets=%lu,"
				      " n_bytes=%lu, %s\n", r->cookie, packets,
				      bytes, buf);
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
	ds_put_format(out, "%d flows deleted\n", n);
	return 0;
}

/* ---- PMD stats ---------------------------------------------------------- */

static uint64_t
ld(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

static void
pmd_stats_text(struct ds *out, const struct pmd *pmd)
{
	const struct pmd_stats *s = &pmd->stats;
	uint64_t pkts = ld(&s->packets), busy = ld(&s->busy_cycles);
	uint64_t idle = ld(&s->idle_cycles), total = busy + idle;
	uint64_t pops = ld(&s->tunnel_pops), txb = ld(&s->tx_batches);
	uint64_t lookups = pkts + pops, emc = ld(&s->emc_hits);
	uint64_t mf = ld(&s->megaflow_hits), up = ld(&s->upcalls);

	ds_put_format(out, "pmd thread numa_id %u core_id %u:\n",
		      rte_lcore_to_socket_id(pmd->lcore), pmd->lcore);
	ds_put_format(out, "  packets received: %lu\n", pkts);
	ds_put_format(out, "  tunnel pops (inner lookups, same pass): %lu\n",
		      pops);
	ds_put_format(out, "  tunnel pushes: %lu\n", ld(&s->tunnel_pushes));
	ds_put_format(out, "  NIC-marked (parse and lookup skipped): %lu\n",
		      ld(&s->mark_hits));
	ds_put_format(out, "  NIC-marked, full path (unknown/stale mark or "
		      "check failed): %lu\n", ld(&s->mark_fallbacks));
	ds_put_format(out, "  avg. lookups per packet: %.2f\n",
		      pkts ? (double)lookups / pkts : 0);
	ds_put_format(out, "  exact match hits: %lu\n", emc);
	ds_put_format(out, "  megaflow hits: %lu\n", mf);
	ds_put_format(out, "  miss with success upcall: %lu\n", up);
	ds_put_format(out, "  avg. upcall cycles: %.0f\n",
		      up ? (double)ld(&s->upcall_cycles) / up : 0);
	ds_put_format(out, "  avg. packets per output batch: %.2f\n",
		      txb ? (double)ld(&s->tx_packets) / txb : 0);
	ds_put_format(out, "  idle cycles: %lu (%.2f%%)\n", idle,
		      total ? 100.0 * idle / total : 0);
	ds_put_format(out, "  processing cycles: %lu (%.2f%%)\n", busy,
		      total ? 100.0 * busy / total : 0);
	ds_put_format(out, "  avg processing cycles per packet: %.1f\n",
		      pkts ? (double)busy / pkts : 0);
	{
		uint64_t sleeps = ld(&s->sleeps), slept = ld(&s->sleep_cycles);
		ds_put_format(out, "  idle back-off sleeps: %lu (%.0f us, "
			      "%.2f%% of polling + sleeping time)\n", sleeps,
			      (double)slept * 1e6 / rte_get_tsc_hz(),
			      total + slept ? 100.0 * slept / (total + slept)
					    : 0);
	}
	ds_put_format(out, "  megaflows: %u (expired %lu, revalidated out %lu,"
		      " revalidations %lu)\n", dpcls_count(pmd->dp.cls),
		      ld(&s->megaflows_expired),
		      ld(&s->megaflows_revalidated_out),
		      ld(&s->revalidations));
	pmd_accounting_text(out, &pmds[pmd->idx]);
	ds_put_format(out, "  drops:");
	for (int r = 0; r < DROP_N_REASONS; r++)
		ds_put_format(out, " %s=%lu", drop_reason_name(r),
			      ld(&s->drops[r]));
	ds_put_char(out, '\n');
}

static void
pmd_stats_json(struct ds *out, const struct pmd *pmd)
{
	const struct pmd_stats *s = &pmd->stats;
	uint64_t pkts = ld(&s->packets), busy = ld(&s->busy_cycles);

	json_begin_object(out);
	json_key(out, "core"); json_u64(out, pmd->lcore);
	json_key(out, "packets"); json_u64(out, pkts);
	json_key(out, "emc_hits"); json_u64(out, ld(&s->emc_hits));
	json_key(out, "megaflow_hits"); json_u64(out, ld(&s->megaflow_hits));
	json_key(out, "upcalls"); json_u64(out, ld(&s->upcalls));
	json_key(out, "tunnel_pops"); json_u64(out, ld(&s->tunnel_pops));
	json_key(out, "tunnel_pushes"); json_u64(out, ld(&s->tunnel_pushes));
	json_key(out, "mark_hits"); json_u64(out, ld(&s->mark_hits));
	json_key(out, "mark_fallbacks");
	json_u64(out, ld(&s->mark_fallbacks));
	json_key(out, "arp_replies"); json_u64(out, ld(&s->arp_replies));
	json_key(out, "busy_cycles"); json_u64(out, busy);
	json_key(out, "idle_cycles"); json_u64(out, ld(&s->idle_cycles));
	json_key(out, "iterations"); json_u64(out, ld(&s->iterations));
	json_key(out, "sleeps"); json_u64(out, ld(&s->sleeps));
	json_key(out, "sleep_cycles"); json_u64(out, ld(&s->sleep_cycles));
	json_key(out, "tsc_hz"); json_u64(out, rte_get_tsc_hz());
	json_key(out, "cycles_per_packet");
	json_double(out, pkts ? (double)busy / pkts : 0);
	json_key(out, "tx_batches"); json_u64(out, ld(&s->tx_batches));
	json_key(out, "tx_packets"); json_u64(out, ld(&s->tx_packets));
	json_key(out, "megaflows"); json_u64(out, dpcls_count(pmd->dp.cls));
	json_key(out, "copies"); json_u64(out, ld(&s->copies));
	json_key(out, "arp_consumed"); json_u64(out, ld(&s->arp_consumed));
	pmd_accounting_json(out, &pmds[pmd->idx]);
	json_key(out, "drops");
	json_begin_object(out);
	for (int r = 0; r < DROP_N_REASONS; r++) {
		json_key(out, drop_reason_name(r));
		json_u64(out, ld(&s->drops[r]));
	}
	json_end_object(out);
	json_end_object(out);
}

/* One report per PMD: a JSON array of objects, or text blocks. */
static void
report_each_pmd(bool json, struct ds *out,
		void (*text)(struct ds *, const struct pmd *),
		void (*as_json)(struct ds *, const struct pmd *))
{
	if (json)
		json_begin_array(out);
	for (uint16_t i = 0; i < n_pmds; i++)
		(json ? as_json : text)(out, &pmds[i]);
	if (json)
		json_end_array(out);
}

static int
cmd_pmd_stats_show(int argc, const char *argv[], bool json, struct ds *out,
		   void *aux)
{
	UNUSED_ARGS;
	report_each_pmd(json, out, pmd_stats_text, pmd_stats_json);
	return 0;
}

/* pmd-perf-show: where each PMD's busy cycles go, per packet and per
 * stage (pmd.h, PMD_STAGES), as OVS's dpif-netdev/pmd-perf-show. */
static const char *const burst_bucket_names[PMD_BURST_BUCKETS] = {
	"1", "2-3", "4-7", "8-15", "16-31", "32",
};

static void
pmd_perf_text(struct ds *out, const struct pmd *pmd)
{
	const struct pmd_stats *s = &pmd->stats;
	uint64_t pkts = ld(&s->packets), busy = ld(&s->busy_cycles);
	uint64_t idle = ld(&s->idle_cycles), total = busy + idle;
	uint64_t its = ld(&s->iterations), txb = ld(&s->tx_batches);
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
		      "pass)\n", ld(&s->tunnel_pops));
	ds_put_format(out, "  - tunnel pushes:   %12lu\n",
		      ld(&s->tunnel_pushes));
	ds_put_format(out, "  - EMC hits:        %12lu\n", ld(&s->emc_hits));
	ds_put_format(out, "  - megaflow hits:   %12lu\n",
		      ld(&s->megaflow_hits));
	ds_put_format(out, "  - upcalls:         %12lu\n", ld(&s->upcalls));
	ds_put_format(out, "  Tx packets:        %12lu  (%.2f pkts/batch)\n",
		      ld(&s->tx_packets),
		      txb ? (double)ld(&s->tx_packets) / txb : 0);
	ds_put_format(out, "  Busy cycles by stage:   cycles/pkt   %% of busy\n");
	for (int st = 0; st < PMD_N_STAGES; st++) {
		uint64_t c = ld(&s->stage_cycles[st]);
		staged += c;
		ds_put_format(out, "    %-20s %12.1f %10.1f %%\n",
			      pmd_stage_name(st), pkts ? (double)c / pkts : 0,
			      busy ? 100.0 * c / busy : 0);
	}
	uint64_t other = busy > staged ? busy - staged : 0;
	ds_put_format(out, "    %-20s %12.1f %10.1f %%\n", "other (rx, loop)",
		      pkts ? (double)other / pkts : 0,
		      busy ? 100.0 * other / busy : 0);
	ds_put_format(out, "    %-20s %12.1f\n", "total",
		      pkts ? (double)busy / pkts : 0);
	for (int k = 0; k < PMD_BURST_BUCKETS; k++)
		bursts += ld(&s->bursts[k]);
	ds_put_format(out, "  Rx burst sizes (%lu bursts, %.1f pkts/burst):\n",
		      bursts, bursts ? (double)pkts / bursts : 0);
	for (int k = 0; k < PMD_BURST_BUCKETS; k++) {
		uint64_t c = ld(&s->bursts[k]);
		ds_put_format(out, "    %-6s %12lu  (%5.1f %%)\n",
			      burst_bucket_names[k], c,
			      bursts ? 100.0 * c / bursts : 0);
	}
}

static void
pmd_perf_json(struct ds *out, const struct pmd *pmd)
{
	const struct pmd_stats *s = &pmd->stats;
	uint64_t pkts = ld(&s->packets), busy = ld(&s->busy_cycles);
	uint64_t txb = ld(&s->tx_batches), staged = 0;

	json_begin_object(out);
	json_key(out, "core"); json_u64(out, pmd->lcore);
	json_key(out, "numa_id");
	json_u64(out, rte_lcore_to_socket_id(pmd->lcore));
	json_key(out, "iterations"); json_u64(out, ld(&s->iterations));
	json_key(out, "busy_cycles"); json_u64(out, busy);
	json_key(out, "idle_cycles"); json_u64(out, ld(&s->idle_cycles));
	json_key(out, "packets"); json_u64(out, pkts);
	json_key(out, "cycles_per_packet");
	json_double(out, pkts ? (double)busy / pkts : 0);
	json_key(out, "tunnel_pops"); json_u64(out, ld(&s->tunnel_pops));
	json_key(out, "tunnel_pushes"); json_u64(out, ld(&s->tunnel_pushes));
	json_key(out, "emc_hits"); json_u64(out, ld(&s->emc_hits));
	json_key(out, "megaflow_hits"); json_u64(out, ld(&s->megaflow_hits));
	json_key(out, "upcalls"); json_u64(out, ld(&s->upcalls));
	json_key(out, "tx_batches"); json_u64(out, txb);
	json_key(out, "tx_packets"); json_u64(out, ld(&s->tx_packets));
	json_key(out, "packets_per_batch");
	json_double(out, txb ? (double)ld(&s->tx_packets) / txb : 0);
	json_key(out, "stages");
	json_begin_object(out);
	for (int st = 0; st <= PMD_N_STAGES; st++) {
		uint64_t c;
		if (st < PMD_N_STAGES) {
			c = ld(&s->stage_cycles[st]);
			staged += c;
			json_key(out, pmd_stage_name(st));
		} else {
			c = busy > staged ? busy - staged : 0;
			json_key(out, "other");
		}
		json_begin_object(out);
		json_key(out, "cycles"); json_u64(out, c);
		json_key(out, "cycles_per_packet");
		json_double(out, pkts ? (double)c / pkts : 0);
		json_key(out, "percent");
		json_double(out, busy ? 100.0 * c / busy : 0);
		json_end_object(out);
	}
	json_end_object(out);
	json_key(out, "burst_sizes");
	json_begin_object(out);
	for (int k = 0; k < PMD_BURST_BUCKETS; k++) {
		json_key(out, burst_bucket_names[k]);
		json_u64(out, ld(&s->bursts[k]));
	}
	json_end_object(out);
	json_end_object(out);
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
	UNUSED_ARGS;
	(void)out;
	for (uint16_t i = 0; i < n_pmds; i++)
		pmd_call(&pmds[i], pmd_clear_req, NULL);
	return 0;
}

static int
cmd_pmd_rxq_show(int argc, const char *argv[], bool json, struct ds *out,
		 void *aux)
{
	UNUSED_ARGS;
	if (json)
		json_begin_array(out);
	for (uint16_t i = 0; i < n_pmds; i++) {
		const struct pmd *pmd = &pmds[i];
		uint64_t total = ld(&pmd->stats.busy_cycles) +
				 ld(&pmd->stats.idle_cycles);
		if (!json)
			ds_put_format(out, "pmd thread numa_id %u core_id %u:\n",
				      rte_lcore_to_socket_id(pmd->lcore),
				      pmd->lcore);
		for (uint16_t q = 0; q < pmd->n_rxqs; q++) {
			const struct pmd_rxq *rq = &pmd->rxqs[q];
			double usage = total ? 100.0 * ld(&rq->busy_cycles) /
						       total : 0;
			uint64_t polls = ld(&rq->poll.polls);
			uint64_t empty = ld(&rq->poll.empty_polls);
			unsigned thresh = __atomic_load_n(&rq->poll.threshold,
							  __ATOMIC_RELAXED);
			if (json) {
				json_begin_object(out);
				json_key(out, "core"); json_u64(out, pmd->lcore);
				json_key(out, "port"); json_string(out, rq->port->name);
				json_key(out, "queue"); json_u64(out, rq->qid);
				json_key(out, "enabled");
				json_bool(out, rq->port->kind != PORT_VHOST ||
						       port_vhost_ready(rq->port));
				json_key(out, "packets"); json_u64(out, ld(&rq->packets));
				json_key(out, "usage_pct"); json_double(out, usage);
				json_key(out, "polls"); json_u64(out, polls);
				json_key(out, "empty_polls"); json_u64(out, empty);
				/* adaptive: scheduled by the poll scheduler;
				 * threshold: rounds skipped between polls */
				json_key(out, "adaptive");
				json_bool(out, rq->poll.adaptive);
				json_key(out, "threshold"); json_u64(out, thresh);
				json_end_object(out);
			} else {
				ds_put_format(out, "  port: %-20s queue-id: %2u (%s)"
					      "  pmd usage: %3.0f %%"
					      "  polls: %lu  empty: %lu",
					      rq->port->name, rq->qid,
					      rq->port->kind != PORT_VHOST ||
						      port_vhost_ready(rq->port)
						      ? "enabled" : "disabled",
					      usage, polls, empty);
				if (rq->poll.adaptive)
					ds_put_format(out, "  threshold: %u\n",
						      thresh);
				else
					ds_put_format(out, "  threshold: -"
						      " (every round)\n");
			}
		}
	}
	if (json)
		json_end_array(out);
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
	for (uint16_t i = 0; i < n_pmds; i++) {
		uint32_t opts = pmds[i].dp.opts;
		opts = on ? opts | DP_OPT_BIT(o) : opts & ~DP_OPT_BIT(o);
		pmd_call(&pmds[i], pmd_set_opts, (void *)(uintptr_t)opts);
	}
	ctl_events_process();
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
		json_begin_object(out);
	for (int o = 0; o < DP_N_OPTS; o++) {
		bool on = opts & DP_OPT_BIT(o);
		if (json) {
			json_key(out, dp_opt_name(o));
			json_bool(out, on);
		} else {
			ds_put_format(out, "%-20s %s\n", dp_opt_name(o),
				      on ? "on" : "off");
		}
	}
	if (json)
		json_end_object(out);
	return 0;
}

void
print_exit_stats(FILE *f)
{
	struct ds out;
	const char *argv[] = { "show", NULL };

	ds_init(&out);
	cmd_show(1, argv, false, &out, NULL);
	cmd_pmd_stats_show(1, argv, false, &out, NULL);
	fputs(ds_cstr(&out), f);
	ds_destroy(&out);
}

void
commands_register(void)
{
	control_register("show", "", 0, 0, cmd_show, NULL);
	control_register("dump-flows", "[BRIDGE] [FLOW]", 0, 2,
			 cmd_dump_flows, NULL);
	control_register("add-flow", "[BRIDGE] FLOW", 1, 2, cmd_add_flow, NULL);
	control_register("add-flows", "FLOW...", 1, CONTROL_ARGS_ANY,
			 cmd_add_flows, NULL);
	control_register("del-flows", "[--strict] [BRIDGE] [FLOW]", 0, 3,
			 cmd_del_flows, NULL);
	control_register("dpctl/dump-flows", "", 0, 1, cmd_dpctl_dump_flows,
			 NULL);
	control_register("dpctl/del-flows", "", 0, 1, cmd_dpctl_del_flows,
			 NULL);
	control_register("dpif-netdev/pmd-stats-show", "", 0, 0,
			 cmd_pmd_stats_show, NULL);
	control_register("dpif-netdev/pmd-perf-show", "", 0, 0,
			 cmd_pmd_perf_show, NULL);
	control_register("dpif-netdev/pmd-stats-clear", "", 0, 0,
			 cmd_pmd_stats_clear, NULL);
	control_register("dpif-netdev/pmd-rxq-show", "", 0, 0,
			 cmd_pmd_rxq_show, NULL);
	control_register("dpif-netdev/set-opt", "NAME on|off", 2, 2,
			 cmd_set_opt, NULL);
	control_register("dpif-netdev/opts-show", "", 0, 0, cmd_opts_show,
			 NULL);
	cmd_tnl_register();
}
