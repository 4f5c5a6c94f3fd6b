/* SPDX-License-Identifier: BSD-3-Clause
 * Port and PMD counters through rte_telemetry, so Debian's
 * dpdk-telemetry.py (and any client of the telemetry socket in
 * /var/run/dpdk/<file-prefix>/) reads them:
 *   /vxswitch/ports          port names
 *   /vxswitch/port_stats,N   counters of port N (name or index)
 *   /vxswitch/pmd_stats,C    counters of the PMD on core C (no C: the
 *                            first PMD)
 *   /vxswitch/ct_stats       the connection tracker's counters and
 *                            max_conns (dpctl/ct-stats-show --json's)
 * Parameters are parsed strictly: an index or core is all decimal digits
 * and in range ("1abc", "-1", " 1", "+1" are errors), and a command that
 * takes none refuses one. An error reply is the command with null data.
 * Callbacks run in the telemetry thread: they only read counters. Both
 * stats commands report every counter of their list (pmd.h: PMD_STATS,
 * PORT_STATS), as pmd-stats-show --json and show --json do. */
#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <rte_telemetry.h>
#include "conntrack.h"
#include "pmd.h"
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
#define X(field) rte_tel_data_add_dict_u64(d, #field, sum.field);
	PORT_STATS(X)
#undef X
	ports_reader_unlock();
	return 0;
}

static int
tel_pmd_stats(const char *cmd, const char *params, struct rte_tel_data *d)
{
	(void)cmd;
	const struct pmd *pmd = NULL;
	unsigned long core;

	if (no_params(params))
		pmd = n_pmds ? &pmds[0] : NULL;
	else if (parse_below(params, RTE_MAX_LCORE, &core))
		for (uint16_t i = 0; i < n_pmds; i++)
			if (pmds[i].lcore == core)
				pmd = &pmds[i];
	if (!pmd)
		return -EINVAL;
	const struct pmd_stats *s = &pmd->stats;
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "core", pmd->lcore);
#define X(field, text, label)                                              \
	rte_tel_data_add_dict_u64(d, #field, counter_ld(&s->field));
	PMD_STATS(X)
#undef X
	{
		struct pmd_accounting a;
		pmd_accounting_peek(pmd, &a);
		rte_tel_data_add_dict_u64(d, "in_flight", a.in_flight);
	}
	for (int r = 0; r < DROP_N_REASONS; r++) {
		char name[48];
		snprintf(name, sizeof name, "drop_%s", drop_reason_name(r));
		rte_tel_data_add_dict_u64(d, name, counter_ld(&s->drops[r]));
	}
	rte_tel_data_add_dict_u64(d, "mbufs_in_use", mbufs_in_use());
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
	F(n_tcp) F(n_udp) F(n_icmp) F(n_other)
#undef F
	rte_tel_data_add_dict_u64(d, "max_conns", conntrack_get_maxconns(ct));
	return 0;
}

void
telemetry_register(void)
{
	rte_telemetry_register_cmd("/vxswitch/ports", tel_ports,
				   "Port names. Takes no parameters");
	rte_telemetry_register_cmd("/vxswitch/port_stats", tel_port_stats,
				   "Port counters. Parameter: port name or index");
	rte_telemetry_register_cmd("/vxswitch/pmd_stats", tel_pmd_stats,
				   "PMD counters. Parameter: core id (none: the first PMD)");
	rte_telemetry_register_cmd("/vxswitch/ct_stats", tel_ct_stats,
				   "Connection tracker counters. Takes no parameters");
}
