/* SPDX-License-Identifier: BSD-3-Clause
 * dpif-netdev/set-param NAME VALUE: datapath settings changed on live
 * traffic, for A/B runs without a restart. One so far:
 *   tx-flush-interval-us N   how long a PMD may hold a tx buffer's oldest
 *                            packet waiting for more (0-1000; the
 *                            topology's datapath.tx-flush-interval-us)
 * Each PMD takes the new value between two bursts (pmd_call); the running
 * configuration follows, so save-config and set-pmd-cores keep it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "cmd_util.h"
#include "control.h"
#include "pmd.h"
#include "pmd_watch.h"
#include "run_state.h"
#include "state.h"

#define TX_FLUSH_INTERVAL_US_MAX 1000	/* as config_keys.c allows */

static void
pmd_set_tx_flush_interval(struct pmd_request *req)
{
	dp_set_tx_flush_interval(&req->pmd->dp, (uint32_t)(uintptr_t)req->arg);
}

static int
cmd_set_param(int argc, const char *argv[], bool json, struct ds *out,
	      void *aux)
{
	(void)argc, (void)json, (void)aux;
	const char *name = argv[1], *val = argv[2];
	char *end;
	unsigned long us;

	if (strcmp(name, "tx-flush-interval-us")) {
		ds_put_format(out, "unknown parameter '%s' (known: "
			      "tx-flush-interval-us)", name);
		return -1;
	}
	errno = 0;
	us = strtoul(val, &end, 10);
	if (val[0] < '0' || val[0] > '9' || *end || errno ||
	    us > TX_FLUSH_INTERVAL_US_MAX) {
		ds_put_format(out, "%s: expected 0 to %d microseconds, not "
			      "'%s'", name, TX_FLUSH_INTERVAL_US_MAX, val);
		return -1;
	}
	if (pmds_answering_or_refuse(out))
		return -1;
	for (uint16_t i = 0; i < n_pmds; i++)
		pmd_call(&pmds[i], pmd_set_tx_flush_interval,
			 (void *)(uintptr_t)us);
	run_state_config()->tx_flush_interval_us = (uint32_t)us;
	state_changed();
	ds_put_format(out, "%s %lu\n", name, us);
	return 0;
}

void
cmd_dp_param_register(void)
{
	control_register("dpif-netdev/set-param", "tx-flush-interval-us N",
			 2, 2, cmd_set_param, NULL);
}
