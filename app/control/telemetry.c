/* SPDX-License-Identifier: BSD-3-Clause
 * Port and PMD counters through rte_telemetry, so Debian's
 * dpdk-telemetry.py (and any client of the telemetry socket in
 * /var/run/dpdk/<file-prefix>/) reads them:
 *   /vxswitch/ports          port names
 *   /vxswitch/port_stats,N   port N (name or index): show --json's
 *                            fields, its capture ethdev, its counters
 *   /vxswitch/pmds           the PMDs' core ids
 *   /vxswitch/pmd_stats,C    counters of the PMD on core C; no C: every
 *                            PMD, keyed by core id (a dict: 22.11
 *                            arrays hold no dicts). The reply is at most
 *                            16 KiB: PMDs past what fits whole are given
 *                            as a summary (core, packets, busy/idle
 *                            cycles, dropped), ask pmd_stats,C for those
 *   /vxswitch/mempool        the mbuf pool's size and in_use
 *   /vxswitch/ct_stats       the connection tracker's counters and
 *                            max_conns (dpctl/ct-stats-show --json's)
 * Parameters are parsed strictly: an index or core is all decimal digits
 * and in range ("1abc", "-1", " 1", "+1" are errors), and a command that
 * takes none refuses one. An error reply is the command with null data.
 * Callbacks run in the telemetry thread: they only read counters. Both
 * stats commands report every counter of their list (dp_stats.h: PMD_STATS,
 * PORT_STATS, the drop reasons), as pmd-stats-show --json and show --json
 * do, the megaflow count as its PMD publishes it (dp_ctx.n_megaflows: the
 * classifier itself set-pmd-cores may free under this thread); not
 * pmd-stats-show's ratios (derived from the counters; no doubles in
 * 22.11). */
#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <rte_cycles.h>
#include <rte_telemetry.h>
#include "conntrack.h"
#include "pmd.h"
#include "pmd_watch.h"
#include "stats_read.h"
#include "telemetry.h"

/* 'params' as a decimal number below 'limit': digits only, no sign or
 * space, and few enough that nothing can overflow. */
static bool
parse_below(const char *params, unsigned long limit, unsigned long *out)
{
	unsigned long v = 0;
	size_t n = 0;

	for (const char *p = params; *p; p++, n++) {
		if (!isdigit((unsigned char)*p) || n == 9)
			return false;
		v = v * 10 + (unsigned long)(*p - '0');
	}
	if (!n || v >= limit)
		return false;
	*out = v;
	return true;
}

static bool
no_params(const char *params)
{
	return !params || !*params;
}

static int
tel_ports(const char *cmd, const char *params, struct rte_tel_data *d)
{
	(void)cmd;
	if (!no_params(params))
		return -EINVAL;
	struct port *p;

	rte_tel_data_start_array(d, RTE_TEL_STRING_VAL);
	ports_reader_lock();
	PORTS_FOREACH(p)
		rte_tel_data_add_array_string(d, p->name);
	ports_reader_unlock();
	return 0;
}

static struct port *
port_param(const char *params)
{
	unsigned long idx;

	if (no_params(params))
		return NULL;
	struct port *p = port_by_name(params);
	if (p)
		return p;
	return parse_below(params, n_ports, &idx) ? port_at(idx) : NULL;
}

static int
tel_port_stats(const char *cmd, const char *params, struct rte_tel_data *d)
{
	(void)cmd;
	struct pmd_port_stats sum;

	/* del-port frees a port only after taking this lock (port.h) */
	ports_reader_lock();
	struct port *p = port_param(params);
	if (!p) {
		ports_reader_unlock();
		return -EINVAL;
	}
	port_stats_sum(p->idx, &sum);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "name", p->name);
	rte_tel_data_add_dict_string(d, "type", port_kind_name(p));
	rte_tel_data_add_dict_string(d, "state", port_state_name(p));
	rte_tel_data_add_dict_u64(d, "ofport", p->ofport);
	rte_tel_data_add_dict_u64(d, "underlay", p->is_underlay);
	rte_tel_data_add_dict_string(d, "capture", port_capture_name(p));
#define X(field) rte_tel_data_add_dict_u64(d, #field, sum.field);
	PORT_STATS(X)
