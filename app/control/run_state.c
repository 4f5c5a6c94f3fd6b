/* SPDX-License-Identifier: BSD-3-Clause
 * The running configuration, and the changes to it that take more than
 * one part: set-pmd-cores (PMDs, ports' tx queues, offload). */
#include <stdio.h>
#include <string.h>
#include <rte_log.h>
#include "cmd_util.h"
#include "offload_ctl.h"
#include "pmd_reconf.h"
#include "run_state.h"
#include "vlog.h"

static struct vxs_config *running;

void
run_state_init(struct vxs_config *cfg)
{
	running = cfg;
}

struct vxs_config *
run_state_config(void)
{
	return running;
}

static void
add_stats(struct pmd_stats *to, const struct pmd_stats *from)
{
	const uint64_t *f = (const uint64_t *)from;
	uint64_t *t = (uint64_t *)to;

	/* struct pmd_stats is counters only, all uint64_t */
	for (size_t i = 0; i < sizeof *from / sizeof *f; i++)
		t[i] += f[i];
}

static void
retire_pmds(void)
{
	for (uint16_t i = 0; i < n_pmds; i++) {
		add_stats(&pmd_retired_stats, &pmds[i].stats);
		for (uint16_t k = 0; k < n_ports; k++) {
#define X(field) pmd_retired_port_stats[k].field +=                        \
		pmds[i].port_stats[k].field;
			PORT_STATS(X)
#undef X
		}
	}
}

int
run_set_pmd_cores(const uint16_t *cores, uint16_t n, char *err,
		  size_t errlen)
{
	uint32_t opts = n_pmds ? pmds[0].dp.opts : running->dp_opts;
	uint16_t old[CFG_MAX_CORES], n_old = running->n_pmd_cores;

	memcpy(old, running->pmd_cores, sizeof old);
	if (pmds_stop()) {	/* first: the PMDs use their mark tables */
		pmds_start();	/* those that stopped: as they were */
		snprintf(err, errlen, "a PMD did not stop (the log says "
			 "where it is): the PMDs are as they were");
		return -1;
	}
	offload_fini();
	retire_pmds();
	pmds_destroy();
	running->n_pmd_cores = n;
	memcpy(running->pmd_cores, cores, n * sizeof *cores);
	if (pmds_create(running, opts, err, errlen)) {
		/* back to the cores that ran: they did a moment ago */
		char why[CFG_ERR_MAX];
		pmds_destroy();
		running->n_pmd_cores = n_old;
		memcpy(running->pmd_cores, old, sizeof old);
		if (pmds_create(running, opts, why, sizeof why))
			VLOG_ERR(pmd, "set-pmd-cores: cannot restore the "
				"PMDs: %s\n", why);
	}
	bool failed = running->n_pmd_cores != n ||
		      memcmp(running->pmd_cores, cores, n * sizeof *cores);
	ports_set_senders(n_pmds);
	if (offload_init(failed ? NULL : err, failed ? 0 : errlen))
		failed = true;
	if (pmds_start()) {
		snprintf(err, errlen, "cannot launch the PMD threads");
		return -1;
	}
	cmd_trace_pmds_new();	/* a trace goes on on the new PMDs */
	VLOG_INFO(pmd, "set-pmd-cores: %u PMDs\n", n_pmds);
	return failed ? -1 : 0;
}
