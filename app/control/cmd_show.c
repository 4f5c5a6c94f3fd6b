/* SPDX-License-Identifier: BSD-3-Clause
 * show: the ports with their counters, the mbuf pool, the tables. */
#include <arpa/inet.h>
#include <stdio.h>
#include "cmd_util.h"
#include "control.h"
#include "json_out.h"
#include "ofproto.h"
#include "pmd.h"
#include "pmd_watch.h"
#include "stats_read.h"
#include "version.h"

int
cmd_show(int argc, const char *argv[], bool json, struct ds *out, void *aux)
{
	UNUSED_ARGS;
	char mac[RTE_ETHER_ADDR_FMT_SIZE], ip[INET_ADDRSTRLEN];
	const struct dp_snapshot *s = dp_snapshot_get();

	if (json) {
		jw_begin_object(out);
		jw_key(out, "ports");
		jw_begin_array(out);
		struct port *p;
		PORTS_FOREACH(p) {
			struct pmd_port_stats st;
			port_stats_sum(p->idx, &st);
			jw_begin_object(out);
			jw_key(out, "name"); jw_string(out, p->name);
			jw_key(out, "ofport"); jw_u64(out, p->ofport);
			jw_key(out, "type"); jw_string(out, port_kind_name(p));
			jw_key(out, "state"); jw_string(out, port_state_name(p));
			jw_key(out, "underlay"); jw_bool(out, p->is_underlay);
			jw_key(out, "capture");
			jw_string(out, port_capture_name(p));
#define X(field) jw_key(out, #field); jw_u64(out, st.field);
			PORT_STATS(X)
#undef X
			jw_key(out, "n_txq"); jw_u64(out, p->n_txq);
			jw_key(out, "tx_shared");
			jw_bool(out, port_tx_shared(p));
			if (p->kind == PORT_VHOST) {
				jw_key(out, "path"); jw_string(out, p->path);
				jw_key(out, "connects");
				jw_u64(out, __atomic_load_n(&p->n_connects,
							    __ATOMIC_RELAXED));
				jw_key(out, "refused_mem");
				jw_u64(out, __atomic_load_n(
					&p->vhost_refused_mem, __ATOMIC_RELAXED));
				jw_key(out, "refused_ring");
				jw_u64(out, __atomic_load_n(
					&p->vhost_refused_ring, __ATOMIC_RELAXED));
				/* queue pairs the guest enabled */
				jw_key(out, "guest_queues");
				jw_u64(out, __atomic_load_n(&p->guest_queues,
							    __ATOMIC_RELAXED));
			}
			jw_end_object(out);
		}
		jw_end_array(out);
		jw_key(out, "mempool");
		jw_begin_object(out);
		jw_key(out, "size"); jw_u64(out, pktmbuf_pool->size);
		jw_key(out, "in_use"); jw_u64(out, mbufs_in_use());
		jw_end_object(out);
		pmd_accounting_json_all(out);
		jw_key(out, "n_pmds"); jw_u64(out, n_pmds);
		/* [] when all answer; else the counters are as last seen */
		pmds_silence_json(out, "pmds_not_answering");
		jw_key(out, "n_rules"); jw_u64(out, ofproto_n_rules());
		jw_key(out, "generation"); jw_u64(out, s->gen);
		jw_end_object(out);
		return 0;
	}
	ds_put_format(out, "vxswitch %s\n", VXSWITCH_VERSION);
	if (s->has_underlay) {
		mac_str(&s->vtep_mac, mac);
		ds_put_format(out, "  vtep: %s/%u mac %s on %s\n",
			      ip_str(s->vtep_ip, ip), s->vtep_plen, mac,
			      ports[s->underlay_idx]->name);
		if (s->has_vtep_ip6) {
			char ip6[INET6_ADDRSTRLEN];
			inet_ntop(AF_INET6, s->vtep_ip6.a, ip6, sizeof ip6);
			ds_put_format(out, "  vtep: %s/%u\n", ip6,
				      s->vtep_plen6);
		}
	}
	/* A table: rx_packets, tx_packets, tx_dropped of PORT_STATS (--json
	 * and telemetry have them all). */
	ds_put_format(out, "  %-22s %6s %-20s %-5s %12s %12s %10s\n", "port",
		      "ofport", "type", "state", "rx_packets", "tx_packets",
		      "tx_dropped");
	struct port *p;
	PORTS_FOREACH(p) {
		struct pmd_port_stats st;
		port_stats_sum(p->idx, &st);
		ds_put_format(out, "  %-22s %6u %-20s %-5s %12lu %12lu %10lu\n",
			      p->name, p->ofport, port_kind_name(p),
			      port_state_name(p), st.rx_packets, st.tx_packets,
			      st.tx_dropped);
	}
	/* what to type after dpdk-dumpcap -i, per capturable port */
	ds_put_cstr(out, "  capture (dpdk-dumpcap -i):");
	PORTS_FOREACH(p)
		if (port_capture_name(p)[0])
			ds_put_format(out, " %s=%s", p->name,
				      port_capture_name(p));
	ds_put_char(out, '\n');
	ds_put_format(out, "  mbufs: %u of %u in use\n", mbufs_in_use(),
		      pktmbuf_pool->size);
	ds_put_format(out, "  pmds: %u, rules: %u, tables generation %lu\n",
		      n_pmds, ofproto_n_rules(), s->gen);
	for (uint16_t i = 0; i < n_pmds; i++) {
		if (pmd_answering(&pmds[i]))
			continue;
		ds_put_cstr(out, "  ");
		pmd_silence_text(&pmds[i], out);
		ds_put_cstr(out, ": its counters as last seen\n");
	}
	return 0;
}

void
cmd_show_register(void)
{
	control_register("show", "", 0, 0, cmd_show, NULL);
}