#undef X
	rte_tel_data_add_dict_u64(d, "n_txq", p->n_txq);
	rte_tel_data_add_dict_u64(d, "tx_shared", port_tx_shared(p));
	if (p->kind == PORT_VHOST) {	/* show --json's vhost fields */
		rte_tel_data_add_dict_string(d, "path", p->path);
#define V(key, field)                                                      \
	rte_tel_data_add_dict_u64(d, key, __atomic_load_n(&p->field,          \
							  __ATOMIC_RELAXED));
		V("connects", n_connects)
		V("refused_mem", vhost_refused_mem)
		V("refused_ring", vhost_refused_ring)
		V("guest_queues", guest_queues)
#undef V
	}
	ports_reader_unlock();
	return 0;
}

/* JSON bytes of one "name":value pair, for the reply's size budget. */
static size_t
pair_len(const char *name, uint64_t v)
{
	char digits[24];

	return strlen(name) + 4 + snprintf(digits, sizeof digits, "%lu", v);
}

static size_t
add_u64(struct rte_tel_data *d, const char *name, uint64_t v)
{
	rte_tel_data_add_dict_u64(d, name, v);
	return pair_len(name, v);
}

/* Every counter of one PMD, as pmd-stats-show --json has them; returns
 * the JSON size added. */
static size_t
pmd_stats_dict(struct rte_tel_data *d, const struct pmd *pmd)
{
	const struct pmd_stats *s = &pmd->stats;
	struct pmd_accounting a;
	size_t n = 0;

	rte_tel_data_start_dict(d);
	n += add_u64(d, "core", pmd->lcore);
#define X(field, text, label) n += add_u64(d, #field, counter_ld(&s->field));
	PMD_STATS(X)
#undef X
	n += add_u64(d, "tsc_hz", rte_get_tsc_hz());
	n += add_u64(d, "megaflows",
		     __atomic_load_n(&pmd->dp.n_megaflows, __ATOMIC_RELAXED));
	pmd_accounting_peek(pmd, &a);
	n += add_u64(d, "dropped", a.dropped);
	n += add_u64(d, "in_flight", a.in_flight);
	for (int r = 0; r < DROP_N_REASONS; r++) {
		char name[48];
		snprintf(name, sizeof name, "drop_%s", drop_reason_name(r));
		n += add_u64(d, name, counter_ld(&s->drops[r]));
	}
	/* 0: its counters as last seen (pmd_watch.h) */
	n += add_u64(d, "answering", pmd_answering(pmd));
	n += add_u64(d, "mbufs_in_use", mbufs_in_use());
	return n;
}

/* The few counters of a PMD that did not fit whole into the reply. */
static size_t
pmd_summary_dict(struct rte_tel_data *d, const struct pmd *pmd)
{
	const struct pmd_stats *s = &pmd->stats;
	struct pmd_accounting a;
	size_t n = 0;

	pmd_accounting_peek(pmd, &a);
	rte_tel_data_start_dict(d);
	n += add_u64(d, "core", pmd->lcore);
	n += add_u64(d, "packets", counter_ld(&s->packets));
	n += add_u64(d, "busy_cycles", counter_ld(&s->busy_cycles));
	n += add_u64(d, "idle_cycles", counter_ld(&s->idle_cycles));
	n += add_u64(d, "dropped", a.dropped);
	return n;
}

/* What a reply may hold (MAX_OUTPUT_LEN, 16 KiB in 22.11, less the
 * command's name and the braces), with room to spare: an entry past it
 * would be left out silently by the library. */
#define TEL_REPLY_BUDGET (16384 - 512)
/* pmd_summary_dict's size at most, with its key */
#define TEL_SUMMARY_MAX 176

/* With a core: that PMD's counters. Without: every PMD, keyed by core id
 * (22.11 arrays cannot hold dicts); a PMD that no longer fits whole gets
 * its summary, and one past that nothing (/vxswitch/pmds lists them all). */
static int
tel_pmd_stats(const char *cmd, const char *params, struct rte_tel_data *d)
{
	(void)cmd;
	unsigned long core;

	if (no_params(params)) {
		size_t used = 0;
		uint16_t n = __atomic_load_n(&n_pmds, __ATOMIC_ACQUIRE);

		rte_tel_data_start_dict(d);
		for (uint16_t i = 0; i < n; i++) {
			struct rte_tel_data *sub = rte_tel_data_alloc();
			char key[16];
			size_t len;

			if (!sub)
				return -ENOMEM;
			snprintf(key, sizeof key, "%u", pmds[i].lcore);
			len = pmd_stats_dict(sub, &pmds[i]) + strlen(key) + 8;
			/* whole, if the PMDs after it still fit as summaries */
			if (used + len + TEL_SUMMARY_MAX * (n - i - 1) >
			    TEL_REPLY_BUDGET)
				len = pmd_summary_dict(sub, &pmds[i]) +
				      strlen(key) + 8;
			if (used + len > TEL_REPLY_BUDGET) {
				rte_tel_data_free(sub);
				break;
			}
			used += len;
			rte_tel_data_add_dict_container(d, key, sub, 0);
		}
		return 0;
	}
	if (!parse_below(params, RTE_MAX_LCORE, &core))
		return -EINVAL;
	for (uint16_t i = 0; i < n_pmds; i++)
		if (pmds[i].lcore == core) {
			pmd_stats_dict(d, &pmds[i]);
			return 0;
		}
	return -EINVAL;
}

/* The PMDs' core ids (pmd_stats,C for each). */
static int
tel_pmds(const char *cmd, const char *params, struct rte_tel_data *d)
{
	(void)cmd;
	if (!no_params(params))
		return -EINVAL;
	rte_tel_data_start_array(d, RTE_TEL_U64_VAL);
	for (uint16_t i = 0; i < n_pmds; i++)
		rte_tel_data_add_array_u64(d, pmds[i].lcore);
	return 0;
}

/* The fields of dpctl/ct-stats-show --json (cmd_ct.c), same names. The
 * per-protocol counts are a walk of the sessions under the sweeper's
 * mutex (conntrack_get_stats), which no PMD takes: a request delays the
 * sweep, never a packet. */
static int
tel_ct_stats(const char *cmd, const char *params, struct rte_tel_data *d)
{
	(void)cmd;
	struct conntrack *ct = __atomic_load_n(&pmd_conntrack,
					       __ATOMIC_ACQUIRE);
	struct ct_stats s;

	if (!no_params(params) || !ct)
		return -EINVAL;
	conntrack_get_stats(ct, &s);
	rte_tel_data_start_dict(d);
#define F(x) rte_tel_data_add_dict_u64(d, #x, s.x);
	F(n_conns) F(created) F(expired) F(flushed) F(refused_full)
	F(refused_zone_limit) F(refused_nat) F(refused_collision) F(invalid)
	F(lane) F(lane_tcp_locked)
	F(n_tcp) F(n_udp) F(n_icmp) F(n_other)
#undef F
	rte_tel_data_add_dict_u64(d, "max_conns", conntrack_get_maxconns(ct));
	return 0;
}

/* show --json's "mempool". */
static int
tel_mempool(const char *cmd, const char *params, struct rte_tel_data *d)
{
	(void)cmd;
	if (!no_params(params) || !pktmbuf_pool)
		return -EINVAL;
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "size", pktmbuf_pool->size);
	rte_tel_data_add_dict_u64(d, "in_use", mbufs_in_use());
	return 0;
}

void
telemetry_register(void)
{
	rte_telemetry_register_cmd("/vxswitch/ports", tel_ports,
				   "Port names. Takes no parameters");
	rte_telemetry_register_cmd("/vxswitch/port_stats", tel_port_stats,
				   "Port counters. Parameter: port name or index");
	rte_telemetry_register_cmd("/vxswitch/pmds", tel_pmds,
				   "PMD core ids. Takes no parameters");
	rte_telemetry_register_cmd("/vxswitch/pmd_stats", tel_pmd_stats,
				   "PMD counters. Parameter: core id (none: every PMD, by core id)");
	rte_telemetry_register_cmd("/vxswitch/mempool", tel_mempool,
				   "Packet mbuf pool: size and in use. Takes no parameters");
	rte_telemetry_register_cmd("/vxswitch/ct_stats", tel_ct_stats,
				   "Connection tracker counters. Takes no parameters");
}
